"""Discovery's embedding cache: one store per model that a second run reuses, that stays a
few files however many runs append to it, and that never trusts a damaged file."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

from quaestio.curation import cache as store_module
from quaestio.curation.cache import EmbeddingStore, cache_folder, embed_phrases


class CountingEmbedder:
    """Deterministic vectors from the text (no model), counting what it was asked."""

    def __init__(self, dim: int = 8):
        self.dim = dim
        self.encoded: list[str] = []

    def encode_passages(self, texts, batch_size=64):
        self.encoded += list(texts)
        out = []
        for text in texts:
            seed = int.from_bytes(
                hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:4], "little"
            )
            out.append(np.random.default_rng(seed).normal(size=self.dim))
        return np.asarray(out, dtype=np.float32)


def _embed(phrases, tmp_path, embedder, **kw):
    return embed_phrases(phrases, model="fake-model", cache_dir=tmp_path, embedder=embedder, **kw)


def _segments(tmp_path):
    return sorted(cache_folder(tmp_path, "fake-model").glob("*.qemb"))


def test_a_second_run_reuses_the_vectors_of_the_first(tmp_path):
    first = CountingEmbedder()
    v1, n1 = _embed(["water damage", "flood damage", "premium"], tmp_path, first)
    second = CountingEmbedder()
    v2, n2 = _embed(["premium", "water damage", "new phrase"], tmp_path, second)
    assert (n1, n2) == (3, 1) and second.encoded == ["new phrase"]
    np.testing.assert_array_equal(v2[0], v1[2])  # same float16 value, read back
    np.testing.assert_array_equal(v2[1], v1[0])
    third = CountingEmbedder()
    _, n3 = _embed(["new phrase", "flood damage"], tmp_path, third)
    assert n3 == 0 and third.encoded == []


def test_phrases_with_newlines_and_surrogates_are_cached_too(tmp_path):
    odd = ["two\nlines", "tab\there", "half \udcff surrogate"]
    _embed(odd, tmp_path, CountingEmbedder())
    again = CountingEmbedder()
    assert _embed(odd, tmp_path, again)[1] == 0


def test_many_runs_are_compacted_into_few_segments(tmp_path):
    embedder = CountingEmbedder()
    for run in range(store_module.MAX_SEGMENTS * 2 + 3):
        _embed([f"phrase {run}", "shared"], tmp_path, embedder)
        assert len(_segments(tmp_path)) <= store_module.MAX_SEGMENTS
    later = CountingEmbedder()
    phrases = [f"phrase {run}" for run in range(store_module.MAX_SEGMENTS * 2 + 3)]
    vectors, encoded = _embed(phrases + ["shared"], tmp_path, later)
    assert encoded == 0 and vectors.shape == (len(phrases) + 1, 8)
    folder = cache_folder(tmp_path, "fake-model")
    assert not list(folder.glob("*.tmp"))  # no leftovers of the atomic writes


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:-3] + bytes(3),  # last vector bytes zeroed: digest mismatch
        lambda data: b"garbage" + data,  # not a segment at all
        lambda data: data.replace(b'"fake-model"', b'"other-model"', 1),  # another model
    ],
)
def test_a_damaged_segment_is_reported_set_aside_and_rebuilt(tmp_path, damage):
    expected, _ = _embed(["alpha", "beta"], tmp_path, CountingEmbedder())
    (segment,) = _segments(tmp_path)
    segment.write_bytes(damage(segment.read_bytes()))
    again = CountingEmbedder()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vectors, encoded = _embed(["alpha", "beta"], tmp_path, again)
    assert encoded == 2 and sorted(again.encoded) == ["alpha", "beta"]
    np.testing.assert_array_equal(vectors, expected)
    assert any("damaged embedding cache segment" in str(w.message) for w in caught)
    aside = segment.with_name(segment.name + ".damaged")
    assert aside.exists()  # kept, not deleted: the store could not tell it was its own
    assert len(_segments(tmp_path)) == 1  # the rebuilt one
    assert _embed(["alpha", "beta"], tmp_path, CountingEmbedder())[1] == 0


def test_files_the_store_did_not_write_are_left_alone(tmp_path):
    folder = cache_folder(tmp_path, "fake-model")
    folder.mkdir(parents=True)
    old_chunk = folder / "00000-123.npy"  # the earlier one-chunk-per-run format
    old_chunk.write_bytes(b"\x93NUMPY old")
    notes = folder / "README.txt"
    notes.write_text("mine")
    embedder = CountingEmbedder()
    for run in range(store_module.MAX_SEGMENTS + 2):
        _embed([f"p{run}"], tmp_path, embedder)
    assert old_chunk.read_bytes() == b"\x93NUMPY old" and notes.read_text() == "mine"


def test_only_the_phrases_asked_for_are_returned(tmp_path):
    _embed(["a b", "c d", "e f"], tmp_path, CountingEmbedder())
    store = EmbeddingStore(cache_folder(tmp_path, "fake-model"), "fake-model")
    from quaestio.curation.cache import phrase_key

    got = store.read({phrase_key("c d")})
    assert list(got) == [phrase_key("c d")] and got[phrase_key("c d")].shape == (8,)


def test_progress_reports_the_encoding(tmp_path):
    calls = []
    _embed(
        [f"w{i}" for i in range(10)],
        tmp_path,
        CountingEmbedder(),
        batch_size=1,
        progress=lambda *a: calls.append(a),
    )
    assert calls[0] == ("embedding", 0, 10) and calls[-1] == ("embedding", 10, 10)
    assert [c[1] for c in calls] == sorted(c[1] for c in calls)
