"""lax.reduce with a general computation is JAX's generic ``reduce`` primitive, and the generic
``reduce_window`` has JAX's jvp (values, programs and refusals against JAX in
tests/jax_reference/snippets_general_reduce.py, their refusals word for word in
test_jax_reference); here their derivatives against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import lax
from engine.test_util import check_grads

X = np.arange(12, dtype=np.float32).reshape(3, 4) / 7 + 0.5


def _grow(x):  # associative, identity 0 and no primitive of its own: (1 + a)(1 + b) - 1
    return lax.reduce(x, np.float32(0.0), lambda a, b: a + b + a * b, (1,))


def _pair(x, y):
    return lax.reduce((x, y), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (0,))


@pytest.mark.parametrize("n", [1, 4, 5])
def test_derivatives_match_finite_differences(n):
    x = X[:, :n] / 4
    np.testing.assert_allclose(_grow(x), np.prod(1 + x.astype(np.float64), 1) - 1, rtol=1e-5)
    check_grads(_grow, (x,), order=2)
    check_grads(_pair, (X[:n].T, 0.8 + X[:n].T / 8), order=1)
    check_grads(lambda x: lax.reduce(x, np.float32(0.7), lax.max, (0,)), (X[:n],), order=1)


def test_transforms_compose():
    g = engine.grad(lambda x: _grow(x).sum())
    want = g(X / 4)
    np.testing.assert_allclose(engine.jit(g)(X / 4), want, rtol=1e-6)
    np.testing.assert_allclose(engine.vmap(g)(np.stack([X / 4, X / 8]))[0], want, rtol=1e-6)
    np.testing.assert_allclose(engine.jacfwd(lambda x: _grow(x).sum())(X / 4), want, rtol=1e-5)
    np.testing.assert_allclose(engine.jit(engine.vmap(_grow))(np.stack([X, X])), [_grow(X)] * 2, rtol=1e-6)


def test_reduce_window_forward_derivatives_match_finite_differences():
    def prod(v):  # (a generic reduce_window: mul, padded and base-dilated)
        return lax.reduce_window(v, np.float32(1.0), lax.mul, (2, 2), (1, 2), "SAME", base_dilation=(2, 1))

    def peak(v):  # (max from an init that is not its identity)
        return lax.reduce_window(v, np.float32(0.9), lax.max, (2, 2), (1, 1), ((1, 0), (0, 1)))

    check_grads(prod, (X / 2,), order=2, modes=("fwd",))
    check_grads(peak, (X,), order=1, modes=("fwd",))
