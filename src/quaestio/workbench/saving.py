"""Saving planned edits: written atomically, logged, and undone by a later entry.

Writes go through `curation.folder.write_atomically` (temporary file, then rename) under the
folder's lock; a stale row is refused as a conflict that names the other change, so nothing
is lost; each save appends one entry to the change log.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..curation.folder import write_atomically
from . import changelog
from .changes import Conflict, Invalid, Op, plan
from .store import Snapshot, Store, row_version


def apply(
    store: Store,
    ops: list[Op],
    *,
    who: str,
    why: str = "",
    kind: str = "edit",
    reverts: int | None = None,
) -> dict[str, Any]:
    """Plan, validate and write `ops`, then log them; all under the folder's lock.

    Returns:
        The change-log entry written.

    Raises:
        Conflict: a row was changed (or removed) since its version was read.
        Invalid: the edit breaks the tables (the loader's failure cases, with "op").
    """
    with store.lock, changelog.folder_lock(store.folder):
        snap = store.snapshot()
        result = plan(snap, ops)
        if result.conflicts:
            for c in result.conflicts:
                c["change"] = changelog.last_change(store.folder, c["table"], c["key"])
            raise Conflict(result.conflicts)
        if result.failures:
            raise Invalid(result.failures)
        write_atomically({store.folder / name: tf.frame for name, tf in result.files.items()})
        entry = changelog.append(
            store.folder,
            {
                "who": who,
                "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "why": why,
                "kind": kind,
                "reverts": reverts,
                "ops": [{k: v for k, v in r.items() if k != "line"} for r in result.records],
            },
        )
        files = {t: [result.files.get(tf.name, tf) for tf in fs] for t, fs in snap.files.items()}
        for tf in result.files.values():
            if tf not in files[tf.table]:
                files[tf.table].append(tf)
        store.replace(Snapshot(snap.folder, files, result.sats, [], ()))
        return entry


def inverse(entry: dict[str, Any]) -> list[Op]:
    """The operations that undo a logged change, last operation first."""
    ops = []
    for rec in reversed(entry["ops"]):
        before, after = rec.get("before"), rec.get("after")
        if rec["action"] == "add":
            ops.append(Op(rec["table"], "delete", key=after, version=row_version(after)))
        elif rec["action"] == "delete":
            ops.append(Op(rec["table"], "add", values=before, file=rec["file"]))
        else:
            ops.append(
                Op(rec["table"], "update", key=after, values=before, version=row_version(after))
            )
    return ops
