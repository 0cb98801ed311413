"""Word lists that cue patterns name instead of spelling out: `<head_nouns:KIND>`.

A cue pattern such as "what ... <head_nouns:person>" reads the `head_nouns` rows of its own
language (and of `*`) and of that kind, so that an analyst who meets "What superstar ..."
adds the word as a row instead of editing a regex that is several kilobytes long. The
reference is replaced at load time by an alternation of the words, longest first (so that
"chairman" is tried before "chair"), each escaped and with its inner spaces matching any
run of white space; the cue is then validated and compiled like any other.
"""

from __future__ import annotations

import polars as pl
import regex

REFERENCE = regex.compile(r"<head_nouns:([a-z][a-z0-9_]*)>")


def expand_head_nouns(cues: pl.DataFrame, nouns: pl.DataFrame) -> tuple[pl.DataFrame, list]:
    """`cues` with every `<head_nouns:KIND>` replaced by its words; (frame, problems).

    A problem is (row index, kind, language) for a reference no row of `head_nouns` fills:
    the cue would match nothing there, which is never what its author meant.
    """
    if "pattern" not in cues.columns or not cues.height:
        return cues, []
    words = _words_by_kind(nouns)
    patterns, problems = [], []
    languages = cues["language"] if "language" in cues.columns else [None] * cues.height
    for i, (pattern, language) in enumerate(zip(cues["pattern"], languages)):
        if pattern is None or "<head_nouns:" not in pattern:
            patterns.append(pattern)
            continue
        language = language or "*"

        def alternation(m: regex.Match, language: str = language, i: int = i) -> str:
            kind = m.group(1)
            found = words.get((kind, language), []) + (
                words.get((kind, "*"), []) if language != "*" else []
            )
            if not found:
                problems.append((i, kind, language))
                return m.group(0)
            ordered = sorted(set(found), key=lambda w: (-len(w), w))
            return "(?:" + "|".join(_literal(w) for w in ordered) + ")"

        patterns.append(REFERENCE.sub(alternation, pattern))
    return cues.with_columns(pl.Series("pattern", patterns, dtype=pl.String)), problems


def _words_by_kind(nouns: pl.DataFrame) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    if not {"language", "kind", "noun"} <= set(nouns.columns):
        return out
    for language, kind, noun in nouns.select("language", "kind", "noun").iter_rows():
        if noun and kind:
            out.setdefault((kind, language or "*"), []).append(noun.strip().casefold())
    return out


def _literal(word: str) -> str:
    return r"\s+".join(regex.escape(part) for part in word.split())
