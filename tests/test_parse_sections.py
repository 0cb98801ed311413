"""Unified questions from `section_pairs` rows, section hints from `concept_sections` rows
(no TOC needed), the bare appendix, the "and, if so" family, comparisons, and sub-questions
that keep their subject."""

from __future__ import annotations

import polars as pl
import pytest

from quaestio import load_satellites, parse_question


def _d(question, **options):
    row = parse_question(question, **options)
    d = row.decomposition
    return d.decomposition_pattern.value, d.sub_questions, row


@pytest.mark.parametrize(
    "question, section",
    [
        ("What are the exclusions and limitations?", "Exclusions and Limitations"),
        ("Quelles sont les exclusions et limitations ?", "Exclusions et limitations"),
        ("¿Cuáles son las exclusiones y limitaciones?", "Exclusiones y limitaciones"),
        ("What are the terms and conditions?", "Terms and Conditions"),
    ],
)
def test_a_section_pair_is_one_unified_question_hinting_its_section(question, section):
    pattern, subs, row = _d(question)
    assert (pattern, subs) == ("unified", [question])
    assert row.hints.toc_section_hint == section


def test_an_analyst_adds_a_pair_as_a_row():
    question = "What are the waiting periods and grace periods?"
    assert _d(question)[0] == "independent"
    pair = pl.DataFrame(
        {
            "language": ["en"],
            "a": ["waiting_period"],
            "b": ["grace_period"],
            "section": ["Periods"],
        }
    )
    sats = load_satellites(extra={"section_pairs": pair})
    row = parse_question(question, sats)
    assert row.decomposition.decomposition_pattern.value == "unified"
    assert row.hints.toc_section_hint == "Periods"


@pytest.mark.parametrize(
    "question, hint",
    [
        ("What are the exclusions of this contract?", "Exclusions"),
        ("Quelles sont les exclusions de ce contrat ?", "Exclusions"),
        ("¿Cuáles son las exclusiones de este contrato?", "Exclusiones"),
        ("Which law governs the contract?", "Governing Law"),
        ("What is the annual premium in the appendix?", "appendix"),
        ("Quelle est la prime indiquée dans l'annexe ?", "annexe"),
        ("¿Cuál es la prima según el anexo?", "anexo"),
    ],
)
def test_section_hints_without_a_toc(question, hint):
    assert parse_question(question).hints.toc_section_hint == hint


def test_with_a_toc_the_concept_section_is_matched_to_a_real_title_or_dropped():
    q = "What are the exclusions of this contract?"
    assert (
        parse_question(q, toc=["1. Definitions", "4. General Exclusions"]).hints.toc_section_hint
        == "4. General Exclusions"
    )
    assert parse_question(q, toc=["1. Definitions", "2. Premium"]).hints.toc_section_hint is None


def test_a_named_section_beats_the_concept_default():
    assert (
        parse_question("What are the exclusions in Annex B?").hints.toc_section_hint == "Annex B"
    )


@pytest.mark.parametrize(
    "question, subs",
    [
        (
            "Does this contract include a non-compete clause and, if so, for how long?",
            [
                "Does this contract include a non-compete clause?",
                "For how long (a non-compete clause)?",
            ],
        ),
        (
            "Is there a waiting period and, if so, how long is it?",
            ["Is there a waiting period?", "How long is the waiting period?"],
        ),
        (
            "Le contrat contient-il une clause de non-concurrence et, si oui, "
            "pour combien de temps ?",
            [
                "Le contrat contient-il une clause de non-concurrence ?",
                "Pour combien de temps (une clause de non-concurrence) ?",
            ],
        ),
        (
            "¿El contrato incluye una cláusula de no competencia y, en caso afirmativo, "
            "por cuánto tiempo?",
            [
                "¿El contrato incluye una cláusula de no competencia?",
                "¿Por cuánto tiempo (una cláusula de no competencia)?",
            ],
        ),
    ],
)
def test_and_if_so_asks_whether_it_exists_then_about_it(question, subs):
    pattern, got, row = _d(question)
    assert (pattern, got) == ("conditional", subs)
    assert row.decomposition.conditional_filter


@pytest.mark.parametrize(
    "question",
    [
        "Are the indemnification and liability limits in this contract consistent?",
        "Do the indemnity and the liability cap differ?",
        "Is term life insurance the same as whole life insurance?",
        "Les clauses d'indemnisation et de responsabilité sont-elles cohérentes ?",
        "¿Coinciden el límite y el deducible?",
        "¿El límite y el deducible son coherentes?",
    ],
)
def test_comparisons_are_compound(question):
    pattern, subs, _ = _d(question)
    assert pattern == "independent" and len(subs) == 2


def test_a_comparison_with_a_time_is_one_question():
    assert _d("Is the premium the same as last year?")[0] == "single"


@pytest.mark.parametrize(
    "question, subs",
    [
        (
            "What is the deductible of plan A and plan B?",
            ["What is the deductible of plan A?", "What is the deductible of plan B?"],
        ),
        (
            "What are the deductibles of plan A and of plan B?",
            ["What are the deductibles of plan A?", "What are the deductibles of plan B?"],
        ),
        (
            "Quelle est la franchise du plan A et du plan B ?",
            ["Quelle est la franchise du plan A ?", "Quelle est la franchise du plan B ?"],
        ),
        (
            "¿Cuál es el deducible del plan A y del plan B?",
            ["¿Cuál es el deducible del plan A?", "¿Cuál es el deducible del plan B?"],
        ),
        (
            "Quelles sont les primes et franchises ?",
            ["Quelles sont les primes ?", "Quelles sont les franchises ?"],
        ),
    ],
)
def test_sub_questions_carry_their_subject(question, subs):
    assert _d(question)[1] == subs


def test_a_second_dictionary_term_is_not_a_second_owner():
    assert (
        "What is the premium of the deductible?"
        not in _d("What is the premium of the car and the deductible?")[1]
    )


@pytest.mark.parametrize(
    "question",
    [
        "What is the premium and what are the exclusions?",
        "What are the exclusions and limits?",
        "¿Cuál es la prima y cuáles son las exclusiones?",
    ],
)
def test_a_question_about_two_places_gets_no_usual_section(question):
    # A hint toward the exclusions would hide the premium's (or the limit's) passages.
    assert parse_question(question).hints.toc_section_hint is None


def test_a_place_a_country_does_not_change_the_usual_section():
    assert (
        parse_question("What are the exclusions in Germany?").hints.toc_section_hint
        == "Exclusions"
    )
