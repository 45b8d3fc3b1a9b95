from __future__ import annotations

import html

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, HTMLResponse, Response

from ..settings import Settings
from ..store import SnippetStore

router = APIRouter(tags=["pages"])


@router.get("/s/{snippet_id}", response_class=HTMLResponse, include_in_schema=True)
async def shared_page(snippet_id: str, request: Request) -> Response:
    """The page for a shared link: the app's index.html, which loads the snippet by the id in its URL."""
    return await _snippet_page(snippet_id, request)


@router.get("/embed/{snippet_id}", response_class=HTMLResponse, include_in_schema=True)
async def embed_page(snippet_id: str, request: Request) -> Response:
    """A stored snippet read-only, for an iframe in docs: its code, its result and one panel
    (``?panel=output|ir|timings``). The only route other sites may frame (``server/headers.py``)."""
    return await _snippet_page(snippet_id, request)


@router.get("/compare", response_class=HTMLResponse, include_in_schema=True)
async def compare_page(request: Request) -> Response:
    """Two transformation stacks side by side; both sessions travel in the URL fragment."""
    settings: Settings = request.app.state.settings
    index = settings.web_dist / "index.html"
    if index.is_file():
        return FileResponse(index, media_type="text/html")
    return HTMLResponse("<!doctype html><p>The web page is not built (run <code>make install</code>).</p>")


async def _snippet_page(snippet_id: str, request: Request) -> Response:
    store: SnippetStore = request.app.state.store
    settings: Settings = request.app.state.settings
    found = snippet_id.isalnum() and await run_in_threadpool(store.get, snippet_id) is not None
    status = 200 if found else 404
    index = settings.web_dist / "index.html"
    if index.is_file():
        return FileResponse(index, status_code=status, media_type="text/html")
    # The web page has not been built: still give a working link to the data.
    sid = html.escape(snippet_id)
    body = (
        f"<!doctype html><title>jaxplay snippet {sid}</title><p>The web page is not built "
        f"(run <code>make install</code>). The snippet is at "
        f'<a href="/api/snippets/{sid}">/api/snippets/{sid}</a>.</p>'
    )
    return HTMLResponse(body, status_code=status)
