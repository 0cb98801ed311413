"""`parent`: search the small children, return their whole parent sections.

Children (200-400 tokens, bounded by the embedding budget) are what is indexed; the parents
(whole sections, never embedded) are what is delivered. Hits are deduplicated by parent: a
parent ranks by its best child, and keeps that child's id and score (`child_chunk_id`,
`child_score`) plus the matched keywords of all its children that were found.
"""

from __future__ import annotations

import numpy as np

from .base import Backend, Hit


class ParentBackend(Backend):
    """Parent-child retrieval over an inner backend that indexes granularity "child"."""

    name = "parent"

    def __init__(self, *, inner: Backend, depth_factor: int = 4):
        super().__init__(granularity="parent")
        if inner.granularity != "child":
            raise ValueError(
                f"the inner backend must index granularity 'child', not {inner.granularity!r}"
            )
        self.inner, self.depth_factor = inner, depth_factor
        self._parent_row: dict[str, int] = {}

    def index(self, chunks_df) -> None:
        self.inner.index(chunks_df)
        self.attach(self.inner.chunks)

    def attach(self, chunks) -> None:
        from .base import rows_of

        self.chunks, self.rows = chunks, rows_of(chunks, "parent")
        ids = chunks.column("chunk_id").take(self.rows).to_pylist()
        self._parent_row = dict(zip(ids, self.rows.tolist()))
        self._parent_of = np.asarray(chunks.column("parent_id").to_pylist(), dtype=object)

    def retrieve(self, records: list[dict], k: int, allow=None) -> list[list[Hit]]:
        # Filters are evaluated on every row, children included (they carry their own pages
        # and breadcrumb), so the mask passes through unchanged.
        found = self.inner.retrieve(records, k * self.depth_factor, allow)
        out = []
        for hits in found:
            parents: dict[int, Hit] = {}
            for hit in hits:
                row = self._parent_row.get(self._parent_of[hit.row])
                if row is None:
                    continue
                if row not in parents:
                    extra = {key: v for key, v in hit.extra.items()}
                    extra.update(
                        child_chunk_id=self.indexed_chunks().column("chunk_id")[hit.row].as_py(),
                        child_score=hit.score,
                        _child_row=hit.row,
                    )
                    parents[row] = Hit(row, hit.score, extra)
                else:
                    seen = parents[row].extra.setdefault("matched_keywords", [])
                    seen += [m for m in hit.extra.get("matched_keywords", []) if m not in seen]
                if len(parents) == k:
                    break
            out.append(list(parents.values()))
        return out
