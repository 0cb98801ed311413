"""Reading question files and writing question_df files (CSV, JSONL, Parquet) in chunks."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Iterator

import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
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


def iter_questions(path: str | Path, chunk_size: int = 5000) -> Iterator[pl.DataFrame]:
    """Read a question file in chunks of about `chunk_size` rows, never all of it at once.

    CSV columns stay strings so ids keep their leading zeros. Memory is bounded by the
    chunk (and, for Parquet, by the file's row group), whatever the file's size.
    """
    fmt = file_format(path)
    if not Path(path).is_file():
        raise FileNotFoundError(f"no such file: {path}")
    if fmt == "parquet":
        batches = pq.ParquetFile(path).iter_batches(batch_size=chunk_size)
    elif fmt == "csv":
        with open(path, encoding="utf-8", newline="") as fh:
            header = next(csv.reader(fh), [])
        batches = pa_csv.open_csv(
            path, read_options=pa_csv.ReadOptions(block_size=1 << 22),
            convert_options=pa_csv.ConvertOptions(
                column_types={name: pa.string() for name in header},
                strings_can_be_null=True, quoted_strings_can_be_null=False))
    else:
        batches = pa_json.open_json(path, read_options=pa_json.ReadOptions(block_size=1 << 22))
    pending: list[pl.DataFrame] = []
    rows = 0
    for batch in batches:
        pending.append(pl.from_arrow(pa.Table.from_batches([batch])))
        rows += batch.num_rows
        if rows >= chunk_size:
            merged = pl.concat(pending, how="diagonal_relaxed")
            for offset in range(0, merged.height - chunk_size + 1, chunk_size):
                yield merged.slice(offset, chunk_size)
            rest = merged.height % chunk_size
            pending, rows = ([merged.slice(merged.height - rest)], rest) if rest else ([], 0)
    if rows:
        yield pl.concat(pending, how="diagonal_relaxed")


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
