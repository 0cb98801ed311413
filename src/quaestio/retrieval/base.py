"""The backend protocol, the question records backends read, and hits materialisation."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pyarrow as pa

from ..schema import frame_to_table
from .schema import HIT_COLUMNS, HITS_SCHEMA, to_engine

# progress(stage, done, total): how far a long step is, for the caller's bar; indexing and
# `quaestio.curation`'s discovery both report this way, so the CLI's one `StageBar` serves both
Progress = Callable[[str, int, int], None]


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

    def indexed_chunks(self) -> pa.Table:
        """The chunks table given to `index` (a backend reads it only once indexed)."""
        if self.chunks is None:
            raise RuntimeError(f"the {self.name} backend has no chunks yet: call index() first")
        return self.chunks

    def _fit(self) -> None:
        raise NotImplementedError

    def retrieve(
        self, records: list[dict], k: int, allow: Sequence[np.ndarray | None] | None = None
    ) -> list[list[Hit]]:
        raise NotImplementedError

    def search(self, question_df: Any, k: int = 10, *, as_: str = "pandas"):
        records = question_records(question_df)
        hits = self.retrieve(records, k)
        return to_engine(materialise(self.chunks, records, hits, self.name), as_)

    def local_mask(self, allow: np.ndarray | None) -> np.ndarray | None:
        """A mask over the whole chunks table, restricted to this backend's rows."""
        if allow is None:
            return None
        rows = self.rows
        if len(rows) == len(allow) and (not len(rows) or rows[-1] == len(rows) - 1):
            return np.ascontiguousarray(allow)  # every row is this backend's (sorted, distinct)
        return np.ascontiguousarray(allow[rows])


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


_COLUMNS = (
    "chunk_id",
    "doc_id",
    "breadcrumb",
    "chunk_type",
    "page_start",
    "page_end",
    "part_index",
    "part_count",
    "generation_text",
)


def materialise(
    chunks: pa.Table, records: list[dict], hits: list[list[Hit]], backend: str
) -> pa.Table:
    """`hits_df` as Arrow: one row per (question, hit), ranks 1-based in list order."""
    flat = [h for found in hits for h in found]
    # Chunk columns are gathered with one Arrow `take`; the rest are built column-wise.
    taken = chunks.select(list(_COLUMNS)).take(pa.array([h.row for h in flat], pa.int64()))
    columns: dict[str, Any] = {c: taken.column(c) for c in _COLUMNS}  # Arrow columns or lists
    columns["question_id"] = [r["question_id"] for r, found in zip(records, hits) for _ in found]
    columns["rank"] = [i for found in hits for i in range(1, len(found) + 1)]
    columns["score"] = [float(h.score) for h in flat]
    columns["backend"] = [backend] * len(flat)
    for name in HIT_COLUMNS:
        if name not in columns:
            default: list | bool | None = (
                [] if name == "matched_keywords" else False if name == "pinned" else None
            )
            columns[name] = [h.extra.get(name, default) for h in flat]
    arrays = [
        pa.array(columns[f.name], f.type)
        if isinstance(columns[f.name], list)
        else columns[f.name].cast(f.type)
        for f in HITS_SCHEMA
    ]
    return pa.Table.from_arrays(arrays, schema=HITS_SCHEMA)
