"""Anchors: high-signal literal tokens (article numbers, standards, regulations, years, ids)
found by the `anchors` rows. Where two anchors overlap, the longer wins, then the earlier row."""

from __future__ import annotations

from ..types import KeywordSource
from .draft import Draft
from .rules import anchor_rules, candidates, finditer


def anchor_keywords(draft: Draft) -> None:
    found = []
    for order, rule in enumerate(candidates(draft, anchor_rules(draft.sats), draft.original)):
        for m in finditer(draft, rule, draft.original):
            found.append((-(m.end() - m.start()), order, m.start(), m.end(), rule))
    chosen = []
    for _, _, start, end, rule in sorted(found):
        if not draft.is_span_protected(start, end):
            draft.protect(start, end)
            chosen.append((start, end, rule))
    for start, end, rule in sorted(chosen, key=lambda c: c[0]):
        draft.add_keyword(
            draft.original[start:end],
            rule.weight,
            KeywordSource.ANCHOR,
            span=(start, end),
            rule_id=f"anchors:{rule.rule_id}",
        )
