"""The discovery output (`quaestio discover`) as a review queue.

A candidate's state is read from the folder itself, so the queue and `quaestio admit` agree:
a candidate whose keyword the folder now holds for its concept is admitted (status
validated) or rejected (status rejected), a new-concept phrase listed in
`curation/rejected_phrases.csv` is rejected. Only "deferred" is the workbench's own state, kept
in `curation/deferred.json`. Admitting and rejecting write the same rows `admit_candidates`
writes (`concept_keywords.discovery.csv`, source discovery, who and when), as workbench
changes: validated as the analyst types, logged, revertible.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from ..analysis.text import fold_phrase
from ..curation.review import DISCOVERY_FILE, REVIEW_COLUMNS
from .changes import Op
from .store import LOG_DIR, Snapshot

DEFERRED_FILE = "deferred.json"
EDITABLE = ("concept", "language", "keyword", "keyword_priority", "weight", "match")


@dataclass
class Candidate:
    cid: int
    row: dict[str, Any]
    state: str = "pending"  # pending, deferred, admitted, rejected

    @property
    def score(self) -> float:
        try:
            return float(self.row.get("similarity") or 0)
        except ValueError:
            return 0.0

    @property
    def examples(self) -> list[str]:
        return [e for e in (self.row.get("examples") or "").split(" | ") if e.strip()]

    @property
    def ident(self) -> str:
        r = self.row
        return "|".join(
            [
                r.get("concept") or r.get("proposed_concept") or "",
                r.get("language") or "",
                fold_phrase(r.get("keyword") or ""),
            ]
        )


def read_candidates(path: Path | None) -> list[Candidate]:
    if path is None or not path.is_file():
        return []
    frame = pl.read_csv(path, infer_schema=False)
    missing = [c for c in ("concept", "language", "keyword") if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}: not a discovery review file (missing {', '.join(missing)}; "
            f"expected the columns {', '.join(REVIEW_COLUMNS)})"
        )
    return [Candidate(i, rec) for i, rec in enumerate(frame.iter_rows(named=True))]


def deferred(folder: Path) -> set[str]:
    path = folder / LOG_DIR / DEFERRED_FILE
    return set(json.loads(path.read_text())) if path.exists() else set()


def set_deferred(folder: Path, ident: str, on: bool) -> None:
    """Mark or unmark a candidate as deferred (written atomically)."""
    idents = deferred(folder)
    (idents.add if on else idents.discard)(ident)
    path = folder / LOG_DIR / DEFERRED_FILE
    path.parent.mkdir(exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".deferred.", suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(sorted(idents), fh)
    os.replace(tmp, path)


def with_states(cands: list[Candidate], snap: Snapshot) -> list[Candidate]:
    """Each candidate's state, read from the folder's rows."""
    held: dict[tuple, str] = {}
    for _, _, rec in snap.rows("concept_keywords"):
        key = (rec.get("concept"), rec.get("language"), fold_phrase(rec.get("keyword") or ""))
        held[key] = "rejected" if (rec.get("status") or "").strip() == "rejected" else "admitted"
    phrases = {
        (rec.get("language"), fold_phrase(rec.get("keyword") or ""))
        for _, _, rec in snap.rows("rejected_phrases")
    }
    later = deferred(snap.folder)
    for c in cands:
        r = c.row
        kw = fold_phrase(r.get("keyword") or "")
        state = held.get(((r.get("concept") or "").strip(), r.get("language"), kw))
        if state is None and (r.get("language"), kw) in phrases:
            state = "rejected"
        c.state = state or ("deferred" if c.ident in later else "pending")
    return cands


def queue(
    cands: list[Candidate],
    *,
    concept: str = "",
    language: str = "",
    min_score: float | None = None,
    state: str = "open",
    kind: str = "",
) -> list[Candidate]:
    """Filtered candidates, pending first, then deferred (state "open"), in file order."""
    out = [
        c
        for c in cands
        if (
            not concept
            or concept in ((c.row.get("concept") or ""), (c.row.get("proposed_concept") or ""))
        )
        and (not language or c.row.get("language") == language)
        and (min_score is None or c.score >= min_score)
        and (not kind or c.row.get("kind") == kind)
        and (
            state in ("", "all")
            or (c.state in ("pending", "deferred") if state == "open" else c.state == state)
        )
    ]
    return sorted(out, key=lambda c: (c.state != "pending", c.cid))


def neighbours(cands: list[Candidate], cand: Candidate, limit: int = 8) -> list[Candidate]:
    cluster = cand.row.get("cluster_id")
    return [
        c
        for c in cands
        if c.cid != cand.cid
        and cluster not in (None, "", "-1")
        and c.row.get("cluster_id") == cluster
    ][:limit]


def decision_ops(
    cand: Candidate,
    decision: str,
    values: dict[str, Any],
    snap: Snapshot,
    who: str,
    today: str | None = None,
) -> list[Op]:
    """The row operations that admit or reject a candidate, as `admit_candidates` would."""
    fields = {k: values.get(k, cand.row.get(k)) for k in EDITABLE}
    if "concept" not in values:  # a new-concept phrase proposes its concept's name
        fields["concept"] = cand.row.get("concept") or cand.row.get("proposed_concept")
    when = today or dt.date.today().isoformat()
    concept = (fields.get("concept") or "").strip()
    known = snap.sats is not None and concept in set(snap.sats.concepts["concept"].to_list())
    if decision == "reject" and not known:
        return [
            Op(
                "rejected_phrases",
                "add",
                values={
                    "language": fields.get("language"),
                    "keyword": fields.get("keyword"),
                    "proposed_concept": cand.row.get("proposed_concept"),
                    "cluster_id": cand.row.get("cluster_id"),
                    "added_by": who,
                    "added_at": when,
                },
            )
        ]
    accepted = decision == "admit"
    row = {
        **fields,
        "keyword_priority": fields.get("keyword_priority") or "secondary",
        "match": fields.get("match") or "fuzzy",
        "weight": fields.get("weight") or ("" if accepted else "1.0"),
        "status": "validated" if accepted else "rejected",
        "source": "discovery",
        "added_by": who,
        "added_at": when,
    }
    return [Op("concept_keywords", "add", values=row, file=DISCOVERY_FILE)]
