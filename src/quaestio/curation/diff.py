"""What changed between two versions of the satellites, and which parsed rows it changes."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import polars as pl

from ..satellites import SPECS, TABLES, Satellites

DIFF_SCHEMA = {
    "table": pl.String,
    "key": pl.String,
    "change": pl.String,
    "column": pl.String,
    "old_value": pl.String,
    "new_value": pl.String,
}
# Columns that differ on every run or every version whatever the dictionary says.
VOLATILE = ("latency_ms", "satellites_version", "quaestio_version")


def satellite_diff(
    old: Satellites, new: Satellites, *, tables: Iterable[str] | None = None
) -> pl.DataFrame:
    """Rows added, removed and changed between two versions of the satellite tables.

    Rows are matched on each table's key (e.g. concept, language, keyword for
    `concept_keywords`). A changed row gives one line per changed column.

    Returns:
        A polars DataFrame: table, key ("a / b / c"), change (added, removed, changed,
        or rejected: a new row whose status is rejected, which the parse never reads),
        column (changed rows only), old_value, new_value (as text).
    """
    out: list[dict[str, Any]] = []
    for name in tables or TABLES:
        key = list(SPECS[name].key)
        a, b = _as_text(old.tables[name]), _as_text(new.tables[name])
        joined = a.join(b, on=key, how="full", suffix="__new", coalesce=True, nulls_equal=True)
        value_cols = [c for c in a.columns if c not in key and c != "__in"]
        for rec in joined.iter_rows(named=True):
            label = " / ".join("" if rec[k] is None else str(rec[k]) for k in key)
            in_old, in_new = rec["__in"] is not None, rec["__in__new"] is not None
            if in_old and not in_new:
                out.append(
                    _line(name, label, "removed", None, _row_text(rec, value_cols, ""), None)
                )
            elif in_new and not in_old:
                # A discovery the analyst rejected is remembered, not added to the parse.
                change = (
                    "rejected"
                    if rec.get("status__new", rec.get("status")) == "rejected"
                    else "added"
                )
                out.append(
                    _line(name, label, change, None, None, _row_text(rec, value_cols, "__new"))
                )
            else:
                for col in value_cols:
                    if rec[col] != rec[col + "__new"]:
                        out.append(
                            _line(name, label, "changed", col, rec[col], rec[col + "__new"])
                        )
    return pl.DataFrame(out, schema=DIFF_SCHEMA)


def _as_text(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.all().cast(pl.String), pl.lit(True).alias("__in"))


def _row_text(rec: dict, cols: list[str], suffix: str) -> str:
    return json.dumps({c: rec[c + suffix] for c in cols}, ensure_ascii=False)


def _line(table, key, change, column, old_value, new_value) -> dict[str, Any]:
    return {
        "table": table,
        "key": key,
        "change": change,
        "column": column,
        "old_value": old_value,
        "new_value": new_value,
    }


def reparse_changes(
    questions: Any,
    old: Satellites,
    new: Satellites,
    *,
    columns: Iterable[str] | None = None,
    **parse_options: Any,
) -> pl.DataFrame:
    """Parse `questions` with both versions and list every column whose value changed.

    Args:
        questions: Anything `parse_questions` accepts (a list, a Series, a DataFrame).
        old: The satellites before the change.
        new: The satellites after it.
        columns: Columns to compare (default: every column of question_df except run
            provenance such as latency and version stamps).
        **parse_options: Passed to `parse_questions` (e.g. `id_column=`, `language=`).

    Returns:
        A polars DataFrame: question_id, original_question, column, old_value, new_value
        (lists and structs as JSON text), one row per changed cell.
    """
    from ..analysis import parse_questions

    before = parse_questions(questions, old, as_="polars", **parse_options)
    after = parse_questions(questions, new, as_="polars", **parse_options)
    names = [c for c in (columns or before.columns) if c not in VOLATILE]
    out: list[dict[str, Any]] = []
    for name in names:
        if name in ("question_id", "original_question"):
            continue
        a, b = before[name].to_list(), after[name].to_list()
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                out.append(
                    {
                        "_pos": i,
                        "question_id": before["question_id"][i],
                        "original_question": before["original_question"][i],
                        "column": name,
                        "old_value": _cell(x),
                        "new_value": _cell(y),
                    }
                )
    schema = {
        "_pos": pl.Int64,
        "question_id": pl.String,
        "original_question": pl.String,
        "column": pl.String,
        "old_value": pl.String,
        "new_value": pl.String,
    }
    return pl.DataFrame(out, schema=schema).sort("_pos", maintain_order=True).drop("_pos")


def _cell(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)
