"""A literal prefilter for a set of rule rows: which rules can match this text at all.

Shared by every family of cue rows (answer types and shapes, dates, hints, scope, anchors,
explicit terms): parsing each pattern once for the literals any match must contain is
cheaper, question after question, than running every pattern or one big alternation.
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import ahocorasick

from ..satellites import facts

if TYPE_CHECKING:
    import sre_parse  # typeshed has the parser only under its deprecated 3.10 name
else:
    import re._parser as sre_parse

# Stands for "any digit" among the literals a pattern needs (`\d`, `\d{4}`): the text is
# checked for a digit instead of looking the sentinel up in the automaton.
DIGIT = "\x00digit"
_HAS_DIGIT = re.compile(r"\d")


class _Compiled(Protocol):
    @property
    def pattern(self) -> str: ...


class _Gated(Protocol):
    @property
    def pattern(self) -> _Compiled: ...


R = TypeVar("R", bound=_Gated)


class LiteralGate(Generic[R]):
    """A family's rules behind one Aho-Corasick pass over the casefolded question.

    Each pattern is parsed once for its literal factors: sets of strings, one of each must
    occur in any match (`\\bhow\\s+much\\b` needs "how" and "much"; a head-noun cue needs
    one of its nouns; `\\d` needs a digit). A rule runs only when all its factors are
    present, so a question pays for the few rules it can trigger. A combined alternation of
    the patterns costs more than the rules themselves (the date rows' took 170 µs a
    question). A pattern it cannot read has no factor: `candidates(free=True)` keeps it
    (`rules.RuleSet` asks one alternation of those rows first). The "rules" are anything
    with a compiled `.pattern`: cue rows, or the branches of confirmation patterns.
    """

    def __init__(self, rules: list[R]):
        self.rules = tuple(rules)
        self.needs: list[frozenset[int]] = []  # ids of the factors each rule needs
        owners: dict[str, set[int]] = {DIGIT: set()}
        next_id = 0
        for rule in rules:
            ids = []
            for factor in _literal_factors(rule.pattern.pattern):
                ids.append(next_id)
                next_id += 1
                for literal in factor:
                    owners.setdefault(literal, set()).add(ids[-1])
            self.needs.append(frozenset(ids))
        self.digit_ids = frozenset(owners.pop(DIGIT))
        self.automaton = ahocorasick.Automaton()
        for literal, owner_ids in owners.items():
            self.automaton.add_word(literal, frozenset(owner_ids))
        if owners:
            self.automaton.make_automaton()

    def candidates(self, folded: str, free: bool = True) -> list[R]:
        """The rules whose every literal factor occurs in `folded`, in table order; the
        rules without a factor (the gate cannot read them) only when `free`."""
        present = (
            frozenset().union(*{ids for _, ids in self.automaton.iter(folded)})
            if len(self.automaton)
            else frozenset()
        )
        if self.digit_ids and _HAS_DIGIT.search(folded):
            present |= self.digit_ids
        return [
            rule
            for rule, need in zip(self.rules, self.needs)
            if need <= present and (need or free)
        ]


_MAX_EXACT = 512  # strings an exact literal set may hold before it stops being tracked
_MAX_FACTORS = 16  # factors kept for an alternation (each is a union across its branches)


# Syntax that `re` would parse differently from `regex` (fuzzy counts, nested sets, branch
# resets, `regex`-only escapes): such a pattern gets no prefilter and always runs.
_REGEX_ONLY = re.compile(r"\{[^}]*[a-z<=>][^}]*\}|\[\[|\(\?\||\\[pPLXGmMKNV]", re.IGNORECASE)


def _literal_factors(pattern: str) -> list[frozenset[str]]:
    # Read once per pattern text, and kept across processes (`satellites.facts`): reading a
    # pattern costs more than compiling it.
    fact = facts.key("literals", pattern)
    known = facts.get(fact)
    if isinstance(known, list):
        return [frozenset(f) for f in known]
    found = _read_literal_factors(pattern)
    facts.put(fact, [sorted(f) for f in found])
    return found


def _read_literal_factors(pattern: str) -> list[frozenset[str]]:
    if _REGEX_ONLY.search(pattern):
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            exact, factors = _analyse(sre_parse.parse(pattern, re.IGNORECASE))
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
