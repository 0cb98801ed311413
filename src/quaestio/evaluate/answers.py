"""`evaluate_answers`: confirmation verdicts against the gold's `expected_value`.

A gold value is compared with the confirmed one as a typed value when both parse as the
question's answer type (`480 EUR` = `EUR 480.00`, `1 March 2024` = `2024-03-01`), and as
folded text otherwise. `none` in the gold says the documents do not hold the answer: the
right verdict is then `not_found` or `no_evidence`, and a confirmed value is a false one.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..analysis.text import fold_phrase as fold
from ..satellites import Satellites, bundled_satellites
from .gold import read_gold
from .metrics import Evaluation, frames
from .retrieval import to_polars

NO_ANSWER = frozenset({"none", "not_found", "∅", "-"})
_NO_VALUE_VERDICTS = ("not_found", "no_evidence")


def evaluate_answers(
    verdicts: Any, gold: Any, *, satellites: Satellites | None = None, as_: str = "pandas"
) -> Evaluation:
    """Score the verdicts of `quaestio.confirm.confirm` against the gold's `expected_value`.

    Args:
        verdicts: the `verdicts` frame of a `Confirmation` (question_id, answer_type,
            verdict, value, value_text), any engine.
        gold: a gold file or frame with an `expected_value` column.
        satellites: the tables whose answer-type patterns parse both values.

    Returns an `Evaluation` whose metrics row `expected_value` holds accuracy over the gold
    rows with an expected value, precision (right values among those confirmed) and recall
    (right values among the answers the gold expects); the confusion counts expected
    value/none against the verdict; the failure modes are `wrong_value` (another value
    was confirmed), `missed_value` (none was, though the gold has one), `false_value` (one
    was, though the gold says none), `unconfirmable_type` (the question's answer type has
    no patterns, e.g. text: a wrong type, or rows to add) and `missing_row` (no verdict).
    """
    from ..confirm import find_values

    sats = satellites if satellites is not None else bundled_satellites()
    gold_df = read_gold(gold, sats)
    if "expected_value" not in gold_df.columns:
        raise ValueError("the gold has no 'expected_value' column")
    got = to_polars(verdicts)
    missing = {"question_id", "verdict", "value_text", "answer_type"} - set(got.columns)
    if missing:
        raise ValueError(
            f"verdicts have no {', '.join(sorted(missing))} column(s): pass "
            "the `verdicts` frame of confirm()"
        )
    by_id = {row["question_id"]: row for row in got.iter_rows(named=True)}

    def typed(text: str, answer_type: str | None) -> Any:
        if answer_type and answer_type != "text":
            values = find_values(text, answer_type, satellites=sats)
            if len(values) == 1 and values[0].value is not None:
                return values[0].value
        return fold(text).strip()

    confusion, failures = [], []
    correct = confirmed = right_confirmed = expected_values = 0
    rows = gold_df.filter(pl.col("expected_value").is_not_null())
    for gold_row in rows.iter_rows(named=True):
        want = gold_row["expected_value"]
        wants_none = fold(want).strip() in NO_ANSWER
        expected_values += not wants_none
        verdict = by_id.get(gold_row["question_id"])
        outcome = verdict["verdict"] if verdict else "missing"
        found = outcome == "found"
        confirmed += found
        mode: str | None
        if verdict is None:
            mode = "missing_row"
        elif wants_none:
            mode = "false_value" if found else None
        elif outcome == "skipped":  # no patterns for the type: nothing could confirm it
            mode = "unconfirmable_type"
        elif not found:
            mode = "missed_value"
        else:
            answer_type = verdict["answer_type"]
            mode = (
                None
                if typed(verdict["value_text"], answer_type) == typed(want, answer_type)
                else "wrong_value"
            )
        right_confirmed += found and mode is None
        correct += mode is None
        confusion.append(
            {
                "field": "expected_value",
                "expected": "none" if wants_none else "value",
                "got": "found (wrong)" if mode == "wrong_value" else outcome,
            }
        )
        if mode:
            failures.append(
                {
                    "question_id": gold_row["question_id"],
                    "question": gold_row["question"],
                    "field": "expected_value",
                    "expected": want,
                    "got": (verdict or {}).get("value_text") or outcome,
                    "failure_mode": mode,
                }
            )
    n = rows.height
    precision = right_confirmed / confirmed if confirmed else None
    recall = (right_confirmed / expected_values) if expected_values else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else None
    metrics = [
        {
            "field": "expected_value",
            "kind": "value",
            "n": n,
            "correct": correct,
            "accuracy": correct / n if n else None,
            "precision": precision,
            "recall": recall,
            "f1": f1,
        }
    ]
    return frames(metrics, confusion, failures, gold_df.height, as_)
