"""Per-field comparison of question_df with a gold set: one verdict per (question, field)."""

from __future__ import annotations

from typing import Any

import polars as pl

from ..analysis.text import fold_phrase as fold
from .gold import GOLD_FIELDS, GoldField, parsed_column


def observed(qdf: pl.DataFrame, name: str) -> list[Any]:
    """The question_df values of gold field `name`, in the shape the gold uses."""
    spec = GOLD_FIELDS[name]
    column = qdf[parsed_column(name)]
    if spec.kind == "flag":
        return column.is_not_null().to_list()
    if name == "keywords":
        return [[k["text"] for k in row or []] for row in column.to_list()]
    return column.to_list()


def compare(spec: GoldField, name: str, expected: Any, got: Any) -> tuple[bool, dict]:
    """Whether `got` matches `expected`, and the counts the field's metrics add up."""
    if spec.kind in ("category", "flag"):
        return expected == got, {}
    if spec.kind == "text":
        return got is not None and fold(got).strip() == fold(expected).strip(), {}
    want = {fold(str(x)) for x in expected} if spec.kind == "terms" else set(expected)
    have = {fold(str(x)) for x in got or []} if spec.kind == "terms" else set(got or [])
    hit = len(want & have)
    counts = {"tp": hit, "fn": len(want) - hit, "fp": len(have - want)}
    # question_df holds far more keywords than any gold lists: only recall means something.
    ok = want <= have if name == "keywords" else want == have
    return ok, counts


def failure_mode(spec: GoldField, name: str, expected: Any, got: Any) -> str:
    """A name for what went wrong, so failures can be grouped by what to fix."""
    if name == "decomposition_pattern":
        if expected != "single" and got == "single":
            return "missed_compound"
        if expected == "single":
            return "false_compound"
    if spec.kind == "flag":
        return "missed_clarification" if expected else "needless_clarification"
    if name == "concepts":
        missing = {fold(x) for x in expected} - {fold(x) for x in got or []}
        return "missed_concept" if missing else "spurious_concept"
    return spec.failure


def field_metrics(
    name: str, spec: GoldField, expected: list, got: list, ok: list[bool], counts: list[dict]
) -> dict[str, Any]:
    """Accuracy for every field; precision/recall/F1 where they mean something."""
    n = len(ok)
    row: dict[str, Any] = {
        "field": name,
        "kind": spec.kind,
        "n": n,
        "correct": sum(ok),
        "accuracy": sum(ok) / n if n else None,
        "precision": None,
        "recall": None,
        "f1": None,
    }
    if spec.kind == "flag":
        tp = sum(1 for e, g in zip(expected, got) if e and g)
        row.update(
            _prf(
                tp,
                sum(1 for e, g in zip(expected, got) if g and not e),
                sum(1 for e, g in zip(expected, got) if e and not g),
            )
        )
    elif spec.kind == "category" and n:
        # Macro average over the gold's labels, so rare types weigh as much as common ones.
        scores = [
            _prf(
                sum(1 for e, g in zip(expected, got) if e == g == label),
                sum(1 for e, g in zip(expected, got) if g == label != e),
                sum(1 for e, g in zip(expected, got) if e == label != g),
            )
            for label in sorted(set(expected))
        ]
        for key in ("precision", "recall", "f1"):
            row[key] = sum(s[key] or 0.0 for s in scores) / len(scores)
    elif spec.kind in ("terms", "pages") and n:
        tp, fp, fn = (sum(c[key] for c in counts) for key in ("tp", "fp", "fn"))
        row.update(_prf(tp, fp, fn))
        if name == "keywords":
            row["precision"] = row["f1"] = None
    return row


def _prf(tp: int, fp: int, fn: int) -> dict[str, float | None]:
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    if precision is None or recall is None:
        f1 = None
    else:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}
