"""The workbench's pages (GET, viewer role): home, coverage, candidates, rows, change log."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from ..satellites import SPECS, TABLES
from . import candidates as cand_mod
from . import changelog
from .context import Workbench
from .store import SIDE_TABLES, key_text, row_version

PAGE_SIZE = 100
EDITABLE_TABLES = (
    "concepts",
    "concept_keywords",
    "answer_types",
    "answer_type_patterns",
    "cues",
    "anchors",
    "answer_shapes",
    "stopwords",
    "defaults",
)


def router(wb: Workbench) -> APIRouter:
    r = APIRouter()

    @r.get("/")
    def home(request: Request):
        snap = wb.store.snapshot()
        tables = [
            {
                "name": t,
                "files": [tf.name for tf in snap.files[t]],
                "rows": sum(tf.frame.height for tf in snap.files[t]),
                "loaded": snap.sats.tables[t].height if snap.sats else None,
            }
            for t in EDITABLE_TABLES
        ]
        return wb.page(
            request,
            "home.html",
            tables=tables,
            failures=snap.failures,
            questions=len(wb.questions),
            corpus=wb.corpus is not None,
            candidates=len(wb.candidates()),
            log=changelog.read_log(snap.folder),
        )

    def not_loading(request: Request):
        return wb.page(
            request,
            "message.html",
            title="Coverage",
            message="The folder does not load; fix the rows on the home page.",
        )

    @r.get("/coverage")
    def coverage(request: Request):
        snap = wb.store.snapshot()
        if snap.sats is None:
            return not_loading(request)
        cov = wb.coverage(snap.sats)
        return wb.page(
            request, "coverage.html", cov=cov, questions=wb.questions, corpus=wb.corpus is not None
        )

    @r.get("/coverage/concept/{concept}")
    def coverage_concept(request: Request, concept: str):
        from .coverage import concept_examples

        snap = wb.store.snapshot()
        if snap.sats is None:  # was a 500: coverage computed on no tables
            return not_loading(request)
        cov = wb.coverage(snap.sats)
        return wb.page(
            request,
            "concept.html",
            concept=concept,
            examples=concept_examples(cov, snap.sats, concept),
            docs=sorted(cov.concept_docs.get(concept, ())),
            questions=cov.questions_by_concept.get(concept, []),
        )

    @r.get("/candidates")
    def candidates(
        request: Request,
        concept: str = "",
        language: str = "",
        min_score: str = "",
        state: str = "open",
        kind: str = "",
    ):
        try:
            score = float(min_score) if min_score.strip() else None
        except ValueError:
            score = None
        try:
            every = wb.candidates()
        except ValueError as exc:
            return wb.page(request, "message.html", title="Candidates", message=str(exc))
        shown = cand_mod.queue(
            every, concept=concept, language=language, min_score=score, state=state, kind=kind
        )
        counts = {
            s: sum(c.state == s for c in every)
            for s in ("pending", "deferred", "admitted", "rejected")
        }
        return wb.page(
            request,
            "candidates.html",
            shown=shown,
            every=every,
            counts=counts,
            neighbours={c.cid: cand_mod.neighbours(every, c) for c in shown},
            filters={
                "concept": concept,
                "language": language,
                "min_score": min_score,
                "state": state,
                "kind": kind,
            },
            concepts=sorted(
                {c.row.get("concept") or c.row.get("proposed_concept") or "" for c in every} - {""}
            ),
            languages=sorted({c.row.get("language") or "" for c in every} - {""}),
            path=str(wb.candidates_path),
            editable=cand_mod.EDITABLE,
            choices={c.name: c.choices for c in SPECS["concept_keywords"].columns},
        )

    @r.get("/rows/{table}")
    def rows(request: Request, table: str, q: str = "", page: int = 1):
        _known(table)
        snap = wb.store.snapshot()
        needle = q.casefold().strip()
        every: list[tuple[str, int | None, dict[str, Any]]] = [
            (tf.name, i + 2, rec) for tf, i, rec in snap.rows(table)
        ]
        if not every and snap.sats is not None:  # bundled rows: shown, not editable here
            every = [
                ("bundled", None, {k: None if v is None else str(v) for k, v in rec.items()})
                for rec in snap.sats.tables[table].iter_rows(named=True)
            ]
        found = [
            row
            for row in every
            if not needle or any(needle in str(v).casefold() for v in row[2].values() if v)
        ]
        pages = max(1, -(-len(found) // PAGE_SIZE))
        page = min(max(page, 1), pages)
        shown = found[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        columns = SPECS[table].column_names if table in SPECS else list(SIDE_TABLES[table])
        return wb.page(
            request,
            "rows.html",
            table=table,
            columns=columns,
            q=q,
            page=page,
            pages=pages,
            total=len(found),
            rows=shown,
            in_folder=snap.in_folder(table),
            tables=EDITABLE_TABLES,
            keyjson=lambda rec: json.dumps(
                {k: rec.get(k) for k in SPECS[table].key}, ensure_ascii=False
            ),
            bundled=snap.sats.tables[table].height
            if snap.sats and not snap.in_folder(table)
            else 0,
        )

    @r.get("/rows/{table}/edit")
    def edit(request: Request, table: str, key: str):
        _known(table)
        snap = wb.store.snapshot()
        try:
            wanted = json.loads(key)
        except ValueError:
            raise HTTPException(
                400, "key must be a JSON object of the table's key columns"
            ) from None
        found = snap.find(table, wanted) if isinstance(wanted, dict) else None
        if found is None:
            raise HTTPException(404, f"no {table} row with key {key_text(table, wanted)}")
        tf, i, rec = found
        return wb.page(
            request,
            "edit.html",
            table=table,
            spec=SPECS[table],
            row=rec,
            key=wanted,
            version=row_version(rec),
            file=tf.name,
            line=i + 2,
            editable=tf.editable,
            history=_history(wb, table, rec),
            questions=len(wb.questions),
            new=False,
        )

    @r.get("/rows/{table}/new")
    def new(request: Request, table: str):
        _known(table)
        row = {c: request.query_params.get(c) for c in SPECS[table].column_names}
        return wb.page(
            request,
            "edit.html",
            table=table,
            spec=SPECS[table],
            row=row,
            key=None,
            version="",
            file="",
            line=None,
            editable=True,
            history=[],
            questions=len(wb.questions),
            new=True,
        )

    @r.get("/changes")
    def changes(request: Request):
        log = changelog.read_log(wb.store.folder)
        return wb.page(request, "changes.html", log=list(reversed(log)))

    @r.get("/changes/{change_id}")
    def change(request: Request, change_id: int):
        e = changelog.entry(wb.store.folder, change_id)
        if e is None:
            raise HTTPException(404, f"no change #{change_id}")
        return wb.page(request, "changes.html", log=[e], single=True)

    return r


def _known(table: str) -> None:
    if table not in TABLES:
        raise HTTPException(404, f"unknown table {table!r}; tables: {', '.join(TABLES)}")


def _history(wb: Workbench, table: str, rec: dict) -> list[dict]:
    from .store import key_of

    want = key_of(table, rec)
    return [
        e
        for e in reversed(changelog.read_log(wb.store.folder))
        if any(
            op["table"] == table
            and any(
                r is not None and key_of(table, r) == want
                for r in (op.get("before"), op.get("after"))
            )
            for op in e["ops"]
        )
    ]
