"""float32 matrix products give JAX 0.10.2's bits (engine/lax/dot_order.py: XLA's summation order
for vector . vector (batched too), matrix . vector, vector . matrix and YNNPACK's kernels with their
k chunks), eagerly and under jit, against results recorded from JAX
(tests/jax_reference/record_dot_order.py); the numba loops and the numpy steps give the same bits."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.lax import dot_order
from engine.lax.dot_order import xla_dot

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "jax_reference"))
from record_dot_order import CASES, digest, function, operands  # noqa: E402
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
    recorded = RECORDED[f"{mode} {name}"]
    got = got.ravel()
    if recorded.startswith("sha256:"):  # (large outputs: the digest of JAX's bits)
        assert digest(got) == recorded, got[:3]
        return
    want = unpack(recorded)
    assert (got.view(np.int32) == want.view(np.int32)).all(), (got[got != want][:3], want[got != want][:3])


def test_blas_differs_where_the_order_matters():
    # (the recorded bits are not BLAS's: the ordered sum is what makes these cases pass)
    differing = 0
    for name in (
        "mv50x30",
        "vv1000",
        "mm8x100x8 (tile_k 4)",
        "vm30x50",
        "mm100x100x100 (tile_k 4)",
        "mm1000x1000x1000 (k chunks)",
    ):
        x, y = operands(name)
        got = np.asarray(np.dot(x, y), np.float32).ravel()
        recorded = RECORDED[f"eager {name}"]
        differing += (
            digest(got) != recorded
            if recorded.startswith("sha256:")
            else not np.array_equal(got, unpack(recorded))
        )
    assert differing >= 4


def test_unknown_orders_fall_back_to_blas():
    a = np.ones((1, 20, 5), np.float32)
    assert xla_dot(a.astype(np.float64), a.astype(np.float64).swapaxes(1, 2)) is None
    assert xla_dot(np.ones((2, 1, 50), np.float32), np.ones((2, 50, 9), np.float32)) is None


@pytest.mark.parametrize(
    "shape",
    [
        (1, 1, 40, 1),
        (1, 1, 5000, 1),
        (1, 13, 30, 1),
        (3, 9, 20, 1),
        (1, 1, 30, 70),
        (1, 5, 6, 7),
        (1, 8, 100, 8),
        (1, 64, 100, 32),
        (2, 60, 700, 70),
        (1, 20, 1000, 24),
        (1, 70, 9, 130),
        (1, 3, 1100, 130),
        (1, 70, 1027, 17),  # (tile_k 2: two k chunks and the odd step; 70 rows: a partial tile)
        (2, 51, 2051, 9),  # (tile_k 4: two k chunks and the 3 steps left)
        (4, 1, 40, 1),
        (3, 1, 20, 1),
    ],
)
def test_numba_and_numpy_give_the_same_bits(shape, monkeypatch):
    rng = np.random.default_rng(sum(shape))
    a, b = (
        rng.standard_normal(shape[:3]).astype(np.float32),
        rng.standard_normal((shape[0], *shape[2:])).astype(np.float32),
    )
    a.ravel()[::97] = np.inf
    b.ravel()[5::89] = -0.0
    fast = xla_dot(a, b)
    monkeypatch.setattr(dot_order, "_numba_dot", False)
    slow = xla_dot(a, b)
    assert fast is not None and slow is not None
    assert (fast.view(np.int32) == slow.view(np.int32)).all()


def test_a_true_fused_multiply_add():
    # 1 + 2**-23 + (1 + 2**-23) * 2**-24 * (1 - 2**-23): in float64 the sum rounds to a float32 tie
    # (which rounds up); once rounded it is below the tie (the fma's result is 1 + 2**-23)
    one = np.float32(1 + 2**-23)
    x = np.array([[[1, one]]], np.float32)
    y = np.array([[[one], [np.float32(2**-24 * (1 - 2**-23))]]], np.float32).reshape(1, 2, 1)
    want = np.float32(1 + 2**-23)
    assert xla_dot(x, np.repeat(y, 2, axis=2))[0, 0, 0] == want  # (the kernels' fma)
    assert dot_order._fma(x[0, 0, 1], y[0, 1, 0], x[0, 0, 0] * y[0, 0, 0]) == want  # (the numpy fma)


@pytest.mark.parametrize(
    "shape, u, chunk",
    [
        ((1, 70, 1027, 17), 2, 512),  # (two k chunks, the odd step, a partial row tile and band)
        ((2, 51, 2051, 9), 4, 1024),  # (a batch; the 3 steps left over)
        ((1, 9, 33, 70), 1, 32768),
        ((1, 40, 300, 64), 4, 2048),  # (whole tiles only)
    ],
)
def test_a_transposed_b_is_packed_as_it_is(shape, u, chunk, monkeypatch):
    # x @ y.T: b reaches the kernel as y (k minor) and is packed from it, not first copied
    # transposed; the same bits as from a row-major b and as the numpy steps
    from engine.backends import numba_dot

    nb, m, k, n = shape
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal((nb, m, k)).astype(np.float32)
    y = rng.standard_normal((nb, n, k)).astype(np.float32)
    a.ravel()[::97] = np.inf
    y.ravel()[5::89] = -0.0
    y.ravel()[7::301] = np.nan
    bands = [(0, n, u, chunk)]
    seen = []
    kernel = numba_dot.matmul
    monkeypatch.setattr(numba_dot, "matmul", lambda *args: seen.append(args[-1]) or kernel(*args))
    packed = dot_order.banded_dot(a, y.swapaxes(1, 2), bands)
    assert seen == [True]
    stored = dot_order.banded_dot(a, np.ascontiguousarray(y.swapaxes(1, 2)), bands)
    assert seen == [True, False]
    assert (packed.view(np.int32) == stored.view(np.int32)).all()  # (NaN signs too)
    monkeypatch.setattr(dot_order, "_numba_dot", False)
    slow = dot_order.banded_dot(a, y.swapaxes(1, 2), bands)
    # (the NaN an inf * 0 meets is the numpy steps' own: only where they are is compared)
    assert (np.isnan(slow) == np.isnan(packed)).all()
    same = ~np.isnan(slow)
    assert (packed[same].view(np.int32) == slow[same].view(np.int32)).all()
