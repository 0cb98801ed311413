"""Lemmas of words, so that inflected forms meet their dictionary row: "premiums",
"deductibles", "primes", "governs", "stored" find "premium", "deductible", "prime",
"govern", "store".

simplemma (lemma tables for 50+ languages, pure Python) was measured against Snowball
(PyStemmer) on InsuranceQA (bench/morphology.py): a stem conflates far more ("insured" and
"insurance" both stem to "insur"), so lemmas are the default. The library loads a language's
table on first use by decoding its compressed file (0.2 s for English, 0.7 s for Spanish,
most of what a one-question `quaestio parse` spends on lemmas). The decoded table is kept for
the next process in `$QUAESTIO_CACHE` (the cache of `satellites.facts`: same folder, same off
switch, atomic writes) as a marshal dump behind its sha256, read in ~0.05 s; a file whose
digest does not match is decoded again and rewritten. `quaestio.prepare()` loads a table ahead
of the first question. Without simplemma installed, a word is its own lemma and only exact
forms match.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..satellites import facts
from .memo import WORDS
from .text import fold

# Shorter words are function words or codes whose "lemma" only adds noise ("is" -> "be").
MIN_LENGTH = 4
# The layout of a cached lemma table file (sha256 of the body, then a marshal dump).
_FORMAT = 1


@lru_cache(maxsize=1)
def _lemmatizer() -> Any:
    """simplemma's default lemmatizer (same strategies as `simplemma.lemmatize`), reading
    its tables through the cross-process cache; None without simplemma."""
    try:
        import simplemma
        from simplemma.strategies.default import DefaultStrategy
    except ImportError:  # optional: exact forms still match
        return None
    tables = _cached_tables_factory(simplemma)
    return simplemma.Lemmatizer(lemmatization_strategy=DefaultStrategy(dictionary_factory=tables))


def _cached_tables_factory(simplemma: Any) -> Any:
    from simplemma.strategies.dictionaries import dictionary_factory as shipped

    version = getattr(simplemma, "__version__", "unknown")

    class CachedTables(shipped.CachingDictionaryFactory):
        def _get_dictionary_uncached(self, lang: str) -> Any:
            return shipped.MappingStrToByteString(_table(shipped, version, lang))

    return CachedTables()


def _table(shipped: Any, version: str, lang: str) -> dict[bytes, bytes]:
    if lang not in shipped.SUPPORTED_LANGUAGES:  # the shipped loader's own check and error
        return shipped._load_dictionary_from_disk(lang)
    path = facts.cache_file(f"simplemma-v{_FORMAT}-{version}-{lang}.marshal")
    if path is not None:
        table = _checked(facts.read_sealed(path))
        if table is not None:
            return table
    table = shipped._load_dictionary_from_disk(lang)
    if path is not None:
        facts.write_sealed(path, table)
    return table


def _checked(table: Any) -> dict[bytes, bytes] | None:
    """A cached table, if it is a dict of bytes to bytes."""
    if not isinstance(table, dict):
        return None
    # the types of 180k keys and values, collected in C: a generator over the items cost a
    # tenth of a second, as much as reading the file
    kinds = {*map(type, table), *map(type, table.values())}
    return table if kinds <= {bytes} else None


@lru_cache(maxsize=WORDS)
def lemma(word: str, language: str | None) -> str:
    """The folded lemma of `word` in `language` (ISO 639-1); the folded word when the
    language has no lemma table, the word is short, or holds anything but letters."""
    folded = fold(word)
    if language is None or len(word) < MIN_LENGTH or not word.isalpha():
        return folded
    if _lemmatizer() is None or language not in _languages():
        return folded
    # The table is keyed by the written form (accents matter in French and Spanish), and a
    # lower-cased form avoids its proper-noun entries ("Premiums" -> "Premiums").
    return fold(_lemmatizer().lemmatize(word.lower(), lang=language))


@lru_cache(maxsize=1)
def _languages() -> frozenset[str]:
    if _lemmatizer() is None:
        return frozenset()
    from simplemma.strategies.dictionaries.dictionary_factory import SUPPORTED_LANGUAGES

    return frozenset(SUPPORTED_LANGUAGES)


def lemma_key(words: list[str], language: str | None) -> str:
    """The matching key of a phrase in lemmas: space-padded, as the dictionary automaton's."""
    return " " + " ".join(lemma(w, language) for w in words) + " "
