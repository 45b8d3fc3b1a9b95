"""Browser tests for the page's look at real window sizes: nothing hidden under an overlay, no
console noise across the gallery."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from bench.bench_ir_page import wait_graph

from .conftest import needs_runner
from .test_playground import open_session, run_and_wait


def _overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def open_example(page: Page, example: str) -> None:
    page.get_by_test_id("open-gallery").click()
    run_and_wait(page, page.locator(f"[data-testid=gallery-item][data-id='{example}']").click)


@needs_runner
def test_graph_fit_leaves_the_first_node_clear_of_the_overlays(page: Page, artifacts):
    page.set_viewport_size({"width": 1024, "height": 700})
    page.goto("/")
    open_example(page, "hessian")
    page.get_by_test_id("tab-ir").click()
    wait_graph(page)
    graph = page.get_by_test_id("ir-graph")
    find, tools = graph.locator(".graph-find"), graph.locator(".graph-tools")
    legend, minimap = graph.locator(".graph-legend"), graph.get_by_test_id("graph-minimap")
    nodes = graph.locator(".node").evaluate_all(
        """ns => ns.map(n => { const r = n.getBoundingClientRect();
        return {x: r.x, y: r.y, width: r.width, height: r.height}; })"""
    )
    first = min(nodes, key=lambda r: (r["y"], r["x"]))
    page.screenshot(path=str(artifacts / "ir-fit-overlays.png"))
    box = graph.bounding_box()
    assert box and first["y"] >= box["y"] and first["x"] >= box["x"], (first, box)
    for overlay in (find, tools):
        assert not _overlap(first, overlay.bounding_box()), (first, overlay.bounding_box())
    # The overlays themselves stay apart: the find bar's node count is not under the zoom buttons,
    # the legend not under the minimap.
    assert not _overlap(find.bounding_box(), tools.bounding_box())
    if minimap.is_visible():
        assert not _overlap(legend.bounding_box(), minimap.bounding_box())
        assert not _overlap(tools.bounding_box(), minimap.bounding_box())
    # The stage's toggles (jaxpr|StableHLO, Graph|Text|Both) wrap instead of running off the panel.
    right = page.get_by_test_id("ir-panel").bounding_box()
    for toggle in page.locator(".stage-head .seg").all():
        b = toggle.bounding_box()
        assert b and b["x"] + b["width"] <= right["x"] + right["width"], (toggle.inner_text(), b, right)
    assert page.get_by_test_id("stage-equations").inner_text() == "1 equation"


# The focus ring's box (outline width + offset around the element) clipped by its nearest
# ancestor that hides overflow: [visible part, whole ring] widths and heights.
RING_IN_CLIP = """e => {
  const cs = getComputedStyle(e);
  const grow = parseFloat(cs.outlineWidth) + parseFloat(cs.outlineOffset);
  const r = e.getBoundingClientRect();
  const ring = {l: r.left - grow, t: r.top - grow, r: r.right + grow, b: r.bottom + grow};
  let clip = {l: -1e9, t: -1e9, r: 1e9, b: 1e9};
  for (let p = e.parentElement; p; p = p.parentElement) {
    if (getComputedStyle(p).overflow !== 'visible') {
      const q = p.getBoundingClientRect();
      clip = {l: Math.max(clip.l, q.left), t: Math.max(clip.t, q.top), r: Math.min(clip.r, q.right), b: Math.min(clip.b, q.bottom)};
    }
  }
  return {style: cs.outlineStyle, inside: ring.l >= clip.l - 0.5 && ring.t >= clip.t - 0.5 && ring.r <= clip.r + 0.5 && ring.b <= clip.b + 0.5};
}"""


@needs_runner
def test_keyboard_focus_rings_are_not_clipped(page: Page):
    page.goto("/")
    open_example(page, "hessian")
    page.get_by_test_id("tab-ir").focus()
    page.keyboard.press("Enter")
    for target in (
        page.get_by_test_id("tab-ir"),
        page.get_by_test_id("stage-tab").last,
        page.locator(".stage-head .seg").first,
        page.locator(".stage-head .seg").last,
    ):
        # After a key press, focus shows its ring (":focus-visible"), as it does for keyboard users.
        page.keyboard.press("Shift")
        target.focus()
        assert target.evaluate("e => e.matches(':focus-visible')")
        ring = target.evaluate(RING_IN_CLIP)
        assert ring["style"] != "none" and ring["inside"], (target, ring)


@needs_runner
def test_expected_values_line_is_grammatical_for_one_value(page: Page):
    page.goto("/")
    open_example(page, "vmap-grid")
    expect(page.get_by_test_id("expected-check")).to_have_attribute("data-status", "match")
    expect(page.get_by_test_id("expected-check")).to_contain_text("— 1 value matches the reference")


@needs_runner
def test_debugger_counts_one_equation_in_the_singular(page: Page):
    code = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x)\n"
    open_session(page, code, "f", [{"name": "vmap", "options": {}}], ["jnp.arange(3.0)"], panel="debugger")
    expect(page.get_by_test_id("debug-counter")).to_have_text("1 / 1")
    expect(page.get_by_test_id("debugger-panel")).to_contain_text("· 1 equation")
    expect(page.get_by_test_id("debugger-panel")).not_to_contain_text("1 equations")
