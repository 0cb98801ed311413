"""`dense`: cosine similarity of the question to each chunk's one representation vector,
with HyDE as an option.

HyDE (`hyde="always"` or `"auto"`) asks `hyde_writer(question, n)` for hypothetical passages,
embeds them, and always fuses them with the original question: their vectors averaged with
the question's (`hyde_fuse="mean"`) or their rankings fused with the question's by RRF
(`"rrf"`). "auto" applies it only to short questions (≤ `hyde_max_words` words) or when the
plain search's best score is below `hyde_min_score`. Digits are removed from the passages
(the writer is asked for none: an invented figure must not steer the search), and the
hypothetical text never reaches the hits.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from .base import Backend, Hit, Progress, query_text, rows_of
from .errors import HydeNotConfigured

Writer = Callable[[str, int], list[str]]


class DenseBackend(Backend):
    """Dense retrieval over `representation_text` with a packaged embedding model."""

    name = "dense"

    def __init__(
        self,
        *,
        granularity: str = "section",
        model: str | None = None,
        hyde: str = "off",
        hyde_writer: Writer | None = None,
        hyde_n: int = 1,
        hyde_fuse: str = "mean",
        hyde_max_words: int = 6,
        hyde_min_score: float = 0.35,
        rrf_k: int = 60,
        progress: Progress | None = None,
    ):
        super().__init__(granularity=granularity)
        self.progress = progress  # ("embedding", done, total) while `index` encodes
        from .embeddings import DEFAULT_MODEL, get_embedder

        self.embedder = get_embedder(model or DEFAULT_MODEL)
        if hyde not in ("off", "always", "auto") or hyde_fuse not in ("mean", "rrf"):
            raise ValueError(
                f"hyde must be off/always/auto and hyde_fuse mean/rrf, got {hyde!r}, {hyde_fuse!r}"
            )
        if hyde != "off" and hyde_writer is None:
            raise HydeNotConfigured()
        self.hyde, self.writer, self.hyde_n, self.hyde_fuse = hyde, hyde_writer, hyde_n, hyde_fuse
        self.hyde_max_words, self.hyde_min_score, self.rrf_k = (
            hyde_max_words,
            hyde_min_score,
            rrf_k,
        )
        self.vectors = np.zeros((0, self.embedder.dim), dtype=np.float32)

    def _fit(self) -> None:
        texts = self.indexed_chunks().column("representation_text").take(self.rows).to_pylist()
        report = self.progress
        if report is None:
            self.vectors = self.embedder.encode_passages(texts)
            return
        report("embedding", 0, len(texts))
        self.vectors = self.embedder.encode_passages(
            texts, encoded=lambda done: report("embedding", done, len(texts))
        )

    def restore(self, vectors: np.ndarray, chunks) -> None:
        """Take the vectors an index folder stored (`storage`), for `chunks`."""
        self.chunks, self.rows = chunks, rows_of(chunks, self.granularity)
        self.vectors = vectors

    def similarity(self, query_vectors: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Cosine similarity of each query vector to the chunks at `rows` of the table."""
        where = np.clip(np.searchsorted(self.rows, rows), 0, max(len(self.rows) - 1, 0))
        found = (self.rows[where] == rows) if len(self.rows) else np.zeros(len(rows), bool)
        sims = (
            query_vectors @ np.asarray(self.vectors[where]).T
            if len(self.rows)
            else np.zeros((len(query_vectors), len(rows)), dtype=np.float32)
        )
        return np.where(found[None, :], sims, 0.0)

    def prefetch(self, records: list[dict]) -> None:
        """Embed the questions of a batch together, once: a caller that then searches them
        one by one (dispatch) finds their vectors in the embedder's query cache."""
        self.embedder.encode_queries([query_text(r) for r in records])

    def retrieve(self, records: list[dict], k: int, allow=None) -> list[list[Hit]]:
        texts = [query_text(r) for r in records]
        queries = self.embedder.encode_queries(texts)
        out = []
        for n, (text, q) in enumerate(zip(texts, queries)):
            mask = self.local_mask(allow[n]) if allow is not None else None
            scores = self._scores(q, mask)
            if self.hyde != "off" and self._wants_hyde(text, scores):
                out.append(self._hyde(text, q, scores, mask, k))
            else:
                out.append(self._top(scores, k))
        return out

    def _scores(self, q: np.ndarray, mask) -> np.ndarray:
        scores = (
            np.asarray(self.vectors @ q, dtype=np.float32)
            if len(self.vectors)
            else np.zeros(0, dtype=np.float32)
        )
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        return scores

    def _top(self, scores: np.ndarray, k: int, extra: dict | None = None) -> list[Hit]:
        from ._kernels import best_k

        top = best_k(scores, k)
        top = top[np.isfinite(scores[top])]
        return [
            Hit(
                int(self.rows[d]),
                float(scores[d]),
                {"dense_rank": i + 1, "dense_score": float(scores[d]), **(extra or {})},
            )
            for i, d in enumerate(top)
        ]

    def _wants_hyde(self, text: str, scores: np.ndarray) -> bool:
        if self.hyde == "always":
            return True
        best = float(np.max(scores)) if len(scores) else 0.0
        return len(text.split()) <= self.hyde_max_words or best < self.hyde_min_score

    def _hyde(self, text, q, scores, mask, k) -> list[Hit]:
        if self.writer is None:  # __init__ requires one unless hyde="off"
            raise RuntimeError("HyDE needs a hyde_writer")
        passages = [re.sub(r"\d[\d.,:/-]*", "", p).strip() for p in self.writer(text, self.hyde_n)]
        passages = [p for p in passages if p]
        if not passages:
            return self._top(scores, k)
        pv = self.embedder.encode_passages(passages)
        if self.hyde_fuse == "mean":
            v = (q + pv.sum(axis=0)) / (1 + len(pv))
            return self._top(self._scores(v / np.linalg.norm(v), mask), k, {"route": "hyde"})
        from .hybrid import rrf

        lists = [self._top(scores, 4 * k)] + [self._top(self._scores(p, mask), 4 * k) for p in pv]
        fused = rrf(lists, [1.0] * len(lists), k=self.rrf_k)[:k]
        plain = {h.row: h for h in lists[0]}
        return [
            Hit(
                h.row,
                h.score,
                {**plain[h.row].extra, "route": "hyde"} if h.row in plain else {"route": "hyde"},
            )
            for h in fused
        ]
