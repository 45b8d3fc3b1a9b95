"""Browser tests: a real server process and headless Chromium, talking only to 127.0.0.1.

The session starts ``python -m server`` on a free loopback port with a temporary SQLite database
(``JAXPLAY_*`` settings, see ``server/settings.py``), waits for ``/api/health``, and launches
Chromium: Debian's ``/usr/bin/chromium`` when present, else Playwright's own build. Screenshots
and the server log go to ``e2e/artifacts/`` (git-ignored).

Tests that run code use the engine's runner (``engine.inspect.run_request``): where it does not
import, they fail (a broken setup is an error, never a skip).
"""

from __future__ import annotations

import base64
import importlib
import json
import os
import pathlib
import shutil
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "e2e" / "artifacts"
DIST_INDEX = ROOT / "web" / "dist" / "index.html"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
# The server's default wall-clock limit; the timeout test waits for it.
WALL_SECONDS = 10


@pytest.fixture(scope="session")
def engine_runner():
    """The runner the server's runs go through; an import error here fails the test."""
    return importlib.import_module("engine.inspect").run_request


needs_runner = pytest.mark.usefixtures("engine_runner")


@pytest.fixture(scope="session")
def artifacts() -> pathlib.Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def server(artifacts):
    if not DIST_INDEX.exists():
        pytest.fail("web/dist is not built: run `make install` (npm ci && npm run build in web/)")
    from server.launch import ServerProcess

    tmp = tempfile.mkdtemp(prefix="jaxplay-e2e-")
    settings = {
        "database_path": os.path.join(tmp, "snippets.sqlite"),
        "wall_seconds": str(WALL_SECONDS),
        "web_dist": str(DIST_INDEX.parent),
    }
    proc = ServerProcess(settings=settings, log_path=str(artifacts / "server.log"), startup_timeout=180)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def base_url(server) -> str:
    assert server.base_url.startswith("http://127.0.0.1:")
    return server.base_url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        kwargs = {"headless": True, "args": CHROMIUM_ARGS}
        if os.path.exists(CHROMIUM):
            kwargs["executable_path"] = CHROMIUM
        b = p.chromium.launch(**kwargs)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def context(browser, base_url):
    # bypass_csp: Playwright's wait_for_function evaluates strings, which the page's CSP forbids
    # (e2e/test_security.py checks the page under its real policy).
    ctx = browser.new_context(viewport={"width": 1440, "height": 900}, base_url=base_url, bypass_csp=True)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
    # Only ever talk to the test server on loopback.
    ctx.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(base_url) or route.request.url.startswith("data:")
            else route.abort()
        ),
    )
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.js_errors = errors  # type: ignore[attr-defined]
    pg.set_default_timeout(30_000)
    yield pg
    assert not errors, f"uncaught errors in the page: {errors}"


def session_fragment(
    code: str,
    function: str | None = None,
    stack: list | None = None,
    args: list[str] | None = None,
    panel: str = "output",
) -> str:
    """The URL fragment the page restores a small session from (``#s=<base64url(JSON)>``)."""
    doc = {"c": code, "f": function, "t": stack or [], "a": args or [], "p": panel}
    raw = base64.urlsafe_b64encode(json.dumps(doc).encode()).decode().rstrip("=")
    return f"#s={raw}"
