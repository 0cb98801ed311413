"""The gold-set format: one row per question and any of the expected fields.

A gold file is CSV, JSONL or Parquet (or a pandas/polars DataFrame) with a `question`
column, an optional `question_id` (or `id`), and any of the fields of `GOLD_FIELDS`. List
fields take a JSON array (`["premium", "deductible"]`) or `;`-separated text. Columns that
are not gold fields are kept as metadata (for grouping), unless their name is one letter
or two away from a field, which is surely a typo and an error.
"""

from __future__ import annotations

import difflib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import GoldError
from ..satellites import Satellites, bundled_satellites
from ..types import AnswerContext, AnswerShape, DecompositionPattern, DetectContext, LayoutHint


@dataclass(frozen=True)
class GoldField:
    """How one expected field is read from the gold and compared with question_df.

    kind: "category" (one label), "flag" (true/false), "terms" (a set of strings),
    "pages" (a set of page numbers), "text" (one string, compared folded),
    "ids" (relevant chunk or document ids: scored by `evaluate_retrieval`), or
    "value" (the expected answer, or `none` when the documents do not hold one: scored by
    `evaluate_answers` against the confirmation verdicts).
    """

    kind: str
    column: str | None  # the question_df column it is compared with
    failure: str  # the failure mode of a wrong value
    labels: tuple[str, ...] | None = None  # closed set, for categories


def _enum(e) -> tuple[str, ...]:
    return tuple(m.value for m in e)


GOLD_FIELDS: dict[str, GoldField] = {
    "answer_type": GoldField("category", "answer_type", "wrong_type"),
    "answer_shape": GoldField("category", "answer_shape", "wrong_shape", _enum(AnswerShape)),
    "decomposition_pattern": GoldField(
        "category", "decomposition_pattern", "wrong_decomposition", _enum(DecompositionPattern)
    ),
    "layout_hint": GoldField("category", "layout_hint", "wrong_layout", _enum(LayoutHint)),
    "detect_context": GoldField(
        "category", "detect_context", "wrong_context", _enum(DetectContext)
    ),
    "answer_context": GoldField(
        "category", "answer_context", "wrong_context", _enum(AnswerContext)
    ),
    "language": GoldField("category", "language", "wrong_language"),
    "needs_clarification": GoldField("flag", "suggested_clarification", "clarification"),
    "keywords": GoldField("terms", "keywords", "vocabulary_mismatch"),
    "concepts": GoldField("terms", "concepts", "missed_concept"),
    "pages_hint": GoldField("pages", "pages_hint", "wrong_pages"),
    "toc_section_hint": GoldField("text", "toc_section_hint", "wrong_section"),
    "relevant_chunk_ids": GoldField("ids", None, "missed_chunk"),
    "relevant_sections": GoldField("ids", None, "missed_section"),
    "relevant_doc_ids": GoldField("ids", None, "missed_document"),
    "expected_value": GoldField("value", None, "wrong_value"),
}

# Gold fields scored on retrieval and confirmation output, not on question_df.
DOWNSTREAM_KINDS = ("ids", "value")


def parsed_column(name: str) -> str:
    """The question_df column gold field `name` is compared with (not a downstream kind)."""
    column = GOLD_FIELDS[name].column
    if column is None:
        raise ValueError(f"gold field {name!r} is not compared with a question_df column")
    return column


_TRUE, _FALSE = {"true", "yes", "y", "1", "t"}, {"false", "no", "n", "0", "f", ""}
_ID_COLUMNS = ("question_id", "id")


