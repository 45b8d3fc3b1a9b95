"""Browser tests for page defects found in review, one test per defect: the editor's cost marks
outlived the IR tab, the graph legend covered nodes, the Devices mesh scrolled sideways on a phone."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from bench.bench_ir_page import wait_graph

from .conftest import needs_runner
from .test_ir_views import VMAP_LOSS, VMAP_STACK
from .test_playground import open_session, run_and_wait


@needs_runner
def test_editor_cost_marks_belong_to_the_ir_tab(page: Page, context):
    open_session(page, VMAP_LOSS, "loss", VMAP_STACK, ["w", "xs"], panel="ir")
    wait_graph(page)
    marks = page.locator(".cm-cost-heat")
    expect(marks).not_to_have_count(0)
    shown = marks.count()
    # Leaving the IR tab takes its stage's costs out of the editor; coming back shows them again.
    for other in ("output", "timings"):
        page.get_by_test_id(f"tab-{other}").click()
        expect(marks).to_have_count(0)
        page.get_by_test_id("tab-ir").click()
        wait_graph(page)
        expect(marks).to_have_count(shown)
    # A run started from another tab leaves none behind; back on IR the new run's are there.
    page.get_by_test_id("tab-output").click()
    run_and_wait(page)
    expect(marks).to_have_count(0)
    page.get_by_test_id("tab-ir").click()
    wait_graph(page)
    expect(marks).to_have_count(shown)
    # A run that fails to reach the server shows its error: the last report's marks go with it.
    context.route("**/api/run", lambda route: route.abort())
    run_and_wait(page)
    expect(page.get_by_test_id("tab-output")).to_have_attribute("aria-selected", "true")
    expect(marks).to_have_count(0)
