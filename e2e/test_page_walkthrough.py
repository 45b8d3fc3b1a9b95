"""Browser tests for what a demanding first user tripped over walking the page, one test per defect."""

from __future__ import annotations

import numpy as np
from playwright.sync_api import Page, expect

from .conftest import needs_runner, session_fragment
from .test_playground import open_session, opened_fresh, wait_runs

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


LOSS = """import jax
import jax.numpy as jnp

def loss(w, x):
    return jnp.sum(jnp.tanh(w * x) ** 2)

w = jnp.array([0.5, -1.0, 2.0])
xs = jnp.arange(12.0).reshape(4, 3) / 10.0
"""


@needs_runner
def test_a_share_link_restores_the_ir_panel_s_view_heat_and_diff(page: Page, browser, base_url):
    stack = [{"name": "grad", "options": {}}, {"name": "vmap", "options": {"in_axes": "(None, 0)"}}, JIT]
    open_session(page, LOSS, "loss", stack, ["w", "xs"], panel="ir")
    page.get_by_test_id("stage-tab").nth(2).click()  # vmap(grad(loss))
    page.get_by_role("button", name="Text", exact=True).click()
    page.get_by_test_id("heat-flops").click()
    page.get_by_test_id("diff-base").select_option(label="loss")  # against the first stage
    expect(page.get_by_test_id("stage-diff-summary")).to_contain_text("vmap vs loss")
    page.get_by_test_id("share").click()
    url = page.get_by_test_id("share-link").input_value()

    with opened_fresh(browser, base_url, url) as fresh:
        expect(fresh.locator("[data-testid=stage-tab][aria-selected=true]")).to_contain_text(
            "vmap(grad(loss)"
        )
        expect(fresh.get_by_role("button", name="Text", exact=True)).to_have_attribute("aria-pressed", "true")
        expect(fresh.get_by_test_id("ir-text")).to_be_visible()
        expect(fresh.get_by_test_id("ir-graph")).to_have_count(0)
        expect(fresh.get_by_test_id("heat-flops")).to_have_attribute("aria-pressed", "true")
        expect(fresh.get_by_test_id("stage-diff-summary")).to_contain_text("vmap vs loss")
    # A reload of the page's own URL keeps them too.
    page.keyboard.press("Escape")
    page.reload()
    wait_runs(page, 1)
    expect(page.get_by_test_id("heat-flops")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("stage-diff-summary")).to_contain_text("vmap vs loss")


@needs_runner
def test_compare_stacks_shows_each_result_s_heatmap_and_table_whole(page: Page):
    stack = [{"name": "grad", "options": {}}, {"name": "vmap", "options": {"in_axes": "(None, 0)"}}, JIT]
    a = session_fragment(LOSS, "loss", stack, ["w", "xs"], "ir")[3:]
    page.goto(f"/compare#a={a}&b={a}")
    wait_runs(page, 1, timeout=120_000)
    expect(page.get_by_test_id("cmp-values")).to_contain_text("values match")
    boxes = page.get_by_test_id("cmp-row-value").locator(".cmp-value")
    expect(boxes).to_have_count(2)
    for i in range(2):
        box = boxes.nth(i)
        expect(box.locator(".heatmap")).to_be_visible()
        # The 4 x 3 result's heatmap, its colour bar and its table all show: nothing hides in a
        # scroll box too short for the chart.
        hidden = box.evaluate("e => e.scrollHeight - e.clientHeight")
        assert hidden <= 1, f"{hidden} px of the result hidden in its box"


@needs_runner
def test_the_graph_legend_keys_the_stage_diff_s_marks_apart_from_the_source_line_s(page: Page):
    stack = [{"name": "grad", "options": {}}, {"name": "vmap", "options": {"in_axes": "(None, 0)"}}, JIT]
    open_session(page, LOSS, "loss", stack, ["w", "xs"], panel="ir")
    page.get_by_test_id("stage-tab").nth(2).click()  # vmap(grad(loss)) against grad(loss)
    changed = page.locator("[data-testid=ir-node][data-diff=changed]")
    expect(changed.first).to_be_visible()
    stroke = changed.first.locator("rect").first.evaluate("e => getComputedStyle(e).stroke")
    key = page.get_by_test_id("legend-diff-changed")
    expect(key).to_be_visible()
    expect(key).to_contain_text("changed")
    swatch = key.locator(".swatch").evaluate("e => getComputedStyle(e).borderTopColor")
    assert swatch == stroke, (swatch, stroke)
    # Not the colour of the source line's mark, which the legend keys as such.
    linked = page.locator(".graph-legend .swatch.linked").evaluate("e => getComputedStyle(e).borderTopColor")
    assert linked != stroke, (linked, stroke)
    # No diff, no key for it.
    page.get_by_test_id("diff-base").select_option(label="nothing")
    expect(page.locator("[data-testid=ir-node][data-diff]")).to_have_count(0)
    expect(key).to_be_hidden()


@needs_runner
def test_tabbing_through_graph_nodes_pans_the_graph_and_fit_still_fits(page: Page):
    stack = [{"name": "grad", "options": {}}, {"name": "vmap", "options": {"in_axes": "(None, 0)"}}, JIT]
    open_session(page, LOSS, "loss", stack, ["w", "xs"], panel="ir")
    graph_stage = page.locator(".graph-stage")
    expect(page.get_by_test_id("ir-node").first).to_be_visible()
    canvas = page.locator(".graph-canvas")
    opened = canvas.evaluate("e => e.style.transform")
    graph_stage.focus()
    for _ in range(12):
        page.keyboard.press("Tab")
        # The focused node is in view, brought there by the pan, not by scrolling the stage
        # under it (which fit and the minimap do not see).
        page.wait_for_function(
            "() => { const s = document.querySelector('.graph-stage'); return !s.scrollLeft && !s.scrollTop; }"
        )
        focused = page.evaluate(
            "() => { const n = document.activeElement.getBoundingClientRect();"
            " const s = document.querySelector('.graph-stage').getBoundingClientRect();"
            " return n.width > 0 && n.bottom > s.top && n.top < s.bottom && n.right > s.left && n.left < s.right; }"
        )
        assert focused
    page.get_by_test_id("graph-fit").click()
    # Fit shows the graph as it opened: nothing left over from the tabbing.
    assert canvas.evaluate("e => e.style.transform") == opened
    assert graph_stage.evaluate("e => [e.scrollLeft, e.scrollTop]") == [0, 0]
