"""Browser tests for defects found walking the page: at narrow widths and on a phone (the Debugger's
step rows, the collective events' headers, the IR text's wrapped equations, the compiles table, the
argument inputs, device values) and from the keyboard (the share popup); text contrast in both themes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import needs_runner
from .test_playground import GRAD, open_session

PHONE = {"width": 390, "height": 844}
NARROW = {"width": 1100, "height": 800}

SCAN = """import jax
import jax.numpy as jnp
from jax import lax

def f(xs):
    def body(c, x):
        c = c + jnp.log1p(jnp.exp(x))
        return c, c * 2.0
    c, ys = lax.scan(body, 0.0, xs)
    return jnp.sum(ys) + c
"""

# Per step row: the boxes of the primitive's name and of the loop label, whether each shows its whole
# text, and the list's right edge.
STEP_ROWS = """() => {
  const list = document.querySelector('[data-testid=debug-steps]').getBoundingClientRect();
  const box = (e) => { const r = e.getBoundingClientRect(); return {l: r.left, r: r.right, t: r.top, b: r.bottom}; };
  return [...document.querySelectorAll('[data-testid=debug-step]')].map((li) => {
    const prim = li.querySelector('.prim'), within = li.querySelector('[data-testid=debug-within]');
    return {prim: prim.textContent, within: within.textContent, p: box(prim), w: box(within),
            primWhole: prim.scrollWidth <= prim.clientWidth + 1, withinWhole: within.scrollWidth <= within.clientWidth + 1,
            listRight: list.right, rowOver: li.scrollWidth > li.clientWidth + 1};
  });
}"""


@needs_runner
@pytest.mark.parametrize("size", [NARROW, PHONE], ids=["narrow", "phone"])
def test_debugger_steps_keep_the_primitive_and_the_loop_label_whole(page: Page, size, artifacts):
    page.set_viewport_size(size)
    open_session(page, SCAN, "f", [GRAD], ["jnp.arange(5.0)"], panel="debugger")
    expect(page.get_by_test_id("debug-step").first).to_be_visible()
    rows = page.evaluate(STEP_ROWS)
    page.screenshot(path=str(artifacts / f"debugger-steps-{size['width']}.png"), full_page=True)
    looped = [r for r in rows if r["within"].startswith("scan ")]
    assert looped and any(r["prim"] == "convert_element_type" for r in looped), rows
    for r in rows:
        assert not r["rowOver"], r
        assert r["primWhole"] and r["withinWhole"], r
        if r["within"]:
            # side by side or one above the other, never on top of each other
            apart = r["p"]["r"] <= r["w"]["l"] or r["w"]["r"] <= r["p"]["l"] or r["p"]["b"] <= r["w"]["t"]
            assert apart, r
            assert r["w"]["r"] <= r["listRight"], r
    # a name breaks only after an underscore
    long = next(r for r in rows if r["prim"] == "convert_element_type")
    text = page.locator("[data-testid=debug-step] .prim", has_text="convert_element_type").first
    assert text.evaluate("e => e.querySelectorAll('wbr').length") == 2, long


LONG = """import jax
import jax.numpy as jnp

def f(w, x):
    h = jnp.tanh(jnp.dot(w, x)) * jnp.sum(jnp.exp(x)) + jnp.log1p(jnp.abs(w).sum())
    return jnp.sum(h)
