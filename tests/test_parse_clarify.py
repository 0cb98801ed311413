"""Clarification: a follow-up and its reason only when the question cannot be acted on."""

from __future__ import annotations

import polars as pl
import pytest

from quaestio import load_satellites, parse_question
from quaestio.errors import SatelliteError


def _clarification(question, sats, **options):
    row = parse_question(question, sats, **options)
    return row.clarification.ambiguity_reason, row.clarification.suggested_clarification, row


@pytest.mark.parametrize(
    "question, reason, follow_up",
    [
        (
            "What is the limit?",
            "ambiguous_concept",
            "Which “limit” do you mean: limit of indemnity / sub-limit?",
        ),
        (
            "Quelle est la limite ?",
            "ambiguous_concept",
            "De quel « limite » s'agit-il : plafond de garantie / sous-limite ?",
        ),
        (
            "¿Cuál es el límite?",
            "ambiguous_concept",
            "¿A qué «límite» se refiere: límite de indemnización / sublímite?",
        ),
        (
            "What does it cover?",
            "deictic_reference",
            "What does “it” refer to? Please name the document, party or period.",
        ),
        (
            "What about that one?",
            "deictic_reference",
            "What does “that one” refer to? Please name the document, party or period.",
        ),
        (
            "Show me the latest",
            "deictic_reference",
            "What does “the latest” refer to? Please name the document, party or period.",
        ),
        (
            "What was last year's?",
            "deictic_reference",
            "What does “last year's” refer to? Please name the document, party or period.",
        ),
        (
            "Quelle est la prime de ce contrat-là ?",
            "deictic_reference",
            "À quoi renvoie « ce contrat-là » ? Précisez le document, la partie ou la période.",
        ),
        (
            "¿Cuál es el último?",
            "deictic_reference",
            "¿A qué se refiere «el último»? Indique el documento, la parte o el período.",
        ),
        (
            "Et celui-là ?",
            "deictic_reference",
            "À quoi renvoie « celui-là » ? Précisez le document, la partie ou la période.",
        ),
        (
            "Qu'est-ce que ça couvre ?",
            "deictic_reference",
            "À quoi renvoie « ça » ? Précisez le document, la partie ou la période.",
        ),
        (
            "¿Y eso?",
            "deictic_reference",
            "¿A qué se refiere «eso»? Indique el documento, la parte o el período.",
        ),
        (
            "Compare it with last year",
            "missing_object",
            "What should “compare” apply to? Please name the item, document or figure.",
        ),
        (
            "Compare-le avec l'an dernier",
            "missing_object",
            "À quoi doit s'appliquer « compare » ? Précisez l'élément, le document ou le montant.",
        ),
        (
            "Compáralo con el año pasado",
            "missing_object",
            "¿A qué debe aplicarse «compáralo»? Indique el elemento, el documento o la cifra.",
        ),
        (
            "Tell me about Neil Young.",
            "too_broad",
            "What would you like to know about Neil Young?",
        ),
        ("Parlez-moi de Victor Hugo", "too_broad", "Que voulez-vous savoir sur Victor Hugo ?"),
        (
            "Háblame de Gabriel García Márquez",
            "too_broad",
            "¿Qué desea saber sobre Gabriel García Márquez?",
        ),
        (
            "map",
            "too_short",
            "What would you like to know about “map”? Please ask a full question.",
        ),
    ],
)
def test_unclear_questions_get_a_follow_up_in_their_language(bundled, question, reason, follow_up):
    assert _clarification(question, bundled)[:2] == (reason, follow_up)


@pytest.mark.parametrize(
    "question",
    [
        "What is the annual premium in Germany?",
        "What is the limit for jewellery?",  # the definitions resolve the ambiguity
        "What is the premium of this contract?",  # "this contract" is the document at hand
        'Search for "force majeure", "termination" in this contract',
        "Tell me about the exclusions",  # a concept of the dictionary: actionable
        "Is Long Term Care Insurance Worth It?",
        "What Is Term Life Insurance And How Does It Work?",
        "Medigap Vs Medicare?",
        "Quelle est la franchise pour un dégât des eaux ?",
        "Qu'est-ce que la franchise ?",
        "¿Qué cubre la póliza de hogar?",
        "¿Cuáles son los efectos secundarios del medicamento?",
        "Who is the insured and what is their address?",
    ],
)
def test_clear_questions_never_get_one(bundled, question):
    assert _clarification(question, bundled)[:2] == (None, None)


