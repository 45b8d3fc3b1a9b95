"""End-to-end tests of the playground page against a real server, in headless Chromium."""

from __future__ import annotations

import contextlib
import json
import math
import re

import numpy as np
import pytest
from playwright.sync_api import Page, expect

from .conftest import needs_runner, session_fragment

try:
    from server.examples import EXAMPLES
except Exception:  # the server package is not there yet
    EXAMPLES = []

EXAMPLE_IDS = [e.id for e in EXAMPLES]

TANH = """import jax.numpy as jnp

def tanh(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)
"""
TANH_EXP_LINE = 4
TANH_RETURN_LINE = 5

LOSS = """import jax
import jax.numpy as jnp

def loss(w, x):
    return jnp.sum(jnp.tanh(w * x) ** 2)

w = jnp.array([0.5, -1.0, 2.0])
xs = jnp.arange(12.0).reshape(4, 3) / 10.0
"""

HAND_WRITTEN = (
    LOSS
    + """
import json
import numpy as np

out = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0)))(w, xs)
print(json.dumps(np.asarray(out).tolist()))
"""
)

GRAD = {"name": "grad", "options": {}}


# ---- helpers ------------------------------------------------------------------------------------


def runs(page: Page) -> int:
    return int(page.get_attribute("#app", "data-runs") or 0)


def wait_runs(page: Page, n: int, timeout: float = 90_000) -> None:
    page.wait_for_function(
        f"Number(document.getElementById('app').dataset.runs || 0) >= {n}", timeout=timeout
    )


def run_and_wait(page: Page, trigger=None, timeout: float = 90_000) -> None:
    n = runs(page)
    if trigger is None:
        page.get_by_test_id("run").click()
    else:
        trigger()
    wait_runs(page, n + 1, timeout)


def open_session(page: Page, code: str, function=None, stack=None, args=None, panel="output") -> None:
    """Load a session through the URL fragment; the page restores it and runs it once."""
    page.goto("/" + session_fragment(code, function, stack, args, panel))
    wait_runs(page, 1)


def set_code(page: Page, code: str) -> None:
    page.evaluate("code => window.jaxplay.setCode(code)", code)


def flat(data) -> list[float]:
    out: list[float] = []

    def walk(d):
        if isinstance(d, list):
            for x in d:
                walk(x)
        elif isinstance(d, str):
            out.append({"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[d])
        elif isinstance(d, bool):
            out.append(float(d))
        else:
            out.append(float(d))

    walk(data)
    return out


def result_leaves(page: Page) -> list[dict]:
    return page.eval_on_selector_all(
        "[data-testid=result] [data-testid=value-array]",
        "els => els.map(e => ({shape: JSON.parse(e.dataset.shape), data: e.dataset.json ? JSON.parse(e.dataset.json) : null}))",
    )


def expect_ok(page: Page) -> None:
    status = page.get_by_test_id("run-status")
    if status.get_attribute("class") and "fail" in status.get_attribute("class"):
        box = page.get_by_test_id("error-box")
        msg = box.inner_text() if box.count() else "(no error box)"
        pytest.fail(f"run failed: {msg}")
    expect(status).to_have_attribute("data-state", re.compile("^(ok|nonfinite)$"))


def new_context(browser, base_url):
    # bypass_csp: Playwright's wait_for_function evaluates strings, which the page's CSP forbids
    # (e2e/test_security.py checks the page under its real policy).
    ctx = browser.new_context(viewport={"width": 1440, "height": 900}, base_url=base_url, bypass_csp=True)
    ctx.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(base_url) or route.request.url.startswith("data:")
            else route.abort()
        ),
    )
    return ctx


@contextlib.contextmanager
def opened_fresh(browser, base_url, url: str):
    """``url`` opened in a new browser context (nothing stored by the page that made it), once its
    first run is done."""
    ctx = new_context(browser, base_url)
    try:
        fresh = ctx.new_page()
        fresh.goto(url)
        wait_runs(fresh, 1)
        yield fresh
    finally:
        ctx.close()


# ---- tests --------------------------------------------------------------------------------------


def test_page_loads(page: Page, artifacts):
    page.goto("/")
    expect(page).to_have_title(re.compile("jaxplay"))
    expect(page.locator(".cm-content")).to_be_visible()
    expect(page.get_by_test_id("welcome")).to_be_visible()
    expect(page.get_by_test_id("composed-call")).to_have_text("grad(tanh)(1.0)")
    page.screenshot(path=str(artifacts / "page-start.png"))


