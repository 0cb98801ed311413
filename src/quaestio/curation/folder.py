"""Writing rows into an analyst's satellite folder: validated first, replaced atomically.

New rows are validated by the one satellite validator (`load_satellites(folder, extra=...)`)
together with everything already in the folder, so a duplicate or an unknown concept is
caught exactly as it would be at load time. Only then are files written, each to a temporary
file in the same folder and moved over the old one with `os.replace`: a reader sees the old
file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping, Set
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import SatelliteError
from ..satellites import SPECS, Satellites, load_satellites


def require_table_files(folder: Path, table: str) -> None:
    """A folder that lacks a table gets it from the bundled defaults; writing one file of it
    there would silently hide every bundled row, so refuse instead."""
    if not folder.is_dir():
        raise SatelliteError(
            [
                _case(
                    str(folder), table, None, None, str(folder), "not a folder of satellite tables"
                )
            ]
        )
    if not any(_is_table_file(p, table) for p in folder.iterdir()):
        raise SatelliteError(
            [
                _case(
                    str(folder),
                    table,
                    None,
                    None,
                    None,
                    f"the folder holds no {table} file, so its rows come from "
                    f"the bundled defaults; run `quaestio satellites export "
                    f"{folder}` first to start from a copy of them",
                )
            ]
        )


def _is_table_file(path: Path, table: str) -> bool:
    return path.suffix in (".csv", ".parquet") and path.name.split(".")[0] == table


@contextmanager
def staged(folder: Path, skip: Set[str] = frozenset()) -> Iterator[Path]:
    """A temporary view of `folder` (symlinks) without the files named in `skip`."""
    with tempfile.TemporaryDirectory(prefix="quaestio-stage-") as tmp:
        for entry in folder.iterdir():
            if entry.is_file() and entry.name not in skip:
                os.symlink(entry.resolve(), Path(tmp) / entry.name)
        yield Path(tmp)


def validate_with(
    folder: Path,
    extra: Mapping[str, pl.DataFrame],
    *,
    skip: Set[str] = frozenset(),
    labels: Mapping[str, tuple[str, list[Any]]] | None = None,
) -> Satellites:
    """Load `folder` (minus `skip`) plus `extra` rows; failures name the real files.

    `labels[table] = (file label, row labels)` renames the failures of the extra rows of
    `table` from DataFrame positions to the caller's file and line numbers.
    """
    with staged(folder, skip) as view:
        try:
            return load_satellites(view, extra=dict(extra))
        except SatelliteError as exc:
            cases = [_relabel(c, view, folder, labels or {}) for c in exc.failure_cases]
            raise SatelliteError(_unique(cases)) from None


def _relabel(case: dict, view: Path, folder: Path, labels: Mapping) -> dict:
    case = dict(case)
    source = str(case.get("source") or "")
    if source.startswith("extra["):
        table = source.split("'")[1]
        if table in labels:
            label, rows = labels[table]
            case["source"] = label
            if case.get("row") is not None:
                case["row"] = rows[case["row"]]
    elif source.startswith(str(view)):
        case["source"] = str(folder) + source[len(str(view)) :]
    return case


def _unique(cases: list[dict]) -> list[dict]:
    seen, out = set(), []
    for c in cases:
        key = (c["source"], c["row"], c["column"], str(c["value"]), c["reason"])
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _case(source, table, row, column, value, reason) -> dict[str, Any]:
    return {
        "source": source,
        "table": table,
        "row": row,
        "column": column,
        "value": value,
        "reason": reason,
    }


def read_rows(path: Path) -> pl.DataFrame:
    """A satellite CSV as strings, exactly as the analyst wrote it (empty if absent)."""
    if not path.exists():
        return pl.DataFrame()
    return pl.read_csv(path, infer_schema=False)


def write_atomically(files: Mapping[Path, pl.DataFrame]) -> list[Path]:
    """Write every frame to a temporary file first, then move each into place.

    If a move fails, the files already moved are put back, so the folder ends as it was.
    """
    temps: list[tuple[Path, Path]] = []
    try:
        for path, frame in files.items():
            fd, tmp_name = tempfile.mkstemp(
                prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
            )
            os.close(fd)
            frame.write_csv(tmp_name, date_format="%Y-%m-%d")
            temps.append((Path(tmp_name), path))
        backups: list[tuple[Path, bytes | None]] = []
        try:
            for tmp, path in temps:
                backups.append((path, path.read_bytes() if path.exists() else None))
                os.replace(tmp, path)
        except OSError:
            for path, data in backups:
                if data is None:
                    path.unlink(missing_ok=True)
                else:
                    path.write_bytes(data)
            raise
    finally:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
    return list(files)


def ordered(frame: pl.DataFrame, table: str) -> pl.DataFrame:
    """Columns in the table's declared order, strings throughout."""
    names = [c for c in SPECS[table].column_names if c in frame.columns]
    return frame.select(pl.col(n).cast(pl.String) for n in names)