def read_gold(source: Any, satellites: Satellites | None = None) -> pl.DataFrame:
    """Read and check a gold set; return a polars DataFrame with typed gold fields.

    Every bad cell is reported at once in a `GoldError` (row, column, value, reason);
    rows are numbered as in the file (the CSV header is line 1) or from 0 in a DataFrame.
    """
    frame, source_name, first_row = _load(source)
    sats = satellites if satellites is not None else bundled_satellites()
    failures: list[dict[str, Any]] = []

    def fail(row: int | None, column: str | None, value: Any, reason: str) -> None:
        failures.append(
            {
                "source": source_name,
                "table": "gold",
                "row": row,
                "column": column,
                "value": value,
                "reason": reason,
            }
        )

    if "question" not in frame.columns:
        fail(None, None, None, f"no 'question' column (columns: {', '.join(frame.columns)})")
        raise GoldError(failures)
    for name in frame.columns:
        close = difflib.get_close_matches(name, GOLD_FIELDS, n=1, cutoff=0.85)
        if name not in GOLD_FIELDS and close and name not in _ID_COLUMNS:
            fail(None, name, None, f"unknown gold column; did you mean {close[0]!r}?")
    labels = {
        "answer_type": tuple(sats.answer_types["answer_type"]),
        "concepts": tuple(sats.concepts["concept"]),
    }
    columns: dict[str, list[Any]] = {}
    for name in [c for c in frame.columns if c in GOLD_FIELDS]:
        spec = GOLD_FIELDS[name]
        allowed = spec.labels or labels.get(name)
        values = []
        for i, raw in enumerate(frame[name].to_list()):
            try:
                values.append(_read_cell(spec.kind, raw, allowed))
            except ValueError as exc:
                fail(i + first_row, name, raw, str(exc))
                values.append(None)
        columns[name] = values
    if failures:
        raise GoldError(failures)
    ids = next((c for c in _ID_COLUMNS if c in frame.columns), None)
    question_id = (
        frame[ids].cast(pl.String) if ids else pl.Series([f"q{i}" for i in range(frame.height)])
    )
    typed = frame.with_columns(
        question_id.alias("question_id"),
        *[pl.Series(n, v, strict=False) for n, v in columns.items()],
    )
    if ids == "id":
        typed = typed.drop("id")
    return typed.select("question_id", pl.exclude("question_id"))


def gold_fields(gold: pl.DataFrame) -> list[str]:
    """The gold fields a gold frame actually holds, in `GOLD_FIELDS` order."""
    return [name for name in GOLD_FIELDS if name in gold.columns]


def _load(source: Any) -> tuple[pl.DataFrame, str, int]:
    if isinstance(source, pl.DataFrame):
        return source, "gold DataFrame", 0
    if "pandas" in sys.modules and isinstance(source, sys.modules["pandas"].DataFrame):
        return pl.from_pandas(source), "gold DataFrame", 0
    path = Path(source)
    if not path.is_file():
        raise FileNotFoundError(f"gold file not found: {path}")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return pl.read_csv(path, infer_schema=False), str(path), 2
    if suffix in (".jsonl", ".ndjson"):
        return pl.read_ndjson(path), str(path), 1
    if suffix in (".parquet", ".pq"):
        return pl.read_parquet(path), str(path), 0
    raise ValueError(
        f"cannot tell the format of gold file {str(path)!r}: use .csv, .jsonl or .parquet"
    )


def _read_cell(kind: str, raw: Any, allowed: tuple[str, ...] | None) -> Any:
    """One gold cell as a typed value; None when the gold says nothing for this row."""
    if raw is None or (isinstance(raw, str) and not raw.strip() and kind != "flag"):
        return None
    if kind == "category":
        value = str(raw).strip()
        if allowed and value not in allowed:
            close = difflib.get_close_matches(value, allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"not one of {', '.join(allowed)}{hint}")
        return value
    if kind == "flag":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise ValueError("must be true or false")
    if kind in ("text", "value"):
        return str(raw).strip()
    items = _list(raw)
    if allowed:
        unknown = [str(x).strip() for x in items if str(x).strip() not in allowed]
        if unknown:
            close = difflib.get_close_matches(unknown[0], allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ValueError(f"unknown {unknown[0]!r}{hint}")
    if kind == "pages":
        try:
            return sorted({int(str(p).strip()) for p in items})
        except ValueError:
            raise ValueError("pages must be whole numbers") from None
    return [str(item).strip() for item in items if str(item).strip()]


def _list(raw: Any) -> list[Any]:
    if isinstance(raw, (list, tuple)):
        return list(raw)
    if hasattr(raw, "to_list"):
        return raw.to_list()
    text = str(raw).strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON array: {exc.msg}") from None
        return value if isinstance(value, list) else [value]
    return text.split(";")
