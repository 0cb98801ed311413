"""A Server-Sent Events response that notices the client leaving at once.

Starlette's StreamingResponse only learns of a disconnect when a write fails (ASGI 2.4),
which on an idle stream can be a heartbeat away; here a second task listens for
`http.disconnect` and cancels the stream, so its `finally` runs right away.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

import anyio
from starlette.responses import Response

HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


class EventStream(Response):
    media_type = "text/event-stream"

    def __init__(self, frames: AsyncGenerator[bytes, None], headers: dict[str, str] | None = None):
        super().__init__(status_code=200)
        self.frames = frames
        self.stream_headers = HEADERS + [
            (k.lower().encode(), v.encode()) for k, v in (headers or {}).items()
        ]

    async def __call__(self, scope, receive, send):
        async with anyio.create_task_group() as group:

            async def watch():
                while (await receive())["type"] != "http.disconnect":
                    pass
                group.cancel_scope.cancel()

            group.start_soon(watch)
            await send(
                {"type": "http.response.start", "status": 200, "headers": self.stream_headers}
            )
            try:
                async for frame in self.frames:
                    await send({"type": "http.response.body", "body": frame, "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            except OSError:  # the client went away between two frames
                pass
            finally:
                await self.frames.aclose()
            group.cancel_scope.cancel()
