"""A literal prefilter for a set of rule rows: which rules can match this text at all.

Shared by every family of cue rows (answer types and shapes, dates, hints, scope, anchors,
explicit terms) and the confirmation patterns: parsing each pattern once for the literals
any match must contain is cheaper, question after question, than running every pattern or
one big alternation. Every gate's literals live in one automaton (`_SharedLiterals`), so a
question is casefolded and scanned once for all the families that ask about it, however
many gates it meets; each gate then only looks up which of its own factors were present.
"""

from __future__ import annotations

import re
import threading
import warnings
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import ahocorasick

from ..satellites import facts
from .memo import TEXT_CHARS, TEXTS

if TYPE_CHECKING:
    import sre_parse  # typeshed has the parser only under its deprecated 3.10 name
else:
    import re._parser as sre_parse

# Stands for "any digit" among the literals a pattern needs (`\d`, `\d{4}`): the text is
# checked for a digit instead of looking the sentinel up in the automaton.
DIGIT = "\x00digit"
_HAS_DIGIT = re.compile(r"\d")
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
            base, needs = self._next, []
            for rule in factors:
                need = 0
                for factor in rule:
                    bit = 1 << self._next
                    self._next += 1
                    need |= bit
                    for literal in factor:
                        self._factors[literal] = self._factors.get(literal, 0) | bit
                needs.append(need >> base)
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
        if found is not None:
            return found
        found = 0
        if len(automaton):
            for _, bits in automaton.iter(folded):
                found |= bits
        if digit and _HAS_DIGIT.search(folded):
            found |= digit
        if len(folded) <= TEXT_CHARS:
            if len(memo) >= TEXTS:
                memo.clear()
            memo[folded] = found
        return found

    def _build(self) -> tuple[ahocorasick.Automaton, int, dict[str, int]]:
        with self._lock:
            if self._state is None:
                automaton = ahocorasick.Automaton()
                for literal, bits in self._factors.items():
                    if literal != DIGIT:
                        automaton.add_word(literal, bits)
                if len(automaton):
                    automaton.make_automaton()
                self._state = (automaton, self._factors[DIGIT], {})
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

    Each pattern is parsed once for its literal factors: sets of strings, one of each must
    occur in any match (`\\bhow\\s+much\\b` needs "how" and "much"; a head-noun cue needs
    one of its nouns; `\\d` needs a digit). A rule runs only when all its factors are
    present, so a question pays for the few rules it can trigger. A combined alternation of
    the patterns costs more than the rules themselves (the date rows' took 170 µs a
    question). A pattern it cannot read has no factor: `candidates(free=True)` keeps it
    (`rules.RuleSet` asks one alternation of those rows first). The "rules" are anything
    with a compiled `.pattern`: cue rows, or the branches of confirmation patterns.

    Looking a text up costs the factors it holds, not the number of rules: each rule is
    filed under one of its factors and checked only when that one is present. A gate whose
    rules no factor of the text can satisfy (most families, for most questions) answers
    with its free rules at the cost of one set intersection.
    """

    def __init__(self, rules: list[R], within: LiteralGate[R] | None = None):
        """`within`: a gate holding every one of `rules` (the same objects), whose bits this
        one shares: a family's rows for one language read the family's factors, so they
        take no bits of their own and the shared automaton need not be built again."""
        self.rules = tuple(rules)
        # the factors each rule needs, one bit each, from the gate's first bit (see
        # `_SharedLiterals`); 0 for a rule the gate cannot read
        if within is None:
            self._base, self.needs = _LITERALS.register(
                [sorted(_literal_factors(r.pattern.pattern), key=_commonness) for r in rules]
            )
        else:
            position = {id(rule): i for i, rule in enumerate(within.rules)}
            self._base = within._base
            self.needs = [within.needs[position[id(rule)]] for rule in rules]
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
        _LITERALS.ready()

    def candidates(self, folded: str, free: bool = True) -> list[R]:
        """The rules whose every literal factor occurs in `folded`, in table order; the
        rules without a factor (the gate cannot read them) only when `free`."""
        key = (folded, free)
        known = self._memo.get(key)
        if known is not None:
            return list(known)
        present = _LITERALS.present(folded) >> self._base
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


def _commonness(factor: frozenset[str]) -> tuple[int, int]:
    """How often a factor may be present, roughly: short literals and many of them are
    common. A rule is filed under its rarest factor (the first after sorting), so that a
    question wakes few rules: "percentage" rather than "what"."""
    return (-min(1 if s == DIGIT else len(s) for s in factor), len(factor))


_MAX_EXACT = 512  # strings an exact literal set may hold before it stops being tracked
_MAX_FACTORS = 16  # factors kept for an alternation (each is a union across its branches)


# Syntax that `re` would parse differently from `regex` (fuzzy counts, nested sets, branch
# resets, `regex`-only escapes): such a pattern gets no prefilter and always runs. Case
# matters: `\n`, `\x41`, `\g<name>` are `re` escapes too; `\p{..}` is read by `_for_re`.
_REGEX_ONLY = re.compile(r"\{[^}]*[a-z<=>][^}]*\}|\[\[|\(\?\||\\[LXGmMKNV]")
# What `_for_re` rewrites, outside character classes and escapes: the openers of named
# groups (a name may repeat across alternatives in `regex`, not in `re`).
_NAMED_GROUP = re.compile(r"\(\?P?<(?![=!])(\w+)>")
_PROPERTY = re.compile(r"\\([pP])(?:\{[^}]*\}|[A-Za-z])")


def _for_re(pattern: str) -> str:
    """The pattern in a form `re` parses with the same literals: `\\p{..}` classes become
    `\\w` (`\\P{..}`: `\\W`), which need no literal either, and a group name seen before
    (`regex` lets alternatives reuse one) names a plain group, so the pattern stays readable;
    a back reference still finds the first group of its name, and requires no literal."""
    out, i, in_class, names = [], 0, False, set()
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            prop = _PROPERTY.match(pattern, i)
            if prop:
                out.append("\\w" if prop.group(1) == "p" else "\\W")
                i = prop.end()
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            out.append(char)
            i += 1
            # a "]" first in the class (or after "^") is a literal, not its end
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):
                out.append("]")
                i += 1
            continue
        elif char == "(" and (named := _NAMED_GROUP.match(pattern, i)):
            name = named.group(1)
            out.append("(" if name in names else f"(?P<{name}>")
            names.add(name)
            i = named.end()
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _literal_factors(pattern: str) -> list[frozenset[str]]:
    # Read once per pattern text, and kept across processes (`satellites.facts`): reading a
    # pattern costs more than compiling it. The kind names the reading's version.
    fact = facts.key("literals-v2", pattern)
    known = facts.get(fact)
    if isinstance(known, list):
        return [frozenset(f) for f in known]
    found = _read_literal_factors(pattern)
    facts.put(fact, [sorted(f) for f in found])
    return found


def _read_literal_factors(pattern: str) -> list[frozenset[str]]:
    readable = _for_re(pattern)
    if _REGEX_ONLY.search(readable):
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exact, factors = _analyse(sre_parse.parse(readable, re.IGNORECASE))
    except Exception:  # anything `re` cannot read: no prefilter, the rule always runs
        return []
    kept = [f for f in factors + ([frozenset(exact)] if exact else []) if _selective(f)]
    return list(dict.fromkeys(kept))


def _analyse(nodes) -> tuple[set[str] | None, list[frozenset[str]]]:
    """(every string the nodes match exactly, if few; literal sets, one of each required)."""
    factors: list[frozenset[str]] = []
    run, whole = {""}, True
    for op, av in nodes:
        exact, inner = _item(op, av)
        if exact is None:
            factors += inner
        elif len(run) * len(exact) <= _MAX_EXACT:
            run = {a + b for a in run for b in exact}
            continue
        whole = False
        if "" not in run:
            factors.append(frozenset(run))
        run = set(exact) if exact is not None else {""}
    if "" not in run:
        factors.append(frozenset(run))
    return (run if whole else None), factors


def _item(op, av) -> tuple[set[str] | None, list[frozenset[str]]]:
    name = str(op)
    if name == "LITERAL":
        return {chr(av).casefold()}, []
    if name in ("AT", "ASSERT", "ASSERT_NOT"):
        return {""}, []
    if name == "SUBPATTERN":
        return _analyse(av[3])
    if name == "ATOMIC_GROUP":
        return _analyse(av)
    if name == "IN" and [(str(o), str(v)) for o, v in av] == [("CATEGORY", "CATEGORY_DIGIT")]:
        return None, [frozenset({DIGIT})]
    if name == "IN" and all(str(o) == "LITERAL" for o, _ in av) and len(av) <= 8:
        return {chr(c).casefold() for _, c in av}, []
    if name == "BRANCH":
        branches = [_analyse(b) for b in av[1]]
        exacts = [e for e, _ in branches]
        known = [e for e in exacts if e is not None]
        union = set().union(*known) if len(known) == len(exacts) else None
        return (union if union is not None and len(union) <= _MAX_EXACT else None), _either(
            branches
        )
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, sub = av
        exact, inner = _analyse(sub)
        if low == 0:
            return (exact | {""} if exact is not None and high == 1 else None), []
        required = inner + ([frozenset(exact)] if exact and "" not in exact else [])
        return (exact if low == high == 1 else None), required
    return None, []


def _either(branches) -> list[frozenset[str]]:
    """What one of several alternatives requires: a factor of each, pairwise united."""
    options = []
    for exact, factors in branches:
        own = [
            f
            for f in factors + ([frozenset(exact)] if exact and "" not in exact else [])
            if _selective(f)
        ]
        if not own:
            return []
        options.append(sorted(own, key=lambda f: (-min(map(len, f)), len(f)))[:3])
    combined: list[frozenset[str]] = [frozenset()]
    for own in options:
        combined = [c | f for c in combined for f in own][:_MAX_FACTORS]
    return combined


def _selective(factor: frozenset[str]) -> bool:
    # A lone letter or digit is in nearly every question; a lone "%" or "?" is not.
    return bool(factor) and all(len(s) >= 2 or (s and not s.isalnum()) for s in factor)
