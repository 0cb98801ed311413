"""Weighted BM25 scoring on bm25s's CSC score matrix, compiled with numba when available.

bm25s scores a query as the plain sum of its tokens' columns; quaestio weighs each token by
its keyword's weight and reports which keywords each hit contains (all of a keyword's
tokens present), so it reads the same matrix with its own kernel. The numpy twin
(`topk_py`) gives identical results, ties included (they go to the lower position).

Arguments: `token_ids`/`weights` (one entry per distinct query token), `term_ptr`/`term_cols`
(keyword j owns `term_cols[term_ptr[j]:term_ptr[j+1]]`, positions in `token_ids`; -1 marks a
token absent from the vocabulary, so the keyword cannot match).
"""

from __future__ import annotations

import numpy as np


def best_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best scores, best first; ties go to the lower position."""
    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    kth = np.partition(-scores, k - 1)[k - 1]
    candidates = np.flatnonzero(-scores <= kth)
    return candidates[np.argsort(-scores[candidates], kind="stable")][:k]


def topk_py(data, indptr, indices, num_docs, token_ids, weights, term_ptr, term_cols, mask, k):
    scores = np.zeros(num_docs, dtype=np.float32)
    for t, w in zip(token_ids, weights):
        s, e = indptr[t], indptr[t + 1]
        scores[indices[s:e]] += np.float32(w) * data[s:e]  # a column has each doc once
    if mask is not None:
        scores[~mask] = 0
    top = best_k(scores, k)
    top = top[scores[top] > 0]
    present = np.zeros((len(top), len(token_ids)), dtype=np.bool_)
    for j, t in enumerate(token_ids):
        column = indices[indptr[t] : indptr[t + 1]]
        pos = np.searchsorted(column, top)
        ok = pos < len(column)
        present[ok, j] = column[pos[ok]] == top[ok]
    match = np.zeros((len(top), len(term_ptr) - 1), dtype=np.bool_)
    for j in range(len(term_ptr) - 1):
        cols = term_cols[term_ptr[j] : term_ptr[j + 1]]
        if len(cols) and cols.min() >= 0:
            match[:, j] = present[:, cols].all(axis=1)
    return top, scores[top], match


try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is in the retrieval extra
    NUMBA = False
    topk = topk_py
else:
    NUMBA = True

    @njit(nogil=True, cache=True)
    def _best_k_nb(scores, k):
        # One pass with a size-k min-heap of (score, position). Positions arrive in order and
        # only a strictly better score enters, so among equal scores the lower position
        # stays: the same tie rule as `best_k`. Zero scores never enter.
        heap_v = np.zeros(k, dtype=np.float32)
        heap_i = np.full(k, -1, dtype=np.int64)
        for d in range(scores.shape[0]):
            v = scores[d]
            if v > heap_v[0]:
                heap_v[0] = v
                heap_i[0] = d
                i = 0
                while True:
                    left = 2 * i + 1
                    if left >= k:
                        break
                    child = left
                    right = left + 1
                    if right < k and (
                        heap_v[right] < heap_v[left]
                        or (heap_v[right] == heap_v[left] and heap_i[right] > heap_i[left])
                    ):
                        child = right
                    if heap_v[child] < heap_v[i] or (
                        heap_v[child] == heap_v[i] and heap_i[child] > heap_i[i]
                    ):
                        heap_v[i], heap_v[child] = heap_v[child], heap_v[i]
                        heap_i[i], heap_i[child] = heap_i[child], heap_i[i]
                        i = child
                    else:
                        break
        n = 0
        for j in range(k):
            if heap_i[j] >= 0:
                n += 1
        out = np.empty(n, dtype=np.int64)
        n = 0
        for j in range(k):
            if heap_i[j] >= 0:
                out[n] = heap_i[j]
                n += 1
        out = np.sort(out)  # by position, then a stable sort by score
        return out[np.argsort(-scores[out], kind="mergesort")]

    @njit(nogil=True, cache=True)
    def _topk_nb(
        data, indptr, indices, num_docs, token_ids, weights, term_ptr, term_cols, mask, use_mask, k
    ):
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
        top = _best_k_nb(scores, max(1, min(k, num_docs)))
        n = top.shape[0]
        present = np.zeros((n, token_ids.shape[0]), dtype=np.bool_)
        for j in range(token_ids.shape[0]):
            t = token_ids[j]
            column = indices[indptr[t] : indptr[t + 1]]
            for i in range(n):
                p = np.searchsorted(column, top[i])
                present[i, j] = p < column.shape[0] and column[p] == top[i]
        n_terms = term_ptr.shape[0] - 1
        match = np.zeros((n, n_terms), dtype=np.bool_)
        for j in range(n_terms):
            s, e = term_ptr[j], term_ptr[j + 1]
            if e == s:
                continue
            for i in range(n):
                ok = True
                for c in range(s, e):
                    col = term_cols[c]
                    if col < 0 or not present[i, col]:
                        ok = False
                        break
                match[i, j] = ok
        return top, scores[top], match

    _EMPTY_MASK = np.zeros(1, dtype=np.bool_)

    def topk(data, indptr, indices, num_docs, token_ids, weights, term_ptr, term_cols, mask, k):
        use = mask is not None
        return _topk_nb(
            data,
            indptr,
            indices,
            num_docs,
            token_ids,
            weights,
            term_ptr,
            term_cols,
            mask if use else _EMPTY_MASK,
            use,
            k,
        )
