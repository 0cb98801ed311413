"""Run the app with uvicorn, in one process or several workers.

Workers are separate processes, so the settings travel as JSON in an environment variable
and each worker builds its app (`app_from_env`) and opens index and satellites itself. The
LLM key never goes into that JSON: it stays in `QUAESTIO_LLM_API_KEY`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import sys
from pathlib import Path

from .auth import KeyRing, is_loopback
from .config import ServeConfig

ENV_CONFIG = "QUAESTIO_SERVE_CONFIG"
log = logging.getLogger("quaestio.serve")


def _dump(config: ServeConfig) -> str:
    from ..llm import LLMConfig

    values = {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
    llm = values.pop("llm")
    if isinstance(llm, LLMConfig):
        llm = {
            k: v
            for k, v in dataclasses.asdict(llm).items()
            if k not in ("api_key", "vocabulary") and v is not None
        }
    values["llm"] = llm
    return json.dumps(values, default=lambda v: str(v) if isinstance(v, Path) else None)


def app_from_env():
    """The uvicorn factory: the app for the settings in `QUAESTIO_SERVE_CONFIG`."""
    from ..llm import LLMConfig
    from .app import create_app

    values = json.loads(os.environ[ENV_CONFIG])
    if isinstance(values.get("llm"), dict):
        values["llm"] = LLMConfig.from_env(**values["llm"])
    configure_logging()
    return create_app(ServeConfig(**values))


def configure_logging() -> None:
    access = logging.getLogger("quaestio.serve.access")
    if not access.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        access.addHandler(handler)
        access.setLevel(logging.INFO)
        access.propagate = False


def run(
    config: ServeConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    log_level: str = "info",
) -> None:
    """Serve until SIGINT/SIGTERM; open streams get up to 30 s to finish on shutdown."""
    import uvicorn

    if not KeyRing.load(config.api_keys) and not is_loopback(host):
        print(
            f"quaestio serve: no API keys configured, so binding to 127.0.0.1 instead of "
            f"{host} (pass --api-keys or set QUAESTIO_API_KEYS)",
            file=sys.stderr,
        )
        host = "127.0.0.1"
    elif not KeyRing.load(config.api_keys):
        print("quaestio serve: no API keys configured: loopback clients only", file=sys.stderr)
    os.environ[ENV_CONFIG] = _dump(config)
    uvicorn.run(
        "quaestio.serve.runner:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level,
        access_log=False,
        timeout_graceful_shutdown=30,
    )