def test_gallery_lists_every_example(page: Page):
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    items = page.get_by_test_id("gallery-item")
    expect(items).to_have_count(len(EXAMPLES))
    for ex in EXAMPLES:
        expect(page.locator(f"[data-testid=gallery-item][data-id='{ex.id}']")).to_contain_text(ex.title)


@needs_runner
@pytest.mark.parametrize("example_id", EXAMPLE_IDS)
def test_gallery_example_runs_with_expected_values(page: Page, example_id: str, artifacts):
    ex = next(e for e in EXAMPLES if e.id == example_id)
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    item = page.locator(f"[data-testid=gallery-item][data-id='{example_id}']")
    run_and_wait(page, item.click)
    page.screenshot(path=str(artifacts / f"gallery-{example_id}.png"))
    expect_ok(page)
    assert page.evaluate("window.jaxplay.getCode()") == ex.code
    leaves = result_leaves(page)
    assert len(leaves) == len(ex.expected), leaves
    for got, want in zip(leaves, ex.expected):
        assert got["shape"] == want.shape
        assert got["data"] is not None, "the result's values were not sent"
        np.testing.assert_allclose(flat(got["data"]), want.data, rtol=want.rtol, atol=want.atol)
    if ex.expected:
        expect(page.get_by_test_id("expected-check")).to_have_attribute("data-status", "match")


@needs_runner
def test_ir_graph_for_grad_tanh_links_nodes_and_source(page: Page, artifacts):
    open_session(page, TANH, "tanh", [GRAD], ["1.0"], panel="ir")
    page.get_by_test_id("tab-output").click()
    expect_ok(page)
    [leaf] = result_leaves(page)
    assert abs(flat(leaf["data"])[0] - 0.41997434) < 1e-5

    page.get_by_test_id("tab-ir").click()
    tabs = page.get_by_test_id("stage-tab")
    assert tabs.count() >= 2
    expect(tabs.last).to_have_attribute("aria-selected", "true")
    expect(tabs.last).to_contain_text("grad")

    nodes = page.get_by_test_id("ir-node")
    expect(nodes.first).to_be_visible()
    prims = nodes.evaluate_all("els => els.map(e => e.dataset.primitive)")
    assert "exp" in prims, prims
    assert page.locator("[data-testid=ir-node][data-added=true]").count() > 0, (
        "grad added no highlighted nodes"
    )
    page.screenshot(path=str(artifacts / "panel-ir.png"))

    # Node -> source line.
    page.locator("[data-testid=ir-node][data-primitive=exp]").first.click()
    linked = page.locator(".cm-linked-line")
    expect(linked).to_have_count(1)
    expect(linked).to_contain_text("jnp.exp")
    expect(page.locator("[data-testid=ir-node][data-primitive=exp]").first).to_have_class(
        re.compile("selected")
    )

    # Source line -> nodes.
    page.locator(".cm-line", has_text="return (1.0 - y)").click()
    expect(
        page.locator(f"[data-testid=ir-node][data-line='{TANH_RETURN_LINE}'].linked").first
    ).to_be_visible()

    # The first stage is the function itself: nothing added there.
    tabs.first.click()
    expect(page.get_by_test_id("ir-node").first).to_be_visible()
    assert page.locator("[data-testid=ir-node][data-added=true]").count() == 0
    expect(page.get_by_test_id("ir-text")).to_contain_text("exp")


