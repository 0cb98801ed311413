"""Compiled rule rows (cues, anchors) and time-limited matching of analyst-written regexes.

Each family of rules also gets a prefilter, so that a question pays for the few rules it
can trigger instead of one scan per rule: a literal gate (`gate.LiteralGate`, one
Aho-Corasick pass over the literals each pattern needs) for the rules it can read, and one
combined alternation for the others (quote marks, patterns `re` cannot parse).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

import regex

from ..errors import WarningCode
from ..satellites import Satellites
from ..satellites.facts import LazyPattern
from ..satellites.schemas import SPECS, pattern_flags
from .backtracking import BOUNDED_CHARS, is_bounded
from .draft import Draft
from .gate import LiteralGate
from .memo import MATCHES, TEXT_CHARS, TEXTS


@dataclass(frozen=True)
class Rule:
    rule_id: str
    family: str
    target: str | None
    language: str
    pattern: regex.Pattern | LazyPattern  # compiled on first use
    weight: float

    def required_target(self) -> str:
        """`target`, for the families whose rows must name one (checked on load)."""
        if self.target is None:
            raise ValueError(f"cue {self.rule_id!r} of family {self.family!r} has no target")
        return self.target


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    gate: LiteralGate  # the rules it has literals for
    free: regex.Pattern | None  # the alternation of the rules the gate cannot read
    # text -> whether `free` matched it, for the texts it answered within its time limit
    _free_memo: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)
    # not empty once its satellites' rule sets are all built (`_build_first`)
    warm: list[bool] = field(default_factory=list, compare=False, repr=False)

    def __iter__(self):
        return iter(self.rules)

    def searches(self, text: str) -> bool:
        """Whether `candidates(text)` would run the alternation under its time limit (not
        known for this text, nor proven bounded on it)."""
        return self.free is not None and text not in self._free_memo and not self._bounded_on(text)

    def _bounded_on(self, text: str) -> bool:
        free = self.free
        return (
            free is not None
            and len(text) <= BOUNDED_CHARS
            and is_bounded(free.pattern, free.flags)
        )

    def candidates(self, text: str, timeout: float) -> list[Rule]:
        """The rules that may match `text` (all the others cannot), in table order."""
        if self.free is None:
            free = False
        elif (known := self._free_memo.get(text)) is not None:
            free = known
        elif timeout <= 0:
            free = True  # no time left to ask: the rules run, and each finds the budget spent
        elif self._bounded_on(text):
            free = self.free.search(text) is not None
        else:
            try:
                free = self.free.search(text, timeout=timeout) is not None
            except TimeoutError:
                free = True  # let the rules run one by one, each under its own limit
            else:
                _remember(self._free_memo, text, free)
        return self.gate.candidates(text.casefold(), free)


# Results are remembered for questions (a batch repeats some, and hints and scope read the
# same page and section rows); long texts are not kept, and a full table starts again.
# The bounds are those of `memo`.
def _remember(memo: dict, key, value, size: int = TEXTS) -> None:
    if len(key[0] if isinstance(key, tuple) else key) > TEXT_CHARS:
        return
    if len(memo) >= size:
        memo.clear()
    memo[key] = value


def _compile(sats: Satellites, table: str, id_col: str) -> list[Rule]:
    spec = SPECS[table]
    col = next(c for c in spec.columns if c.name == "pattern")
    return [
        Rule(
            rec[id_col],
            rec.get("family") or table,
            rec.get("target"),
            rec.get("language") or "*",
            LazyPattern(rec["pattern"], pattern_flags(spec, col, rec)),
            rec["weight"],
        )
        for rec in sats.tables[table].iter_rows(named=True)
    ]


def make_ruleset(rules: list[Rule], within: RuleSet | list[RuleSet] | None = None) -> RuleSet:
    """The rules behind their literal gate; `within`: a rule set holding all of them (or
    rule sets holding them between them), whose gates' factors this one reads (see
    `LiteralGate`)."""
    if within is None:
        gate = LiteralGate(rules)
    elif isinstance(within, RuleSet):
        gate = LiteralGate(rules, within.gate)
    else:
        gate = LiteralGate(rules, [rs.gate for rs in within])
    parts = [
        f"(?{'i' if r.pattern.flags & regex.IGNORECASE else '-i'}:{r.pattern.pattern})"
        for r, need in zip(rules, gate.needs)
        if not need
    ]
    try:
        free = regex.compile("|".join(parts)) if parts else None
    except regex.error:  # e.g. numbered back-references that the alternation would shift
        free = regex.compile("")  # matches everywhere: those rules always run
    return RuleSet(tuple(rules), gate, free)


def _by_family(sats: Satellites) -> dict[str, RuleSet]:
    families: dict[str, list[Rule]] = {}
    for rule in _compile(sats, "cues", "cue_id"):
        families.setdefault(rule.family, []).append(rule)
    return {family: make_ruleset(rules) for family, rules in families.items()}


def cue_rules(sats: Satellites, family: str) -> RuleSet:
    families = sats.cached("cue_rules", _by_family)
    if family not in families:  # a family without rows: cached like the others
        families[family] = make_ruleset([])
    return families[family]


def language_rules(sats: Satellites, family: str, language: str | None) -> RuleSet:
    """The rows of a cue family for one language (and `*` rows; every row for None), with
    their own prefilter, so a French "que" never slows an English question down."""
    by_language = sats.cached(f"language_rules:{family}", lambda s: {})
    if language not in by_language:
        by_language[language] = of_language(cue_rules(sats, family), language)
    return by_language[language]


def of_language(every: RuleSet, language: str | None) -> RuleSet:
    """The rows of `every` for one language (and `*` rows; every row for None), behind a
    gate that reads `every`'s bits (no new literals, no rebuild of the shared automaton)."""
    return make_ruleset(
        [r for r in every if language is None or r.language in (language, "*")], every
    )


