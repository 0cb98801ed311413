"""Operations: liveness, readiness, Prometheus metrics, and the admin's satellite reload."""

from __future__ import annotations

import httpx
from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.concurrency import run_in_threadpool

from .models import ReloadResult
from .problems import problem
from .respond import Json
from .service import Service

router = APIRouter(tags=["operations"])


@router.get("/healthz")
async def healthz():
    """Alive (the process answers)."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request):
    """Ready: satellites and index loaded, and the LLM server reachable when configured."""
    svc: Service = request.app.state.service
    checks = svc.loaded()
    llm_config = svc.llm_config if svc.ready else None
    if llm_config is not None:
        checks["llm"] = await _reachable(llm_config.base_url)
    ready = svc.ready and all(checks.values())
    return Json({"ready": ready, "checks": checks}, status_code=200 if ready else 503)


async def _reachable(base_url: str) -> bool:
    # Any HTTP answer (even 404 for /models on small servers) means the server is up.
    try:
        async with httpx.AsyncClient(timeout=2.0) as client:
            await client.get(base_url.rstrip("/") + "/models")
        return True
    except httpx.HTTPError:
        return False


@router.get("/metrics", response_class=Response)
async def metrics(request: Request):
    """Prometheus text: requests and latency by route, llm_status, open streams, RSS."""
    svc: Service = request.app.state.service
    svc.principal(request, "reader")
    return Response(generate_latest(svc.metrics.registry), media_type=CONTENT_TYPE_LATEST)


@router.post(
    "/v1/admin/satellites:reload",
    response_model=ReloadResult,
    responses={422: {"description": "the folder does not validate; nothing changed"}},
)
async def reload_satellites(request: Request):
    """Validate the satellite folder again and serve it; a broken table keeps the serving
    tables and returns every failure (admin key)."""
    svc: Service = request.app.state.service
    svc.principal(request, "admin")
    ok, failures = await run_in_threadpool(svc.reload_satellites)
    if not ok:
        return problem(
            422,
            f"{len(failures)} problem(s) in the satellite tables; the serving "
            f"tables are unchanged",
            failures=failures[:200],
        )
    return ReloadResult(reloaded=True, version=svc.satellites.version)
