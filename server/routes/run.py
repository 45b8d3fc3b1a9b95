from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from engine.inspect.schema import RunReport, RunRequest

from ..fairshare import FairShare, retry_after
from ..sandbox.pool import PoolBusy, QueueFull, SandboxPool
from ..sandbox.reports import code_size_report
from ..settings import Settings

router = APIRouter(prefix="/api", tags=["run"])


@router.post(
    "/run",
    response_model=RunReport,
    responses={
        413: {"description": "Code over the size limit (the body is a RunReport)"},
        422: {"description": "Not a valid request, e.g. a string with a lone surrogate (no UTF-8 form)"},
        429: {"description": "This client has too many runs in flight or started too many too fast"},
        503: {"description": "The replica is draining, or no worker became free in time"},
    },
)
async def run(req: RunRequest, request: Request) -> Response:
    state = request.app.state
    settings: Settings = state.settings
    pool: SandboxPool = state.pool
    fair: FairShare = state.fair
    if state.draining:
        return JSONResponse(
            {"detail": "this server is shutting down; retry"}, status_code=503, headers={"Retry-After": "1"}
        )
    too_big = code_size_report(req, settings.code_bytes, pool.runtime.engine_version)
    if too_big is not None:
        return JSONResponse(too_big.model_dump(mode="json"), status_code=413)
    client = fair.client(request)
    wait = fair.admit(client)
    if wait is not None:
        return JSONResponse(
            {"detail": "too many runs from this client; try again shortly"},
            status_code=429,
            headers={"Retry-After": retry_after(wait)},
        )
    try:
        report = await pool.run_json(req)
    except QueueFull:
        return JSONResponse(
            {"detail": "too many runs queued; try again shortly"},
            status_code=429,
            headers={"Retry-After": "1"},
        )
    except ValueError as e:  # raised before any worker took it: see SandboxPool.run_json
        return JSONResponse({"detail": f"request has no JSON form: {type(e).__name__}"}, status_code=422)
    except PoolBusy:
        return JSONResponse(
            {"detail": "no sandbox worker became free in time"}, status_code=503, headers={"Retry-After": "2"}
        )
    finally:
        fair.release(client)
    return Response(report, media_type="application/json")
