"""Dates: a match of a `date` row → a `datetime.date`, an ISO partial date, a `RelativeDate`,
or None.

Groups `day`, `month`, `year` read a written date; `a`, `b`, `year` a numeric one, whose
order (month first in English, day first otherwise) falls back to the other when the first
does not exist. Month names are read through the `month` cue rows, the same rows that read
dates in questions; a day may be a figure, an ordinal or number words. A day alone ("le 27")
is the ISO partial `---27`, a month and day `--03-15`. A date counted in days, weeks or months
from another ("le lendemain", "deux semaines plus tard", "hace tres días", "tomorrow") is a
`RelativeDate`; a weekday ("vendredi prochain") stays None. `resolve_date` turns partial and
relative dates into dates against a reference date (the document's date, or today).
"""

from __future__ import annotations

import calendar
import datetime as dt
from typing import Any, NamedTuple

import regex

from .numbers import parse_number
from .validators import Reject, date_exists

_ORDINALS = {
    w: i + 1
    for i, w in enumerate(
        (
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
            "twentieth"
        ).split()
    )
} | {
    "primero": 1,
    "primer": 1,
    "primera": 1,
    "premier": 1,
    "première": 1,
    "segundo": 2,
    "tercero": 3,
    "thirtieth": 30,
    "seconde": 2,
    "deuxieme": 2,
    "troisieme": 3,
    "quatrieme": 4,
    "cinquieme": 5,
}


def _group(m: regex.Match, name: str) -> str | None:
    return m.group(name) if name in m.re.groupindex else None


class RelativeDate(NamedTuple):
    """A date counted from a reference date: `months` then `days` added to it."""

    days: int = 0
    months: int = 0

    def __str__(self) -> str:
        """ISO 8601 duration with a sign: `+P14D`, `-P1M`, `P0D` (the reference day)."""
        if not self.days and not self.months:
            return "P0D"
        sign = "-" if (self.months or self.days) < 0 else "+"
        body = (f"{abs(self.months)}M" if self.months else "") + (
            f"{abs(self.days)}D" if self.days else ""
        )
        return f"{sign}P{body}"

    def resolve(self, reference: dt.date) -> dt.date:
        month_index = reference.year * 12 + reference.month - 1 + self.months
        year, month = divmod(month_index, 12)
        day = min(reference.day, calendar.monthrange(year, month + 1)[1])
        return dt.date(year, month + 1, day) + dt.timedelta(days=self.days)


# Words that name a day from the reference day, in the three languages (folded, no accents).
_DAY_WORDS = {
    "aujourd'hui": 0,
    "ce jour": 0,
    "jour meme": 0,
    "today": 0,
    "hoy": 0,
    "demain": 1,
    "lendemain": 1,
    "jour suivant": 1,
    "tomorrow": 1,
    "next day": 1,
    "manana": 1,
    "dia siguiente": 1,
    "proximo dia": 1,
    "hier": -1,
    "veille": -1,
    "jour precedent": -1,
    "yesterday": -1,
    "ayer": -1,
    "apres-demain": 2,
    "apres demain": 2,
    "surlendemain": 2,
    "day after tomorrow": 2,
    "pasado manana": 2,
    "despues de manana": 2,
    "avant-hier": -2,
    "avant hier": -2,
    "avant-veille": -2,
    "day before yesterday": -2,
    "anteayer": -2,
    "antier": -2,
    "antes de ayer": -2,
}
_UNIT_DAYS = (
    ("jour", 1, 0),
    ("day", 1, 0),
    ("dia", 1, 0),
    ("semaine", 7, 0),
    ("week", 7, 0),
    ("semana", 7, 0),
    ("fortnight", 14, 0),
    ("mois", 0, 1),
    ("month", 0, 1),
    ("mes", 0, 1),
    ("an", 0, 12),
    ("annee", 0, 12),
    ("year", 0, 12),
    ("ano", 0, 12),
)
_COUNTED = regex.compile(
    r"(?P<before>il\s+y\s+a|hace|dans|dentro\s+de|en|in)?\s*(?P<n>[\w-]+(?:\s+(?:et\s+|y\s+|and\s+)?"
    r"[\w-]+){0,3}?)\s+(?P<unit>jours?|days?|d[ií]as?|semaines?|weeks?|semanas?|fortnights?|mois|"
    r"months?|mes(?:es)?|ans?|ann[ée]es?|years?|a[ñn]os?)\b\s*(?P<after>plus\s+tard|plus\s+t[ôo]t|"
    r"apr[èe]s|auparavant|avant|later|after|earlier|before|ago|from\s+(?:now|today)|hence|"
    r"despu[ée]s|m[áa]s\s+tarde|antes)?",
    regex.IGNORECASE,
)
_FOLD = str.maketrans("áéíóúñèêàâûôç’", "aeiouneeaauoc'")
_BACKWARD = (
    "il y a",
    "hace",
    "plus tot",
    "auparavant",
    "avant",
    "earlier",
    "before",
    "ago",
    "antes",
)


