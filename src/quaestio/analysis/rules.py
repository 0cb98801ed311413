"""Compiled rule rows (cues, anchors) and time-limited matching of analyst-written regexes."""

from __future__ import annotations

from dataclasses import dataclass

import regex

from ..errors import WarningCode
from ..satellites import Satellites
from ..satellites.schemas import SPECS, compile_pattern, pattern_flags
from .draft import Draft


@dataclass(frozen=True)
class Rule:
    rule_id: str
    family: str
    target: str | None
    language: str
    pattern: regex.Pattern
    weight: float


def _compile(sats: Satellites, table: str, id_col: str) -> list[Rule]:
    spec = SPECS[table]
    col = next(c for c in spec.columns if c.name == "pattern")
    rules = []
    for rec in sats.tables[table].iter_rows(named=True):
        rules.append(Rule(rec[id_col], rec.get("family") or table, rec.get("target"),
                          rec.get("language") or "*",
                          compile_pattern(rec["pattern"], pattern_flags(spec, col, rec)),
                          rec["weight"]))
    return rules


def cue_rules(sats: Satellites, family: str) -> list[Rule]:
    rules = sats.cached("cue_rules", lambda s: _compile(s, "cues", "cue_id"))
    return [r for r in rules if r.family == family]


def anchor_rules(sats: Satellites) -> list[Rule]:
    return sats.cached("anchor_rules", lambda s: _compile(s, "anchors", "anchor_id"))


def finditer(draft: Draft, rule: Rule, text: str, pos: int = 0) -> list[regex.Match]:
    """All matches of an analyst's regex, or none (and a W101 warning) when it runs too long."""
    timeout = draft.sats.defaults.regex_timeout_ms / 1000
    try:
        return list(rule.pattern.finditer(text, pos, timeout=timeout))
    except TimeoutError:
        draft.warnings.append(f"{WarningCode.W101_REGEX_TIMEOUT}: rule {rule.rule_id!r} "
                              f"exceeded {draft.sats.defaults.regex_timeout_ms} ms; skipped")
        return []
