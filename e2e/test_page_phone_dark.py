"""Browser tests for defects seen on a phone's width and in the dark theme: the unsafe-mode banner's
height, the IR graph's minimap over nodes, and other calls' Timings bars on the dark panel."""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from bench.bench_ir_page import wait_graph
from server.sandbox.zygote import UNSAFE_WARNING

from .conftest import needs_runner
from .test_playground import GRAD, LOSS, open_session

PHONE = {"width": 390, "height": 844}


def test_the_unsafe_banner_is_one_line_on_a_phone_with_the_details_on_demand(page: Page):
    # The whole warning (`make run` as a normal user) wrapped to 4 lines at 390 px, a tenth of the
    # window above the app on every load.
    page.set_viewport_size(PHONE)
    health = json.loads(page.request.get("/api/health").text())
    health["warning"] = UNSAFE_WARNING
    page.route(
        "**/api/health",
        lambda r: r.fulfill(status=200, content_type="application/json", body=json.dumps(health)),
    )
    page.goto("/")
    banner = page.get_by_test_id("sandbox-warning")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("unsafe-single-user")
    line = banner.evaluate("b => parseFloat(getComputedStyle(b).lineHeight)")
    height = banner.evaluate("b => b.getBoundingClientRect().height")
    assert height <= 2 * line + 12, (height, line)
    details = page.get_by_test_id("sandbox-warning-details")
    expect(details).to_be_hidden()
    banner.locator("summary").click()
    expect(details).to_be_visible()
    expect(details).to_have_text(UNSAFE_WARNING)


@needs_runner
def test_the_minimap_over_a_big_graph_can_be_put_away_and_stays_away(page: Page):
    # A graph wider than its stage (this one in the "Both" view, beside the text) runs under the
    # minimap in the stage's corner, whatever "fit" does: nodes there could not be read or clicked.
    from .test_ir_nested import MLP, MLP_ARGS

    open_session(page, MLP, "loss", [GRAD], MLP_ARGS, panel="ir")
    page.get_by_test_id("graph-expand-all").click()
    wait_graph(page)
    assert page.locator("[data-testid=ir-graph] [data-testid=ir-node]").count() >= 25
    minimap, toggle = page.get_by_test_id("graph-minimap"), page.get_by_test_id("graph-minimap-toggle")
    # Every place for it covers some node here: it is shown all the same (where it covers the
    # fewest), as a big graph is where it is needed; it was hidden until the first pan or zoom.
    expect(minimap).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    # It is opaque: what lies under it is not shown through it as ghosts.
    assert minimap.evaluate("m => getComputedStyle(m).backgroundColor.startsWith('rgb(')"), minimap.evaluate(
        "m => getComputedStyle(m).backgroundColor"
    )
    toggle.click()
    expect(minimap).to_be_hidden()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    # Drawn again (collapsed and expanded), the graph keeps it away.
    page.get_by_test_id("graph-collapse-all").click()
    page.get_by_test_id("graph-expand-all").click()
    wait_graph(page)
    expect(minimap).to_be_hidden()
    toggle.click()
    expect(minimap).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "true")


TWO_CALLS = """import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x) * 2.0

a = jax.jit(f)(jnp.ones(3))
b = jax.jit(f)(jnp.ones(4))
"""

# For each bar of another call than the one picked: its contrast with the panel, the stronger of its
# fill and its outline, each blended over the panel with the opacity it is drawn at.
DIM_BAR_CONTRAST = """() => {
  const rgba = (s) => { const v = s.match(/[\\d.]+/g).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const contrast = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const bg = rgba(getComputedStyle(document.querySelector('.timeline-wrap')).backgroundColor);
  const over = (c, a) => [0, 1, 2].map((i) => c[i] * a + bg[i] * (1 - a));
  return [...document.querySelectorAll('[data-testid=timeline-bar].dim')].map((bar) => {
    const shape = bar.querySelector('rect, path');
    const cs = getComputedStyle(shape);
    let opacity = 1;
    for (let e = shape; e && e !== document.body; e = e.parentElement) opacity *= parseFloat(getComputedStyle(e).opacity);
    const fill = rgba(cs.fill), stroke = cs.stroke === 'none' ? null : rgba(cs.stroke);
    const fillC = contrast(over(fill, fill[3] * parseFloat(cs.fillOpacity) * opacity), bg);
    const strokeC = stroke && parseFloat(cs.strokeWidth) >= 1
      ? contrast(over(stroke, stroke[3] * parseFloat(cs.strokeOpacity) * opacity), bg) : 0;
    return Math.max(fillC, strokeC);
  });
}"""