"""

# For each line of the jaxpr text that wraps: where its text starts, one column's width, and where
# each continuation row starts (first non-space character of each visual row).
WRAPPED = """() => [...document.querySelectorAll('[data-testid=ir-text] .jaxpr-line')].flatMap((line) => {
  const chars = [];
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement.closest('.jaxpr-fold, .jaxpr-folded-note')) continue;
    for (let i = 0; i < n.length; i++) {
      if (/\\s/.test(n.data[i])) continue;
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
      const b = r.getBoundingClientRect();
      chars.push({l: b.left, t: Math.round(b.top), w: b.width});
    }
  }
  if (!chars.length) return [];
  const rows = new Map();
  for (const c of chars) rows.set(c.t, Math.min(rows.get(c.t) ?? Infinity, c.l));
  const starts = [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, l]) => l);
  return starts.length > 1 ? [{text: line.textContent, start: starts[0], ch: chars[0].w, rest: starts.slice(1)}] : [];
})"""


@needs_runner
def test_wrapped_jaxpr_lines_hang_as_jax_indents_params(page: Page, artifacts):
    page.set_viewport_size(PHONE)
    open_session(page, LONG, "f", [GRAD], ["jnp.ones((3, 3))", "jnp.ones(3)"], panel="ir")
    page.get_by_role("button", name="Text", exact=True).click()
    expect(page.get_by_test_id("ir-wrap")).to_be_checked()
    text = page.get_by_test_id("ir-text")
    expect(text).to_contain_text("reduce_sum")
    expect(text).to_have_attribute("data-complete", "true")
    wrapped = page.evaluate(WRAPPED)
    text.screenshot(path=str(artifacts / "ir-text-wrapped-phone.png"))
    assert any("reduce_sum" in w["text"] for w in wrapped), wrapped
    for w in wrapped:
        # every continuation row starts two columns in from the line's own text, never left of it
        for left in w["rest"]:
            assert abs(left - (w["start"] + 2 * w["ch"])) <= 1.5, w
    # Unwrapped, each line keeps one row (the pane scrolls sideways instead).
    page.get_by_test_id("ir-wrap").uncheck()
    assert page.evaluate(WRAPPED) == []
    wide = text.locator(".jaxpr-line").evaluate_all("ls => ls.some((l) => l.scrollWidth > l.clientWidth)")
    assert wide


PMAP_COLLECTIVES = """import jax
import jax.numpy as jnp

f = jax.pmap(lambda x: x / jax.lax.psum(x, 'i') + jax.lax.all_gather(jnp.sin(x), 'i').sum(), axis_name='i')
print(f(jnp.arange(8.0)))
"""

# Each visible header: its words, and how many rows each word's letters take (1: not broken), whether
# it shows whole; and the table's right edge against its panel's.
HEADERS = """() => {
  const table = document.querySelector('.collective-table table');
  const panel = document.querySelector('[data-testid=panel-body]').getBoundingClientRect();
  return {over: table.getBoundingClientRect().right - panel.right, heads: [...table.querySelectorAll('th')].map((th) => {
    const words = [];
    const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.parentElement.getClientRects().length) continue;  // the hidden one of full / short
      for (const m of n.data.matchAll(/\\S+/g)) {
        const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
        words.push([m[0], tops.size]);
      }
    }
    return {label: th.getAttribute('aria-label'), title: th.querySelector('abbr')?.title ?? null, words,
            whole: th.scrollWidth <= th.clientWidth + 1};
  })};
}"""


@needs_runner
def test_collective_headers_wrap_between_words_on_a_phone(page: Page, artifacts):
    page.set_viewport_size(PHONE)
    open_session(page, PMAP_COLLECTIVES, panel="devices")
    expect(page.get_by_test_id("device-card")).to_have_count(8)
    page.locator(".collective-table summary").click()
    got = page.evaluate(HEADERS)
    page.locator(".collective-table").screenshot(path=str(artifacts / "collective-headers-phone.png"))
    assert got["over"] <= 0.5, got
    labels = [h["label"] for h in got["heads"]]
    assert labels == [
        "#",
        "primitive",
        "axis",
        "devices",
        "value",
        "bytes",
        "start",
        "duration",
        "longest wait",
    ]
    for head in got["heads"]:
        assert head["words"] and all(rows == 1 for _, rows in head["words"]), head
        assert head["whole"], head
        if head["title"] is not None:  # a short word stands for the full name, which its tooltip gives
            assert head["title"] == head["label"], head
    # On a laptop the full names show.
    page.set_viewport_size({"width": 1440, "height": 900})
    shown = [" ".join(w for w, _ in h["words"]) for h in page.evaluate(HEADERS)["heads"]]
    assert shown == labels, shown


RECOMPILES = """import jax
import jax.numpy as jnp

