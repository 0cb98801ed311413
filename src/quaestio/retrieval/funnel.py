"""The funnel after the first pass: pinned pages, similarity threshold, reranker, strict floor,
hard cap, then sibling restoration.

1. the backend returns a wide first pass (`first_pass`, ≈12, at least k) within the filters;
2. chunks on pinned pages (pages_hint) that the pass missed are added with score 0;
3. `threshold` (on by default, "auto": calibrated on the index, see `calibrate`):
   candidates whose bi-encoder similarity to the question is below it go;
4. `reranker` (off by default: the backend's order is kept): "bi-encoder" (the built-in
   re-score: cosine of the question to the chunk's stored vector, so bm25 candidates get a
   comparable score), "windows" (the packaged model over sentence windows of each hit,
   max over windows), the folder of a sentence-transformers cross-encoder the user
   supplies (none ships in a PyPI package), or a callable `(question, texts) -> scores`;
5. `floor`: a strict minimum of the final score (the rerank score when there is one;
   "auto", the default, is the calibrated similarity, used only with a similarity-scaled
   reranker);
6. passages dominated by the question's `excluded_terms` move last (`demote`), then
   `cap`: at most this many hits (default k). Pinned chunks survive 3 and 5, not 6;
7. `siblings`: a surviving chunk that is part i of n brings its nearest other parts as
   context (at most `siblings` parts, 2 when True, and `sibling_tokens` tokens per hit),
   after every primary hit (route "sibling"); primary hits keep their rank and score.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .base import Hit, query_text
from .demote import demote_excluded

AUTO = "auto"


@dataclass(frozen=True)
class Funnel:
    """The settings of the funnel (see the module docstring); on by default.

    `threshold` and `floor` take a number, None (off) or "auto": the index's background
    similarity (`calibrate.background`, the 10th percentile of cosines between passages
    of different documents), which needs the index's vectors (off without them). The
    "auto" floor applies to similarity-scaled scores only (no reranker, "bi-encoder" or
    "windows"): a callable or cross-encoder has its own scale. `cap` None means k.
    """

    first_pass: int = 12
    threshold: float | str | None = AUTO
    reranker: str | Callable[[str, list[str]], Any] | None = None
    floor: float | str | None = AUTO
    cap: int | None = None
    siblings: bool | int = True
    sibling_tokens: int | None = 512

    @classmethod
    def off(cls, **changes) -> Funnel:
        """The backend's ranking as is: no threshold, reranker, floor or siblings."""
        return cls(
            **{"threshold": None, "floor": None, "reranker": None, "siblings": False, **changes}
        )

    @property
    def sibling_parts(self) -> int:
        """Siblings restored per hit: True means 2 (the parts either side), False none."""
        if self.siblings is True:
            return 2
        return int(self.siblings or 0)


def run_funnel(
    index, backend, records: list[dict], k: int, funnel: Funnel, filters: list | None
) -> list[list[Hit]]:
    allow = [f.mask for f in filters] if filters else None
    found = backend.retrieve(records, max(funnel.first_pass, k), allow)
    granularity = backend.granularity
    out: list[list[Hit]] = []
    dense = None
    if funnel.reranker in ("bi-encoder", "windows") and not index.embedding_model:
        index.check_model(None)  # raises: the bi-encoder re-score needs the index's vectors
    vector_granularity = granularity if granularity != "parent" else "child"
    threshold = _resolve(funnel.threshold, index, vector_granularity)
    floor = (
        _resolve(funnel.floor, index, vector_granularity)
        if funnel.floor != AUTO or funnel.reranker in ("bi-encoder", "windows")
        else None
    )
    if index.embedding_model and (
        threshold is not None or funnel.reranker in ("bi-encoder", "windows")
    ):
        dense = index.base("dense", vector_granularity)
    texts = [query_text(r) for r in records]
    qvecs = dense.embedder.encode_queries(texts) if dense is not None else None
    gran = (
        np.asarray(index.chunks.column("granularity").to_pylist(), dtype=object)
        if filters and any(len(f.pinned) for f in filters)
        else None
    )
    for n, hits in enumerate(found):
        if filters and len(filters[n].pinned):
            if gran is None:  # read above whenever a filter pins rows
                raise RuntimeError("pinned rows without their granularities")
            have = {h.row for h in hits}
            for h in hits:
                h.extra["pinned"] = h.row in set(filters[n].pinned.tolist())
            hits = hits + [
                Hit(int(r), 0.0, {"pinned": True})
                for r in filters[n].pinned
                if r not in have and gran[r] == granularity
            ]
        if not hits:
            out.append([])
            continue
        sims = (
            _similarity(index, dense, qvecs[n], hits)
            if dense is not None and qvecs is not None
            else None
        )
        if threshold is not None and sims is not None:
            keep = [i for i, h in enumerate(hits) if sims[i] >= threshold or h.extra.get("pinned")]
            hits, sims = [hits[i] for i in keep], sims[keep]
        final = _rerank(index, funnel.reranker, texts[n], hits, sims, dense)
        if floor is not None:
            hits = [h for h in hits if _final(h) >= floor or h.extra.get("pinned")]
        if final:
            hits = sorted(hits, key=lambda h: -_final(h))
        hits = demote_excluded(index, records[n], hits)
        hits = hits[: funnel.cap or k]
        out.append(
            with_siblings(index, hits, parts=funnel.sibling_parts, tokens=funnel.sibling_tokens)
        )
    return out


