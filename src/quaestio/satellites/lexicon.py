"""Word lists that cue patterns name instead of spelling out: `<head_nouns:KIND>`.

A cue pattern such as "what ... <head_nouns:person>" reads the `head_nouns` rows of its own
language (and of `*`) and of that kind, so that an analyst who meets "What superstar ..."
adds the word as a row instead of editing a regex that is several kilobytes long. The
reference is replaced at load time by an alternation of the words, each escaped and with
its inner spaces matching any run of white space; the cue is then validated and compiled
like any other.

The alternation is written as a trie ("chair(?:m(?:an|en)|s)?..."): the `regex` engine tries
the branches of an alternation one after the other, so a flat list of 1,300 nouns costs
1,300 attempts at every position the head may start, a trie a few per letter (a third of
the time of a head-noun cue). It matches what the flat list, longest first, matches, and
prefers the same word: two words that match at one position are a prefix of one another,
and the trie tries the longer first, as the flat list ordered by length does.
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
            return trie_alternation(found)

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


def trie_alternation(words: list[str]) -> str:
    """A non-capturing group matching exactly `words` (a space in a word: any white space),
    factored by common prefixes, a longer continuation tried before a word that ends."""
    root: dict = {}
    for word in set(words):
        node = root
        for char in " ".join(word.split()):
            node = node.setdefault(char, {})
        node[_END] = {}
    return "(?:" + _branches(root) + ")"


_END = ""  # the key of "a word ends here" (no character is the empty string)


def _branches(node: dict) -> str:
    parts = [
        (r"\s+" if char == " " else regex.escape(char)) + _branches(child)
        for char, child in sorted(node.items())
        if char != _END
    ]
    if not parts:
        return ""
    body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    if _END in node:  # the word may end here: after every longer continuation
        return body + "?" if len(parts) == 1 and len(body) == 1 else f"(?:{body})?"
    return body
