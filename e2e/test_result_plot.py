"""Browser tests for a 1-D result's line plot (uPlot, web/src/lineplot.ts): its tick labels stay
inside the chart however long they are, hovering reads out ``[i] = value``, NaN reads as NaN, the
colours follow the theme, and on a phone the chart fits the screen."""

from __future__ import annotations

import math
import re

from playwright.sync_api import Locator, Page, expect

from .conftest import needs_runner, session_fragment
from .test_page_usability import JIT
from .test_playground import GRAD, expect_ok, open_session

SIN2 = """import jax.numpy as jnp

def f(x):
    return jnp.sum(jnp.sin(x) ** 2)
"""
# Tick labels of eight characters ("-0.50050"), and a NaN the line breaks at.
NARROW_RANGE = """import jax.numpy as jnp

def g(x):
    return jnp.where(x == 2.0, jnp.nan, -0.5 - x * 1e-4)
"""

# A constant, an all-NaN and a long array of large values: each still gets axes whose labels fit.
EDGE_CASES = """import jax.numpy as jnp

def h(x):
    return jnp.ones(5), jnp.full(4, jnp.nan), jnp.linspace(0.0, 1e7, 1000) * x
"""

# Where the chart drew: the canvas's ink (any pixel not transparent) along its four edges, the
# leftmost ink, the plot area's box (uPlot's overlay) and the chart's box, in CSS pixels.
INK = """fig => {
  const c = fig.querySelector('canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  const ink = (x, y) => d[(y * c.width + x) * 4 + 3] > 0;
  const col = (x) => { for (let y = 0; y < c.height; y++) if (ink(x, y)) return true; return false; };
  const row = (y) => { for (let x = 0; x < c.width; x++) if (ink(x, y)) return true; return false; };
  let left = -1;
  for (let x = 0; x < c.width && left < 0; x++) if (col(x)) left = x;
  const r = (e) => { const b = e.getBoundingClientRect(); return {l: b.left, r: b.right, t: b.top, b: b.bottom, w: b.width}; };
  return {edges: [col(0), col(c.width - 1), row(0), row(c.height - 1)], left: left / devicePixelRatio,
          canvas: r(c), over: r(fig.querySelector('.u-over')), box: r(fig.querySelector('.lineplot'))};
}"""

ACCENT = "getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()"

# How many canvas pixels are (nearly) a colour given as #rrggbb.
PIXELS_OF = """([fig, hex]) => {
  const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const c = fig.querySelector('canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let k = 0; k < d.length; k += 4)
    if (d[k + 3] === 255 && want.every((v, j) => Math.abs(d[k + j] - v) <= 6)) n++;
  return n;
}"""


def drawn(page: Page) -> Locator:
    fig = page.get_by_test_id("lineplot").first
    expect(fig.locator("canvas")).to_be_visible()
    return fig


def assert_labels_inside(fig: Locator) -> dict:
    ink = fig.evaluate(INK)
    # Nothing drawn touches the canvas's edges (a clipped label would), the canvas lies inside the
    # chart's box, and the y axis's labels are drawn to the left of the plot area.
    assert ink["edges"] == [False, False, False, False], ink
    assert ink["box"]["l"] - 0.5 <= ink["canvas"]["l"] and ink["canvas"]["r"] <= ink["box"]["r"] + 0.5, ink
    assert 0 < ink["left"] < ink["over"]["l"] - ink["canvas"]["l"] - 10, ink
    return ink


def hover(page: Page, fig: Locator, i: int, n: int) -> None:
    over = fig.locator(".u-over").bounding_box()
    assert over
    x = over["x"] + min(i / (n - 1) * over["width"], over["width"] - 1)
    page.mouse.move(x, over["y"] + over["height"] / 2)


@needs_runner
def test_tick_labels_fit_and_hover_reads_each_value(page: Page, artifacts):
    open_session(page, SIN2, "f", [GRAD, JIT], ["jnp.arange(4.0)"])
    expect_ok(page)
    fig = drawn(page)
    assert_labels_inside(fig)
    readout = fig.get_by_test_id("lineplot-readout")
    # grad of sum(sin(x)**2) is 2 sin(x) cos(x) = sin(2x)
    for i in range(4):
        hover(page, fig, i, 4)
        expect(readout).to_have_text(re.compile(rf"^\[{i}\] = -?[0-9.e-]+$"))
        value = float(readout.inner_text().split(" = ")[1])
        assert math.isclose(value, math.sin(2 * i), rel_tol=1e-6, abs_tol=1e-7), (i, value)
    page.mouse.move(1, 1)
    expect(readout).to_have_text(re.compile(r"^\s*$"))
    fig.screenshot(path=str(artifacts / "lineplot-sin2x.png"))


