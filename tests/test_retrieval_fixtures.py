"""Shared, built-once indexes for the retrieval tests (no tests here).

The sample corpus is indexed once per process, with the packaged embedding model loaded
once, so the retrieval tests stay fast on two cores.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"


@lru_cache(maxsize=1)
def dense_index():
    from quaestio.retrieval import build_index

    return build_index(CORPUS, embedding_model="all-MiniLM-L6-v2", sentence_window=1)


@lru_cache(maxsize=1)
def bm25_index():
    from quaestio.retrieval import build_index

    return build_index(CORPUS, embedding_model=None)