def union_rules(
    sats: Satellites, name: str, parts: Callable[[Satellites], Iterable[RuleSet]]
) -> RuleSet:
    """The rules of several rule sets (a step's families) behind one gate, built once per
    satellites under `name`. A text none of its rules can match is one none of the parts'
    rules can match (its alternation, when it has one, is theirs joined; a timeout counts
    as a match), so a step asks once whether any of its families may fire, instead of once
    per family, and keeps its defaults when none may."""

    def build(s: Satellites) -> RuleSet:
        sets = list(parts(s))
        return make_ruleset([r for rs in sets for r in rs], sets)

    return sats.cached(f"union_rules:{name}", build)


# Rule sets a step builds on its first question (anchors, the expanded date rows, a step's
# union of families): `candidates` builds every one of them before its first lookup, so
# that their gates register before the shared automaton is built, and it is built once
# (each build over the ~35,000 literals of the bundled rows costs ~0.1 s; a `quaestio
# parse` built it four times, as each step met its rule sets).
_BUILT_FIRST: list[Callable[[Satellites], object]] = []
_Make = TypeVar("_Make", bound=Callable[[Satellites], object])


def built_first(make: _Make) -> _Make:
    """Register `make(sats)`, which builds (and caches) a rule set, to run before the first
    gate lookup of a satellites."""
    _BUILT_FIRST.append(make)
    return make


def _build_first(sats: Satellites) -> bool:
    cue_rules(sats, "")
    for make in _BUILT_FIRST:
        try:
            make(sats)
        except Exception:  # noqa: BLE001 - its own step builds it again and reports it
            pass
    return True


@built_first
def anchor_rules(sats: Satellites) -> RuleSet:
    return sats.cached("anchor_rules", lambda s: make_ruleset(_compile(s, "anchors", "anchor_id")))


def candidates(draft: Draft, ruleset: RuleSet, text: str) -> list[Rule]:
    """The rules of the set that may match `text`, under the analyst's regex time limit."""
    if ruleset.free is None:
        # A lookup, no regex: reading the thread's CPU clock (a system call) twice would cost
        # more than the lookup, on each of the ~20 rule sets a question meets. (Should the
        # shared automaton need building, the lookup builds it, on no budget.)
        if not ruleset.warm:
            draft.sats.cached("rule_sets_built_first", _build_first)
            ruleset.warm.append(True)
        return ruleset.gate.candidates(text.casefold(), False)
    draft.sats.cached("rule_sets_built_first", _build_first)
    ruleset.gate.ready()  # building the literal automaton is start-up work, not the question's
    if not ruleset.searches(text):
        return ruleset.candidates(text, _timeout(draft))
    started = _clock()
    try:
        return ruleset.candidates(text, _timeout(draft))
    finally:
        _spend(draft, started)


