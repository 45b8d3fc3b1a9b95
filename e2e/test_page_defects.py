"""Browser tests for the page defects a new user found (issue 16), one test per defect."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import needs_runner
from .test_playground import GRAD, TANH, expect_ok, open_session, result_leaves, run_and_wait, set_code


@needs_runner
def test_pasted_script_without_the_target_function_runs_as_a_script(page: Page):
    page.goto("/")
    expect(page.get_by_test_id("composed-call")).to_have_text("grad(tanh)(1.0)")
    set_code(page, "import jax.numpy as jnp\n\nprint(jnp.arange(3.0) * 2)\n")
    run_and_wait(page, lambda: (page.locator(".cm-content").click(), page.keyboard.press("Control+Enter")))
    expect_ok(page)
    expect(page.get_by_test_id("stdout")).to_contain_text("[0. 2. 4.]")
    expect(page.get_by_test_id("run-notice")).to_contain_text("tanh")
    expect(page.get_by_test_id("target-select")).to_have_value("")


@needs_runner
def test_argument_rows_follow_the_signature(page: Page):
    two = "import jax.numpy as jnp\n\ndef f(x, y):\n    return jnp.sin(x) * y\n"
    open_session(page, two, "f", [GRAD], ["1.0", "2.0"])
    expect(page.get_by_test_id("arg-input")).to_have_count(2)
    set_code(page, "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) * 2.0\n")
    expect(page.get_by_test_id("arg-input")).to_have_count(1)
    expect(page.get_by_test_id("arg-input")).to_have_value("1.0")
    expect(page.get_by_test_id("composed-call")).to_have_text("grad(f)(1.0)")
    run_and_wait(page)
    expect_ok(page)
    [leaf] = result_leaves(page)
    assert abs(leaf["data"] - 2.0 * 0.5403023) < 1e-5


@needs_runner
def test_ir_tab_of_a_transformed_target_without_a_stack(page: Page):
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    run_and_wait(page, page.locator("[data-testid=gallery-item][data-id='data-parallel-step']").click)
    expect_ok(page)
    select = page.get_by_test_id("target-select")
    expect(select).to_have_value("train_step")
    expect(select.locator("option:checked")).not_to_contain_text("not found")
    expect(page.get_by_test_id("arg-input")).to_have_count(4)
    page.get_by_test_id("tab-ir").click()
    expect(page.get_by_test_id("panel-body")).to_have_attribute("data-panel", "ir")
    expect(page.get_by_test_id("ir-panel")).to_be_visible()
    # The script's own call had no stages: it says so instead of crashing.
    page.get_by_test_id("call-select").select_option("0")
    expect(page.get_by_test_id("ir-panel")).to_contain_text("No IR recorded")
    # The target's call has its stages.
    page.get_by_test_id("call-select").select_option("1")
    expect(page.get_by_test_id("stage-tab").last).to_contain_text("pmap")


def test_option_placeholders_are_hints_and_inputs_fit_their_content(page: Page):
    page.goto("/")
    page.get_by_test_id("add-jit").click()
    page.get_by_test_id("add-vmap").click()
    static = page.get_by_test_id("opt-static_argnums")
    placeholder = static.get_attribute("placeholder") or ""
    assert placeholder and not re.fullmatch(r"[\s()\d,]+", placeholder), placeholder
    assert "e.g." in placeholder
    style = static.evaluate("e => getComputedStyle(e, '::placeholder').fontStyle")
    assert style == "italic", style
    in_axes = page.locator("[data-testid=stack-layer][data-name=vmap]").get_by_test_id("opt-in_axes")
    in_axes.fill("(None, 0, 0, None)")
    fits = in_axes.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert fits, in_axes.evaluate("e => [e.scrollWidth, e.clientWidth]")


@needs_runner
def test_nan_result_warns_and_links_to_the_first_nan(page: Page):
    code = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sum(jnp.sqrt(x))\n"
    open_session(page, code, "f", [GRAD], ["jnp.array([-1.0, 4.0])"])
    status = page.get_by_test_id("run-status")
    expect(status).to_have_attribute("data-state", "nonfinite")
    expect(status).not_to_contain_text("ok")
    expect(status).to_contain_text("NaN")
    page.get_by_test_id("goto-first-nonfinite").click()
    expect(page.get_by_test_id("tab-debugger")).to_have_attribute("aria-selected", "true")
    current = page.locator("[data-testid=debug-step].current")
    expect(current).to_have_class(re.compile("first-nonfinite"))
    expect(page.get_by_test_id("debug-nonfinite-flag")).to_be_visible()


JIT_TWICE = """import jax
import jax.numpy as jnp

