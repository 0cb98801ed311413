"""Date ranges named in a question, read with three families of `cues` rows (`cues.scope.csv`).

1. `month` rows name the months (target 1..12, one row per language and month). Abbreviations
   need a dot or a number after them, so the French "sept jours" is not September.
2. `date` rows recognize one date expression each. `<month>` in their pattern stands for every
   month row. Groups `year`, `month` (digits or a name), `day`, `quarter`, `half` and `n` give
   the fields; the target says what the expression is:
   `date` (a date that stands on its own: "31 March 2023", "Q2 2023", "FY2018"), `when` (a plain
   year or a month alone, a scope only inside a range phrase: "in 2021", not "2000 euros"),
   `q1`..`q4` and `h1`, `h2` (quarters and halves named by words), `<unit><±n>` (a calendar
   period relative to today: `year-1` is last year) and `past_<unit>s` (the `n` units up to today).
3. `date_range` rows read the question with each date replaced by `<date>` or `<when>`; their
   groups say what each date bounds: `from`, `to`, `in` (both), `after`, `before`.

Decisions: today is `draft.options["today"]` (a date or ISO string), else the system date. A
day or month without a year takes the year of another date of the same phrase ("from March to
June 2024"; the year before when it would otherwise come after it), else today's year. A two-digit
year is 20yy. Fiscal years and quarters are read as calendar ones. Several phrases combine into
the smallest range that holds them all; a phrase left open on one side leaves the result open.
A date that does not exist ("31 February") is dropped with the bound it would have set.
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass, field

import regex

from ..satellites import Satellites
from ..satellites.facts import LazyPattern
from .draft import Draft
from .gate import LiteralGate
from .hints import pick_matches
from .rules import Rule, RuleSet, cue_rules, make_ruleset

_PLACEHOLDER = regex.compile(r"(?<!\(\?P)<month>")  # not the name of a group (?P<month>...)
_FIELDS = ("year", "month", "day", "quarter", "half", "n")
_UNIT_MONTHS = {"month": 1, "quarter": 3, "year": 12}
_FIXED = {**{f"q{n}": "quarter" for n in range(1, 5)}, "h1": "half", "h2": "half"}


@dataclass(frozen=True)
class DateMention:
    start: int
    end: int
    kind: str
    fields: dict[str, int]
    rule_id: str


@dataclass
class DateScope:
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    rule_ids: list[str] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)  # every date mention read


def today_of(draft: Draft) -> dt.date:
    """The date relative expressions count from: draft.options["today"], else the system's."""
    value = draft.options.get("today")
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value)) if value else dt.date.today()
    except ValueError:
        return dt.date.today()


def date_scope(draft: Draft, text: str | None = None) -> DateScope:
    """The date range a question names, with the ids of the rows that read it."""
    text = draft.original if text is None else text
    date_rules, months = draft.sats.cached("scope_date_rules", _date_rules)
    mentions = pick_matches(
        draft, date_rules, text, lambda rule, m: _mention(rule, m, text, months)
    )
    scope = DateScope(spans=[(d.start, d.end) for d in mentions])
    if not mentions:
        return scope
    masked, at = _mask(text, mentions)
    today = today_of(draft)
    phrases = pick_matches(
        draft,
        draft.sats.cached("date_range_rules", _range_rules),
        masked,
        lambda rule, m: _phrase_bounds(rule, m, at, today),
    )
    phrases = [p for p in phrases if p[0] is not None or p[1] is not None]
    if phrases:
        lows, highs = [p[0] for p in phrases], [p[1] for p in phrases]
        scope.date_from = None if None in lows else min(lows)
        scope.date_to = None if None in highs else max(highs)
        scope.rule_ids = [rule_id for p in phrases for rule_id in p[2]]
    return scope


def scope_date_rules(sats: Satellites) -> RuleSet:
    """The `date` rows as one rule set (`<month>` expanded), built once per satellites."""
    return sats.cached("scope_date_rules", _date_rules)[0]


def _date_rules(sats: Satellites) -> tuple[RuleSet, list[Rule]]:
    """`date` rows with `<month>` expanded into the month rows, and the month rows themselves."""
    months = list(cue_rules(sats, "month"))
    alternation = (
        "(?:" + "|".join(f"(?:{r.pattern.pattern})" for r in months) + ")" if months else "(?!)"
    )
    rules = [
        Rule(
            r.rule_id,
            r.family,
            r.target,
            r.language,
            LazyPattern(  # compiled when the literal gate lets it run: most never do
                _PLACEHOLDER.sub(lambda _: alternation, r.pattern.pattern), regex.IGNORECASE
            ),
            r.weight,
        )
        for r in cue_rules(sats, "date")
    ]
    return make_ruleset(rules), months


def _range_rules(sats: Satellites) -> RuleSet:
    """The `date_range` rows behind a gate with an automaton of their own literals: they
    read the masked question, a text no other gate asks about, which the shared automaton
    (every row's literals) would scan at several times the cost."""
    every = cue_rules(sats, "date_range")
    return RuleSet(every.rules, LiteralGate(list(every.rules), own=True), every.free)


