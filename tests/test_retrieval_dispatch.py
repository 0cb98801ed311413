"""Dispatch follows the parse: sub-questions fused by RRF, sequential substitution, conditions,
unified boosting, and clarify-first questions answered with their follow-up, not with hits."""

from __future__ import annotations

import pandas as pd
from test_retrieval_fixtures import bm25_index

from quaestio import parse_questions
from quaestio.retrieval import Funnel, dispatch
from quaestio.retrieval.compound import substitute_value

RAW = Funnel.off()


def frame(question: str, **columns) -> pd.DataFrame:
    qdf = parse_questions([question], as_="pandas")
    for name, value in columns.items():
        qdf[name] = pd.Series([value], dtype=qdf[name].dtype)
    return qdf


def test_an_independent_question_fuses_two_sub_questions_that_hit_two_sections():
    hits = dispatch(
        frame(
            "What is the annual premium and what are the main exclusions?",
            chunk_strategy="sequential",
            retrieval_k=4,
        ),
        bm25_index(),
        funnel=RAW,
    )
    assert hits.route.eq("independent").all()
    found = dict(zip(hits.breadcrumb, hits.sub_question))
    premium = "Home Insurance Policy HI-2024-0173 > Schedule"
    exclusions = "Home Insurance Policy HI-2024-0173 > Exclusions"
    assert found.get(premium) == "What is the annual premium?", found
    assert found.get(exclusions) == "What are the main exclusions?", found
    assert set(hits.loc[hits.breadcrumb.isin([premium, exclusions]), "rank"]) <= {1, 2}


def test_a_clarify_first_question_returns_its_follow_up_and_no_hits():
    hits = dispatch(["What is the limit?", "What is the deductible?"], bm25_index(), funnel=RAW)
    first = hits[hits.question_id == "q0"]
    assert len(first) == 1 and first.route.iloc[0] == "clarify"
    assert first.chunk_id.isna().all() and first["rank"].iloc[0] == 0
    assert "limit of indemnity" in first.suggested_clarification.iloc[0]
    assert first.ambiguity_reason.iloc[0] == "ambiguous_concept"
    assert hits[hits.question_id == "q1"].chunk_id.notna().all()
    forced = dispatch(["What is the limit?"], bm25_index(), funnel=RAW, force=True)
    assert forced.chunk_id.notna().all() and "clarify" not in set(forced.route)


def test_sequential_substitutes_the_confirmed_value_into_the_second_question():
    qdf = frame(
        "What is the deductible per claim and which section mentions that amount?",
        decomposition_pattern="sequential",
        sub_questions=["What is the deductible per claim?", "Which section mentions that amount?"],
        chunk_strategy="sequential",
        retrieval_k=3,
    )
    hits = dispatch(qdf, bm25_index(), funnel=RAW)
    notes = set(hits.note.dropna())
    assert any("confirmed '250 EUR'" in n for n in notes), notes
    assert "Which section mentions 250 EUR?" in set(hits.sub_question)
    blind = frame(
        "Who wrote the zebra haiku and what is their address?",
        decomposition_pattern="sequential",
        sub_questions=["Who wrote the zebra haiku?", "What is their address?"],
        chunk_strategy="sequential",
        retrieval_k=3,
    )
    hits = dispatch(blind, bm25_index(), funnel=RAW)
    assert hits.note.dropna().str.contains("nothing confirmed for #1; ran as written").all()


def test_substitution_replaces_the_reference_in_each_language():
    assert (
        substitute_value("What is their address?", "Jane Doe", "en")
        == "What is Jane Doe's address?"
    )
    assert (
        substitute_value("Quelle est son adresse ?", "Jane Doe", "fr")
        == "Quelle est adresse de Jane Doe ?"
    )
    assert (
        substitute_value("¿Cuál es su domicilio?", "Jane Doe", "es")
        == "¿Cuál es domicilio de Jane Doe?"
    )
    assert (
        substitute_value("Which clause applies?", "250 EUR", "en")
        == "Which clause applies (250 EUR)?"
    )


def test_a_condition_boosts_the_documents_it_names():
    qdf = frame(
        "If the agreement is a cloud services agreement, what is the notice period?",
        decomposition_pattern="conditional",
        sub_questions=["What is the notice period?"],
        conditional_filter="the agreement is a cloud services agreement",
        chunk_strategy="sequential",
        retrieval_k=3,
    )
    hits = dispatch(qdf, bm25_index(), funnel=RAW)
    assert hits.route.eq("conditional").all()
    assert hits.doc_id.iloc[0] == "service_agreement.md"
    assert hits.note.str.startswith("conditional:").all()


def test_unified_runs_one_search_with_both_terms_in_full():
    qdf = frame(
        "What are the exclusions and limits?",
        decomposition_pattern="unified",
        sub_questions=["What are the exclusions?", "What are the limits?"],
        chunk_strategy="sequential",
        retrieval_k=3,
    )
    hits = dispatch(qdf, bm25_index(), funnel=RAW)
    assert hits.route.eq("unified").all() and hits.sub_question.isna().all()
    crumbs = set(hits.breadcrumb)
    assert {
        "Home Insurance Policy HI-2024-0173 > Exclusions",
        "Home Insurance Policy HI-2024-0173 > Cover and limits",
    } <= crumbs, crumbs


def test_dispatch_embeds_the_questions_of_a_batch_in_one_call(monkeypatch):
    """Questions are searched one by one, but their vectors are encoded together first."""
    from pathlib import Path

    from quaestio.retrieval import build_index
    from quaestio.retrieval.embeddings import get_embedder

    root = Path(__file__).resolve().parents[1]
    index = build_index(root / "examples" / "corpus", parent_child=False, progress=False)
    embedder = get_embedder(index.embedding_model)
    calls = []
    real = embedder._encode

    def counted(texts, prefix, *rest):
        if prefix == embedder.spec.query_prefix:
            calls.append(len(texts))
        return real(texts, prefix, *rest)

    monkeypatch.setattr(embedder, "_encode", counted)
    questions = [
        "Which excess applies to hail damage on the garage roof?",
        "Who countersigned the maintenance agreement annex?",
        "What was the quarterly operating margin of the services unit?",
    ]
    hits = dispatch(questions, index, k=2, force=True)
    assert calls == [3]
    assert set(hits.backend) == {"hybrid"}
