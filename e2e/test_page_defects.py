"""Browser tests for the page defects a new user found (issue 16), one test per defect."""

from __future__ import annotations

import base64
import json
import re

import pytest
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
    # (a "load" where its kernels were in the kernel cache already)
    assert all(
        c in ("compile", "load") for c in background.evaluate_all("els => els.map(e => e.dataset.category)")
    )
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


# A script whose own top-level code makes a transformed call before the stack's: the playground
# opens the stack's call (the last), and an embed opened the first with stages, another program.
TWO_CALLS = """import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x) * x

y = jax.jit(f)(2.0)
"""


def _stage_tabs(frame) -> tuple[list[str], int]:
    tabs = frame.get_by_test_id("stage-tab")
    expect(tabs.first).to_be_visible()
    names = tabs.all_inner_texts()
    selected = [t.get_attribute("aria-selected") for t in tabs.all()].index("true")
    return names, selected


def _embed_of_share(page: Page) -> str:
    page.get_by_test_id("share").click()
    embed = page.get_by_test_id("share-embed").input_value()
    page.keyboard.press("Escape")
    m = re.search(r'src="([^"]+)"', embed)
    assert m, embed
    return m.group(1)


@needs_runner
def test_the_embed_opens_the_call_and_stage_the_playground_showed(page: Page, context):
    open_session(page, TWO_CALLS, "f", [GRAD], ["1.0"], panel="ir")
    picker = page.get_by_test_id("call-select")
    expect(picker.locator("option:checked")).to_contain_text("grad(f)")
    shown = _stage_tabs(page)
    embed = context.new_page()
    embed.goto(_embed_of_share(page))
    expect(embed.get_by_test_id("embed-status")).to_contain_text("ok", timeout=90_000)
    assert _stage_tabs(embed) == shown

    # A call picked in the playground, and a stage of it, travel to the embed too.
    picker.select_option(label=picker.locator("option", has_text="jit(f)").inner_text())
    page.get_by_test_id("stage-tab").first.click()
    grad_tabs, shown = shown, _stage_tabs(page)
    assert shown[1] == 0 and shown[0] != grad_tabs[0], (grad_tabs, shown)
    src = _embed_of_share(page)
    fresh = context.new_page()
    fresh.goto(src)
    expect(fresh.get_by_test_id("embed-status")).to_contain_text("ok", timeout=90_000)
    assert _stage_tabs(fresh) == shown
    fresh.close()
    k = re.search(r"[&#]k=(\d+)", src)
    assert k, src

    def linked_call():  # (the playground link's session, base64 JSON in its fragment)
        s = embed.get_by_test_id("open-in-playground").get_attribute("href").split("#s=", 1)[1]
        return json.loads(base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))).get("k")

    before = linked_call()
    # The open embed, pointed at that call and stage by its fragment alone (which loads nothing),
    # follows too: it kept showing the first view.
    embed.evaluate("hash => { location.hash = hash }", src.split("#", 1)[1])
    tabs = embed.get_by_test_id("stage-tab")
    expect(tabs).to_have_text(shown[0])
    expect(tabs.nth(shown[1])).to_have_attribute("aria-selected", "true")
    assert linked_call() == int(k.group(1)) != before, before
    embed.close()


def test_remove_argument_buttons_are_named_for_their_row_and_keep_the_focus(page: Page):
    from .conftest import session_fragment

    code = "import jax.numpy as jnp\n\ndef f(*xs):\n    return sum(xs)\n"
    page.goto("/" + session_fragment(code, "f", [], ["1.0", "2.0", "3.0"]))
    removes = page.get_by_test_id("arg-remove")
    expect(removes).to_have_count(3)
    expect(removes.nth(1)).to_have_attribute("aria-label", "Remove argument arg1")
    page.get_by_role("button", name="Remove argument arg1").click()
    expect(page.get_by_test_id("arg-input")).to_have_count(2)
    assert [i.input_value() for i in page.get_by_test_id("arg-input").all()] == ["1.0", "3.0"]
    # From the keyboard: the focus moves on to the next row's button, not to the page's body.
    page.get_by_role("button", name="Remove argument arg1").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("arg-input")).to_have_count(1)
    expect(page.get_by_test_id("arg-input")).to_have_value("1.0")
    assert page.evaluate("document.activeElement.dataset.testid") in ("arg-remove", "add-arg")


TICK = re.compile(r"^(0|[1-9]\d*(\.\d*[1-9])?|0\.\d*[1-9])\u00a0(µs|ms|s)$|^0$")