def finditer(
    draft: Draft, rule: Rule, text: str, pos: int = 0, *, first: bool = False
) -> list[regex.Match]:
    """All matches of an analyst's regex, or none (and a warning) when it runs too long.

    Each call has the per-call limit (`regex_timeout_ms`, W101) and draws on the question's
    budget (`regex_budget_ms`, W104): a pattern that backtracks on every list marker of a
    long question costs the budget once, not the per-call limit a hundred times. A pattern
    proven bounded (`backtracking`) runs on a question-sized text with no clock (a spent
    budget still skips it; `regex` reads one for any timeout it is given, even None): it
    costs a tenth of what the clocks would.
    """
    timeout = _timeout(draft)
    if timeout > 0 and len(text) <= BOUNDED_CHARS:  # a spent budget skips it like the rest
        pattern = rule.pattern
        if is_bounded(pattern.pattern, pattern.flags):
            if isinstance(pattern, LazyPattern):
                pattern = pattern.compiled
            by_text = _BOUNDED.get(text)
            if by_text is None:
                by_text = {}
                _remember(_BOUNDED, text, by_text)
            slot = (id(pattern), pos, first)  # compiled once per process: its id stays
            found = by_text.get(slot)
            if found is None:
                if first:
                    match = pattern.search(text, pos)
                    found = [match] if match is not None else []
                else:
                    found = list(pattern.finditer(text, pos))
                by_text[slot] = found
            return list(found)
    if timeout <= 0:
        _warn_once(
            draft,
            f"{WarningCode.W104_REGEX_BUDGET}: the question's regex budget of "
            f"{draft.sats.defaults.regex_budget_ms} ms is spent; later rules "
            f"skipped",
        )
        return []
    key = (text, pos, first, rule.pattern.pattern, rule.pattern.flags)
    found = _MATCHES.get(key)
    if found is not None:
        return list(found)
    pattern = rule.pattern
    if isinstance(pattern, LazyPattern):
        pattern = pattern.compiled  # compiling is start-up work, not the question's budget
    left, started = draft.regex_left or 0.0, _clock()
    found = timed_finditer(pattern, text, timeout, pos, first=first)
    if found is None and _clock() - started < timeout / 2:
        # The wall-clock limit ran out while the thread was mostly waiting for a core (a
        # loaded machine): one more try, so that load does not change the parse.
        found = timed_finditer(pattern, text, timeout, pos, first=first)
    _spend(draft, started)
    if found is None:
        # A call stopped at its limit spent the whole limit, whatever the CPU clock says.
        draft.regex_left = min(draft.regex_left or 0.0, left - timeout)
        draft.warnings.append(
            f"{WarningCode.W101_REGEX_TIMEOUT}: rule {rule.rule_id!r} "
            f"exceeded {draft.sats.defaults.regex_timeout_ms} ms; skipped"
        )
        return []
    _remember(_MATCHES, key, found, MATCHES)
    return list(found)


# text -> (id of a bounded rule's compiled pattern, pos, first) -> its matches: one lookup by
# the text (whose hash Python keeps) and one by a small tuple, cheaper than the time-limited
# path's key of the pattern's text.
_BOUNDED: dict[str, dict[tuple[int, int, bool], list[regex.Match]]] = {}

# (text, pos, first, pattern, flags) -> the matches found within the time limit: the same
# pattern text finds the same matches whichever satellites hold it.
_MATCHES: dict[tuple[str, int, bool, str, int], list[regex.Match]] = {}


def timed_finditer(
    pattern: regex.Pattern | LazyPattern,
    text: str,
    timeout: float,
    pos: int = 0,
    *,
    first: bool = False,
) -> list[regex.Match] | None:
    """Matches of `pattern` in `text`, or None when the scan exceeds `timeout` seconds."""
    try:
        if first:
            found = pattern.search(text, pos, timeout=timeout)
            return [found] if found else []
        return list(pattern.finditer(text, pos, timeout=timeout))
    except TimeoutError:
        return None


def search(draft: Draft, rule: Rule, text: str, pos: int = 0) -> regex.Match | None:
    """The first match of an analyst's regex from `pos`, under the same time limit."""
    found = finditer(draft, rule, text, pos, first=True)
    return found[0] if found else None


def _timeout(draft: Draft) -> float:
    """The time limit of the next call: the per-call limit, or what is left of the budget."""
    defaults = draft.sats.defaults
    if draft.regex_left is None:
        draft.regex_left = defaults.regex_budget_ms / 1000
    return min(defaults.regex_timeout_ms / 1000, draft.regex_left)


# The budget counts this thread's CPU time: on a loaded machine (or beside other workers) the
# wall clock would skip rules, and change the parse, for time the question never used.
_clock = time.thread_time


def _spend(draft: Draft, started: float) -> None:
    draft.regex_left = (draft.regex_left or 0.0) - (_clock() - started)


def _warn_once(draft: Draft, message: str) -> None:
    if message not in draft.warnings:
        draft.warnings.append(message)
