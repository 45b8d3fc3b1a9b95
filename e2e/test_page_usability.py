"""Browser tests for what a first-time user's walk through the page found (issue: page usability),
one test per defect, at the sizes the walk used (1440x900 and 1024x700)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from bench.bench_ir_page import wait_graph

from .conftest import needs_runner
from .test_playground import GRAD, LOSS, open_session

VMAP = {"name": "vmap", "options": {"in_axes": "(None, 0)"}}
JIT = {"name": "jit", "options": {}}
LOSS_ARGS = ["jnp.array([0.5, -1.0, 2.0])", "jnp.arange(12.0).reshape(4, 3) / 10.0"]

# Boxes of the graph, the text pane and the drawn nodes, in page coordinates.
BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  const graph = document.querySelector('[data-testid=ir-graph]');
  return {graph: box(graph), text: box(document.querySelector('[data-testid=ir-text-pane]')),
          nodes: [...graph.querySelectorAll('[data-testid=ir-node], [data-testid=ir-in]')].map((n) => {
            // An open equation (the jit's frame) by its title, what one reads of it.
            const frame = n.classList.contains('expanded');
            // What is drawn at the node's centre: the node, or what covers it.
            const b = box(frame ? n.querySelector(':scope > .node-label') : n), top = document.elementFromPoint((b.l + b.r) / 2, (b.t + b.b) / 2);
            return {...b, frame, covered_by_text: !!top?.closest('[data-testid=ir-text-pane]')};
          }),
          window: {w: innerWidth, h: innerHeight}};
}"""


def overlap(a, b) -> bool:
    return min(a["r"], b["r"]) - max(a["l"], b["l"]) > 0.5 and min(a["b"], b["b"]) - max(a["t"], b["t"]) > 0.5


def inside(a, b) -> bool:
    return a["l"] >= b["l"] and a["r"] <= b["r"] and a["t"] >= b["t"] and a["b"] <= b["b"]


def centre(a) -> dict:
    x, y = (a["l"] + a["r"]) / 2, (a["t"] + a["b"]) / 2
    return {"l": x, "r": x, "t": y, "b": y}


@needs_runner
def test_both_view_leaves_the_graph_room_on_a_small_laptop(page: Page):
    page.set_viewport_size({"width": 1024, "height": 700})
    open_session(page, LOSS, "loss", [GRAD, VMAP, JIT], LOSS_ARGS, panel="ir")
    expect(page.get_by_role("button", name="Both", exact=True)).to_have_attribute("aria-pressed", "true")
    wait_graph(page)
    boxes = page.evaluate(BOXES)
    graph, text = boxes["graph"], boxes["text"]
    # A graph one can read: at least 480 x 320 CSS pixels, and that much of it on screen at once.
    assert graph["r"] - graph["l"] >= 480 and graph["b"] - graph["t"] >= 320, boxes
    assert min(graph["b"], boxes["window"]["h"]) - graph["t"] >= 320, boxes
    # The text pane is beside or below the graph, never over it; no drawn node is under it.
    assert not overlap(graph, text), boxes
    shown = [n for n in boxes["nodes"] if inside(n, graph)]
    assert len(shown) >= 4, boxes
    centred = [n for n in boxes["nodes"] if inside(centre(n), graph)]
    assert not any(n["covered_by_text"] for n in centred), boxes
    # Drawn at a legible zoom (a node is ~26 px high at 1x; fit never goes below 0.7x).
    assert all(n["b"] - n["t"] >= 17 for n in shown if not n["frame"]), shown
    # The text form is still there: scrolled to, not squeezed out.
    page.get_by_test_id("ir-text").scroll_into_view_if_needed()
    expect(page.get_by_test_id("ir-text")).to_contain_text("jit[name=loss")
    assert page.get_by_test_id("ir-text-pane").bounding_box()["height"] >= 150
    # The open stage's tab is in view, not cut off at the strip's right edge.
    active = page.locator("[data-testid=stage-tab][aria-selected=true]").bounding_box()
    strip = page.locator(".stage-tabs").bounding_box()
    assert active["x"] + active["width"] <= strip["x"] + strip["width"] + 0.5, (active, strip)


@needs_runner
def test_both_view_is_side_by_side_when_there_is_room(page: Page):
    open_session(page, LOSS, "loss", [GRAD, VMAP, JIT], LOSS_ARGS, panel="ir")
    wait_graph(page)
    boxes = page.evaluate(BOXES)
    graph, text = boxes["graph"], boxes["text"]
    assert text["l"] >= graph["r"] - 0.5 and graph["r"] - graph["l"] >= 400, boxes
    assert graph["b"] - graph["t"] >= 400, boxes