@needs_runner
def test_another_calls_timeline_bars_stay_visible_in_the_dark_theme(page: Page):
    # With several transformed calls, the bars of those not picked were drawn at 30% opacity: on
    # the dark panel about 1.5:1, hardly there.
    page.add_init_script("localStorage.setItem('jaxplay.theme', 'dark')")
    open_session(page, TWO_CALLS, panel="timings")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    expect(page.get_by_test_id("call-select")).to_be_visible()
    expect(page.locator("[data-testid=timeline-bar].dim")).not_to_have_count(0)
    contrasts = page.evaluate(DIM_BAR_CONTRAST)
    assert min(contrasts) >= 3, contrasts


# Each edge label's contrast with its halo (the page's background drawn around its letters), after
# what is drawn over it: the boxes of expanded equations, later in the document, around its centre.
EDGE_LABEL_CONTRAST = """() => {
  const rgba = (s) => {
    if (s === 'none') return [0, 0, 0, 0];
    const v = s.match(/[\\d.]+/g).map(Number);
    if (s.startsWith('color(')) return [v[0] * 255, v[1] * 255, v[2] * 255, v.length > 3 ? v[3] : 1];
    return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1];
  };
  const lum = ([r, g, b]) => { const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const contrast = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const over = (top, c) => [0, 1, 2].map((i) => top[i] * top[3] + c[i] * (1 - top[3]));
  const boxes = [...document.querySelectorAll('[data-testid=ir-graph] .node.compound.expanded > rect')];
  return [...document.querySelectorAll('[data-testid=ir-graph] .edge-label')].map((label) => {
    const cs = getComputedStyle(label), r = label.getBoundingClientRect();
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    let text = rgba(cs.fill), halo = rgba(cs.stroke);
    for (const box of boxes) {
      const b = box.getBoundingClientRect();
      if (!(label.compareDocumentPosition(box) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
      if (x < b.left || x > b.right || y < b.top || y > b.bottom) continue;
      const fill = rgba(getComputedStyle(box).fill);
      text = [...over(fill, text), 1]; halo = [...over(fill, halo), 1];
    }
    return [label.textContent, contrast(text, halo)];
  });
}"""


@needs_runner
def test_edge_labels_inside_an_expanded_equation_stay_readable_in_the_dark_theme(page: Page):
    # The box of an expanded jit (open at once: the pmap stage is one call) lay over the edges
    # inside it with a 70% fill: their labels were about 1.7:1 on the dark theme.
    from .test_page_usability import JIT, PMAP, PREDICT, VMAP

    page.add_init_script("localStorage.setItem('jaxplay.theme', 'dark')")
    open_session(
        page, PREDICT, "loss", [GRAD, VMAP, JIT, PMAP], ["jnp.ones(3)", "jnp.ones((2, 4, 3))"], panel="ir"
    )
    wait_graph(page)
    expect(page.locator("[data-testid=ir-graph] .node.compound.expanded")).not_to_have_count(0)
    labels = page.evaluate(EDGE_LABEL_CONTRAST)
    assert len(labels) >= 4, labels
    assert min(c for _, c in labels) >= 4.5, labels