def slow_f(x):
    return x * x + x * 2.0

fast_f = jax.jit(slow_f)
fast_f(jnp.ones(3))
fast_f(jnp.ones((2, 2)))
"""


@needs_runner
def test_compiles_table_is_readable_on_a_phone(page: Page, artifacts):
    page.set_viewport_size(PHONE)
    open_session(page, RECOMPILES, panel="timings")
    rows = page.get_by_test_id("recompile-row")
    expect(rows).to_have_count(2)
    page.get_by_test_id("recompiles").screenshot(path=str(artifacts / "recompiles-phone.png"))
    body = page.get_by_test_id("panel-body").bounding_box()
    table = page.locator(".recompile-table").bounding_box()
    assert table["x"] + table["width"] <= body["x"] + body["width"] + 0.5, (table, body)
    # The reason reads as a paragraph across the row, not a letter or two per line.
    reason = rows.nth(1).locator(".rc-reason")
    expect(reason).to_contain_text("f32[3]")
    assert reason.bounding_box()["width"] >= 0.8 * table["width"], (reason.bounding_box(), table)
    # The numbers say what they are where the header row is not shown; it is still a table to
    # screen readers.
    cell = rows.nth(1).locator("td.num").first
    assert cell.evaluate("e => getComputedStyle(e, '::before').content") == '"trace "'
    expect(page.get_by_role("table").filter(has=rows.first)).to_have_count(1)
    expect(page.get_by_role("columnheader", include_hidden=True)).to_have_count(7)


@needs_runner
@pytest.mark.parametrize("size", [PHONE, {"width": 1440, "height": 900}], ids=["phone", "laptop"])
def test_argument_inputs_line_up_and_cut_device_values_have_their_text(page: Page, size):
    page.set_viewport_size(size)
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    page.locator("[data-testid=gallery-item][data-id='data-parallel-step']").click()
    page.wait_for_function("Number(document.getElementById('app').dataset.runs || 0) >= 1")
    inputs = page.get_by_test_id("arg-input")
    expect(inputs).to_have_count(4)
    lefts = inputs.evaluate_all("els => els.map((e) => e.getBoundingClientRect().left)")
    widths = inputs.evaluate_all("els => els.map((e) => e.getBoundingClientRect().width)")
    assert max(lefts) - min(lefts) < 0.5 and max(widths) - min(widths) < 0.5, (lefts, widths)
    # each input keeps its name as its label
    names = inputs.evaluate_all("els => els.map((e) => e.labels[0].textContent)")
    assert names == ["params", "x", "y", "learning_rate"], names
    page.get_by_test_id("tab-devices").click()
    shards = page.locator("[data-testid=device-card] .shard")
    expect(shards.first).to_be_visible()
    cut = shards.evaluate_all(
        "els => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => [e.textContent, e.title])"
    )
    assert cut, "expected some values cut to fit the cards"
    for text, title in cut:
        assert title and title.split(" ", 1)[1].startswith(text.split(" ", 1)[1].rstrip("…")[:4]), (
            text,
            title,
        )


def test_share_popup_from_the_keyboard_returns_the_focus_on_escape(page: Page):
    page.goto("/")
    share = page.get_by_test_id("share")
    expect(share).to_have_attribute("aria-expanded", "false")
    expect(share).to_have_attribute("aria-haspopup", "dialog")
    share.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("share-link")).to_be_focused()
    expect(share).to_have_attribute("aria-expanded", "true")
    assert share.get_attribute("aria-controls") == page.get_by_test_id("share-pop").get_attribute("id")
    page.keyboard.press("Tab")
    expect(page.get_by_test_id("share-link-copy")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("share-pop")).to_be_hidden()
    # back on the button that opened it, not lost to the page
    expect(share).to_be_focused()
    expect(share).to_have_attribute("aria-expanded", "false")


# Text (not in SVG, the editor, or a faded element) whose contrast with what is under it is below
# WCAG AA: 4.5, or 3 for large text.
LOW_CONTRAST = """() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null; const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const bgOf = (e) => { let layers = []; for (let n = e; n; n = n.parentElement) { const c = parse(getComputedStyle(n).backgroundColor); if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } } let col = [255,255,255]; if (layers.length && layers[layers.length-1][3] >= 1) col = layers.pop().slice(0,3); else col = document.documentElement.dataset.theme === 'dark' ? [0,0,0] : [255,255,255]; for (const l of layers.reverse()) col = col.map((v, i) => v * (1 - l[3]) + l[i] * l[3]); return col; };
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (!e.childNodes.length || ![...e.childNodes].some(n => n.nodeType === 3 && n.data.trim())) continue;
    if (!e.getClientRects().length) continue;
    const cs = getComputedStyle(e); if (cs.visibility === 'hidden' || +cs.opacity < 0.99) continue;
    if (e.closest('svg, .cm-editor, [disabled], .quiet')) continue;
    const fg = parse(cs.color); if (!fg) continue;
    const bg = bgOf(e); const f = fg.slice(0,3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const L1 = lum(f), L2 = lum(bg); const ratio = (Math.max(L1, L2) + 0.05) / (Math.min(L1, L2) + 0.05);
    const size = parseFloat(cs.fontSize), bold = +cs.fontWeight >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    if (ratio < need) out.push([e.tagName + '.' + e.className.toString().slice(0, 25), e.textContent.trim().slice(0, 25), ratio.toFixed(2), cs.color, 'bg ' + bg.map(Math.round).join(',')]);
  }
  return out.slice(0, 25);
}"""


@needs_runner
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_contrast_meets_aa_in_both_themes(page: Page, scheme):
    page.emulate_media(color_scheme=scheme)
    code = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sum(jnp.tanh(x) ** 2)\n"
    open_session(page, code, "f", [GRAD, {"name": "jit", "options": {}}], ["jnp.ones(3)"])
    assert page.evaluate("document.documentElement.dataset.theme") == scheme
    for tab in ["output", "ir", "timings", "debugger"]:
        page.get_by_test_id(f"tab-{tab}").click()
        expect(page.get_by_test_id("panel-body")).to_have_attribute("data-panel", tab)
        page.wait_for_timeout(300)  # (a view's first frame, not a timing assertion)
        low = page.evaluate(LOW_CONTRAST)
        assert low == [], (tab, low)


# As WRAPPED, for the StableHLO view's lines.
HLO_WRAPPED = WRAPPED.replace("[data-testid=ir-text] .jaxpr-line", "[data-testid=stablehlo-text] .cm-line")


@needs_runner
def test_wrapped_stablehlo_lines_hang_as_the_jaxpr_text_does(page: Page):
    page.set_viewport_size(PHONE)
    code = "import jax\nimport jax.numpy as jnp\n\ndef f(x, y):\n    return jnp.sin(x) + y\n"
    jit, vmap = {"name": "jit", "options": {}}, {"name": "vmap", "options": {}}
    open_session(page, code, "f", [jit, vmap, jit], ["jnp.arange(3.0)", "jnp.ones(3)"], panel="ir")
    page.get_by_test_id("ir-form-stablehlo").click()
    view = page.get_by_test_id("stablehlo-text")
    expect(view.locator(".cm-content")).to_contain_text("stablehlo.sine")
    wrapped = page.evaluate(HLO_WRAPPED)
    assert wrapped, "expected lines wrapped at a phone's width"
    for w in wrapped:
        for left in w["rest"]:
            assert abs(left - (w["start"] + 2 * w["ch"])) <= 1.5, w


@needs_runner
def test_the_panel_is_named_by_its_tab_and_a_failure_badge_is_read_in_words(page: Page):
    bad = "import jax.numpy as jnp\n\nprint(jnp.dot(jnp.ones(3), jnp.ones(4)))\n"
    open_session(page, bad)
    expect(page.get_by_test_id("error-box")).to_be_visible()
    expect(page.get_by_role("tabpanel", name="Output")).to_be_visible()
    tab = page.get_by_test_id("tab-output")
    expect(tab).to_have_attribute("aria-controls", "panel-body")
    expect(page.get_by_role("tab", name=re.compile(r"^Output.*the run failed"))).to_have_count(1)
    tab.focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("tab-ir")).to_be_focused()
    expect(page.get_by_role("tabpanel", name=re.compile("^IR"))).to_be_visible()


@needs_runner
@pytest.mark.parametrize("panel", ["output", "timings"])
def test_an_embedded_panel_keeps_its_text_off_the_code_column(page: Page, panel):
    page.set_viewport_size({"width": 800, "height": 420})
    code = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sum(jnp.tanh(x) ** 2)\n"
    request = {"code": code, "function": "f", "stack": [GRAD], "args": ["jnp.ones(3)"]}
    sid = page.request.post("/api/snippets", data={"request": request}).json()["id"]
    page.goto(f"/embed/{sid}?panel={panel}")
    result = page.get_by_test_id("embed-panel")
    expect(page.get_by_test_id("embed-status")).to_contain_text("ok")
    edge = result.bounding_box()["x"]
    first = result.evaluate(
        "e => { const w = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);"
        " for (let n = w.nextNode(); n; n = w.nextNode()) if (n.data.trim()) {"
        " const r = document.createRange(); r.selectNodeContents(n); return r.getBoundingClientRect().left; } }"
    )
    assert first >= edge + 8, (first, edge)


@needs_runner
def test_the_results_panel_is_reached_with_tab(page: Page):
    # From the panel's tab, Tab goes on into the results (a keyboard user scrolls them from there).
    open_session(page, "def f(x):\n    return x * 2.0\n", "f", [], ["1.0"])
    expect(page.get_by_test_id("result")).to_be_visible()
    page.get_by_test_id("tab-output").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("() => !!document.activeElement.closest('[data-testid=panel-body]')")


COMPILES = """import jax
import jax.numpy as jnp

