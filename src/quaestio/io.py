"""Reading question files and writing question_df files (CSV, JSONL, Parquet) in chunks."""

from __future__ import annotations

import csv
import json
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from .errors import InputFileError, QuaestioWarning, WarningCode
from .schema import COMPACT_SCHEMA, QUESTION_SCHEMA

FORMATS = ("csv", "jsonl", "parquet")


def polars_from_arrow(table: pa.Table) -> pl.DataFrame:
    """`pl.from_arrow` for a table or record batches, typed as the DataFrame it returns for them.

    (polars types its result as `DataFrame | Series` because an Arrow array gives a Series.)
    """
    frame = pl.from_arrow(table)
    if not isinstance(frame, pl.DataFrame):
        raise TypeError(f"expected an Arrow table, got {type(table).__name__}")
    return frame


def file_format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    fmt = {"ndjson": "jsonl", "json": "jsonl", "pq": "parquet"}.get(suffix, suffix)
    if fmt not in FORMATS:
        raise ValueError(
            f"cannot tell the format of {str(path)!r}: use a .csv, .jsonl or .parquet file"
        )
    return fmt


def iter_questions(
    path: str | Path, chunk_size: int = 5000, *, encoding: str | None = None
) -> Iterator[pl.DataFrame]:
    """Read a question file in chunks of about `chunk_size` rows, never all of it at once.

    CSV columns stay strings so ids keep their leading zeros. Memory is bounded by the
    chunk (and, for Parquet, by the file's row group), whatever the file's size. Text files
    that are not UTF-8 are decoded in the encoding `charset-normalizer` finds (a W304
    warning names it), or in `encoding` when given.

    Raises:
        InputFileError: naming the file (and line or column) when it cannot be read.
    """
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, not {chunk_size!r}")
    fmt = file_format(path)
    if not Path(path).is_file():
        raise FileNotFoundError(f"no such file: {path}")
    if fmt == "parquet":
        try:
            batches = pq.ParquetFile(path).iter_batches(batch_size=chunk_size)
        except (pa.ArrowException, OSError) as exc:
            raise InputFileError(path, f"not a readable Parquet file ({exc})") from exc
        yield from _rechunk(
            path, (polars_from_arrow(pa.Table.from_batches([b])) for b in batches), chunk_size
        )
        return
    encoding = encoding or sniff_encoding(path)
    if fmt == "csv":
        yield from _rechunk(path, _csv_frames(path, encoding), chunk_size)
    else:
        yield from _jsonl_frames(path, encoding, chunk_size)


def _rechunk(path, frames: Iterator[pl.DataFrame], chunk_size: int) -> Iterator[pl.DataFrame]:
    pending: list[pl.DataFrame] = []
    rows = 0
    try:
        for frame in frames:
            pending.append(frame)
            rows += frame.height
            if rows >= chunk_size:
                merged = pl.concat(pending, how="diagonal_relaxed")
                for offset in range(0, merged.height - chunk_size + 1, chunk_size):
                    yield merged.slice(offset, chunk_size)
                rest = merged.height % chunk_size
                pending, rows = ([merged.slice(merged.height - rest)], rest) if rest else ([], 0)
    except (pa.ArrowException, UnicodeDecodeError, pl.exceptions.PolarsError) as exc:
        raise InputFileError(
            path,
            f"cannot be read: {_first_line(exc)}; check the file, "
            f"or force an encoding with --encoding",
        ) from exc
    if rows:
        yield pl.concat(pending, how="diagonal_relaxed")


