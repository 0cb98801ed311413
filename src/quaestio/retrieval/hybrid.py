"""`hybrid`: Reciprocal Rank Fusion of other backends' rankings, on stable chunk ids.

score(chunk) = Σ_s weight_s / (k + rank_s(chunk)), ranks 1-based, summed over the sources
that returned the chunk. `k` (60 by default, as in Cormack et al. 2009) and the per-source
weights are explicit; each source's rank and score stay on the hit (`bm25_rank`,
`dense_score`, ...). Ties go to the chunk with the better best rank, then to table order.
"""

from __future__ import annotations

from collections.abc import Sequence

from .base import Backend, Hit


def rrf(rankings: Sequence[list[Hit]], weights: Sequence[float], *, k: int = 60) -> list[Hit]:
    """Fuse ranked hit lists (each in rank order) into one list, best first."""
    if len(rankings) != len(weights):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    fused: dict[int, Hit] = {}
    best: dict[int, int] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, hit in enumerate(ranking, 1):
            into = fused.setdefault(hit.row, Hit(hit.row, 0.0, {}))
            into.score += weight / (k + rank)
            for key, value in hit.extra.items():
                if key == "matched_keywords":
                    into.extra[key] = list(dict.fromkeys(into.extra.get(key, []) + value))
                else:
                    into.extra.setdefault(key, value)
            best[hit.row] = min(best.get(hit.row, rank), rank)
    return sorted(fused.values(), key=lambda h: (-h.score, best[h.row], h.row))


class HybridBackend(Backend):
    """RRF over `sources` (default bm25 and dense), each retrieving `depth` candidates."""

    name = "hybrid"

    def __init__(
        self,
        *,
        sources: Sequence[Backend] = (),
        weights: Sequence[float] | None = None,
        rrf_k: int = 60,
        depth: int = 50,
    ):
        super().__init__(granularity=sources[0].granularity if sources else "section")
        self.sources = list(sources)
        self.weights = list(weights) if weights is not None else [1.0] * len(self.sources)
        if len(self.weights) != len(self.sources):
            raise ValueError(f"{len(self.sources)} sources but {len(self.weights)} weights")
        self.rrf_k, self.depth = rrf_k, depth

    def index(self, chunks_df) -> None:
        for source in self.sources:
            source.index(chunks_df)
        self.chunks = self.sources[0].chunks

    def retrieve(self, records: list[dict], k: int, allow=None) -> list[list[Hit]]:
        depth = max(k, self.depth)
        per_source = [s.retrieve(records, depth, allow) for s in self.sources]
        return [
            rrf([lists[n] for lists in per_source], self.weights, k=self.rrf_k)[:k]
            for n in range(len(records))
        ]
