"""Reading question files and writing question_df files (CSV, JSONL, Parquet) in chunks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from .schema import QUESTION_SCHEMA

FORMATS = ("csv", "jsonl", "parquet")


def file_format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    fmt = {"ndjson": "jsonl", "json": "jsonl", "pq": "parquet"}.get(suffix, suffix)
    if fmt not in FORMATS:
        raise ValueError(f"cannot tell the format of {str(path)!r}: use a .csv, .jsonl or "
                         f".parquet file")
    return fmt


def read_questions(path: str | Path) -> pl.DataFrame:
    """Read a question file; every column stays a string so ids keep their leading zeros."""
    fmt = file_format(path)
    if fmt == "csv":
        return pl.read_csv(path, infer_schema=False)
    if fmt == "jsonl":
        return pl.read_ndjson(path)
    return pl.read_parquet(path)


class QuestionWriter:
    """Append question_df chunks to one file; nested columns become JSON text in CSV."""

    def __init__(self, path: str | Path):
        self.path, self.format = Path(path), file_format(path)
        self._parquet: pq.ParquetWriter | None = None
        self._fh = None
        self._header = True

    def write(self, table: pa.Table) -> None:
        if self.format == "parquet":
            if self._parquet is None:
                self._parquet = pq.ParquetWriter(self.path, QUESTION_SCHEMA)
            self._parquet.write_table(table)
            return
        if self._fh is None:
            self._fh = self.path.open("w", encoding="utf-8", newline="")
        if self.format == "jsonl":
            for record in table.to_pylist():
                self._fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            return
        frame = pl.from_arrow(table)
        nested = [c for c, t in frame.schema.items() if t.is_nested()]
        frame = frame.with_columns(
            pl.Series(c, [json.dumps(v, ensure_ascii=False, default=str)
                          for v in frame[c].to_list()]) for c in nested)
        self._fh.write(frame.write_csv(include_header=self._header))
        self._header = False

    def close(self) -> None:
        if self._parquet is not None:
            self._parquet.close()
        if self._fh is not None:
            self._fh.close()

    def __enter__(self) -> QuestionWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def chunks(frame: pl.DataFrame, size: int) -> Iterator[pl.DataFrame]:
    for offset in range(0, frame.height, size):
        yield frame.slice(offset, size)
