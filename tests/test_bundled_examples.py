"""The foundation issue's examples, on the bundled default tables."""

import pytest

from quaestio import parse_question


def _concept_texts(row, concept):
    return {k.text for k in row.keywords if k.concept == concept}


def test_quoted_terms_are_exactly_the_explicit_keywords(bundled):
    row = parse_question(
        'Search for "force majeure", "termination", "event of default" in this contract', bundled
    )
    explicit = [k for k in row.keywords if k.source == "explicit"]
    assert [k.text for k in explicit] == ["force majeure", "termination", "event of default"]
    assert {k.weight for k in explicit} == {1.0}
    assert row.concepts == []  # explicit terms are never expanded


def test_article_number_is_an_anchor(bundled):
    row = parse_question("Does article L131-1 of the insurance code apply here?", bundled)
    assert [k.text for k in row.keywords if k.source == "anchor"] == ["L131-1"]


def test_premium_in_germany_expands_both_concepts(bundled):
    row = parse_question("What is the annual premium in Germany?", bundled)
    assert row.concepts == ["premium", "country_de"]
    premium = [k for k in row.keywords if k.concept == "premium"]
    assert {"prime", "cotisation", "prima"} <= {k.text for k in premium}
    assert {"en", "fr", "es"} <= {k.language for k in premium}
    assert {"Germany", "Allemagne", "Alemania", "Deutschland", "DE", "DEU"} <= _concept_texts(
        row, "country_de"
    )


def test_typos_still_reach_the_premium_concept(bundled):
    row = parse_question("Whats the anual premuim?", bundled)
    assert row.concepts == ["premium"]
    assert ("premuim", "premium") in {(c.original, c.corrected) for c in row.spelling_corrections}


@pytest.mark.parametrize(
    "question, concept, variant",
    [
        (
            "What is the cap on what the insurer will pay?",
            "limit_of_indemnity",
            "limit of indemnity per claim",
        ),
        ("Can I leave early?", "early_termination", "résiliation anticipée"),
        ("What are the side effects?", "adverse_event", "adverse events"),
        ("How much we get back each month?", "repayment_schedule", "repayment schedule"),
        ("Quelle est la cotisation annuelle ?", "premium", "premium"),
        ("¿Cuáles son los efectos secundarios?", "adverse_event", "side effects"),
    ],
)
def test_classic_vocabulary_gaps_are_bridged(bundled, question, concept, variant):
    row = parse_question(question, bundled)
    assert concept in row.concepts, row.concepts
    assert variant in _concept_texts(row, concept)


@pytest.mark.parametrize(
    "question, language",
    [
        ("What is the annual premium for my house?", "en"),
        ("Quelle est la franchise pour un dégât des eaux ?", "fr"),
        ("¿Cuál es el deducible de la póliza de hogar?", "es"),
        ("Wie hoch ist die Prämie für das Haus?", "de"),
    ],
)
def test_language_detection(bundled, question, language):
    assert parse_question(question, bundled).language == language


def test_language_can_be_forced(bundled):
    assert parse_question("premium?", bundled, language="fr").language == "fr"
