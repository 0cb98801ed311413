"""The workbench's JSON endpoints (POST): check, try and preview an edit (viewer role), save,
decide on a candidate and revert a change (analyst role).

Bodies must be JSON: a page of another site cannot send JSON to a loopback server without a
CORS preflight, which this app never grants, so a local workbench cannot be driven from a
browser tab that happens to be open elsewhere.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool as _run

from ..satellites import SPECS
from . import candidates as cand_mod
from . import changelog, preview
from .changes import Conflict, Invalid, Op, plan
from .context import ANALYST, VIEWER, Workbench
from .saving import apply, inverse
from .store import row_version


async def _body(request: Request) -> dict[str, Any]:
    if not request.headers.get("content-type", "").startswith("application/json"):
        raise HTTPException(415, "send JSON (Content-Type: application/json)")
    try:
        data = await request.json()
    except ValueError:
        raise HTTPException(400, "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return data


def _ops(data: dict[str, Any]) -> list[Op]:
    raw = data.get("ops")
    if not isinstance(raw, list) or not raw or not all(isinstance(o, dict) for o in raw):
        raise HTTPException(400, "give ops: a non-empty list of row operations")
    return [Op.from_json(o) for o in raw]


def _questions(wb: Workbench, data: dict[str, Any]) -> list[str]:
    chosen = data.get("questions")
    if chosen == "set" or chosen is None:
        return wb.questions
    if isinstance(chosen, str):
        return [q.strip() for q in chosen.splitlines() if q.strip()][:500]
    raise HTTPException(400, "questions: 'set' or the questions, one a line")


_NOT_LOADED = {
    "ok": False,
    "failures": [
        {
            "op": None,
            "source": None,
            "table": None,
            "row": None,
            "column": None,
            "value": None,
            "reason": (
                "the folder does not load as it is: fix the rows listed on the home page first"
            ),
        }
    ],
    "conflicts": [],
}


def _failures(result) -> list[dict[str, Any]]:
    return [
        {k: (str(v) if k == "value" and v is not None else v) for k, v in f.items()}
        for f in result
    ]


def _conflict(exc: Conflict) -> JSONResponse:
    return JSONResponse(
        status_code=409,
        content={
            "error": "conflict",
            "message": "this row was changed since you opened it; nothing "
            "was written. Their version is shown: reload it, then apply your edit again.",
            "conflicts": exc.conflicts,
        },
    )


def _invalid(exc: Invalid) -> JSONResponse:
    return JSONResponse(
        status_code=422,
        content={"error": "invalid", "message": str(exc), "failures": _failures(exc.failures)},
    )


def router(wb: Workbench) -> APIRouter:
    r = APIRouter(prefix="/api")

    @r.post("/validate")
    async def validate(request: Request):
        wb.user(request, VIEWER)
        result = await _run(plan, wb.store.snapshot(), _ops(await _body(request)))
        return {
            "ok": result.ok,
            "failures": _failures(result.failures),
            "conflicts": result.conflicts,
        }

    @r.post("/try")
    async def try_(request: Request):
        wb.user(request, VIEWER)
        data = await _body(request)
        question = str(data.get("question") or "").strip()
        if not question:
            raise HTTPException(400, "type a question to try")
        snap = wb.store.snapshot()
        if snap.sats is None:
            return _NOT_LOADED
        result = await _run(plan, snap, _ops(data)) if data.get("ops") else None
        if result is not None and not result.ok:
            return {
                "ok": False,
                "failures": _failures(result.failures),
                "conflicts": result.conflicts,
            }
        new = result.sats if result else snap.sats
        if new is None:
            raise RuntimeError("a plan that is ok holds the tables it validated")
        rows = await _run(preview.try_question, question, snap.sats, new)
        return {"ok": True, "html": wb.fragment("_try.html", question=question, rows=rows)}

    @r.post("/preview")
    async def preview_(request: Request):
        wb.user(request, VIEWER)
        data = await _body(request)
        snap = wb.store.snapshot()
        if snap.sats is None:
            return _NOT_LOADED
        result = await _run(plan, snap, _ops(data))
        if not result.ok:
            return {
                "ok": False,
                "failures": _failures(result.failures),
                "conflicts": result.conflicts,
            }
        if result.sats is None:
            raise RuntimeError("a plan that is ok holds the tables it validated")
        questions = _questions(wb, data)
        tables = sorted({op["table"] for op in result.records if op["table"] in SPECS})
        diff = await _run(preview.table_diff, snap.sats, result.sats, tables)
        reparse = await _run(preview.reparse, questions, snap.sats, result.sats)
        html = wb.fragment(
            "_diff.html",
            tables=diff,
            reparse=reparse,
            asked=len(questions),
            records=result.records,
        )
        return {"ok": True, "html": html}

    @r.post("/save")
    async def save(request: Request):
        who = wb.user(request, ANALYST)
        data = await _body(request)
        try:
            entry = await _run(
                lambda: apply(wb.store, _ops(data), who=who, why=str(data.get("why") or ""))
            )
        except Conflict as exc:
            return _conflict(exc)
        except Invalid as exc:
            return _invalid(exc)
        return {
            "ok": True,
            "change": entry,
            "versions": [row_version(op["after"]) for op in entry["ops"]],
        }

    @r.post("/candidates/{cid}/{decision}")
    async def decide(request: Request, cid: int, decision: str):
        who = wb.user(request, ANALYST)
        data = await _body(request)
        if decision not in ("admit", "reject", "defer", "undefer"):
            raise HTTPException(404, "decision must be admit, reject, defer or undefer")
        every = wb.candidates()
        cand = next((c for c in every if c.cid == cid), None)
        if cand is None:
            raise HTTPException(404, f"no candidate {cid}")
        if decision in ("defer", "undefer"):
            cand_mod.set_deferred(wb.store.folder, cand.ident, decision == "defer")
            return {"ok": True, "state": "deferred" if decision == "defer" else "pending"}
        if cand.state in ("admitted", "rejected"):
            return JSONResponse(
                status_code=409,
                content={
                    "error": "conflict",
                    "state": cand.state,
                    "message": f"this candidate was already {cand.state} (by another analyst?); "
                    f"see the change log",
                },
            )
        given = data.get("values")
        values = given if isinstance(given, dict) else {}
        ops = cand_mod.decision_ops(cand, decision, values, wb.store.snapshot(), who)
        try:
            entry = await _run(
                lambda: apply(
                    wb.store,
                    ops,
                    who=who,
                    kind=decision,
                    why=str(data.get("why") or f"candidate {cid} ({decision})"),
                )
            )
        except Conflict as exc:
            return _conflict(exc)
        except Invalid as exc:
            return _invalid(exc)
        cand_mod.set_deferred(wb.store.folder, cand.ident, False)
        return {
            "ok": True,
            "state": "admitted" if decision == "admit" else "rejected",
            "change": entry,
        }

    @r.post("/changes/{change_id}/revert")
    async def revert(request: Request, change_id: int):
        who = wb.user(request, ANALYST)
        data = await _body(request)
        e = changelog.entry(wb.store.folder, change_id)
        if e is None:
            raise HTTPException(404, f"no change #{change_id}")
        if e.get("reverted_by"):
            return JSONResponse(
                status_code=409,
                content={
                    "error": "conflict",
                    "message": f"change #{change_id} was already reverted by #{e['reverted_by']}",
                },
            )
        try:
            entry = await _run(
                lambda: apply(
                    wb.store,
                    inverse(e),
                    who=who,
                    kind="revert",
                    reverts=change_id,
                    why=str(data.get("why") or f"revert #{change_id}"),
                )
            )
        except Conflict as exc:
            return _conflict(exc)
        except Invalid as exc:
            return _invalid(exc)
        return {"ok": True, "change": entry}

    return r
