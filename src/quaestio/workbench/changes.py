"""Edits as operations on rows, planned against a snapshot and validated (saving.py writes).

An operation adds, updates or deletes one row. Updates and deletes carry the version of the
row the analyst opened (a hash of its cells): if the row on disk has changed since, the plan
records a conflict instead of applying it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ..curation.folder import require_table_files
from ..errors import SatelliteError
from ..satellites import SPECS, Satellites
from .store import (
    SIDE_FILES,
    SIDE_TABLES,
    Snapshot,
    TableFile,
    clean,
    key_of,
    row_version,
    table_of,
)
from .validation import check, check_full

ACTIONS = ("add", "update", "delete")


@dataclass
class Op:
    """One row operation; `key` names the row before it (update, delete)."""

    table: str
    action: str
    key: dict[str, Any] | None = None
    values: dict[str, Any] | None = None
    version: str | None = None
    file: str | None = None  # where an added row goes (default: the table's main file)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Op:
        return cls(
            table=str(data.get("table") or ""),
            action=str(data.get("action") or ""),
            key=data.get("key"),
            values=data.get("values"),
            version=data.get("version"),
            file=data.get("file"),
        )


@dataclass
class Plan:
    """What a list of operations would do to the folder."""

    files: dict[str, TableFile] = field(default_factory=dict)  # changed files by name
    records: list[dict[str, Any]] = field(default_factory=list)  # one per op, for the log
    failures: list[dict[str, Any]] = field(default_factory=list)  # each with "op" (or None)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    sats: Satellites | None = None  # the satellites after the change, when valid
    before: Satellites | None = None

    @property
    def ok(self) -> bool:
        return not self.failures and not self.conflicts


class Conflict(Exception):
    def __init__(self, conflicts: list[dict[str, Any]]):
        super().__init__(f"{len(conflicts)} row(s) changed since they were opened")
        self.conflicts = conflicts


class Invalid(Exception):
    def __init__(self, failures: list[dict[str, Any]]):
        super().__init__(f"{len(failures)} problem(s); nothing was written")
        self.failures = failures


def plan(snap: Snapshot, ops: list[Op]) -> Plan:
    """Apply `ops` to a copy of the snapshot's files and validate the result."""
    result = Plan(before=snap.sats)
    work: dict[str, list[TableFile]] = {t: list(fs) for t, fs in snap.files.items()}
    changed: dict[str, set[tuple[str, int]]] = {}
    touched: set[str] = set()
    for i, op in enumerate(ops):
        problem = _apply(snap, work, op, i, result, changed)
        if problem:
            result.failures.append({**problem, "op": i})
        else:
            touched.add(op.table)
    if result.failures or result.conflicts:
        return result
    tables = {t for t in touched if t in SPECS}
    if not tables and snap.sats is not None:  # only the side files (rejected phrases)
        result.sats = snap.sats
        return result
    edited = {t: work[t] for t in tables}
    result.sats, failures = (
        check(snap, edited, changed) if snap.sats is not None else check_full(snap, edited)
    )
    result.failures = [{**f, "op": _op_of(f, result.records)} for f in failures]
    return result