f = jax.jit(lambda x: jnp.sin(x) * 2.0 + x)
print(f(jnp.ones(3)))
print(f(jnp.ones(3)))
"""


@needs_runner
def test_timing_phases_are_disjoint_add_up_to_wall_time_and_show_cache_hits(page: Page):
    open_session(page, JIT_TWICE)
    expect_ok(page)
    page.get_by_test_id("tab-timings").click()
    totals = page.get_by_test_id("phase-total").evaluate_all(
        "els => Object.fromEntries(els.map(e => [e.dataset.category, Number(e.dataset.ms)]))"
    )
    wall = float(page.get_by_test_id("wall-total").get_attribute("data-ms"))
    assert {"trace", "execute", "other"} <= set(totals), totals
    assert abs(sum(totals.values()) - wall) <= 1e-6 * wall + 1e-3, (totals, wall)
    # A new program's first call runs in the interpreter while its kernels compile on the
    # background lane; that lane runs alongside the host phases and is not part of their sum.
    background = page.locator("[data-testid=timeline-lane][data-lane=background] [data-testid=timeline-bar]")
    assert all(c == "compile" for c in background.evaluate_all("els => els.map(e => e.dataset.category)"))
    # The second call's cache hit is on the timeline.
    expect(page.get_by_test_id("cache-hit-marker")).to_have_count(1)
    expect(page.get_by_test_id("cache-hit-marker").locator("..")).to_have_attribute("data-category", "trace")


@needs_runner
def test_share_restores_the_selected_ir_stage(page: Page, browser, base_url):
    from .test_playground import opened_fresh

    open_session(page, TANH, "tanh", [GRAD, {"name": "jit", "options": {}}], ["1.0"], panel="ir")
    tabs = page.get_by_test_id("stage-tab")
    expect(tabs.nth(2)).to_have_attribute("aria-selected", "true")
    tabs.nth(1).click()
    expect(tabs.nth(1)).to_have_attribute("aria-selected", "true")
    page.get_by_test_id("share").click()
    url = page.get_by_test_id("share-link").input_value()
    with opened_fresh(browser, base_url, url) as fresh:
        expect(fresh.get_by_test_id("tab-ir")).to_have_attribute("aria-selected", "true")
        restored = fresh.get_by_test_id("stage-tab")
        expect(restored.nth(1)).to_have_attribute("aria-selected", "true")
        expect(restored.nth(1)).to_contain_text("grad(tanh)")


@needs_runner
def test_phone_layout(browser, base_url, artifacts):
    from .test_playground import new_context

    ctx = new_context(browser, base_url)
    try:
        page = ctx.new_page()
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto("/")
        expect(page.locator(".cm-content")).to_be_visible()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"sideways scroll: {width} px"
        toggle = page.get_by_test_id("theme-toggle").bounding_box()
        assert toggle and toggle["x"] + toggle["width"] <= 390, toggle
        run = page.get_by_test_id("run")
        lines = run.evaluate(
            "e => { const r = document.createRange(); r.selectNodeContents(e.firstChild);"
            " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"
        )
        assert lines <= 1, f"the Run button wraps over {lines} lines"

        run_and_wait(page)
        page.wait_for_timeout(600)  # the smooth scroll to the results
        tabs = page.get_by_test_id("tab-output").bounding_box()
        assert tabs and 0 <= tabs["y"] < 844 / 2, f"results not scrolled into view: {tabs}"
        expect(page.get_by_test_id("run-status")).to_be_in_viewport()

        page.get_by_test_id("tab-ir").click()
        expect(page.get_by_test_id("ir-node").first).to_be_visible()
        graph = page.locator("[data-testid=ir-panel] .graph").first.bounding_box()
        assert graph and graph["height"] >= 320, f"IR graph only {graph} tall"
        text = page.get_by_test_id("ir-text")
        text.scroll_into_view_if_needed()
        expect(text).to_be_visible()
        pane = page.locator("[data-testid=ir-panel] .text-pane").first.bounding_box()
        assert pane and pane["height"] >= 200, f"IR text only {pane} tall"
        page.screenshot(path=str(artifacts / "phone-ir.png"), full_page=True)
    finally:
        ctx.close()


PSUM_AND_GATHER = """import jax
import jax.numpy as jnp

def f(x):
    total = jax.lax.psum(x, 'i')
    everyone = jax.lax.all_gather(x, 'i')
    return total + everyone * 1.0e6 + 0.123456

