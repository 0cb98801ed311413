"""The shortcuts of `scope_filters` and `structural_hints` give the rows their long paths give.

Each question is parsed twice: as shipped, and on a fresh copy of the satellites with every
shortcut turned off (the steps' gates let every family run, the concepts' section rows are
read for every concept, the rows' contexts are decided again for every question, the date
range rows read the masked question through the shared automaton, and the scope sources
are always merged). The whole rows must be equal, on questions generated from dates,
numbers, parties, countries, sections, pages and versions in English, French and Spanish,
with and without the caller's TOC, scope, parties and earlier turns.
"""

from __future__ import annotations

import itertools

import pytest

from quaestio import parse_question
from quaestio.analysis import dates, hints, scope
from quaestio.analysis.rules import Rule, cue_rules, make_ruleset
from quaestio.satellites import Satellites
from quaestio.satellites.facts import LazyPattern

TOPICS = [
    "the premium",
    "the exclusions of this contract",
    "the deductible",
    "the governing law",
    "the termination clause",
    "the insurer's address",
    "the limit of indemnity",
    "the annual premiums by year",
]
MODIFIERS = [
    "",
    " in 2021",
    " between 2022 and 2024",
    " from March to June 2024",
    " in Q3 2022",
    " for 3Q23",
    " last year",
    " since 31 March 2023",
    " signed before 2020",  # a range open on one side
    " signed with Acme Corp in 2023",
    " with the Insurer",
    " in France",
    " under German law in Spain",
    " in section 4",
    " in Annex B",
    " on page 3",
    " on pages 2 to 5",
    " in version 2",
    " for a 70 year old",
    " of a 401k plan",
    " in the 1920s",
    " on slide 4 of the Pricing sheet",
]
OTHERS = [
    "Quelle est la prime en 2022 ?",
    "Que dit la section 3 sur la résiliation entre janvier et mars 2023 ?",
    "Quels contrats avons-nous signés avec Dupont SA en France ?",
    "¿Cuál es el deducible en el anexo B?",
    "¿Qué firmamos con Acme entre 2022 y 2024?",
    "¿Qué pasó entre enero de 2023 y marzo de 2024 en España?",
    "What Is 10 Yr Term Life Insurance?",
    "How Much Does Life Insurance Cost For A 70 Year Old?",
    "WHAT DID WE SIGN WITH ACME IN 2023?",
    "What Hollywood dog died in the arms of Jean Harlow in 1932 ?",
    "Who was the 16th President of the United States ?",
    "Summarise pages 5 to 7 of the contract with Globex.",
    "What is the limit?",
    "What are the exclusions and limitations?",
    "Show me the table of fees in the latest version.",
    "Which came first , according to Genesis 1 : 2 : 22 ?",
    "What was 31 February 2023 like?",
    "In France, what are the exclusions of this contract?",  # a country, then a topic
]
QUESTIONS = [
    f"What is {topic}{a}{b}?"
    for i, (topic, a, b) in enumerate(itertools.product(TOPICS, MODIFIERS, MODIFIERS[:6]))
    if i % 7 == 0 or not b
] + OTHERS
OPTIONS = [
    {},
    {"toc": ["1. Definitions", "2. Exclusions", "Appendix A - Fees", "Governing Law"]},
    {"scope": {"jurisdictions": ["FR"], "date_from": "2022", "sections": ["Exclusions"]}},
    {"parties": ["Acme Corp"]},
    {"context": ["What did we pay in 2021 in Spain with Globex?"]},
]


def _always(_sats) -> object:
    """A rule set whose one rule (an empty pattern) may match every text."""
    return make_ruleset([Rule("always", "test", None, "*", LazyPattern("", 0), 1.0)])


class _NeverDisjoint(frozenset):
    def isdisjoint(self, other) -> bool:
        return False


def _every_concept_has_rows(build):
    def slow(sats):
        titles, _ = build(sats)
        return titles, _NeverDisjoint()

    return slow


def _row(question, sats, options):
    row = parse_question(question, sats, **options).model_dump()
    row["provenance"].pop("latency_ms")
    return row


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "none")
def test_the_shortcuts_give_the_rows_of_the_long_paths(bundled, options, monkeypatch):
    fast = {q: _row(q, bundled, options) for q in QUESTIONS}
    with monkeypatch.context() as patch:
        patch.setattr(hints, "union_rules", lambda sats, name, parts: _always(sats))
        patch.setattr(scope, "union_rules", lambda sats, name, parts: _always(sats))
        patch.setattr(scope, "_is_empty", lambda found: False)
        patch.setattr(hints, "_row_contexts", hints._decide_contexts)
        patch.setattr(hints, "_concept_sections", _every_concept_has_rows(hints._concept_sections))
        patch.setattr(dates, "_range_rules", lambda sats: cue_rules(sats, "date_range"))
        slow_sats = Satellites(tables=bundled.tables, origins=bundled.origins)
        for question in QUESTIONS:
            assert _row(question, slow_sats, options) == fast[question], question


def test_the_questions_take_every_shortcut_and_reach_every_family(bundled, monkeypatch):
    # Else the comparison above would compare a long path with itself.
    taken = {"hints_quiet": 0, "scope_quiet": 0, "scope_concepts_only": 0, "named_nothing": 0}
    seen_dates, seen_targets, seen_sections = set(), set(), set()
    contexts, question_scope, is_empty = hints._contexts, scope.question_scope, scope._is_empty

    def spy_contexts(draft, cued=True):
        taken["hints_quiet"] += not cued
        return contexts(draft, cued)

    def spy_question_scope(draft, *, cued=True):
        taken["scope_concepts_only"] += not cued
        return question_scope(draft, cued=cued)

    def spy_is_empty(found):
        empty = is_empty(found)
        taken["named_nothing"] += empty
        return empty

    monkeypatch.setattr(hints, "_contexts", spy_contexts)
    monkeypatch.setattr(scope, "question_scope", spy_question_scope)
    monkeypatch.setattr(scope, "_is_empty", spy_is_empty)
    for question in QUESTIONS:
        row = parse_question(question, bundled)
        found = row.scope
        taken["scope_quiet"] += not found.scope_origins
        seen_dates.add(found.scope_date_from is not None or found.scope_date_to is not None)
        seen_targets.update(o.value for o in found.scope_origins if o.name == "date_applies_to")
        seen_sections.add(row.hints.toc_section_hint)
    assert all(taken.values()), taken
    assert seen_dates == {True, False} and seen_targets == {"document"}
    assert {"Exclusions", None} <= seen_sections


def test_the_rows_contexts_are_decided_once_per_type_and_shape(bundled):
    decided = hints._row_contexts(bundled, "amount", "listing")
    assert hints._row_contexts(bundled, "amount", "listing") is decided
    assert decided == hints._decide_contexts(bundled, "amount", "listing")