def _mention(rule: Rule, m: regex.Match, text: str, months: list[Rule]) -> DateMention | None:
    values: dict[str, int] = {}
    for name in _FIELDS:
        if name not in m.re.groupindex or m.group(name) is None:
            continue
        raw = m.group(name).strip("'’. ")
        if name == "month" and not raw.isdigit():
            number = _month_number(months, text, *m.span(name))
            if number is None:
                return None
            values[name] = number
        elif raw.isdigit():
            values[name] = int(raw) if name != "year" or len(raw) == 4 else 2000 + int(raw)
    if not 1 <= values.get("month", 1) <= 12:
        return None
    if "day" in values:
        year = values.get("year", 2000)  # a leap year: "29 February" alone may still exist
        if not 1 <= values["day"] <= calendar.monthrange(year, values.get("month", 1))[1]:
            return None
    return DateMention(m.start(), m.end(), rule.target or "date", values, rule.rule_id)


def _month_number(months: list[Rule], text: str, start: int, end: int) -> int | None:
    for rule in months:
        found = rule.pattern.match(text, start)
        if found and found.end() == end:
            return int(rule.required_target())
    return None


def _mask(text: str, mentions: list[DateMention]) -> tuple[str, dict[int, DateMention]]:
    """The text with each date replaced by its placeholder, and the placeholders' positions."""
    parts, at, last, length = [], {}, 0, 0
    for mention in mentions:
        gap = text[last : mention.start]
        holder = "<when>" if mention.kind == "when" else "<date>"
        at[length + len(gap)] = mention
        parts += [gap, holder]
        length += len(gap) + len(holder)
        last = mention.end
    parts.append(text[last:])
    return "".join(parts), at


def _phrase_bounds(rule: Rule, m: regex.Match, at: dict[int, DateMention], today: dt.date):
    """(from, to, rule ids) that one range phrase sets, or None when it sets nothing sure."""
    roles = sorted(
        (start, role, at[start])
        for role in ("from", "to", "in", "after", "before")
        if role in m.re.groupindex
        for start, _ in m.spans(role)
        if start in at
    )
    years = [mention.fields["year"] for _, _, mention in roles if "year" in mention.fields]
    periods = []
    for i, (_, role, mention) in enumerate(roles):
        later = [m.fields["year"] for _, _, m in roles[i + 1 :] if "year" in m.fields]
        period = period_of(mention, today, (later or years or [today.year])[0])
        if period is None:
            return None  # a date of the phrase does not exist ("29 February 2023")
        periods.append((role, period, mention))
    if not periods:
        return None
    low, high = _bounds(periods, today)
    return low, high, [rule.rule_id] + [mention.rule_id for _, _, mention in periods]


def _bounds(periods: list[tuple[str, Period, DateMention]], today: dt.date):
    lows = [p.start for role, p, _ in periods if role in ("from", "in")]
    lows += [p.end + dt.timedelta(days=1) for role, p, _ in periods if role == "after"]
    highs = [p.end for role, p, _ in periods if role in ("to", "in")]
    highs += [p.start - dt.timedelta(days=1) for role, p, _ in periods if role == "before"]
    low, high = (min(lows) if lows else None), (max(highs) if highs else None)
    if low is None or high is None or low <= high:
        return low, high
    # "from November to February 2024": the start took the end's year but comes before it.
    borrowed = [(p, m) for role, p, m in periods if role == "from" and "year" not in m.fields]
    if len(borrowed) == 1:
        earlier = period_of(borrowed[0][1], today, borrowed[0][0].start.year - 1)
        if earlier is not None and earlier.start <= high:
            return earlier.start, high
    return min(p.start for _, p, _ in periods), max(p.end for _, p, _ in periods)  # reversed


@dataclass(frozen=True)
class Period:
    start: dt.date
    end: dt.date


def period_of(mention: DateMention, today: dt.date, year: int) -> Period | None:
    """The calendar period a date mention stands for; None when that date does not exist."""
    f, kind = mention.fields, mention.kind
    year = f.get("year", year)
    try:
        if kind in _FIXED:
            f = {**f, _FIXED[kind]: int(kind[1])}
        elif kind.startswith("past_"):
            return _past(kind[5:-1], f.get("n", 1), today)
        elif kind[-2:] in ("-1", "+0", "+1"):
            return _relative(kind[:-2], int(kind[-2:]), today)
        if "day" in f:
            day = dt.date(year, f.get("month", 1), f["day"])
            return Period(day, day)
        if "month" in f:
            return _months(year, f["month"], 1)
        if "quarter" in f:
            return _months(year, 3 * f["quarter"] - 2, 3)
        if "half" in f:
            return _months(year, 6 * f["half"] - 5, 6)
        return _months(year, 1, 12)
    except ValueError:
        return None


def _months(year: int, month: int, count: int) -> Period:
    end_year, end_month = divmod(month - 1 + count - 1, 12)
    last = dt.date(
        year + end_year, end_month + 1, calendar.monthrange(year + end_year, end_month + 1)[1]
    )
    return Period(dt.date(year, month, 1), last)


def _shift_months(day: dt.date, months: int) -> dt.date:
    year, month = divmod(day.month - 1 + months, 12)
    year += day.year
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _relative(unit: str, offset: int, today: dt.date) -> Period:
    if unit == "day":
        day = today + dt.timedelta(days=offset)
        return Period(day, day)
    if unit == "week":
        monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=offset)
        return Period(monday, monday + dt.timedelta(days=6))
    size = _UNIT_MONTHS[unit]
    first = dt.date(today.year, (today.month - 1) // size * size + 1, 1)
    start = _shift_months(first, offset * size)
    return _months(start.year, start.month, size)


def _past(unit: str, n: int, today: dt.date) -> Period:
    if unit in ("day", "week"):
        return Period(today - dt.timedelta(days=n * (7 if unit == "week" else 1)), today)
    return Period(_shift_months(today, -n * _UNIT_MONTHS[unit]), today)
