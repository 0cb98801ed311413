"""The backend protocol, the question records backends read, and hits materialisation."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np
import pyarrow as pa

from ..schema import frame_to_table
from .schema import HIT_COLUMNS, hits_table, to_engine

_HIT_KEYS = frozenset(HIT_COLUMNS)


@dataclass
class Hit:
    """One candidate: its row in the chunks table, its score and per-source details."""

    row: int
    score: float
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Retriever(Protocol):
    """What a backend provides: `index(chunks_df)` and `search(question_df, k) -> hits_df`.

    Built-in backends also implement `retrieve(records, k, allow)`, the same search on
    question records (dicts) returning `Hit` lists, which the funnel and hybrid compose.
    """

    name: str

    def index(self, chunks_df: Any) -> None: ...

    def search(self, question_df: Any, k: int = 10) -> Any: ...


class Backend:
    """Shared plumbing: the indexed rows of one granularity, and `search` over `retrieve`."""

    name = "base"

    def __init__(self, *, granularity: str = "section"):
        self.granularity = granularity
        self.chunks: pa.Table | None = None
        self.rows = np.zeros(0, dtype=np.int64)

    def index(self, chunks_df: Any) -> None:
        self.chunks = as_table(chunks_df)
        self.rows = rows_of(self.chunks, self.granularity)
        self._fit()

    def _fit(self) -> None:
        raise NotImplementedError

    def retrieve(self, records: list[dict], k: int,
                 allow: Sequence[np.ndarray | None] | None = None) -> list[list[Hit]]:
        raise NotImplementedError

    def search(self, question_df: Any, k: int = 10, *, as_: str = "pandas"):
        records = question_records(question_df)
        hits = self.retrieve(records, k)
        return to_engine(materialise(self.chunks, records, hits, self.name), as_)

    def local_mask(self, allow: np.ndarray | None) -> np.ndarray | None:
        """A mask over the whole chunks table, restricted to this backend's rows."""
        return None if allow is None else np.ascontiguousarray(allow[self.rows])


def as_table(frame: Any) -> pa.Table:
    if isinstance(frame, pa.Table):
        return frame
    pl = sys.modules.get("polars")
    if pl is not None and isinstance(frame, pl.DataFrame):
        return frame.to_arrow()
    return pa.Table.from_pandas(frame, preserve_index=False)


def rows_of(chunks: pa.Table, granularity: str) -> np.ndarray:
    values = np.asarray(chunks.column("granularity").to_numpy(zero_copy_only=False))
    return np.flatnonzero(values == granularity)


def question_records(questions: Any) -> list[dict]:
    """question_df (any engine) or a list of record dicts, as record dicts."""
    if isinstance(questions, list) and (not questions or isinstance(questions[0], dict)):
        return questions
    return frame_to_table(questions).to_pylist()


def query_text(record: dict) -> str:
    return record.get("corrected_question") or record.get("original_question") or ""


_COLUMNS = ("chunk_id", "doc_id", "breadcrumb", "chunk_type", "page_start", "page_end",
            "part_index", "part_count", "generation_text")


class ChunkColumns:
    """Python lists of the columns a hit copies, converted once per chunks table."""

    def __init__(self, chunks: pa.Table):
        self.lists = {c: chunks.column(c).to_pylist() for c in _COLUMNS}


_CACHE: dict[int, tuple[pa.Table, ChunkColumns]] = {}


def columns_of(chunks: pa.Table) -> ChunkColumns:
    cached = _CACHE.get(id(chunks))
    if cached is None or cached[0] is not chunks:
        cached = (chunks, ChunkColumns(chunks))
        _CACHE[id(chunks)] = cached
    return cached[1]


def materialise(chunks: pa.Table, records: list[dict], hits: list[list[Hit]],
                backend: str) -> pa.Table:
    """`hits_df` as Arrow: one row per (question, hit), ranks 1-based in list order."""
    cols = columns_of(chunks).lists
    rows = []
    for record, found in zip(records, hits):
        for rank, hit in enumerate(found, 1):
            row = {c: cols[c][hit.row] for c in _COLUMNS}
            row.update(question_id=record["question_id"], rank=rank, score=float(hit.score),
                       backend=backend, matched_keywords=[], pinned=False)
            row.update((key, v) for key, v in hit.extra.items() if key in _HIT_KEYS)
            rows.append(row)
    return hits_table(rows)