PMAP = {"name": "pmap", "options": {"in_axes": "(None, 0)"}}
PREDICT = """import jax
import jax.numpy as jnp

def predict(w, x):
    return jnp.tanh(jnp.dot(x, w))

def loss(w, x):
    return jnp.mean(predict(w, x) ** 2)
"""


@needs_runner
def test_a_pmap_stack_explains_itself_in_timings_devices_and_debugger(page: Page):
    page.set_viewport_size({"width": 1024, "height": 700})
    stack = [GRAD, VMAP, JIT, PMAP]
    open_session(page, PREDICT, "loss", stack, ["jnp.ones(3)", "jnp.ones((2, 4, 3))"], panel="timings")
    expect(page.get_by_test_id("recompile-row")).to_have_count(1)
    # The compiles table fits the panel: its long stack label wraps instead of pushing columns out.
    table = page.locator(".recompile-table").bounding_box()
    body = page.get_by_test_id("panel-body").bounding_box()
    assert table["x"] + table["width"] <= body["x"] + body["width"] + 0.5, (table, body)
    # Devices: an axis without a name says so in words, and no collectives says how to add one.
    page.get_by_test_id("tab-devices").click()
    facts = page.get_by_test_id("mesh-facts")
    expect(facts).to_contain_text("axis of size 2 (no axis_name)")
    expect(facts).not_to_contain_text("unnamed")
    expect(page.get_by_test_id("no-collectives")).to_contain_text("jax.lax.psum(x, 'i')")
    # Debugger: why there is nothing to step through, and where to look instead.
    page.get_by_test_id("tab-debugger").click()
    panel = page.get_by_test_id("debugger-panel")
    expect(panel).to_contain_text("ran on several devices")
    expect(panel).to_contain_text("Devices panel")
    expect(panel).to_contain_text("Remove pmap from the stack")


@needs_runner
def test_share_popup_fields_take_its_width_and_each_has_a_copy_button(page: Page):
    page.set_viewport_size({"width": 1024, "height": 700})
    open_session(page, LOSS, "loss", [GRAD], ["jnp.ones(3)", "jnp.ones(3)"])
    page.get_by_test_id("share").click()
    pop = page.get_by_test_id("share-pop").bounding_box()
    for field in ("share-link", "share-embed"):
        box = page.get_by_test_id(field).bounding_box()
        copy = page.get_by_test_id(f"{field}-copy").bounding_box()
        # The field runs up to its Copy button, and both stay inside the popup.
        assert box["width"] >= 0.6 * pop["width"], (field, box, pop)
        assert (
            box["x"] + box["width"] <= copy["x"] and copy["x"] + copy["width"] <= pop["x"] + pop["width"]
        ), (
            field,
            box,
            copy,
            pop,
        )
    expect(page.get_by_test_id("share-embed")).to_have_value(
        re.compile(r'^<iframe src="http://127\.0\.0\.1:\d+/embed/')
    )
    # Escape closes it and gives the keyboard back to the page.
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("share-pop")).to_be_hidden()


@needs_runner
def test_syntax_error_says_what_to_fix_and_where(page: Page):
    open_session(
        page, "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) *\n", "f", [GRAD], ["1.0"]
    )
    expect(page.get_by_test_id("error-type")).to_have_text("SyntaxError")
    expect(page.get_by_test_id("error-line")).to_have_text("line 4, column 24")
    suggestion = page.get_by_test_id("error-suggestion")
    expect(suggestion).to_contain_text("unfinished expression")
    expect(suggestion).to_contain_text("where the editor marks it")


# Each wrapped line of the StableHLO view: where its first row and its continuation rows start, and
# whether an `->` was split across two rows.
HLO_ROWS = """() => [...document.querySelectorAll('[data-testid=stablehlo-text] .cm-line')].map((line) => {
  const range = document.createRange();
  range.selectNodeContents(line);
  const rects = [...range.getClientRects()].filter((r) => r.width > 0);
  const top = Math.min(...rects.map((r) => r.top));
  const first = rects.filter((r) => r.top - top < 4), rest = rects.filter((r) => r.top - top >= 4);
  let split = false;
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  const text = line.textContent;
  for (let i = text.indexOf('->'); i >= 0; i = text.indexOf('->', i + 2)) {
    // the two characters' boxes: on one row, or not
    let offset = 0, n, a = null, b = null;
    walker.currentNode = line;
    while ((n = walker.nextNode())) {
      const len = n.textContent.length;
      if (a === null && i < offset + len) a = [n, i - offset];
      if (b === null && i + 1 < offset + len) { b = [n, i + 1 - offset]; break; }
      offset += len;
    }
    const r = document.createRange(); r.setStart(a[0], a[1]); r.setEnd(b[0], b[1] + 1);
    const tops = new Set([...r.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
    if (tops.size > 1) split = true;
  }
  return {wrapped: rest.length > 0, first: Math.min(...first.map((r) => r.left)),
          rest: rest.length ? Math.min(...rest.map((r) => r.left)) : null, split};
})"""


