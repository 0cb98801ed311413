"""question_df and hits_df in any form (pandas, polars, Arrow, ParsedQuestion rows), read once.

Only the columns confirmation needs are read, so a hand-made frame with `question_id`,
`answer_type` and `keywords` works as well as a full question_df.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ..errors import QuaestioError
from ..satellites import Satellites
from ..types import DetectContext, ParsedQuestion

ZONES = tuple(m.value for m in DetectContext)


class ConfirmInputError(QuaestioError, ValueError):
    """A question or hit that cannot be confirmed: names the table, row, column and value."""

    def __init__(self, table: str, row: int | None, column: str, value: Any, reason: str):
        self.table, self.row, self.column, self.value = table, row, column, value
        where = (
            f"{table} row {row}, column {column!r}"
            if row is not None
            else f"{table}, column {column!r}"
        )
        super().__init__(f"{where}: {reason} (got {value!r:.120})")


@dataclass(frozen=True)
class Question:
    question_id: str
    answer_type: str
    zone: str
    language: str | None
    keywords: tuple[tuple[str, float, bool], ...]  # (text, weight, is_regex)


def _table(frame: Any, name: str) -> pa.Table:
    if isinstance(frame, pa.Table):
        return frame
    if isinstance(frame, pa.RecordBatch):
        return pa.Table.from_batches([frame])
    if "polars" in sys.modules and isinstance(frame, sys.modules["polars"].DataFrame):
        return frame.to_arrow()
    if "pandas" in sys.modules and isinstance(frame, sys.modules["pandas"].DataFrame):
        return pa.Table.from_pandas(frame, preserve_index=False)
    if isinstance(frame, list) and all(isinstance(r, dict) for r in frame):
        return pa.Table.from_pylist(frame)
    raise TypeError(
        f"{name}: expected a pandas, polars or Arrow table, got {type(frame).__name__}"
    )


def read_questions(question_df: Any, sats: Satellites) -> list[Question]:
    """One `Question` per row; a ParsedQuestion or a list of them is accepted too."""
    if isinstance(question_df, ParsedQuestion):
        question_df = [question_df]
    if (
        isinstance(question_df, list)
        and question_df
        and all(isinstance(q, ParsedQuestion) for q in question_df)
    ):
        records = [
            {
                "question_id": q.question_id,
                "answer_type": q.answer_type,
                "detect_context": q.hints.detect_context,
                "language": q.language,
                "keywords": [k.model_dump() for k in q.keywords],
            }
            for q in question_df
        ]
    else:
        table = _table(question_df, "question_df")
        for column in ("question_id", "answer_type"):
            if column not in table.column_names:
                raise ConfirmInputError(
                    "question_df", None, column, table.column_names, "required column is missing"
                )
        names = [
            c
            for c in ("question_id", "answer_type", "detect_context", "language", "keywords")
            if c in table.column_names
        ]
        records = table.select(names).to_pylist()
    known = dict(sats.answer_types.select("answer_type", "detect_context").iter_rows())
    questions, seen = [], set()
    for row, rec in enumerate(records):
        qid, answer_type = rec.get("question_id"), rec.get("answer_type") or "text"
        if not isinstance(qid, str) or not qid:
            raise ConfirmInputError(
                "question_df", row, "question_id", qid, "must be a non-empty string"
            )
        if qid in seen:
            raise ConfirmInputError("question_df", row, "question_id", qid, "duplicate id")
        seen.add(qid)
        if answer_type not in known:
            raise ConfirmInputError(
                "question_df",
                row,
                "answer_type",
                answer_type,
                f"not a row of answer_types ({', '.join(sorted(known))})",
            )
        zone = str(rec.get("detect_context") or known[answer_type] or "sentence")
        if zone not in ZONES:
            raise ConfirmInputError(
                "question_df", row, "detect_context", zone, f"must be one of {', '.join(ZONES)}"
            )
        questions.append(
            Question(
                qid, answer_type, zone, rec.get("language"), _keywords(rec.get("keywords"), row)
            )
        )
    return questions


def _keywords(raw: Any, row: int) -> tuple[tuple[str, float, bool], ...]:
    out = []
    for item in raw or []:
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise ConfirmInputError(
                "question_df",
                row,
                "keywords",
                item,
                "each keyword must be a string or a struct with a text",
            )
        weight = item.get("weight")
        out.append(
            (item["text"], 1.0 if weight is None else float(weight), bool(item.get("is_regex")))
        )
    return tuple(k for k in out if k[0].strip())


def read_hits(hits_df: Any, text_column: str) -> dict[str, list]:
    """The columns of hits_df as lists; chunk_id defaults to the row index, rank to the
    order of a question's hits."""
    table = _table(hits_df, "hits_df")
    for column in ("question_id", text_column):
        if column not in table.column_names:
            raise ConfirmInputError(
                "hits_df",
                None,
                column,
                table.column_names,
                "required column is missing (text_column= names the passage text)"
                if column == text_column
                else "required column is missing",
            )
    n = table.num_rows

    def col(c: str) -> list | None:
        return table.column(c).to_pylist() if c in table.column_names else None

    question_ids: list = table.column("question_id").to_pylist()
    texts: list = table.column(text_column).to_pylist()
    chunk = col("chunk_id")
    for row, (qid, text) in enumerate(zip(question_ids, texts)):
        if not isinstance(qid, str):
            raise ConfirmInputError("hits_df", row, "question_id", qid, "must be a string")
        if text is not None and not isinstance(text, str):
            raise ConfirmInputError("hits_df", row, text_column, text, "must be text")
    ranks = col("rank")
    if ranks is None:
        counts: dict[str, int] = {}
        ranks = []
        for qid in question_ids:
            counts[qid] = counts.get(qid, 0) + 1
            ranks.append(counts[qid])
    return {
        "question_id": question_ids,
        "text": texts,
        "chunk_id": [str(i) if c is None else str(c) for i, c in enumerate(chunk or [None] * n)],
        "doc_id": [None if d is None else str(d) for d in (col("doc_id") or [None] * n)],
        "score": col("score") or [None] * n,
        "rank": ranks,
    }
