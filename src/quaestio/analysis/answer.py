"""Answer shape (closed set) and answer type (open registry), from `cues` rows and the
matched concepts' default types.

Contract: sets draft.columns["answer_shape"] and draft.columns["answer_type"]; records the
rule ids that decided them with draft.fire(...).

Scoring, the same on both axes. Every cue row of the family (`answer_type`, `answer_shape`)
in the question's language (or `*`) whose pattern matches is one piece of evidence for its
target, worth its `weight`. For the type, each matched concept with a default `answer_type`
is one more piece, worth the weight of the `answer_type_concept` row that matches the
question (0.5 in the bundled rows; without such a row, concept defaults are ignored). The
target with the strongest single piece of evidence wins; ties go to the larger sum of
weights (corroboration), then to the evidence found earliest in the question, then to the
target's name. No evidence: shape `single`, type `text`.

The strongest piece wins, rather than the largest sum, so that weak hints cannot pile up
against the question word: in "who pays the premium?", "who" outweighs both the money verb
and the premium's own type. Weights are therefore a specificity scale read against the
concept default (0.5): 0.9 and above names the type ("what percentage", "what year", "how
many", an e-mail or IBAN asked for); 0.8 to 0.9 is a question word or head noun ("who",
"where", "which company"), stronger than any concept default; below 0.5 is a hint that a
concept's own type overrides ("how much caffeine" is a number, "how much premium" an amount).
Position lives in the patterns: a question word counts at the start of the question, after a
preposition or an indirect-question verb, not inside a relative clause ("the city where...").

Every piece of evidence is recorded in `rules_fired` (`cues:<cue_id>`,
`concepts:<concept>.answer_type`), the winner's first, so a contradiction stays visible.
"""

from __future__ import annotations

import re
import re._parser as sre_parse
import warnings
from dataclasses import dataclass

import ahocorasick

from ..satellites import Satellites
from .draft import Draft
from .rules import Rule, language_rules, search

TYPE_FAMILY = "answer_type"
SHAPE_FAMILY = "answer_shape"
CONCEPT_FAMILY = "answer_type_concept"
FALLBACK_TYPE = "text"
FALLBACK_SHAPE = "single"


@dataclass(frozen=True, slots=True)
class Evidence:
    target: str
    weight: float
    start: int
    rule_ids: tuple[str, ...]


def answer_shape_and_type(draft: Draft) -> None:
    """Set `answer_type` and `answer_shape` from the cue rows and the concepts' defaults.

    Args:
        draft: The question so far; reads its text, language, concepts and keywords.
    """
    # Cues read the question as typed: question words are short and common, and a
    # spelling correction of a rare word ("dedica" -> "médica") would invent evidence.
    text = draft.original
    folded = text.casefold()
    type_evidence = _cue_evidence(draft, TYPE_FAMILY, text, folded)
    type_evidence += _concept_evidence(draft, text, folded)
    draft.columns["answer_type"] = _decide(draft, type_evidence, FALLBACK_TYPE)
    shape_evidence = _cue_evidence(draft, SHAPE_FAMILY, text, folded)
    draft.columns["answer_shape"] = _decide(draft, shape_evidence, FALLBACK_SHAPE)


def _cue_evidence(draft: Draft, family: str, text: str, folded: str) -> list[Evidence]:
    # Only the question's own language: cues of other languages meet false friends (the
    # Spanish "nombre de" is "name of", the French "nombre de" is "number of").
    found = []
    for rule in _gate_for(draft.sats, family, draft.language).candidates(folded):
        match = search(draft, rule, text)
        if match is not None:
            found.append(Evidence(rule.target, rule.weight, match.start(),
                                  (f"cues:{rule.rule_id}",)))
    return found


def _concept_evidence(draft: Draft, text: str, folded: str) -> list[Evidence]:
    defaults = draft.sats.cached("concept_answer_types", _concept_answer_types)
    typed = [c for c in draft.concepts if c in defaults]
    if not typed:
        return []
    gate = _gate_for(draft.sats, CONCEPT_FAMILY, draft.language)
    weighting = next((r for r in gate.candidates(folded) if search(draft, r, text)), None)
    if weighting is None:
        return []
    starts: dict[str, int] = {}
    wanted = set(typed)
    for keyword in draft.keywords:
        concept = keyword.get("concept")
        if concept in wanted and keyword["span_start"] is not None:
            starts[concept] = keyword["span_start"]
            wanted.discard(concept)
            if not wanted:
                break
    return [Evidence(defaults[c], weighting.weight, starts.get(c, len(text)),
                     (f"concepts:{c}.answer_type", f"cues:{weighting.rule_id}")) for c in typed]