@needs_runner
def test_long_tick_labels_fit_and_nan_reads_as_nan(page: Page, artifacts):
    open_session(page, NARROW_RANGE, "g", [], ["jnp.arange(6.0)"])
    fig = drawn(page)
    ink = assert_labels_inside(fig)
    # Eight-character labels need more than the 48 px the hand-drawn plot kept for them.
    assert ink["over"]["l"] - ink["canvas"]["l"] > 48, ink
    readout = fig.get_by_test_id("lineplot-readout")
    hover(page, fig, 2, 6)
    expect(readout).to_have_text("[2] = NaN")
    hover(page, fig, 5, 6)
    expect(readout).to_have_text(re.compile(r"^\[5\] = -0\.5005"))
    fig.screenshot(path=str(artifacts / "lineplot-long-labels.png"))


@needs_runner
def test_the_line_takes_the_themes_accent_and_repaints_on_a_toggle(page: Page, artifacts):
    page.emulate_media(color_scheme="light")
    open_session(page, SIN2, "f", [GRAD], ["jnp.linspace(0.0, 3.0, 8)"])
    fig = drawn(page)
    light = page.evaluate(ACCENT)
    expect(page.locator("html")).not_to_have_attribute("data-theme", "dark")
    assert page.evaluate(PIXELS_OF, [fig.element_handle(), light]) > 20
    page.get_by_test_id("theme-toggle").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    dark = page.evaluate(ACCENT)
    assert dark != light
    page.wait_for_function(
        f"([fig, hex]) => ({PIXELS_OF})([fig, hex]) > 20",
        arg=[fig.element_handle(), dark],
    )
    assert page.evaluate(PIXELS_OF, [fig.element_handle(), light]) == 0
    fig.screenshot(path=str(artifacts / "lineplot-dark.png"))


@needs_runner
def test_on_a_phone_the_plot_fits_the_screen(page: Page, artifacts):
    page.set_viewport_size({"width": 390, "height": 844})
    open_session(page, NARROW_RANGE, "g", [], ["jnp.arange(6.0)"])
    fig = drawn(page)
    fig.scroll_into_view_if_needed()
    ink = assert_labels_inside(fig)
    # As wide as its box, which fits the screen (no sideways scroll).
    assert ink["box"]["r"] <= 390 and ink["box"]["l"] >= 0, ink
    assert abs(ink["canvas"]["w"] - (ink["box"]["w"] - 2)) <= 1, ink
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    readout = fig.get_by_test_id("lineplot-readout")
    hover(page, fig, 1, 6)
    expect(readout).to_have_text(re.compile(r"^\[1\] = -0\.5001"))
    page.screenshot(path=str(artifacts / "lineplot-phone.png"), full_page=True)


@needs_runner
def test_constant_all_nan_and_large_values_get_axes_that_fit(page: Page, artifacts):
    open_session(page, EDGE_CASES, "h", [], ["1.0"])
    figs = page.get_by_test_id("lineplot")
    expect(figs).to_have_count(3)
    for k in range(3):
        expect(figs.nth(k).locator("canvas")).to_be_visible()
        figs.nth(k).scroll_into_view_if_needed()
        assert_labels_inside(figs.nth(k))
    # Hovering a thousand points reads out the point under the mouse (within a pixel's worth).
    readout = figs.nth(2).get_by_test_id("lineplot-readout")
    hover(page, figs.nth(2), 600, 1000)
    expect(readout).to_have_text(re.compile(r"^\[\d+\] = "))
    i, value = re.fullmatch(r"\[(\d+)\] = (\S+)", readout.inner_text()).groups()
    assert abs(int(i) - 600) <= 2 and math.isclose(float(value), int(i) * 1e7 / 999, rel_tol=1e-6), (i, value)
    page.screenshot(path=str(artifacts / "lineplot-edge-cases.png"), full_page=True)


@needs_runner
def test_the_plot_loads_and_draws_under_the_pages_csp(browser, base_url: str):
    context = browser.new_context(base_url=base_url)  # the real policy: no bypass_csp here
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base_url) else r.abort())
    try:
        page = context.new_page()
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.goto("/" + session_fragment(SIN2, "f", [GRAD], ["jnp.arange(4.0)"]))
        fig = page.get_by_test_id("lineplot")
        expect(fig.locator("canvas")).to_be_visible(timeout=90_000)
        assert_labels_inside(fig)
        assert not problems, problems
    finally:
        context.close()
