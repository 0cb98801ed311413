"""Unified coordination: two terms that name one concept ("deductible or excess").

An item names a concept when each of its content words lies in a dictionary match of that
concept, or among the names the concept's definition gives itself before its first colon
("Deductible or excess: the part of each claim..."). Analysts make two terms one concept by
adding a `concept_keywords` row, or by naming both in the definition.

Two different things that one section holds together ("exclusions and limitations", "terms
and conditions", "representations and warranties") are unified too, by a `section_pairs`
row: each side is a concept the item names, or a term the item's words are (compared as
lemmas, so "limitations" is the term "limitation"); the row's section becomes the question's
`toc_section_hint` when nothing else named one.
"""

from __future__ import annotations

from collections.abc import Callable

from ..satellites import Satellites
from .draft import Draft
from .language import stopwords_for
from .morphology import lemma
from .text import fold, tokenize


def shared_concept(draft: Draft, spans: list[tuple[int, int]]) -> str | None:
    """The concept that every item (a span of the question) names as a whole, or None."""
    found = {
        k["concept"]
        for k in draft.keywords
        if k.get("concept")
        and k["span_start"] is not None
        and any(s <= k["span_start"] < e for s, e in spans)
    }
    stop = stopwords_for(draft.sats, draft.language)
    for concept in sorted(found):
        if all(_names(draft, span, concept, stop) for span in spans):
            return concept
    return None


def _names(draft: Draft, span: tuple[int, int], concept: str, stop: frozenset[str]) -> bool:
    words = [
        (t, word)
        for i, t in enumerate(draft.tokens)
        if span[0] <= t.start < span[1] and (word := draft.folded(i)) not in stop
    ]
    matched = [
        (k["span_start"], k["span_end"])
        for k in draft.keywords
        if k.get("concept") == concept and k["span_start"] is not None
    ]
    names = draft.sats.cached("concept_names", _concept_names).get(concept, frozenset())
    return bool(words) and all(
        word in names or any(s <= t.start and t.end <= e for s, e in matched) for t, word in words
    )


def _concept_names(sats: Satellites) -> dict[str, frozenset[str]]:
    """Words of the names a definition gives its concept: the text before its first colon."""
    names = {}
    for concept, definition in sats.concepts.select("concept", "definition").iter_rows():
        head = (definition or "").split(":", 1)[0] if ":" in (definition or "") else ""
        names[concept] = frozenset(fold(t.text) for t in tokenize(head))
    return names


def boost(draft: Draft, spans: list[tuple[int, int]]) -> None:
    """Raise every keyword typed in the items to the weight of the strongest of them."""
    inside = [
        k
        for k in draft.keywords
        if k["span_start"] is not None and any(s <= k["span_start"] < e for s, e in spans)
    ]
    top = max((k["weight"] for k in inside), default=None)
    for k in inside:
        k["weight"] = top


def section_pair(draft: Draft, spans: list[tuple[int, int]]) -> dict | None:
    """The `section_pairs` row whose two sides the items name (every item one side, both
    sides named), in the question's language or `*`; None when no row fits."""
    if len(spans) < 2:
        return None
    stop = stopwords_for(draft.sats, draft.language)
    words = [_lemmas(draft, span, stop) for span in spans]
    named: dict[tuple[tuple[int, int], str], bool] = {}  # (span, concept): the rows share sides

    def names(span: tuple[int, int], concept: str) -> bool:
        if (span, concept) not in named:
            named[span, concept] = _names(draft, span, concept, stop)
        return named[span, concept]

    for row in _pair_rows(draft.sats, draft.language) + _pair_rows(draft.sats, "*"):
        sides = set()
        for span, item in zip(spans, words):
            side = _side(span, item, row, names)
            if side is None:
                break
            sides.add(side)
        else:
            if {"a", "b"} <= sides:
                return row
    return None


def _side(
    span: tuple[int, int],
    item: tuple[str, ...],
    row: dict,
    names: Callable[[tuple[int, int], str], bool],
) -> str | None:
    for side in ("a", "b"):
        value = row[side]
        if value in row["concepts"]:
            if names(span, value):
                return side
        elif item and item == row[f"{side}_lemmas"]:
            return side
    return None


def _lemmas(draft: Draft, span: tuple[int, int], stop: frozenset[str]) -> tuple[str, ...]:
    return tuple(
        lemma(t.text, draft.language)
        for i, t in enumerate(draft.tokens)
        if span[0] <= t.start < span[1] and draft.folded(i) not in stop
    )


def _pair_rows(sats: Satellites, language: str | None) -> tuple[dict, ...]:
    """The `section_pairs` rows of one language with their sides' lemmas, built on the
    first question in it: an English batch never loads the French or Spanish lemma tables
    (~120 MB) for rows it cannot use."""
    return sats.cached(f"section_pairs_rows:{language}", lambda s: _rows_of(s, language))


def _rows_of(sats: Satellites, language: str | None) -> tuple[dict, ...]:
    concepts = frozenset(sats.concepts["concept"].to_list())
    stop = stopwords_for(sats, language)
    out = []
    for rec in sats.section_pairs.iter_rows(named=True):
        if rec["language"] != language:
            continue
        row = dict(rec, concepts=concepts)
        for side in ("a", "b"):
            row[f"{side}_lemmas"] = tuple(
                lemma(t.text, language) for t in tokenize(rec[side]) if t.folded not in stop
            )
        out.append(row)
    return tuple(out)
