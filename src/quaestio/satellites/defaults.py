"""The `defaults` table: project-level knobs an analyst tunes, typed and checked on load."""

from __future__ import annotations

from dataclasses import dataclass, fields

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
    regex_timeout_ms: int = 50
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


_PARSERS = {bool: lambda v: {"true": True, "false": False}[v.lower()], int: int, float: float,
            str: str}


def parse_defaults(frame: pl.DataFrame) -> Defaults:
    """Build `Defaults` from the table; unknown keys and bad values are all reported."""
    known = {f.name: f for f in fields(Defaults)}
    values, failures = {}, []
    has_pos = "_source" in frame.columns
    for rec in frame.iter_rows(named=True):
        key, value = rec["key"], rec["value"]
        where = {"source": rec["_source"] if has_pos else "defaults", "table": "defaults",
                 "row": rec["_row"] if has_pos else None, "column": "key", "value": key}
        if key not in known:
            failures.append({**where, "reason": f"unknown key; known keys: {', '.join(known)}"})
            continue
        kind = type(getattr(Defaults(), key))
        try:
            values[key] = _PARSERS[kind]("" if value is None and kind is str else value)
        except (KeyError, ValueError, AttributeError, TypeError):
            failures.append({**where, "column": "value", "value": value,
                             "reason": f"{key} must be a {kind.__name__}"})
    if failures:
        raise SatelliteError(failures)
    return Defaults(**values)