@needs_runner
def test_stack_built_in_ui_matches_hand_written_code(page: Page, artifacts):
    open_session(page, LOSS)
    page.get_by_test_id("target-select").select_option("loss")
    page.get_by_test_id("add-grad").click()
    page.get_by_test_id("add-vmap").click()
    page.get_by_test_id("stack-layer").nth(1).get_by_test_id("opt-in_axes").fill("(None, 0)")
    page.get_by_test_id("add-jit").click()
    expect(page.get_by_test_id("stack-layer")).to_have_count(3)
    args = page.get_by_test_id("arg-input")
    args.nth(0).fill("w")
    args.nth(1).fill("xs")
    expect(page.get_by_test_id("composed-call")).to_have_text(
        "jit(vmap(grad(loss), in_axes=(None, 0)))(w, xs)"
    )

    # Reordering is undoable: move jit inward and back.
    page.get_by_test_id("stack-layer").nth(2).get_by_test_id("layer-up").click()
    expect(page.get_by_test_id("composed-call")).to_have_text(
        "vmap(jit(grad(loss)), in_axes=(None, 0))(w, xs)"
    )
    page.get_by_test_id("stack-layer").nth(1).get_by_test_id("layer-down").click()
    expect(page.get_by_test_id("composed-call")).to_have_text(
        "jit(vmap(grad(loss), in_axes=(None, 0)))(w, xs)"
    )

    run_and_wait(page, lambda: (page.locator(".cm-content").click(), page.keyboard.press("Control+Enter")))
    expect_ok(page)
    [leaf] = result_leaves(page)
    assert leaf["shape"] == [4, 3]
    ui_values = np.array(flat(leaf["data"])).reshape(4, 3)
    page.screenshot(path=str(artifacts / "stack-ui.png"))

    # The same composition written by hand, run as a script.
    set_code(page, HAND_WRITTEN)
    page.get_by_test_id("target-select").select_option("")
    run_and_wait(page)
    expect_ok(page)
    stdout = page.get_by_test_id("stdout").inner_text().strip().splitlines()[-1]
    hand = np.array(json.loads(stdout))
    np.testing.assert_allclose(ui_values, hand, rtol=1e-5, atol=1e-6)

    # And both agree with the derivative computed by hand.
    w = np.array([0.5, -1.0, 2.0])
    xs = np.arange(12.0).reshape(4, 3) / 10.0
    t = np.tanh(w * xs)
    np.testing.assert_allclose(ui_values, 2 * t * (1 - t**2) * xs, rtol=2e-4, atol=2e-5)


@needs_runner
def test_pmap_example_shows_eight_device_cards(page: Page, artifacts):
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    run_and_wait(page, page.locator("[data-testid=gallery-item][data-id='pmap-psum']").click)
    page.get_by_test_id("arg-input").first.fill("jnp.arange(8.0)")
    run_and_wait(page)
    expect_ok(page)
    page.get_by_test_id("tab-devices").click()
    cards = page.get_by_test_id("device-card")
    expect(cards).to_have_count(8)
    for i in range(8):
        card = page.locator(f"[data-testid=device-card][data-device='{i}']")
        ins = card.get_by_test_id("shard-in").evaluate_all("els => els.map(e => JSON.parse(e.dataset.json))")
        outs = card.get_by_test_id("shard-out").evaluate_all(
            "els => els.map(e => JSON.parse(e.dataset.json))"
        )
        assert flat(ins) == pytest.approx([float(i)]), ins
        assert flat(outs) == pytest.approx([i / 28.0], rel=2e-4, abs=2e-5), outs
    expect(page.get_by_test_id("collective").first).to_contain_text("psum")
    page.screenshot(path=str(artifacts / "panel-devices.png"))
    page.get_by_test_id("tab-timings").click()
    expect(page.locator("[data-testid=timeline-lane][data-lane='device 7']")).to_have_count(1)
    page.screenshot(path=str(artifacts / "panel-timings-pmap.png"))


@needs_runner
def test_share_link_round_trip_in_fresh_context(page: Page, browser, base_url, artifacts):
    stack = [GRAD, {"name": "vmap", "options": {"in_axes": "0"}}]
    args = ["jnp.linspace(-1.0, 1.0, 5)"]
    open_session(page, TANH, "tanh", stack, args)
    expect_ok(page)
    page.get_by_test_id("tab-ir").click()
    page.get_by_test_id("share").click()
    link = page.get_by_test_id("share-link")
    expect(link).to_be_visible()
    url = link.input_value()
    assert re.fullmatch(re.escape(base_url) + r"/s/[0-9A-Za-z]+#p=ir", url), url

    with opened_fresh(browser, base_url, url) as fresh:
        assert fresh.evaluate("window.jaxplay.getCode()") == TANH
        expect(fresh.get_by_test_id("tab-ir")).to_have_attribute("aria-selected", "true")
        expect(fresh.get_by_test_id("target-select")).to_have_value("tanh")
        names = fresh.get_by_test_id("stack-layer").evaluate_all("els => els.map(e => e.dataset.name)")
        assert names == ["grad", "vmap"]
        expect(fresh.get_by_test_id("stack-layer").nth(1).get_by_test_id("opt-in_axes")).to_have_value("0")
        expect(fresh.get_by_test_id("arg-input").first).to_have_value(args[0])
        expect(fresh.get_by_test_id("composed-call")).to_have_text(f"vmap(grad(tanh), in_axes=0)({args[0]})")
        expect(fresh.get_by_test_id("ir-node").first).to_be_visible()
        fresh.screenshot(path=str(artifacts / "share-restored.png"))