def _resolve(value, index, granularity: str) -> float | None:
    if value == AUTO:
        from .calibrate import background

        return background(index, granularity)
    return value


def _final(hit: Hit) -> float:
    value = hit.extra.get("rerank_score")
    return hit.score if value is None else value


def _similarity(index, dense, qvec, hits: list[Hit]) -> np.ndarray:
    # A parent is compared through the child that found it; a row without a vector (a
    # pinned parent) gets 0.
    rows = np.asarray([h.extra.get("_child_row", h.row) for h in hits])
    return dense.similarity(qvec[None, :], rows)[0]


def _rerank(index, reranker, text: str, hits: list[Hit], sims, dense=None) -> bool:
    if reranker is None:
        return False
    if reranker == "bi-encoder":
        if sims is None:
            return False
        scores = sims
    elif reranker == "windows":
        if dense is None:
            index.check_model(None)
        from .windows import window_scores

        gen = index.chunks.column("generation_text")
        scores = window_scores(dense.embedder, text, [gen[h.row].as_py() for h in hits])
    else:
        gen = index.chunks.column("generation_text")
        docs = [gen[h.row].as_py() for h in hits]
        if callable(reranker):
            scores = np.asarray(reranker(text, docs), dtype=float)
        else:
            scores = _cross_encoder(str(reranker)).predict([(text, d) for d in docs])
    for h, s in zip(hits, scores):
        h.extra["rerank_score"] = float(s)
    return True


@lru_cache(maxsize=2)
def _cross_encoder(path: str):
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import CrossEncoder

    return CrossEncoder(path, device="cpu")


def with_siblings(
    index, hits: list[Hit], *, parts: int = 2, tokens: int | None = 512
) -> list[Hit]:
    """The primary hits, unchanged and in rank order, then their restored siblings.

    A hit that is part i of n of a section brings its nearest other parts (i-1, i+1, i-2,
    ...) as context, at most `parts` of them and at most `tokens` tokens per hit, skipping
    parts that are hits themselves or already restored. They come after every primary hit
    (route "sibling", `sibling_of` naming their hit), so a top-k cut never counts them.
    """
    if parts <= 0:
        return hits
    groups = _parts(index)
    sizes = index.chunks.column("n_tokens")
    placed = {h.row for h in hits}
    out = list(hits)
    ids = index.chunks.column("chunk_id")
    for hit in hits:
        group = groups.get(hit.row)
        if not group:
            continue
        at, used, added = group.index(hit.row), 0, 0
        for row in _nearest(group, at):
            if added >= parts:
                break
            if row in placed:
                continue
            size = sizes[row].as_py() or 0
            if tokens is not None and used + size > tokens and added:
                break
            placed.add(row)
            used, added = used + size, added + 1
            out.append(
                Hit(row, hit.score, {"route": "sibling", "sibling_of": ids[hit.row].as_py()})
            )
    return out


def _nearest(group: list[int], at: int):
    for step in range(1, len(group)):
        for i in (at - step, at + step):
            if 0 <= i < len(group):
                yield group[i]


def _parts(index) -> dict[int, list[int]]:
    cached = index.__dict__.get("_parts_cache")
    if cached is None:
        t = index.chunks
        sections = t.column("section_id").to_pylist()
        gran = t.column("granularity").to_pylist()
        counts = t.column("part_count").to_pylist()
        order = t.column("part_index").to_pylist()
        groups: dict[tuple, list[int]] = {}
        for row, (s, g, c) in enumerate(zip(sections, gran, counts)):
            if g == "section" and c and c > 1:
                groups.setdefault((s, g), []).append(row)
        cached = {}
        for rows in groups.values():
            rows.sort(key=lambda r: order[r])
            for r in rows:
                cached[r] = rows
        index.__dict__["_parts_cache"] = cached
    return cached
