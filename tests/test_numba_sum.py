"""The numba loops of the in-order float32 sums of products (``engine/backends/numba_sum.py``)
give the numpy form's bits (``lax/sum_order._in_order`` without numba): random rows, with and
without a starting value, squares, signed zeros, infinities, NaNs and subnormals."""

import sys

import numpy as np
import pytest

from conftest import numba_backend
from engine.lax import sum_order

numba_backend()


def _numpy_form(monkeypatch, *args):
    with monkeypatch.context() as m, np.errstate(all="ignore"):
        m.setitem(sys.modules, "engine.backends.numba_sum", None)  # (import fails: the numpy loop)
        return sum_order._in_order(*args)


@pytest.mark.parametrize("square", [False, True])
@pytest.mark.parametrize("with_start", [False, True])
def test_numba_loops_give_the_numpy_forms_bits(monkeypatch, square, with_start):
    rng = np.random.default_rng(7)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -3e-39, 3e38], np.float32)
    for shape in [(1, 9), (5, 33), (3, 4, 100), (64, 17), (2, 1024)]:
        x = (rng.standard_normal(shape) * rng.choice([1e-3, 1.0, 1e3], shape)).astype(np.float32)
        x.flat[rng.integers(0, x.size, 3)] = rng.choice(specials, 3)
        y = x if square else rng.standard_normal(shape).astype(np.float32)
        start = rng.standard_normal(shape[:-1]).astype(np.float32) if with_start else None
        got = sum_order._in_order(x, start, y, square)
        want = _numpy_form(monkeypatch, x, start, y, square)
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32), err_msg=str(shape))
