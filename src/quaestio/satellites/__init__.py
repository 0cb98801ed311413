"""Load, validate and hold the satellite tables that drive every parse step.

Analysts change behaviour by adding rows. A table may be split over several files
(`concept_keywords.csv`, `concept_keywords.insurance.csv`, ...); they are concatenated.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import SatelliteError
from . import facts
from .csvfile import read_csv_rows
from .defaults import Defaults, parse_defaults
from .lexicon import expand_head_nouns
from .schemas import SPECS, TABLES, drop_inert_rows, validate_links, validate_table

__all__ = ["Satellites", "load_satellites", "bundled_satellites", "TABLES", "SPECS"]

FrameLike = Any  # a polars or pandas DataFrame


@dataclass(frozen=True, eq=False)
class Satellites:
    """The validated satellite tables (polars DataFrames) and where each came from.

    Compiled artefacts (keyword automaton, regexes) are built on first use and kept on the
    instance, so one `Satellites` serves any number of parses without rebuilding.
    """

    tables: Mapping[str, pl.DataFrame]
    origins: Mapping[str, tuple[str, ...]]
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def table(self, name: str, *, as_: str = "polars"):
        """One table, as a polars (default) or pandas DataFrame."""
        if name not in self.tables:
            from ..errors import UnknownNameError

            raise UnknownNameError("satellite table", name, self.tables)
        frame = self.tables[name]
        return frame.to_pandas() if as_ == "pandas" else frame

    def __getattr__(self, name: str) -> pl.DataFrame:
        if name in TABLES:
            return self.tables[name]
        raise AttributeError(name)

    @cached_property
    def defaults(self) -> Defaults:
        return parse_defaults(self.tables["defaults"])

    @cached_property
    def version(self) -> str:
        """A short content hash: rows in question_df name the dictionary that produced them."""
        digest = hashlib.sha256()
        for name in TABLES:
            digest.update(name.encode())
            digest.update(self.tables[name].write_csv().encode())
        return digest.hexdigest()[:12]

    def cached(self, key: str, build: Callable[[Satellites], Any]) -> Any:
        """Build an artefact from these tables once, then reuse it."""
        if key not in self._cache:
            self._cache[key] = build(self)
        return self._cache[key]

    def stats(self) -> pl.DataFrame:
        """Rows per table, with the files they came from."""
        return pl.DataFrame(
            {
                "table": list(TABLES),
                "rows": [self.tables[t].height for t in TABLES],
                "sources": [", ".join(self.origins[t]) for t in TABLES],
            }
        )

    def write(self, folder: str | Path) -> list[Path]:
        """Write every table as CSV into `folder`: a starting point for an analyst's own set."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in TABLES:
            path = out / f"{name}.csv"
            self.tables[name].write_csv(path, date_format="%Y-%m-%d")
            written.append(path)
        return written


