"""Browser tests for what a demanding first user tripped over walking the page, one test per defect."""

from __future__ import annotations

import numpy as np
from playwright.sync_api import Page, expect

from .conftest import needs_runner
from .test_playground import open_session

JIT = {"name": "jit", "options": {}}

SCAN = """import jax
import jax.numpy as jnp
from jax import lax

def f(x):
    def body(c, xi):
        c = c * 0.5 + jnp.sin(xi)
        return c, c * 2.0
    c, ys = lax.scan(body, x, jnp.arange(4.0))
    return c + jnp.sum(ys)
"""


@needs_runner
def test_the_debugger_steps_into_a_scan_s_body_iteration_by_iteration(page: Page, artifacts):
    open_session(page, SCAN, "f", [JIT], ["1.0"], panel="debugger")
    steps = page.get_by_test_id("debug-step")
    expect(steps.first).to_be_visible()
    # The body's lines (7 and 8) are stepped in every iteration, each step saying which one.
    rows = steps.evaluate_all(
        "els => els.map(e => [e.querySelector('.prim').textContent,"
        " e.querySelector('[data-testid=debug-within]').title, e.querySelector('.step-line')?.textContent])"
    )
    for k in range(1, 5):
        lines = {line for _, within, line in rows if within == f"scan iteration {k} of 4"}
        assert lines == {"L7", "L8"}, rows
    # The scan's own step follows its iterations.
    prims = [p for p, _, _ in rows]
    last_body = max(i for i, (_, within, _) in enumerate(rows) if within)
    assert prims[last_body + 1] == "scan", rows
    # The carry after the second iteration, as numpy computes it: the step on line 7 that adds.
    c = 1.0
    for xi in range(2):
        c = c * 0.5 + np.sin(xi)
    second = [
        i for i, (p, within, line) in enumerate(rows) if within == "scan iteration 2 of 4" and p == "add"
    ]
    assert second, rows
    steps.nth(second[0]).click()
    expect(page.get_by_test_id("debug-detail-within")).to_have_text("scan iteration 2 of 4")
    shown = float(page.get_by_test_id("debug-detail").get_by_test_id("scalar").first.text_content())
    assert abs(shown - c) < 1e-5, (shown, c)
    # The editor marks the body's line while stepping through it.
    expect(page.locator(".cm-linked-line")).to_contain_text("c = c * 0.5")
    page.screenshot(path=str(artifacts / "walkthrough-debugger-scan.png"))
