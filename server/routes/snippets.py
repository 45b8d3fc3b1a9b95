from __future__ import annotations

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.concurrency import run_in_threadpool

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
    responses={413: {"description": "Code over the size limit"}},
)
async def create_snippet(body: SnippetCreate, request: Request) -> SnippetRef:
    settings: Settings = request.app.state.settings
    store: SnippetStore = request.app.state.store
    if len(body.request.code.encode("utf-8", "surrogatepass")) > settings.code_bytes:
        raise HTTPException(413, f"code over {settings.code_bytes} bytes")
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
