"""A run stopped by a limit shows what it finished; device cards' times agree with the collectives."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import WALL_SECONDS, needs_runner
from .test_playground import open_session, run_and_wait

STOPPED = """import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x) * 2.0

y = jax.jit(f)(1.0)
print('f done')
while True:
    pass
"""


@needs_runner
def test_a_run_stopped_at_the_time_limit_shows_what_it_finished(page: Page, artifacts):
    page.set_default_timeout((WALL_SECONDS + 60) * 1000)
    open_session(page, STOPPED)
    box = page.get_by_test_id("error-box")
    # (the busy loop meets the CPU limit first on a quiet machine, the wall limit on a loaded one)
    expect(box).to_have_attribute("data-limit", re.compile("^(timeout|cpu)$"))
    # Where it was stopped, and what it finished before.
    expect(page.get_by_test_id("error-line")).to_have_text(re.compile(r"line (9|10)$"))
    expect(page.get_by_test_id("error-message")).to_contain_text("1 transformed call with its IR")
    expect(page.get_by_test_id("stdout")).to_have_text("f done")
    page.screenshot(path=str(artifacts / "limit-keeps-finished.png"))
    # The finished call's IR is there to read.
    page.get_by_test_id("tab-ir").click()
    expect(page.get_by_test_id("stage-tab").filter(has_text="jit(f)")).not_to_have_count(0)
    expect(page.get_by_test_id("ir-text")).to_contain_text("sin")


PSUMS = """import jax
import jax.numpy as jnp

f = jax.pmap(lambda x: x / jax.lax.psum(x, 'i') + jax.lax.psum(jnp.sin(x), 'i'), axis_name='i')
f(jnp.arange(4.0))
"""


@needs_runner
def test_device_cards_times_agree_with_the_collectives(page: Page, artifacts):
    page.goto("/")
    with page.expect_response(lambda r: r.url.endswith("/api/run")) as response:
        run_and_wait(
            page,
            lambda: page.evaluate("code => { window.jaxplay.setCode(code); window.jaxplay.run(); }", PSUMS),
        )
    report = response.value.json()
    assert report["ok"], report["error"]
    info = next(c["pmap"] for c in report["calls"] if c["pmap"])
    page.get_by_test_id("tab-devices").click()
    cards = page.get_by_test_id("device-card")
    expect(cards).to_have_count(4)
    page.screenshot(path=str(artifacts / "devices-times.png"))
    events = info["collectives"]
    for i, device in enumerate(info["devices"]):
        card = page.locator(f"[data-testid=device-card][data-device='{device['id']}']")
        wait = float(card.get_by_test_id("wait-time").get_attribute("data-ms"))
        exchange = float(card.get_by_test_id("exchange-time").get_attribute("data-ms"))
        # A card's wait is its own waits in the collectives; its exchange, its time in them besides.
        assert wait == pytest.approx(sum(e["waits_ms"][i] for e in events), abs=1e-6)
        assert exchange == pytest.approx(sum(e["device_ms"][i] - e["waits_ms"][i] for e in events), abs=1e-6)
    # A collective takes as long as the longest any device spent in it, wait included.
    for e in events:
        assert e["duration_ms"] == max(e["device_ms"]) and all(
            w <= t for w, t in zip(e["waits_ms"], e["device_ms"])
        )
    assert events[0]["waits_ms"] == [0.0] * 4  # the inputs' psum: every copy was there, nobody waited
    page.locator(".collective-table summary").click()
    expect(page.get_by_test_id("collective-wait")).to_have_count(2)
    expect(page.get_by_test_id("collective-wait").first).to_have_attribute(
        "title", re.compile(r"device 0: .* in it, 0\sµs waiting")
    )


# A jitted function stacked in the page (no line of the script calls it): its loop runs on the
# host, calling the body's kernels, where the limit stops it.
LOOPING = """import jax
import jax.numpy as jnp
from jax import lax


def f(m):
    y = jnp.cos(m)
    return lax.while_loop(lambda c: c[0] >= 0, lambda c: (c[0] + 1, jnp.tanh(c[1] @ m)), (0, y))[1]
"""


@needs_runner
def test_a_run_stopped_inside_a_jitted_loop_names_the_loop_line(page: Page):
    page.set_default_timeout((WALL_SECONDS + 60) * 1000)
    open_session(page, LOOPING, "f", [{"name": "jit", "options": {}}], ["jnp.eye(3)"])
    box = page.get_by_test_id("error-box")
    expect(box).to_have_attribute("data-limit", re.compile("^(timeout|cpu)$"))
    # The loop's line, not the line of the def the page called.
    expect(page.get_by_test_id("error-line")).to_have_text(re.compile(r"line 8$"))
    expect(page.get_by_test_id("error-message")).to_contain_text("line 8")