out = jax.pmap(f, axis_name='i')(jnp.arange(4.0) + 0.5)
"""


@needs_runner
def test_devices_panel_layout(page: Page, artifacts):
    open_session(page, PSUM_AND_GATHER)
    expect_ok(page)
    page.get_by_test_id("tab-devices").click()
    expect(page.get_by_test_id("device-card")).to_have_count(4)
    chips = page.get_by_test_id("collective")
    expect(chips).to_have_count(2)
    hubs = page.get_by_test_id("collective-hub")
    expect(hubs).to_have_count(2)  # every collective that ran is drawn, not only the first
    page.screenshot(path=str(artifacts / "devices-layout.png"))
    # Hubs are drawn over the cards (a layer above the grid) and off the cards' text.
    layers = page.evaluate(
        """() => { const hub = document.querySelector('[data-testid=collective-hub]').ownerSVGElement;
              const grid = document.querySelector('.device-grid');
              return [Number(getComputedStyle(hub).zIndex), Number(getComputedStyle(grid).zIndex)]; }"""
    )
    assert layers[0] > layers[1], layers
    cards = [c.bounding_box() for c in page.get_by_test_id("device-card").all()]
    for hub in hubs.all():
        r = hub.bounding_box()
        for c in cards:
            overlap_x = min(r["x"] + r["width"], c["x"] + c["width"]) - max(r["x"], c["x"])
            overlap_y = min(r["y"] + r["height"], c["y"] + c["height"]) - max(r["y"], c["y"])
            assert overlap_x <= 0 or overlap_y <= 0, (r, c)
    for card in page.get_by_test_id("device-card").all():
        box = card.bounding_box()
        # "compute …", "exchange …" and "wait …" keep apart.
        facts = [f.bounding_box() for f in card.locator(".time-facts > span").all()]
        assert len(facts) == 3
        for ra, rb in zip(facts, facts[1:]):
            assert ra["y"] != rb["y"] or ra["x"] + ra["width"] + 4 <= rb["x"], (ra, rb)
        # Output values stay inside their card.
        for shard in card.get_by_test_id("shard-out").all():
            r = shard.bounding_box()
            assert r["x"] + r["width"] <= box["x"] + box["width"] + 0.5, (r, box)


@needs_runner
def test_nested_pmap_groups_repeated_collectives_and_names_axes(page: Page):
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    run_and_wait(page, page.locator("[data-testid=gallery-item][data-id='nested-pmap-grad']").click)
    expect_ok(page)
    page.get_by_test_id("tab-devices").click()
    expect(page.get_by_test_id("device-card")).to_have_count(8)
    chips = page.get_by_test_id("collective")
    counts = chips.evaluate_all("els => els.map(e => Number(e.dataset.count))")
    labels = chips.all_inner_texts()
    assert len(set(labels)) == len(labels), labels  # no identical chips
    assert sum(counts) > len(counts), counts  # the repeated all_gathers are grouped
    text = page.get_by_test_id("devices-panel").inner_text()
    assert "<axis" not in text and "(unnamed)" not in text, text


@needs_runner
def test_output_overrun_shows_the_limit_first(page: Page):
    open_session(page, "for i in range(200_000):\n    print('x' * 49)\n")
    status = page.get_by_test_id("run-status")
    expect(status).to_have_attribute("data-state", "limit")
    expect(status).to_contain_text("Output limit")
    box = page.get_by_test_id("error-box")
    expect(box).to_have_attribute("data-limit", "output")
    order = page.evaluate(
        """() => { const out = document.querySelector('[data-testid=output]');
             const kids = [...out.children];
             const at = (sel) => kids.findIndex(k => k.matches(sel) || k.querySelector(sel));
             return [at('[data-testid=error-box]'), at('[data-testid=stdout]')]; }"""
    )
    assert 0 <= order[0] < order[1], order
    assert box.bounding_box()["y"] < 300


@needs_runner
def test_control_flow_example_shows_the_path_taken_in_ir_and_debugger(page: Page):
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    run_and_wait(page, page.locator("[data-testid=gallery-item][data-id='control-flow-grad']").click)
    expect_ok(page)
    page.get_by_test_id("tab-ir").click()
    expect(page.get_by_test_id("path-taken")).to_be_visible()
    expect(page.get_by_test_id("ir-text")).not_to_contain_text("tracing failed")
    expect(page.locator("[data-testid=ir-node][data-primitive=neg]").first).to_be_visible()
    page.get_by_test_id("tab-debugger").click()
    expect(page.get_by_test_id("debugger-panel")).to_contain_text("path taken for these inputs")
    steps = page.get_by_test_id("debug-step")
    expect(steps.first).to_contain_text("gt")
    assert steps.count() >= 2


@needs_runner
def test_timeout_names_the_line_it_was_stopped_at(page: Page):
    open_session(page, "import time\n\nwhile True:\n    time.sleep(0.2)\n")
    box = page.get_by_test_id("error-box")
    expect(box).to_have_attribute("data-limit", "timeout")
    expect(page.get_by_test_id("error-message")).to_contain_text("line 4")
    expect(box.get_by_test_id("error-line")).to_have_attribute("data-line", "4")
    # The icon is drawn, not a glyph the font may lack.
    expect(box.get_by_test_id("limit-icon")).to_be_visible()
    assert box.locator(".error-icon").inner_text().strip() == ""
