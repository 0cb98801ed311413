"""Lemmas of words, so that inflected forms meet their dictionary row: "premiums",
"deductibles", "primes", "governs", "stored" find "premium", "deductible", "prime",
"govern", "store".

simplemma (lemma tables for 50+ languages, pure Python) was measured against Snowball
(PyStemmer) on InsuranceQA (bench/morphology.py): a stem conflates far more ("insured" and
"insurance" both stem to "insur"), so lemmas are the default. The library loads a language's
table on first use (0.2-1 s), which `quaestio.prepare()` does ahead of the first question.
Without simplemma installed, a word is its own lemma and only exact forms match.
"""

from __future__ import annotations

from functools import lru_cache

from .text import fold

# Shorter words are function words or codes whose "lemma" only adds noise ("is" -> "be").
MIN_LENGTH = 4


@lru_cache(maxsize=1)
def _lemmatizer():
    try:
        import simplemma
    except ImportError:  # optional: exact forms still match
        return None
    return simplemma


@lru_cache(maxsize=262144)
def lemma(word: str, language: str | None) -> str:
    """The folded lemma of `word` in `language` (ISO 639-1); the folded word when the
    language has no lemma table, the word is short, or holds anything but letters."""
    folded = fold(word)
    if language is None or len(word) < MIN_LENGTH or not word.isalpha():
        return folded
    simplemma = _lemmatizer()
    if simplemma is None or language not in _languages():
        return folded
    # The table is keyed by the written form (accents matter in French and Spanish), and a
    # lower-cased form avoids its proper-noun entries ("Premiums" -> "Premiums").
    return fold(simplemma.lemmatize(word.lower(), lang=language))


@lru_cache(maxsize=1)
def _languages() -> frozenset[str]:
    simplemma = _lemmatizer()
    if simplemma is None:
        return frozenset()
    from simplemma.strategies.dictionaries.dictionary_factory import SUPPORTED_LANGUAGES

    return frozenset(SUPPORTED_LANGUAGES)


def lemma_key(words: list[str], language: str | None) -> str:
    """The matching key of a phrase in lemmas: space-padded, as the dictionary automaton's."""
    return " " + " ".join(lemma(w, language) for w in words) + " "