def _apply(snap, work, op: Op, i: int, result: Plan, changed) -> dict | None:
    if op.table not in SPECS and op.table not in SIDE_TABLES:
        return _problem(
            op.table,
            None,
            "table",
            op.table,
            f"unknown table; tables: {', '.join([*SPECS, *SIDE_TABLES])}",
        )
    if op.action not in ACTIONS:
        return _problem(
            op.table, None, "action", op.action, f"must be one of {', '.join(ACTIONS)}"
        )
    for name, value in (("key", op.key), ("values", op.values)):
        if value is not None and not isinstance(value, dict):
            return _problem(op.table, None, name, str(value)[:80], "must be a JSON object")
    if op.action != "delete" and not op.values:
        return _problem(op.table, None, "values", None, "give the row's values")
    if (
        op.table in SIDE_TABLES
        and op.action != "delete"
        and not all(clean((op.values or {}).get(k)) for k in SIDE_TABLES[op.table])
    ):
        return _problem(op.table, None, ",".join(SIDE_TABLES[op.table]), None, "value is required")
    found = _find(work, op.table, op.key) if op.action != "add" else None
    if op.action != "add":
        if found is None or row_version(found[2]) != op.version:
            current = found[2] if found else None
            result.conflicts.append(
                {
                    "op": i,
                    "table": op.table,
                    "key": op.key,
                    "yours": op.values,
                    "current": current,
                    "current_version": row_version(current),
                }
            )
            return None
        fi, ri, before = found
        tf = work[op.table][fi]
    else:
        before = None
        tf, fi, problem = _target(snap, work, op)
        if problem:
            return problem
    if not tf.editable:
        return _problem(
            op.table,
            None,
            "file",
            tf.name,
            "a Parquet file is read-only here; edit its CSV source",
        )
    rows = tf.frame.to_dicts()
    after = None
    if op.action == "delete":
        del rows[ri]
    else:
        # An update changes the cells it names (the editor names them all); the rest stay.
        base = {k: v for k, v in (before or {}).items() if k not in (op.values or {})}
        after = {
            **_row(tf.frame.columns, op.table, op.values or {}),
            **{k: clean(v) for k, v in base.items()},
        }
        if op.action == "update":
            rows[ri] = after
        else:
            rows.append(after)
            ri = len(rows) - 1
    columns = list(dict.fromkeys([*tf.frame.columns, *(after or {})]))
    frame = (
        pl.DataFrame(rows, schema={c: pl.String for c in columns})
        if rows
        else pl.DataFrame(schema={c: pl.String for c in columns})
    )
    new = TableFile(tf.name, tf.table, frame, tf.editable)
    work[op.table] = [*work[op.table][:fi], new, *work[op.table][fi + 1 :]]
    result.files[tf.name] = new
    line = ri + 2
    if after is not None:
        changed.setdefault(op.table, set()).add((tf.name, line))
        # rows below a deletion move up a line: only the edited row's line is needed here
    described = before if after is None else after
    assert described is not None, "a delete always has the row it removes"
    result.records.append(
        {
            "table": op.table,
            "file": tf.name,
            "action": op.action,
            "key": dict(zip(_key_cols(op.table), key_of(op.table, described))),
            "before": _clean_row(before),
            "after": _clean_row(after),
            "line": line if after is not None else None,
        }
    )
    return None


def _target(snap: Snapshot, work, op: Op) -> tuple[TableFile | None, int, dict | None]:
    files = work.get(op.table, [])
    if op.table in SIDE_TABLES:
        name = SIDE_FILES[op.table]
    elif op.file:
        if table_of(op.file) != op.table or "/" in op.file:
            return (
                None,
                0,
                _problem(op.table, None, "file", op.file, f"not a file name of table {op.table}"),
            )
        name = op.file
    else:
        if not files:
            try:
                require_table_files(snap.folder, op.table)
            except SatelliteError as exc:
                return None, 0, {**exc.failure_cases[0], "source": None}
        main = [i for i, tf in enumerate(files) if tf.name == f"{op.table}.csv" and tf.editable]
        editable = [i for i, tf in enumerate(files) if tf.editable]
        if not (main or editable):
            return None, 0, _problem(op.table, None, "file", None, "no CSV file to add to")
        index = (main or editable)[0]
        return files[index], index, None
    if op.table in SPECS and not files:
        try:
            require_table_files(snap.folder, op.table)
        except SatelliteError as exc:
            return None, 0, {**exc.failure_cases[0], "source": None}
    for i, tf in enumerate(files):
        if tf.name == name:
            return tf, i, None
    columns = SPECS[op.table].column_names if op.table in SPECS else list(op.values or {})
    files.append(TableFile(name, op.table, pl.DataFrame(schema={c: pl.String for c in columns})))
    work[op.table] = files
    return files[-1], len(files) - 1, None


def _find(work, table: str, key: dict | None) -> tuple[int, int, dict] | None:
    if not key:
        return None
    want = key_of(table, key)
    for fi, tf in enumerate(work.get(table, [])):
        for ri, rec in enumerate(tf.frame.iter_rows(named=True)):
            if key_of(table, rec) == want:
                return fi, ri, rec
    return None


def _row(columns: list[str], table: str, values: dict[str, Any]) -> dict[str, str | None]:
    names = SPECS[table].column_names if table in SPECS else list(values)
    row = {c: clean(values.get(c)) for c in columns}
    row.update({c: clean(values[c]) for c in names if c in values and clean(values[c])})
    return row


def _clean_row(row: dict | None) -> dict | None:
    return None if row is None else {k: clean(v) for k, v in row.items()}


def _key_cols(table: str) -> tuple[str, ...]:
    return SPECS[table].key if table in SPECS else SIDE_TABLES[table]


def _op_of(failure: dict, records: list[dict]) -> int | None:
    for i, rec in enumerate(records):
        if rec["file"] == failure.get("source") and rec["line"] == failure.get("row"):
            return i
    return None


def _problem(table, row, column, value, reason) -> dict[str, Any]:
    return {
        "source": None,
        "table": table,
        "row": row,
        "column": column,
        "value": value,
        "reason": reason,
    }
