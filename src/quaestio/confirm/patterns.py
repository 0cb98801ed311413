"""The `answer_type_patterns` rows, compiled once per `Satellites`, and `find_values`.

A row's pattern may use two placeholders, expanded before it is compiled:

- `<pattern_id>` stands for the pattern of another row (usually a `fragment` row, such as
  `number_digits` or `month_names_en`), so a figure or a month is written once;
- `<keywords:PREFIX>` stands for every validated `concept_keywords` variant of the concepts
  whose id starts with PREFIX (`country_`, `currency_`): the closed-set types come from the
  dictionary, not from a second list.

Rows of language `*` apply to every language; a language's own rows are added to them.
"""

from __future__ import annotations

import warnings as _warnings
from dataclasses import dataclass
from typing import Any

import polars as pl
import regex

from ..analysis.gate import LiteralGate
from ..errors import QuaestioError, QuaestioWarning, WarningCode
from ..satellites import Satellites, bundled_satellites
from ..satellites.schemas import compile_pattern
from .overlaps import longest_first
from .parsers import Reject, parse_value
from .windows import WINDOW, finditer_windows

_PLACEHOLDER = regex.compile(r"(?<!\(\?P)<(keywords:)?([a-z][a-z0-9_]*)>")


# The field `Pattern.regex` hides the module inside the class.
_Compiled = regex.Pattern


@dataclass(frozen=True)
class Pattern:
    pattern_id: str
    answer_type: str
    language: str
    regex: regex.Pattern
    validator: str | None
    parser: str
    concepts: dict[str, str] | None = None  # folded keyword -> concept, for dictionary rows
    # The row's top-level alternatives, compiled one by one: `regex` loses its fast paths on
    # a long alternation (11 branches of date_relative_en: 0.9 MB/s together, 2.7 apart).
    branches: tuple[_Compiled, ...] = ()


@dataclass(frozen=True)
class Value:
    """One value of an answer type found in a text; `value` is the parsed, typed value."""

    start: int
    end: int
    text: str
    value: Any
    pattern_id: str
    answer_type: str


def _expand(
    pattern: str,
    rows: dict[str, dict],
    sats: Satellites,
    seen: tuple[str, ...],
    concepts: dict[str, str],
) -> str:
    def replace(m: regex.Match) -> str:
        if m.group(1):
            return _keywords(sats, m.group(2), concepts)
        name = m.group(2)
        if name not in rows:
            raise QuaestioError(
                f"answer_type_patterns row {seen[-1]!r}: <{name}> is not a "
                f"pattern_id of answer_type_patterns"
            )
        if name in seen:
            raise QuaestioError(
                f"answer_type_patterns row {seen[-1]!r}: <{name}> refers back "
                f"to itself ({' -> '.join(seen + (name,))})"
            )
        return "(?:" + _expand(rows[name]["pattern"], rows, sats, seen + (name,), concepts) + ")"

    return _PLACEHOLDER.sub(replace, pattern)


def _keywords(sats: Satellites, prefix: str, concepts: dict[str, str]) -> str:
    rows = sats.concept_keywords.filter(
        pl.col("concept").str.starts_with(prefix) & (pl.col("status") != "rejected")
    )
    parts = []
    for concept, keyword, match in rows.select("concept", "keyword", "match").iter_rows():
        concepts.setdefault(keyword.casefold(), concept)
        parts.append((keyword, match == "cased"))
    # A trie, not a flat alternation of ~1,500 names: 0.4 MB/s becomes tens of MB/s.
    cased = _trie([k for k, c in parts if c])
    folded = _trie([k.lower() for k, c in parts if not c])
    body = "|".join(([f"(?-i:{cased})"] if cased else []) + ([folded] if folded else []))
    return rf"(?<!\w)(?:{body or '(?!)'})(?!\w)"


def _trie(words: list[str]) -> str:
    """One regex for many literal words; at each point the longer word is tried first."""
    root: dict = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [regex.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root)


def _compile_all(sats: Satellites) -> dict[str, list[Pattern]]:
    rows = {r["pattern_id"]: r for r in sats.answer_type_patterns.iter_rows(named=True)}
    parsers = dict(sats.answer_types.select("answer_type", "value_parser").iter_rows())
    by_type: dict[str, list[Pattern]] = {}
    for pid, row in rows.items():
        if row["role"] == "fragment":
            continue
        concepts: dict[str, str] = {}
        source = _expand(row["pattern"], rows, sats, (pid,), concepts)
        try:
            compiled = compile_pattern(source, regex.IGNORECASE)
        except regex.error as exc:
            raise QuaestioError(
                f"answer_type_patterns row {pid!r} (pattern): does not compile "
                f"once its placeholders are expanded: {exc}"
            ) from exc
        by_type.setdefault(row["answer_type"], []).append(
            Pattern(
                pid,
                row["answer_type"],
                row["language"] or "*",
                compiled,
                row["validator"],
                parsers.get(row["answer_type"]) or "none",
                concepts or None,
                _branches(source) or (compiled,),
            )
        )
    return by_type


def _branches(source: str) -> tuple[regex.Pattern, ...]:
    """The top-level alternatives of a pattern, each compiled; () when they cannot stand
    alone (a back-reference to a group of another branch, a global inline flag)."""
    parts, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            i += 1 if source[i + 1 : i + 2] != "]" else 2
            continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(source[start:i])
            start = i + 1
        i += 1
    parts.append(source[start:])
    if len(parts) < 2:
        return ()
    try:
        return tuple(compile_pattern(part, regex.IGNORECASE) for part in parts)
    except regex.error:
        return ()