@needs_runner
def test_timeline_ticks_are_clean_numbers_in_one_unit(page: Page):
    """The axis read "200.0 ms", "0.50 ms" and "1.00 s" beside "500.0 ms": now one unit per axis,
    as many decimals as the step needs, and no trailing zeros."""
    span = {"ms": 1.0}

    def scaled(route):
        # The run's real report, its events stretched to a chosen span (a run's own takes what it takes).
        resp = route.fetch()
        report = resp.json()
        events = report["timings"] + [e for c in report["calls"] for e in c["timings"]]
        t0 = min(e["start_ms"] for e in events)
        t1 = max(e["start_ms"] + e["duration_ms"] for e in events)
        k = span["ms"] / (t1 - t0)
        for e in events:
            e["start_ms"] = t0 + (e["start_ms"] - t0) * k
            e["duration_ms"] *= k
        report["duration_ms"] = span["ms"]
        route.fulfill(response=resp, json=report)

    page.route("**/api/run", scaled)
    open_session(page, TANH, "tanh", [GRAD, {"name": "jit", "options": {}}], ["1.0"], panel="timings")
    for ms, unit in [(0.8, "µs"), (1.6, "ms"), (850.0, "ms"), (1300.0, "s"), (2600.0, "s")]:
        span["ms"] = ms
        run_and_wait(page)
        ticks = page.get_by_test_id("timeline-tick")
        expect(ticks.first).to_have_text("0")
        labels = ticks.all_text_contents()
        assert len(labels) >= 3, labels
        bad = [t for t in labels if not TICK.match(t)]
        assert not bad, (ms, labels)
        assert {t.split("\u00a0")[1] for t in labels[1:]} == {unit}, (ms, labels)
    # The compiles chart's axis starts at "0" too, not "0 µs" beside its end's "56.3 ms".
    expect(page.get_by_test_id("recompile-tick").first).to_have_text("0")


# Each timeline bar: its width, its label's text and the label's width (null when it has none).
BAR_LABELS = """() => [...document.querySelectorAll('[data-testid=timeline-bar]')].map((b) => {
  const rect = b.querySelector('rect:not(.bar-hit)'), text = b.querySelector('.bar-label');
  return {w: rect ? rect.getBBox().width : 0, label: text ? text.textContent : null,
          lw: text ? text.getBBox().width : 0, name: b.querySelector('title').textContent.split(' (')[0]};
})"""


@needs_runner
def test_a_wide_timeline_bar_with_a_long_name_shows_its_name_cut_short(page: Page):
    """The pmap example's call bar ("run pmap(update, axis_name='batch', in_axes=…)") was a third of
    the chart wide and showed no label: a name that did not fit whole was left out."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    run_and_wait(page, page.locator("[data-testid=gallery-item][data-id='data-parallel-step']").click)
    page.get_by_test_id("tab-timings").click()
    expect(page.get_by_test_id("timeline-bar").first).to_be_visible()
    bars = page.evaluate(BAR_LABELS)
    long_run = [b for b in bars if b["name"].startswith("run pmap(")]
    assert long_run and long_run[0]["w"] > 120, bars
    for b in bars:
        if b["w"] >= 60:
            assert b["label"], b
        if b["label"]:
            # The whole name, or its start and an ellipsis; inside its bar.
            assert b["label"] == b["name"] or (
                b["label"].endswith("…") and b["name"].startswith(b["label"][:-1])
            ), b
            assert b["lw"] <= b["w"] - 4, b


# The IR graph's stage and tool column, and the drawn nodes whose visible part (clipped to the
# stage) lies under the tool column.
UNDER_TOOLS = """() => {
  const g = document.querySelector('[data-testid=ir-graph]');
  const box = (e) => e.getBoundingClientRect();
  const tools = box(g.querySelector('.graph-tools')), stage = box(g.querySelector('.graph-stage'));
  const meet = (a, b) => a.right > b.left && a.left < b.right && a.bottom > b.top && a.top < b.bottom;
  const clip = (b) => ({left: Math.max(b.left, stage.left), right: Math.min(b.right, stage.right),
                        top: Math.max(b.top, stage.top), bottom: Math.min(b.bottom, stage.bottom)});
  const under = [...g.querySelectorAll('[data-testid=ir-node]')]
    .filter((n) => meet(box(n), stage) && meet(clip(box(n)), tools)).map((n) => n.textContent);
  return {overlap: meet(stage, tools), under, tools: tools.width};
}"""


@needs_runner
@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_the_graph_tool_column_hides_no_node_of_a_wide_graph(page: Page, artifacts, theme, size):
    from bench.bench_ir_page import wait_graph

    from .test_page_fit import FAN

    page.emulate_media(color_scheme=theme)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_session(page, FAN, "f", [{"name": "jit", "options": {}}], ["jnp.ones(3)"], panel="ir")
    wait_graph(page)
    seen = page.evaluate(UNDER_TOOLS)
    assert seen["tools"] > 0 and not seen["overlap"] and not seen["under"], seen
    # Panned on to the right, where the graph ran under the column.
    page.locator(".graph-stage").focus()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    seen = page.evaluate(UNDER_TOOLS)
    assert not seen["overlap"] and not seen["under"], seen
    # Graph only, as wide as the stage gets.
    page.get_by_role("button", name="Graph", exact=True).click()
    wait_graph(page)
    assert page.evaluate(UNDER_TOOLS)["under"] == []
    page.screenshot(path=str(artifacts / f"graph-tools-{size[0]}-{theme}.png"))
