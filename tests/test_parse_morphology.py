"""Inflected forms in the dictionary join: plurals, gender and verb forms meet their row
(EN/FR/ES); `exact` and `cased` rows never inflect; the exact form wins."""

from __future__ import annotations

import polars as pl
import pytest

from quaestio import load_satellites, parse_question

pytest.importorskip("simplemma")


@pytest.mark.parametrize(
    "question, concept",
    [
        ("What are the premiums?", "premium"),
        ("List the deductibles", "deductible"),
        ("What deductibles apply?", "deductible"),
        ("Who are the claims handlers?", "claim"),
        ("When does the policy expire?", "expiry_date"),
        ("Which law governs the contract?", "governing_law"),
        ("How should the vaccine be stored?", "storage_conditions"),
        ("Quelles sont les primes ?", "premium"),
        ("Quelles franchises s'appliquent ?", "deductible"),
        ("Quelle loi régit le contrat ?", "governing_law"),
        ("¿Cuáles son las primas?", "premium"),
        ("¿Cuáles son las exclusiones?", "exclusions"),
        ("¿Qué ley rige el contrato?", "governing_law"),
    ],
)
def test_an_inflected_form_finds_its_row(question, concept):
    assert concept in parse_question(question).concepts


def test_the_keyword_points_at_the_inflected_word_as_typed():
    row = parse_question("List the deductibles")
    spans = [
        (k.text, k.span_start, k.span_end)
        for k in row.keywords
        if k.concept == "deductible" and k.span_start is not None
    ]
    assert spans == [("deductible", 9, 20)]


def _sats(rows):
    concepts = pl.DataFrame(
        {
            "concept": sorted({r[0] for r in rows}),
            "definition": ["a test concept"] * len({r[0] for r in rows}),
        }
    )
    keywords = pl.DataFrame(
        {
            "concept": [r[0] for r in rows],
            "language": ["en"] * len(rows),
            "keyword": [r[1] for r in rows],
            "weight": [1.0] * len(rows),
            "match": [r[2] for r in rows],
        }
    )
    return load_satellites(extra={"concepts": concepts, "concept_keywords": keywords})


def test_exact_and_cased_rows_match_only_as_written():
    sats = _sats(
        [
            ("widget_exact", "gizmo", "exact"),
            ("plan_code", "Zorbo Plan", "cased"),
            ("widget_fuzzy", "doohickey", "fuzzy"),
        ]
    )
    assert "widget_exact" not in parse_question("Which gizmos are sold?", sats).concepts
    assert "widget_exact" in parse_question("Which gizmo is sold?", sats).concepts
    assert "plan_code" not in parse_question("Compare the Zorbo Plans", sats).concepts
    assert "plan_code" in parse_question("Compare the Zorbo Plan", sats).concepts
    assert "widget_fuzzy" in parse_question("Which doohickeys are sold?", sats).concepts


def test_the_exact_form_wins_over_a_lemma_of_another_row():
    sats = _sats([("papers_concept", "filings", "fuzzy"), ("paper_concept", "filing", "fuzzy")])
    assert parse_question("Where are the filings?", sats).concepts == ["papers_concept"]
    assert parse_question("Where is the filing?", sats).concepts == ["paper_concept"]


def test_quoted_terms_are_not_inflected():
    row = parse_question('Search for "premiums" in the contract')
    assert "premium" not in row.concepts


def test_a_product_name_beats_a_party_inside_it():
    # "renters insurance" is a product; "renter" alone is the lessee of a lease.
    assert parse_question("Does renters insurance cover theft?").concepts[:1] == [
        "renters_insurance"
    ]
    assert "lessee" in parse_question("Can the renters sublet the flat?").concepts


def test_a_word_whose_lemma_holds_a_space_keeps_the_spans_in_line(tiny_sats):
    # Found by tests/test_fuzz.py: a lemma that folds to several words (presentation forms)
    # no longer lined up with the tokens (a KeyError in the span mapping).
    import random
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from hostile_strings import hostile

    from quaestio import parse_question

    question = hostile(random.Random(5), "mixed")
    row = parse_question(question, tiny_sats)
    assert row.question_id
    assert "premium" in parse_question("the premiums \ufdfa deductibles").concepts