def load_satellites(
    path: str | Path | None = None,
    *,
    extra: Mapping[str, FrameLike | Sequence[FrameLike]] | None = None,
    override: bool = False,
) -> Satellites:
    """Load and validate the satellite tables.

    Args:
        path: A folder of `TABLE.csv` / `TABLE.*.csv` / `.parquet` files. Tables the folder
            does not hold come from the bundled defaults. None loads the bundled defaults.
        extra: Rows to add, as {table name: DataFrame or list of DataFrames} (pandas or polars).
        override: When an extra row has the key of an existing row, replace it instead of
            reporting a duplicate key.

    Returns:
        A `Satellites` holding every table, typed and validated.

    Raises:
        SatelliteError: listing every bad row at once (file, row, column, value, reason).

    Examples:
        >>> sats = load_satellites()
        >>> sats.concepts.filter(concept="premium").height
        1
    """
    bundled = resources.files("quaestio.satellites") / "data"
    kept = None if extra else _kept_file(path, bundled, override)
    if kept is not None:
        known = _read_kept(kept)
        if known is not None:
            return known
    raw: dict[str, list[pl.DataFrame]] = {name: [] for name in TABLES}
    failures: list[dict] = []
    folder_tables = _read_folder(Path(path), raw, failures) if path is not None else set()
    for name in TABLES:
        if name not in folder_tables:
            _read_files(name, sorted(_table_files(bundled, name)), raw, failures, "bundled:")
    for name, frames in (extra or {}).items():
        if name not in SPECS:
            failures.append(
                {
                    "source": "extra",
                    "table": name,
                    "row": None,
                    "column": None,
                    "value": name,
                    "reason": _unknown_table(name),
                }
            )
            continue
        for i, frame in enumerate(frames if isinstance(frames, (list, tuple)) else [frames]):
            raw[name].append(_from_user_frame(frame, f"extra[{name!r}][{i}]"))
    tables: dict[str, pl.DataFrame] = {}
    origins: dict[str, tuple[str, ...]] = {}
    for name, spec in SPECS.items():
        frame = _concat(raw[name])
        key = [k for k in spec.key if k in frame.columns]
        if override and key:
            frame = frame.unique(subset=key, keep="last", maintain_order=True)
        if name == "cues":  # head_nouns is typed by now: it comes first in SPECS
            frame, unfilled = expand_head_nouns(frame, tables["head_nouns"])
            failures += [_unfilled(frame, *u) for u in unfilled]
        typed, problems = validate_table(spec, frame, parts=raw[name])
        failures += problems
        tables[name] = typed
        origins[name] = tuple(typed["_source"].unique(maintain_order=True).to_list())
    # Links and defaults are checked even when some rows failed, on the rows that did
    # type, so that one load lists every problem.
    failures += validate_links(tables)
    if {"key", "value"} <= set(tables["defaults"].columns):
        failures += _defaults_failures(tables["defaults"])
    if failures:
        raise SatelliteError(failures)
    clean = {n: t.drop("_source", "_row") for n, t in drop_inert_rows(tables).items()}
    if kept is not None:
        _write_kept(kept, clean, origins)
    return Satellites(clean, origins)


# Reading, typing and validating the ~30 files of a table set costs a seventh of a second,
# the largest part of a one-question `quaestio parse` after imports. A set that loaded
# without a problem is kept for the next process in `$QUAESTIO_CACHE` (the cache of
# `facts`: same switch, sealed files), as Arrow IPC per table, under a name that hashes every
# file it read, the loader's own code and the polars version: a changed row, file or rule of
# validation is a new name, and a set with any problem is never kept (its errors are always
# reported in full). Rows added through `extra=` are not kept.
_KEPT_FORMAT = 1
_KEPT_SETS = 8  # table sets kept in the cache folder, the most recently written
_LOADER_MODULES = ("__init__", "csvfile", "defaults", "lexicon", "schemas")


def _kept_file(path: str | Path | None, bundled, override: bool) -> Path | None:
    digest = hashlib.sha256(f"{_KEPT_FORMAT}\0{pl.__version__}\0{override}".encode())
    here = Path(__file__).parent
    for module in _LOADER_MODULES:
        digest.update((here / f"{module}.py").read_bytes())
    folders = [bundled] + ([Path(path)] if path is not None else [])
    try:
        for folder in folders:
            entries = sorted(folder.iterdir(), key=lambda e: e.name) if folder.is_dir() else []
            digest.update(f"\0folder\0{len(entries)}".encode())
            for entry in entries:
                if entry.name.endswith((".csv", ".parquet")):
                    data = entry.read_bytes()
                    digest.update(f"\0{entry.name}\0{len(data)}\0".encode() + data)
    except OSError:
        return None  # the load itself reports what cannot be read
    return facts.cache_file(f"satellites-v{_KEPT_FORMAT}-{digest.hexdigest()[:32]}.marshal")


def _read_kept(path: Path) -> Satellites | None:
    """The kept tables, or None unless the file is whole and holds every table."""
    kept = facts.read_sealed(path)
    if not isinstance(kept, dict) or set(kept) != {"tables", "origins"}:
        return None
    blobs, origins = kept["tables"], kept["origins"]
    if not (isinstance(blobs, dict) and isinstance(origins, dict)):
        return None
    if set(blobs) != set(TABLES) or set(origins) != set(TABLES):
        return None
    try:
        tables = {name: pl.read_ipc(io.BytesIO(blobs[name])) for name in TABLES}
    except Exception:  # not Arrow IPC after all: load from the files again
        return None
    return Satellites(tables, {name: tuple(origins[name]) for name in TABLES})


