"""Candidate noun phrases from a corpus, by rules: no tagger, no model, one pass.

A phrase is a run of 2 to `max_tokens` word tokens inside one sentence, with no stopword of
the document's language at either end, no digits, no punctuation between its words (a hyphen
or an apostrophe may join them), no English past participle or adverb at its end, and at most
the language's connector words inside
("limit of indemnity", "taux d'intérêt", "tipo de interés"). Each distinct phrase is counted
per language, with the number of documents it occurs in and a few example sentences.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import polars as pl
import regex

from ..analysis.text import TOKEN_RE, fold
from ..retrieval.base import Progress
from ..satellites import Satellites
from .corpus import read_corpus

# Words that may join the nouns of a term but never start or end one. Kept small on purpose:
# each one multiplies the phrases a long sentence yields.
CONNECTORS: dict[str, frozenset[str]] = {
    "en": frozenset({"of"}),
    "fr": frozenset({"de", "d", "du", "des"}),
    "es": frozenset({"de", "del"}),
    "de": frozenset(),
}
# A term does not end in a past participle or an adverb ("gross profit increased", "revenue
# primarily"): a tagger would say so; without one, English suffixes catch most of them.
TRAILING: dict[str, regex.Pattern] = {
    "en": regex.compile(
        r"^(?!(?:supply|family|assembly|anomaly|monopoly|july|italy|need|"
        r"speed|seed|feed|breed|weed|steed|greed|creed)$)\w{3,}(?:ed|ly)$"
    ),
}
_SENTENCE = regex.compile(r"(?<=[.!?;:])\s+|\s*\n\s*")
_JOINER = regex.compile(r"\s*|\s*[-‐‑–']\s*|’")

PHRASE_SCHEMA: dict[str, Any] = {  # polars data types
    "phrase": pl.String,
    "key": pl.String,
    "language": pl.String,
    "count": pl.Int64,
    "docs": pl.Int64,
    "examples": pl.List(pl.String),
}


def extract_phrases(
    corpus: Any,
    sats: Satellites,
    *,
    min_count: int = 2,
    max_tokens: int = 4,
    examples: int = 2,
    max_phrases: int | None = None,
    progress: Progress | None = None,
    **read_options: Any,
) -> pl.DataFrame:
    """Distinct multi-word phrases of a corpus, per language, most frequent first.

    Args:
        corpus: Anything `read_corpus` accepts (folder, file, DataFrame with `text`).
        sats: Satellites whose `stopwords` rows bound the phrases, per language.
        min_count: Keep phrases seen at least this many times.
        max_tokens: Longest phrase, in words (connectors included).
        examples: Example sentences kept per phrase.
        max_phrases: Keep only the most frequent phrases.
        progress: Called as `progress("phrases", documents done, documents)`.

    Returns:
        A polars DataFrame: phrase (the most frequent surface form), key (folded),
        language, count, docs, examples.
    """
    docs = read_corpus(corpus, sats, **read_options)
    stops: dict[str, frozenset[str]] = {}
    counts: Counter[tuple[str, str]] = Counter()
    surfaces: dict[tuple[str, str], Counter[str]] = {}
    doc_count: Counter[tuple[str, str]] = Counter()
    last_doc: dict[tuple[str, str], str] = {}
    shown: dict[tuple[str, str], list[str]] = {}
    for done, (doc_id, lang, text) in enumerate(docs.iter_rows()):
        if progress is not None:
            progress("phrases", done, docs.height)
        if lang not in stops:
            stops[lang] = frozenset(
                fold(w) for w in sats.stopwords.filter(language=lang)["word"].to_list()
            )
        stop, joiners = stops[lang], CONNECTORS.get(lang, frozenset())
        trailing = TRAILING.get(lang)
        for sentence in _SENTENCE.split(text):
            for surface, key in _phrases(sentence, stop, joiners, max_tokens):
                if trailing is not None and trailing.match(key.rpartition(" ")[2]):
                    continue
                k = (lang, key)
                counts[k] += 1
                surfaces.setdefault(k, Counter())[surface] += 1
                if last_doc.get(k) != doc_id:
                    last_doc[k] = doc_id
                    doc_count[k] += 1
                seen = shown.setdefault(k, [])
                if len(seen) < examples and sentence.strip()[:240] not in seen:
                    seen.append(sentence.strip()[:240])
    if progress is not None:
        progress("phrases", docs.height, docs.height)
    kept = [k for k, n in counts.most_common(max_phrases) if n >= min_count]
    return pl.DataFrame(
        {
            "phrase": [surfaces[k].most_common(1)[0][0] for k in kept],
            "key": [k[1] for k in kept],
            "language": [k[0] for k in kept],
            "count": [counts[k] for k in kept],
            "docs": [doc_count[k] for k in kept],
            "examples": [shown[k] for k in kept],
        },
        schema=PHRASE_SCHEMA,
    )


def _phrases(sentence: str, stop: frozenset[str], joiners: frozenset[str], max_tokens: int):
    run: list[tuple[str, int, int, bool]] = []  # folded, start, end, is_connector
    prev_end = None
    for m in TOKEN_RE.finditer(sentence):
        word, folded = m.group(), fold(m.group())
        gap_ok = prev_end is None or _JOINER.fullmatch(sentence, prev_end, m.start())
        connector = folded in joiners
        content = not connector and folded not in stop and word.isalpha() and len(word) > 1
        if not gap_ok or not (content or connector):
            yield from _spans(sentence, run, max_tokens)
            run = []
        if content or (connector and run):
            run.append((folded, m.start(), m.end(), connector))
        prev_end = m.end()
    yield from _spans(sentence, run, max_tokens)


def _spans(sentence: str, run: list, max_tokens: int):
    n = len(run)
    for i in range(n):
        if run[i][3]:
            continue
        for j in range(i + 1, min(n, i + max_tokens)):
            if run[j][3]:
                continue
            if j > i + 1 and sum(1 for t in run[i + 1 : j] if t[3]) > 1:
                break
            yield (sentence[run[i][1] : run[j][2]], " ".join(t[0] for t in run[i : j + 1]))
