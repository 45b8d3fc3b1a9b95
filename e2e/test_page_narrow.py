"""Browser tests for the page at narrow widths and on a phone: the Debugger's step rows, the
collective events' headers, and the IR text's wrapped equations."""

from __future__ import annotations

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
