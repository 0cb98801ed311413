"""`POST /v1/parse` and `POST /v1/search`: stateless, one row per input question."""

from __future__ import annotations

import datetime as dt
import time
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from fastapi import APIRouter, Depends, HTTPException, Request

from ..errors import QuestionError, ReasonCode
from ..schema import QUESTION_SCHEMA, to_record
from .models import ParseOptions, ParseRequest, ParseResponse, SearchRequest, SearchResponse
from .respond import Json, arrow_body, blocking, wants_arrow
from .service import Service

if TYPE_CHECKING:
    from ..retrieval.index import Index

router = APIRouter(prefix="/v1", tags=["stateless"])
OPTION_NAMES = ("toc", "scope", "parties", "language")


def service(request: Request) -> Service:
    return request.app.state.service


def reader(request: Request) -> Service:
    svc = service(request)
    svc.principal(request, "reader")
    return svc


@router.post(
    "/parse",
    response_model=None,
    responses={
        200: {"model": ParseResponse, "content": {"application/vnd.apache.arrow.stream": {}}}
    },
)
async def parse(body: ParseRequest, request: Request, svc: Service = Depends(reader)):
    """Parse one question or a batch into question_df rows (JSON, or Arrow IPC when the
    Accept header asks for `application/vnd.apache.arrow.stream`)."""
    questions = _questions(body.question, body.questions)
    started = time.perf_counter()
    rows = await blocking(
        parse_rows, svc, questions, body, timeout=svc.config.request_timeout, limiter=svc.cpu
    )
    request.state.work_ms = (time.perf_counter() - started) * 1000
    if wants_arrow(request):
        return arrow_body(pa.Table.from_pylist(rows, schema=QUESTION_SCHEMA))
    return Json({"rows": rows})


@router.post("/search", response_model=None, responses={200: {"model": SearchResponse}})
async def search(body: SearchRequest, svc: Service = Depends(reader)):
    """Retrieve hits_df rows for questions (parsed first) or question_df rows; with
    `confirm`, the verdicts and values of the confirmation too."""
    index = svc.index
    if index is None:
        raise HTTPException(503, "the service was started without an index")
    if body.rows is not None and body.questions is not None:
        raise HTTPException(422, "send either questions or rows, not both")
    timeout = svc.config.request_timeout
    if body.rows is not None:
        if len(body.rows) > svc.config.max_batch:
            raise HTTPException(413, f"a batch holds at most {svc.config.max_batch} rows")
        rows = await blocking(rows_from_json, body.rows, timeout=timeout, limiter=svc.cpu)
    else:
        rows = await blocking(
            parse_rows,
            svc,
            _questions(None, body.questions),
            body,
            timeout=timeout,
            limiter=svc.cpu,
        )
    return Json(
        await blocking(search_rows, svc, index, rows, body, timeout=timeout, limiter=svc.cpu)
    )


def _questions(one: str | None, many: list | None) -> list:
    if (one is None) == (many is None):
        raise HTTPException(422, "send exactly one of `question` or `questions`")
    return [one] if many is None else many


def parse_rows(svc: Service, questions: list, options: ParseOptions) -> list[dict[str, Any]]:
    """question_df records, exactly one per input; a too-long question is an error row."""
    from ..analysis import check_question, parse_question, parse_questions
    from ..analysis.batch import _error_row

    c, sats = svc.config, svc.satellites
    if len(questions) > c.max_batch:
        raise HTTPException(413, f"a batch holds at most {c.max_batch} questions")
    if options.llm and svc.llm is None:
        raise HTTPException(400, "the service was started without an LLM (--llm)")
    llm = svc.llm if options.llm else None
    kwargs = {k: getattr(options, k) for k in OPTION_NAMES if getattr(options, k)}
    long = {
        i for i, q in enumerate(questions) if isinstance(q, str) and len(q) > c.max_question_chars
    }
    texts = [None if i in long else q for i, q in enumerate(questions)]
    if options.context:
        rows = []
        for i, q in enumerate(texts):
            try:
                rows.append(
                    to_record(
                        parse_question(
                            check_question(q, column="question"),  # None: an error row
                            sats,
                            question_id=f"q{i}",
                            llm=llm,
                            context=options.context,
                            **kwargs,
                        )
                    )
                )
            except QuestionError as exc:
                rows.append(to_record(_error_row(f"q{i}", q, exc, sats)))
    else:
        rows = (
            parse_questions(
                texts, sats, errors="collect", as_="arrow", llm=llm, **kwargs
            ).to_pylist()
            if texts
            else []
        )
    for i in long:
        too_long = QuestionError(
            ReasonCode.QUESTION_TOO_LONG,
            f"the question is over {c.max_question_chars} characters",
            row=i,
            column="question",
            value=f"{len(questions[i])} characters",
        )
        rows[i] = to_record(_error_row(f"q{i}", questions[i][:200], too_long, sats))
    svc.metrics.count_rows(r.get("llm_status") for r in rows)
    return rows


def rows_from_json(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """question_df records sent as JSON, typed against the schema (dates from ISO text)."""
    dates = [f.name for f in QUESTION_SCHEMA if pa.types.is_date(f.type)]
    typed = []
    for n, row in enumerate(rows):
        row = {k: v for k, v in row.items() if k in QUESTION_SCHEMA.names}
        for name in dates:
            if isinstance(row.get(name), str):
                try:
                    row[name] = dt.date.fromisoformat(row[name])
                except ValueError:
                    raise ValueError(f"rows[{n}].{name}: not an ISO date: {row[name]!r}") from None
        typed.append(row)
    for n, row in enumerate(typed):
        if not row.get("question_id"):
            row["question_id"] = f"q{n}"
    return pa.Table.from_pylist(typed, schema=QUESTION_SCHEMA).to_pylist()


def search_rows(
    svc: Service, index: Index, rows: list[dict[str, Any]], body: SearchRequest
) -> dict[str, Any]:
    from ..retrieval import Funnel, dispatch, search

    ok = [r for r in rows if not r.get("error_code")]
    out: dict[str, Any] = {"rows": rows, "hits": []}
    if body.confirm:
        out.update(verdicts=[], answers=[])
    if not ok:
        return out
    table = pa.Table.from_pylist(ok, schema=QUESTION_SCHEMA)
    funnel = Funnel(
        **{
            k: v
            for k, v in (body.funnel.model_dump() if body.funnel else {}).items()
            if v is not None
        }
    )
    if body.backend:
        hits = search(
            index,
            table,
            backend=body.backend,
            k=body.k,
            funnel=funnel,
            filters=body.filters,
            satellites=svc.satellites,
            as_="arrow",
        )
    else:
        hits = dispatch(
            table,
            index,
            k=body.k,
            funnel=funnel,
            satellites=svc.satellites,
            default_backend=svc.config.backend,
            as_="arrow",
        )
    out["hits"] = hits.to_pylist()
    if body.confirm and out["hits"]:
        from ..confirm import confirm

        checked = confirm(table, hits, satellites=svc.satellites, as_="arrow")
        out["verdicts"] = checked.verdicts.to_pylist()
        out["answers"] = checked.answers.to_pylist()
    return out
