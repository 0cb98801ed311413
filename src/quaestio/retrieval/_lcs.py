"""Which headings a hint *can* reach `partial_ratio >= cutoff` with: a windowed LCS bound.

`partial_ratio(a, b)` aligns the shorter string (the needle, length m) with windows of the
longer one no longer than m, and needs LCS(needle, window) >= least_lcs(m) (`headings`).
Each window lies within a full window w = long[j : j + m], and
LCS(needle, w) <= min(LCS(needle, long[: j + m]), LCS(needle, long[j:])), so a heading with
no j where that minimum reaches least_lcs(m) cannot match. Both sides come from two
bit-parallel LCS passes (Hyyrö's, the hint as the pattern, forwards and reversed): the bits
of the pattern's vector give the LCS of every prefix of the hint, the steps over the text
that of every prefix of the heading. On a 28k-heading index this keeps ~2x the true matches
of ~20k candidates, so rapidfuzz scores a few hundred instead.
"""

from __future__ import annotations

import numpy as np

try:
    from numba import njit
except ImportError:  # pragma: no cover - numba is in the retrieval extra
    NUMBA = False
else:
    NUMBA = True


def pattern_masks(hint_ids: np.ndarray, n_chars: int) -> tuple[np.ndarray, np.ndarray]:
    """Per character id: the hint positions holding it, as bit vectors of 64-bit words
    (forwards, and for the reversed hint). Ids -1 (a character no heading has) set nothing."""
    n = len(hint_ids)
    words = max((n + 63) // 64, 1)
    out = []
    for ids in (hint_ids, hint_ids[::-1]):
        masks = np.zeros((n_chars, words), dtype=np.uint64)
        for i, c in enumerate(ids.tolist()):
            if c >= 0:
                masks[c, i // 64] |= np.uint64(1) << np.uint64(i % 64)
        out.append(masks)
    return out[0], out[1]


if NUMBA:

    @njit(cache=True, nogil=True)
    def _ones(v):  # bits set in a uint64
        v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
        v = (v & np.uint64(0x3333333333333333)) + (
            (v >> np.uint64(2)) & np.uint64(0x3333333333333333)
        )
        v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        return (v * np.uint64(0x0101010101010101)) >> np.uint64(56)

    @njit(cache=True, nogil=True)
    def _pass(masks, codes, start, m, step, n, v, trace):
        """LCS vector of the hint against the heading read forwards (step 1) or backwards;
        with `trace`, trace[t] = LCS(hint, first t characters read)."""
        words = v.shape[0]
        full = np.uint64(0xFFFFFFFFFFFFFFFF)
        for w in range(words):
            v[w] = full
        for t in range(m):
            c = codes[start + t] if step == 1 else codes[start + m - 1 - t]
            carry = np.uint64(0)
            for w in range(words):
                old = v[w]
                u = old & masks[c, w]
                s = old + u
                nxt = s + carry
                carry = np.uint64(1) if (s < old) or (nxt < s) else np.uint64(0)
                v[w] = nxt | (old & ~u)
            if trace.shape[0]:
                trace[t + 1] = _zeros_below(v, n)
        return _zeros_below(v, n)

    @njit(cache=True, nogil=True)
    def _zeros_below(v, k):  # zero bits among the lowest k: LCS of the hint's first k chars
        count = 0
        for w in range(k // 64):
            count += 64 - _ones(v[w])
        rest = k % 64
        if rest:
            low = (np.uint64(1) << np.uint64(rest)) - np.uint64(1)
            count += rest - _ones(v[k // 64] & low)
        return count

    @njit(cache=True, nogil=True)
    def whole_lcs_may_reach(n, forward, columns, first, offsets, lengths, least):
        """Per heading: LCS(hint[:64], heading) + the hint's characters past 64 reach the
        least LCS of the shorter length. Read position by position across all headings
        (`columns`: the t-th character of every heading longer than t, those from
        `first[t]` on), so the steps of different headings do not wait on each other."""
        count = lengths.shape[0]
        v = np.full(count, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
        for t in range(first.shape[0]):
            base, lo = offsets[t], first[t]
            for h in range(lo, count):
                u = v[h] & forward[columns[base + h - lo], 0]
                v[h] = (v[h] + u) | (v[h] & ~u)
        k = min(n, 64)
        low = (np.uint64(1) << np.uint64(k)) - np.uint64(1) if k < 64 else ~np.uint64(0)
        keep = np.zeros(count, dtype=np.bool_)
        for h in range(count):
            keep[h] = k - _ones(v[h] & low) + (n - k) >= least[min(lengths[h], n)]
        return np.flatnonzero(keep)

    @njit(cache=True, nogil=True)
    def may_match(n, forward, backward, codes, starts, lengths, rows, least):
        """Of `rows` (heading ids), those the window bound does not rule out."""
        words = forward.shape[1]
        v = np.empty(words, dtype=np.uint64)
        r = np.empty(words, dtype=np.uint64)
        empty = np.zeros(0, dtype=np.int64)
        keep = np.zeros(rows.shape[0], dtype=np.bool_)
        for i in range(rows.shape[0]):
            h = rows[i]
            m, start = lengths[h], starts[h]
            need = least[min(m, n)]
            if m < n:  # the heading is the needle; windows of the hint
                _pass(forward, codes, start, m, 1, n, v, empty)
                _pass(backward, codes, start, m, -1, n, r, empty)
                for j in range(n - m + 1):
                    if min(_zeros_below(v, j + m), _zeros_below(r, n - j)) >= need:
                        keep[i] = True
                        break
            else:  # the hint is the needle; windows of the heading
                ahead = np.zeros(m + 1, dtype=np.int64)
                behind = np.zeros(m + 1, dtype=np.int64)
                _pass(forward, codes, start, m, 1, n, v, ahead)
                _pass(backward, codes, start, m, -1, n, r, behind)
                for j in range(m - n + 1):  # behind[m - j] = LCS(hint, heading[j:])
                    if min(ahead[j + n], behind[m - j]) >= need:
                        keep[i] = True
                        break
        return rows[keep]
