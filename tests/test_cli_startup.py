"""What `quaestio parse` skips at start-up must not change what it prints: a fresh process
(lazy imports, word lists read from the cross-process cache) gives the library's row."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from quaestio import parse_question
from quaestio.analysis.wordlist import _build, language_vocabulary
from quaestio.satellites import bundled_satellites, facts

QUESTIONS = [
    "Whats the anual premuim in Germany?",
    "Claims since January 2023 in France, excluding dental?",
    "¿Cuál es la prima anual del seguro en España?",
]


def _cli(args: list[str], cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "QUAESTIO_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "quaestio", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _row(data: dict) -> dict:
    data["provenance"].pop("latency_ms")
    return data


def test_the_cli_row_is_the_library_row_cold_and_warm(tmp_path):
    sats = bundled_satellites()
    for question in QUESTIONS:
        expected = _row(parse_question(question, sats).model_dump(mode="json"))
        for _ in ("cold", "warm"):
            done = _cli(["parse", question, "--json"], tmp_path)
            assert done.returncode == 0, done.stderr
            assert _row(json.loads(done.stdout)) == expected
    assert list(tmp_path.glob("wordlist-*-en-*.marshal"))  # the warm runs read this


def test_one_question_imports_neither_pyarrow_nor_numpy(tmp_path):
    code = (
        "import sys; from quaestio.cli import main; sys.argv = ['quaestio', 'parse', "
        "'Whats the anual premuim?']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pyarrow', 'numpy', 'pandas') if m in sys.modules))"
    )
    env = {**os.environ, "QUAESTIO_CACHE": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("QUAESTIO_CACHE", str(tmp_path))
    language_vocabulary.cache_clear()
    yield tmp_path
    language_vocabulary.cache_clear()


def _as_dict(vocab) -> dict:
    return {w: vocab[w] for w in vocab}


def test_the_cached_word_list_is_the_built_one(cache):
    built = language_vocabulary("es")
    (kept,) = cache.glob("wordlist-*-es-*.marshal")
    language_vocabulary.cache_clear()
    read = language_vocabulary("es")
    assert _as_dict(read) == _as_dict(built) == _as_dict(_build("es"))
    assert "anual" in read and read["cafe"][1] == "café"
    assert kept.stat().st_size > 0


@pytest.mark.parametrize(
    "damage",
    [
        b"",  # truncated to nothing
        b"\x00" * 32 + b"{}",  # a digest that is not the body's
        # an earlier format's JSON under this name
        b'{"name": "wordlist", "words": ["b", "a"], "counts": [1, 2], "surfaces": {}}',
    ],
)
def test_a_damaged_word_list_is_rebuilt_not_trusted(cache, damage):
    good = _as_dict(language_vocabulary("es"))
    (kept,) = cache.glob("wordlist-*-es-*.marshal")
    whole = kept.read_bytes()
    for damaged in (damage, whole[: len(whole) // 2]):  # and cut short
        kept.write_bytes(damaged)
        language_vocabulary.cache_clear()
        assert _as_dict(language_vocabulary("es")) == good
        assert facts.read_sealed(kept)["name"] == kept.name  # rewritten


def test_unsorted_words_under_the_right_name_are_refused(cache):
    language_vocabulary("es")
    (kept,) = cache.glob("wordlist-*-es-*.marshal")
    data = facts.read_sealed(kept)
    data["words"].reverse()
    facts.write_sealed(kept, data)
    language_vocabulary.cache_clear()
    vocab = language_vocabulary("es")
    assert "anual" in vocab  # bisection over reversed words would have missed it


def test_no_cache_when_turned_off(cache, monkeypatch):
    monkeypatch.setenv("QUAESTIO_PATTERN_CACHE", "0")
    assert "anual" in language_vocabulary("es")
    assert not list(cache.glob("wordlist-*"))
