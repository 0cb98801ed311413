"""Weighted BM25 scoring on bm25s's CSC score matrix, compiled with numba when available.

bm25s scores a query as the plain sum of its tokens' columns; quaestio weighs each token by
its keyword's weight, and needs which tokens each hit contains (matched keywords), so it
reads the same matrix with its own kernel. The numpy twin gives identical results.
"""

from __future__ import annotations

import numpy as np


def _scores_py(data, indptr, indices, num_docs, token_ids, weights):
    scores = np.zeros(num_docs, dtype=np.float32)
    for t, w in zip(token_ids, weights):
        s, e = indptr[t], indptr[t + 1]
        scores[indices[s:e]] += np.float32(w) * data[s:e]  # a column has each doc once
    return scores


def _presence_py(indptr, indices, docs, token_ids):
    out = np.zeros((len(docs), len(token_ids)), dtype=np.bool_)
    for j, t in enumerate(token_ids):
        column = indices[indptr[t]:indptr[t + 1]]
        pos = np.searchsorted(column, docs)
        ok = pos < len(column)
        out[ok, j] = column[pos[ok]] == docs[ok]
    return out


def best_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best scores, best first; ties go to the lower position."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    kth = np.partition(-scores, k - 1)[k - 1]
    candidates = np.flatnonzero(-scores <= kth)
    return candidates[np.argsort(-scores[candidates], kind="stable")][:k]


def topk_py(data, indptr, indices, num_docs, token_ids, weights, mask, k):
    scores = _scores_py(data, indptr, indices, num_docs, token_ids, weights)
    if mask is not None:
        scores[~mask] = 0
    top = best_k(scores, k)
    top = top[scores[top] > 0]
    return top, scores[top], _presence_py(indptr, indices, top, token_ids)


try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is in the retrieval extra
    NUMBA = False
    topk = topk_py
else:
    NUMBA = True

    @njit(nogil=True, cache=True)
    def _topk_nb(data, indptr, indices, num_docs, token_ids, weights, mask, use_mask, k):
        scores = np.zeros(num_docs, dtype=np.float32)
        for i in range(token_ids.shape[0]):
            t = token_ids[i]
            w = np.float32(weights[i])
            for j in range(indptr[t], indptr[t + 1]):
                scores[indices[j]] += w * data[j]
        if use_mask:
            for d in range(num_docs):
                if not mask[d]:
                    scores[d] = 0
        k = min(k, num_docs)
        order = np.argsort(-scores, kind="mergesort")[:k] if num_docs <= 4 * k else \
            _partial(scores, k)
        n = 0
        while n < order.shape[0] and scores[order[n]] > 0:
            n += 1
        top = order[:n]
        present = np.zeros((n, token_ids.shape[0]), dtype=np.bool_)
        for j in range(token_ids.shape[0]):
            t = token_ids[j]
            column = indices[indptr[t]:indptr[t + 1]]
            for i in range(n):
                p = np.searchsorted(column, top[i])
                present[i, j] = p < column.shape[0] and column[p] == top[i]
        return top, scores[top], present

    @njit(nogil=True, cache=True)
    def _partial(scores, k):
        # Candidates above the k-th largest value, then a stable sort of those few.
        kth = np.partition(-scores, k - 1)[k - 1]
        cand = np.flatnonzero(-scores <= kth)
        order = cand[np.argsort(-scores[cand], kind="mergesort")]
        return order[:k]

    def topk(data, indptr, indices, num_docs, token_ids, weights, mask, k):
        use = mask is not None
        m = mask if use else np.zeros(1, dtype=np.bool_)
        return _topk_nb(data, indptr, indices, num_docs, token_ids.astype(np.int64),
                        weights.astype(np.float32), m, use, k)
