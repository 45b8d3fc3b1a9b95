"""The application factory: wires settings, the snippet store and the sandbox pool to the routers."""

from __future__ import annotations

import contextlib
import json
import logging
from typing import TYPE_CHECKING, AsyncIterator, Optional

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from .fairshare import FairShare
from .headers import SecurityHeadersMiddleware
from .limits import BodyLimitMiddleware
from .routes import examples, health, pages, run, snippets, transforms
from .settings import Settings
from .store import SnippetStore, open_store

if TYPE_CHECKING:
    from .sandbox.pool import SandboxPool

log = logging.getLogger("jaxplay.server")


def create_app(
    settings: Optional[Settings] = None,
    *,
    pool: Optional[SandboxPool] = None,
    store: Optional[SnippetStore] = None,
) -> FastAPI:
    """Build the app. ``pool`` and ``store`` may be injected (tests); otherwise they come from settings."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own_pool = pool is None
        if own_pool:
            from .sandbox.pool import SandboxPool  # imported here: building the app must not start processes

            app.state.pool = SandboxPool(settings)
        await run_in_threadpool(app.state.store.open)
        await app.state.pool.start()
        try:
            yield
        finally:
            if own_pool:
                await app.state.pool.close()
            app.state.store.close()

    app = FastAPI(
        title="jaxplay",
        version="0.1.0",
        lifespan=lifespan,
        description="Run code on the transformation engine in a sandbox, share snippets, browse examples.",
    )
    app.state.settings = settings
    app.state.pool = pool
    app.state.store = store or open_store(settings)
    app.state.fair = FairShare(settings)
    app.state.draining = False

    for module in (run, snippets, examples, transforms, health, pages):
        app.include_router(module.router)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        # FastAPI's own 422 echoes each bad input, and some have no JSON form (1e999 parses to inf;
        # a lone surrogate has no UTF-8): that answer would be a 500. Where and why, ASCII-escaped.
        detail = [
            {"type": e.get("type"), "loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()
        ]
        body = json.dumps({"detail": detail}, ensure_ascii=True, default=str)
        return Response(body, status_code=422, media_type="application/json")

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A bug in a route must cost one request, never the server.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": f"internal error: {type(exc).__name__}"}, status_code=500)

    if settings.web_dist.is_dir():
        app.mount("/", StaticFiles(directory=settings.web_dist, html=True), name="web")

    app.add_middleware(BodyLimitMiddleware, limit=settings.body_limit)
    app.add_middleware(SecurityHeadersMiddleware)  # outermost: also on 413s and errors
    return app
