"""Whether a rule's regex can backtrack without bound, read from its parse tree.

`rules.finditer` runs an analyst's regex under a time limit, because a backtracking engine
can take exponential (`(a+)+b`) or high polynomial (`\\w*\\w*\\w*x`) time on a hostile
text. The limit has a price: asking `regex` for a timeout reads the process CPU clock, and
the question's budget reads the thread's twice more, ~3 us a call against ~0.3 us for the
search of a cue row on a question. Most rows cannot blow up, and this module proves it for
a pattern so that it runs on short texts with no clock at all.

A pattern is *bounded* when, from any start, the engine can continue past each repetition
at one point only: every repetition (other than an optional or fixed-count one) repeats a
single character class, and no character that class matches can begin what may follow it
(`\\s+` before "much", `[^?]*` before "?", `\\w+` at the end). Then a failed continuation
fails on its first character, a repetition costs its run of characters, and a search costs
at most the text's length squared (each start, each run) times the ways through its
alternatives that can match at one place (`_MAX_PATHS`), whatever the text. Anything else
(repeated groups, back references, a class that overlaps what follows it, `regex`-only
syntax, too many ways) is not proven, and keeps the time limit. The proof is conservative:
case variants count as overlapping, and a `\\p{..}` class as any character.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

import regex

from ..satellites import facts
from .literals import _REGEX_ONLY, _for_re

if TYPE_CHECKING:
    import sre_parse  # typeshed has the parser only under its deprecated 3.10 name
else:
    import re._parser as sre_parse

# A bounded pattern runs without a time limit on texts up to this many characters (a
# question; a passage keeps the limit): a search then makes at most ~45,000 character steps
# per way through its alternatives, a few million at `_MAX_PATHS`: milliseconds at worst.
BOUNDED_CHARS = 300
# Ways through a pattern's alternatives (multiplied along it) past which it is not called
# bounded: what follows an alternation is tried again for each alternative that matches.
_MAX_PATHS = 64
# A finite class is checked character by character against the other class; past this
# many characters it is treated as unbounded (any character may be in it).
_MAX_FINITE = 2048
_ANY_FLAGS = (
    regex.IGNORECASE | regex.MULTILINE | regex.DOTALL | regex.VERBOSE | regex.UNICODE | regex.V0
)
_RE_FLAGS = re.MULTILINE | re.DOTALL | re.VERBOSE
# `regex`'s own classes: the rules run under `regex`.
_CATEGORY_TESTS = {
    "CATEGORY_DIGIT": regex.compile(r"\d").match,
    "CATEGORY_NOT_DIGIT": regex.compile(r"\D").match,
    "CATEGORY_SPACE": regex.compile(r"\s").match,
    "CATEGORY_NOT_SPACE": regex.compile(r"\S").match,
    "CATEGORY_WORD": regex.compile(r"\w").match,
    "CATEGORY_NOT_WORD": regex.compile(r"\W").match,
}
# Pairs of classes with no character in common; \d is within \w.
_DISJOINT = {
    frozenset(p)
    for p in [
        ("CATEGORY_DIGIT", "CATEGORY_NOT_DIGIT"),
        ("CATEGORY_SPACE", "CATEGORY_NOT_SPACE"),
        ("CATEGORY_WORD", "CATEGORY_NOT_WORD"),
        ("CATEGORY_DIGIT", "CATEGORY_SPACE"),
        ("CATEGORY_WORD", "CATEGORY_SPACE"),
        ("CATEGORY_DIGIT", "CATEGORY_NOT_WORD"),
    ]
}
# The categories that hold every character of the key's: `[^\w]` excludes every \d.
_WITHIN = {"CATEGORY_DIGIT": {"CATEGORY_DIGIT", "CATEGORY_WORD"}}


@dataclass(frozen=True)
class _Class:
    """One character class: explicit characters (with their case variants), ranges,
    categories, maybe negated; `anything` for `.` and the classes read as any character."""

    chars: frozenset[str] = frozenset()
    ranges: tuple[tuple[int, int], ...] = ()
    categories: frozenset[str] = frozenset()
    negated: bool = False
    anything: bool = False

    @cached_property
    def finite(self) -> frozenset[str] | None:
        """Its characters when it is a small explicit set, else None."""
        if self.negated or self.anything or self.categories:
            return None
        return _listed(self.chars, self.ranges)

    def holds(self, char: str) -> bool:
        """Whether it matches `char` or one of its case variants."""
        if self.anything:
            return True
        inside = any(self._holds_exactly(v) for v in _variants(char))
        return inside != self.negated

    def _holds_exactly(self, char: str) -> bool:
        if char in self.chars:
            return True
        if any(lo <= ord(char) <= hi for lo, hi in self.ranges):
            return True
        return any(_CATEGORY_TESTS[c](char) for c in self.categories)


_ANYTHING = _Class(anything=True)


def _listed(chars: frozenset[str], ranges: tuple[tuple[int, int], ...]) -> frozenset[str] | None:
    if sum(hi - lo + 1 for lo, hi in ranges) + len(chars) > _MAX_FINITE:
        return None
    return chars.union(chr(c) for lo, hi in ranges for c in range(lo, hi + 1))


@lru_cache(maxsize=4096)
def _variants(char: str) -> frozenset[str]:
    forms = {char, char.lower(), char.upper(), char.casefold(), char.title()}
    return frozenset(f for f in forms if len(f) == 1)


def _union(classes: list[_Class]) -> _Class | None:
    """One class for what any of them matches (a negated one: any character)."""
    if not classes:
        return None
    if len(classes) == 1:
        return classes[0]
    if any(c.negated or c.anything for c in classes):
        return _ANYTHING  # conservative
    return _Class(
        frozenset().union(*(c.chars for c in classes)),
        tuple(dict.fromkeys(r for c in classes for r in c.ranges)),
        frozenset().union(*(c.categories for c in classes)),
    )


def _overlap(a: _Class, b: _Class | None) -> bool:
    """Whether some character may match both (True when it cannot be ruled out)."""
    if b is None:
        return False
    for one, other in ((a, b), (b, a)):
        if one.finite is not None:
            return any(other.holds(c) for c in one.finite)
    if a.anything or b.anything or (a.negated and b.negated):
        return True
    if a.negated or b.negated:
        negated, positive = (a, b) if a.negated else (b, a)
        return not _covers(negated, positive)
    for one, other in ((a, b), (b, a)):  # the explicit part of one against all the other
        chars = _listed(one.chars, one.ranges)
        if chars is None or any(other.holds(c) for c in chars):
            return True  # a big range beside categories is not worth proving apart
    return any(frozenset((x, y)) not in _DISJOINT for x in a.categories for y in b.categories)


def _covers(negated: _Class, positive: _Class) -> bool:
    """Whether the set `negated` excludes holds every character of `positive` (whose
    explicit part is too big to list: only its categories can be compared)."""
    if positive.chars or positive.ranges:
        return False
    return all(
        any(n in _WITHIN.get(c, {c}) for n in negated.categories) for c in positive.categories
    )


@dataclass(frozen=True)
class _Reading:
    bounded: bool
    first: _Class | None = None  # what the first character of a match may be
    nullable: bool = True  # whether it may match the empty string
    paths: int = 1  # ways through its alternatives


_UNBOUNDED = _Reading(False)
# The facts kind of a reading (`satellites.facts`): a change of the proof renames it.
FACT_KIND = "backtracking-bounded-v2"


def is_bounded(pattern: str, flags: int = 0) -> bool:
    """Whether `pattern` (compiled by `regex` with `flags`) provably cannot backtrack
    without bound (see the module's docstring)."""
    key = (pattern, flags)
    known = _KNOWN.get(key)
    if known is None:
        # Read once per pattern, and kept across processes: reading a big row costs more
        # than compiling it.
        fact = facts.key(FACT_KIND, f"{flags}:{pattern}")
        stored = facts.get(fact)
        if isinstance(stored, bool):
            known = stored
        else:
            known = _read(pattern, flags)
            facts.put(fact, known)
        if len(_KNOWN) >= 4096:
            _KNOWN.clear()
        _KNOWN[key] = known
    return known


_KNOWN: dict[tuple[str, int], bool] = {}


def _read(pattern: str, flags: int) -> bool:
    if flags & ~_ANY_FLAGS:
        return False  # e.g. regex.V1 or regex.WORD: not the syntax `re` reads
    readable = _for_re(pattern)
    if _REGEX_ONLY.search(readable):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            # case blind whatever the flags: case variants then count as overlapping
            parsed = sre_parse.parse(readable, (flags & _RE_FLAGS) | re.IGNORECASE)
    except Exception:  # anything `re` cannot read is not proven
        return False
    reading = _sequence(parsed.data, None)
    return reading.bounded and reading.paths <= _MAX_PATHS


def _sequence(items: list, follow: _Class | None) -> _Reading:
    """Read a sequence of nodes, last first: `follow` is what may come after it."""
    first: _Class | None = None
    nullable, paths = True, 1
    for op, av in reversed(items):
        after = _union([c for c in (first, follow) if c is not None]) if nullable else first
        item = _item(str(op), av, after)
        if not item.bounded:
            return _UNBOUNDED
        paths *= item.paths
        if paths > _MAX_PATHS:
            return _UNBOUNDED
        if item.nullable:
            first = _union([c for c in (item.first, first) if c is not None])
        else:
            first = item.first
        nullable = nullable and item.nullable
    return _Reading(True, first, nullable, paths)


def _item(name: str, av, follow: _Class | None) -> _Reading:
    atom = _atom(name, av)
    if atom is not None:
        return _Reading(True, atom, False)
    if name == "AT":
        return _Reading(True)  # zero width
    if name in ("ASSERT", "ASSERT_NOT"):
        direction, body = av
        if direction < 0 and len(set(body.getwidth())) > 1:
            # `regex` matches a lookbehind of varying width from right to left, where what
            # "follows" a repetition is what stands before it: not what this reads
            return _UNBOUNDED
        # Matched apart, and stops at its first success: its ways add to the cost of each
        # place it is tried at, they do not multiply what follows.
        inner = _sequence(list(body), None)
        return _Reading(inner.bounded and inner.paths <= _MAX_PATHS)
    if name == "SUBPATTERN":
        return _sequence(list(av[3]), follow)
    if name == "BRANCH":
        readings = [_sequence(list(b), follow) for b in av[1]]
        if not all(r.bounded for r in readings):
            return _UNBOUNDED
        return _Reading(
            True,
            _union([r.first for r in readings if r.first is not None]),
            any(r.nullable for r in readings),
            _together(list(av[1]), readings),
        )
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, sub = av
        return _repeat(low, high, sub, follow)
    return _UNBOUNDED  # back references, conditionals, anything unknown


# Characters tried as the first of a match beside the explicit ones of the alternatives: one
# of each kind the classes tell apart (letters, digits, space, punctuation, accents).
_PROBES = "a0 _-.,'é?"


def _together(branches: list, readings: list[_Reading]) -> int:
    """How many ways through the alternatives may match at one place (what follows is tried
    again for each): those whose first character can be the text's there; of plain words,
    only those that are prefixes of one another."""
    words: dict[str, list[str]] = {}  # a plain word's first character -> those words
    ways: dict[str, int] = {}  # a character -> ways of the others a match may begin with it
    loose: list[_Reading] = []  # the others whose first character is not a short list
    for branch, reading in zip(branches, readings):
        word = _literal_text(branch)
        if word:
            words.setdefault(word[0], []).append(word)
        elif reading.nullable or reading.first is None or reading.first.finite is None:
            loose.append(reading)
        else:
            for char in reading.first.finite:
                ways[char] = ways.get(char, 0) + reading.paths
    chains = {char: _longest_prefix_chain(group) for char, group in words.items()}
    most = 1
    for probe in {*_PROBES, *ways, *chains}:
        variants = _variants(probe)
        here = max(chains.get(v, 0) for v in variants) + max(ways.get(v, 0) for v in variants)
        here += sum(
            r.paths for r in loose if r.nullable or (r.first is not None and r.first.holds(probe))
        )
        most = max(most, here)
    return most


def _literal_text(items) -> str | None:
    """The casefolded text of an alternative made of literal characters only."""
    if all(str(op) == "LITERAL" for op, _ in items):
        return "".join(chr(c) for _, c in items).casefold()
    return None


def _longest_prefix_chain(words: list[str]) -> int:
    """The most words that can match at one place: each a prefix of the next."""
    chain: dict[str, int] = {}
    for word in sorted(set(words), key=len):
        chain[word] = 1 + max((chain[w] for w in chain if word.startswith(w)), default=0)
    return max(chain.values(), default=0)


def _repeat(low: int, high: int, sub, follow: _Class | None) -> _Reading:
    if high == 1:  # optional: one more way through, no loop
        inner = _sequence(list(sub), follow)
        return _Reading(inner.bounded, inner.first, True, inner.paths + 1)
    atom = _single_class(list(sub))
    if atom is None:
        return _UNBOUNDED  # a repeated group: its runs could split in many ways
    if low == high:
        return _Reading(True, atom, low == 0)  # a fixed count has one way through
    if _overlap(atom, follow):
        return _UNBOUNDED  # a shorter run could still go on: the splits multiply
    return _Reading(True, atom, low == 0)


def _single_class(items: list) -> _Class | None:
    """The class a node list stands for when it matches exactly one character."""
    while len(items) == 1 and str(items[0][0]) == "SUBPATTERN":
        items = list(items[0][1][3])
    if len(items) != 1:
        return None
    op, av = items[0]
    name = str(op)
    if name == "BRANCH":
        classes = [_single_class(list(b)) for b in av[1]]
        if any(c is None for c in classes):
            return None
        return _union([c for c in classes if c is not None])
    return _atom(name, av)


def _atom(name: str, av) -> _Class | None:
    if name == "LITERAL":
        return _Class(chars=_variants(chr(av)))
    if name == "NOT_LITERAL":
        return _Class(chars=_variants(chr(av)), negated=True)
    if name == "ANY":
        return _ANYTHING
    if name != "IN":
        return None
    chars: set[str] = set()
    ranges: list[tuple[int, int]] = []
    categories: set[str] = set()
    negated = False
    for op, value in av:
        kind = str(op)
        if kind == "NEGATE":
            negated = True
        elif kind == "LITERAL":
            chars |= _variants(chr(value))
        elif kind == "RANGE":
            ranges.append(tuple(value))
        elif kind == "CATEGORY" and str(value) in _CATEGORY_TESTS:
            categories.add(str(value))
        else:
            return _ANYTHING
    if _spans_all(categories):  # `[\s\S]`, what `_for_re` puts for a `\p{..}`
        return _Class() if negated else _ANYTHING
    return _Class(frozenset(chars), tuple(ranges), frozenset(categories), negated)


def _spans_all(categories: set[str]) -> bool:
    """Whether the categories hold a class and its complement (`[\\s\\S]`)."""
    return any({c, c.replace("CATEGORY_", "CATEGORY_NOT_")} <= categories for c in categories)
