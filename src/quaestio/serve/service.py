"""What one worker holds: satellites, index, LLM clients, memory, keys, limits, metrics."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request

from ..errors import SatelliteError
from .auth import KeyRing, Principal, is_loopback, presented_key
from .config import ServeConfig
from .limits import RateLimiter
from .observe import Metrics
from .store import SQLiteStore

log = logging.getLogger("quaestio.serve")


class Service:
    """Opened once per worker at start-up (`start`), closed at shutdown (`stop`)."""

    def __init__(self, config: ServeConfig):
        self.config = config
        self.keys = KeyRing.load(config.api_keys)
        self.limiter = RateLimiter(config.rate_per_minute, config.burst)
        self.metrics = Metrics()
        self.satellites = None
        self.index = None
        self.llm = None  # quaestio.llm.LLM, for the parse
        self.llm_config = None  # its resolved LLMConfig, for the answers
        self.answer_client = None
        self.store = None
        self.live: dict[tuple[str, int], Any] = {}  # running turns of this worker
        self.tasks: set[asyncio.Task] = set()
        self.ready = False
        self.cpu = None  # anyio.CapacityLimiter, made in start() (it needs the event loop)

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        import anyio

        from ..analysis import prepare
        from ..satellites import bundled_satellites, load_satellites

        c = self.config
        self.cpu = anyio.CapacityLimiter(c.cpu_threads)
        sats = load_satellites(c.satellites) if c.satellites else bundled_satellites()
        self.satellites = prepare(sats)  # no user pays for the warm-up
        if c.index is not None:
            from ..retrieval import open_index
            from ..retrieval.index import Index

            self.index = c.index if isinstance(c.index, Index) else open_index(c.index)
        if c.llm:
            self._open_llm()
        path = c.store or Path(tempfile.mkdtemp(prefix="quaestio-serve-")) / "memory.sqlite"
        self.store = SQLiteStore(path, max_turns=c.max_turns, max_age=c.max_age_seconds)
        self.ready = True

    def _open_llm(self) -> None:
        from openai import AsyncOpenAI

        from ..llm import LLM, LLMConfig

        config = self.config.llm if isinstance(self.config.llm, LLMConfig) else None
        self.llm = LLM(config, satellites=self.satellites)
        self.llm_config = self.llm.config
        self.answer_client = AsyncOpenAI(
            base_url=self.llm_config.base_url,
            api_key=self.llm_config.api_key,
            timeout=self.llm_config.timeout,
            max_retries=0,
        )

    async def stop(self, grace: float = 10.0) -> None:
        """Let running turns finish (up to `grace` seconds), then cancel the rest."""
        if self.tasks:
            done, pending = await asyncio.wait(set(self.tasks), timeout=grace)
            for task in pending:
                task.cancel()
        if self.answer_client is not None:
            await self.answer_client.close()
        if self.store is not None:
            self.store.close()

    def reload_satellites(self) -> tuple[bool, list[dict]]:
        """Validate the satellite folder again; swap the tables only when all of it loads."""
        from ..analysis import prepare
        from ..satellites import bundled_satellites, load_satellites

        folder = self.config.satellites
        try:
            fresh = load_satellites(folder) if folder else bundled_satellites()
        except SatelliteError as exc:
            return False, exc.failure_cases
        self.satellites = prepare(fresh)
        return True, []

    # -- access -------------------------------------------------------------------------
    def principal(self, request: Request, role: str) -> Principal:
        """Who calls, checked against `role` and the rate limit (401/403/429 otherwise)."""
        if self.keys:
            who = self.keys.identify(presented_key(request.headers))
            if who is None:
                raise HTTPException(
                    401,
                    "a valid API key is required (Authorization: Bearer)",
                    headers={"WWW-Authenticate": "Bearer"},
                )
        else:
            host = request.client.host if request.client else ""
            if not is_loopback(host):
                raise HTTPException(401, "no API keys are configured: loopback clients only")
            who = Principal("local", "admin")
        request.state.principal = who
        if not who.may(role):
            raise HTTPException(403, f"this needs the {role} role; the key has {who.role}")
        wait = self.limiter.take(who.name)
        if wait:
            raise HTTPException(
                429, "rate limit exceeded", headers={"Retry-After": str(max(1, int(wait + 0.999)))}
            )
        return who

    def authorize(self, request: Request, role: str = "reader") -> str:
        """For the workbench: the caller's name, or an HTTPException (401/403/429)."""
        return self.principal(request, role).name
