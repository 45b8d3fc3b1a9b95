"""Browser tests for the IR panel on typical programs: node labels as make_jaxpr prints them and
legible at the zoom "fit" picks, equations inside sub-jaxprs (scan and while bodies, cond branches,
a body printed once at the top as `let jaxpr = ...`) linking graph and text both ways, and a stage
whose tracing failed shown as its text alone."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from bench.bench_ir_page import NESTED_MLP_CODE, wait_graph

from .conftest import needs_runner
from .test_playground import GRAD, open_session

MLP = NESTED_MLP_CODE
MLP_ARGS = ["params", "jnp.ones((5, 3))"]

TANH = """import jax.numpy as jnp

def tanh(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)
"""

# The on-screen size of a node's sub-line ("line 6") and label: font size times the canvas's zoom.
SCREEN_FONT = """(sel) => {
  const canvas = document.querySelector('.graph-canvas');
  const k = canvas.getBoundingClientRect().width / canvas.offsetWidth;
  return parseFloat(getComputedStyle(document.querySelector(sel)).fontSize) * k;
}"""


@needs_runner
def test_node_labels_print_params_as_make_jaxpr_does_and_stay_legible(page: Page):
    open_session(page, TANH, "tanh", [GRAD], ["1.0"], panel="ir")
    wait_graph(page)
    node = page.locator("[data-testid=ir-node][data-primitive=integer_pow]")
    expect(node.locator(".node-label")).to_have_text("integer_pow[y=-2]")
    expect(node.locator(".node-sub")).to_have_text("line 5")
    # The tooltip is the equation as the text prints it, without the types (grad's unread primal
    # output prints as `_`, which takes no name: make_jaxpr's text).
    assert node.locator("title").first.text_content().startswith("f = integer_pow[y=-2] e"), node.inner_html()
    expect(page.get_by_test_id("ir-text")).to_contain_text("f:f32[] = integer_pow[y=-2] e")
    # A bigger graph at the zoom "fit" picks: labels of 10 px, sub-lines of 9 px on screen at least.
    page.goto("about:blank")
    open_session(page, MLP, "loss", [GRAD], MLP_ARGS, panel="ir")
    wait_graph(page)
    page.get_by_test_id("graph-fit").click()
    label = page.evaluate(SCREEN_FONT, "[data-testid=ir-node] .node-label")
    sub = page.evaluate(SCREEN_FONT, "[data-testid=ir-node] .node-sub")
    assert label >= 10 and sub >= 9, (label, sub)
    # Long params are cut, with the whole equation in the tooltip.
    page.get_by_test_id("graph-expand-all").click()
    wait_graph(page)
    dot = page.locator("[data-testid=ir-node][data-primitive=dot_general]").first
    text = dot.locator(".node-label").text_content()
    assert text.startswith("dot_general[dimension_numbers=(") and text.endswith("…") and len(text) <= 34, text
    assert "preferred_element_type=float32" in dot.locator("title").first.text_content()


@needs_runner
def test_equations_inside_sub_jaxprs_link_graph_and_text_both_ways(page: Page):
    open_session(page, MLP, "loss", [GRAD], MLP_ARGS, panel="ir")
    wait_graph(page)
    text = page.get_by_test_id("ir-text")
    expect(text).to_have_attribute("data-complete", "true")
    # The scan body prints once at the top (`let jaxpr = { lambda ...`), folded: its lines print
    # the scan's nested equations.
    page.get_by_test_id("ir-unfold-all").click()
    line = text.locator(".jaxpr-line.eqn", has_text="integer_pow[y=2]")
    expect(line).to_have_count(1)
    line.click()
    # The graph opens the scan to show it, selected; the editor marks the user's line.
    selected = page.locator("[data-testid=ir-graph] .node.selected")
    expect(selected).to_have_count(1)
    expect(selected).to_have_attribute("data-primitive", "integer_pow")
    expect(selected).to_be_in_viewport()
    expect(line).to_have_class(re.compile(r"\bselected\b"))
    expect(page.locator(".cm-linked-line")).to_contain_text("mlp(params, xi) ** 2")
    # The other way, with every block folded again: a while loop's condition (a one-line jaxpr
    # inside a param) found in the graph selects its text line, unfolded and scrolled into view.
    page.get_by_role("button", name="fold all", exact=True).click()
    search = page.get_by_test_id("graph-search")
    search.fill("lt")
    search.press("Enter")
    expect(selected).to_have_attribute("data-primitive", "lt")
    picked = text.locator(".jaxpr-line.selected")
    expect(picked).to_have_count(1)
    expect(picked).to_contain_text("cond_jaxpr={ lambda ;")
    expect(picked).to_be_in_viewport()
    # A cond branch's equation, in the text inline under the cond.
    search.fill("empty2")
    search.press("Enter")
    expect(picked).to_have_count(1)
    expect(picked).to_contain_text("= empty2[dtype=float32")
    expect(picked).to_be_visible()


ERR = """import jax.numpy as jnp

def f(x):
    y = jnp.ones(3) @ jnp.ones(4)
    return y + x
