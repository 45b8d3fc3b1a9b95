"""float32 matrix products give JAX 0.10.2's bits (engine/lax/dot_order.py: XLA's summation order
for vector . vector, matrix . vector, vector . matrix and YNNPACK's k-by-4 kernel for narrow
products), eagerly and under jit. Against results recorded from JAX
(tests/jax_reference/record_dot_order.py)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.lax.dot_order import xla_dot

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_dot_order import CASES, function, operands  # noqa: E402
from record_xla_f32 import unpack  # noqa: E402

RECORDED = json.loads(
    (pathlib.Path(__file__).resolve().parent / "jax_reference" / "dot_order.json").read_text()
)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", list(CASES))
def test_dot_sums_as_in_jax(name, mode):
    x, y = operands(name)
    f = function(jax, jnp, CASES[name][2])
    got = np.asarray(f(jnp.asarray(x), jnp.asarray(y)) if mode == "eager" else jax.jit(f)(x, y), np.float32)
    want = unpack(RECORDED[f"{mode} {name}"])
    got = got.ravel()
    assert (got.view(np.int32) == want.view(np.int32)).all(), (got[got != want][:3], want[got != want][:3])


def test_blas_differs_where_the_order_matters():
    # (the recorded bits are not BLAS's: the ordered sum is what makes these cases pass)
    differing = 0
    for name in ("mv50x30", "vv1000", "mm8x100x8 (tile_k 4)", "vm30x50", "mm100x100x100 (tile_k 4)"):
        x, y = operands(name)
        want = unpack(RECORDED[f"eager {name}"])
        differing += not np.array_equal(np.asarray(np.dot(x, y), np.float32).ravel(), want)
    assert differing >= 3


def test_unknown_orders_fall_back_to_blas():
    a = np.ones((1, 600, 600), np.float32)
    assert xla_dot(a, a) is None  # (YNNPACK blocks k here in a way not followed)
    assert xla_dot(a.astype(np.float64), a.astype(np.float64)) is None
    assert xla_dot(np.ones((1, 1, 5000), np.float32), np.ones((1, 5000, 1), np.float32)) is None
