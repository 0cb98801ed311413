"""Reading one satellite CSV file with the line number of every row and of every problem.

polars reads well-formed files fastest, but says neither which line of which file is ragged
nor where a quote was left open; a table an analyst edits by hand is small, so the csv
module reads it here, record by record, keeping the line each record starts on.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import polars as pl


def read_csv_rows(data: bytes, label: str, table: str) -> tuple[pl.DataFrame | None, list[dict]]:
    """(the rows as string columns plus `_row`, the line each starts on; the failures).

    A file that cannot be decoded, has no header, repeats a column, leaves a quote open
    or holds a row with more or fewer fields than its header is one failure each, named
    by file and line; the frame is None when nothing can be trusted.
    """
    text, problem = _decode(data)
    if problem is not None:
        return None, [_case(label, table, problem[0], problem[1])]
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        return None, [_case(label, table, 1, f"the header cannot be read: {exc}")]
    if not header:
        return None, [_case(label, table, 1, "empty file: a CSV needs a header line")]
    header = [h.strip() for h in header]
    failures = [
        _case(label, table, 1, f"column {name!r} is named twice in the header")
        for n, name in enumerate(header)
        if name in header[:n]
    ]
    rows: list[list[str | None]] = []
    lines: list[int] = []
    while True:
        start = reader.line_num + 1
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            failures.append(_case(label, table, start, _quote_problem(exc)))
            break
        if not record:
            continue  # a blank line
        if len(record) != len(header):
            failures.append(
                _case(
                    label,
                    table,
                    start,
                    f"{len(record)} fields where the header has {len(header)}: "
                    f"a missing or extra comma, or a comma inside an unquoted "
                    f"value (quote it)",
                )
            )
            continue
        rows.append([v if v != "" else None for v in record])
        lines.append(start)
    if failures:
        return None, failures
    columns = {name: [r[i] for r in rows] for i, name in enumerate(header)}
    frame = pl.DataFrame(columns, schema={name: pl.String for name in header})
    return frame.with_columns(pl.Series("_row", lines, dtype=pl.Int64)), []


def _decode(data: bytes) -> tuple[str, tuple[int, str] | None]:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace"), None  # UTF-16 with a BOM, as Excel saves it
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    head = data[:4096]
    if b"\x00" in head:  # no text file holds NUL: UTF-16 without its byte-order mark
        order = "utf-16-le" if head[1:2] == b"\x00" else "utf-16-be"
        try:
            return data.decode(order), None
        except UnicodeDecodeError:
            return "", (1, "holds NUL bytes but is not UTF-16 either: save it as UTF-8 CSV")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return "", (
            line,
            f"not UTF-8 (byte {exc.start} is {data[exc.start]:#04x}): save it as UTF-8",
        )


def _quote_problem(exc: csv.Error) -> str:
    message = str(exc)
    if "end of data" in message or "EOF" in message:
        return (
            "a quote opened on this line is never closed (the value runs to the end of the file)"
        )
    return f"malformed row: {message}"


def _case(label: str, table: str, line: int, reason: str) -> dict[str, Any]:
    return {
        "source": label,
        "table": table,
        "row": line,
        "column": None,
        "value": None,
        "reason": reason,
    }