"""


@needs_runner
def test_a_stage_whose_tracing_failed_is_its_text_across_the_panel(page: Page):
    open_session(page, ERR, "f", [GRAD], ["1.0"], panel="ir")
    page.get_by_test_id("tab-ir").click()
    page.get_by_test_id("stage-tab").last.click()
    pane = page.get_by_test_id("ir-text-pane")
    expect(pane).to_contain_text("tracing failed: TypeError")
    # No graph, and none of the switches that would act on one.
    expect(page.get_by_test_id("ir-graph")).to_have_count(0)
    expect(page.get_by_role("button", name="Both", exact=True)).to_have_count(0)
    expect(page.get_by_test_id("diff-base")).to_have_count(0)
    expect(page.get_by_test_id("heat-flops")).to_have_count(0)
    widths = page.evaluate(
        """() => [document.querySelector('[data-testid=ir-text-pane]').getBoundingClientRect().width,
                  document.querySelector('[data-testid=panel-body]').getBoundingClientRect().width]"""
    )
    assert widths[0] >= widths[1] - 4, widths


BOX = """(e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }"""


def inside(inner, outer) -> bool:
    return (
        inner[0] >= outer[0] - 1
        and inner[1] >= outer[1] - 1
        and inner[2] <= outer[2] + 1
        and inner[3] <= outer[3] + 1
    )


@needs_runner
def test_an_opened_while_or_cond_shows_each_sub_jaxpr_in_a_box_named_by_its_param(page: Page):
    open_session(page, MLP, "loss", [GRAD], MLP_ARGS, panel="ir")
    wait_graph(page)
    graph = page.get_by_test_id("ir-graph")
    graph.locator("[data-testid=ir-node][data-primitive=while]").dblclick()
    wait_graph(page)
    subs = graph.locator("[data-testid=ir-sub]")
    expect(subs).to_have_count(2)
    body = graph.locator("[data-testid=ir-sub]", has_text="body_jaxpr").locator("rect").first.evaluate(BOX)
    cond = graph.locator("[data-testid=ir-sub]", has_text="cond_jaxpr").locator("rect").first.evaluate(BOX)
    lt = graph.locator("[data-testid=ir-node][data-primitive=lt] rect").first.evaluate(BOX)
    add = graph.locator("[data-testid=ir-node][data-primitive=add] rect").first.evaluate(BOX)
    assert inside(lt, cond) and not inside(lt, body), (lt, cond, body)
    assert inside(add, body) and not inside(add, cond), (add, body, cond)
    # The open box's label (`while[body_nconsts=0 cond_nconsts=0]`) is cut clear of its toggle.
    box = graph.locator("[data-testid=ir-node][data-primitive=while]")
    label = box.locator(".node-label").first.evaluate(BOX)
    toggle = box.get_by_test_id("graph-toggle").evaluate(BOX)
    assert label[2] <= toggle[0], (label, toggle, box.locator(".node-label").first.text_content())
    # A cond's two branches likewise (the first cond, whose branches differ).
    graph.locator("[data-testid=ir-node][data-primitive=cond]").first.dblclick()
    wait_graph(page)
    expect(graph.locator("[data-testid=ir-sub]")).to_have_count(4)
    names = graph.locator("[data-testid=ir-sub] .node-label").all_text_contents()
    assert sorted(names) == ["body_jaxpr", "branches[0]", "branches[1]", "cond_jaxpr"], names


@needs_runner
def test_switching_view_heat_or_diff_keeps_what_was_opened_and_picked(page: Page):
    open_session(page, MLP, "loss", [GRAD], MLP_ARGS, panel="ir")
    wait_graph(page)
    graph = page.get_by_test_id("ir-graph")
    graph.locator("[data-testid=ir-node][data-primitive=while]").dblclick()
    wait_graph(page)
    graph.locator("[data-testid=ir-node][data-primitive=lt]").click()
    selected = page.locator("[data-testid=ir-graph] .node.selected")
    expect(selected).to_have_attribute("data-primitive", "lt")
    for switch in (
        lambda: page.get_by_test_id("heat-flops").click(),
        lambda: page.get_by_test_id("diff-base").select_option("none"),
        lambda: page.get_by_role("button", name="Text", exact=True).click(),
        lambda: page.get_by_role("button", name="Both", exact=True).click(),
    ):
        switch()
        if page.get_by_test_id("ir-graph").count():
            wait_graph(page)
            # The while stays open, its condition's `lt` still picked.
            expect(page.locator("[data-testid=ir-graph] [data-testid=ir-sub]")).to_have_count(2)
            expect(selected).to_have_attribute("data-primitive", "lt")
        picked = page.locator("[data-testid=ir-text][data-complete=true] .jaxpr-line.selected")
        expect(picked).to_have_count(1)
        expect(picked).to_contain_text("= lt ")
    # Another stage starts afresh.
    page.get_by_test_id("stage-tab").first.click()
    wait_graph(page)
    expect(page.locator("[data-testid=ir-graph] .node.selected")).to_have_count(0)