def patterns_for(sats: Satellites, answer_type: str, language: str | None) -> tuple[Pattern, ...]:
    """The compiled rows of one answer type for one language (`*` rows included; every row
    when the language is None)."""
    cache = sats.cached("confirm_patterns", lambda s: {})
    key = (answer_type, language)
    if key not in cache:
        every = sats.cached("confirm_patterns_all", _compile_all).get(answer_type, [])
        cache[key] = tuple(p for p in every if language is None or p.language in ("*", language))
    return cache[key]


def has_patterns(sats: Satellites, answer_type: str) -> bool:
    return bool(patterns_for(sats, answer_type, None))


@dataclass(frozen=True)
class _Branch:
    order: int  # of its row among the patterns scanned
    pattern: regex.Pattern


def _gate(sats: Satellites, patterns: tuple[Pattern, ...]) -> LiteralGate:
    """The literal prefilter of these rows' branches: a passage without a month name, a
    digit or an "@" skips the branches that need one (`analysis.gate`)."""
    gates = sats.cached("confirm_gates", lambda s: {})
    key = tuple(p.pattern_id for p in patterns)
    if key not in gates:
        gates[key] = LiteralGate(
            [_Branch(order, branch) for order, p in enumerate(patterns) for branch in p.branches],
            own=True,
        )
    return gates[key]


def scan(
    patterns: tuple[Pattern, ...],
    text: str,
    *,
    language: str | None,
    timeout: float,
    sats: Satellites,
    warnings: list[str] | None = None,
) -> list[Value]:
    """Every value the patterns find, parsed and validated; where matches of several rows
    overlap, the longest wins (then the earliest row). A long text is scanned in windows,
    each under `timeout` (`windows`), so a slow row loses only the windows it timed out in."""
    found: list[tuple[int, int, int, Value]] = []
    runnable: dict[int, list[regex.Pattern]] = {}
    for branch in _gate(sats, patterns).candidates(text.casefold()):
        runnable.setdefault(branch.order, []).append(branch.pattern)
    for order, pattern in enumerate(patterns):
        matches, late = [], 0
        for branch in runnable.get(order, ()):
            found_here, late_here = finditer_windows(branch, text, timeout)
            matches += found_here
            late += late_here
        if late:
            where = (
                "; skipped"
                if len(text) <= WINDOW
                else f" in {late} window(s) of {WINDOW} characters; those windows skipped"
            )
            message = (
                f"{WarningCode.W101_REGEX_TIMEOUT}: answer_type_patterns row "
                f"{pattern.pattern_id!r} exceeded {round(timeout * 1000)} ms{where}"
            )
            if warnings is None:
                _warnings.warn(
                    QuaestioWarning(WarningCode.W101_REGEX_TIMEOUT, message), stacklevel=3
                )
            else:
                warnings.append(message)
        for m in matches:
            try:
                value, (start, end) = parse_value(pattern, m, language, sats)
            except Reject:
                continue
            found.append(
                (
                    start,
                    end,
                    order,
                    Value(
                        start, end, text[start:end], value, pattern.pattern_id, pattern.answer_type
                    ),
                )
            )
    return longest_first(found)


def find_values(
    text: str,
    answer_type: str,
    *,
    language: str | None = None,
    satellites: Satellites | None = None,
    warnings: list[str] | None = None,
    reference_date: Any = None,
) -> list[Value]:
    """Every value of `answer_type` in `text`: span, matched text, parsed value, pattern id.

    Args:
        text: Any text (a passage, a line, a document).
        answer_type: A row of `answer_types` that has `answer_type_patterns` rows.
        language: Use that language's rows and the `*` rows; None uses every row.
        satellites: The tables to read the patterns from (the bundled ones by default).
        warnings: A list that receives a W101 message for each pattern that ran out of time
            (`defaults.regex_timeout_ms`); without it, a `QuaestioWarning` is emitted.
        reference_date: A `datetime.date` (the document's date) that makes partial and
            relative dates whole: "le 27" → the 27th of its month, "le lendemain" → the day
            after (`dates.resolve_date`). Without it they stay `---27` / `RelativeDate`.

    Returns:
        `Value`s in text order, overlapping matches resolved to the longest.

    Raises:
        UnknownNameError: `answer_type` is not a row of `answer_types`.

    Examples:
        >>> [(v.text, str(v.value)) for v in find_values("Premium: €125,000.00 a year", "amount")]
        [('€125,000.00', '125000.00 EUR')]
    """
    sats = satellites or bundled_satellites()
    known = sats.answer_types["answer_type"].to_list()
    if answer_type not in known:
        from ..errors import UnknownNameError

        raise UnknownNameError("answer type", answer_type, known)
    if not isinstance(text, str):
        raise TypeError(f"find_values needs a str text, got {type(text).__name__}: {text!r:.80}")
    timeout = sats.defaults.regex_timeout_ms / 1000
    values = scan(
        patterns_for(sats, answer_type, language),
        text,
        language=language,
        timeout=timeout,
        sats=sats,
        warnings=warnings,
    )
    if reference_date is not None:
        from .dates import resolve_values

        values = resolve_values(values, reference_date)
    return values
