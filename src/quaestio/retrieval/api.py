"""`search`: questions in (strings or question_df), `hits_df` out."""

from __future__ import annotations

import os
from typing import Any

from ..analysis.batch import gc_paused
from .base import materialise, question_records
from .build import open_index
from .filters import ChunkFacts, question_filters
from .funnel import Funnel, run_funnel
from .index import Index
from .schema import to_engine


def as_index(index: Index | str | os.PathLike) -> Index:
    return index if isinstance(index, Index) else open_index(index)


def parse_if_needed(questions: Any, satellites=None) -> list[dict]:
    """Question records: strings are parsed offline with quaestio.parse_questions."""
    if isinstance(questions, str):
        questions = [questions]
    if isinstance(questions, (list, tuple)) and all(isinstance(q, str) for q in questions):
        from ..analysis import parse_questions

        return parse_questions(list(questions), satellites, as_="arrow").to_pylist()
    return question_records(questions)


def facts(index: Index) -> ChunkFacts:
    cached = index.__dict__.get("_facts")
    if cached is None:
        cached = index.__dict__["_facts"] = ChunkFacts(index.chunks, index.documents)
    return cached


def search(
    index: Index | str | os.PathLike,
    questions: Any,
    *,
    backend: str = "hybrid",
    k: int = 10,
    funnel: Funnel | None = None,
    filters: bool = True,
    satellites=None,
    as_: str = "pandas",
    **options: Any,
):
    """Retrieve the chunks that answer each question, as `hits_df`.

    Args:
        index: An `Index` or the folder of one.
        questions: A string, a list of strings (parsed offline with `parse_questions`), or a
            `question_df` (pandas, polars or Arrow) whose keywords, hints and scope are used.
        backend: A registered backend: "bm25", "dense", "hybrid" (RRF of the two),
            "parent" (children searched, whole sections returned), "sentence"; or
            "postgres" with a `PostgresIndex` or a DSN as `index`.
        k: Hits per question (before sibling restoration).
        funnel: First-pass width, threshold, reranker, floor, cap, siblings (`Funnel`);
            `Funnel(reranker=None, siblings=False)` returns the backend's ranking as is.
        filters: Apply pages_hint, toc_section_hint, layout_hint and the scope columns.
        satellites: Tables used to parse string questions (bundled when None).
        as_: "pandas", "polars" or "arrow".
        **options: Passed to the backend factory (e.g. `weights=(1, 2)`, `rrf_k=60`,
            `model=...`, `dense={"hyde": "always", "hyde_writer": fn}`).

    Returns:
        hits_df (`HITS_SCHEMA`): one row per (question, chunk), ranks 1-based.

    Raises:
        EmbeddingModelMismatch: a dense backend on an index built without that model.
        UnknownNameError: an unknown backend name (the message lists the registered ones).

    Examples:
        >>> hits = search(build_index("examples/corpus", embedding_model=None),
        ...               "What is the annual premium?", backend="bm25", k=1)
        >>> hits.breadcrumb[0]
        'Home Insurance Policy HI-2024-0173 > Schedule'
    """
    if backend == "postgres":  # a PostgresIndex or a DSN: ranked and filtered in the database
        from .postgres import search as postgres_search

        return postgres_search(
            index,
            questions,
            k=k,
            funnel=funnel,
            filters=filters,
            satellites=satellites,
            as_=as_,
            **options,
        )
    index = as_index(index)
    records = parse_if_needed(questions, satellites)
    retriever = index.retriever(backend, **options)
    table = _run(index, retriever, records, k, funnel or Funnel(), filters)
    return to_engine(table, as_)


def _run(index, retriever, records, k, funnel, filters):
    with gc_paused():
        checks = question_filters(records, facts(index)) if filters else None
        hits = run_funnel(index, retriever, records, k, funnel, checks)
        return materialise(index.chunks, records, hits, retriever.name)
