"""Demotion of passages dominated by what the question sets aside (`excluded_terms`).

"What is the excess, not to be confused with the deductible?": a passage that speaks of the
deductible more often than of anything the question asks for moves below every passage that
does not; the order within each group is kept, and nothing is removed (a passage about both
may still hold the answer). Occurrences are counted case-insensitively, on word boundaries.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .base import Hit


@lru_cache(maxsize=256)
def _alternation(terms: tuple[str, ...]) -> re.Pattern | None:
    words = sorted({t.strip().lower() for t in terms if t and t.strip()}, key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)", re.I)


def demote_excluded(index, record: dict, hits: list[Hit]) -> list[Hit]:
    """`hits` with those dominated by the record's excluded terms moved last."""
    excluded = _alternation(tuple(record.get("excluded_terms") or ()))
    if excluded is None or not hits:
        return hits
    asked = _alternation(tuple(kw["text"] for kw in record.get("keywords") or []))
    texts = index.chunks.column("generation_text")
    kept, demoted = [], []
    for hit in hits:
        text = texts[hit.row].as_py() or ""
        against = len(excluded.findall(text))
        for_ = len(asked.findall(text)) if asked is not None else 0
        if against > for_:
            hit.extra["note"] = f"demoted: {against} excluded term(s), {for_} asked"
            demoted.append(hit)
        else:
            kept.append(hit)
    return kept + demoted
