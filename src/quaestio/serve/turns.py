"""One conversation turn, run in the background: parse → (clarify | search → confirm →
answer) → done, each step an event of the turn's log, the whole turn saved at the end."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..schema import QUESTION_SCHEMA, to_record
from .answers import extractive, stream_answer
from .events import TurnLog
from .memory import carry_forward, context_for
from .prompt import compile_prompt
from .respond import on_cpu
from .service import Service

if TYPE_CHECKING:
    from ..retrieval.index import Index

log = logging.getLogger("quaestio.serve")
HIT_FIELDS = (
    "chunk_id",
    "doc_id",
    "rank",
    "score",
    "backend",
    "route",
    "breadcrumb",
    "chunk_type",
    "page_start",
    "page_end",
    "part_index",
    "part_count",
)


def start_turn(
    service: Service,
    conversation_id: str,
    turn: int,
    question: str,
    options: dict[str, Any],
    owner: str,
) -> TurnLog:
    turn_log = TurnLog(turn)
    key = (conversation_id, turn)
    service.live[key] = turn_log
    task = asyncio.get_running_loop().create_task(
        run_turn(service, conversation_id, turn_log, question, options, owner)
    )
    turn_log.task = task
    service.tasks.add(task)

    def finished(t: asyncio.Task) -> None:
        service.tasks.discard(t)
        service.live.pop(key, None)  # the saved record replays it from now on

    task.add_done_callback(finished)
    return turn_log


async def run_turn(
    service: Service,
    conversation_id: str,
    turn_log: TurnLog,
    question: str,
    options: dict[str, Any],
    owner: str,
) -> None:
    record: dict[str, Any] = {
        "turn": turn_log.turn,
        "question": question,
        "owner": owner,
        "created_at": time.time(),
        "status": "running",
    }
    try:
        record.update(await _work(service, conversation_id, turn_log, question, options))
    except asyncio.CancelledError:
        record["status"] = "cancelled"
        turn_log.publish(
            "error",
            {"code": "cancelled", "detail": "the client went away; the turn was cancelled"},
        )
    except Exception as exc:  # the stream says what failed; the trace stays in the log
        log.error("turn %s.%s failed", conversation_id, turn_log.turn, exc_info=exc)
        record["status"] = "error"
        turn_log.publish("error", {"code": "internal_error", "detail": type(exc).__name__})
    turn_log.publish("done", {"status": record["status"]})
    record["events"] = turn_log.events
    service.metrics.turns.labels(record["status"]).inc()
    service.store.save_turn(conversation_id, turn_log.turn, record)


async def _work(
    service: Service,
    conversation_id: str,
    turn_log: TurnLog,
    question: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    c, sats = service.config, service.satellites
    earlier = [
        t
        for t in service.store.turns(conversation_id) or ()
        if t["turn"] < turn_log.turn and t.get("row")
    ]
    context = context_for(earlier, c.context_turns)
    if len(question) > c.max_question_chars:
        turn_log.publish(
            "error",
            {
                "code": "question_too_long",
                "detail": f"the question is over {c.max_question_chars} characters",
            },
        )
        return {"status": "error"}
    row = await on_cpu(
        service.cpu,
        _parse,
        service,
        question,
        f"{conversation_id}.{turn_log.turn}",
        context,
        options,
    )
    row = carry_forward(row, earlier[-1]["row"] if earlier else None, sats)
    service.metrics.count_rows([row.get("llm_status")])
    turn_log.publish("parsed", {"row": row})
    out: dict[str, Any] = {"row": row, "context": context}
    if row.get("error_code"):
        turn_log.publish("error", {"code": row["error_code"], "detail": row.get("error_message")})
        return {**out, "status": "error"}
    if row.get("suggested_clarification"):
        turn_log.publish(
            "clarification",
            {"question": row["suggested_clarification"], "reason": row.get("ambiguity_reason")},
        )
        return {**out, "status": "clarification"}
    index = service.index
    if index is None:
        turn_log.publish("error", {"code": "no_index", "detail": "the service has no index"})
        return {**out, "status": "error"}
    hits, verdict, values = await on_cpu(service.cpu, _retrieve, service, index, row)
    turn_log.publish("hits", {"hits": [{f: h.get(f) for f in HIT_FIELDS} for h in hits]})
    turn_log.publish("confirmed", {"verdict": verdict, "values": values[:5]})
    answer, prompt_record = await _answer(service, turn_log, row, hits, verdict, values)
    turn_log.publish("answer", answer)
    return {
        **out,
        "status": "answered",
        "answer": answer,
        "prompt": prompt_record,
        "hits": [h.get("chunk_id") for h in hits],
    }


def _parse(
    service: Service, question: str, question_id: str, context: list[str], options: dict[str, Any]
) -> dict[str, Any]:
    from ..analysis import parse_question

    llm = service.llm if options.get("llm") else None
    parsed = parse_question(
        question,
        service.satellites,
        question_id=question_id,
        context=context or None,
        llm=llm,
        **{k: options[k] for k in ("toc", "scope", "parties", "language") if options.get(k)},
    )
    return to_record(parsed)


def _retrieve(service: Service, index: Index, row: dict[str, Any]):
    from ..confirm import confirm
    from ..retrieval import dispatch

    table = pa.Table.from_pylist([row], schema=QUESTION_SCHEMA)
    hits = dispatch(
        table,
        index,
        k=service.config.k,
        satellites=service.satellites,
        default_backend=service.config.backend,
        as_="arrow",
    )
    hit_rows = [h for h in hits.to_pylist() if h.get("route") != "clarify"]
    if not hit_rows:
        return [], None, []
    checked = confirm(
        table, pa.Table.from_pylist(hit_rows), satellites=service.satellites, as_="arrow"
    )
    verdicts = checked.verdicts.to_pylist()
    values = [
        {k: v for k, v in a.items() if k not in ("zone_start", "zone_end")}
        for a in checked.answers.to_pylist()
    ]
    return hit_rows, (verdicts[0] if verdicts else None), values


async def _answer(service: Service, turn_log: TurnLog, row, hits, verdict, values):
    sats = service.satellites
    client, config = service.answer_client, service.llm_config
    if client is None or config is None or not hits:  # both are set together, with --llm
        answer = extractive(row, hits, verdict, values, sats)
        return answer, {"mode": "extractive", "model": None}
    prompt = compile_prompt(row, hits, sats, budget=service.config.token_budget)
    record = {
        "mode": "llm",
        "model": config.model,
        "part_ids": prompt.part_ids,
        "prompt_tokens_estimate": prompt.tokens,
        "dropped": prompt.dropped,
        "cut": prompt.cut,
    }

    async def token(text: str) -> None:
        turn_log.publish("token", {"text": text})

    try:
        answer = await stream_answer(
            client,
            config.model,
            prompt,
            token,
            max_tokens=config.max_tokens,
        )
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the server failed: say so, and answer offline
        reason = type(exc).__name__
        answer = {
            **extractive(row, hits, verdict, values, sats),
            "llm_status": f"fallback:{reason}",
        }
        record["llm_status"] = f"fallback:{reason}"
        return answer, record
    answer["model"] = config.model
    service.metrics.answer_tokens.labels("in").inc(answer.get("tokens_in") or 0)
    service.metrics.answer_tokens.labels("out").inc(answer.get("tokens_out") or 0)
    record.update(
        tokens_in=answer.get("tokens_in"), tokens_out=answer.get("tokens_out"), llm_status="ok"
    )
    return answer, record
