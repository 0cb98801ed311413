"""`evaluate`: question_df against a gold set, per field, with the failures grouped by mode."""

from __future__ import annotations

from typing import Any, NamedTuple

import polars as pl

from ..io import polars_from_arrow
from ..satellites import Satellites
from ..schema import frame_to_table, rows_to_table
from ..types import ParsedQuestion
from .fields import compare, failure_mode, field_metrics, observed
from .gold import DOWNSTREAM_KINDS, GOLD_FIELDS, gold_fields, parsed_column, read_gold

_S, _I, _F = pl.String, pl.Int64, pl.Float64
METRIC_SCHEMA = {
    "field": _S,
    "kind": _S,
    "n": _I,
    "correct": _I,
    "accuracy": _F,
    "precision": _F,
    "recall": _F,
    "f1": _F,
}
FAILURE_SCHEMA = {
    "question_id": _S,
    "question": _S,
    "field": _S,
    "expected": _S,
    "got": _S,
    "failure_mode": _S,
}


class Evaluation(NamedTuple):
    """What `evaluate` returns; unpack it or use the attributes.

    metrics: one row per gold field (n, correct, accuracy, precision, recall, f1).
    confusion: categorical fields, one row per (field, expected, got) with its count.
    failures: one row per wrong (question, field), most frequent failure mode first.
    modes: one row per failure mode: count, share of questions, fields, an example.
    """

    metrics: Any
    confusion: Any
    failures: Any
    modes: Any


def evaluate(
    question_df: Any, gold: Any, *, satellites: Satellites | None = None, as_: str = "pandas"
) -> Evaluation:
    """Score `question_df` against `gold` for every gold field present.

    Args:
        question_df: parsed questions in any engine (pandas, polars, Arrow) or a list of
            `ParsedQuestion`; rows are matched to the gold by `question_id`.
        gold: a gold file path or DataFrame (see `quaestio.evaluate.gold`).
        satellites: the tables whose answer types the gold may name (bundled by default).
        as_: "pandas", "polars" or "arrow" for the returned frames.

    A gold row with no parsed row, or whose parsed row carries an `error_code`, counts as
    wrong for every field it has, with the failure mode `missing_row` or `parse_error`.
    """
    gold_df = read_gold(gold, satellites)
    qdf = _polars(question_df)
    names = [n for n in gold_fields(gold_df) if GOLD_FIELDS[n].kind not in DOWNSTREAM_KINDS]
    parsed_columns = sorted({parsed_column(n) for n in names})
    # The parsed side is renamed so it never clashes with a gold column of the same name.
    parsed = qdf.select(
        pl.col("question_id").alias("_qid"),
        pl.col("error_code").alias("_error"),
        *[pl.col(c).alias(f"_got_{c}") for c in parsed_columns],
        pl.lit(True).alias("_found"),
    )
    joined = gold_df.join(parsed, left_on="question_id", right_on="_qid", how="left")
    metrics, confusion, failures = [], [], []
    for name in names:
        spec = GOLD_FIELDS[name]
        rows = joined.filter(pl.col(name).is_not_null())
        column = parsed_column(name)
        got_values = observed(rows.select(pl.col(f"_got_{column}").alias(column)), name)
        expected = rows[name].to_list()
        found, errors = rows["_found"].fill_null(False).to_list(), rows["_error"].to_list()
        ok, counts = [], []
        for i, (want, got) in enumerate(zip(expected, got_values)):
            match, count = compare(spec, name, want, got)
            match = match and found[i] and errors[i] is None
            ok.append(match)
            counts.append(count or {"tp": 0, "fp": 0, "fn": 0})
            if not match:
                mode = (
                    "missing_row"
                    if not found[i]
                    else "parse_error"
                    if errors[i]
                    else failure_mode(spec, name, want, got)
                )
                failures.append(
                    {
                        "question_id": rows["question_id"][i],
                        "question": rows["question"][i],
                        "field": name,
                        "expected": _show(want),
                        "got": _show(got),
                        "failure_mode": mode,
                    }
                )
        metrics.append(field_metrics(name, spec, expected, got_values, ok, counts))
        if spec.kind in ("category", "flag"):
            confusion += [
                {"field": name, "expected": _show(e), "got": _show(g)}
                for e, g in zip(expected, got_values)
            ]
    return frames(metrics, confusion, failures, gold_df.height, as_)


def frames(metrics, confusion, failures, n_questions: int, as_: str) -> Evaluation:
    metrics_df = pl.DataFrame(metrics, schema=METRIC_SCHEMA)
    confusion_df = (
        pl.DataFrame(confusion, schema={"field": _S, "expected": _S, "got": _S})
        .group_by("field", "expected", "got")
        .len("count")
        .sort("field", "count", "expected", descending=[False, True, False])
    )
    failures_df = pl.DataFrame(failures, schema=FAILURE_SCHEMA)
    modes_df = (
        failures_df.group_by("failure_mode")
        .agg(
            pl.len().alias("count"),
            pl.col("question_id").n_unique().alias("questions"),
            pl.col("field").unique().sort().str.join(", ").alias("fields"),
            pl.col("question").first().alias("example"),
        )
        .with_columns((pl.col("questions") / max(n_questions, 1)).alias("share"))
        .sort("count", "failure_mode", descending=[True, False])
    )
    rank = modes_df.select("failure_mode", pl.int_range(pl.len()).alias("_rank"))
    failures_df = (
        failures_df.join(rank, on="failure_mode", how="left")
        .sort("_rank", "question_id", maintain_order=True)
        .drop("_rank")
    )
    frames = [metrics_df, confusion_df, failures_df, modes_df]
    if as_ == "polars":
        return Evaluation(*frames)
    if as_ == "arrow":
        return Evaluation(*(f.to_arrow() for f in frames))
    if as_ == "pandas":
        return Evaluation(*(f.to_pandas() for f in frames))
    raise ValueError(f"as_ must be 'pandas', 'polars' or 'arrow', not {as_!r}")


def _polars(question_df: Any) -> pl.DataFrame:
    if isinstance(question_df, ParsedQuestion):
        question_df = [question_df]
    if isinstance(question_df, list):
        return polars_from_arrow(rows_to_table(question_df))
    return polars_from_arrow(frame_to_table(question_df))


def _show(value: Any) -> str:
    if value is None or value == []:
        return "∅"
    if isinstance(value, list):
        return "; ".join(map(str, value))
    return str(value)