@needs_runner
def test_syntax_error_shown_at_its_line(page: Page, artifacts):
    code = "import jax.numpy as jnp\n\ndef f(x)\n    return x * 2\n"
    open_session(page, code)
    box = page.get_by_test_id("error-box")
    expect(box).to_be_visible()
    expect(page.get_by_test_id("error-type")).to_contain_text("SyntaxError")
    expect(page.get_by_test_id("error-line")).to_have_attribute("data-line", "3")
    expect(page.locator(".cm-lintRange-error")).to_have_count(1)
    expect(page.locator(".cm-error-line")).to_contain_text("def f(x)")
    page.screenshot(path=str(artifacts / "error-syntax.png"))


@needs_runner
def test_runtime_errors_shown_at_their_line(page: Page, artifacts):
    code = "import jax.numpy as jnp\n\nx = jnp.ones(3)\ny = jnp.ones(4)\nz = x + y\nprint(z)\n"
    open_session(page, code)
    expect(page.get_by_test_id("error-box")).to_be_visible()
    expect(page.get_by_test_id("error-line")).to_have_attribute("data-line", "5")
    expect(page.locator(".cm-error-line")).to_contain_text("z = x + y")

    # Under a transformation: the line inside the function, and the layer that raised.
    code = (
        "import jax\n"
        "\n"
        "@jax.jit\n"
        "def relu(x):\n"
        "    if x > 0:\n"
        "        return x\n"
        "    return 0.0 * x\n"
        "\n"
        "print(relu(3.0))\n"
    )
    set_code(page, code)
    run_and_wait(page)
    expect(page.get_by_test_id("error-box")).to_be_visible()
    expect(page.get_by_test_id("error-line")).to_have_attribute("data-line", "5")
    expect(page.get_by_test_id("error-layer")).to_contain_text("jit")
    expect(page.locator(".cm-error-line")).to_contain_text("if x > 0")
    page.screenshot(path=str(artifacts / "error-runtime.png"))


@needs_runner
def test_timeout_is_clear_and_page_stays_usable(page: Page, artifacts):
    # Sleeping spends wall-clock time only, so the wall limit (not the CPU one) is what stops it.
    open_session(page, "import time\nwhile True:\n    time.sleep(0.5)\n")
    box = page.get_by_test_id("error-box")
    expect(box).to_have_attribute("data-limit", "timeout")
    expect(box).to_contain_text("Time limit")
    page.screenshot(path=str(artifacts / "error-timeout.png"))

    set_code(page, "print(1 + 1)\n")
    run_and_wait(page)
    expect_ok(page)
    expect(page.get_by_test_id("stdout")).to_have_text("2")


@needs_runner
def test_cancel_stops_waiting_and_page_stays_usable(page: Page):
    page.goto("/")
    set_code(page, "while True:\n    pass\n")
    page.get_by_test_id("target-select").select_option("")
    n = runs(page)
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("progress")).to_be_visible()
    page.get_by_test_id("cancel").click()
    wait_runs(page, n + 1, timeout=5_000)
    expect(page.get_by_test_id("error-box")).to_have_attribute("data-kind", "abort")
    expect(page.get_by_test_id("run")).to_be_enabled()
    set_code(page, "print('still here')\n")
    run_and_wait(page)
    expect(page.get_by_test_id("stdout")).to_have_text("still here")


@needs_runner
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_panel_screenshots(page: Page, artifacts, theme):
    """One screenshot per panel (and theme) for review; the IR/Devices ones come from the tests above."""
    page.emulate_media(color_scheme=theme)
    code = TANH + "\n\ndef f(x):\n    return jnp.log(x) * tanh(x)\n"
    open_session(
        page,
        code,
        "f",
        [GRAD, {"name": "vmap", "options": {}}, {"name": "jit", "options": {}}],
        ["jnp.linspace(-1.0, 2.0, 16)"],
    )
    expect_ok(page)
    for panel in ["output", "ir", "timings", "devices", "debugger"]:
        page.get_by_test_id(f"tab-{panel}").click()
        page.wait_for_timeout(400)
        page.screenshot(path=str(artifacts / f"panel-{panel}-{theme}.png"))
    page.get_by_test_id("tab-debugger").click()
    steps = page.get_by_test_id("debug-step")
    if steps.count():
        page.get_by_test_id("debug-first").click()
        expect(page.get_by_test_id("debug-counter")).to_contain_text("1 /")
        page.get_by_test_id("debug-next").click()
        expect(page.get_by_test_id("debug-counter")).to_contain_text("2 /")
        jump = page.get_by_test_id("debug-jump-nonfinite")
        if jump.count():  # log of negative inputs gives NaN
            jump.click()
            expect(page.locator("[data-testid=debug-step].current")).to_have_class(re.compile("nonfinite"))
