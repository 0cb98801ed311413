"""The change log: one JSON line per save (who, when, why, the rows before and after).

It lives in `curation/changelog.jsonl` beside the tables (the loader never reads that
sub-folder), so it travels with the folder and its git history. A lock file next to it keeps
two processes (a `quaestio serve` and a `quaestio workbench` on one folder) from
interleaving their saves.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .store import LOG_DIR, key_of

LOG_FILE = "changelog.jsonl"


def log_path(folder: Path) -> Path:
    return folder / LOG_DIR / LOG_FILE


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on the folder across processes (advisory, POSIX)."""
    (folder / LOG_DIR).mkdir(exist_ok=True)
    with open(folder / LOG_DIR / ".workbench.lock", "a") as fh:
        try:
            import fcntl
        except ImportError:  # no advisory locks on this platform: the process lock remains
            yield
            return
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def read_log(folder: Path) -> list[dict[str, Any]]:
    """Every entry, oldest first; each gains `reverted_by` when a later entry undid it."""
    path = log_path(folder)
    if not path.exists():
        return []
    entries = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    undone = {e["reverts"]: e["id"] for e in entries if e.get("reverts") is not None}
    for e in entries:
        e["reverted_by"] = undone.get(e["id"])
    return entries


def entry(folder: Path, change_id: int) -> dict[str, Any] | None:
    return next((e for e in read_log(folder) if e["id"] == change_id), None)


def append(folder: Path, record: dict[str, Any]) -> dict[str, Any]:
    """Add an entry with the next id; flushed to disk before returning."""
    entries = read_log(folder)
    record = {"id": (entries[-1]["id"] + 1) if entries else 1, **record}
    path = log_path(folder)
    path.parent.mkdir(exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    return record


def last_change(folder: Path, table: str, key: dict[str, Any] | None) -> dict[str, Any] | None:
    """The newest entry that touched the row with this key (before or after the change)."""
    if not key:
        return None
    want = key_of(table, key)
    for e in reversed(read_log(folder)):
        for op in e["ops"]:
            if op["table"] == table and any(
                row is not None and key_of(table, row) == want
                for row in (op.get("before"), op.get("after"))
            ):
                return e
    return None
