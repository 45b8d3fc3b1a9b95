"""The timings tab's traces-and-compiles table says why each jitted call traced again, in JAX's
explain_cache_misses words, where it used to say the engine gave no reason: a function made anew at
each call, a changed pytree, a changed config."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import needs_runner, session_fragment

PROGRAM = """import jax
import jax.numpy as jnp

def total(d):
    return d["a"].sum()

for i in range(3):
    jax.jit(lambda x: x + 1)(jnp.ones(3))
h = jax.jit(total)
h({"a": jnp.ones(3)})
h({"a": jnp.ones(3), "b": jnp.ones(2)})
def double(x):
    return x * 2
s = jax.jit(double)
s(jnp.ones(3))
with jax.enable_x64(True):
    s(jnp.ones(3, jnp.float32))
s(jnp.ones(3))
"""


@needs_runner
def test_each_recompile_row_says_why(page: Page, artifacts):
    page.goto("/" + session_fragment(PROGRAM, None, [], [], "timings"))
    page.wait_for_function("Number(document.getElementById('app').dataset.runs || 0) >= 1", timeout=90_000)
    section = page.get_by_test_id("recompiles")
    expect(section).to_be_visible()
    rows = page.get_by_test_id("recompile-row")
    expect(rows).to_have_count(8)
    statuses = rows.evaluate_all("els => els.map(e => e.dataset.status)")
    assert [statuses[i] for i in (1, 2, 4, 6, 7)] == [
        "recompile",
        "recompile",
        "recompile",
        "recompile",
        "hit",
    ]
    expect(rows.nth(0)).to_contain_text("never seen function: <lambda> defined at line 8")
    # the same lambda written once but made anew on every pass of the loop
    for i in (1, 2):
        expect(rows.nth(i)).to_contain_text("maybe the function is being re-defined repeatedly")
    expect(rows.nth(4)).to_contain_text(
        "different input pytree:\n* at input path [0][0], now <class 'dict'> with 2 children and before "
        "<class 'dict'> with 1 child, so the numbers of children do not match, with the symmetric "
        "difference of key sets: {'b'}",
        use_inner_text=True,
    )
    expect(rows.nth(6)).to_contain_text(
        "Tracing context doesn't match, e.g. due to config or context manager.\n"
        "* jax_enable_x64 differs: now True and before False",
        use_inner_text=True,
    )
    expect(section).not_to_contain_text("gave no reason")
    expect(section).not_to_contain_text("traced again")
    # The reason also titles the call's mark on the timeline.
    title = page.get_by_test_id("recompile-mark").nth(6).locator("title")
    expect(title).to_contain_text(
        "recompiled — all previously seen cache keys differ. For the closest previous key:\n"
        "Tracing context doesn't match"
    )
    section.screenshot(path=str(artifacts / "recompile-reasons.png"))


RESHAPED = """import jax
import jax.numpy as jnp

def double(x):
    return x * 2

s = jax.jit(double)
s(jnp.ones(3))
s(jnp.ones((2, 2)))
s(2.0)
"""


@needs_runner
def test_a_changed_type_reads_as_jax_explains_it(page: Page):
    # A changed rank: JAX's lines, led by its words for a miss with earlier keys, and without the
    # empty mesh-axis annotation "({})" (the report's text has it, as JAX's log does).
    page.goto("/" + session_fragment(RESHAPED, None, [], [], "timings"))
    page.wait_for_function("Number(document.getElementById('app').dataset.runs || 0) >= 1", timeout=90_000)
    rows = page.get_by_test_id("recompile-row")
    expect(rows).to_have_count(3)
    reasons = page.locator("[data-testid=recompile-row] .rc-reason")
    expect(reasons.nth(1)).to_contain_text(
        "all previously seen cache keys differ. For the closest previous key:\n"
        "different input types:\n* at x, now f32[2,2] and before f32[3]",
        use_inner_text=True,
    )
    expect(reasons.nth(2)).to_contain_text(
        "different input types:\n* at x, now f32[]{weak_type=True} and before f32[2,2]{weak_type=False}\n"
        "(see https://docs.jax.dev/en/latest/type_promotion.html#weak-types)",
        use_inner_text=True,
    )
    expect(page.get_by_test_id("recompiles")).not_to_contain_text("({})")
