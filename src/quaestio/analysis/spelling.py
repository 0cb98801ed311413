"""Spelling correction before extraction, gated so that clean questions cost nothing.

A token is looked at only when it is unknown: not a dictionary token, not a stopword, not in
the language's general word list. Near misses of dictionary words are found with a
one-deletion index (SymSpell): the candidates of a word are the vocabulary words that share
one of its single-character deletions, which covers one insertion, deletion, substitution or
transposition, checked with an exact edit distance. Other unknown words are corrected against
the language word list that ships in the `pyspellchecker` package, when that is enabled.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from functools import lru_cache
from operator import attrgetter

from rapidfuzz.distance import OSA

from ..satellites import Satellites
from ..types import SpellingCorrection
from .dictionary import dictionary_index
from .draft import Draft
from .language import _stopword_index, stopwords_for
from .memo import WORDS
from .text import fold, quoted_spans, tokenize
from .wordlist import Vocabulary, language_vocabulary

__all__ = ["correct_spelling", "deletion_index", "language_vocabulary"]

_FOLDED = attrgetter("folded")

# Longer tokens are not words anyone misspells; their edit sets would cost quadratic time.
_LONGEST_WORD = 40


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _deletion_index(sats: Satellites, language: str | None) -> dict[str, tuple[str, ...]]:
    min_len = sats.defaults.fuzzy_min_length
    own = None if language is None else own_tokens(sats, language)
    index: dict[str, list[str]] = defaultdict(list)
    for word in dictionary_index(sats).fuzzy_tokens:
        if len(word) >= min_len and (own is None or word in own):
            for key in _deletes(word) | {word}:
                index[key].append(word)
    return {k: tuple(v) for k, v in index.items()}


def deletion_index(sats: Satellites, language: str | None = None) -> dict[str, tuple[str, ...]]:
    """Single-deletion variants of the dictionary's fuzzy words → those words, built once
    per language: only words of the question's language (`own_tokens`) can be a correction,
    so an English question never pays for the French and Spanish words; None: all words."""
    by_language = sats.cached("deletion_index", lambda s: {})
    if language not in by_language:
        by_language[language] = _deletion_index(sats, language)
    return by_language[language]


def own_tokens(sats: Satellites, language: str) -> frozenset[str]:
    """Folded words of the dictionary rows of `language` and of `*` rows, built once per
    language: the union holds every word of a large dictionary, so building it for each
    question would cost more than the rest of the parse."""
    by_language = sats.cached("own_tokens", lambda s: {})
    if language not in by_language:
        by_language[language] = _language_tokens(sats, language) | _language_tokens(sats, "*")
    return by_language[language]


def correct_spelling(draft: Draft) -> None:
    """Correct unknown words of the question towards its own language.

    Left alone: known words of the question's language, acronyms, protected spans, parts of
    hyphenated compounds ("multi-head"), words inside quotes, and words next to a technical
    term (a token of an `exact` or `cased` dictionary row). A word that only another
    language knows ("anual" in an English question) may still be corrected, but only to a
    dictionary word of the question's language, so a correction never changes language.
    """
    d = draft.sats.defaults
    if not d.fuzzy_enabled:
        return
    language = draft.language or d.default_language
    unknown = unknown_words(draft, language)
    if unknown:  # most questions: every word is known
        correct_words(draft, language, unknown)


def unknown_words(draft: Draft, language: str) -> set[str]:
    """The question's folds of a length to correct that neither the dictionary words of
    `language`, its stopwords nor its general word list hold: the only tokens
    `correct_words` may change (found with set operations, not token by token)."""
    d = draft.sats.defaults
    unknown = set(map(_FOLDED, draft.tokens)) - _known_words(draft.sats, language)
    unknown = {w for w in unknown if d.fuzzy_min_length <= len(w) <= _LONGEST_WORD}
    if unknown:  # (the word list loads here, for the first word it may know)
        unknown -= language_vocabulary(language).among(unknown)
    return unknown


def _known_words(sats: Satellites, language: str) -> frozenset[str]:
    by_language = sats.cached("known_words", lambda s: {})
    if language not in by_language:
        by_language[language] = own_tokens(sats, language) | stopwords_for(sats, language)
    return by_language[language]


def correct_words(draft: Draft, language: str, unknown: Collection[str]) -> None:
    """Correct the tokens of `draft` whose fold is in `unknown` (see `correct_spelling`)."""
    d = draft.sats.defaults
    index = dictionary_index(draft.sats)
    stop = draft.sats.cached("stopword_index", _stopword_index)
    own = own_tokens(draft.sats, language)
    own_stop = stopwords_for(draft.sats, language)
    deletes = None
    quoted: list[tuple[int, int]] | None = None
    shouting = not any(map(str.islower, draft.original))
    for i, tok in enumerate(draft.tokens):
        word = tok.folded
        if (
            word not in unknown
            or not d.fuzzy_min_length <= len(word) <= _LONGEST_WORD
            or not tok.is_word
            or word in own
            or word in own_stop
            or word in language_vocabulary(language)  # loaded for the first unknown word
            or draft.is_protected(tok)
            or (tok.text.isupper() and not shouting)
        ):
            continue  # known words (even ones the dictionary lacks) and acronyms stay as typed
        if _in_compound(draft.original, tok) or _near_technical_term(draft, index, i):
            continue
        if quoted is None:
            quoted = quoted_spans(draft.original)
        if any(s < tok.start and tok.end < e for s, e in quoted):
            continue
        elsewhere = word in index.token_counts or word in stop  # known in another language
        if deletes is None:
            deletes = deletion_index(draft.sats, language)
        name = _looks_like_a_name(draft, i)
        fix = _from_dictionary(word, deletes, index.token_counts, d.fuzzy_long_length, own)
        surface, vocabulary = (index.fuzzy_tokens[fix], "dictionary") if fix else (None, "")
        if surface is None and d.spelling_language_vocabulary and not elsewhere:
            surface, vocabulary = (
                _language_fix(word, language, d.fuzzy_long_length),
                "language",
            )
        # A capitalized word inside a sentence is most likely a name ("Acme" is not "acne"),
        # unless the word it is close to is itself a name ("Germanyy").
        if surface is None or (name and surface[:1].islower()):
            continue
        draft.corrections[i] = SpellingCorrection(
            original=tok.text,
            corrected=_same_case(tok.text, surface),
            span_start=tok.start,
            span_end=tok.end,
            distance=OSA.distance(word, fold(surface)),
            vocabulary=vocabulary,
        )


def _in_compound(text: str, tok) -> bool:
    """Part of a hyphenated compound ("multi-head", "co-pays"): not a word on its own."""
    before = text[tok.start - 2 : tok.start] if tok.start >= 2 else ""
    after = text[tok.end : tok.end + 2]
    return (len(before) == 2 and before[1] == "-" and before[0].isalnum()) or (
        len(after) == 2 and after[0] == "-" and after[1].isalnum()
    )


def _near_technical_term(draft: Draft, index, i: int) -> bool:
    technical = draft.sats.cached("technical_tokens", _technical_tokens)
    return any(
        0 <= j < len(draft.tokens) and draft.tokens[j].folded in technical for j in (i - 1, i + 1)
    )


def _technical_tokens(sats: Satellites) -> frozenset[str]:
    """Tokens of `exact` and `cased` rows with more than letters: codes and technical names
    ("ISO-9001", "GPT-4", "HbA1c"), whose neighbours are jargon, not typos."""
    return frozenset(
        fold(t)
        for e in dictionary_index(sats).entries
        if e.match in ("exact", "cased")
        for t in e.keyword.split()
        if not t.isalpha() and len(t) > 1
    )


def _language_tokens(sats: Satellites, language: str) -> frozenset[str]:
    by_language = sats.cached("language_tokens", lambda s: {})
    if language not in by_language:  # built for the languages questions come in
        words: set[str] = set()
        for e in dictionary_index(sats).entries:
            if e.language == language:
                words.update(fold(m) for m in e.keyword.split())
                words.update(t.folded for t in tokenize(e.keyword))
        by_language[language] = frozenset(words)
    return by_language[language]


def _same_case(typed: str, surface: str) -> str:
    if len(typed) > 1 and typed.isupper():
        return surface.upper()
    if typed[:1].isupper():
        return surface[:1].upper() + surface[1:]
    return surface


def _looks_like_a_name(draft: Draft, i: int) -> bool:
    tok = draft.tokens[i]
    if not tok.text[:1].isupper() or i == 0:
        return False
    before = draft.original[draft.tokens[i - 1].end : tok.start]
    return not any(p in before for p in ".?!:\n") and not tok.text.isupper()


def _from_dictionary(
    word: str, deletes: dict[str, tuple[str, ...]], counts, long_length: int, own: frozenset[str]
) -> str | None:
    bound = 2 if len(word) >= long_length else 1
    candidates = {c for key in _deletes(word) | {word} for c in deletes.get(key, ()) if c in own}
    scored = [(OSA.distance(word, c), -counts[c], c) for c in candidates]
    scored = [s for s in scored if s[0] <= bound]
    return min(scored)[2] if scored else None


@lru_cache(maxsize=WORDS)
def _language_fix(word: str, language: str, long_length: int) -> str | None:
    # The same unknown words (names, rare terms) come back question after question, and
    # each costs its ~500 one-edit variants: the answer is kept.
    return _from_language(word, language_vocabulary(language), long_length)


def _from_language(word: str, vocab: Vocabulary, long_length: int) -> str | None:
    if len(word) < 5:
        return None  # short unknown words are more often codes or names than typos
    candidates = sorted((vocab[c] for c in vocab.among(_edits1(word))), reverse=True)
    if not candidates:
        return None
    # A long unknown word is as likely a term the word list lacks as a typo: correct it
    # only when one candidate clearly dominates the others.
    if (
        len(word) >= long_length
        and len(candidates) > 1
        and candidates[0][0] < 3 * candidates[1][0]
    ):
        return None
    return candidates[0][1]


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _edits1(word: str) -> set[str]:
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return (
        {a + b[1:] for a, b in splits if b}
        | {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
        | {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
        | {a + c + b for a, b in splits for c in _LETTERS}
    )