def double_the_values(x):
    return x * 2

s = jax.jit(double_the_values)
s(jnp.ones(3))
s(jnp.ones((2, 2)))
s(jnp.ones((2, 2)))
"""

# Each label of the compile timeline: its height on the screen and whether it lies inside the chart.
TIMELINE_LABELS = """() => {
  const svg = document.querySelector('[data-testid=recompiles] svg').getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=recompiles] svg text')].map((t) => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, height: r.height, inside: r.left >= svg.left - 1 && r.right <= svg.right + 1};
  });
}"""


@needs_runner
@pytest.mark.parametrize("size", [NARROW, PHONE], ids=["narrow", "phone"])
def test_compile_timeline_labels_are_readable_at_any_width(page: Page, size, artifacts):
    page.set_viewport_size(size)
    open_session(page, COMPILES, None, [], [], panel="timings")
    expect(page.get_by_test_id("recompiles")).to_be_visible()
    labels = page.evaluate(TIMELINE_LABELS)
    page.screenshot(path=str(artifacts / f"compile-timeline-{size['width']}.png"), full_page=True)
    assert any(label["text"].startswith("jit(double") for label in labels), labels
    for label in labels:
        # drawn at the text's own size (10.5 px), not a 760-unit drawing scaled down to the phone
        assert label["height"] >= 10, label
        assert label["inside"], label
