"""A literal prefilter for a set of rule rows: which rules can match this text at all.

Shared by every family of cue rows (answer types and shapes, dates, hints, scope, anchors,
explicit terms) and the confirmation patterns: parsing each pattern once for the literals
any match must contain is cheaper, question after question, than running every pattern or
one big alternation. Every gate's literals live in one automaton (`_SharedLiterals`), so a
question is casefolded and scanned once for all the families that ask about it, however
many gates it meets; each gate then only looks up which of its own factors were present.
A literal the pattern bounds by non-word characters (`\\bman\\b`) counts only where the
text has none beside it: "man" is not in "many".
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Generic, Protocol, TypeVar

import ahocorasick
import regex

from . import automaton as ac
from .literals import DIGIT, core, literal_factors
from .memo import TEXT_CHARS, TEXTS

# Each memo keeps up to `memo.TEXTS` texts, then is emptied and starts again; a longer text
# than `memo.TEXT_CHARS` (a passage scanned for confirmation) is not kept: a question is
# asked about by a dozen gates, a passage by one.


class _SharedLiterals:
    """One automaton over the literals of every gate of the process: a text is scanned once
    for the factors of all of them, and the answer kept for the next gate that asks.

    Factor ids are global (each gate takes fresh ones) and a set of them is an int, one bit
    per factor, so what a text holds is one int, and whether a gate's rule can match is
    `need & present == need`: a few machine words, however many gates there are."""

    def __init__(self) -> None:
        self._factors: dict[str, int] = {DIGIT: 0}  # literal -> the factors it satisfies
        self._next = 0
        # the factors of a gate -> its bits: a gate with the same patterns (every reload of
        # the same tables: the service's reload, the workbench's re-parse) takes the bits the
        # first one took, so the automaton and the ints stay the size of the distinct gates
        self._registered: dict[tuple, tuple[int, list[int]]] = {}
        self._lock = threading.Lock()
        # (automaton, digit factors, memo) replaced together, so that a reader never mixes
        # the factors of two generations
        self._state: tuple[ahocorasick.Automaton, int, dict[str, int]] | None = None

    def register(self, factors: list[list[frozenset[str]]]) -> tuple[int, list[int]]:
        """Bits for the factors of one gate's rules (a rule: a list of literal sets): the
        gate's first bit, and each rule's needs counted from there (the gate reads its own
        part of `present` with one shift, and works on small ints)."""
        signature = tuple(tuple(tuple(sorted(f)) for f in rule) for rule in factors)
        with self._lock:
            known = self._registered.get(signature)
            if known is not None:
                return known[0], list(known[1])
            base = self._next
            needs = ac.number(factors, self._factors, base)
            self._next += sum(len(rule) for rule in factors)
            if self._next > base:
                self._state = None
            self._registered[signature] = (base, list(needs))
        # Not built here: a table's families register a few dozen gates in a row, and
        # rebuilding the automaton after each one cost a third of a second per process.
        # `ready()` builds it once, before the first question's regex budget starts.
        return base, needs

    def ready(self) -> None:
        """Build the automaton now if a gate registered since it was last built."""
        if self._state is None:
            self._build()

    def present(self, folded: str) -> int:
        """The factors (of every gate) one of whose literals occurs in `folded`."""
        automaton, digit, memo = self._state or self._build()
        found = memo.get(folded)
        if found is None:
            found = ac.scan(automaton, digit, folded)
            if len(folded) <= TEXT_CHARS:
                if len(memo) >= TEXTS:
                    memo.clear()
                memo[folded] = found
        return found

    def _build(self) -> tuple[ahocorasick.Automaton, int, dict[str, int]]:
        with self._lock:
            if self._state is None:
                self._state = (*ac.build(self._factors), {})
            return self._state


_LITERALS = _SharedLiterals()


class _Compiled(Protocol):
    @property
    def pattern(self) -> str: ...


class _Gated(Protocol):
    @property
    def pattern(self) -> _Compiled: ...


R = TypeVar("R", bound=_Gated)


class LiteralGate(Generic[R]):
    """A family's rules behind the shared Aho-Corasick pass over the casefolded question.

    Each pattern is parsed once for its literal factors (`literals`): sets of strings, one
    of each must occur in any match (`\\bhow\\s+much\\b` needs the words "how much"; a
    head-noun cue needs one of its nouns as a word; `\\d` needs a digit). A rule runs only
    when all its factors are present, so a question pays for the few rules it can trigger.
    A combined alternation of the patterns costs more than the rules themselves (the date
    rows' took 170 µs a question). A pattern it cannot read has no factor:
    `candidates(free=True)` keeps it (`rules.RuleSet` asks one alternation of those rows
    first). The "rules" are anything with a compiled `.pattern`: cue rows, or the branches
    of confirmation patterns.

    Looking a text up costs the factors it holds, not the number of rules: each rule is
    filed under one of its factors and checked only when that one is present. A gate whose
    rules no factor of the text can satisfy (most families, for most questions) answers
    with its free rules at the cost of one set intersection.
    """

    def __init__(
        self,
        rules: list[R],
        within: LiteralGate[R] | Sequence[LiteralGate[R]] | None = None,
        *,
        own: bool = False,
    ):
        """`within`: a gate holding every one of `rules` (the same objects), or gates that
        hold them between them, whose bits this one shares: a family's rows for one language
        read the family's factors, a step's union of families its families', so they take
        no bits of their own and the shared automaton need not be built again.

        `own`: the gate scans with an automaton of its own literals, apart from the shared
        one: for the gates of passages (confirmation), which no other gate asks about and
        which would meet every cue row's literals on every line of the shared automaton."""
        self.rules = tuple(rules)
        # the factors each rule needs, one bit each, from the gate's first bit (see
        # `_SharedLiterals`); 0 for a rule the gate cannot read
        factors = (
            [] if within else [sorted(_factors_of(r.pattern), key=_commonness) for r in rules]
        )
        self._own: dict[str, int] | None = None
        self._scanner: tuple[ahocorasick.Automaton, int] | None = None
        if own:
            self._own = {}
            self._base, self.needs = 0, ac.number(factors, self._own, 0)
        elif within is None:
            self._base, self.needs = _LITERALS.register(factors)
        else:
            gates = [within] if isinstance(within, LiteralGate) else list(within)
            self._base = min((g._base for g in gates), default=0)
            # a rule's need in its own gate's bits, counted from this gate's first bit
            need_of = {
                id(rule): need << (g._base - self._base)
                for g in reversed(gates)
                for rule, need in zip(g.rules, g.needs)
            }
            self.needs = [need_of[id(rule)] for rule in rules]
        self._filed: dict[int, list[int]] = {}  # lowest bit of a need -> rules filed there
        self._free: list[int] = []  # the rules without a factor
        keys = 0
        for index, need in enumerate(self.needs):
            if need:
                low = need & -need
                self._filed.setdefault(low, []).append(index)
                keys |= low
            else:
                self._free.append(index)
        self._keys = keys
        self._memo: dict[tuple[str, bool], list[R]] = {}

    def ready(self) -> None:
        """Do the start-up work the first lookup would (build the shared automaton), so
        that a timed lookup pays only for the lookup."""
        if self._own is None:
            _LITERALS.ready()
        elif self._scanner is None:
            self._scanner = ac.build(self._own)

    def candidates(self, folded: str, free: bool = True) -> list[R]:
        """The rules whose every literal factor occurs in `folded`, in table order; the
        rules without a factor (the gate cannot read them) only when `free`."""
        if self._own is None:
            present = _LITERALS.present(folded) >> self._base
            if not free and not self._keys & present:
                return []  # no rule can fire (most gates, most texts): nothing to remember
        key = (folded, free)
        known = self._memo.get(key)
        if known is not None:
            return list(known)
        if self._own is not None:
            if self._scanner is None:
                self._scanner = ac.build(self._own)
            present = ac.scan(self._scanner[0], self._scanner[1], folded)
        live = self._keys & present  # 0: no rule of the gate can match ("cannot fire")
        chosen = []
        needs = self.needs
        while live:
            low = live & -live
            live ^= low
            chosen += [i for i in self._filed[low] if needs[i] & present == needs[i]]
        if free:
            chosen += self._free
        chosen.sort()
        found = [self.rules[index] for index in chosen]
        if len(folded) <= TEXT_CHARS:
            if len(self._memo) >= TEXTS:
                self._memo.clear()
            self._memo[key] = found
        return list(found)


# Flags under which a `\b` is not where `\w` ends: ASCII word characters, or Unicode's
# word boundaries (`regex.WORD`); a rule compiled with one is read without `EDGE`s.
_OTHER_WORDS = regex.ASCII | regex.WORD


def _factors_of(pattern: _Compiled) -> list[frozenset[str]]:
    factors = literal_factors(pattern.pattern)
    if getattr(pattern, "flags", 0) & _OTHER_WORDS:
        return [frozenset(core(s) for s in f) for f in factors]
    return factors


def _commonness(factor: frozenset[str]) -> tuple[int, int]:
    """How often a factor may be present, roughly: short literals and many of them are
    common. A rule is filed under its rarest factor (the first after sorting), so that a
    question wakes few rules: "percentage" rather than "what"."""
    return (-min(1 if s == DIGIT else len(s) for s in factor), len(factor))
