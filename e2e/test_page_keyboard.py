"""Browser tests for defects a demanding new user met, one test each: where the keyboard focus goes
after an action, what switches say to a screen reader, numbers kept with their units, an embed
opening where it was shared from."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import needs_runner, session_fragment
from .test_page_usability import open_gallery_example
from .test_playground import open_session, runs, set_code, wait_runs

DOUBLE = "def f(x):\n    return x * 2.0\n"
# Long enough to be cancelled from the keyboard, short of the 10 s limit.
SLOW = "import time\n\ndef f(x):\n    time.sleep(6)\n    return x\n"

FOCUSED = "() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName"


@needs_runner
def test_run_from_the_keyboard_keeps_the_focus_on_the_run_button(page: Page):
    # The button was disabled while running, so the browser dropped its focus to the page's body:
    # the next Tab started again from the top of the page, and Enter could not run again.
    open_session(page, DOUBLE, "f", [], ["1.0"])
    run = page.get_by_test_id("run")
    run.focus()
    n = runs(page)
    page.keyboard.press("Enter")
    wait_runs(page, n + 1)
    assert page.evaluate(FOCUSED) == "run"
    # While it runs, Run does nothing (a second Enter starts no second run) and says so.
    set_code(page, SLOW)
    n = runs(page)
    page.keyboard.press("Enter")
    expect(run).to_be_disabled()
    assert page.evaluate(FOCUSED) == "run"
    page.keyboard.press("Enter")
    # Tab reaches Cancel; cancelling hides it, and the focus comes back to Run.
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED) == "cancel"
    page.keyboard.press("Enter")
    wait_runs(page, n + 1)
    assert runs(page) == n + 1
    expect(run).to_be_enabled()
    assert page.evaluate(FOCUSED) == "run"


@needs_runner
def test_choosing_a_panel_keeps_the_focus_on_its_tab(page: Page):
    # The tabs were drawn anew on every choice and after every run: the focused tab went with them.
    open_session(page, DOUBLE, "f", [{"name": "jit", "options": {}}], ["1.0"])
    page.get_by_test_id("tab-output").focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate(FOCUSED) == "tab-ir"
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUSED) == "tab-ir"
    page.get_by_test_id("tab-timings").click()
    assert page.evaluate(FOCUSED) == "tab-timings"
    n = runs(page)
    page.keyboard.press("Control+Enter")
    wait_runs(page, n + 1)
    assert page.evaluate(FOCUSED) == "tab-timings"
    expect(page.get_by_test_id("tab-timings")).to_have_attribute("aria-selected", "true")


@needs_runner
def test_run_again_on_stale_results_takes_the_focus_to_the_new_results(page: Page):
    # "Run again" hides itself with the note it is in: the focus went to the page's body.
    open_session(page, DOUBLE, "f", [], ["1.0"])
    set_code(page, DOUBLE.replace("2.0", "3.0"))
    again = page.get_by_test_id("stale-run")
    expect(again).to_be_visible()
    again.focus()
    n = runs(page)
    page.keyboard.press("Enter")
    wait_runs(page, n + 1)
    expect(again).to_be_hidden()
    assert page.evaluate(FOCUSED) == "panel-body"


# Every time and size in an element's text, with how many lines each takes.
SPLIT_UNITS = r"""els => els.flatMap((el) => {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    for (const m of t.data.matchAll(/\d+(\.\d+)?\s+(ms|µs|s|B|KiB|MiB)\b/g)) {
      const r = document.createRange();
      r.setStart(t, m.index); r.setEnd(t, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
      out.push([m[0], tops.size]);
    }
  }
  return out;
})"""


@needs_runner
def test_device_times_keep_their_unit_on_the_number_s_line(page: Page):
    # On a laptop a 2 x 4 mesh's cards are narrow: "exchange 0.54 ms" broke before "ms", and a
    # collective's summary put "ms" of "131.3 ms" on a line of its own.
    page.set_viewport_size({"width": 1280, "height": 800})
    open_gallery_example(page, "nested-pmap-grad")
    page.get_by_test_id("tab-devices").click()
    expect(page.get_by_test_id("device-card")).to_have_count(8)
    found = page.locator("[data-testid=devices-panel]").evaluate_all(SPLIT_UNITS)
    assert len(found) > 20, found
    split = [text for text, lines in found if lines > 1]
    assert split == [], split
    assert all(re.fullmatch(r"[\d.]+\s+\S+", text) for text, _ in found)


def test_the_theme_switch_and_the_column_splitter_say_their_state(page: Page):
    # A screen reader heard "Toggle light and dark theme, button" in either theme, and "Resize,
    # separator" with no position, which a focusable separator must give (WAI-ARIA's splitter).
    page.emulate_media(color_scheme="light")
    page.goto("/")
    toggle = page.get_by_test_id("theme-toggle")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_role("button", name="Dark theme")).to_have_count(1)
    splitter = page.get_by_role("separator", name="Width of the code column")
    expect(splitter).to_have_attribute("aria-valuenow", "46")
    splitter.focus()
    page.keyboard.press("ArrowRight")
    expect(splitter).to_have_attribute("aria-valuenow", "49")
    expect(splitter).to_have_attribute("aria-valuetext", "code 49%, results 51%")


@needs_runner
def test_choosing_a_call_keeps_the_focus_on_the_call_picker(page: Page):
    # The picker is drawn anew with the panel: after one arrow key the focus was on the page's body,
    # so a keyboard user could not step on to the next call.
    open_gallery_example(page, "grad-higher-order")
    page.get_by_test_id("tab-ir").click()
    picker = page.get_by_test_id("call-select")
    expect(picker).to_have_value("3")
    picker.focus()
    page.keyboard.press("ArrowUp")
    expect(page.get_by_test_id("call-select")).to_have_value("2")
    assert page.evaluate(FOCUSED) == "call-select"
    page.keyboard.press("ArrowUp")
    expect(page.get_by_test_id("call-select")).to_have_value("1")
    assert page.evaluate(FOCUSED) == "call-select"


# The focused element: its text (or label) and whether it is pressed.
FOCUSED_CONTROL = """() => { const a = document.activeElement;
  return [a.tagName, (a.getAttribute('aria-label') || a.textContent).trim(), a.getAttribute('aria-pressed')]; }"""


@needs_runner
def test_the_ir_panel_s_switches_keep_the_focus(page: Page):
    # The stage is drawn anew on every switch: the view (Graph, Text, Both), heat, IR form and
    # diff controls each dropped the focus to the page's body once used from the keyboard.
    open_session(page, DOUBLE, "f", [{"name": "jit", "options": {}}], ["1.0"], panel="ir")
    expect(page.get_by_test_id("ir-panel")).to_be_visible()
    for name in ["Text", "Both", "Graph", "FLOPs", "no heat"]:
        page.get_by_role("button", name=name, exact=True).focus()
        page.keyboard.press("Enter")
        assert page.evaluate(FOCUSED_CONTROL) == ["BUTTON", name, "true"], name
    page.get_by_test_id("diff-base").focus()
    page.keyboard.press("ArrowDown")
    assert page.evaluate(FOCUSED_CONTROL)[:2] == ["SELECT", "Compare with"]
    page.get_by_role("button", name="StableHLO", exact=True).focus()
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUSED_CONTROL) == ["BUTTON", "StableHLO", "true"]
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUSED_CONTROL) == ["BUTTON", "jaxpr", "true"]


@needs_runner
def test_stepping_to_either_end_of_the_debugger_keeps_the_focus(page: Page):
    # Back and Step were disabled at the first and last equation, which dropped the focus to the
    # page's body: stepping through from the keyboard ended with the focus gone.
    code = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) * 2.0 + 1.0\n"
    open_session(page, code, "f", [{"name": "jit", "options": {}}], ["1.0"], panel="debugger")
    counter = page.get_by_test_id("debug-counter")
    expect(counter).to_have_text("1 / 3")
    page.get_by_test_id("debug-next").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(counter).to_have_text("3 / 3")
    expect(page.get_by_test_id("debug-next")).to_be_disabled()
    assert page.evaluate(FOCUSED) == "debug-next"
    page.keyboard.press("Enter")  # (at the end: nothing more)
    expect(counter).to_have_text("3 / 3")
    page.keyboard.press("Shift+Tab")
    for _ in range(2):
        page.keyboard.press("Enter")
    expect(counter).to_have_text("1 / 3")
    expect(page.get_by_test_id("debug-prev")).to_be_disabled()
    assert page.evaluate(FOCUSED) == "debug-prev"


# The focused element's test id and the stack layer it is in (its index and transformation).
IN_STACK = """() => { const a = document.activeElement, l = a.closest('[data-testid=stack-layer]');
  return [a.dataset.testid ?? a.tagName, l ? [...l.parentElement.children].indexOf(l) : null, l?.dataset.name ?? null]; }"""


@needs_runner
def test_editing_the_stack_from_the_keyboard_keeps_the_focus(page: Page):
    # The stack is drawn anew on each change: picking another transformation or function, moving
    # a layer to either end (its button was disabled there) or removing one left the focus on the
    # page's body.
    stack = [{"name": n, "options": {}} for n in ("grad", "vmap", "jit")]
    open_session(page, DOUBLE, "f", stack, ["1.0"])
    layer = page.get_by_test_id("stack-layer")
    layer.nth(1).get_by_test_id("layer-down").focus()
    page.keyboard.press("Enter")
    assert page.evaluate(IN_STACK) == ["layer-down", 2, "vmap"]
    layer.nth(1).get_by_test_id("layer-up").focus()
    page.keyboard.press("Enter")
    assert page.evaluate(IN_STACK) == ["layer-up", 0, "jit"]
    layer.nth(0).get_by_test_id("layer-name").focus()
    page.keyboard.press("ArrowUp")  # jit -> the one before it in the list
    expect(layer.nth(0).get_by_test_id("layer-name")).not_to_have_value("jit")
    assert page.evaluate(IN_STACK)[:2] == ["layer-name", 0]
    layer.nth(1).get_by_test_id("layer-remove").focus()
    page.keyboard.press("Enter")
    expect(layer).to_have_count(2)
    assert page.evaluate(IN_STACK) == ["layer-remove", 1, "vmap"]
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(layer).to_have_count(0)
    assert page.evaluate(IN_STACK)[0] == "add-grad"
    page.get_by_test_id("target-select").focus()
    page.keyboard.press("ArrowUp")  # f -> the whole script
    expect(page.get_by_test_id("target-select")).to_have_value("")
    assert page.evaluate(IN_STACK)[0] == "target-select"


@needs_runner
def test_run_both_on_the_compare_page_keeps_the_focus(page: Page):
    # As the playground's Run did: disabled while running, it dropped the focus to the page's body.
    side = session_fragment(DOUBLE, "f", [{"name": "jit", "options": {}}], ["1.0"])[3:]
    page.goto(f"/compare#a={side}&b={side}")
    wait_runs(page, 1)
    run = page.get_by_test_id("cmp-run")
    run.focus()
    page.keyboard.press("Enter")
    wait_runs(page, 2)
    expect(run).to_be_enabled()
    assert page.evaluate(FOCUSED) == "cmp-run"


@needs_runner
def test_an_embedded_ir_panel_opens_at_the_shared_stage(page: Page, context):
    # The share popup's link opened the IR stage it was shared from, its embed code the last stage.
    open_session(
        page,
        DOUBLE,
        "f",
        [{"name": "grad", "options": {}}, {"name": "jit", "options": {}}],
        ["1.0"],
        panel="ir",
    )
    page.locator("[data-testid=stage-tab][title='grad(f)']").click()
    page.get_by_test_id("ir-view-text").click()
    page.get_by_test_id("share").click()
    src = re.search(r'src="([^"]+)"', page.get_by_test_id("share-embed").input_value()).group(1)
    embed = context.new_page()
    embed.goto(src)
    embed.wait_for_function("document.getElementById('app').dataset.runs === '1'")
    expect(embed.locator("[data-testid=stage-tab][aria-selected=true]")).to_have_attribute("title", "grad(f)")
    expect(embed.get_by_test_id("ir-view-text")).to_have_attribute("aria-pressed", "true")


@needs_runner
def test_a_stage_that_cannot_be_traced_alone_says_why_instead_of_showing_its_error_as_ir(page: Page):
    # The data-parallel example's first stage (update, which calls pmean over 'batch') showed only
    # "(tracing failed: NameError: unbound axis name: batch. ...)" where the IR goes.
    open_gallery_example(page, "data-parallel-step")
    page.get_by_test_id("tab-ir").click()
    page.locator("[data-testid=stage-tab][title='update']").click()
    note = page.get_by_test_id("stage-untraced")
    expect(note).to_contain_text("update could not be traced on its own")
    expect(note).to_contain_text("collective over the axis 'batch'")
    expect(note).to_contain_text("The stages after it show the program the call ran.")
    page.locator("[data-testid=stage-tab][title^='pmap(update']").click()
    expect(page.get_by_test_id("ir-graph")).to_be_visible()
    expect(note).to_have_count(0)
