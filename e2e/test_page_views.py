"""Browser tests for defects in how the IR graph and the device view are drawn: the inputs' order,
the jit box's label on a phone, the collectives' lines under the device cards."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from bench.bench_ir_page import wait_graph

from .conftest import needs_runner
from .test_page_usability import JIT
from .test_page_phone_dark import PHONE
from .test_playground import open_session

THREE_INPUTS = """import jax
import jax.numpy as jnp

def f(x, y, z):
    return jnp.sin(z) * x + y
"""

# Each drawn input: the box it belongs to (its id's prefix), its place in the signature (from its
# tooltip, "input 1: b: f32[]"), and where it is on screen.
INPUTS = """() => [...document.querySelectorAll('[data-testid=ir-graph] [data-testid=ir-in]')].map((n) => {
  const r = n.getBoundingClientRect(), id = n.dataset.id;
  return {box: id.slice(0, id.lastIndexOf('in:')), index: +n.querySelector('title').textContent.match(/^input (\\d+)/)[1],
          left: r.left, right: r.right, top: Math.round(r.top)};
})"""


def inputs_by_box(page: Page) -> dict[str, list[dict]]:
    boxes: dict[str, list[dict]] = {}
    for n in page.evaluate(INPUTS):
        boxes.setdefault(n["box"], []).append(n)
    return {k: sorted(v, key=lambda n: n["index"]) for k, v in boxes.items()}


@needs_runner
def test_a_jaxprs_inputs_are_drawn_left_to_right_in_the_signatures_order(page: Page):
    # f(x, y, z) was drawn z, x, y (each input just above its first use, in rows of its own), and
    # under jit as c, b, a outside the jit box and c, a, b inside it: ELK's crossing minimisation
    # reordered them. Read as a signature, they go x, y, z on one row, in every box.
    open_session(page, THREE_INPUTS, "f", [JIT], ["1.0", "2.0", "3.0"], panel="ir")
    tabs = page.get_by_test_id("stage-tab")
    for stage in (0, 1):
        tabs.nth(stage).click()
        wait_graph(page)
        boxes = inputs_by_box(page)
        assert len(boxes) == stage + 1, boxes  # under jit: the outer graph and the jit box
        for box, ins in boxes.items():
            assert [n["index"] for n in ins] == [0, 1, 2], (stage, box, ins)
            for a, b in zip(ins, ins[1:]):
                assert a["right"] < b["left"], (stage, box, ins)
            assert len({n["top"] for n in ins}) == 1, (stage, box, ins)


# Points along every collective line, in the page's coordinates, and what is drawn on top at each:
# the line (or a hub, drawn over the lines), or something else over it. The overlays take no
# pointer events (clicks go to the cards): the lines and hubs take them for the measure only.
LINE_POINTS = """() => {
  const drawn = [...document.querySelectorAll('.collective-line, .hub')];
  drawn.forEach((o) => (o.style.pointerEvents = 'visiblePainted'));
  const cards = [...document.querySelectorAll('[data-testid=device-card]')].map((c) => c.getBoundingClientRect());
  const out = [...document.querySelectorAll('.collective-line')].map((line) => {
    const total = line.getTotalLength(), m = line.getScreenCTM();
    return Array.from({length: 21}, (_, i) => {
      const p = line.getPointAtLength((total * i) / 20).matrixTransform(m);
      const top = document.elementFromPoint(p.x, p.y);
      return {x: p.x, y: p.y, on_top: !!top && (top === line || top.classList.contains('collective-line') || !!top.closest('.hub')),
              in_card: cards.some((r) => p.x > r.left + 3 && p.x < r.right - 3 && p.y > r.top + 3 && p.y < r.bottom - 3)};
    });
  });
  drawn.forEach((o) => (o.style.pointerEvents = ''));
  return out;
}"""


RING = """import jax
import jax.numpy as jnp

def f(x):
    return jax.lax.ppermute(x, 'i', [(j, (j + 1) % 4) for j in range(4)])

out = jax.pmap(f, axis_name='i')(jnp.arange(4.0))
"""


@needs_runner
def test_collective_lines_are_drawn_over_the_device_cards_from_their_edges(page: Page):
    # The lines from each device to its collective's hub were drawn under the cards, from the
    # cards' centres: all one saw of them were stubs in the gaps between cards. A ring's arcs
    # (ppermute) likewise, the way back from the last card to the first hidden whole.
    from .test_page_defects import PSUM_AND_GATHER

    for size, code, count in (
        ({"width": 1440, "height": 900}, PSUM_AND_GATHER, 8),  # four devices to each of two hubs
        (PHONE, PSUM_AND_GATHER, 8),
        ({"width": 1440, "height": 900}, RING, 4),  # one row of four cards
    ):
        page.set_viewport_size(size)
        page.goto("about:blank")  # (a new fragment alone is no new page load)
        open_session(page, code)
        page.get_by_test_id("tab-devices").click()
        expect(page.locator(".collective-line")).to_have_count(count)
        page.get_by_test_id("devices-panel").scroll_into_view_if_needed()
        lines = page.evaluate(LINE_POINTS)
        for points in lines:
            # Seen whole: on top wherever it runs, and never across a card's content.
            assert all(p["on_top"] for p in points), (size, points)
            assert not any(p["in_card"] for p in points), (size, points)


FRAME_LABEL = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {l: r.left, t: r.top, r: r.right, b: r.bottom}; };
  const frame = document.querySelector('[data-testid=ir-graph] .node.compound.expanded[data-primitive=jit]');
  const label = frame.querySelector(':scope > .node-label');
  const l = box(label), at = document.elementFromPoint((l.l + l.r) / 2, (l.t + l.b) / 2);
  return {text: label.textContent, label: l, seen: at?.closest('.node') === frame, frame: box(frame.querySelector(':scope > rect')),
          stage: box(document.querySelector('[data-testid=ir-graph] .graph-stage')), window: {w: innerWidth, h: innerHeight}};
}"""


@needs_runner
def test_on_a_phone_the_jit_frames_title_is_in_view_and_whole(page: Page):
    # The graph opened at a readable zoom centred on its top-left node: on a phone the jit box's
    # title ("▾ jit[name=loss]") started left of the stage and showed as "e=loss]".
    from .test_page_usability import LOSS_ARGS, VMAP
    from .test_playground import GRAD, LOSS

    page.set_viewport_size(PHONE)
    page.add_init_script("localStorage.setItem('jaxplay.theme', 'dark')")
    open_session(page, LOSS, "loss", [GRAD, VMAP, JIT], LOSS_ARGS, panel="ir")
    wait_graph(page)
    page.get_by_test_id("ir-graph").scroll_into_view_if_needed()
    got = page.evaluate(FRAME_LABEL)
    label, frame, stage = got["label"], got["frame"], got["stage"]
    assert got["text"].startswith("▾ jit[name=loss") and not got["text"].endswith("…"), got
    assert frame["l"] <= label["l"] and label["r"] <= frame["r"], got
    assert stage["l"] <= label["l"] and label["r"] <= min(stage["r"], got["window"]["w"]), got
    assert stage["t"] <= label["t"] and label["b"] <= stage["b"], got
    assert got["seen"], got  # not under the find bar or the tool column
