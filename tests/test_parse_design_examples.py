"""Every reference example of DESIGN.md §7 parses as the design states it (EN/FR/ES
wordings where the design gives them, and French ones written from the same phenomena)."""

from __future__ import annotations

import datetime as dt

import pytest

from quaestio import parse_question


def _row(question, **options):
    return parse_question(question, **options)


@pytest.mark.parametrize(
    "question",
    ["What is the annual premium?", "¿Cuál es la prima anual?", "Quelle est la prime annuelle ?"],
)
def test_single_amount(question):
    row = _row(question)
    assert (row.answer_shape.value, row.answer_type) == ("single", "amount")
    assert row.decomposition.decomposition_pattern.value == "single"


@pytest.mark.parametrize(
    "question", ["List the annual premiums by year", "Enumerar las primas anuales por año"]
)
def test_listing_amount(question):
    row = _row(question)
    # One value per year is a listing (DESIGN §7); a second dimension makes it a table.
    assert row.answer_shape.value == "listing"
    assert row.answer_type == "amount"


@pytest.mark.parametrize(
    "question",
    [
        "List the exclusions of the contract",
        "Enumerar las exclusiones del contrato",
        "Lister les exclusions du contrat",
    ],
)
def test_listing_text(question):
    row = _row(question)
    assert (row.answer_shape.value, row.answer_type) == ("listing", "text")


@pytest.mark.parametrize("question", ["What is the limit?", "¿Cuál es el límite?"])
def test_which_limit(question):
    c = _row(question).clarification
    assert c.ambiguity_reason == "ambiguous_concept"
    assert c.suggested_clarification


def test_independent_two_sub_questions():
    d = _row("What is the annual premium and what are the main exclusions?").decomposition
    assert d.decomposition_pattern.value == "independent"
    assert d.sub_questions == ["What is the annual premium?", "What are the main exclusions?"]


@pytest.mark.parametrize(
    "question, subs",
    [
        (
            "Who is the insured and what is their address?",
            ["Who is the insured?", "What is their address?"],
        ),
        (
            "¿Quién es el asegurado y cuál es su domicilio?",
            ["¿Quién es el asegurado?", "¿Cuál es su domicilio?"],
        ),
    ],
)
def test_sequential(question, subs):
    d = _row(question).decomposition
    assert (d.decomposition_pattern.value, d.sub_questions) == ("sequential", subs)


@pytest.mark.parametrize(
    "question",
    [
        "What are the exclusions and limitations?",
        "¿Cuáles son las exclusiones y limitaciones?",
        "Quelles sont les exclusions et limitations ?",
    ],
)
def test_unified_both_terms_boosted(question):
    row = _row(question)
    assert row.decomposition.decomposition_pattern.value == "unified"
    assert row.decomposition.sub_questions == [question]
    typed = [k.weight for k in row.keywords if k.span_start is not None]
    assert len(typed) == 2 and len(set(typed)) == 1


def test_conditional_condition_is_a_filter():
    d = _row(
        "If the policy is for commercial property, what is the fire coverage limit?"
    ).decomposition
    assert d.decomposition_pattern.value == "conditional"
    assert "commercial property" in d.conditional_filter
    assert d.sub_questions == ["What is the fire coverage limit?"]


def test_exists_then_its_duration():
    d = _row(
        "Does this contract include a non-compete clause and, if so, for how long?"
    ).decomposition
    assert d.decomposition_pattern.value in ("conditional", "sequential")
    assert d.sub_questions[0] == "Does this contract include a non-compete clause?"
    assert "non-compete" in d.sub_questions[1]


def test_comparison_is_compound():
    d = _row(
        "Are the indemnification and liability limits in this contract consistent?"
    ).decomposition
    assert d.decomposition_pattern.value != "single" and len(d.sub_questions) == 2


@pytest.mark.parametrize(
    "question",
    [
        "What did we sign with Acme between 2022 and 2024?",
        "¿Qué firmamos con Acme entre 2022 y 2024?",
    ],
)
def test_parties_and_signature_dates(question):
    s = _row(question).scope
    assert s.scope_parties == ["Acme"]
    assert (s.scope_date_from, s.scope_date_to) == (dt.date(2022, 1, 1), dt.date(2024, 12, 31))


@pytest.mark.parametrize(
    "question, pages",
    [
        ("Show me page 3", [3]),
        ("Summarize pages 5 to 7", [5, 6, 7]),
        ("Compare page 2 and page 9", [2, 9]),
    ],
)
def test_pages(question, pages):
    assert _row(question).hints.pages_hint == pages


def test_slides_and_sheets():
    assert _row("on slide 4").hints.slides_hint == [4]
    assert _row("slides 7 to 9").hints.slides_hint == [7, 8, 9]
    assert _row("in the Pricing sheet").hints.sheets_hint == ["Pricing"]


def test_typical_toc_entry_without_a_toc():
    assert _row("What are the exclusions of this contract?").hints.toc_section_hint == (
        "Exclusions"
    )


def test_anchor():
    row = _row("Does article L131-1 of the insurance code apply here?")
    assert "L131-1" in row.keywords_by_source("anchor")


@pytest.mark.parametrize(
    "question, concept",
    [
        ("what happens if we leave early", "early_termination"),
        ("how much will we get back", "repayment_schedule"),
        ("side effects", "adverse_event"),
        ("how do I cancel my policy", "cancellation"),
    ],
)
def test_dictionary_meets_everyday_wording(question, concept):
    assert concept in _row(question).concepts