# Per timeline bar: its drawn width, its target's (the bar's box), the room it has up to halfway into
# the gaps to its row's neighbours (same lane, same row) or to the chart's ends, and how many of those
# neighbours its target covers.
BAR_TARGETS = """() => {
  const bars = [...document.querySelectorAll('[data-testid=timeline-bar]')].map((g) => {
    const shape = g.querySelector('rect:not(.bar-hit), path').getBoundingClientRect();
    const hit = g.querySelector('.bar-hit').getBoundingClientRect();
    return {lane: g.closest('[data-testid=timeline-lane]').dataset.lane, row: Math.round(hit.top),
            left: shape.left, right: shape.right, drawn: shape.width, hitLeft: hit.left, hitRight: hit.right,
            target: g.getBoundingClientRect().width};
  });
  // The chart's ends, as far as targets reach.
  const first = Math.min(...bars.map((b) => b.hitLeft)), last = Math.max(...bars.map((b) => b.hitRight));
  return bars.map((b) => {
    const row = bars.filter((o) => o !== b && o.lane === b.lane && o.row === b.row);
    const before = row.filter((o) => o.right <= b.left + 0.01).map((o) => (b.left + o.right) / 2);
    const after = row.filter((o) => o.left >= b.right - 0.01).map((o) => (b.right + o.left) / 2);
    return {drawn: b.drawn, target: b.target,
            room: Math.min(last, ...after) - Math.max(first, ...before),
            covers: row.filter((o) => o.left < b.hitRight - 0.5 && o.right > b.hitLeft + 0.5).length};
  });
}"""


@needs_runner
def test_tapping_a_timeline_bar_on_a_phone_shows_its_details(page: Page):
    # The bars' details were only a hover tooltip (an SVG <title>), which a touch screen never shows.
    from .test_page_usability import JIT, PMAP, PREDICT, VMAP

    page.set_viewport_size(PHONE)
    open_session(
        page,
        PREDICT,
        "loss",
        [GRAD, VMAP, JIT, PMAP],
        ["jnp.ones(3)", "jnp.ones((2, 4, 3))"],
        panel="timings",
    )
    # Every bar, however thin (a 0.1 ms trace is 4 px on a phone), is clicked as an element: each
    # has a target up to 24 px wide of its own (the test tapped the widest bar by coordinates, as
    # Playwright's own click on a bar did not land).
    bars = page.get_by_test_id("timeline-bar")
    readout = page.get_by_test_id("timeline-readout")
    assert bars.count() >= 4
    # Each target is 24 px wide, or reaches halfway into the gaps to its row's neighbours, and
    # covers no other bar (a target reaching halfway to a wide neighbour's middle lay under that
    # neighbour, which took the tap: CI).
    targets = page.evaluate(BAR_TARGETS)
    assert any(t["drawn"] < 8 for t in targets), targets
    for t in targets:
        assert t["target"] >= min(20, t["room"]) - 0.5, targets
        assert t["covers"] == 0, t
    # Each tapped at the foot of the screen (where the details, under the chart, were left unseen):
    # the details come into view, and the bar stays in view above them.
    for i in range(bars.count()):
        bar = bars.nth(i)
        bar.evaluate("b => b.scrollIntoView({block: 'end'})")
        bar.click(timeout=5_000)
        expect(readout).to_be_in_viewport(ratio=0.9)  # (whole, but for subpixel scrolling)
        expect(bar).to_be_in_viewport()
        details = bar.locator("title").text_content().split("\n")
        expect(readout).to_contain_text(details[0])
        expect(readout).to_contain_text(details[1])


# CI's layout: a thin transform bar 9 ms before a 180 ms lower bar, 4 ms after a thin trace bar.
CROWDED_TIMINGS = [
    {"name": "trace f", "category": "trace", "start_ms": 100.0, "duration_ms": 0.2},
    {"name": "transform f", "category": "transform", "start_ms": 104.0, "duration_ms": 1.4},
    {"name": "lower f", "category": "lower", "start_ms": 113.0, "duration_ms": 180.0},
    {"name": "compile f", "category": "compile", "start_ms": 293.0, "duration_ms": 2.0, "cache": "hit"},
    {"name": "execute f", "category": "execute", "start_ms": 296.0, "duration_ms": 0.1},
]


