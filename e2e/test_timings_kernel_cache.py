"""The Timings panel at 1280x800 (an audit): with the kernel cache warm, the timeline showed a
"compile jit(loss)" bar for a run its "Traces and compiles" table counted as "0 compiled, 1 from the
kernel cache" (the step loaded the kernels: it compiled nothing); and that table's "why" column
wrapped to four or five lines a call, under a heading and summary indented and sized apart from the
rest of the panel."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import needs_runner, session_fragment
from .test_ir_nested import MLP, MLP_ARGS
from .test_ir_views import RECOMPILES

JIT = {"name": "jit", "options": {}}

# Each timeline bar's name (its tooltip's first line, "<name> (<category>)") and category.
BARS = """els => els.map((e) => {
  const first = e.querySelector('title').textContent.split('\\n')[0];
  return [first.slice(0, first.lastIndexOf(' (')), e.dataset.category];
})"""


def wait_runs(page: Page, n: int) -> None:
    page.wait_for_function(f"Number(document.getElementById('app').dataset.runs || 0) >= {n}", timeout=90_000)


@needs_runner
def test_a_warm_kernel_cache_is_a_load_on_the_timeline_and_in_the_table(page: Page, artifacts):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/" + session_fragment(MLP, "loss", [JIT], MLP_ARGS, "timings"))
    wait_runs(page, 1)
    page.get_by_test_id("run").click()  # the first run left the program's kernels in the cache
    wait_runs(page, 2)
    page.get_by_test_id("tab-timings").click()
    bars = page.get_by_test_id("timeline-bar").evaluate_all(BARS)
    steps = [(name, cat) for name, cat in bars if cat in ("compile", "load")]
    # Every compile step of the call (its nested scan body and cond branches too) was a load, and is
    # named and coloured so; none says "compile".
    assert ("load kernels jit(loss) (disk cache)", "load") in steps, bars
    assert all(cat == "load" and name.startswith("load kernels jit(") for name, cat in steps), steps
    expect(page.get_by_test_id("recompile-row")).to_have_count(1)
    expect(page.get_by_test_id("recompile-row")).to_have_attribute("data-status", "disk")
    expect(page.get_by_test_id("recompile-summary")).to_contain_text(
        "0 compiled their kernels and 1 loaded them from the kernel cache"
    )
    expect(page.locator("[data-testid=phase-total][data-category=load]")).to_contain_text("load kernels")
    expect(page.locator("[data-testid=phase-total][data-category=compile]")).to_have_count(0)
    page.get_by_test_id("timings-panel").screenshot(path=str(artifacts / "timings-kernel-cache.png"))


# Per row: its height, and the boxes of its function and reason cells; the table's box.
ROWS = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width, h: r.height}; };
  return {table: box(document.querySelector('.recompile-table')),
          rows: [...document.querySelectorAll('[data-testid=recompile-row]')].map((tr) => ({
            h: tr.getBoundingClientRect().height, fn: box(tr.querySelector('.rc-function')), why: box(tr.querySelector('.rc-reason')),
            line: 1.5 * parseFloat(getComputedStyle(tr.querySelector('.rc-function')).fontSize)}))};
}"""

# The section's heading against the page's section heading (an h3 as the Output panel's "Result"),
# its left edge and summary size against the panel's intro line.
HEADING = """() => {
  const font = (e) => { const c = getComputedStyle(e); return [c.fontSize, c.fontWeight, c.textTransform, c.letterSpacing, c.color]; };
  const probe = document.createElement('h3');
  document.querySelector('[data-testid=panel-body]').appendChild(probe);
  const page = font(probe);
  probe.remove();
  const h3 = document.querySelector('[data-testid=recompiles] h3');
  const intro = document.querySelector('.timings .panel-intro');
  return {heading: font(h3), page, left: h3.getBoundingClientRect().left, introLeft: intro.getBoundingClientRect().left,
          summary: getComputedStyle(document.querySelector('[data-testid=recompile-summary]')).fontSize,
          intro: getComputedStyle(intro).fontSize};
}"""


@needs_runner
def test_the_compiles_table_reads_as_part_of_the_timings_panel(page: Page, artifacts):
    for width, height, theme in [(1280, 800, "light"), (1920, 1080, "dark")]:
        page.set_viewport_size({"width": width, "height": height})
        page.emulate_media(color_scheme=theme)
        page.goto("about:blank")  # (a new fragment alone does not run again)
        page.goto("/" + session_fragment(RECOMPILES, None, [], [], "timings"))
        wait_runs(page, 1)
        expect(page.get_by_test_id("recompile-row")).to_have_count(7)
        got = page.evaluate(ROWS)
        table = got["table"]
        # A one-line reason ("never seen function: f defined at line 4", "same argument types
        # ...") keeps its call to two lines, and JAX's three-line difference plus the note on its
        # kernels to five (lines of 1.5 times the table's font size, at most).
        heights = [round(r["h"]) for r in got["rows"]]
        line = got["rows"][0]["line"]
        assert all(heights[i] <= 2 * line + 12 for i in (0, 1)), (width, heights, line)
        assert heights[2] <= 5 * line + 12, (width, heights, line)
        style = page.evaluate(HEADING)
        assert style["heading"] == style["page"], (width, style)
        assert abs(style["left"] - style["introLeft"]) <= 1, (width, style)
        assert style["summary"] == style["intro"], (width, style)
        for i, row in enumerate(got["rows"]):
            why, fn = row["why"], row["fn"]
            # (as the reason has a line of its own across the row, from the function's column on)
            assert why["t"] >= fn["b"] - 1 and abs(why["l"] - fn["l"]) <= 1, (width, i, row)
            assert why["r"] >= table["r"] - 20 and why["w"] >= 0.7 * table["w"], (width, i, row, table)
        page.get_by_test_id("recompiles").screenshot(path=str(artifacts / f"recompiles-{width}-{theme}.png"))
