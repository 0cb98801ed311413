"""What a change would do to parsed questions: one typed question, or a whole question set."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from ..satellites import Satellites

# The columns an analyst reads in a re-parse diff (the others follow from these).
DIFF_COLUMNS = (
    "concepts",
    "keywords",
    "answer_type",
    "answer_shape",
    "decomposition_pattern",
    "suggested_clarification",
    "scope_jurisdictions",
    "pages_hint",
)
TRY_COLUMNS = (
    "language",
    "concepts",
    "answer_type",
    "answer_shape",
    "decomposition_pattern",
    "suggested_clarification",
    "chunk_strategy",
    "retrieval_k",
)


def read_questions(source: str | Path | Sequence[str] | None) -> list[str]:
    """Questions from a list, a .txt (one a line), .csv/.jsonl/.parquet (`question` column)."""
    if source is None:
        return []
    if not isinstance(source, (str, Path)):
        return [str(q) for q in source if str(q).strip()]
    path = Path(source)
    if path.suffix == ".txt":
        return [
            line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
        ]
    reader = {
        ".csv": lambda p: pl.read_csv(p, infer_schema=False),
        ".jsonl": pl.read_ndjson,
        ".parquet": pl.read_parquet,
    }.get(path.suffix)
    if reader is None:
        raise ValueError(f"{path}: give questions as .txt, .csv, .jsonl or .parquet")
    frame = reader(path)
    column = next((c for c in ("question", "original_question") if c in frame.columns), None)
    if column is None:
        raise ValueError(f"{path}: no 'question' column (columns: {', '.join(frame.columns)})")
    return [q for q in frame[column].cast(pl.String).to_list() if q and q.strip()]


def keyword_texts(value: Any) -> list[str]:
    """A keywords cell as 'text (source, concept)' strings, for a readable diff."""
    items = json.loads(value) if isinstance(value, str) else (value or [])
    return [
        f"{k.get('text')} ({k.get('source')}{', ' + k['concept'] if k.get('concept') else ''})"
        for k in items
    ]


def try_question(question: str, old: Satellites, new: Satellites) -> list[dict[str, Any]]:
    """One question parsed with both versions: column, before, after, changed."""
    from ..analysis import parse_questions

    a = parse_questions([question], old, as_="polars").row(0, named=True)
    b = parse_questions([question], new, as_="polars").row(0, named=True)
    out = []
    for col in TRY_COLUMNS:
        out.append(
            {
                "column": col,
                "before": _show(a[col]),
                "after": _show(b[col]),
                "changed": a[col] != b[col],
            }
        )
    ka, kb = keyword_texts(a["keywords"]), keyword_texts(b["keywords"])
    out.append(
        {
            "column": "keywords",
            "before": ka,
            "after": kb,
            "changed": ka != kb,
            "added": [k for k in kb if k not in ka],
            "removed": [k for k in ka if k not in kb],
        }
    )
    return out


def reparse(questions: list[str], old: Satellites, new: Satellites) -> list[dict[str, Any]]:
    """Every question whose parse changes: question, column, before, after (keywords as
    added/removed texts)."""
    from ..curation import reparse_changes

    if not questions or old is new:
        return []
    changes = reparse_changes(questions, old, new, columns=DIFF_COLUMNS)
    out = []
    for rec in changes.iter_rows(named=True):
        row = {
            "question": rec["original_question"],
            "column": rec["column"],
            "before": rec["old_value"],
            "after": rec["new_value"],
        }
        if rec["column"] == "keywords":
            ka, kb = keyword_texts(rec["old_value"]), keyword_texts(rec["new_value"])
            row.update(
                added=[k for k in kb if k not in ka], removed=[k for k in ka if k not in kb]
            )
        out.append(row)
    return out


def table_diff(old: Satellites, new: Satellites, tables: Sequence[str]) -> list[dict[str, Any]]:
    from ..curation import satellite_diff

    if old is new or not tables:
        return []
    return satellite_diff(old, new, tables=tables).to_dicts()


def _show(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)
