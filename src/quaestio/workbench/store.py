"""The satellite folder as the workbench sees it: files of raw rows, one validated snapshot.

The folder stays the source of truth. A `Snapshot` holds every table file's rows as strings
(exactly as written), the validated `Satellites` built from them, and a signature of the
files (name, mtime, size): when git or an editor changes a file, the next request reloads.
After a save the workbench builds the next snapshot itself from the rows it validated, so an
analyst's hundredth admission costs no more than the first.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import SatelliteError
from ..satellites import SPECS, TABLES, Satellites, load_satellites

LOG_DIR = "curation"  # beside the tables; the loader reads only the folder's own files


@dataclass
class TableFile:
    """One file of a table: its rows as the analyst wrote them (strings, empty = null)."""

    name: str  # file name inside the folder, e.g. concept_keywords.discovery.csv
    table: str
    frame: pl.DataFrame
    editable: bool = True  # Parquet files are shown, not rewritten


@dataclass
class Snapshot:
    """Every table file of the folder at one moment, and the tables validated from them."""

    folder: Path
    files: dict[str, list[TableFile]]  # table -> its files in the loader's order
    sats: Satellites | None  # None when the folder does not load
    failures: list[dict[str, Any]]  # the loader's failure cases when it does not
    signature: tuple

    def loaded(self) -> Satellites:
        """The validated tables, for the steps that need a folder that loads."""
        if self.sats is None:
            raise RuntimeError(
                f"the satellite folder {self.folder} does not load "
                f"({len(self.failures)} failures): fix it first"
            )
        return self.sats

    def in_folder(self, table: str) -> bool:
        return bool(self.files.get(table))

    def rows(self, table: str) -> list[tuple[TableFile, int, dict[str, Any]]]:
        """(file, index in file, row) for every row the folder holds for `table`."""
        out = []
        for tf in self.files.get(table, []):
            for i, rec in enumerate(tf.frame.iter_rows(named=True)):
                out.append((tf, i, rec))
        return out

    def find(self, table: str, key: dict[str, Any]) -> tuple[TableFile, int, dict] | None:
        want = key_of(table, key)
        for tf, i, rec in self.rows(table):
            if key_of(table, rec) == want:
                return tf, i, rec
        return None


def clean(value: Any) -> str | None:
    """A cell as the loader reads it: stripped text, empty meaning none."""
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def key_of(table: str, row: dict[str, Any]) -> tuple:
    return (
        tuple(clean(row.get(k)) for k in SPECS[table].key)
        if table in SPECS
        else tuple(clean(row.get(k)) for k in SIDE_TABLES[table])
    )


def key_text(table: str, row: dict[str, Any]) -> str:
    return " / ".join(v or "" for v in key_of(table, row))


def row_version(row: dict[str, Any] | None) -> str:
    """A short hash of a row's cells: what an editor saw when it opened the row."""
    if row is None:
        return "absent"
    cells = {k: clean(v) for k, v in row.items() if clean(v) is not None}
    return hashlib.sha1(
        json.dumps(cells, sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()[:12]


# Files beside the tables that the workbench also edits: rejected new-concept phrases.
SIDE_TABLES = {"rejected_phrases": ("language", "keyword")}
SIDE_FILES = {"rejected_phrases": f"{LOG_DIR}/rejected_phrases.csv"}


def table_of(name: str) -> str | None:
    """The table a file of the folder belongs to (the loader's rule), or None."""
    stem = name.split(".")[0]
    if not name.endswith((".csv", ".parquet")) or stem not in SPECS:
        return None
    return stem


def signature(folder: Path) -> tuple:
    entries = []
    for entry in sorted(folder.iterdir()):
        if entry.is_file() and entry.suffix in (".csv", ".parquet"):
            st = entry.stat()
            entries.append((entry.name, st.st_mtime_ns, st.st_size))
    for name in SIDE_FILES.values():
        path = folder / name
        if path.exists():
            st = path.stat()
            entries.append((name, st.st_mtime_ns, st.st_size))
    return tuple(entries)


def read_files(folder: Path) -> dict[str, list[TableFile]]:
    files: dict[str, list[TableFile]] = {name: [] for name in (*TABLES, *SIDE_TABLES)}
    for entry in sorted(folder.iterdir(), key=str):
        table = table_of(entry.name) if entry.is_file() else None
        if table is None:
            continue
        if entry.suffix == ".parquet":
            frame = pl.read_parquet(entry).with_columns(pl.all().cast(pl.String))
            files[table].append(TableFile(entry.name, table, frame, editable=False))
        else:
            files[table].append(
                TableFile(entry.name, table, pl.read_csv(entry, infer_schema=False))
            )
    for table, name in SIDE_FILES.items():
        path = folder / name
        if path.exists():
            files[table].append(TableFile(name, table, pl.read_csv(path, infer_schema=False)))
    return files


class Store:
    """The snapshot of one folder, reloaded when its files change, and the folder's lock."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).resolve()
        if not self.folder.is_dir():
            raise SatelliteError(
                [
                    {
                        "source": str(folder),
                        "table": None,
                        "row": None,
                        "column": None,
                        "value": str(folder),
                        "reason": "not a folder of satellite tables",
                    }
                ]
            )
        self.lock = threading.RLock()  # one writer at a time inside this process
        self._snapshot: Snapshot | None = None

    def snapshot(self) -> Snapshot:
        with self.lock:
            sig = signature(self.folder)
            if self._snapshot is None or self._snapshot.signature != sig:
                self._snapshot = self._load(sig)
            return self._snapshot

    def replace(self, snapshot: Snapshot) -> None:
        """Adopt a snapshot built from rows just written (its signature read afresh)."""
        with self.lock:
            snapshot.signature = signature(self.folder)
            self._snapshot = snapshot

    def _load(self, sig: tuple) -> Snapshot:
        files = read_files(self.folder)
        try:
            sats, failures = load_satellites(self.folder), []
        except SatelliteError as exc:
            sats, failures = None, exc.failure_cases
        return Snapshot(self.folder, files, sats, failures, sig)
