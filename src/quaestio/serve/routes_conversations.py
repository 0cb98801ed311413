"""The two-endpoint conversation flow: submit a turn (202), then follow its events (SSE)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request, Response

from .auth import Principal
from .events import encode, parse_event_id
from .models import Conversation, TurnAccepted, TurnRequest
from .service import Service
from .sse import EventStream
from .turns import start_turn

router = APIRouter(prefix="/v1/conversations", tags=["conversations"])
Auth = tuple[Service, Principal]


def caller(request: Request) -> Auth:
    svc: Service = request.app.state.service
    return svc, svc.principal(request, "reader")


def _owned(svc: Service, who: Principal, conversation_id: str) -> list[dict[str, Any]]:
    """The turns of a conversation the caller started (admins see all); else 404."""
    turns = svc.store.turns(conversation_id)
    if not turns or (turns[0].get("owner") not in (None, who.name) and not who.may("admin")):
        raise HTTPException(404, "no such conversation (or it was forgotten)")
    return turns


@router.post("", status_code=202, response_model=TurnAccepted)
async def submit(body: TurnRequest, request: Request, auth: Auth = Depends(caller)):
    """Start a turn; the work runs in the background, its events at `events`."""
    svc, who = auth
    if body.llm and svc.llm is None:
        raise HTTPException(400, "the service was started without an LLM (--llm)")
    if body.conversation_id:
        _owned(svc, who, body.conversation_id)
    conversation_id = body.conversation_id or uuid.uuid4().hex
    turn = svc.store.new_turn(conversation_id, body.question)
    svc.store.save_turn(
        conversation_id,
        turn,
        {"turn": turn, "question": body.question, "owner": who.name, "status": "running"},
    )
    options = body.model_dump(include={"toc", "scope", "parties", "language", "llm"})
    start_turn(svc, conversation_id, turn, body.question, options, who.name)
    return TurnAccepted(
        conversation_id=conversation_id,
        turn=turn,
        events=f"/v1/conversations/{conversation_id}/events?turn={turn}",
    )


@router.get("/{conversation_id}", response_model=Conversation)
async def read(conversation_id: str, auth: Auth = Depends(caller)):
    """The kept turns: question, parsed row, answer, citations, prompt parts, model, tokens."""
    svc, who = auth
    turns = _owned(svc, who, conversation_id)
    return Conversation(
        conversation_id=conversation_id,
        turns=[{k: v for k, v in t.items() if k != "events"} for t in turns],
    )


@router.delete("/{conversation_id}", status_code=204)
async def forget(conversation_id: str, auth: Auth = Depends(caller)):
    svc, who = auth
    _owned(svc, who, conversation_id)
    svc.store.delete(conversation_id)
    return Response(status_code=204)


@router.get(
    "/{conversation_id}/events",
    response_class=Response,
    responses={
        200: {
            "content": {"text/event-stream": {}},
            "description": "parsed, clarification, hits, confirmed, token, answer, error, done",
        }
    },
)
async def events(
    conversation_id: str,
    request: Request,
    turn: int | None = Query(None, ge=1, le=1_000_000),
    last_event_id: str | None = Header(None),
    auth: Auth = Depends(caller),
):
    """Server-sent events of one turn (the latest by default). `Last-Event-ID: <turn>.<n>`
    resumes after the n-th event; idle streams get heartbeat comments."""
    svc, who = auth
    turns = _owned(svc, who, conversation_id)
    resume = parse_event_id(last_event_id)
    number, after = resume if resume else (turn or turns[-1]["turn"], 0)
    record = next((t for t in turns if t["turn"] == number), None)
    if record is None:
        raise HTTPException(404, f"no turn {number} in this conversation")
    return EventStream(_frames(svc, conversation_id, number, after))


async def _frames(svc: Service, conversation_id: str, turn: int, after: int):
    live = svc.live.get((conversation_id, turn))
    if live is None:  # finished (or run by another worker): replay from the store
        async for frame in _stored(svc, conversation_id, turn, after):
            yield frame
        return
    live.listeners += 1
    svc.metrics.open_streams.inc()
    try:
        async for event in live.follow(after, svc.config.heartbeat_seconds):
            yield encode(event)
    finally:
        live.listeners -= 1
        svc.metrics.open_streams.dec()
        if not live.closed and live.listeners == 0:
            asyncio.get_running_loop().call_later(svc.config.reconnect_grace, _abandon, live)


def _abandon(live) -> None:
    """No client came back within the grace period: stop the work (and the LLM stream)."""
    if live.listeners == 0 and not live.closed and live.task is not None:
        live.task.cancel()


async def _stored(svc: Service, conversation_id: str, turn: int, after: int):
    waited = 0.0
    while True:
        record = next(
            (t for t in svc.store.turns(conversation_id) or () if t["turn"] == turn), None
        )
        if record is None:
            return
        if record.get("events") is not None:
            for event in record["events"][after:]:
                yield encode(event)
            return
        if waited >= svc.config.request_timeout:  # the worker running it is gone
            return
        await asyncio.sleep(0.05)
        waited += 0.05
        if int(waited / svc.config.heartbeat_seconds) != int(
            (waited - 0.05) / svc.config.heartbeat_seconds
        ):
            yield encode(None)