# Whether every shown StableHLO line has its hang and each of its arrows its highlight span.
HLO_STYLED = """() => {
  const lines = [...document.querySelectorAll('[data-testid=stablehlo-text] .cm-line')];
  return lines.length > 0 && lines.every((l) => l.style.getPropertyValue('--hang')
    && [...l.querySelectorAll('span')].filter((s) => s.textContent === '->').length
       === l.textContent.split('->').length - 1);
}"""


@needs_runner
def test_wrapped_stablehlo_lines_hang_and_keep_arrows_whole(page: Page):
    page.set_viewport_size({"width": 1024, "height": 700})
    open_session(page, PREDICT, "loss", [GRAD, VMAP, JIT], ["jnp.ones(3)", "jnp.ones((4, 3))"], panel="ir")
    page.get_by_test_id("ir-form-stablehlo").click()
    expect(page.get_by_test_id("stablehlo-text")).to_contain_text("stablehlo.dot_general")
    # The text shows before it is highlighted and decorated: CodeMirror parses it a time slice at a
    # time (later slices wait for idle time, long under load), and an arrow stays whole only once
    # its highlight span (white-space: nowrap) is there; the hang is each line's --hang decoration.
    page.wait_for_function(HLO_STYLED)
    rows = page.evaluate(HLO_ROWS)
    wrapped = [r for r in rows if r["wrapped"]]
    assert len(wrapped) >= 3, rows  # long signatures and dot_generals wrap at this width
    # Continuation rows start at least 2 characters right of their line's start.
    assert all(r["rest"] >= r["first"] + 12 for r in wrapped), wrapped
    assert not any(r["split"] for r in rows), [r for r in rows if r["split"]]


@needs_runner
def test_cancelling_with_escape_says_what_happened_and_what_to_do_without_an_error_badge(page: Page):
    page.goto("/")
    page.evaluate("code => window.jaxplay.setCode(code)", "while True:\n    pass\n")
    page.get_by_test_id("target-select").select_option("")
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("cancel")).to_be_visible()
    page.keyboard.press("Escape")
    box = page.get_by_test_id("error-box")
    expect(box).to_have_attribute("data-kind", "abort")
    expect(box).to_contain_text("You stopped the run")
    expect(box).to_contain_text("Press Run (Ctrl+Enter) to run it again")
    # A cancel is the user's own doing, not a failure: no "!" on the Output tab.
    expect(page.get_by_test_id("tab-output")).to_have_text("Output")
    expect(page.get_by_test_id("run")).to_be_enabled()


# Nodes whose centre is on the graph's screen area, and what is drawn there when it is not the node.
COVERED_NODES = """() => {
  const g = document.querySelector('[data-testid=ir-graph]').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=ir-graph] .node')].flatMap((n) => {
    const r = n.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    if (x < g.left || x > g.right || y < g.top || y > g.bottom) return [];
    const top = document.elementFromPoint(x, y);
    const cover = top?.closest('.graph-minimap, [data-testid=ir-text-pane]');
    return [cover ? cover.className : null];
  });
}"""


@needs_runner
def test_a_big_graph_on_a_small_laptop_keeps_its_nodes_uncovered(page: Page):
    page.set_viewport_size({"width": 1024, "height": 700})
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    with page.expect_response("**/api/run"):
        page.locator("[data-testid=gallery-item][data-id='hessian']").click()
    page.get_by_test_id("tab-ir").click()
    wait_graph(page)
    covered = page.evaluate(COVERED_NODES)
    # (at least 5 in view: "fit" keeps the jit frame's title in view, which leaves one node out)
    assert len(covered) >= 5, covered
    assert not any(covered), covered


