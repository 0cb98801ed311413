"""Negative hints: "not / excluding / other than / not to be confused with X" in EN/FR/ES set X
aside (excluded_concepts, excluded_terms), add none of its words as positives, and demote the
passages dominated by it."""

from __future__ import annotations

import pandas as pd
import pytest

from quaestio import parse_question, parse_questions
from quaestio.retrieval import Funnel, build_index, search

RAW = Funnel.off()


@pytest.mark.parametrize(
    "question, excluded, asked",
    [
        ("What is the premium, not the deductible?", "deductible", "premium"),
        ("What is the premium other than the deductible?", "deductible", "premium"),
        ("Quelle est la prime, à ne pas confondre avec la franchise ?", "deductible", "premium"),
        ("Quelle est la prime hors franchise ?", "deductible", "premium"),
        ("¿Cuál es la prima, no confundir con el deducible?", "deductible", "premium"),
        ("¿Cuál es la prima, excepto la franquicia?", "deductible", "premium"),
    ],
)
def test_a_set_aside_concept_is_excluded_not_asked(question, excluded, asked):
    row = parse_question(question)
    assert row.negation.excluded_concepts == [excluded], row.negation
    assert excluded not in row.concepts and asked in row.concepts
    assert not [k for k in row.keywords if k.concept == excluded], "no positive variant left"
    assert row.negation.excluded_terms, "the terms are kept for retrieval"


def test_the_phrase_is_set_aside_even_when_it_shares_a_concept_with_the_question():
    row = parse_question("What is the excess, not to be confused with the deductible?")
    spans = [k.text for k in row.keywords if k.span_start is not None]
    assert spans == ["excess"], spans  # neither "deductible" nor the cue word "confused"
    assert "deductible" in row.negation.excluded_terms
    assert row.negation.excluded_concepts == [], "the excess is the concept asked for"


@pytest.mark.parametrize(
    "question",
    [
        "What is not covered?",
        "Which law governs the agreement?",
        "What are the exceptions to the exclusions?",
    ],
)
def test_questions_without_a_negative_hint_keep_every_keyword(question):
    row = parse_question(question)
    assert row.negation.excluded_terms == [] and row.negation.excluded_concepts == []


def test_retrieval_demotes_passages_dominated_by_the_excluded_terms():
    docs = pd.DataFrame(
        {
            "doc_id": ["deductible.md", "premium.md"],
            "text": [
                "# Deductible\n\nThe deductible is 250 EUR. The deductible applies to each claim; "
                "no deductible for fire. The premium is not affected by the deductible.",
                "# Premium\n\nThe annual premium of the home policy is 480 EUR.",
            ],
        }
    )
    index = build_index(docs, embedding_model=None, parent_child=False)
    question = "What is the premium, not the deductible?"
    blind = parse_questions([question])
    blind["excluded_terms"] = pd.Series([[]], dtype=blind["excluded_terms"].dtype)
    plain = search(index, blind, backend="bm25", k=2, funnel=RAW, query="raw")
    assert plain.doc_id.iloc[0] == "deductible.md", "raw words favour the decoy"
    hits = search(index, parse_questions([question]), backend="bm25", k=2, funnel=RAW, query="raw")
    assert hits.doc_id.tolist() == ["premium.md", "deductible.md"]
    assert hits.note.iloc[1].startswith("demoted: ")


def test_a_question_df_written_before_the_new_columns_still_searches():
    from quaestio.schema import frame_to_table

    old = parse_questions(["What is the premium?"]).drop(
        columns=["excluded_concepts", "excluded_terms"]
    )
    table = frame_to_table(old)
    assert table.column("excluded_terms").to_pylist() == [[]]
