"""The Devices panel on 2-D meshes: devices laid out as the mesh grid with the axis names on its
sides, each device's block, and collectives drawn only between the devices that exchanged."""

from __future__ import annotations

import json

import numpy as np
from playwright.sync_api import Page, expect

from .conftest import needs_runner
from .test_playground import expect_ok, open_session, run_and_wait

SHARD_MAP_PSUM_Y = """import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType

mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)

def f(a):
    return jax.lax.psum(jnp.sin(a) * 2.0, 'y')

x = jnp.arange(32.0).reshape(8, 4)
out = jax.shard_map(f, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))(x)
"""

JIT_NAMED_SHARDING = """import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('x', 'y'))
x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P('x', 'y')))
out = jax.jit(lambda a: a.sum(axis=1))(x)
"""

X = np.arange(32.0).reshape(8, 4)


def blocks():
    return [b for row in np.split(X, 4, 0) for b in np.split(row, 2, 1)]


def card_boxes(page: Page) -> dict[tuple[int, int], dict]:
    out = {}
    for card in page.get_by_test_id("device-card").all():
        r, c = (int(v) for v in card.get_attribute("data-coords").split(","))
        out[(r, c)] = card.bounding_box()
    return out


def open_devices(page: Page, code: str) -> None:
    open_session(page, code)
    expect_ok(page)
    page.get_by_test_id("tab-devices").click()
    expect(page.get_by_test_id("device-card")).to_have_count(8)


@needs_runner
def test_shard_map_on_a_4x2_mesh_is_drawn_as_the_mesh_with_psum_over_y_in_rows(page: Page, artifacts):
    open_devices(page, SHARD_MAP_PSUM_Y)
    facts = page.get_by_test_id("mesh-facts")
    expect(facts).to_contain_text("mesh 4 × 2")
    expect(facts).to_contain_text("'x' (4) × 'y' (2)")
    expect(facts).to_contain_text("shard_map")
    # Axis names on the sides: y over the columns, x down the rows.
    expect(page.get_by_test_id("mesh-col")).to_have_text(["y=0", "y=1"])
    expect(page.get_by_test_id("mesh-row")).to_have_text(["x=0", "x=1", "x=2", "x=3"])
    boxes = card_boxes(page)
    for r in range(4):  # the grid: rows share a top, columns share a left edge
        assert abs(boxes[(r, 0)]["y"] - boxes[(r, 1)]["y"]) < 1 and boxes[(r, 0)]["x"] < boxes[(r, 1)]["x"]
        if r:
            assert (
                boxes[(r, 0)]["y"] > boxes[(r - 1, 0)]["y"]
                and abs(boxes[(r, 0)]["x"] - boxes[(0, 0)]["x"]) < 1
            )
    # Each device shows its own block and what it computed.
    for i, block in enumerate(blocks()):
        card = page.locator(f"[data-testid=device-card][data-device='{i}']")
        r, c = divmod(i, 2)
        expect(card.get_by_test_id("device-coords")).to_have_text(f"x={r} y={c}")
        got_in = json.loads(card.get_by_test_id("shard-in").get_attribute("data-json"))
        np.testing.assert_array_equal(np.array(got_in), block)
        got_out = json.loads(card.get_by_test_id("shard-out").get_attribute("data-json"))
        row = blocks()[2 * r : 2 * r + 2]
        np.testing.assert_allclose(np.array(got_out), sum(np.sin(b) * 2 for b in row), rtol=1e-5)
    # The psum over 'y' joins the two devices of each row, and nothing else.
    chip = page.get_by_test_id("collective")
    expect(chip).to_have_count(1)
    expect(chip).to_contain_text("psum over 'y'")
    expect(chip).to_contain_text("4 groups of 2 devices")
    hubs = page.get_by_test_id("collective-hub")
    expect(hubs).to_have_count(4)
    assert sorted(hubs.evaluate_all("els => els.map(e => e.dataset.devices)")) == ["0,1", "2,3", "4,5", "6,7"]
    cards = list(boxes.values())
    for k, hub in enumerate(hubs.all()):
        h = hub.bounding_box()
        row = [boxes[(k, 0)], boxes[(k, 1)]]
        centre = h["x"] + h["width"] / 2
        assert row[0]["x"] + row[0]["width"] <= centre <= row[1]["x"], (h, row)  # between its row's cards
        for c in cards:  # and off every card's text
            overlap_x = min(h["x"] + h["width"], c["x"] + c["width"]) - max(h["x"], c["x"])
            overlap_y = min(h["y"] + h["height"], c["y"] + c["height"]) - max(h["y"], c["y"])
            assert overlap_x <= 0 or overlap_y <= 0, (h, c)
    page.screenshot(path=str(artifacts / "devices-mesh-4x2.png"))


@needs_runner
def test_jit_of_a_named_sharding_input_shows_the_mesh_and_each_devices_block(page: Page, artifacts):
    open_devices(page, JIT_NAMED_SHARDING)
    facts = page.get_by_test_id("mesh-facts")
    expect(facts).to_contain_text("mesh 4 × 2")
    expect(facts).to_contain_text("jit")
    expect(page.get_by_test_id("mesh-col")).to_have_text(["y=0", "y=1"])
    for i, block in enumerate(blocks()):
        card = page.locator(f"[data-testid=device-card][data-device='{i}']")
        got_in = json.loads(card.get_by_test_id("shard-in").get_attribute("data-json"))
        np.testing.assert_array_equal(np.array(got_in), block)
    chip = page.get_by_test_id("collective")
    expect(chip).to_have_count(1)
    expect(chip).to_contain_text("psum over 'y'")
    page.screenshot(path=str(artifacts / "devices-jit-named-sharding.png"))


BAD_AXIS = """import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType

mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)

def f(a):
    return jax.lax.psum(a, 'z')

x = jnp.arange(32.0).reshape(8, 4)
out = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y')))(x)
"""


@needs_runner
def test_collective_over_an_unknown_axis_is_an_error_at_the_users_line(page: Page, artifacts):
    open_session(page, BAD_AXIS)
    box = page.get_by_test_id("error-box")
    expect(box).to_be_visible()
    expect(box).to_have_attribute("data-type", "NameError")
    expect(page.get_by_test_id("error-message")).to_contain_text("unbound axis name: z")
    expect(page.get_by_test_id("error-suggestion")).to_contain_text("['x', 'y']")
    expect(page.get_by_test_id("error-line")).to_have_attribute("data-line", "8")
    expect(page.locator(".cm-error-line")).to_contain_text("jax.lax.psum(a, 'z')")
    page.screenshot(path=str(artifacts / "mesh-unknown-axis-error.png"))


@needs_runner
def test_gallery_mesh_example_opens_on_its_devices(page: Page, artifacts):
    page.goto("/")
    page.get_by_test_id("open-gallery").click()
    run_and_wait(page, page.locator("[data-testid=gallery-item][data-id='mesh-shard-map']").click)
    expect_ok(page)
    expect(page.get_by_test_id("expected-check")).to_have_attribute("data-status", "match")
    page.get_by_test_id("tab-devices").click()
    expect(page.get_by_test_id("device-card")).to_have_count(8)
    expect(page.get_by_test_id("mesh-row")).to_have_count(4)
    expect(page.get_by_test_id("collective-hub")).to_have_count(4)
    page.screenshot(path=str(artifacts / "gallery-mesh-shard-map-devices.png"))
