"""Shared helpers of the routes: JSON and Arrow bodies, blocking work under a timeout."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable
from typing import Any

import anyio
import pyarrow as pa
from fastapi import HTTPException, Request
from fastapi.responses import Response

ARROW = "application/vnd.apache.arrow.stream"


def _plain(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, float) and value != value:
        return None
    return str(value)


class Json(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, default=_plain, ensure_ascii=False, allow_nan=False).encode()


def wants_arrow(request: Request) -> bool:
    return ARROW in (request.headers.get("accept") or "")


def arrow_body(table: pa.Table) -> Response:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return Response(sink.getvalue().to_pybytes(), media_type=ARROW)


async def on_cpu(limiter: anyio.CapacityLimiter | None, fn: Callable[..., Any], *args: Any) -> Any:
    """Run CPU-bound work in a thread, at most `limiter` at a time: parsing holds the GIL,
    so more threads than cores only make every request slower (queued ones wait here)."""
    return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)


async def blocking(
    fn: Callable[..., Any],
    *args: Any,
    timeout: float,
    limiter: anyio.CapacityLimiter | None = None,
) -> Any:
    """Run CPU-bound work (see `on_cpu`); 504 past `timeout`, 422 for a bad value."""
    try:
        return await asyncio.wait_for(on_cpu(limiter, fn, *args), timeout)
    except TimeoutError:
        raise HTTPException(504, f"the request took longer than {timeout:g} s") from None
    except (ValueError, TypeError, pa.ArrowException) as exc:
        raise HTTPException(422, " ".join(str(exc).split())[:500] or type(exc).__name__) from None