def _write_kept(path: Path, tables: Mapping[str, pl.DataFrame], origins) -> None:
    """Keep the set, and only the `_KEPT_SETS` most recently written sets beside it: an
    analyst's every edit is a new set, and the folder must not grow with each one."""
    blobs = {name: tables[name].write_ipc(None).getvalue() for name in TABLES}
    facts.write_sealed(
        path, {"tables": blobs, "origins": {n: list(o) for n, o in origins.items()}}
    )
    try:
        ours = sorted(
            path.parent.glob("satellites-v*-*.marshal"),
            key=lambda p: p.stat().st_mtime_ns,
            reverse=True,
        )
        for old in ours[_KEPT_SETS:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # another process pruned first; the next write prunes again


_BUNDLED: list[Satellites] = []


def bundled_satellites() -> Satellites:
    """The bundled default tables, loaded once per process."""
    if not _BUNDLED:
        _BUNDLED.append(load_satellites())
    return _BUNDLED[0]


def _table_files(folder, name: str):
    for entry in folder.iterdir():
        stem, _, suffix = entry.name.rpartition(".")
        if suffix in ("csv", "parquet") and (stem == name or stem.startswith(name + ".")):
            yield entry


def _read_folder(folder: Path, raw: dict, failures: list) -> set[str]:
    if not folder.is_dir():
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
    found = set()
    for entry in sorted(folder.iterdir()):
        table = entry.name.split(".")[0]
        if entry.suffix not in (".csv", ".parquet"):
            continue
        if table not in SPECS:
            failures.append(
                {
                    "source": str(entry),
                    "table": table,
                    "row": None,
                    "column": None,
                    "value": entry.name,
                    "reason": _unknown_table(table),
                }
            )
            continue
        found.add(table)
    for table in sorted(found):
        _read_files(table, sorted(_table_files(folder, table), key=str), raw, failures, "")
    return found


def _unknown_table(name: str) -> str:
    close = difflib.get_close_matches(name, TABLES, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"unknown table.{hint} Tables: {', '.join(TABLES)}"


def _read_files(table: str, files, raw: dict, failures: list, prefix: str) -> None:
    for entry in files:
        label = prefix + (entry.name if prefix else str(entry))
        try:
            if entry.name.endswith(".parquet"):
                with entry.open("rb") as fh:
                    frame = pl.read_parquet(fh)
                frame = frame.with_columns(pl.all().cast(pl.String))
                first_row = 0
            else:
                with entry.open("rb") as fh:
                    rows, problems = read_csv_rows(fh.read(), label, table)
                failures += problems
                if rows is None:
                    continue
                # `_row`: the line each row starts on, as an editor shows it (header: 1).
                raw[table].append(rows.with_columns(pl.lit(label).alias("_source")))
                continue
        except Exception as exc:  # a file polars cannot read is one more failure to report
            failures.append(
                {
                    "source": label,
                    "table": table,
                    "row": None,
                    "column": None,
                    "value": None,
                    "reason": f"cannot read: {_first_line(exc)}",
                }
            )
            continue
        raw[table].append(
            frame.with_columns(
                pl.lit(label).alias("_source"),
                (pl.int_range(pl.len(), dtype=pl.Int64) + first_row).alias("_row"),
            )
        )


def _unfilled(frame: pl.DataFrame, index: int, kind: str, language: str) -> dict:
    return {
        "source": frame["_source"][index],
        "table": "cues",
        "row": frame["_row"][index],
        "column": "pattern",
        "value": f"<head_nouns:{kind}>",
        "reason": f"no head_nouns row of kind {kind!r} in language {language!r}",
    }


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _from_user_frame(frame: FrameLike, label: str) -> pl.DataFrame:
    if "pandas" in sys.modules and isinstance(frame, sys.modules["pandas"].DataFrame):
        frame = pl.from_pandas(frame)
    frame = frame.with_columns(pl.all().cast(pl.String))
    return frame.with_columns(
        pl.lit(label).alias("_source"), pl.int_range(pl.len(), dtype=pl.Int64).alias("_row")
    )


def _concat(frames: list[pl.DataFrame]) -> pl.DataFrame:
    if not frames:
        return pl.DataFrame(
            {"_source": [], "_row": []}, schema={"_source": pl.String, "_row": pl.Int64}
        )
    return pl.concat(frames, how="diagonal")


def _defaults_failures(frame: pl.DataFrame) -> list[dict]:
    try:
        parse_defaults(frame)
    except SatelliteError as exc:
        return exc.failure_cases
    return []
