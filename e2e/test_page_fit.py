"""Browser tests for the page's fit on a small laptop (1024x700) and for shared links to empty panels:
the stack builder's layers, the stage-tab strip's overflow, the Output status line, and a link to
the Devices or Debugger panel."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import needs_runner
from .test_page_usability import JIT, LOSS_ARGS, PMAP, PREDICT, VMAP
from .test_playground import GRAD, LOSS, open_session, wait_runs

SMALL = {"width": 1024, "height": 700}

# Each layer's name, height, and the boxes of its transformation select and of its tools.
LAYERS = """() => [...document.querySelectorAll('[data-testid=stack-layer]')].map((l) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {t: r.top, b: r.bottom, l: r.left, r: r.right}; };
  return {name: l.dataset.name, height: l.getBoundingClientRect().height, layer: box(l),
          select: box(l.querySelector('[data-testid=layer-name]')), tools: box(l.querySelector('.layer-tools')),
          buttons: [...l.querySelectorAll('.layer-tools button')].map((b) => [b.getAttribute('aria-label'), b.title])};
})"""


@needs_runner
def test_each_stack_layer_is_one_row_with_its_tools_beside_the_name(page: Page):
    page.set_viewport_size(SMALL)
    stack = [GRAD, JIT, VMAP, PMAP]
    open_session(page, PREDICT, "loss", stack, ["jnp.ones(3)", "jnp.ones((2, 4, 3))"])
    layers = page.evaluate(LAYERS)
    assert [x["name"] for x in layers] == ["grad", "jit", "vmap", "pmap"], layers
    for x in layers:
        # The move/remove tools sit on the name's line, at the row's right end, inside the row.
        assert x["tools"]["t"] >= x["select"]["t"] - 2 and x["tools"]["b"] <= x["select"]["b"] + 2, x
        assert x["tools"]["r"] <= x["layer"]["r"] and x["tools"]["l"] > x["select"]["r"], x
        # Each is labelled for screen readers and has a tooltip.
        assert len(x["buttons"]) == 3 and all(label and title for label, title in x["buttons"]), x
    # Every layer is a single row, vmap and pmap with their in_axes too: no taller than its select
    # plus padding (unset options wait behind a "+N" toggle).
    for x in layers:
        assert x["height"] <= x["select"]["b"] - x["select"]["t"] + 14, x
    # Still usable from the keyboard: Enter on "Move outward" moves the layer and keeps the focus on it.
    page.get_by_test_id("stack-layer").nth(0).get_by_test_id("layer-down").focus()
    page.keyboard.press("Enter")
    names = page.get_by_test_id("stack-layer").evaluate_all("ls => ls.map((l) => l.dataset.name)")
    assert names == ["jit", "grad", "vmap", "pmap"], names
    focused = page.evaluate(
        "() => [document.activeElement.dataset.testid, document.activeElement.closest('li').dataset.name]"
    )
    assert focused == ["layer-down", "grad"], focused
    expect(page.get_by_test_id("composed-call")).to_contain_text("grad(jit(loss))")


@needs_runner
def test_unset_options_wait_behind_a_toggle_that_shows_and_hides_them(page: Page):
    page.set_viewport_size(SMALL)
    vmap = {"name": "vmap", "options": {"in_axes": "(None, 0)", "out_axes": "0"}}
    pmap = {"name": "pmap", "options": {"axis_name": "'i'", "in_axes": "(None, 0)"}}
    open_session(page, PREDICT, "loss", [GRAD, vmap, pmap], ["jnp.ones(3)", "jnp.ones((2, 4, 3))"])
    layers = page.evaluate(LAYERS)
    for x in layers:  # set options are all shown, and still on one row
        assert x["height"] <= x["select"]["b"] - x["select"]["t"] + 14, x
    layer = page.locator("[data-testid=stack-layer][data-name=pmap]")
    expect(layer.get_by_test_id("opt-axis_name")).to_have_value("'i'")
    expect(layer.get_by_test_id("opt-in_axes")).to_have_value("(None, 0)")
    expect(layer.get_by_test_id("opt-out_axes")).to_have_count(0)
    more = layer.get_by_test_id("layer-more")
    expect(more).to_have_text("+2")
    expect(more).to_have_attribute("aria-expanded", "false")
    expect(more).to_have_attribute("aria-label", "More pmap options: out_axes, static_broadcasted_argnums")
    # From the keyboard: Enter shows them and puts the focus on the first one shown.
    more.focus()
    page.keyboard.press("Enter")
    out_axes = layer.get_by_test_id("opt-out_axes")
    expect(out_axes).to_be_focused()
    expect(layer.get_by_test_id("opt-static_broadcasted_argnums")).to_be_visible()
    page.keyboard.type("1")
    expect(page.get_by_test_id("composed-call")).to_contain_text("out_axes=1")
    # Hiding keeps what was set in view; the empty one goes back behind the toggle.
    less = layer.get_by_test_id("layer-more")
    expect(less).to_have_attribute("aria-expanded", "true")
    less.click()
    expect(layer.get_by_test_id("opt-out_axes")).to_have_value("1")
    expect(layer.get_by_test_id("opt-static_broadcasted_argnums")).to_have_count(0)
    expect(layer.get_by_test_id("layer-more")).to_be_focused()
    expect(layer.get_by_test_id("layer-more")).to_have_text("+1")
    # A layer with nothing set shows its first option, ready to fill.
    expect(
        page.locator("[data-testid=stack-layer][data-name=grad]").get_by_test_id("opt-argnums")
    ).to_be_visible()


@needs_runner
def test_a_shared_link_to_the_debugger_opens_it_and_says_why_it_is_empty(page: Page):
    page.set_viewport_size(SMALL)
    stack = [GRAD, VMAP, JIT, PMAP]
    open_session(page, PREDICT, "loss", stack, ["jnp.ones(3)", "jnp.ones((2, 4, 3))"], panel="debugger")
    expect(page.get_by_test_id("tab-debugger")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("panel-body")).to_have_attribute("data-panel", "debugger")
    panel = page.get_by_test_id("debugger-panel")
    expect(panel).to_contain_text("No equations recorded for stepping")
    expect(panel).to_contain_text("ran on several devices")


@needs_runner
def test_a_shared_link_to_the_devices_panel_opens_it_and_says_why_it_is_empty(page: Page, base_url):
    import httpx

    request = {"code": LOSS, "function": "loss", "stack": [GRAD], "args": ["jnp.ones(3)", "jnp.ones(3)"]}
    sid = httpx.post(f"{base_url}/api/snippets", json={"request": request}, timeout=30).json()["id"]
    page.set_viewport_size(SMALL)
    page.goto(f"/s/{sid}#p=devices")
    wait_runs(page, 1)
    expect(page.get_by_test_id("tab-devices")).to_have_attribute("aria-selected", "true")
    body = page.get_by_test_id("panel-body")
    expect(body).to_have_attribute("data-panel", "devices")
    expect(body).to_contain_text("No devices ran in this call")
    expect(body).to_contain_text("Run a pmap, a shard_map or a jit of sharded arrays")
    # The link keeps naming the panel it shows.
    page.wait_for_function("location.hash.includes('p=devices')")
    # A run from the page itself still falls back to Output when its panel has nothing to show.
    with page.expect_response("**/api/run"):
        page.get_by_test_id("run").click()
    expect(page.get_by_test_id("tab-output")).to_have_attribute("aria-selected", "true")


STRIP = """() => {
  const s = document.querySelector('.stage-tabs');
  return {overflow: s.dataset.overflow, mask: getComputedStyle(s).maskImage,
          scrolls: s.scrollWidth > s.clientWidth + 1};
}"""


@needs_runner
def test_the_stage_tab_strip_fades_at_the_edges_it_scrolls_past(page: Page):
    page.set_viewport_size(SMALL)
    open_session(page, LOSS, "loss", [GRAD, VMAP, JIT], LOSS_ARGS, panel="ir")
    expect(page.get_by_test_id("stage-tab").first).to_be_visible()
    strip = page.locator(".stage-tabs")
    # The open stage (jit, "lowered code" after it) is scrolled into view, clear of the fades, with
    # tabs hidden past both edges.
    expect(strip).to_have_attribute("data-overflow", "left right")
    state = page.evaluate(STRIP)
    assert state["scrolls"] and "gradient" in state["mask"], state
    active = page.locator("[data-testid=stage-tab][aria-selected=true]").bounding_box()
    box = strip.bounding_box()
    assert box["x"] + 40 <= active["x"] and active["x"] + active["width"] <= box["x"] + box["width"] - 40, (
        active,
        box,
    )
    strip.evaluate("s => { s.scrollLeft = 0; }")
    expect(strip).to_have_attribute("data-overflow", "right")
    assert "gradient" in page.evaluate(STRIP)["mask"]
    strip.evaluate("s => { s.scrollLeft = s.scrollWidth; }")
    expect(strip).to_have_attribute("data-overflow", "left")
    # Where every tab fits there is nothing to hint at.
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto("about:blank")  # a new fragment alone would not load the page again
    open_session(page, LOSS, "loss", [GRAD], LOSS_ARGS, panel="ir")
    expect(page.get_by_test_id("stage-tab")).to_have_count(2)
    expect(strip).to_have_attribute("data-overflow", "")
    state = page.evaluate(STRIP)
    assert not state["scrolls"] and state["mask"] == "none", state


@needs_runner
def test_a_long_stack_label_is_cut_to_one_status_line_with_the_whole_label_on_hover(page: Page):
    page.set_viewport_size(SMALL)
    stack = [{"name": "grad", "options": {"argnums": "(0, 1)"}}, VMAP, JIT, PMAP]
    open_session(page, PREDICT, "loss", stack, ["jnp.ones(3)", "jnp.ones((2, 4, 3))"])
    expect(page.get_by_test_id("run-status")).to_have_attribute("data-state", "ok")
    label = page.get_by_test_id("run-label")
    full = "pmap(jit(vmap(grad(loss, argnums=(0, 1)), in_axes=(None, 0))), in_axes=(None, 0))"
    expect(label).to_have_text(full)
    expect(label).to_have_attribute("title", full)
    cut = label.evaluate(
        "l => ({cut: l.scrollWidth > l.clientWidth, overflow: getComputedStyle(l).textOverflow})"
    )
    assert cut == {"cut": True, "overflow": "ellipsis"}, cut
    meta = page.locator(".run-meta")
    boxes = meta.evaluate(
        """m => ({meta: m.getBoundingClientRect().toJSON(), status: m.querySelector('[data-testid=run-status]')
                 .getBoundingClientRect().toJSON(), body: document.querySelector('[data-testid=panel-body]')
                 .getBoundingClientRect().toJSON(),
                 tops: [...m.children].map((c) => Math.round(c.getBoundingClientRect().top))})"""
    )
    # One line: every item on the status's row, and the row within the panel.
    assert max(boxes["tops"]) - min(boxes["tops"]) <= 3, boxes
    assert boxes["meta"]["height"] <= boxes["status"]["height"] + 14, boxes
    assert boxes["meta"]["right"] <= boxes["body"]["right"], boxes


@needs_runner
def test_on_a_phone_the_stack_label_gets_its_own_line_and_every_panel_tab_fits(page: Page):
    page.set_viewport_size({"width": 390, "height": 844})
    open_session(page, LOSS, "loss", [GRAD, VMAP, JIT], LOSS_ARGS)
    label = page.get_by_test_id("run-label")
    expect(label).to_have_text("jit(vmap(grad(loss), in_axes=(None, 0)))")
    # The whole label shows, not the two letters a shared row would leave it.
    cut = label.evaluate("l => l.scrollWidth > l.clientWidth + 1")
    assert not cut, label.evaluate("l => [l.scrollWidth, l.clientWidth]")
    expect(page.get_by_test_id("run-status")).to_be_visible()
    tabs = page.evaluate(
        "() => [...document.querySelectorAll('.panel-tab')].map((t) => t.getBoundingClientRect().right)"
    )
    assert len(tabs) == 5 and max(tabs) <= 390, tabs


@needs_runner
def test_on_a_phone_the_minimap_leaves_the_graph_uncovered(page: Page):
    from bench.bench_ir_page import wait_graph

    from .test_ir_nested import MLP, MLP_ARGS

    page.set_viewport_size({"width": 390, "height": 844})
    open_session(page, MLP, "loss", [GRAD], MLP_ARGS, panel="ir")
    page.get_by_test_id("graph-expand-all").click()
    wait_graph(page)
    assert page.locator("[data-testid=ir-graph] [data-testid=ir-node]").count() >= 25
    expect(page.get_by_test_id("graph-minimap")).to_be_hidden()
    # The legend is not kept narrow for a minimap that is not there.
    legend = page.locator(".graph-legend").evaluate("l => getComputedStyle(l).maxWidth")
    assert legend == "none", legend
    # At a laptop's width, beside the text, the minimap is back.
    page.set_viewport_size({"width": 1440, "height": 900})
    expect(page.get_by_test_id("graph-minimap")).to_be_visible()


@needs_runner
def test_a_link_s_first_run_says_it_is_running_not_that_nothing_ran(page: Page):
    from .conftest import session_fragment

    slow = "import time\n\ndef f(x):\n    time.sleep(1.5)\n    return x * 2.0\n"
    page.goto("/" + session_fragment(slow, "f", [], ["1.0"]))
    running = page.get_by_test_id("panel-running")
    expect(running).to_be_visible()
    expect(running).to_contain_text("Running")
    expect(page.get_by_test_id("welcome")).to_have_count(0)
    wait_runs(page, 1)
    expect(running).to_have_count(0)
    expect(page.get_by_test_id("run-status")).to_have_attribute("data-state", "ok")


# One fan of fourteen equations from one input: at a laptop's width, wider than the stage.
FAN = """import jax.numpy as jnp

