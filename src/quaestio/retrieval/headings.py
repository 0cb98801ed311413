"""The headings of an index's breadcrumbs, indexed once so a section hint is a lookup.

`HeadingIndex.matching(hint, cutoff)` returns the headings `h` with
`rapidfuzz.fuzz.partial_ratio(hint.lower(), h) >= cutoff`, the same set a scan of every
heading gives, but scores only the few headings that *can* reach the cutoff.

Why a heading can be skipped. `partial_ratio(a, b)` is the best `ratio` of the shorter
string S (length m) to a window w of the longer one, with |w| <= m, where
`ratio = 200 * LCS(S, w) / (m + |w|)`. Reaching cutoff c needs LCS >= c (m + |w|) / 200
>= c m / (200 - c) (least at |w| = LCS), so with L = ceil(c m / (200 - c)) common characters:
- characters: S and the other string share at least L characters (as multisets);
- bigrams: the LCS pairs consecutive in both strings give bigrams present in both; of the
  L - 1 consecutive pairs, at most m - L have a gap in S and at most m - L in w, so they
  share at least 3 L - 2 m - 1 bigram occurrences.
A string with G gram occurrences that must share T of them with the other string shares
one of *any* G - T + 1 of its occurrences. So each heading is listed under the rarest
G - T + 1 of its grams (it is the shorter string: the hint is at least as long), and a
hint looks up the headings at least as long as itself under its own rarest G - T + 1 grams
(it is the shorter string). With numba, a windowed LCS bound (`_lcs`) replaces the grams and
its survivors are decided by an exact kernel over rapidfuzz's own windows (`_lcs.decide`);
rapidfuzz itself scores only what the kernel leaves (empty strings, a score within rounding
of the cutoff, needles over 64 characters some window may let reach it). `look_up` matches
several new hints at once: their 64-character slices are lanes of one pass over the trie.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

_BIGRAM = 1 << 21  # above the largest code point: a bigram is a * _BIGRAM + b
CACHE_SIZE = 4096


def least_lcs(m: int, cutoff: float) -> int:
    """The fewest common characters a string of length m needs to reach `cutoff`."""
    if m <= 0 or cutoff <= 0:
        return 0
    # The small slack keeps a float score that rounds up to the cutoff a candidate.
    return math.ceil(cutoff * m / (200 - cutoff) - 1e-6) if cutoff < 200 else m + 1


def least_shared(q: int, m: int, cutoff: float) -> int:
    """The fewest q-gram occurrences (q = 1 or 2) a match at `cutoff` of a string of
    length m (the shorter one) shares with the other: 0 or less when it implies none."""
    if q == 1:
        return least_lcs(m, cutoff)
    least = m  # (more than any string of length m can share)
    for lcs in range(least_lcs(m, cutoff), m + 1):
        # The widest window that still reaches the cutoff with this many common characters.
        window = min(m, math.floor(200 * lcs / cutoff - m + 1e-6))
        gaps = (m - lcs) + max(window - lcs, 0)
        least = min(least, lcs - 1 - gaps)
    return least


class HeadingIndex:
    """Distinct headings (already lower-cased) with their character and bigram postings.

    Built for one cutoff (the prefix of each heading depends on it); headings are held in
    order of length, so "at least as long as the hint" is a range of ids.
    """

    def __init__(self, headings: list[str], cutoff: float):
        order = sorted(range(len(headings)), key=lambda i: len(headings[i]))
        self.headings = [headings[i] for i in order]
        self.position = np.asarray(order, dtype=np.int64)  # heading id -> input position
        self.ids = np.empty(len(headings), dtype=np.int64)  # input position -> heading id
        self.ids[order] = np.arange(len(headings))
        self.cutoff = cutoff
        self.lengths = np.fromiter(map(len, self.headings), np.int64, len(self.headings))
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._code_points = _code_points(self.headings, self.lengths)
        self.chars, codes = _dense_ids(self._code_points[0].astype(np.int64))
        from ._lcs import narrow

        self.codes = narrow(codes, len(self.chars))
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)])[:-1]
        self.trie = _Trie.smaller(self.headings, self.chars)
        self.least = np.asarray(
            [least_lcs(m, cutoff) for m in range(int(self.lengths.max(initial=0)) + 1)]
        )
        self._load_kernels()

    def _load_kernels(self) -> None:
        """Load `look_up`'s kernels now (compiled, or read from numba's cache), on nothing
        with the arrays' own types: the first batch of hints need not."""
        from . import _lcs

        if _lcs.NUMBA and len(self.chars):
            t, lanes = self.trie, _lcs.LANES
            common, crossing = _lcs.whole_lcs_lanes(
                np.zeros((len(self.chars), lanes), dtype=np.uint64),
                np.zeros(lanes, dtype=np.int64),
                np.zeros(lanes, dtype=np.int64),
                t.parent_depth[:0],
                t.chars[:0],
                t.end_node[:0],
                np.empty((2, lanes), dtype=np.uint64),
            )
            one, two = np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64)
            ends = t.end_heading[:0]
            _lcs.lanes_reach(common, crossing, two, one, one, ends, self.lengths, self.least)

    def _grams(self) -> list[_Grams]:
        """The character and bigram postings `candidates` reads: built on its first use
        (~0.8 s at 28k headings), which with numba there is never."""
        if not hasattr(self, "grams"):
            codes, owner = self._code_points
            grams = [_Grams(q, codes, owner, self.lengths, self.cutoff) for q in (1, 2)]
            prefix = [g.prefix_cost() for g in grams]
            uses_bigrams = prefix[1] < prefix[0]  # each heading listed under its cheaper prefix
            grams[0].keep_prefix(~uses_bigrams & (prefix[0] < np.inf))
            grams[1].keep_prefix(uses_bigrams)
            self.always = np.flatnonzero((prefix[0] == np.inf) & (prefix[1] == np.inf))
            self.grams = grams
        return self.grams

    def matching(self, hint: str) -> np.ndarray:
        """Ids (positions in the input list) of the headings `hint` fuzzily matches."""
        hint = hint.lower()
        found = self._cache.get(hint)
        if found is None:
            found = self._found(hint, *self._decided(hint))
        else:
            self._cache.move_to_end(hint)
        return found

    def look_up(self, hints: list[str]) -> None:
        """Match the hints not yet cached, those that fit together in one pass over the
        trie (up to `_lcs.LANES` 64-character slices of hints) at once: `matching` then finds
        them cached. The same matches as one at a time. One lane waits on each step before
        the next; the lanes of a pass do not, so a full pass costs ~3.5 of one lane's (one
        ~0.2 ms a hint on 28k headings, 234k trie nodes), and fewer slices than half the
        lanes are read one hint at a time."""
        from . import _lcs

        todo = [h for h in dict.fromkeys(h.lower() for h in hints) if h not in self._cache]
        if not _lcs.NUMBA or not len(self.chars):
            return
        todo = [h for h in todo if h][:CACHE_SIZE]
        while todo:
            batch: list[str] = []
            words = 0
            while todo and (not batch or words + (len(todo[0]) + 63) // 64 <= _lcs.LANES):
                words += (len(todo[0]) + 63) // 64
                batch.append(todo.pop(0))
            masks = [self._masks(h) for h in batch]
            if words * 2 < _lcs.LANES:
                whole = [self._whole([h], [m])[0] for h, m in zip(batch, masks)]
            else:
                whole = self._whole(batch, masks)
            for hint, mask, rows in zip(batch, masks, whole):
                self._found(hint, *self._decided(hint, mask, rows))

    def _found(self, hint: str, rows: list[int], verdict: np.ndarray) -> np.ndarray:
        """The matches from what `_decided` left to rapidfuzz and what it decided, cached."""
        from rapidfuzz import fuzz

        score, cutoff, headings = fuzz.partial_ratio, self.cutoff, self.headings
        # With score_cutoff rapidfuzz may stop early; below it, it returns 0.
        scored = [r for r in rows if score(hint, headings[r], score_cutoff=cutoff) >= cutoff]
        hit = np.concatenate([verdict, np.asarray(scored, dtype=np.int64)])
        found = np.sort(self.position[hit])
        self._cache[hint] = found
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return found

    def _decided(self, hint: str, masks=None, whole=None) -> tuple[list[int], np.ndarray]:
        """The rows rapidfuzz must still score, and those the exact kernel (`_lcs.decide`)
        found matching among the window bound's survivors (`masks`, `whole`: the hint's
        masks and whole-LCS survivors, when `look_up` has them)."""
        from . import _lcs

        if not _lcs.NUMBA or not hint or not len(self.chars):
            return self.candidates(hint).tolist(), np.zeros(0, dtype=np.int64)
        ids, forward, backward = masks or self._masks(hint)
        # (Also with no rows: numba loads the kernel on first call, best when the index opens.)
        rows = self._bounded(hint, forward, backward, whole)
        verdict = _lcs.decide(
            len(hint),
            np.where(ids < 0, len(self.chars), ids),
            forward,
            backward,
            self.codes,
            self.starts,
            self.lengths,
            rows,
            float(self.cutoff),
            len(self.chars),
        )
        return rows[verdict == 2].tolist(), rows[verdict == 1]

    def _masks(self, hint: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from . import _lcs

        ids = self._hint_ids(hint)
        return (ids, *_lcs.pattern_masks(ids, len(self.chars)))

    def _hint_ids(self, hint: str) -> np.ndarray:
        """The hint's characters as ids into `chars` (-1: a character no heading has)."""
        codes = np.frombuffer(hint.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        at = np.minimum(np.searchsorted(self.chars, codes), len(self.chars) - 1)
        return np.where(self.chars[at] == codes, at, -1)

    def window_bound(self, hint: str) -> np.ndarray:
        """Heading ids the LCS bounds (`_lcs`) leave: a superset of the matches, smaller than
        `candidates` (which it replaces when numba is there)."""
        from . import _lcs

        if not _lcs.NUMBA or not hint or not len(self.chars):
            return self.candidates(hint)
        _, forward, backward = self._masks(hint)
        return self._bounded(hint, forward, backward)

    def _bounded(self, hint: str, forward, backward, whole=None) -> np.ndarray:
        """`window_bound` from the hint's masks (`_lcs.pattern_masks`), made once by a caller
        that needs them again, and its whole-LCS survivors (`_whole`) when it has them."""
        from . import _lcs

        rows, known = whole or self._whole([hint], [(None, forward, backward)])[0]
        return _lcs.may_match(
            len(hint),
            forward,
            backward,
            self.codes,
            self.starts,
            self.lengths,
            rows,
            self.least,
            known,
            self.trie.backwards,
        )

    def _whole(self, hints: list[str], masks: list) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per hint, the heading ids whose whole LCS with it may reach the cutoff: bounded
        by the sum over its 64-character slices of LCS(slice, heading) (the slices of all
        the hints read in one pass, `_lcs.whole_lcs_lanes`; those past `_lcs.LANES` are
        counted as wholly common); and for each, where a one-slice hint's LCS crosses
        least[len(hint)] in the trie's reading (-1: not known), for `_lcs.may_match`."""
        from . import _lcs

        t = self.trie
        if len(hints) == 1 and len(hints[0]) <= 64:  # one lane: the pass that waits less
            first_word = np.ascontiguousarray(masks[0][2 if t.backwards else 1][:, 0])
            n = len(hints[0])
            rows = _lcs.whole_lcs_may_reach(
                n, first_word, t.parent, t.chars, t.ends, self.lengths, self.least
            )
            return [(rows, np.full(len(rows), -1, dtype=np.int32))]
        lanes = np.zeros((len(self.chars), _lcs.LANES), dtype=np.uint64)
        size = np.zeros(_lcs.LANES, dtype=np.int64)
        need = np.zeros(_lcs.LANES, dtype=np.int64)
        first = np.zeros(len(hints) + 1, dtype=np.int64)
        extra = np.asarray([len(h) for h in hints], dtype=np.int64)
        ns = extra.copy()
        for i, m in enumerate(masks):
            words = m[2] if t.backwards else m[1]
            for w in range(min(words.shape[1], _lcs.LANES - first[i])):
                b = first[i] + w
                lanes[:, b] = words[:, w]
                size[b] = min(len(hints[i]) - 64 * w, 64)
                extra[i] -= size[b]
            first[i + 1] = first[i] + min(words.shape[1], _lcs.LANES - first[i])
            if ns[i] <= min(64, len(self.least) - 1):  # (else no heading is as long)
                need[first[i]] = self.least[ns[i]]
        common, crossing = _lcs.whole_lcs_lanes(
            lanes,
            size,
            need,
            t.parent_depth,
            t.chars,
            t.end_node,
            np.empty((t.depth + 2, _lcs.LANES), dtype=np.uint64),
        )
        keep, known = _lcs.lanes_reach(
            common, crossing, first, ns, extra, t.end_heading, self.lengths, self.least
        )
        rows = [np.flatnonzero(k) for k in keep]
        return [(r, known[i, r]) for i, r in enumerate(rows)]

    def candidates(self, hint: str) -> np.ndarray:
        """Heading ids (in length order) that may reach the cutoff: a superset of the matches."""
        n = len(self.headings)
        split = int(np.searchsorted(self.lengths, len(hint), side="left"))
        keep = np.zeros(n, dtype=bool)
        codes = np.frombuffer(hint.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        # Shorter headings: listed under their own prefix grams, looked up by the hint's grams.
        grams = self._grams()
        for g in grams:
            g.mark_prefix(keep, g.of(codes), split)
        keep[self.always[self.always < split]] = True
        # Headings at least as long: the hint's rarest grams, in both gram kinds at once.
        longer = np.ones(n - split, dtype=bool)
        for g in grams:
            found = g.hint_prefix(codes, split)
            if found is not None:
                longer &= found
        keep[split:] |= longer
        return np.flatnonzero(keep)


class _Grams:
    """One gram kind (characters or bigrams): postings of every heading, and of its prefix."""

    def __init__(self, q: int, codes: np.ndarray, owner: np.ndarray, lengths, cutoff: float):
        self.q, self.cutoff, self.n = q, cutoff, len(lengths)
        gram, heading = self._occurrences(codes, owner)
        self.vocabulary, dense = _dense_ids(gram)
        self.full = _Postings(dense, heading, len(self.vocabulary), self.n)
        self.df = np.diff(self.full.start)
        # Each heading's occurrences, rarest gram first: the first G - T + 1 are its prefix.
        order = np.lexsort((dense, self.df[dense], heading))
        heading, dense = heading[order], dense[order]
        first = np.searchsorted(heading, np.arange(self.n))
        rank = np.arange(len(heading)) - first[heading]
        size = np.maximum(lengths - q + 1, 0)
        table = [least_shared(q, m, cutoff) for m in range(int(lengths.max(initial=0)) + 1)]
        need = np.asarray(table, dtype=np.int64)[lengths]
        width = np.where(need > 0, np.maximum(size - need + 1, 0), 0)
        chosen = rank < width[heading]
        self._prefix = (dense[chosen], heading[chosen])
        cost = np.bincount(heading[chosen], self.df[dense[chosen]], minlength=self.n)
        self._cost = np.where(need > 0, cost, np.inf)

    def prefix_cost(self) -> np.ndarray:
        """Per heading: postings read when it is listed under its prefix (inf: no prefix)."""
        return self._cost

    def keep_prefix(self, listed: np.ndarray) -> None:
        dense, heading = self._prefix
        keep = listed[heading]
        self.prefix = _Postings(dense[keep], heading[keep], len(self.vocabulary), self.n)
        del self._prefix, self._cost

    def _occurrences(self, codes: np.ndarray, owner: np.ndarray):
        if self.q == 1:
            return codes.astype(np.int64), owner
        same = owner[1:] == owner[:-1]
        gram = codes[:-1].astype(np.int64) * _BIGRAM + codes[1:]
        return gram[same], owner[:-1][same]

    def of(self, codes: np.ndarray) -> np.ndarray:
        """The hint's gram occurrences as vocabulary ids (-1: a gram no heading has)."""
        gram, _ = self._occurrences(codes, np.zeros(len(codes), dtype=np.int64))
        at = np.searchsorted(self.vocabulary, gram)
        at = np.minimum(at, max(len(self.vocabulary) - 1, 0))
        known = len(self.vocabulary) > 0 and self.vocabulary[at] == gram
        return np.where(known, at, -1)

    def mark_prefix(self, keep: np.ndarray, grams: np.ndarray, split: int) -> None:
        for g in np.unique(grams[grams >= 0]).tolist():
            keep[self.prefix.below(g, split)] = True

    def hint_prefix(self, codes: np.ndarray, split: int) -> np.ndarray | None:
        """Headings from `split` on holding one of the hint's rarest G - T + 1 grams, or
        None when this gram kind rules none out."""
        need = least_shared(self.q, len(codes), self.cutoff)
        if need <= 0:
            return None
        grams = self.of(codes)
        df = np.zeros(len(grams), dtype=np.int64)
        df[grams >= 0] = self.df[grams[grams >= 0]]
        chosen = grams[np.argsort(df, kind="stable")[: max(len(grams) - need + 1, 0)]]
        out = np.zeros(self.n - split, dtype=bool)
        for g in np.unique(chosen[chosen >= 0]).tolist():
            out[self.full.from_(g, split) - split] = True
        return out


class _Postings:
    """Heading ids per gram, sorted and distinct (CSR)."""

    def __init__(self, gram: np.ndarray, heading: np.ndarray, n_grams: int, n: int):
        pairs = _distinct(gram * max(n, 1) + heading)
        gram, self.heading = pairs // max(n, 1), pairs % max(n, 1)
        self.start = np.concatenate([[0], np.cumsum(np.bincount(gram, minlength=n_grams))])

    def below(self, g: int, split: int) -> np.ndarray:
        ids = self.heading[self.start[g] : self.start[g + 1]]
        return ids[: np.searchsorted(ids, split)]

    def from_(self, g: int, split: int) -> np.ndarray:
        ids = self.heading[self.start[g] : self.start[g + 1]]
        return ids[np.searchsorted(ids, split) :]


def _code_points(texts: list[str], lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every code point of `texts` and the position of the text it belongs to."""
    codes = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return codes, np.repeat(np.arange(len(texts)), lengths)


class _Trie:
    """The headings as a trie, read forwards or backwards: node x (stored at x + 1, 0 being
    the root) holds the character `chars[x]` below `parent[x]`, and `ends[h]` is the node
    where heading h ends. Headings share their openings ("Note 12. ...") or endings
    ("... (continued)"), so the whole-LCS pass steps once per node instead of once per
    character of every heading; the direction with fewer nodes is kept."""

    def __init__(self, headings: list[str], chars: np.ndarray, backwards: bool):
        self.backwards = backwards
        texts = [h[::-1] for h in headings] if backwards else headings
        order = sorted(range(len(texts)), key=texts.__getitem__)
        shared = _shared_openings([texts[i] for i in order])
        self.ends = np.zeros(len(texts), dtype=np.int64)
        path: list[int] = []  # the nodes of the previous text, from its first character
        firsts, news, parents, depths = [], [], [], []
        count = 0
        for i, k in zip(order, shared):
            del path[k:]
            new = texts[i][k:]
            if new:
                firsts.append(count)
                parents.append(path[-1] if path else 0)
                depths.append(k)
                path.extend(range(count + 1, count + 1 + len(new)))
                news.append(new)
                count += len(new)
            self.ends[i] = path[-1] if path else 0
        self.parent = np.arange(count, dtype=np.int64)  # node x + 1's parent: node x
        at = np.asarray(firsts, dtype=np.int64)
        self.parent[at] = np.asarray(parents, dtype=np.int64)
        # The depth of node x + 1's parent: a run of new characters goes one deeper each.
        runs = np.diff(np.append(at, count))
        steps = np.arange(count) - np.repeat(at - np.asarray(depths, dtype=np.int64), runs)
        self.parent_depth = steps.astype(np.int32)
        self.end_heading = np.argsort(self.ends, kind="stable")
        self.end_node = self.ends[self.end_heading]
        self.depth = int(max(map(len, texts), default=0))
        codes = np.frombuffer("".join(news).encode("utf-32-le", "surrogatepass"), np.uint32)
        from ._lcs import narrow

        self.chars = narrow(np.searchsorted(chars, codes), len(chars))

    @classmethod
    def smaller(cls, headings: list[str], chars: np.ndarray) -> _Trie:
        nodes = [
            sum(map(len, headings)) - sum(_shared_openings(sorted(t)))
            for t in (headings, [h[::-1] for h in headings])
        ]
        return cls(headings, chars, backwards=nodes[1] < nodes[0])


def _shared_openings(texts: list[str]) -> list[int]:
    """For sorted texts: how many first characters each shares with the one before."""
    out, prev = [], ""
    for t in texts:
        lo, hi = 0, min(len(prev), len(t))
        while lo < hi:  # the longest common prefix, by halving (slices compare in C)
            mid = (lo + hi + 1) // 2
            if prev[:mid] == t[:mid]:
                lo = mid
            else:
                hi = mid - 1
        out.append(lo)
        prev = t
    return out


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (np.unique's hash path is many times slower on these keys)."""
    values = np.sort(values)
    return values[np.concatenate([[True], values[1:] != values[:-1]])] if len(values) else values


def _dense_ids(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct values and each value's position among them."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.concatenate([[True], ordered[1:] != ordered[:-1]]) if len(values) else ordered > 0
    ids = np.empty(len(values), dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ordered[new], ids
