"""Arrow schemas of `answers_df` and of the verdicts, so empty results still have typed columns."""

from __future__ import annotations

import sys
from typing import Any

import pyarrow as pa

ANSWER_SCHEMA = pa.schema(
    [
        ("question_id", pa.string()),
        ("chunk_id", pa.string()),
        ("doc_id", pa.string()),
        ("rank", pa.int32()),
        ("score", pa.float64()),
        ("answer_type", pa.string()),
        ("pattern_id", pa.string()),
        ("zone", pa.string()),  # line / sentence / paragraph: the question's detect_context
        ("zone_start", pa.int32()),  # offsets in the passage text
        ("zone_end", pa.int32()),
        ("zone_text", pa.string()),
        ("value_text", pa.string()),
        ("value_start", pa.int32()),
        ("value_end", pa.int32()),
        ("value", pa.string()),  # the parsed value, canonical: 125000.00 EUR, 2025-01-01, P3M
        ("value_number", pa.float64()),  # amount, percentage or number, as a float
        ("currency", pa.string()),  # ISO 4217, for amounts
        ("keyword", pa.string()),  # the question keyword closest to the value in the zone
        ("keyword_distance", pa.int32()),  # characters between the two; null without a keyword
        ("signals", pa.list_(pa.string())),  # "keyword" and/or "type"
        ("confidence", pa.float64()),
    ]
)

VERDICTS = ("found", "not_found", "no_evidence", "skipped")

VERDICT_SCHEMA = pa.schema(
    [
        ("question_id", pa.string()),
        ("answer_type", pa.string()),
        ("verdict", pa.string()),  # one of VERDICTS
        ("confidence", pa.float64()),  # null for no_evidence and skipped
        ("value", pa.string()),  # the best candidate, for found
        ("value_text", pa.string()),
        ("chunk_id", pa.string()),
        ("pattern_id", pa.string()),
        ("n_passages", pa.int32()),
        ("n_keyword_passages", pa.int32()),
        ("n_candidates", pa.int32()),  # answers_df rows of the question (any signal)
        ("reason", pa.string()),
        ("warnings", pa.list_(pa.string())),
    ]
)


def engine_of(frame: Any) -> str:
    """The engine a caller used, so results come back in the same one."""
    if isinstance(frame, (pa.Table, pa.RecordBatch)):
        return "arrow"
    if "polars" in sys.modules and isinstance(frame, sys.modules["polars"].DataFrame):
        return "polars"
    return "pandas"
