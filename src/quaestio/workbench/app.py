"""The workbench as a FastAPI app, for `quaestio workbench DIR` or mounted by `quaestio serve`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import Authorize

# Every asset is served by the app itself; nothing is fetched from another origin, and no
# inline script runs (an unescaped value could not execute even if one slipped through).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


def create_workbench_app(
    satellites_dir: str | Path | None,
    *,
    authorize: Authorize | None = None,
    questions: str | Path | Sequence[str] | None = None,
    corpus: Any = None,
    candidates: str | Path | None = None,
):
    """The curation workbench over one satellite folder, as a FastAPI app.

    Args:
        satellites_dir: The analysts' satellite folder: the source of truth, rewritten in
            place (atomically) when a change is saved; the change log goes to its
            `curation/` sub-folder. None (a service on the bundled tables, which are not
            editable) gives a page that says so.
        authorize: `authorize(request, role) -> user name`, raising `fastapi.HTTPException`
            (401/403) when the caller may not act in `role` ("reader" for pages and
            previews, "analyst" for changes). None is the local standalone mode: one local
            user with every role (serve it on loopback only).
        questions: A question set (a list, or a .txt/.csv/.jsonl/.parquet file) for the
            coverage page and the re-parse diff.
        corpus: A corpus (folder, file or DataFrame, see `curation.read_corpus`) for the
            coverage page.
        candidates: The review file written by `quaestio discover` (default:
            `DIR/curation/candidates.csv` when present).

    Returns:
        A `fastapi.FastAPI` app; pages at `/`, JSON endpoints under `/api`, assets under
        `/static`. Mounted under a prefix (`/ui`), its links follow the mount.
    """
    from fastapi import FastAPI
    from fastapi.staticfiles import StaticFiles

    from . import api, pages
    from .context import Workbench

    if satellites_dir is None:
        return _no_folder_app()
    wb = Workbench(
        satellites_dir,
        authorize=authorize,
        questions=questions,
        corpus=corpus,
        candidates=candidates,
    )
    app = FastAPI(title="quaestio workbench", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.workbench = wb

    @app.middleware("http")
    async def headers(request, call_next):
        response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    app.include_router(pages.router(wb))
    app.include_router(api.router(wb))
    app.mount("/static", StaticFiles(packages=[("quaestio.workbench", "static")]), name="static")
    return app


def _no_folder_app():
    from fastapi import FastAPI
    from fastapi.responses import HTMLResponse

    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    message = (
        "<!doctype html><title>quaestio workbench</title><p>This service runs on the "
        "bundled satellite tables, which cannot be edited. Start it on a folder of your "
        "own (<code>quaestio satellites export DIR</code>, then "
        "<code>--satellites DIR</code>) to curate it here.</p>"
    )

    @app.get("/{path:path}", response_class=HTMLResponse)
    def no_folder(path: str) -> str:
        return message

    return app