def _decide(draft: Draft, evidence: list[Evidence], fallback: str) -> str:
    if not evidence:
        return fallback
    best: dict[str, tuple[float, float, int]] = {}
    for piece in evidence:
        top, total, first = best.get(piece.target, (0.0, 0.0, piece.start))
        best[piece.target] = (max(top, piece.weight), total + piece.weight,
                              min(first, piece.start))
    winner = min(best, key=lambda t: (-best[t][0], -round(best[t][1], 6), best[t][2], t))
    for piece in sorted(evidence, key=lambda p: (p.target != winner, p.start)):
        for rule_id in piece.rule_ids:
            draft.fire(rule_id)
    return winner


def _gate_for(sats: Satellites, family: str, language: str | None) -> LiteralGate:
    """The family's rules for one language (and `*` rows), behind a literal prefilter."""
    gates = sats.cached("answer_gates", lambda s: {})
    if (family, language) not in gates:
        gates[family, language] = LiteralGate(list(language_rules(sats, family, language)))
    return gates[family, language]


def _concept_answer_types(sats: Satellites) -> dict[str, str]:
    frame = sats.concepts.select("concept", "answer_type").drop_nulls()
    return dict(frame.iter_rows())


class LiteralGate:
    """A family's rules behind one Aho-Corasick pass over the casefolded question.

    Each pattern is parsed once for its literal factors: sets of strings, one of each must
    occur in any match (`\\bhow\\s+much\\b` needs "how" and "much"; a head-noun cue needs
    one of its nouns). A rule runs only when all its factors are present, so a question pays
    for the few rules it can trigger. A combined alternation of the patterns would cost
    more than the rules themselves; a pattern that cannot be parsed simply always runs.
    """

    def __init__(self, rules: list[Rule]):
        self.rules = tuple(rules)
        self.needs: list[frozenset[int]] = []  # ids of the factors each rule needs
        owners: dict[str, set[int]] = {}
        next_id = 0
        for rule in rules:
            ids = []
            for factor in _literal_factors(rule.pattern.pattern):
                ids.append(next_id)
                next_id += 1
                for literal in factor:
                    owners.setdefault(literal, set()).add(ids[-1])
            self.needs.append(frozenset(ids))
        self.automaton = ahocorasick.Automaton()
        for literal, ids in owners.items():
            self.automaton.add_word(literal, frozenset(ids))
        if owners:
            self.automaton.make_automaton()

    def candidates(self, folded: str) -> list[Rule]:
        """The rules whose every literal factor occurs in `folded`, in table order."""
        present = (frozenset().union(*{ids for _, ids in self.automaton.iter(folded)})
                   if len(self.automaton) else frozenset())
        return [rule for rule, need in zip(self.rules, self.needs) if need <= present]


_MAX_EXACT = 512  # strings an exact literal set may hold before it stops being tracked
_MAX_FACTORS = 16  # factors kept for an alternation (each is a union across its branches)


# Syntax that `re` would parse differently from `regex` (fuzzy counts, nested sets, branch
# resets, `regex`-only escapes): such a pattern gets no prefilter and always runs.
_REGEX_ONLY = re.compile(r"\{[^}]*[a-z<=>][^}]*\}|\[\[|\(\?\||\\[pPLXGmMKNV]", re.IGNORECASE)


def _literal_factors(pattern: str) -> list[frozenset[str]]:
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
    if name == "IN" and all(str(o) == "LITERAL" for o, _ in av) and len(av) <= 8:
        return {chr(c).casefold() for _, c in av}, []
    if name == "BRANCH":
        branches = [_analyse(b) for b in av[1]]
        exacts = [e for e, _ in branches]
        union = set().union(*exacts) if all(e is not None for e in exacts) else None
        return (union if union is not None and len(union) <= _MAX_EXACT else None), \
            _either(branches)
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
        own = [f for f in factors + ([frozenset(exact)] if exact and "" not in exact else [])
               if _selective(f)]
        if not own:
            return []
        options.append(sorted(own, key=lambda f: (-min(map(len, f)), len(f)))[:3])
    combined = [frozenset()]
    for own in options:
        combined = [c | f for c in combined for f in own][:_MAX_FACTORS]
    return combined


def _selective(factor: frozenset[str]) -> bool:
    # A lone letter or digit is in nearly every question; a lone "%" or "?" is not.
    return bool(factor) and all(len(s) >= 2 or (s and not s.isalnum()) for s in factor)
