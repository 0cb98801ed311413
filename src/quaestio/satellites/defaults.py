"""The `defaults` table: project-level knobs an analyst tunes, typed and checked on load."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import polars as pl

from ..errors import SatelliteError


@dataclass(frozen=True)
class Defaults:
    """Typed view of the `defaults` rows; each field is one `key` of the table."""

    default_language: str = "en"
    weight_explicit: float = 1.0
    weight_direct: float = 0.5
    fuzzy_enabled: bool = True
    fuzzy_min_length: int = 4
    fuzzy_long_length: int = 8
    spelling_language_vocabulary: bool = True
    language_min_evidence: int = 1
    language_word_ratio: float = 4.0
    regex_timeout_ms: int = 50
    # All the analyst regexes of one question share this budget, whatever their number.
    regex_budget_ms: int = 500
    retrieval_k: int = 5
    chunk_strategy: str = "sequential"
    suggested_model: str = ""
    pages_hint_limit: int = 200
    max_page_number: int = 100000
    toc_match_cutoff: float = 75.0
    max_question_chars: int = 100000
    # LLM mode (quaestio.llm): weight of rewrite terms, and how hard to try before the
    # per-field fallback to the offline values.
    weight_llm_rewrite: float = 0.3
    llm_timeout_s: float = 30.0
    llm_max_retries: int = 3
    llm_reasks: int = 1
    llm_backoff_s: float = 0.5
    llm_retry_after_max_s: float = 30.0
    llm_concurrency: int = 8
    llm_temperature: float = 0.0
    llm_rewrites: int = 4
    llm_max_candidates: int = 12
    llm_rewrite_language: str = ""
    llm_max_tokens: int = 1024
    # Without a corpus vocabulary, most rewrite terms one question may gain.
    llm_max_rewrite_terms: int = 12


# The range of every number, (low, high, low_open): a value outside is a load error, so a
# negative time limit cannot switch the limit off nor a weight of 7 reach the rows.
LIMITS: dict[str, tuple[float, float, bool]] = {
    "weight_explicit": (0.0, 1.0, True),
    "weight_direct": (0.0, 1.0, True),
    "weight_llm_rewrite": (0.0, 1.0, True),
    "fuzzy_min_length": (1, 64, False),
    "fuzzy_long_length": (1, 64, False),
    "language_min_evidence": (0, 100, False),
    "language_word_ratio": (1.0, 1000.0, False),
    "regex_timeout_ms": (1, 60_000, False),
    "regex_budget_ms": (1, 600_000, False),
    "retrieval_k": (1, 1000, False),
    "pages_hint_limit": (1, 100_000, False),
    "max_page_number": (1, 10**9, False),
    "toc_match_cutoff": (0.0, 100.0, False),
    "llm_timeout_s": (0.0, 3600.0, True),
    "llm_max_retries": (0, 20, False),
    "llm_reasks": (0, 10, False),
    "llm_backoff_s": (0.0, 60.0, False),
    "llm_retry_after_max_s": (0.0, 3600.0, False),
    "llm_concurrency": (1, 1024, False),
    "llm_temperature": (0.0, 2.0, False),
    "llm_rewrites": (0, 20, False),
    "llm_max_candidates": (1, 500, False),
    "llm_max_tokens": (1, 1_000_000, False),
    "llm_max_rewrite_terms": (0, 500, False),
    "max_question_chars": (1, 10**8, False),
}
# Text settings with a closed set of values (empty allowed where the field's default is "").
CHOICES: dict[str, tuple[str, ...]] = {"chunk_strategy": ("sequential", "combined")}
_LANGUAGE = re.compile(r"[a-z]{2,3}")


_PARSERS: dict[type, Callable[[str], object]] = {
    bool: lambda v: {"true": True, "false": False}[v.lower()],
    int: int,
    float: float,
    str: str,
}


def parse_defaults(frame: pl.DataFrame) -> Defaults:
    """Build `Defaults` from the table; unknown keys and bad values are all reported."""
    known = {f.name: f for f in fields(Defaults)}
    # Each value has its field's type: `_PARSERS[kind]` built it.
    values: dict[str, Any] = {}
    failures: list[dict] = []
    has_pos = "_source" in frame.columns
    for rec in frame.iter_rows(named=True):
        key, value = rec["key"], rec["value"]
        where = {
            "source": rec["_source"] if has_pos else "defaults",
            "table": "defaults",
            "row": rec["_row"] if has_pos else None,
            "column": "key",
            "value": key,
        }
        if key not in known:
            failures.append({**where, "reason": f"unknown key; known keys: {', '.join(known)}"})
            continue
        kind = type(getattr(Defaults(), key))
        try:
            parsed = _PARSERS[kind]("" if value is None and kind is str else str(value).strip())
        except (KeyError, ValueError, AttributeError, TypeError):
            failures.append(
                {
                    **where,
                    "column": "value",
                    "value": value,
                    "reason": f"{key} must be {_expected(key, kind)}",
                }
            )
            continue
        if not _in_range(key, parsed):
            failures.append(
                {
                    **where,
                    "column": "value",
                    "value": value,
                    "reason": f"{key} must be {_expected(key, kind)}",
                }
            )
            continue
        values[key] = parsed
    if failures:
        raise SatelliteError(failures)
    return Defaults(**values)


def _in_range(key: str, value) -> bool:
    if key in LIMITS:
        low, high, low_open = LIMITS[key]
        if isinstance(value, float) and not math.isfinite(value):
            return False
        return (low < value if low_open else low <= value) and value <= high
    if key in CHOICES:
        return value in CHOICES[key]
    if key in ("default_language", "llm_rewrite_language"):
        return bool(_LANGUAGE.fullmatch(value)) or (key != "default_language" and value == "")
    return True


def _expected(key: str, kind: type) -> str:
    if key in LIMITS:
        low, high, low_open = LIMITS[key]
        noun = "an integer" if kind is int else "a number"
        return f"{noun} in {'(' if low_open else '['}{low:g}, {high:g}]"
    if key in CHOICES:
        return f"one of {', '.join(CHOICES[key])}"
    if key in ("default_language", "llm_rewrite_language"):
        return "an ISO 639 code (en, fr, ...)" + (
            ", or empty" if key != "default_language" else ""
        )
    return {bool: "true or false", int: "an integer", float: "a number"}.get(kind, "text")
