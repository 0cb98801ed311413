"""Explicit keywords: quoted terms and "search for X, Y, Z" lists, kept verbatim and never
expanded. Their spans are protected from spelling correction and dictionary matching."""

from __future__ import annotations

import regex

from ..types import KeywordSource
from .draft import Draft
from .rules import cue_rules, finditer, may_match

_SEPARATOR = regex.compile(r"\s*[,;]\s*(?:(?:and|or|et|ou|y|o|e|u)\s+)?|\s+(?:and|or|et|ou|y|o|e|u)\s+")
_TRIM = " \t\"'“”«»„`.:"


def explicit_keywords(draft: Draft) -> None:
    weight = draft.sats.defaults.weight_explicit
    found: list[tuple[int, int, str, str]] = []  # start, end, text, rule_id
    quoted: list[tuple[int, int]] = []
    quotes = cue_rules(draft.sats, "explicit_quote")
    for rule in quotes if may_match(draft, quotes, draft.original) else ():
        for m in finditer(draft, rule, draft.original):
            if _overlaps(m.span(), quoted):
                continue
            start, end = m.span("term")
            text = m.group("term").strip()
            if text:
                lead = len(m.group("term")) - len(m.group("term").lstrip())
                found.append((start + lead, start + lead + len(text), text, rule.rule_id))
                quoted.append(m.span())
    ends = cue_rules(draft.sats, "explicit_list_end")
    lists = cue_rules(draft.sats, "explicit_list")
    for rule in lists if may_match(draft, lists, draft.original) else ():
        for m in finditer(draft, rule, draft.original):
            stop = min((e.start() for end_rule in ends
                        for e in finditer(draft, end_rule, draft.original, m.end())[:1]),
                       default=len(draft.original))
            if any(m.end() <= s < stop for s, _ in quoted):
                continue  # the list is made of quoted terms, already taken
            found += _list_items(draft.original, m.end(), stop, rule)
    found.sort()
    for start, end, text, rule_id in found:
        if _overlaps((start, end), draft.protected):
            continue
        draft.protected.append((start, end))
        draft.add_keyword(text, weight, KeywordSource.EXPLICIT, span=(start, end),
                          rule_id=rule_id)
    draft.protected += quoted


def _list_items(text: str, start: int, stop: int, rule) -> list[tuple[int, int, str, str]]:
    region = text[start:stop]
    items, pos, commas = [], 0, 0
    for sep in list(_SEPARATOR.finditer(region)) + [None]:
        end = sep.start() if sep else len(region)
        raw = region[pos:end]
        lead = len(raw) - len(raw.lstrip(_TRIM))
        item = raw.strip(_TRIM)
        if item:
            items.append((start + pos + lead, start + pos + lead + len(item), item, rule.rule_id))
        if sep:
            commas += "," in sep.group() or ";" in sep.group()
            pos = sep.end()
    if rule.target == "marker" or (commas >= 1 and len(items) >= 2):
        return items
    return []


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(s < span[1] and span[0] < e for s, e in spans)
