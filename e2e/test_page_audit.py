"""Browser tests for what a new user's walk through every example, at 1440x900 and on a phone, found;
one test per defect."""

from __future__ import annotations


from playwright.sync_api import Page, expect

from .conftest import needs_runner
from .test_playground import open_session
from .test_security import open_with_unsafe_warning

# Where a text node's lines break: the three characters either side of each break.
LINE_BREAKS = """e => {
  const t = e.firstChild, r = document.createRange(), out = [];
  let prev = null;
  for (let i = 0; i < t.length; i++) {
    r.setStart(t, i); r.setEnd(t, i + 1);
    const top = r.getBoundingClientRect().top;
    if (prev !== null && top > prev + 2) out.push(t.data.slice(Math.max(0, i - 3), i) + '|' + t.data.slice(i, i + 3));
    prev = top;
  }
  return out;
}"""


def open_example(page: Page, example: str) -> None:
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    page.locator(f"[data-testid=gallery-item][data-id='{example}']").click()
    page.wait_for_function("Number(document.getElementById('app').dataset.runs || 0) >= 1", timeout=90_000)


@needs_runner
def test_each_argument_s_name_is_on_its_input_s_row(page: Page):
    # Four arguments and no remove buttons: each name took the grid's third column of the row
    # before, so "x" sat right of params' input and learning_rate's input had no name beside it.
    open_example(page, "data-parallel-step")
    rows = page.get_by_test_id("arg-input").evaluate_all(
        "els => els.map((e) => { const i = e.getBoundingClientRect(), l = e.labels[0].getBoundingClientRect();"
        " return [e.labels[0].textContent, l.right <= i.left, Math.abs((l.top + l.bottom) - (i.top + i.bottom)) / 2]; })"
    )
    assert [r[0] for r in rows] == ["params", "x", "y", "learning_rate"], rows
    for name, left_of_input, off_centre in rows:
        assert left_of_input and off_centre < 3, (name, rows)


@needs_runner
def test_a_closed_group_s_label_stays_clear_of_its_expand_toggle(page: Page):
    open_example(page, "grad-higher-order")
    page.get_by_test_id("tab-ir").click()
    page.get_by_test_id("stage-tab").nth(3).click()
    expect(page.get_by_test_id("ir-group").first).to_be_visible()
    gaps = page.get_by_test_id("ir-group").evaluate_all(
        "els => els.map((g) => [g.querySelector('.node-label').textContent,"
        " g.querySelector('[data-testid=graph-toggle] rect').getBoundingClientRect().left"
        " - g.querySelector('.node-label').getBoundingClientRect().right,"
        " g.querySelector('.node-label').getBoundingClientRect().left - g.getBoundingClientRect().left])"
    )
    assert gaps
    for label, gap, left in gaps:
        # clear of the toggle, and not pushed against the box's left edge instead
        assert gap >= 4 and left >= 4, (label, gap, left, gaps)


def test_a_composed_call_wraps_between_words_not_inside_a_name(page: Page):
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    call = page.locator("[data-testid=gallery-item][data-id='vmap-grid'] .gallery-call")
    expect(call).to_have_text("vmap(vmap(func, in_axes=(None, 0)), in_axes=(0, None))")
    breaks = call.evaluate(LINE_BREAKS)
    assert breaks, "expected the call to wrap in its card"
    for b in breaks:
        assert b.split("|")[0].endswith(" "), breaks


def test_the_sandbox_warning_takes_its_room_from_the_app_not_below_the_window(page: Page):
    # `make run` as a normal user shows the unsafe-single-user banner: the app under it stayed a
    # whole window high, so the page scrolled, the sticky banner then covered the top bar, and the
    # stack's CALL row sat below the window's bottom edge.
    open_with_unsafe_warning(page)
    expect(page.get_by_test_id("sandbox-warning")).to_be_visible()
    expect(page.get_by_test_id("composed-call")).to_be_visible()
    fit = page.evaluate(
        """() => ({scroll: document.scrollingElement.scrollHeight, window: innerHeight,
        banner: document.querySelector('[data-testid=sandbox-warning]').getBoundingClientRect().bottom,
        topbar: document.querySelector('.topbar').getBoundingClientRect().top,
        call: document.querySelector('[data-testid=composed-call]').getBoundingClientRect().bottom,
        panel: document.querySelector('[data-testid=panel-body]').getBoundingClientRect().bottom})"""
    )
    assert fit["scroll"] <= fit["window"], fit
    assert fit["topbar"] >= fit["banner"] - 0.5, fit
    assert fit["call"] <= fit["window"] and fit["panel"] <= fit["window"] + 0.5, fit


def test_tabbing_into_the_editor_shows_where_the_focus_is(page: Page):
    page.goto("/")
    page.get_by_test_id("theme-toggle").focus()
    page.keyboard.press("Tab")
    expect(page.locator(".cm-content")).to_be_focused()
    # (a ring over the whole editor, gutter included)
    ring = page.get_by_test_id("editor").evaluate(
        "e => { const cs = getComputedStyle(e, '::after'); return [cs.outlineStyle, parseFloat(cs.outlineWidth)]; }"
    )
    assert ring[0] != "none" and ring[1] >= 2, ring


LOOP = """import jax.numpy as jnp

def f(x):
    while True:
        x = x + 1
    return x
"""


@needs_runner
def test_a_loop_stopped_by_the_time_limit_is_underlined_on_its_line_only(page: Page):
    # The stopped frame's span is the whole `while` statement (lines 4-5): its underline ran on
    # through line 5's indentation and body.
    open_session(page, LOOP, "f", [], ["1.0"])
    expect(page.get_by_test_id("run-status")).to_have_attribute("data-state", "limit")
    marks = page.locator(".cm-lintRange-error")
    expect(marks.first).to_be_visible()
    lines = marks.evaluate_all(
        "els => els.map((e) => [...e.closest('.cm-content').children].indexOf(e.closest('.cm-line')) + 1)"
    )
    assert set(lines) == {4}, lines
    expect(marks.first).to_have_text("while True:")