@needs_runner
def test_an_error_in_an_argument_names_the_argument_not_a_code_line(page: Page):
    code = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x)\n"
    open_session(page, code, "f", [GRAD], ["y"])
    expect(page.get_by_test_id("error-type")).to_have_text("NameError")
    expect(page.get_by_test_id("error-message")).to_have_text("In argument 1 (x): name 'y' is not defined")
    expect(page.get_by_test_id("error-suggestion")).to_contain_text(
        "define it in the code, or write the value itself"
    )
    # Nothing in the code is to blame: no "at line …" link and no error mark in the editor.
    expect(page.get_by_test_id("error-line")).to_have_count(0)
    expect(page.locator(".cm-lintRange-error, .cm-error-line")).to_have_count(0)


@needs_runner
def test_a_shape_mismatch_says_what_to_check(page: Page):
    code = "import jax.numpy as jnp\n\ndef f(x, y):\n    return x + y\n"
    open_session(page, code, "f", [JIT], ["jnp.ones(3)", "jnp.ones(4)"])
    expect(page.get_by_test_id("error-message")).to_contain_text(
        "add got incompatible shapes for broadcasting"
    )
    expect(page.get_by_test_id("error-line")).to_have_text("line 4, column 12")
    expect(page.get_by_test_id("error-suggestion")).to_contain_text("Check the arguments' shapes")


@needs_runner
def test_the_timeline_fits_a_narrow_panel_and_shows_sub_millisecond_phases(page: Page):
    page.set_viewport_size({"width": 1024, "height": 700})
    open_session(page, LOSS, "loss", [GRAD], ["jnp.ones(3)", "jnp.ones(3)"], panel="timings")
    host = page.locator(
        "[data-testid=timeline-lane][data-lane=host] [data-testid=timeline-bar] rect:not(.bar-hit)"
    )
    expect(host.first).to_be_attached()
    widths = host.evaluate_all("rs => rs.map(r => r.getBoundingClientRect().width)")
    # A 0.3 ms trace in a 40 ms run is a sliver, but one that can be seen and hovered.
    assert widths and min(widths) >= 2, widths
    # The whole run fits the panel: no bar past the timeline's right edge, nothing to scroll to.
    wrap = page.locator(".timeline-wrap")
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), wrap.evaluate(
        "w => [w.scrollWidth, w.clientWidth]"
    )
    right = wrap.evaluate("w => w.getBoundingClientRect().right")
    bars = page.get_by_test_id("timeline-bar").evaluate_all(
        "bs => bs.map(b => b.getBoundingClientRect().right)"
    )
    assert bars and max(bars) <= right, (bars, right)
    # Labels are drawn at their CSS size, not shrunk with the drawing.
    assert page.get_by_test_id("timeline-tick").first.evaluate("t => t.getBoundingClientRect().height") >= 9
    ticks = page.get_by_test_id("timeline-tick").all_text_contents()
    assert ticks[0] == "0", ticks  # times count from the run's first event, as the tooltips do


def open_gallery_example(page: Page, example: str) -> None:
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    with page.expect_response("**/api/run"):
        page.locator(f"[data-testid=gallery-item][data-id='{example}']").click()


@needs_runner
def test_device_cards_fit_a_narrow_panel_and_their_headers_do_not_collide(page: Page):
    page.set_viewport_size({"width": 1024, "height": 700})
    open_gallery_example(page, "pmap-psum")
    page.get_by_test_id("tab-devices").click()
    expect(page.get_by_test_id("device-card")).to_have_count(4)
    body = page.get_by_test_id("panel-body").evaluate("b => b.getBoundingClientRect().right")
    rights = page.get_by_test_id("device-card").evaluate_all(
        "cs => cs.map(c => c.getBoundingClientRect().right)"
    )
    assert max(rights) <= body, (rights, body)  # cards wrap to more rows instead of running off
    # On a 2 x 4 mesh, each card's name and mesh coordinates sit apart (wrapped if need be).
    open_gallery_example(page, "nested-pmap-grad")
    page.get_by_test_id("tab-devices").click()
    expect(page.get_by_test_id("device-card")).to_have_count(8)
    clashes = page.get_by_test_id("device-card").evaluate_all(
        """cs => cs.filter(c => {
          const a = c.querySelector('header b').getBoundingClientRect();
          const b = c.querySelector('[data-testid=device-coords]').getBoundingClientRect();
          return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0;
        }).length"""
    )
    assert clashes == 0
    # A coordinate ("axis 0=1") is never split over two lines.
    split = page.locator("[data-testid=device-coords] .coord").evaluate_all(
        "cs => cs.filter(c => c.getClientRects().length > 1).map(c => c.textContent)"
    )
    assert split == [], split
