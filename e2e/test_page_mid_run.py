"""Browser tests for what the page does when asked for something while a run is still going."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .conftest import needs_runner
from .test_playground import open_session, runs, set_code, wait_runs

# Slow enough to pick an example while it runs, short of the 10 s limit.
SLOW = "import time\n\ndef f(x):\n    time.sleep(6)\n    return x\n"


@needs_runner
def test_an_example_picked_during_a_run_replaces_it_and_runs(page: Page):
    # The example's code was loaded but not run (a run was going, so its run was dropped): the slow
    # run's result then showed under the example's code, marked stale, and was checked against the
    # example's expected values: "Differs from the example's expected values" on a correct example.
    open_session(page, "def f(x):\n    return x\n", "f", [], ["1.0"])
    set_code(page, SLOW)
    n = runs(page)
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("progress")).to_be_visible()
    page.get_by_test_id("open-gallery").click()
    page.locator("[data-testid=gallery-item][data-id='pmap-psum']").click()
    # The slow run is cancelled and the example runs, well before the slow run would have ended.
    wait_runs(page, n + 2, timeout=20_000)
    expect(page.get_by_test_id("run-label")).to_have_text("pmap(normalize, axis_name='i')")
    expect(page.get_by_test_id("expected-check")).to_have_attribute("data-status", "match")
    expect(page.get_by_test_id("stale-note")).to_be_hidden()
    expect(page.get_by_test_id("progress")).to_be_hidden()