def _csv_frames(path, encoding: str) -> Iterator[pl.DataFrame]:
    try:
        with open(path, encoding=encoding, newline="") as fh:
            header = next(csv.reader(fh), None)
    except (UnicodeDecodeError, LookupError) as exc:
        raise InputFileError(
            path, f"cannot be decoded as {encoding} ({exc}); force an encoding with --encoding"
        ) from exc
    if not header:
        raise InputFileError(path, "the file is empty: a CSV needs a header line", line=1)
    seen = set()
    for name in header:
        if name in seen:
            raise InputFileError(
                path, "the header names this column twice; rename one", line=1, column=name
            )
        seen.add(name)
    try:
        reader = pa_csv.open_csv(
            path,
            read_options=pa_csv.ReadOptions(block_size=1 << 22, encoding=encoding),
            convert_options=pa_csv.ConvertOptions(
                column_types={name: pa.string() for name in header},
                strings_can_be_null=True,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowException, UnicodeDecodeError) as exc:
        raise InputFileError(path, f"cannot be read as CSV: {_first_line(exc)}") from exc
    for batch in reader:
        yield polars_from_arrow(pa.Table.from_batches([batch]))


def _jsonl_frames(path, encoding: str, chunk_size: int) -> Iterator[pl.DataFrame]:
    # Read line by line with the json module rather than Arrow's reader: a bad line is
    # named by its number, and a lone surrogate escape ("\ud800"), which Arrow refuses for
    # the whole file, costs only that value (replaced by U+FFFD, with a W103 warning).
    records: list[dict] = []
    try:
        with open(path, encoding=encoding, newline="") as fh:
            for line_no, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as exc:
                    raise InputFileError(path, f"not a JSON object: {exc}", line=line_no) from exc
                if not isinstance(record, dict):
                    raise InputFileError(
                        path, f"expected a JSON object, got {type(record).__name__}", line=line_no
                    )
                records.append({k: _utf8(v, path, line_no) for k, v in record.items()})
                if len(records) == chunk_size:
                    yield _frame(records)
                    records = []
    except UnicodeDecodeError as exc:
        raise InputFileError(
            path, f"cannot be decoded as {encoding} ({exc}); force an encoding with --encoding"
        ) from exc
    if records:
        yield _frame(records)


def _frame(records: list[dict]) -> pl.DataFrame:
    return pl.from_dicts(records, strict=False, infer_schema_length=None)


def _utf8(value, path, line_no: int):
    if not isinstance(value, str):
        return value
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        warnings.warn(
            QuaestioWarning(
                WarningCode.W103_TEXT_REPAIRED,
                f"{path} line {line_no}: lone surrogate escape(s) replaced by U+FFFD",
            ),
            stacklevel=4,
        )
        # Through UTF-16 a well-formed pair becomes its character, a lone half U+FFFD.
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def sniff_encoding(path: str | Path, sample: int = 1 << 16) -> str:
    """The encoding of a text file: UTF-8 (with or without a BOM) or UTF-16 by their marks,
    else what `charset-normalizer` finds in its first `sample` bytes (W304 warning)."""
    with open(path, "rb") as fh:
        head = fh.read(sample)
    text, encoding, guessed = decode_bytes(head, partial=len(head) == sample)
    if guessed:
        warnings.warn(
            QuaestioWarning(
                WarningCode.W304_ENCODING_GUESSED, f"{path} is not UTF-8: read as {encoding}"
            ),
            stacklevel=3,
        )
    return encoding


def decode_bytes(
    data: bytes, *, encoding: str | None = None, partial: bool = False
) -> tuple[str, str, bool]:
    """(text, encoding, guessed) for the bytes of a text file.

    UTF-8 (BOM or not) and UTF-16 with a BOM are read as such; anything else is decoded in
    the encoding `charset-normalizer` finds most likely (cp1251, Shift-JIS, cp1252, ...),
    `guessed` then True; latin-1 when it finds none. `encoding` forces one (strict).
    `partial`: the bytes are the head of a longer file and may end inside a character.
    """
    if encoding:
        return data.decode(encoding), encoding, False
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace"), "utf-8-sig", False
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace"), "utf-16", False
    try:
        return data.decode("utf-8"), "utf-8", False
    except UnicodeDecodeError as exc:
        if partial and exc.start >= len(data) - 3:
            return data[: exc.start].decode("utf-8"), "utf-8", False
    import charset_normalizer  # only for files that are not UTF-8

    best = charset_normalizer.from_bytes(data).best()
    if best is not None and best.encoding not in ("utf_8", "ascii"):
        return str(best), best.encoding, True
    return data.decode("latin-1"), "latin-1", True


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class QuestionWriter:
    """Append question_df chunks to one file; nested columns become JSON text in CSV."""

    def __init__(self, path: str | Path):
        self.path, self.format = Path(path), file_format(path)
        self._parquet: pq.ParquetWriter | None = None
        self._fh: TextIO | None = None
        self._header = True

    def write(self, table: pa.Table) -> None:
        if self.format == "parquet":
            if self._parquet is None:
                self._parquet = pq.ParquetWriter(self.path, QUESTION_SCHEMA)
            # Files hold plain strings (Parquet dictionary-encodes them on disk anyway), so
            # readers get QUESTION_SCHEMA whatever form the table was built in.
            if table.schema == COMPACT_SCHEMA:
                table = table.cast(QUESTION_SCHEMA)
            self._parquet.write_table(table)
            return
        if self._fh is None:
            self._fh = self.path.open("w", encoding="utf-8", newline="")
        fh = self._fh
        if self.format == "jsonl":
            for record in table.to_pylist():
                fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            return
        frame = polars_from_arrow(table)
        nested = [c for c, t in frame.schema.items() if t.is_nested()]
        frame = frame.with_columns(
            pl.Series(
                c, [json.dumps(v, ensure_ascii=False, default=str) for v in frame[c].to_list()]
            )
            for c in nested
        )
        fh.write(frame.write_csv(include_header=self._header))
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
