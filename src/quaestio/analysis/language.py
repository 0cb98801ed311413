"""Offline language detection from the `stopwords` rows: the language whose function words
the question uses most. Short questions with no evidence get the project default."""

from __future__ import annotations

from collections import defaultdict

from ..satellites import Satellites
from .draft import Draft

# Letters that only some languages use break ties between close scores.
_LETTER_HINTS = {
    "ñ": "es",
    "¿": "es",
    "¡": "es",
    "ç": "fr",
    "œ": "fr",
    "ê": "fr",
    "è": "fr",
    "à": "fr",
    "ù": "fr",
    "ß": "de",
    "ä": "de",
    "ö": "de",
    "ü": "de",
}


def _stopword_index(sats: Satellites) -> dict[str, frozenset[str]]:
    """Word → languages, with words folded the way tokens are."""
    from .text import fold

    index: dict[str, set[str]] = {}
    for lang, word in sats.stopwords.select("language", "word").iter_rows():
        index.setdefault(fold(word), set()).add(lang)
    return {w: frozenset(langs) for w, langs in index.items()}


def stopwords_for(sats: Satellites, language: str | None) -> frozenset[str]:
    def build(s: Satellites) -> dict[str, frozenset[str]]:
        by_lang: dict[str, set[str]] = {}
        for word, langs in s.cached("stopword_index", _stopword_index).items():
            for lang in langs:
                by_lang.setdefault(lang, set()).add(word)
        return {k: frozenset(v) for k, v in by_lang.items()}

    return sats.cached("stopwords_by_language", build).get(language or "", frozenset())


def detect_language(draft: Draft) -> None:
    if draft.options.get("language"):
        draft.language = draft.options["language"]
        return
    index = draft.sats.cached("stopword_index", _stopword_index)
    scores: defaultdict[str, float] = defaultdict(float)
    for tok in draft.tokens:
        for lang in index.get(tok.folded, ()):
            scores[lang] += 1
    lowered = draft.original.lower()
    for letter, lang in _LETTER_HINTS.items():
        if letter in lowered:
            scores[lang] += 0.5
    defaults = draft.sats.defaults
    if not scores or max(scores.values()) < defaults.language_min_evidence:
        draft.language = defaults.default_language
        return
    best = max(scores.values())
    winners = sorted(lang for lang, s in scores.items() if s == best)
    draft.language = (
        defaults.default_language if defaults.default_language in winners else winners[0]
    )
