from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from ..fairshare import FairShare
from ..models import Health, Readiness
from ..sandbox.pool import SandboxPool
from ..store import SnippetStore

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", response_model=Health)
async def health(request: Request) -> Health:
    """Liveness: the process answers (a load balancer should not restart it for being busy)."""
    pool: SandboxPool = request.app.state.pool
    stats = pool.stats()
    return Health(
        status="ok" if stats.alive else "degraded",
        engine_version=pool.runtime.engine_version,
        device_count=pool.runtime.device_count,
        workers=stats.workers,
        idle_workers=stats.idle,
        queued=stats.queued,
        isolation=pool.runtime.isolation,
        warning=pool.runtime.isolation.get("warning"),
    )


@router.get("/ready", response_model=Readiness, responses={503: {"model": Readiness}})
async def ready(request: Request) -> JSONResponse:
    """Readiness: send this replica traffic? False while draining, while a sandbox worker is down
    or not yet warm, or while the snippet store is unreachable."""
    state = request.app.state
    pool: SandboxPool = state.pool
    store: SnippetStore = state.store
    fair: FairShare = state.fair
    stats = pool.stats()
    reasons = []
    if state.draining:
        reasons.append("draining")
    if not stats.alive:
        reasons.append("sandbox workers not all running")
    if not await run_in_threadpool(store.ping):
        reasons.append("snippet store unreachable")
    body = Readiness(ready=not reasons, reasons=reasons, in_flight=fair.in_flight)
    return JSONResponse(body.model_dump(), status_code=200 if body.ready else 503)
