from __future__ import annotations

from fastapi import APIRouter, Request

from ..models import Health

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", response_model=Health)
async def health(request: Request):
    pool = request.app.state.pool
    stats = pool.stats()
    return Health(
        status="ok" if stats.alive else "degraded",
        engine_version=pool.runtime.engine_version,
        device_count=pool.runtime.device_count,
        workers=stats.workers,
        idle_workers=stats.idle,
        queued=stats.queued,
        isolation=pool.runtime.isolation,
    )
