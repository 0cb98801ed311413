"""What one worker holds: satellites, index, LLM clients, memory, keys, limits, metrics."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import HTTPException, Request

from ..errors import QuaestioError, SatelliteError
from .auth import KeyRing, Principal, is_loopback, presented_key
from .config import ServeConfig
from .limits import RateLimiter
from .observe import Metrics
from .store import SQLiteStore

if TYPE_CHECKING:
    import anyio
    from openai import AsyncOpenAI

    from ..llm import LLM, ResolvedLLMConfig
    from ..retrieval.index import Index
    from ..satellites import Satellites

log = logging.getLogger("quaestio.serve")
T = TypeVar("T")


class ServiceNotStarted(QuaestioError, RuntimeError):
    """A part of the `Service` opened by `start()` was read before `start()` ran."""

    def __init__(self, name: str):
        self.name = name
        super().__init__(f"Service.{name} is opened by Service.start(), which has not run yet")


class Service:
    """Opened once per worker at start-up (`start`), closed at shutdown (`stop`).

    What `start()` opens is read through properties that raise `ServiceNotStarted` before
    it: `satellites`, `store` and `cpu` always exist after it; `index`, `llm`, `llm_config`
    and `answer_client` are None when the configuration has no index or no LLM.
    """

    def __init__(self, config: ServeConfig):
        self.config = config
        self.keys = KeyRing.load(config.api_keys)
        self.limiter = RateLimiter(config.rate_per_minute, config.burst)
        self.metrics = Metrics()
        self.live: dict[tuple[str, int], Any] = {}  # running turns of this worker
        self.tasks: set[asyncio.Task] = set()
        self.ready = False
        self._satellites: Satellites | None = None
        self._index: Index | None = None
        self._llm: LLM | None = None
        self._answer_client: AsyncOpenAI | None = None
        self._store: SQLiteStore | None = None
        self._cpu: anyio.CapacityLimiter | None = None  # made in start(): needs the event loop

    # -- what start() opens ---------------------------------------------------------------
    @property
    def satellites(self) -> Satellites:
        """The prepared satellite tables (swapped whole by `reload_satellites`)."""
        return _opened("satellites", self._satellites)

    @property
    def store(self) -> SQLiteStore:
        """The conversation memory."""
        return _opened("store", self._store)

    @property
    def cpu(self) -> anyio.CapacityLimiter:
        """Parses and searches running at once (`ServeConfig.cpu_threads`)."""
        return _opened("cpu", self._cpu)

    @property
    def index(self) -> Index | None:
        """The index; None when the service runs without one (parse only)."""
        return self._configured("index", self._index)

    @property
    def llm(self) -> LLM | None:
        """The LLM mode of the parse; None when the service runs offline."""
        return self._configured("llm", self._llm)

    @property
    def llm_config(self) -> ResolvedLLMConfig | None:
        """The LLM's resolved settings, which the answers use too; None offline."""
        llm = self._configured("llm_config", self._llm)
        return llm.config if llm is not None else None

    @property
    def answer_client(self) -> AsyncOpenAI | None:
        """The client of the streamed answers; None offline (answers are extractive)."""
        return self._configured("answer_client", self._answer_client)

    def _configured(self, name: str, value: T | None) -> T | None:
        if not self.ready:
            raise ServiceNotStarted(name)
        return value

    def loaded(self) -> dict[str, bool]:
        """What `/readyz` checks: the satellites, and the index when one is configured."""
        return {
            "satellites": self._satellites is not None,
            "index": self._index is not None or self.config.index is None,
        }

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> None:
        import anyio

        from ..analysis import prepare
        from ..satellites import bundled_satellites, load_satellites

        c = self.config
        self._cpu = anyio.CapacityLimiter(c.cpu_threads)
        sats = load_satellites(c.satellites) if c.satellites else bundled_satellites()
        self._satellites = prepare(sats)  # no user pays for the warm-up
        if c.index is not None:
            from ..retrieval import open_index
            from ..retrieval.index import Index

            self._index = c.index if isinstance(c.index, Index) else open_index(c.index)
        if c.llm:
            self._open_llm(self._satellites)
        path = c.store or Path(tempfile.mkdtemp(prefix="quaestio-serve-")) / "memory.sqlite"
        self._store = SQLiteStore(path, max_turns=c.max_turns, max_age=c.max_age_seconds)
        self.ready = True

    def _open_llm(self, satellites: Satellites) -> None:
        from openai import AsyncOpenAI

        from ..llm import LLM, LLMConfig

        config = self.config.llm if isinstance(self.config.llm, LLMConfig) else None
        self._llm = LLM(config, satellites=satellites)
        resolved = self._llm.config
        self._answer_client = AsyncOpenAI(
            base_url=resolved.base_url,
            api_key=resolved.api_key,
            timeout=resolved.timeout,
            max_retries=0,
        )

    async def stop(self, grace: float = 10.0) -> None:
        """Let running turns finish (up to `grace` seconds), then cancel the rest."""
        if self.tasks:
            done, pending = await asyncio.wait(set(self.tasks), timeout=grace)
            for task in pending:
                task.cancel()
        if self._answer_client is not None:
            await self._answer_client.close()
        if self._store is not None:
            self._store.close()

    def reload_satellites(self) -> tuple[bool, list[dict]]:
        """Validate the satellite folder again; swap the tables only when all of it loads."""
        from ..analysis import prepare
        from ..satellites import bundled_satellites, load_satellites

        folder = self.config.satellites
        try:
            fresh = load_satellites(folder) if folder else bundled_satellites()
        except SatelliteError as exc:
            return False, exc.failure_cases
        self._satellites = prepare(fresh)
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


def _opened(name: str, value: T | None) -> T:
    if value is None:
        raise ServiceNotStarted(name)
    return value