def relative_offset(text: str, language: str | None = None) -> RelativeDate | None:
    """The offset a relative date names: "le lendemain" +1 day, "deux semaines plus tard"
    +14 days, "il y a trois mois" -3 months, "in two weeks" +14 days; None for a weekday
    or a wording that names no count."""
    folded = text.strip().lower().translate(_FOLD)
    folded = regex.sub(r"^(?:(?:le|la|el|al|the)\s+|l')", "", folded)
    for words in sorted(_DAY_WORDS, key=len, reverse=True):  # "apres-demain" before "demain"
        if folded == words or folded.endswith(" " + words) or folded == "le " + words:
            return RelativeDate(days=_DAY_WORDS[words])
    m = _COUNTED.search(text)
    if not m or not (m.group("before") or m.group("after")):
        return None
    raw = regex.sub(r"^(?:un|une|a|an|one|uno|una)$", "1", m.group("n").strip().lower())
    n = parse_number(raw, language)
    if n is None or n != int(n):
        return None
    unit = m.group("unit").lower().translate(_FOLD)
    days, months = next((d, mo) for prefix, d, mo in _UNIT_DAYS if unit.startswith(prefix))
    cue = " ".join(filter(None, (m.group("before"), m.group("after")))).lower().translate(_FOLD)
    sign = -1 if any(b in cue for b in _BACKWARD) else 1
    return RelativeDate(days=sign * int(n) * days, months=sign * int(n) * months)


def resolve_date(value: Any, reference: dt.date) -> Any:
    """A parsed date value made whole against `reference`: `---27` → the 27th of the
    reference's month, `--03-15` / `--03` → that day / month of the reference's year, a
    `RelativeDate` → counted from the reference; a `datetime.date`, None or a month that has no
    such day are returned as they are."""
    if isinstance(value, RelativeDate):
        try:
            return value.resolve(reference)
        except (ValueError, OverflowError):  # "999999 ans plus tard": past year 9999
            return value
    if not isinstance(value, str) or not value.startswith("--"):
        return value
    if value.startswith("---"):
        day_n = int(value[3:])
        if not date_exists(reference.year, reference.month, day_n):
            return value
        return dt.date(reference.year, reference.month, day_n)
    month, _, day = value[2:].partition("-")
    if not day:
        return f"{reference.year:04d}-{int(month):02d}"
    if not date_exists(reference.year, int(month), int(day)):
        return value
    return dt.date(reference.year, int(month), int(day))


def parse_date(m, text, span, language, pattern, sats):
    year = _group(m, "year")
    year_n = (
        None
        if year is None
        else int(year) + (0 if len(year) == 4 else (2000 if int(year) < 70 else 1900))
    )
    month: int | None
    day: int | None
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
    elif _group(m, "day") is not None:  # a day alone: le 27, du 1er
        day = _day(m.group("day"))
        if day is None or not 1 <= day <= 31:
            raise Reject
        return (None if _group(m, "rel") else f"---{day:02d}"), span
    else:
        return relative_offset(text, language), span
    if year_n is None:
        return (f"--{month:02d}-{day:02d}" if day else f"--{month:02d}"), span
    return (dt.date(year_n, month, day) if day else f"{year_n:04d}-{month:02d}"), span


def _day(raw: str | None) -> int | None:
    if raw is None:
        return None
    word = regex.sub(r"[\s-]+", " ", raw.strip().lower()).replace("è", "e")
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
    rules = [r for r in cue_rules(sats, "month") if language in (None, r.language)] or list(
        cue_rules(sats, "month")
    )
    for candidate in (word, word + "."):
        for rule in rules:
            if rule.pattern.fullmatch(candidate):
                return int(rule.target)
    for rule in cue_rules(sats, "month"):
        if rule.pattern.fullmatch(word) or rule.pattern.fullmatch(word + "."):
            return int(rule.target)
    return None


def resolve_values(values: list, reference: Any) -> list:
    """`Value`s with their partial and relative dates resolved against `reference` (a date or
    an ISO string); other values are returned unchanged."""
    import dataclasses

    if not isinstance(reference, dt.date):
        try:
            reference = dt.date.fromisoformat(str(reference))
        except ValueError as exc:
            raise ValueError(
                f"reference_date must be a date or YYYY-MM-DD, got {reference!r}"
            ) from exc
    elif isinstance(reference, dt.datetime):
        reference = reference.date()
    return [dataclasses.replace(v, value=resolve_date(v.value, reference)) for v in values]
