"""The funnel after the first pass: pinned pages, similarity threshold, reranker, strict floor,
hard cap, then sibling restoration.

1. the backend returns a wide first pass (`first_pass`, ≈12, at least k) within the filters;
2. chunks on pinned pages (pages_hint) that the pass missed are added with score 0;
3. `threshold`: candidates whose bi-encoder similarity to the question is below it go;
4. `reranker` (off by default: the backend's order is kept): "bi-encoder" (the built-in
   re-score: cosine of the question to the chunk's stored vector, so bm25 candidates get a
   comparable score), the folder of a sentence-transformers cross-encoder the user supplies
   (none ships in a PyPI package), or a callable `(question, texts) -> scores`;
5. `floor`: a strict minimum of the final score (the rerank score when there is one);
6. passages dominated by the question's `excluded_terms` move last (`demote`), then
   `cap`: at most this many hits (default k). Pinned chunks survive 3 and 5, not 6;
7. `siblings`: a surviving chunk that is part i of n brings its nearest other parts as
   context (at most `siblings` parts, 2 when True, and `sibling_tokens` tokens per hit),
   after every primary hit (route "sibling"); primary hits keep their rank and score.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from .base import Hit, query_text
from .demote import demote_excluded


@dataclass(frozen=True)
class Funnel:
    first_pass: int = 12
    threshold: float | None = None
    reranker: str | Callable[[str, list[str]], Any] | None = None
    floor: float | None = None
    cap: int | None = None
    siblings: bool | int = True
    sibling_tokens: int | None = 512

    @property
    def sibling_parts(self) -> int:
        """Siblings restored per hit: True means 2 (the parts either side), False none."""
        if self.siblings is True:
            return 2
        return int(self.siblings or 0)


def run_funnel(index, backend, records: list[dict], k: int, funnel: Funnel,
               filters: list | None) -> list[list[Hit]]:
    allow = [f.mask for f in filters] if filters else None
    found = backend.retrieve(records, max(funnel.first_pass, k), allow)
    granularity = backend.granularity
    out = []
    dense = None
    if funnel.reranker == "bi-encoder" and not index.embedding_model:
        index.check_model(None)  # raises: the bi-encoder re-score needs the index's vectors
    if index.embedding_model and (funnel.threshold is not None or funnel.reranker == "bi-encoder"):
        dense = index.base("dense", granularity if granularity != "parent" else "child")
    texts = [query_text(r) for r in records]
    qvecs = dense.embedder.encode_queries(texts) if dense is not None else None
    gran = np.asarray(index.chunks.column("granularity").to_pylist(), dtype=object) \
        if filters and any(len(f.pinned) for f in filters) else None
    for n, hits in enumerate(found):
        if filters and len(filters[n].pinned):
            have = {h.row for h in hits}
            for h in hits:
                h.extra["pinned"] = h.row in set(filters[n].pinned.tolist())
            hits = hits + [Hit(int(r), 0.0, {"pinned": True}) for r in filters[n].pinned
                           if r not in have and gran[r] == granularity]
        if not hits:
            out.append([])
            continue
        sims = _similarity(index, dense, qvecs[n], hits) if dense is not None else None
        if funnel.threshold is not None and sims is not None:
            keep = [i for i, h in enumerate(hits) if sims[i] >= funnel.threshold
                    or h.extra.get("pinned")]
            hits, sims = [hits[i] for i in keep], sims[keep]
        final = _rerank(index, funnel.reranker, texts[n], hits, sims)
        if funnel.floor is not None:
            hits = [h for h in hits if _final(h) >= funnel.floor or h.extra.get("pinned")]
        if final:
            hits = sorted(hits, key=lambda h: -_final(h))
        hits = demote_excluded(index, records[n], hits)
        hits = hits[:funnel.cap or k]
        out.append(with_siblings(index, hits, parts=funnel.sibling_parts,
                                 tokens=funnel.sibling_tokens))
    return out


def _final(hit: Hit) -> float:
    value = hit.extra.get("rerank_score")
    return hit.score if value is None else value


def _similarity(index, dense, qvec, hits: list[Hit]) -> np.ndarray:
    # A parent is compared through the child that found it; a row without a vector (a
    # pinned parent) gets 0.
    rows = np.asarray([h.extra.get("_child_row", h.row) for h in hits])
    return dense.similarity(qvec[None, :], rows)[0]


def _rerank(index, reranker, text: str, hits: list[Hit], sims) -> bool:
    if reranker is None:
        return False
    if reranker == "bi-encoder":
        if sims is None:
            return False
        scores = sims
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


def with_siblings(index, hits: list[Hit], *, parts: int = 2, tokens: int | None = 512
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
            out.append(Hit(row, hit.score, {"route": "sibling",
                                            "sibling_of": ids[hit.row].as_py()}))
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