@needs_runner
def test_a_thin_bar_beside_a_wide_one_takes_its_own_tap(page: Page):
    # A thin bar's target reached halfway to its neighbour's middle, which for a 180 ms neighbour
    # lay inside that bar, drawn on top: the tap meant for the thin bar went to the wide one (CI).
    def crowded(route):
        report = route.fetch().json()
        report["timings"] = CROWDED_TIMINGS
        for call in report.get("calls", []):
            call["timings"] = []
        route.fulfill(json=report)

    page.set_viewport_size(PHONE)
    page.route("**/api/run", crowded)
    open_session(page, LOSS, "loss", [GRAD], ["w", "xs[0]"], panel="timings")
    bars = page.get_by_test_id("timeline-bar")
    expect(bars).to_have_count(len(CROWDED_TIMINGS))
    for t in page.evaluate(BAR_TARGETS):
        assert t["covers"] == 0, t
    readout = page.get_by_test_id("timeline-readout")
    for i, event in enumerate(CROWDED_TIMINGS):
        bars.nth(i).click(timeout=3_000)
        expect(readout).to_contain_text(f"{event['name']} ({event['category']})")


@needs_runner
def test_on_a_phone_the_last_timeline_bar_keeps_clear_of_the_panel_edge(page: Page):
    # The timeline was drawn at least 360 px wide, wider than a phone's panel: it scrolled sideways
    # and its last bar ran under the panel's right edge.
    page.set_viewport_size(PHONE)
    open_session(page, LOSS, "loss", [GRAD], ["jnp.ones(3)", "jnp.ones(3)"], panel="timings")
    wrap = page.locator(".timeline-wrap")
    expect(page.get_by_test_id("timeline-bar").first).to_be_attached()
    assert wrap.evaluate("w => w.scrollWidth <= w.clientWidth"), wrap.evaluate(
        "w => [w.scrollWidth, w.clientWidth]"
    )
    edge = wrap.evaluate(
        "w => w.getBoundingClientRect().right - parseFloat(getComputedStyle(w).borderRightWidth)"
    )
    rights = page.locator(
        "[data-testid=timeline-bar] rect:not(.bar-hit), [data-testid=timeline-bar] path"
    ).evaluate_all("bs => bs.map(b => b.getBoundingClientRect().right)")
    assert rights and max(rights) <= edge - 8, (rights, edge)


@needs_runner
def test_timeline_bars_are_reached_with_tab_and_show_their_details(page: Page):
    # A bar's details were a hover tooltip or a tap: from the keyboard no bar could be reached.
    # Then every bar was a Tab stop of its own: a pmap's timeline took dozens of presses to pass.
    open_session(page, LOSS, "loss", [GRAD], ["jnp.ones(3)", "jnp.ones(3)"], panel="timings")
    bars = page.get_by_test_id("timeline-bar")
    expect(bars.first).to_be_attached()
    readout = page.get_by_test_id("timeline-readout")
    page.get_by_test_id("tab-timings").focus()
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.testid") == "timeline-bar":
            break
    first = page.evaluate(
        "[...document.querySelectorAll('[data-testid=timeline-bar]')].indexOf(document.activeElement)"
    )
    assert first == 0, first
    expect(readout).to_contain_text(bars.first.locator("title").text_content().split("\n")[0])
    # Drawn as focused: the bar's outline takes the focus colour.
    stroke = bars.first.locator("rect:not(.bar-hit), path").first.evaluate(
        "r => getComputedStyle(r).strokeWidth"
    )
    assert stroke == "3px", stroke
    # One Tab stop for the whole timeline (a pmap's has dozens of bars, each was one): the arrow
    # keys move between bars, and the one last focused is where Tab comes back to.
    n = bars.count()
    assert n >= 3 and page.locator("[data-testid=timeline-bar][tabindex='0']").count() == 1
    page.keyboard.press("ArrowRight")
    expect(bars.nth(1)).to_be_focused()
    expect(readout).to_contain_text(bars.nth(1).locator("title").text_content().split("\n")[0])
    assert bars.nth(1).get_attribute("role") == "button"
    page.keyboard.press("End")
    expect(bars.nth(n - 1)).to_be_focused()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowDown")
    expect(bars.nth(1)).to_be_focused()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.testid") != "timeline-bar"
    page.keyboard.press("Shift+Tab")
    expect(bars.nth(1)).to_be_focused()
    assert page.locator("[data-testid=timeline-bar][tabindex='0']").count() == 1
