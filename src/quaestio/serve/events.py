"""The events of one turn: numbered, kept for replay, followed by any number of streams.

Event ids are `<turn>.<n>` (n from 1), so `Last-Event-ID: 2.5` resumes turn 2 after its
fifth event. A turn ends with a `done` event; its events are then saved with the turn, so
a finished turn replays from the store in any worker.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

TYPES = ("parsed", "clarification", "hits", "confirmed", "token", "answer", "error", "done")


def parse_event_id(value: str | None) -> tuple[int, int] | None:
    try:
        turn, n = (value or "").strip().split(".")
        return int(turn), int(n)
    except ValueError:
        return None


class TurnLog:
    """The events of one running turn, and the task that produces them."""

    def __init__(self, turn: int):
        self.turn = turn
        self.events: list[dict[str, Any]] = []
        self.closed = False
        self.listeners = 0
        self.task: asyncio.Task | None = None
        self._changed = asyncio.Event()

    def publish(self, event: str, data: dict[str, Any]) -> None:
        assert event in TYPES, event
        if self.closed:
            return
        self.events.append(
            {
                "id": f"{self.turn}.{len(self.events) + 1}",
                "event": event,
                "data": json.dumps(data, default=str, ensure_ascii=False),
            }
        )
        if event == "done":
            self.closed = True
        self._changed.set()
        self._changed = asyncio.Event()

    async def follow(self, after: int, heartbeat: float) -> AsyncIterator[dict | None]:
        """Events after the `after`-th, waiting for new ones; None when a heartbeat is due."""
        seen = after
        while True:
            while seen < len(self.events):
                seen += 1
                yield self.events[seen - 1]
            if self.closed:
                return
            changed = self._changed
            try:
                await asyncio.wait_for(changed.wait(), heartbeat)
            except TimeoutError:
                yield None


def encode(event: dict[str, Any] | None) -> bytes:
    """One SSE frame; None is a heartbeat comment."""
    if event is None:
        return b": heartbeat\n\n"
    data = "\n".join(f"data: {line}" for line in event["data"].split("\n"))
    return f"id: {event['id']}\nevent: {event['event']}\n{data}\n\n".encode()
