"""Anchors: high-signal literal tokens (article numbers, standards, regulations, years, ids)
found by the `anchors` rows. Where two anchors overlap, the longer wins, then the earlier row."""

from __future__ import annotations

from ..types import KeywordSource
from .draft import Draft
from .rules import anchor_rules, finditer, may_match


def anchor_keywords(draft: Draft) -> None:
    rules = anchor_rules(draft.sats)
    if not may_match(draft, rules, draft.original):
        return
    candidates = []
    for order, rule in enumerate(rules):
        for m in finditer(draft, rule, draft.original):
            candidates.append((-(m.end() - m.start()), order, m.start(), m.end(), rule))
    chosen = []
    for _, _, start, end, rule in sorted(candidates):
        if not draft.is_span_protected(start, end):
            draft.protect(start, end)
            chosen.append((start, end, rule))
    for start, end, rule in sorted(chosen, key=lambda c: c[0]):
        draft.add_keyword(draft.original[start:end], rule.weight, KeywordSource.ANCHOR,
                          span=(start, end), rule_id=f"anchors:{rule.rule_id}")
