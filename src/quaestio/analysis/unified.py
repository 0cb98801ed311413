"""Unified coordination: two terms that name one concept ("deductible or excess").

An item names a concept when each of its content words lies in a dictionary match of that
concept, or among the names the concept's definition gives itself before its first colon
("Deductible or excess: the part of each claim..."). Analysts make two terms one concept by
adding a `concept_keywords` row, or by naming both in the definition.
"""

from __future__ import annotations

from ..satellites import Satellites
from .draft import Draft
from .language import stopwords_for
from .text import fold, tokenize


def shared_concept(draft: Draft, spans: list[tuple[int, int]]) -> str | None:
    """The concept that every item (a span of the question) names as a whole, or None."""
    found = {k["concept"] for k in draft.keywords if k.get("concept")
             and k["span_start"] is not None
             and any(s <= k["span_start"] < e for s, e in spans)}
    stop = stopwords_for(draft.sats, draft.language)
    for concept in sorted(found):
        if all(_names(draft, span, concept, stop) for span in spans):
            return concept
    return None


def _names(draft: Draft, span: tuple[int, int], concept: str, stop: frozenset[str]) -> bool:
    words = [(t, draft.folded(i)) for i, t in enumerate(draft.tokens)
             if span[0] <= t.start < span[1] and draft.folded(i) not in stop]
    matched = [(k["span_start"], k["span_end"]) for k in draft.keywords
               if k.get("concept") == concept and k["span_start"] is not None]
    names = draft.sats.cached("concept_names", _concept_names).get(concept, frozenset())
    return bool(words) and all(word in names or any(s <= t.start and t.end <= e
                                                    for s, e in matched)
                               for t, word in words)


def _concept_names(sats: Satellites) -> dict[str, frozenset[str]]:
    """Words of the names a definition gives its concept: the text before its first colon."""
    names = {}
    for concept, definition in sats.concepts.select("concept", "definition").iter_rows():
        head = (definition or "").split(":", 1)[0] if ":" in (definition or "") else ""
        names[concept] = frozenset(fold(t.text) for t in tokenize(head))
    return names


def boost(draft: Draft, spans: list[tuple[int, int]]) -> None:
    """Raise every keyword typed in the items to the weight of the strongest of them."""
    inside = [k for k in draft.keywords if k["span_start"] is not None
              and any(s <= k["span_start"] < e for s, e in spans)]
    top = max((k["weight"] for k in inside), default=None)
    for k in inside:
        k["weight"] = top
