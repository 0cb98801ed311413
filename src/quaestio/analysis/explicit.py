"""Explicit keywords: quoted terms and "search for X, Y, Z" lists, kept verbatim and never
expanded. Their spans are protected from spelling correction and dictionary matching."""

from __future__ import annotations

import regex

from ..satellites import Satellites
from ..types import KeywordSource
from .draft import Draft
from .rules import RuleSet, candidates, cue_rules, finditer, search, union_rules

_SEPARATOR = regex.compile(
    r"\s*[,;]\s*(?:(?:and|or|et|ou|y|o|e|u)\s+)?|\s+(?:and|or|et|ou|y|o|e|u)\s+"
)
_TRIM = " \t\"'“”«»„`.:"


def explicit_keywords(draft: Draft) -> None:
    rules = candidates(draft, _rows(draft.sats), draft.original)
    if not rules:
        return  # most questions: no quote mark, no "search for"
    found: list[tuple[int, int, str, str]] = []  # start, end, text, rule_id
    for rule in (r for r in rules if r.family == "explicit_quote"):
        for m in finditer(draft, rule, draft.original):
            if draft.is_span_protected(*m.span()):
                continue  # inside a quote another quote form already took
            start = m.start("term")
            text = m.group("term").strip()
            if text:
                start += len(m.group("term")) - len(m.group("term").lstrip())
                found.append((start, start + len(text), text, rule.rule_id))
                draft.protect(*m.span())
    ends = cue_rules(draft.sats, "explicit_list_end")
    for rule in (r for r in rules if r.family == "explicit_list"):
        for m in finditer(draft, rule, draft.original):
            stops = [
                e.start()
                for end_rule in ends
                if (e := search(draft, end_rule, draft.original, m.end()))
            ]
            stop = min(stops, default=len(draft.original))
            if draft.is_span_protected(m.end(), stop):
                continue  # the list is made of quoted terms, already taken
            found += _list_items(draft.original, m.end(), stop, rule)
    weight = draft.sats.defaults.weight_explicit
    taken = bytearray(len(draft.original))
    for start, end, text, rule_id in sorted(found):
        if 1 in taken[start:end]:
            continue
        taken[start:end] = b"\x01" * (end - start)
        draft.protect(start, end)
        draft.add_keyword(text, weight, KeywordSource.EXPLICIT, span=(start, end), rule_id=rule_id)


def _rows(sats: Satellites) -> RuleSet:
    """The quote rows, then the list rows, behind one gate: one lookup for both families."""
    return union_rules(
        sats, "explicit", lambda s: (cue_rules(s, "explicit_quote"), cue_rules(s, "explicit_list"))
    )


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
