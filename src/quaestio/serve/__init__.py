"""`quaestio serve`: the HTTP service for upstream dispatchers.

    >>> from quaestio.serve import ServeConfig, create_app
    >>> app = create_app(ServeConfig(index="my_index/"))      # doctest: +SKIP

Needs the `serve` extra (`pip install 'quaestio[serve]'`): FastAPI, uvicorn,
prometheus-client, httpx.
"""

from __future__ import annotations

from .config import ServeConfig

__all__ = ["ServeConfig", "create_app", "run"]


def create_app(config: ServeConfig | None = None):
    from .app import create_app as build

    return build(config)


def run(
    config: ServeConfig,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    log_level: str = "info",
) -> None:
    """Serve with uvicorn (see `quaestio.serve.run`)."""
    from .runner import run as serve

    serve(config, host=host, port=port, workers=workers, log_level=log_level)
