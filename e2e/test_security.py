"""The page under its Content-Security-Policy, and the sandbox warning banner."""

from __future__ import annotations

import json
import os
import re

from playwright.sync_api import Page, expect


def test_page_runs_under_its_csp_without_violations(browser, base_url: str):
    context = browser.new_context(base_url=base_url)  # the real policy: no bypass_csp here
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base_url) else r.abort())
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    response = page.goto("/")
    csp = response.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp
    assert response.headers["x-frame-options"] == "DENY"
    expect(page.locator(".cm-content")).to_be_visible()  # CodeMirror injected its styles
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("run-status")).to_have_attribute(
        "data-state", re.compile("^(ok|nonfinite)$"), timeout=60_000
    )
    assert page.evaluate("document.documentElement.dataset.theme") in ("light", "dark")
    # Root's test server isolates runs; a normal user's shares its uid, and the page says so.
    warned = page.request.get("/api/health").json()["warning"] is not None
    assert page.get_by_test_id("sandbox-warning").count() == (1 if warned else 0)
    assert warned == (os.geteuid() != 0)
    assert not violations and not errors, (violations, errors)
    context.close()


def open_with_unsafe_warning(page: Page) -> None:
    """Open the page as a server in unsafe-single-user mode serves it (its health names the mode)."""
    health = json.loads(page.request.get("/api/health").text())
    health["warning"] = "unsafe-single-user isolation: runs share the server's uid"
    page.route(
        "**/api/health",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(health)),
    )
    page.goto("/")


def test_unsafe_sandbox_warning_is_shown(page: Page, base_url: str):
    open_with_unsafe_warning(page)
    banner = page.get_by_test_id("sandbox-warning")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("unsafe-single-user")
