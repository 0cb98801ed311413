"""`create_app`: the ASGI app of `quaestio serve`."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager

from fastapi import FastAPI

from . import problems
from .config import ServeConfig
from .limits import BodyLimit
from .observe import Observe
from .service import Service

log = logging.getLogger("quaestio.serve")


def create_app(config: ServeConfig | None = None) -> FastAPI:
    """The service: parse and search, conversations with streamed grounded answers,
    operations endpoints, and the analysts' workbench under `/ui` when installed.

    Satellites, index and LLM clients are opened once at start-up (in the lifespan), with
    `prepare()` run then, so no request pays for the warm-up.
    """
    from . import routes_conversations, routes_ops, routes_parse

    config = config or ServeConfig()
    service = Service(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        service.start()
        if not service.keys:
            log.warning("no API keys configured: only loopback clients are accepted")
        yield
        await service.stop()

    app = FastAPI(
        title="quaestio",
        version=_version(),
        lifespan=lifespan,
        description="Questions in, typed rows, hits and grounded answers out.",
    )
    app.state.service = service
    problems.install(app)
    for module in (routes_parse, routes_conversations, routes_ops):
        app.include_router(module.router)
    _mount_workbench(app, service)
    app.add_middleware(BodyLimit, max_bytes=config.max_body_bytes)
    app.add_middleware(Observe, metrics=service.metrics)
    return app


def _mount_workbench(app: FastAPI, service: Service) -> None:
    """The analysts' workbench under /ui, behind the same keys (changes need `analyst`)."""
    try:
        from ..workbench import create_workbench_app
    except ModuleNotFoundError as exc:
        if exc.name in ("quaestio.workbench", "jinja2"):
            return  # not installed: the service runs without its pages
        raise
    app.mount("/ui", create_workbench_app(service.config.satellites, authorize=service.authorize))


def _version() -> str:
    from .. import __version__

    return __version__
