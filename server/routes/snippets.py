from __future__ import annotations

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.concurrency import run_in_threadpool

from ..fairshare import FairShare, retry_after
from ..models import Snippet, SnippetCreate, SnippetRef
from ..sandbox.pool import Runtime
from ..settings import Settings
from ..store import SnippetStore

router = APIRouter(prefix="/api", tags=["snippets"])

SNIPPET_ID = Path(pattern=r"^[0-9A-Za-z]{4,64}$")


@router.post(
    "/snippets",
    response_model=SnippetRef,
    status_code=201,
    responses={
        413: {"description": "Code over the size limit"},
        422: {"description": "Not a valid request, e.g. a string with a lone surrogate (no UTF-8 form)"},
        429: {"description": "This client stored too many shared links too fast"},
    },
)
async def create_snippet(body: SnippetCreate, request: Request) -> SnippetRef:
    settings: Settings = request.app.state.settings
    store: SnippetStore = request.app.state.store
    if len(body.request.code.encode("utf-8", "surrogatepass")) > settings.code_bytes:
        raise HTTPException(413, f"code over {settings.code_bytes} bytes")
    try:
        body.model_dump_json()  # the store hashes and keeps the UTF-8 of its JSON
    except ValueError as e:
        raise HTTPException(422, f"request has no JSON form: {type(e).__name__}") from None
    fair: FairShare = request.app.state.fair
    wait = fair.admit_share(fair.client(request))
    if wait is not None:
        raise HTTPException(
            429,
            "too many shared links from this client; try again shortly",
            {"Retry-After": retry_after(wait)},
        )
    runtime: Runtime = request.app.state.pool.runtime
    snippet = await run_in_threadpool(
        store.put, body.request, body.title, runtime.engine_version, runtime.device_count
    )
    return SnippetRef(id=snippet.id, url=f"/s/{snippet.id}")


@router.get(
    "/snippets/{snippet_id}", response_model=Snippet, responses={404: {"description": "No such snippet"}}
)
async def get_snippet(request: Request, snippet_id: str = SNIPPET_ID) -> Snippet:
    store: SnippetStore = request.app.state.store
    snippet = await run_in_threadpool(store.get, snippet_id)
    if snippet is None:
        raise HTTPException(404, "no such snippet")
    return snippet
