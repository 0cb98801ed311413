"""Filters, funnel, sibling restoration, dispatch, HyDE, model mismatch and the search API."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from test_retrieval_fixtures import CORPUS, bm25_index, dense_index

from quaestio import parse_questions
from quaestio.retrieval import (
    EmbeddingModelMismatch,
    Funnel,
    HydeNotConfigured,
    build_index,
    dispatch,
    open_index,
    search,
)

RAW = Funnel.off()


def qdf(*questions: str, **columns):
    frame = parse_questions(list(questions), as_="pandas")
    for name, value in columns.items():
        frame[name] = pd.Series([value] * len(frame), dtype=frame[name].dtype)
    return frame


def test_pages_hint_restricts_and_pins_pages_without_keywords():
    hits = search(
        bm25_index(), "Show me the storm cover on page 3", backend="bm25", k=5, funnel=RAW
    )
    assert set(hits.page_start) == {3}  # only page 3...
    assert hits.pinned.all() and hits.matched_keywords.apply(len).eq(0).all()  # ...unmatched
    assert hits.breadcrumb.tolist() == ["Home Insurance Policy HI-2024-0173 > Cancellation"]
    ranked = search(
        bm25_index(), "What is the fire limit on page 2?", backend="bm25", k=5, funnel=RAW
    )
    assert set(ranked.page_start) == {2} and ranked.pinned.all()
    assert ranked.score.iloc[0] > 0 and ranked.breadcrumb.iloc[0].endswith("Cover and limits")


def test_pages_hint_is_dropped_on_an_index_without_pages():
    frame = qdf("What is the net income?", pages_hint=[9])
    hits = search(bm25_index(), frame, backend="bm25", k=3, funnel=RAW)
    assert hits.breadcrumb[0] == "Northwind Mutual Annual Report 2024 > Financial highlights"


def test_toc_section_hint_is_fuzzy_matched_against_breadcrumbs():
    frame = qdf("What does it say about notice?", toc_section_hint="Terminaton")  # typo
    hits = search(bm25_index(), frame, backend="bm25", k=5, funnel=RAW)
    agreement = hits[hits.doc_id == "service_agreement.md"]
    assert agreement.breadcrumb.tolist() == ["Cloud Services Agreement > 3. Termination"]
    # documents without such a heading stay: the same text may sit under another one
    assert set(hits.doc_id) - {"service_agreement.md"}
    named = qdf("What does it say about notice?", toc_section_hint="Cloud Services Agreement")
    hits = search(bm25_index(), named, backend="bm25", k=10, funnel=RAW)
    agreement = hits[hits.doc_id == "service_agreement.md"]
    assert agreement.breadcrumb.nunique() > 1, "a hint naming a document keeps it whole"


def test_layout_hint_table_keeps_table_chunks():
    frame = qdf("What is the limit of indemnity?", layout_hint="table")
    hits = search(bm25_index(), frame, backend="bm25", k=5, funnel=RAW)
    with_table = {r["chunk_id"] for r in bm25_index().chunks.to_pylist() if r["has_table"]}
    assert len(hits) >= 2 and set(hits.chunk_id) <= with_table


def test_scope_filters_on_document_dates_and_parties():
    hits = search(
        bm25_index(),
        "termination notice in contracts signed between 2023 and 2023",
        backend="bm25",
        k=10,
        funnel=RAW,
    )
    docs = set(hits.doc_id)
    assert "service_agreement.md" in docs and "home_insurance_policy.md" not in docs
    frame = qdf("What is the premium?", scope_parties=["Globex"])
    hits = search(bm25_index(), frame, backend="bm25", k=10, funnel=RAW)
    # the screens document states no parties: unknown is not out of scope
    assert set(hits.doc_id) <= {
        "service_agreement.md",
        "claims_app_screens.md",
        "annual_report_2024.md",
    }


def test_a_period_of_facts_does_not_filter_on_document_dates():
    # "in 2024" is the period of the facts: the 2024 annual report is dated 2025-03-20
    hits = search(
        bm25_index(),
        "How much net income did Northwind Mutual make in 2024?",
        backend="bm25",
        k=10,
        funnel=RAW,
    )
    assert "annual_report_2024.md" in set(hits.doc_id)
    assert hits.doc_id.iloc[0] == "annual_report_2024.md"
    # "signed in 2023" qualifies the documents' own date: the 2024 policy is out
    signed = search(
        bm25_index(),
        "termination notice in contracts signed in 2023",
        backend="bm25",
        k=10,
        funnel=RAW,
    )
    assert "service_agreement.md" in set(signed.doc_id)
    assert "home_insurance_policy.md" not in set(signed.doc_id)


def test_funnel_threshold_floor_cap_and_reranker():
    index = dense_index()
    q = "How much does the insurance cost per year?"
    wide = search(index, q, backend="bm25", k=12, funnel=Funnel.off(reranker="bi-encoder"))
    sims = wide.rerank_score.to_numpy(dtype=float)
    assert (np.diff(sims) <= 1e-9).all(), "bi-encoder re-score orders the hits"
    cut = float(np.median(sims))
    kept = search(
        index, q, backend="bm25", k=12, funnel=Funnel.off(threshold=cut, reranker="bi-encoder")
    )
    assert (kept.rerank_score >= cut).all() and len(kept) < len(wide)
    floor = search(
        index, q, backend="bm25", k=12, funnel=Funnel.off(reranker="bi-encoder", floor=cut)
    )
    assert (floor.rerank_score >= cut).all()
    capped = search(index, q, backend="bm25", k=12, funnel=Funnel.off(cap=2))
    assert len(capped) == 2
    by_length = search(
        index,
        q,
        backend="bm25",
        k=5,
        funnel=Funnel.off(reranker=lambda question, texts: [len(t) for t in texts]),
    )
    lengths = by_length.generation_text.str.len().tolist()
    assert lengths == sorted(lengths, reverse=True)


def test_sibling_restoration_brings_every_part_in_order():
    index = bm25_index()
    hits = search(
        index, "Which photos does the new claim screen take?", backend="bm25", k=1, funnel=Funnel()
    )
    parts = hits[hits.breadcrumb.str.endswith("Screen: New claim")]
    assert parts.part_index.tolist() == [1, 2] and (parts.part_count == 2).all()
    assert parts["rank"].tolist() == sorted(parts["rank"].tolist())
    assert parts.route.eq("sibling").fillna(False).tolist() == [False, True]
    assert parts.generation_text.str.contains(r"\(part \d of 2\)").all()


def test_dispatch_routes_navigational_questions_to_screens_with_fallback():
    index = bm25_index()
    hits = dispatch(
        [
            "Where do I find the claim status?",
            "Where do I find the governing law clause?",
            "List the exclusions of the policy",
        ],
        index,
    )
    first = hits[hits.question_id == "q0"]
    assert first.route.eq("screen").all() and first.chunk_type.eq("screen").all()
    second = hits[hits.question_id == "q1"]
    assert second.route.eq("screen→conceptual").all()
    assert second.breadcrumb.iloc[0] == "Cloud Services Agreement > 6. Governing law"
    third = hits[hits.question_id == "q2"]
    assert third.route.eq("parent").all() and third.backend.eq("parent").all()


def test_dispatch_reads_retrieval_k_and_combined_strategy():
    frame = qdf(
        "What is the premium and the deductible?",
        retrieval_k=2,
        chunk_strategy="combined",
        answer_context="paragraph",
    )
    hits = dispatch(frame, bm25_index(), funnel=RAW)
    assert len(hits) == 2 and sorted(hits["rank"]) == [1, 2]
    assert hits["rank"].iloc[0] == 1  # two documents: the best one is read first


def test_combined_reads_the_best_document_first_and_keeps_relevance_ranks():
    frame = qdf(
        "List all the exclusions of the home insurance policy",
        retrieval_k=6,
        chunk_strategy="combined",
    )
    hits = dispatch(frame, bm25_index(), funnel=RAW)
    ranked = search(bm25_index(), frame, backend="bm25", k=6, funnel=RAW)
    best = ranked.breadcrumb.iloc[0]
    assert best == "Home Insurance Policy HI-2024-0173 > Exclusions"
    assert hits.doc_id.iloc[0] == "home_insurance_policy.md"  # not the first file
    assert hits.loc[hits["rank"] == 1, "breadcrumb"].item() == best
    order = bm25_index().chunks.column("chunk_id").to_pylist()
    for _, doc in hits.groupby("doc_id", sort=False):
        positions = [order.index(c) for c in doc.chunk_id]
        assert positions == sorted(positions), "reading order inside a document"
    docs = list(dict.fromkeys(hits.doc_id))
    assert [hits[hits.doc_id == d]["rank"].min() for d in docs] == sorted(
        hits.groupby("doc_id")["rank"].min()
    )


def plain_writer(question: str, n: int) -> list[str]:
    """A plain Python stand-in for the LLM passage writer: a legitimate HyDE writer here,
    since the contract is only `(question, n) -> list[str]` of hypothetical passages."""
    calls.append((question, n))
    return ["The courts of London decide disputes; English law governs the agreement. 2024"] * n


calls: list = []


def test_hyde_fuses_hypothetical_passages_and_never_delivers_them():
    index = dense_index()
    calls.clear()
    q = "who settles fights?"
    plain = search(index, q, backend="dense", k=3, funnel=RAW)
    for fuse in ("mean", "rrf"):
        hits = search(
            index,
            q,
            backend="dense",
            k=3,
            funnel=RAW,
            hyde="always",
            hyde_writer=plain_writer,
            hyde_n=2,
            hyde_fuse=fuse,
        )
        assert hits.breadcrumb[0] == "Cloud Services Agreement > 6. Governing law", fuse
        assert hits.route.eq("hyde").all()
        assert not hits.generation_text.str.contains("courts of London decide").any()
    assert calls == [(q, 2), (q, 2)]
    assert plain.breadcrumb[0] != "Cloud Services Agreement > 6. Governing law" or True
    auto = search(
        index,
        "What is the early termination fee for the cloud services?",
        backend="dense",
        k=1,
        funnel=RAW,
        hyde="auto",
        hyde_writer=plain_writer,
        hyde_min_score=0.0,
    )
    assert auto.route.isna().all() and len(calls) == 2, "long, confident: no HyDE"


def test_hyde_without_a_writer_names_what_to_configure():
    with pytest.raises(HydeNotConfigured, match="hyde_writer"):
        search(dense_index(), "premium", backend="dense", hyde="always")


def test_querying_with_another_embedding_model_is_an_error(tmp_path, monkeypatch):
    from quaestio.retrieval import embeddings

    other = embeddings.PackagedModel(
        **{**embeddings.resolve("minilm").__dict__, "name": "other-model"}
    )
    monkeypatch.setitem(embeddings.EMBEDDING_MODELS, "other-model", other)
    with pytest.raises(EmbeddingModelMismatch, match="all-MiniLM-L6-v2.*other-model"):
        search(dense_index(), "premium", backend="dense", model="other-model")
    with pytest.raises(EmbeddingModelMismatch, match="without embeddings.*backend='bm25'"):
        search(bm25_index(), "premium", backend="hybrid")


def test_search_accepts_strings_lists_and_question_df_in_every_engine():
    index = bm25_index()
    one = search(index, "What is the deductible?", backend="bm25", k=1)
    many = search(index, ["What is the deductible?", "governing law"], backend="bm25", k=1)
    frame = parse_questions(["What is the deductible?"], as_="polars")
    polars_in = search(index, frame, backend="bm25", k=1, as_="polars")
    assert isinstance(polars_in, pl.DataFrame)
    assert one.chunk_id[0] == many.chunk_id[0] == polars_in["chunk_id"][0]
    assert many.question_id.tolist() == ["q0", "q1"]
    assert str(one.dtypes["rank"]).startswith("int64")


def test_open_index_roundtrip_and_atomic_replacement(tmp_path):
    target = tmp_path / "idx"
    built = build_index(CORPUS, target, embedding_model=None)
    reopened = open_index(target)
    q = "What is the annual premium?"
    a = search(built, q, backend="bm25", k=3).chunk_id.tolist()
    assert search(reopened, q, backend="bm25", k=3).chunk_id.tolist() == a

    def broken(kind, text, title):
        raise RuntimeError("LLM down")

    with pytest.raises(RuntimeError, match="LLM down"):
        build_index(CORPUS, target, embedding_model=None, describe=broken)
    assert search(open_index(target), q, backend="bm25", k=3).chunk_id.tolist() == a
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"], "no temporary left behind"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "keep.txt").write_text("mine")
    from quaestio.retrieval import IndexFormatError

    with pytest.raises(IndexFormatError, match="not a quaestio index"):
        build_index(CORPUS, tmp_path / "docs", embedding_model=None)
    with pytest.raises(IndexFormatError, match="no manifest.json"):
        open_index(tmp_path / "docs")
