"""Errors as `application/problem+json` (RFC 9457), never with a stack trace."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from ..errors import QuaestioError

PROBLEM = "application/problem+json"
log = logging.getLogger("quaestio.serve")


def problem(
    status: int, detail: str, *, headers: Mapping[str, str] | None = None, **extra: Any
) -> JSONResponse:
    body = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        **extra,
    }
    return JSONResponse(body, status_code=status, media_type=PROBLEM, headers=headers)


def install(app: FastAPI) -> None:
    """Route every error the app can raise through `problem` (Starlette's HTTPException
    too: unknown routes and methods answer in the same format)."""

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        extra: dict[str, Any] = exc.detail if isinstance(exc.detail, dict) else {}
        if extra:
            detail = str(extra.pop("detail", HTTPStatus(exc.status_code).phrase))
        return problem(exc.status_code, detail, headers=exc.headers, **extra)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errors = [
            {"loc": [str(p) for p in e.get("loc", ())], "msg": e.get("msg"), "type": e.get("type")}
            for e in exc.errors()
        ]
        return problem(422, "the request does not match the schema", errors=errors)

    @app.exception_handler(QuaestioError)
    async def _quaestio(request: Request, exc: QuaestioError):
        return problem(400, str(exc).splitlines()[0][:500])

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        # The trace goes to the log with the request id, not to the client.
        log.error(
            "unhandled %s on %s (request %s)",
            type(exc).__name__,
            request.url.path,
            getattr(request.state, "request_id", "-"),
            exc_info=exc,
        )
        return problem(500, "internal error; the request id is in the X-Request-ID header")
