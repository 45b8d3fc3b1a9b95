"""Browser tests for page defects found in review, one test per defect: the editor's cost marks
outlived the IR tab, the graph legend covered nodes, the Devices mesh scrolled sideways on a phone,
a large graph made the browser render all of it (and the page lay itself out again mid-click)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from bench.bench_ir_page import equations, layers_for, open_mlp, time_render, wait_graph

from .conftest import needs_runner, session_fragment
from .test_ir_views import VMAP_LOSS, VMAP_STACK
from .test_playground import expect_ok, open_session, run_and_wait

MESH_2X4 = """import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType

mesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)

def f(a):
    return jax.lax.psum(jnp.sin(a) * 2.0, 'y')

x = jnp.arange(32.0).reshape(4, 8)
out = jax.shard_map(f, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))(x)
"""

# Points of the drawn nodes' visible parts (inside the graph's stage) the legend is on top of.
UNDER_LEGEND = """() => {
  const stage = document.querySelector('[data-testid=ir-graph] .graph-stage').getBoundingClientRect();
  const hidden = [];
  for (const n of document.querySelectorAll('[data-testid=ir-graph] .node')) {
    const r = n.getBoundingClientRect();
    const x0 = Math.max(r.left, stage.left) + 1, x1 = Math.min(r.right, stage.right) - 1;
    const y0 = Math.max(r.top, stage.top) + 1, y1 = Math.min(r.bottom, stage.bottom) - 1;
    if (x0 >= x1 || y0 >= y1) continue;
    for (const [x, y] of [[x0, y0], [x1, y0], [x0, y1], [x1, y1], [(x0 + x1) / 2, (y0 + y1) / 2]]) {
      if (document.elementFromPoint(x, y)?.closest('.graph-legend')) hidden.push(n.dataset.id);
    }
  }
  return hidden;
}"""

# The graph's boxes inside the stage's window, and how many the browser renders (not skipped as off
# screen by content-visibility), in the window and outside it.
RENDERED = """() => {
  const stage = document.querySelector('[data-testid=ir-graph] .graph-stage').getBoundingClientRect();
  const out = { inView: 0, inViewRendered: 0, offView: 0, offViewRendered: 0 };
  for (const n of document.querySelectorAll('[data-testid=ir-graph] .node')) {
    const r = n.getBoundingClientRect();
    const seen = r.right > stage.left && r.left < stage.right && r.bottom > stage.top && r.top < stage.bottom;
    const rendered = n.checkVisibility({ contentVisibilityAuto: true });
    if (seen) { out.inView++; out.inViewRendered += rendered; } else { out.offView++; out.offViewRendered += rendered; }
  }
  return out;
}"""

# Elements of the Devices panel reaching past the window's right edge, and whether the panel scrolls.
SIDEWAYS = """() => {
  const W = document.documentElement.clientWidth, body = document.querySelector('[data-testid=panel-body]');
  const past = [...document.querySelectorAll('[data-testid=devices-panel] *')]
    .filter((e) => e.getBoundingClientRect().right > W + 0.5 && !e.closest('.shard'))
    .map((e) => `${e.tagName} ${e.getAttribute('class') ?? ''}`);
  return { page: document.documentElement.scrollWidth - W, panel: body.scrollWidth - body.clientWidth, past };
}"""


@needs_runner
def test_editor_cost_marks_belong_to_the_ir_tab(page: Page, context):
    open_session(page, VMAP_LOSS, "loss", VMAP_STACK, ["w", "xs"], panel="ir")
    wait_graph(page)
    marks = page.locator(".cm-cost-heat")
    expect(marks).not_to_have_count(0)
    shown = marks.count()
    # Leaving the IR tab takes its stage's costs out of the editor; coming back shows them again.
    for other in ("output", "timings"):
        page.get_by_test_id(f"tab-{other}").click()
        expect(marks).to_have_count(0)
        page.get_by_test_id("tab-ir").click()
        wait_graph(page)
        expect(marks).to_have_count(shown)
    # A run started from another tab leaves none behind; back on IR the new run's are there.
    page.get_by_test_id("tab-output").click()
    run_and_wait(page)
    expect(marks).to_have_count(0)
    page.get_by_test_id("tab-ir").click()
    wait_graph(page)
    expect(marks).to_have_count(shown)
    # A run that fails to reach the server shows its error: the last report's marks go with it.
    context.route("**/api/run", lambda route: route.abort())
    run_and_wait(page)
    expect(page.get_by_test_id("tab-output")).to_have_attribute("aria-selected", "true")
    expect(marks).to_have_count(0)


@needs_runner
def test_graph_legend_never_covers_nodes(page: Page, artifacts):
    open_mlp(page, layers_for(250), session_fragment)
    wait_graph(page)
    graph = page.get_by_test_id("ir-graph")
    legend = graph.locator(".graph-legend")
    expect(legend).to_contain_text("added by this stage")
    # Zoomed in, the nodes fill the whole drawing area, its bottom edge too: none is under the legend,
    # which sits outside the area the graph is drawn in.
    for _ in range(3):
        graph.get_by_role("button", name="Zoom in").click()
    for key in ("ArrowUp", "ArrowRight"):
        graph.locator(".graph-stage").press(key)
    page.screenshot(path=str(artifacts / "ir-legend-zoomed.png"))
    assert page.evaluate(UNDER_LEGEND) == []
    stage, box = graph.locator(".graph-stage").bounding_box(), legend.bounding_box()
    assert box["y"] >= stage["y"] + stage["height"] - 0.5, (box, stage)
    # and at the graph's narrowest (a phone), the same
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)
    assert page.evaluate(UNDER_LEGEND) == []
    stage, box = graph.locator(".graph-stage").bounding_box(), legend.bounding_box()
    assert box["y"] >= stage["y"] + stage["height"] - 0.5, (box, stage)


@needs_runner
def test_devices_mesh_fits_a_phone(page: Page, artifacts):
    page.set_viewport_size({"width": 390, "height": 844})
    open_session(page, MESH_2X4)
    expect_ok(page)
    page.get_by_test_id("tab-devices").click()
    cards = page.get_by_test_id("device-card")
    expect(cards).to_have_count(8)
    page.locator(".collective-table summary").click()
    expect(page.get_by_test_id("collective-hub")).to_have_count(2)  # drawn once the cards are placed
    sideways = page.evaluate(SIDEWAYS)
    page.screenshot(path=str(artifacts / "devices-mesh-2x4-phone.png"), full_page=True)
    assert sideways == {"page": 0, "panel": 0, "past": []}, sideways
    # Four columns of cards do not fit 390 px: the cards wrap, in device order, each naming its place.
    grid = page.get_by_test_id("mesh-grid")
    expect(grid).to_have_attribute("data-layout", "wrapped")
    boxes = [cards.nth(i).bounding_box() for i in range(8)]
    order = sorted(range(8), key=lambda i: (round(boxes[i]["y"]), boxes[i]["x"]))
    assert order == list(range(8)), boxes
    expect(cards.nth(5).get_by_test_id("device-coords")).to_have_text("x=1 y=1")
    # With room for the mesh (a laptop), it is the 2 x 4 grid again, axis names on its sides.
    page.set_viewport_size({"width": 1440, "height": 900})
    expect(grid).to_have_attribute("data-layout", "mesh")
    expect(page.get_by_test_id("mesh-col")).to_have_text(["y=0", "y=1", "y=2", "y=3"])
    top = [cards.nth(i).bounding_box()["y"] for i in range(4)]
    assert max(top) - min(top) < 1, top


@needs_runner
def test_large_graph_renders_what_is_in_view(page: Page):
    open_mlp(page, layers_for(1000), session_fragment)
    wait_graph(page)
    assert equations(page) >= 1000
    tabs = page.get_by_test_id("stage-tab")
    time_render(page, lambda: tabs.last.click())
    # The clicked tab stays (and keeps the focus): the tab strip is not rebuilt mid-click.
    assert tabs.last.evaluate(
        "t => t === document.activeElement && t.getAttribute('aria-selected') === 'true'"
    )
    # Every box in the window is rendered; most of the rest, off screen, is left for when it is panned to.
    seen = page.evaluate(RENDERED)
    assert seen["inView"] > 10 and seen["inViewRendered"] == seen["inView"], seen
    assert seen["offView"] > 100 and seen["offViewRendered"] < seen["offView"] / 2, seen
    stage = page.get_by_test_id("ir-graph").locator(".graph-stage")
    for _ in range(12):
        stage.press("ArrowDown")
    page.wait_for_function(
        f"() => ({RENDERED})().inViewRendered === ({RENDERED})().inView && ({RENDERED})().inView > 10"
    )
