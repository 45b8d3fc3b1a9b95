"""Browser tests for what a first user of the page tripped over, one test per defect."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import needs_runner
from .test_playground import GRAD, open_session, run_and_wait, set_code

LONG_ERROR = """def f(x):
    raise ValueError('bad value ' + 'x' * 3000 + '\\n'.join(['line'] * 400) + ' end')
"""


@needs_runner
def test_a_very_long_error_message_wraps_and_scrolls_inside_its_box(page: Page):
    open_session(page, LONG_ERROR, "f", [GRAD], ["1.0"])
    box = page.get_by_test_id("error-box")
    expect(box).to_be_visible()
    message = page.get_by_test_id("error-message")
    # The unbroken word wraps: nothing runs past the box's right edge or makes the panel scroll sideways.
    wide = message.evaluate("e => e.scrollWidth - e.clientWidth")
    assert wide <= 1, f"the message runs {wide} px past its box"
    body = page.get_by_test_id("panel-body")
    assert body.evaluate("e => e.scrollWidth - e.clientWidth") <= 1
    # Its 400 lines scroll inside the message; where it was raised stays on the first screen.
    expect(page.get_by_test_id("error-line")).to_be_in_viewport()
    expect(page.get_by_test_id("error-layer")).to_have_text("raised under grad")


JIT_TWICE = """import jax
import jax.numpy as jnp

def f(x):
    return x * x + x * 2.0

print(jax.jit(f)(jnp.ones((4, 4))))
"""


@needs_runner
def test_compile_times_keep_their_unit_on_the_number_s_line(page: Page):
    open_session(page, JIT_TWICE, "f", [{"name": "jit", "options": {}}], ["jnp.arange(6.0)"], panel="timings")
    cells = page.locator(".recompile-table td.num")
    expect(cells.first).to_be_visible()
    lines = cells.evaluate_all(
        "cs => cs.map(c => { const r = document.createRange(); r.selectNodeContents(c);"
        " return [c.textContent, new Set([...r.getClientRects()].map(x => Math.round(x.top))).size]; })"
    )
    assert lines and all(n == 1 for _, n in lines), f"times broken over lines: {lines}"


@needs_runner
def test_the_debugger_s_line_mark_leaves_the_editor_with_the_debugger(page: Page):
    open_session(
        page, JIT_TWICE, "f", [{"name": "jit", "options": {}}], ["jnp.arange(6.0)"], panel="debugger"
    )
    linked = page.locator(".cm-linked-line")
    # The Debugger marks its step's line (line 5, the first multiply).
    expect(linked).to_have_count(1)
    expect(linked).to_contain_text("x * x")
    for other in ("timings", "output", "ir"):
        page.get_by_test_id(f"tab-{other}").click()
        expect(page.get_by_test_id("panel-body")).to_have_attribute("data-panel", other)
        expect(linked).to_have_count(0)
    page.get_by_test_id("tab-debugger").click()
    expect(linked).to_have_count(1)


LONG_NAME = """import jax
import jax.numpy as jnp

def total_loss(x):
    return jnp.sum(jnp.tanh(x) ** 2)

print(jax.jit(jax.grad(total_loss))(jnp.ones(3)))
"""


@needs_runner
def test_on_a_phone_the_call_picker_shows_the_whole_call(page: Page):
    page.set_viewport_size({"width": 390, "height": 844})
    stack = [GRAD, {"name": "jit", "options": {}}]
    open_session(page, LONG_NAME, "total_loss", stack, ["jnp.ones(3)"], panel="ir")
    select = page.get_by_test_id("call-select")
    expect(select).to_be_visible()
    # The chosen call's text (e.g. '#1 jit(grad(total_loss)) — line 4') is not cut by the select.
    text_width, inner_width = select.evaluate(
        "s => { const c = document.createElement('canvas').getContext('2d'); c.font = getComputedStyle(s).font;"
        " const cs = getComputedStyle(s);"
        " return [c.measureText(s.selectedOptions[0].text).width,"
        " s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16]; }"
    )
    assert text_width <= inner_width, (
        f"the call's text needs {text_width:.0f} px, the select shows {inner_width:.0f}"
    )
    right = select.evaluate("s => s.getBoundingClientRect().right")
    assert right <= 390
    expect(page.locator(".call-picker .muted")).to_be_in_viewport()


@needs_runner
def test_results_say_when_the_code_has_changed_since_they_ran(page: Page):
    open_session(page, LONG_NAME, "total_loss", [GRAD], ["jnp.ones(3)"])
    note = page.get_by_test_id("stale-note")
    expect(page.get_by_test_id("run-status")).to_have_attribute("data-state", "ok")
    expect(note).to_be_hidden()
    # Switching panels changes nothing that ran.
    page.get_by_test_id("tab-ir").click()
    page.get_by_test_id("tab-output").click()
    expect(note).to_be_hidden()
    set_code(page, LONG_NAME.replace("** 2", "** 3"))
    expect(note).to_be_visible()
    expect(note).to_contain_text("previous code")
    # Undoing the edit makes the results current again.
    set_code(page, LONG_NAME)
    expect(note).to_be_hidden()
    # An argument edit counts too; running again clears the note.
    page.get_by_test_id("arg-input").fill("jnp.ones(4)")
    expect(note).to_be_visible()
    run_and_wait(page, page.get_by_test_id("stale-run").click)
    expect(note).to_be_hidden()
    expect(page.get_by_test_id("run-label")).to_have_text("grad(total_loss)")


SHAPE_ERROR = """import jax
import jax.numpy as jnp

def f(x):
    return jnp.dot(x, jnp.ones(3))

print(jax.grad(f)(jnp.ones(4)))
"""


@needs_runner
def test_library_frames_name_their_package_file_not_the_server_s_directories(page: Page):
    open_session(page, SHAPE_ERROR)
    frames = page.locator(".traceback li.lib .mono.muted")
    expect(frames.first).to_be_visible()
    texts = frames.all_text_contents()
    assert any(t.startswith("engine/api.py:") for t in texts), texts
    assert not any(t.startswith("/") for t in texts), texts
    # The whole path is still there, on hover.
    assert frames.first.get_attribute("title").endswith(texts[0].rsplit(":", 1)[0])