@pytest.mark.parametrize(
    "question, context",
    [
        ("Compare it with last year", "Show me the 2023 fire policy."),
        ("What does it cover?", ["Hello", "Let's look at the Acme home policy."]),
        ("¿Cuál es el último?", "Tenemos tres contratos con Acme."),
        ("What is the limit?", "We discussed the sub-limit for jewellery."),
    ],
)
def test_a_conversation_that_resolves_the_reference_cancels_it(bundled, question, context):
    assert _clarification(question, bundled, context=context)[:2] == (None, None)


def test_a_context_naming_both_candidates_does_not_resolve_an_ambiguity(bundled):
    reason = _clarification(
        "What is the limit?",
        bundled,
        context="Both the limit of indemnity and the sub-limit apply.",
    )[0]
    assert reason == "ambiguous_concept"


@pytest.mark.parametrize(
    "scope, reason",
    [
        ({}, "deictic_reference"),
        ({"date_from": "2024-01-01"}, None),
        ({"document_version": "v3"}, None),
        ({"parties": ["Acme"]}, "deictic_reference"),  # a party says nothing about "latest"
    ],
)
def test_caller_scope_resolves_only_what_the_row_says_it_resolves(bundled, scope, reason):
    assert _clarification("Show me the latest", bundled, scope=scope)[0] == reason


def test_the_deciding_rows_are_recorded(bundled):
    row = _clarification("Compare it with last year", bundled)[2]
    assert {"cues:clarify_missing_object_compare_en", "cues:clarify_prompt_missing_en"} <= set(
        row.provenance.rules_fired
    )


@pytest.mark.parametrize(
    "question",
    [
        "?",
        "...",
        "¿?",
        "it",
        "\u200b",
        "x" * 300,
        "that one " * 500,
        "Tell me about " + "a " * 1000,
    ],
)
def test_odd_input_gives_a_row_without_error(bundled, question):
    reason, follow_up, row = _clarification(question, bundled)
    assert row.provenance.error_code is None
    assert (reason is None) == (follow_up is None)


def test_a_prompt_row_without_the_question_language_falls_back_to_any_language(bundled):
    reason, follow_up, _ = _clarification("Was ist das?", bundled, language="de")
    assert (reason, follow_up) == (None, None)
    reason, follow_up, _ = _clarification("Karte", bundled, language="de")
    assert reason == "too_short"
    assert follow_up == "Could you say more precisely what you are asking about “Karte”?"


def test_an_analyst_row_translates_and_adds_behaviour():
    rows = pl.DataFrame(
        {
            "cue_id": ["clarify_mine_deictic_de", "clarify_mine_prompt_de"],
            "family": ["deictic", "clarification_prompt"],
            "target": [None, "Worauf bezieht sich „{term}“?"],
            "language": ["de", "de"],
            "pattern": [r"\b(?:das|dieses)\s+da\b", r"^deictic_reference$"],
            "weight": [1.0, 1.0],
        }
    )
    sats = load_satellites(extra={"cues": rows})
    assert _clarification("Was kostet das da?", sats, language="de")[:2] == (
        "deictic_reference",
        "Worauf bezieht sich „das da“?",
    )


def test_a_broken_clarification_row_is_rejected_at_load():
    bad = pl.DataFrame(
        {
            "cue_id": ["clarify_bad"],
            "family": ["deictic"],
            "target": [None],
            "language": ["en"],
            "pattern": [r"(that one"],
        }
    )
    with pytest.raises(SatelliteError) as caught:
        load_satellites(extra={"cues": bad})
    assert [c["column"] for c in caught.value.failure_cases] == ["pattern"]


@pytest.mark.parametrize(
    "question",
    [
        "Show me the latest version.",
        "What about that contract?",
        "What is the premium in that policy?",
        "Et ce document ?",
        "¿Qué dice ese contrato?",
        "¿Cuál es la prima de ese contrato?",
    ],
)
def test_a_distal_reference_with_nothing_to_resolve_it_asks_back(question):
    assert parse_question(question).clarification.ambiguity_reason == "deictic_reference"


@pytest.mark.parametrize(
    "question, options",
    [
        ("What about that contract?", {"context": ["We signed the Acme lease in May."]}),
        ("Show me the latest version.", {"scope": {"document_version": "v3"}}),
        ("¿Qué dice ese contrato?", {"context": ["Hablamos del contrato con Acme."]}),
    ],
)
def test_context_or_caller_scope_resolves_the_reference(question, options):
    assert parse_question(question, **options).clarification.ambiguity_reason is None


@pytest.mark.parametrize(
    "question",
    [
        "What are the exclusions of this contract?",
        "Quelles sont les exclusions de ce contrat ?",
        "What is the premium of the contract signed with Acme?",
        "Is that policy from Acme valid?",
    ],
)
def test_the_document_in_view_or_a_named_one_needs_no_clarification(question):
    assert parse_question(question).clarification.ambiguity_reason is None
