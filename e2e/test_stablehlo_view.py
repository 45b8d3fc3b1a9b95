"""The IR panel's StableHLO form: a jit stage toggles between its jaxpr and the lowered program
(read-only, highlighted), the choice travels in the URL, and stages without jit have no toggle."""

from __future__ import annotations

import base64
import json
import re

from playwright.sync_api import Page, expect

from .conftest import needs_runner, session_fragment
from .test_playground import wait_runs

CODE = "import jax\nimport jax.numpy as jnp\n\ndef f(x, y):\n    return jnp.sin(x) + y\n"
STACK = [{"name": "jit", "options": {}}, {"name": "vmap", "options": {}}, {"name": "jit", "options": {}}]
ARGS = ["jnp.arange(3.0)", "jnp.ones(3)"]


def fragment_session(url: str) -> dict:
    raw = url.split("#s=", 1)[1]
    return json.loads(base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)))


@needs_runner
def test_jit_stage_toggles_to_its_stablehlo_and_the_url_keeps_it(page: Page, artifacts):
    page.goto("/" + session_fragment(CODE, "f", STACK, ARGS, panel="ir"))
    wait_runs(page, 1)
    tabs = page.get_by_test_id("stage-tab")
    expect(tabs).to_have_count(5)  # f, jit(f), vmap(jit(f)), jit(vmap(jit(f))), lowered code
    expect(tabs.nth(3)).to_have_attribute("aria-selected", "true")

    page.get_by_test_id("ir-form-stablehlo").click()
    view = page.get_by_test_id("stablehlo-text")
    expect(view).to_be_visible()
    expect(page.get_by_test_id("ir-node")).to_have_count(0)  # the graph gave way to the text
    text = view.locator(".cm-content").inner_text()
    assert text.startswith("module @jit_f attributes"), text
    assert "stablehlo.sine %arg0 : tensor<3xf32>" in text, text
    # highlighted: ops, SSA values and types are styled spans in colours of their own
    op = view.locator(".cm-line span", has_text="stablehlo.sine")
    ssa = view.locator(".cm-line span", has_text="%arg0").first
    typ = view.locator(".cm-line span", has_text="tensor<3xf32>").first
    colors = {loc.evaluate("e => getComputedStyle(e).color") for loc in (op, ssa, typ)}
    assert len(colors) == 3, colors
    page.screenshot(path=str(artifacts / "ir-stablehlo.png"))
    content = view.locator(".cm-content")
    expect(content).to_have_class(re.compile(r"\bcm-lineWrapping\b"))
    page.get_by_role("checkbox", name="wrap long lines").uncheck()
    expect(content).not_to_have_class(re.compile(r"\bcm-lineWrapping\b"))
    page.get_by_role("checkbox", name="wrap long lines").check()

    # The form is part of the session the URL restores.
    page.wait_for_function("location.hash.length > 3 && !location.hash.startsWith('#p=')")
    page.wait_for_timeout(400)  # (the fragment is written 250 ms after a change)
    url = page.url
    assert fragment_session(url).get("i") == "stablehlo", fragment_session(url)

    # A stage without jit has no lowered program, so no toggle; jit stages keep the choice, the
    # inner one lowered for one example (vmap is outside it).
    tabs.nth(2).click()
    expect(page.get_by_test_id("ir-form-stablehlo")).to_have_count(0)
    expect(page.get_by_test_id("ir-node").first).to_be_visible()
    tabs.nth(1).click()
    expect(page.get_by_test_id("stablehlo-text")).to_contain_text("%0 = stablehlo.sine %arg0 : tensor<f32>")
    tabs.nth(3).click()

    page.goto("about:blank")
    page.goto(url)
    wait_runs(page, 1)
    expect(page.get_by_test_id("stablehlo-text")).to_be_visible()
    expect(page.get_by_test_id("ir-form-stablehlo")).to_have_attribute("aria-pressed", "true")

    # A share link (stored snippet) carries it in its view fragment, with the stage.
    tabs.nth(1).click()
    page.get_by_test_id("share").click()
    link = page.get_by_test_id("share-link").input_value()
    assert re.search(r"/s/[0-9A-Za-z]+#p=ir&g=jit\(f\)&i=stablehlo$", link), link
    page.goto("about:blank")
    page.goto(link)
    wait_runs(page, 1)
    expect(page.get_by_test_id("stage-tab").nth(1)).to_have_attribute("aria-selected", "true")
    expect(page.get_by_test_id("stablehlo-text")).to_contain_text("%0 = stablehlo.sine %arg0 : tensor<f32>")
    page.get_by_test_id("stage-tab").nth(3).click()

    # Back to the jaxpr: graph and text again, and the (share link's) URL forgets the form.
    page.get_by_test_id("ir-form-jaxpr").click()
    expect(page.get_by_test_id("stablehlo-text")).to_have_count(0)
    expect(page.get_by_test_id("ir-node").first).to_be_visible()
    page.wait_for_timeout(400)
    assert page.url.endswith("#p=ir&g=jit(vmap(jit(f)))"), page.url


@needs_runner
def test_on_a_phone_the_stablehlo_wrap_toggle_keeps_its_label_on_one_line(page: Page):
    # Beside the "What jax.jit(f).lower(*args).as_text() prints" note, the toggle's label was
    # squeezed to three lines ("wrap / long / lines").
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/" + session_fragment(CODE, "f", STACK, ARGS, panel="ir"))
    wait_runs(page, 1)
    page.get_by_test_id("ir-form-stablehlo").click()
    expect(page.get_by_test_id("stablehlo-text")).to_be_visible()
    label = page.locator(".hlo-pane .text-tools label")
    rows = label.evaluate(
        """l => { const r = document.createRange(); r.selectNodeContents(l.lastChild);
        return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; }"""
    )
    assert rows == 1, rows
    tools = page.locator(".hlo-pane .text-tools")
    assert tools.evaluate("t => t.scrollWidth <= t.clientWidth"), tools.evaluate(
        "t => [t.scrollWidth, t.clientWidth]"
    )
