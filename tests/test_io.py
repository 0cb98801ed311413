"""Streaming question files: every row once, in order, in bounded chunks, in every format."""

from __future__ import annotations

import json

import polars as pl
import pytest

from quaestio.io import iter_questions


@pytest.fixture
def questions():
    return pl.DataFrame({"id": ["007", "008", "009", "010", "011"],
                         "question": ["a?", None, "c, with a comma?", "d?", "é?"]})


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
@pytest.mark.parametrize("size", [1, 2, 5, 100])
def test_every_row_once_in_order(tmp_path, questions, fmt, size):
    path = tmp_path / f"q.{fmt}"
    if fmt == "csv":
        questions.write_csv(path)
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in questions.to_dicts()))
    else:
        questions.write_parquet(path, row_group_size=2)
    parts = list(iter_questions(path, size))
    assert all(p.height <= size for p in parts)
    assert sum(p.height for p in parts[:-1]) == size * (len(parts) - 1)  # only the last is short
    merged = pl.concat(parts)
    assert merged["id"].to_list() == ["007", "008", "009", "010", "011"]  # leading zeros kept
    assert merged["question"].to_list() == questions["question"].to_list()


def test_missing_and_unknown_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        next(iter_questions(tmp_path / "nope.csv"))
    with pytest.raises(ValueError, match="cannot tell the format"):
        next(iter_questions(tmp_path / "q.xlsx"))
