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
        at = np.flatnonzero(ids >= 0)
        bits = np.left_shift(np.uint64(1), (at % 64).astype(np.uint64))
        np.bitwise_or.at(masks, (ids[at], at // 64), bits)
        out.append(masks)
    return out[0], out[1]


def narrow(codes: np.ndarray, n_chars: int) -> np.ndarray:
    """Character ids in the smallest type that holds them: the passes stream these."""
    return codes.astype(np.uint16 if n_chars <= 1 << 16 else np.int64)


if NUMBA:
    _FULL = np.uint64(0xFFFFFFFFFFFFFFFF)

    @njit(cache=True, nogil=True)
    def _ones(v):  # bits set in a uint64, as int64 (uint64 mixed with int64 gives floats)
        v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
        v = (v & np.uint64(0x3333333333333333)) + (
            (v >> np.uint64(2)) & np.uint64(0x3333333333333333)
        )
        v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        return np.int64((v * np.uint64(0x0101010101010101)) >> np.uint64(56))

    @njit(cache=True, nogil=True)
    def _low(k):  # the lowest k bits set, 0 <= k <= 64
        return _FULL if k >= 64 else (np.uint64(1) << np.uint64(k)) - np.uint64(1)

    @njit(cache=True, nogil=True)
    def _step(v, mask):  # one heading character read against the hint (Hyyro), one word
        u = v & mask
        return (v + u) | (v & ~u)

    @njit(cache=True, nogil=True)
    def _zeros_below(v, k):  # zero bits among the lowest k: LCS of the hint's first k chars
        count = 0
        for w in range(k // 64):
            count += 64 - _ones(v[w])
        rest = k % 64
        if rest:
            count += rest - _ones(v[k // 64] & _low(rest))
        return count

    @njit(cache=True, nogil=True)
    def _steps(v, masks, c):  # `_step` over several words, carrying between them
        carry = np.uint64(0)
        for w in range(v.shape[0]):
            old = v[w]
            u = old & masks[c, w]
            s = old + u
            nxt = s + carry
            carry = np.uint64(1) if (s < old) or (nxt < s) else np.uint64(0)
            v[w] = nxt | (old & ~u)

    @njit(cache=True, nogil=True)
    def _read(masks, codes, first, count, step, v):
        """v: the LCS vector after reading `count` heading characters from `first` on
        (step 1) or back from it (step -1)."""
        v[:] = _FULL
        for t in range(count):
            _steps(v, masks, codes[first + step * t])

    @njit(cache=True, nogil=True)
    def _reads_to(masks, codes, first, count, step, n, need, v):
        """How many heading characters, read as in `_read`, the LCS with the hint needs to
        reach `need` (count + 1: it does not). The LCS grows by at most one a character, so
        after a count short by d the next d - 1 characters need no count."""
        v[:] = _FULL
        check = need
        for t in range(count):
            if t >= check:
                got = _zeros_below(v, n)
                if got >= need:
                    return t
                check = t + need - got
            _steps(v, masks, codes[first + step * t])
        return count if _zeros_below(v, n) >= need else count + 1

    @njit(cache=True, nogil=True)
    def _reads_to_1(masks, codes, first, count, step, n, need):
        """`_reads_to` for a hint of at most 64 characters, in a register."""
        v, low, check = _FULL, _low(n), need
        for t in range(count):
            if t >= check:
                got = n - _ones(v & low)
                if got >= need:
                    return t
                check = t + need - got
            v = _step(v, masks[codes[first + step * t]])
        return count if n - _ones(v & low) >= need else count + 1

    @njit(cache=True, nogil=True)
    def whole_lcs_may_reach(n, first_word, parent, chars, ends, lengths, least):
        """Per heading: LCS(64 characters of the hint, heading) + the hint's other
        characters reach the least LCS of the shorter length. Read over the headings' trie
        (`headings._Trie`: node x + 1 below parent[x]; forwards with the hint's first 64
        characters, backwards with its last 64), so a shared opening is read once."""
        v = np.empty(parent.shape[0] + 1, dtype=np.uint64)
        v[0] = here = _FULL
        for x in range(parent.shape[0]):
            if parent[x] != x:  # a branch: back to the parent (else one text goes on)
                here = v[parent[x]]
            here = _step(here, first_word[chars[x]])
            v[x + 1] = here
        k = min(n, 64)
        low = _low(k)
        count = lengths.shape[0]
        keep = np.zeros(count, dtype=np.bool_)
        for h in range(count):
            keep[h] = k - _ones(v[ends[h]] & low) + (n - k) >= least[min(lengths[h], n)]
        return np.flatnonzero(keep)

    LANES = 8  # the pass below reads 8 slices at once

    @njit(cache=True, nogil=True)
    def whole_lcs_lanes(lanes, size, need, parent_depth, chars, end_node, path):
        """Per heading end (`end_node`, sorted) and lane: LCS(slice, heading), for up to
        `LANES` 64-character hint slices at once (`lanes[:, b]`: slice b's mask by
        character id, a `pattern_masks` word; `size[b]`: its length, 0 for an unused
        lane), stepping together over the headings' trie (`headings._Trie`, read forwards
        or backwards as the masks are): node x + 1 lies below the node at depth
        parent_depth[x] of the current path, whose vectors `path` holds, so a shared
        opening is read once. The lanes are independent: several of them keep the core
        busy where one waits on the step before. Also, for a lane with `need[b]` > 0 and a
        heading at least size[b] long: how many characters of the heading, read as the trie
        reads it, the LCS needs to reach need[b] (the heading's length + 1: it does not),
        found on the path by halving (else -1)."""
        low = np.zeros(LANES, dtype=np.uint64)
        for b in range(LANES):
            low[b] = _low(size[b])
        out = np.zeros((end_node.shape[0], LANES), dtype=np.int16)
        first = np.full((end_node.shape[0], LANES), -1, dtype=np.int32)  # (-1: not read)
        here = np.empty(LANES, dtype=np.uint64)
        here[:] = _FULL
        path[0, :] = _FULL
        e, n_ends = 0, end_node.shape[0]
        while e < n_ends and end_node[e] == 0:  # empty headings: no common character
            e += 1
        depth = 0
        for x in range(chars.shape[0]):
            d = parent_depth[x]
            if d != depth:  # a branch: back to the node at depth d (else one text goes on)
                for b in range(LANES):
                    here[b] = path[d, b]
            c = chars[x]
            for b in range(LANES):
                v = here[b]
                u = v & lanes[c, b]
                v = (v + u) | (v & ~u)
                here[b] = v
                path[d + 1, b] = v
            depth = d + 1
            while e < n_ends and end_node[e] == x + 1:
                for b in range(LANES):
                    got = size[b] - _ones(here[b] & low[b])
                    out[e, b] = got
                    if need[b] > 0 and depth >= size[b]:  # (as long as the hint: the
                        # LCS of the path's first t characters rises with t)
                        lo, hi = 0, depth + 1
                        if got >= need[b]:
                            hi = depth
                            while lo < hi:
                                mid = (lo + hi) // 2
                                if size[b] - _ones(path[mid, b] & low[b]) >= need[b]:
                                    hi = mid
                                else:
                                    lo = mid + 1
                        first[e, b] = hi
                e += 1
        return out, first

    @njit(cache=True, nogil=True)
    def lanes_reach(common, crossing, first, ns, extra, end_heading, lengths, least):
        """Per hint i (lanes first[i] to first[i + 1]), the headings whose sum of its lanes'
        `common` (by heading end, `end_heading` the heading) and `extra[i]` reaches the
        least LCS of the shorter length, by heading id; and for each, `crossing` at the
        hint's first lane (-1 for a hint of several lanes)."""
        n_hints, n = ns.shape[0], lengths.shape[0]
        keep = np.zeros((n_hints, n), dtype=np.bool_)
        at = np.full((n_hints, n), -1, dtype=np.int32)
        for e in range(common.shape[0]):
            h = end_heading[e]
            for i in range(n_hints):
                got = extra[i]
                for b in range(first[i], first[i + 1]):
                    got += common[e, b]
                if got >= least[min(lengths[h], ns[i])]:
                    keep[i, h] = True
                    if first[i + 1] - first[i] == 1:
                        at[i, h] = crossing[e, first[i]]
        return keep, at

    @njit(cache=True, nogil=True)
    def may_match(
        n, forward, backward, codes, starts, lengths, rows, least, known, known_backwards
    ):
        """Of `rows` (heading ids), those the window bound does not rule out.

        Over the window starts j, one side of the bound never falls and the other never
        rises, so the best j is the first where the rising side reaches the least LCS: the
        test is that side's first crossing, then one look at the other side there.
        known[i] >= 0: the heading's crossing of least[n] read backwards (falling side)
        or forwards, as `known_backwards` says (`whole_lcs_lanes`), which saves a read."""
        words = forward.shape[1]
        one = words == 1
        f1, b1 = forward[:, 0].copy(), backward[:, 0].copy()
        v = np.empty(words, dtype=np.uint64)
        r = np.empty(words, dtype=np.uint64)
        keep = np.zeros(rows.shape[0], dtype=np.bool_)
        for i in range(rows.shape[0]):
            h = rows[i]
            m, start = lengths[h], starts[h]
            need = least[min(m, n)]
            if m < n:  # the heading is the needle, windows hint[j : j + m], j <= n - m:
                # LCS(hint[: j + m], heading) rises with j, LCS(hint[j:], heading) falls.
                if one:
                    v[0] = _FULL
                    for t in range(m):
                        v[0] = _step(v[0], f1[codes[start + t]])
                else:
                    _read(forward, codes, start, m, 1, v)
                k = m  # the shortest hint prefix (j + m) that reaches `need`, by the same skip
                while k <= n:
                    got = _zeros_below(v, k)
                    if got >= need:
                        break
                    k += need - got
                if k <= n:
                    if one:
                        r[0] = _FULL
                        for t in range(m):
                            r[0] = _step(r[0], b1[codes[start + m - 1 - t]])
                    else:
                        _read(backward, codes, start + m - 1, m, -1, r)
                    keep[i] = _zeros_below(r, n - (k - m)) >= need
            else:  # the hint is the needle, windows heading[j : j + n], j <= m - n:
                # LCS(hint, heading[: j + n]) rises with j, LCS(hint, heading[j:]) falls.
                if one and known[i] >= 0 and known_backwards:
                    # The falling side's last start reaching `need` is m - known: the best
                    # window start is the smallest j past the rising side's crossing,
                    # so some j <= min(m - known, m - n) must have j + n past it.
                    if known[i] <= m:
                        last = min(m - known[i], m - n) + n
                        keep[i] = _reads_to_1(f1, codes, start, last, 1, n, need) <= last
                    continue
                if one and known[i] >= 0:  # the rising side's crossing, from the trie
                    if known[i] <= m:
                        j = max(known[i] - n, 0)
                        back = _reads_to_1(b1, codes, start + m - 1, m - j, -1, n, need)
                        keep[i] = back <= m - j
                    continue
                if one:
                    reach = _reads_to_1(f1, codes, start, m, 1, n, need)
                else:
                    reach = _reads_to(forward, codes, start, m, 1, n, need, v)
                if reach <= m:
                    j = max(reach - n, 0)
                    if one:
                        back = _reads_to_1(b1, codes, start + m - 1, m - j, -1, n, need)
                    else:
                        back = _reads_to(backward, codes, start + m - 1, m - j, -1, n, need, r)
                    keep[i] = back <= m - j
        return rows[keep]


if NUMBA:

    @njit(cache=True, nogil=True)
    def _best_window(pf, pb, p, text, t0, tn, cutoff, eps, fw, bw):
        """Whether some window rapidfuzz's partial_ratio aligns the needle (length p <= 64,
        masks pf / pb forwards and reversed, by text character id) with, in
        text[t0 : t0 + tn] (tn >= p), reaches `cutoff`: 1 yes, 0 no, 2 too close to call
        in floats (a window wholly matched scores exactly 100). The windows are those of
        rapidfuzz (fuzz_py._partial_ratio_impl): prefixes shorter than p, every window of
        length p, suffixes shorter than p; the ones it skips (an end character not in the
        needle) never hold its maximum."""
        low = _low(p)
        close = False
        v = _FULL
        fw[0] = 0
        for i in range(tn):
            v = _step(v, pf[text[t0 + i]])
            fw[i + 1] = p - _ones(v & low)
        for i in range(1, p):
            r = 200.0 * fw[i] / (p + i)
            if r > cutoff + eps or (r == 100.0 and cutoff <= 100.0):
                return 1
            if r >= cutoff - eps:
                close = True
        v = _FULL
        bw[tn] = 0
        for i in range(tn):
            j = tn - 1 - i
            v = _step(v, pb[text[t0 + j]])
            bw[j] = p - _ones(v & low)
        for j in range(tn - p, tn):
            r = 200.0 * bw[j] / (p + tn - j)
            if r > cutoff + eps or (r == 100.0 and cutoff <= 100.0):
                return 1
            if r >= cutoff - eps:
                close = True
        # Full windows: LCS(needle, text[j : j + p]) <= min(fw[j + p], bw[j]). The window
        # with the best bound first (a match usually stops there), then the others the bound
        # leaves; like rapidfuzz, none whose last character is not in the needle (the one
        # before it, or a prefix, scores at least as much).
        best, first = -1, 0
        for j in range(tn - p):
            bound = min(fw[j + p], bw[j])
            if bound > best:
                best, first = bound, j
        for n_tried in range(tn - p + 1):
            j = first if n_tried == 0 else n_tried - 1
            if n_tried and j == first:
                continue
            if j >= tn - p or 100.0 * min(fw[j + p], bw[j]) / p < cutoff - eps:
                continue
            if n_tried and pf[text[t0 + j + p - 1]] == 0:
                continue
            v = _FULL
            for k in range(p):
                v = _step(v, pf[text[t0 + j + k]])
            r = 100.0 * (p - _ones(v & low)) / p
            if r > cutoff + eps or (r == 100.0 and cutoff <= 100.0):
                return 1
            if r >= cutoff - eps:
                close = True
        return 2 if close else 0

    @njit(cache=True, nogil=True)
    def _window_ceiling(pf, pb, p, text, t0, tn, cutoff, eps, fw, bw):
        """For a needle over 64 characters (length p, masks pf / pb of its words, forwards
        and reversed): 0 when no window of text[t0 : t0 + tn] (tn >= p) that
        partial_ratio may align it with (prefixes and suffixes shorter than p, every
        window of length p) scores within rounding of `cutoff`, else 2. Rapidfuzz aligns
        such a needle with some of these windows only (those of length p, or cut short by
        the text's end, from the matching blocks), so below them it scores below too."""
        v = np.empty(pf.shape[1], dtype=np.uint64)
        v[:] = _FULL
        fw[0] = 0
        for i in range(tn):
            _steps(v, pf, text[t0 + i])
            fw[i + 1] = _zeros_below(v, p)
        for i in range(1, p):
            if 200.0 * fw[i] / (p + i) >= cutoff - eps:
                return 2
        v[:] = _FULL
        bw[tn] = 0
        for i in range(tn):
            _steps(v, pb, text[t0 + tn - 1 - i])
            bw[tn - 1 - i] = _zeros_below(v, p)
        for j in range(tn - p + 1, tn):
            if 200.0 * bw[j] / (p + tn - j) >= cutoff - eps:
                return 2
        for j in range(tn - p + 1):  # LCS(needle, text[j : j + p]) <= min(fw[j + p], bw[j])
            if 100.0 * min(fw[j + p], bw[j]) / p < cutoff - eps:
                continue
            _read(pf, text, t0 + j, p, 1, v)
            if 100.0 * _zeros_below(v, p) / p >= cutoff - eps:
                return 2
        return 0

    @njit(cache=True, nogil=True)
    def decide(n, hint_ids, forward, backward, codes, starts, lengths, rows, cutoff, n_chars):
        """Per row (heading id): 1 when partial_ratio(hint, heading) >= cutoff, 0 when not,
        2 when rapidfuzz itself must say (an empty string, a score within rounding of the
        cutoff, or a needle over 64 characters that some window may let reach it).
        hint_ids: the hint's character ids, n_chars for a character no heading has;
        forward / backward: the hint's masks (`pattern_masks`)."""
        eps = 1e-7
        top = 1
        for i in range(rows.shape[0]):
            top = max(top, lengths[rows[i]])
        fw = np.empty(max(top, n) + 1, dtype=np.int64)
        bw = np.empty(max(top, n) + 1, dtype=np.int64)
        f1, b1 = forward[:, 0].copy(), backward[:, 0].copy()
        pf = np.zeros(n_chars + 1, dtype=np.uint64)
        pb = np.zeros(n_chars + 1, dtype=np.uint64)
        pfw = np.zeros((n_chars + 1, (top + 63) // 64), dtype=np.uint64)
        pbw = np.zeros((n_chars + 1, (top + 63) // 64), dtype=np.uint64)
        out = np.zeros(rows.shape[0], dtype=np.int8)
        for i in range(rows.shape[0]):
            h = rows[i]
            m, start = lengths[h], starts[h]
            if n == 0 or m == 0:
                out[i] = 2
                continue
            if min(n, m) > 64:
                up = 0
                if m >= n:
                    up = _window_ceiling(
                        forward, backward, n, codes, start, m, cutoff, eps, fw, bw
                    )
                if m <= n and up == 0:
                    words = (m + 63) // 64
                    masks_f, masks_b = pfw[:, :words], pbw[:, :words]
                    for t in range(m):
                        c = codes[start + t]
                        masks_f[c, t // 64] |= np.uint64(1) << np.uint64(t % 64)
                        masks_b[c, (m - 1 - t) // 64] |= np.uint64(1) << np.uint64(
                            (m - 1 - t) % 64
                        )
                    up = _window_ceiling(
                        np.ascontiguousarray(masks_f),
                        np.ascontiguousarray(masks_b),
                        m,
                        hint_ids,
                        0,
                        n,
                        cutoff,
                        eps,
                        fw,
                        bw,
                    )
                    for t in range(m):
                        c = codes[start + t]
                        masks_f[c, :] = 0
                        masks_b[c, :] = 0
                out[i] = up
                continue
            verdict = 0
            if m >= n:  # the hint is the needle, windows of the heading
                verdict = _best_window(f1, b1, n, codes, start, m, cutoff, eps, fw, bw)
            if m <= n and verdict != 1:  # the heading is the needle, windows of the hint
                for t in range(m):
                    c = codes[start + t]
                    pf[c] |= np.uint64(1) << np.uint64(t)
                    pb[c] |= np.uint64(1) << np.uint64(m - 1 - t)
                other = _best_window(pf, pb, m, hint_ids, 0, n, cutoff, eps, fw, bw)
                for t in range(m):
                    c = codes[start + t]
                    pf[c] = 0
                    pb[c] = 0
                verdict = 1 if other == 1 else max(verdict, other)
            out[i] = verdict
        return out
