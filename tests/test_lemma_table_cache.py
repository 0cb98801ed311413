"""simplemma's decoded tables are kept across processes (analysis/morphology.py): the lemmas
read through the cache are simplemma's own, and a damaged cache file is never trusted."""

from __future__ import annotations

import pytest

simplemma = pytest.importorskip("simplemma")

from quaestio.analysis import morphology  # noqa: E402
from quaestio.satellites import facts  # noqa: E402

WORDS = {
    "en": ["premiums", "deductibles", "governs", "stored", "handlers", "children", "went"],
    "fr": ["primes", "franchises", "assurés", "couvertes", "étaient", "chevaux"],
    "es": ["primas", "deducibles", "cubiertas", "asegurados", "fueron", "ciudades"],
}


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("QUAESTIO_CACHE", str(tmp_path))
    monkeypatch.delenv("QUAESTIO_PATTERN_CACHE", raising=False)
    morphology._lemmatizer.cache_clear()
    morphology.lemma.cache_clear()
    yield tmp_path
    morphology._lemmatizer.cache_clear()
    morphology.lemma.cache_clear()


def _lemmas(language: str) -> list[str]:
    lemmatizer = morphology._lemmatizer()
    return [lemmatizer.lemmatize(w, lang=language) for w in WORDS[language]]


@pytest.mark.parametrize("language", ["en", "fr", "es"])
def test_cached_tables_give_simplemmas_own_lemmas(fresh, language):
    expected = [simplemma.lemmatize(w, lang=language) for w in WORDS[language]]
    assert _lemmas(language) == expected  # decoded from the package, then written
    (written,) = fresh.glob(f"simplemma-*-{language}.marshal")
    morphology._lemmatizer.cache_clear()  # a second process: read from the cache file
    assert _lemmas(language) == expected
    assert written.stat().st_size > 1000


def test_a_damaged_cache_file_is_decoded_again_and_rewritten(fresh):
    expected = [simplemma.lemmatize(w, lang="en") for w in WORDS["en"]]
    _lemmas("en")
    (path,) = fresh.glob("simplemma-*-en.marshal")
    good = path.read_bytes()
    # A flipped byte in the body, a truncated file, and a valid digest over other data.
    import hashlib
    import marshal

    other = marshal.dumps({b"premiums": b"WRONG"})
    for damaged in (
        good[:100] + bytes([good[100] ^ 0xFF]) + good[101:],
        good[: len(good) // 2],
        b"",
        hashlib.sha256(b"x").digest() + b"x",
    ):
        path.write_bytes(damaged)
        morphology._lemmatizer.cache_clear()
        assert _lemmas("en") == expected
        assert path.read_bytes() == good  # rewritten whole
    # A well-formed file of the wrong shape (digest matches, values not bytes) is refused.
    body = marshal.dumps({b"premiums": 1})
    path.write_bytes(hashlib.sha256(body).digest() + body)
    morphology._lemmatizer.cache_clear()
    assert _lemmas("en") == expected
    path.write_bytes(hashlib.sha256(other).digest() + other)
    assert morphology._checked(facts.read_sealed(path)) == {
        b"premiums": b"WRONG"
    }  # the reader itself only checks integrity and shape; the name carries the version


def test_no_cache_folder_when_the_caches_are_off(fresh, monkeypatch):
    monkeypatch.setenv("QUAESTIO_PATTERN_CACHE", "0")
    expected = [simplemma.lemmatize(w, lang="fr") for w in WORDS["fr"]]
    assert _lemmas("fr") == expected
    assert not list(fresh.glob("simplemma-*"))