def f(x):
    a = jnp.sin(x)
    b = jnp.cos(x)
    c = jnp.exp(x)
    d = jnp.tanh(x)
    e = jnp.log1p(x)
    g = jnp.sqrt(x)
    h = jnp.abs(x)
    i = jnp.sinh(x)
    j = jnp.cosh(x)
    k = jnp.arctan(x)
    l = jnp.expm1(x)
    m = jnp.log(x)
    n = jnp.square(x)
    o = jnp.floor(x)
    return a * b * c * d * e * g * h * i * j * k * l * m * n * o
"""

# The drawn nodes whose boxes meet the minimap's (but for an expanded equation's frame all around
# it), and whether it is shown.
UNDER_MINIMAP = """() => {
  const m = document.querySelector('[data-testid=graph-minimap]');
  const r = m.getBoundingClientRect();
  const under = [...document.querySelectorAll('[data-testid=ir-graph] [data-testid=ir-node]')].filter((n) => {
    const b = n.getBoundingClientRect();
    const around = b.left <= r.left && b.right >= r.right && b.top <= r.top && b.bottom >= r.bottom;
    return b.right > r.left && b.left < r.right && b.bottom > r.top && b.top < r.bottom && !around;
  }).map((n) => n.textContent);
  return {shown: r.width > 0, under};
}"""


@needs_runner
def test_a_graph_wider_than_the_stage_starts_with_no_node_under_the_minimap(page: Page):
    # "fit" kept a graph that fits beside the minimap clear of it, but a wider one ran under its
    # corner: three of these fourteen equations started hidden behind it.
    from bench.bench_ir_page import wait_graph

    page.set_viewport_size({"width": 1280, "height": 800})
    open_session(page, FAN, "f", [{"name": "jit", "options": {}}], ["jnp.ones(3)"], panel="ir")
    page.get_by_role("button", name="Graph", exact=True).click()
    wait_graph(page)
    assert page.locator("[data-testid=ir-graph] [data-testid=ir-node]").count() >= 25
    seen = page.evaluate(UNDER_MINIMAP)
    assert seen == {"shown": True, "under": []}, seen
    # So after "fit" again; a pan leaves it where it was put.
    page.get_by_test_id("graph-fit").click()
    assert page.evaluate(UNDER_MINIMAP) == {"shown": True, "under": []}
    before = page.get_by_test_id("graph-minimap").bounding_box()
    page.locator(".graph-stage").focus()
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("graph-minimap")).to_be_visible()
    assert page.get_by_test_id("graph-minimap").bounding_box() == before
