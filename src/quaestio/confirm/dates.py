"""Dates: a match of a `date` row → a `datetime.date` (or an ISO partial date), or None.

Groups `day`, `month`, `year` read a written date; `a`, `b`, `year` a numeric one, whose
order (month first in English, day first otherwise) falls back to the other when the first
does not exist. Month names are read through the `month` cue rows, the same rows that read
dates in questions; a day may be a figure, an ordinal or number words.
"""

from __future__ import annotations

import datetime as dt

import regex

from .numbers import parse_number
from .validators import Reject, date_exists

_ORDINALS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
    .split())} | {"primero": 1, "primer": 1, "primera": 1, "premier": 1, "première": 1,
                  "segundo": 2, "tercero": 3, "thirtieth": 30}


def _group(m: regex.Match, name: str) -> str | None:
    return m.group(name) if name in m.re.groupindex else None


def parse_date(m, text, span, language, pattern, sats):
    year = _group(m, "year")
    year_n = None if year is None else int(year) + (0 if len(year) == 4 else
                                                    (2000 if int(year) < 70 else 1900))
    if _group(m, "a") is not None:
        a, b = int(m.group("a")), int(m.group("b"))
        orders = [(a, b), (b, a)] if language == "en" or language is None else [(b, a), (a, b)]
        valid = [(mo, d) for mo, d in orders if date_exists(year_n, mo, d)]
        if not valid:
            if pattern.validator == "date_exists":
                raise Reject
            return None, span
        month, day = valid[0]
    elif _group(m, "month") is not None:
        raw = m.group("month")
        month = int(raw) if raw.isdigit() else month_number(sats, raw, language)
        day = _day(_group(m, "day"))
        if month is None or (_group(m, "day") is not None and day is None):
            return None, span
        if not date_exists(year_n, month, day):
            if pattern.validator == "date_exists":
                raise Reject
            return None, span
    else:
        return None, span
    if year_n is None:
        return (f"--{month:02d}-{day:02d}" if day else f"--{month:02d}"), span
    return (dt.date(year_n, month, day) if day else f"{year_n:04d}-{month:02d}"), span


def _day(raw: str | None) -> int | None:
    if raw is None:
        return None
    word = regex.sub(r"[\s-]+", " ", raw.strip().lower())
    if word.isdigit():
        return int(word)
    if word in _ORDINALS:
        return _ORDINALS[word]
    parts = word.split()
    if len(parts) == 2 and parts[0] in ("twenty", "thirty") and parts[1] in _ORDINALS:
        return (20 if parts[0] == "twenty" else 30) + _ORDINALS[parts[1]]
    number = parse_number(word)
    return int(number) if number is not None else None


def month_number(sats, text: str, language: str | None) -> int | None:
    """A month name or abbreviation → 1..12, read through the `month` cue rows."""
    from ..analysis.rules import cue_rules

    word = text.strip().rstrip(".").lower()
    rules = [r for r in cue_rules(sats, "month") if language in (None, r.language)] or \
        list(cue_rules(sats, "month"))
    for candidate in (word, word + "."):
        for rule in rules:
            if rule.pattern.fullmatch(candidate):
                return int(rule.target)
    for rule in cue_rules(sats, "month"):
        if rule.pattern.fullmatch(word) or rule.pattern.fullmatch(word + "."):
            return int(rule.target)
    return None
