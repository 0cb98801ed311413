"""Offline language detection from the `stopwords` rows: the language whose function words
the question uses most. Short questions with no evidence get the project default.

Function words are shared across languages ("car" and "on" are French function words and
English nouns, "me" is English and Spanish), so a close vote is settled by the question's
content words: each votes for the contender whose general word list (the spelling lists)
uses it `language_word_ratio` times more often. Only a contested question loads a second
language's word list; "Is Non Owner Car Insurance Cheaper?" is English by its nouns.
"""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter

from ..satellites import Satellites
from .draft import Draft
from .text import quoted_spans
from .wordlist import language_vocabulary

_FOLDED = attrgetter("folded")

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
    scores = _scores(draft, index)
    defaults = draft.sats.defaults
    if not scores or max(scores.values()) < defaults.language_min_evidence:
        draft.language = defaults.default_language
    elif len(scores) == 1:  # most questions: one language's function words, no contest
        (draft.language,) = scores
    else:
        draft.language = _vote(draft, index, scores)


def _scores(draft: Draft, index: dict[str, frozenset[str]]) -> dict[str, float]:
    """Language -> its evidence: a vote per function word, half a vote per hint letter."""
    scores: dict[str, float] = {}
    # one vote per function word for each language that has it (the other tokens, most of
    # them, are dropped in C)
    for langs in filter(None, map(index.get, map(_FOLDED, draft.tokens))):
        for lang in langs:
            scores[lang] = scores.get(lang, 0) + 1
    if draft.original.isascii():  # every hint letter is outside ASCII
        return scores
    lowered = draft.original.lower()
    for letter, lang in _LETTER_HINTS.items():
        if letter in lowered:
            scores[lang] = scores.get(lang, 0) + 0.5
    return scores


def _vote(draft: Draft, index: dict[str, frozenset[str]], scores: dict[str, float]) -> str:
    """The language of the best score, content words settling a close one; the default
    language among tied winners, else the first by name."""
    defaults = draft.sats.defaults
    best = max(scores.values())
    contenders = sorted(lang for lang, s in scores.items() if s >= best - 1)
    if len(contenders) > 1:
        _content_vote(draft, index, contenders, scores, defaults.language_word_ratio)
        best = max(scores.values())
    winners = sorted(lang for lang, s in scores.items() if s == best)
    return defaults.default_language if defaults.default_language in winners else winners[0]


def _content_vote(
    draft: Draft,
    index: dict[str, frozenset[str]],
    contenders: list[str],
    scores: dict[str, float],
    ratio: float,
) -> None:
    """Add one vote per content word to the contender whose word list uses it `ratio` times
    more often than any other contender's (relative frequencies, so list sizes cancel)."""
    listed = [lang for lang in contenders if _total(lang)]
    if len(listed) < 2:
        return
    words = [tok for tok in draft.tokens if tok.is_word and len(tok.folded) >= 3]
    if not words:  # the vote came from letters alone ("¿ à ?")
        return
    # In running text a capital inside the sentence marks a name ("Ludwig Mies van der
    # Rohe"), which says nothing of the question's language; in title case every word has
    # one, so there all words count.
    titled = all(tok.text[0].isupper() for tok in words)
    opening = draft.tokens[0].start
    # A quoted span is a mention ("a `` coup de poing '' to a French boxer"), often in
    # another language than the question around it.
    quoted = quoted_spans(draft.original)
    lists = {lang: (language_vocabulary(lang), _total(lang)) for lang in listed}
    for tok in words:
        word = tok.folded
        # Function words have voted already.
        if word in index or (not titled and tok.start > opening and tok.text[0].isupper()):
            continue
        if any(start <= tok.start < end for start, end in quoted):
            continue
        use = {lang: vocabulary.count(word) / total for lang, (vocabulary, total) in lists.items()}
        top = max(use, key=use.__getitem__)
        if use[top] > 0 and all(use[top] >= ratio * u for lang, u in use.items() if lang != top):
            scores[top] += 1


@lru_cache(maxsize=8)
def _total(language: str) -> int:
    """The summed word counts of a language's list (0 without one)."""
    return language_vocabulary(language).total()
