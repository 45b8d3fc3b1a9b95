"""The eager fast paths of common jnp operations on concrete arrays (sums, means, maxima, unary
float functions, where) give the general path's results to the bit: the same values, dtype, shape
and weak type, and the same errors. No timings here (bench/bench_eager.py measures them)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import engine.numpy as jnp
from engine import core
from engine.lax import sum_order
from engine.numpy import _eager_reductions, _selection

RNG = np.random.default_rng(0)


def _data(shape, dtype):
    x = (RNG.normal(size=shape) * RNG.choice([1e-3, 1.0, 1e4], size=shape)).astype(dtype)
    flat = x.reshape(-1)
    if flat.size > 4:
        flat[1], flat[3] = -0.0, np.nan
    return x


def _same(a, b):
    return (
        type(a) is type(b)
        and (a.dtype, a.shape, a.weak_type) == (b.dtype, b.shape, b.weak_type)
        and np.asarray(a).tobytes() == np.asarray(b).tobytes()
    )


def _outcome(f):
    try:
        return f(), None
    except Exception as e:  # noqa: BLE001 - the same error is part of the same result
        return None, f"{type(e).__name__}: {e}"


def _check(f, general):
    (fast, err), (slow, slow_err) = _outcome(f), _outcome(general)
    assert err == slow_err
    if err is None:
        assert _same(fast, slow)


@pytest.mark.parametrize(
    "shape", [(), (1,), (7,), (100,), (1000,), (3, 4), (32, 32), (7, 1), (2, 3, 4), (0, 3)]
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("weak", [False, True])
def test_reductions_match_the_general_path(monkeypatch, shape, dtype, weak):
    x = core.Array(_data(shape, dtype), weak)
    calls = [
        lambda ax, kd: jnp.sum(x, ax, keepdims=kd),
        lambda ax, kd: jnp.mean(x, ax, keepdims=kd),
        lambda ax, kd: jnp.max(x, ax, keepdims=kd),
        lambda ax, kd: jnp.min(x, ax, keepdims=kd, initial=0.5),
    ]
    for call, axis, keepdims in itertools.product(calls, [None, (), 0, -1, (0, -1)], [False, True]):
        with monkeypatch.context() as m:
            m.setattr(_eager_reductions, "_operand", lambda a: None)
            slow = _outcome(lambda: call(axis, keepdims))
        fast = _outcome(lambda: call(axis, keepdims))
        assert fast[1] == slow[1]
        if fast[1] is None:
            assert _same(fast[0], slow[0]), (axis, keepdims)


def test_reductions_take_the_fast_path():
    x = core.Array(_data((32, 32), np.float32))
    assert _eager_reductions.sum(x, None, False) is not None
    assert _eager_reductions.mean(x, 1, keepdims=True) is not None
    assert _eager_reductions.extreme("max", x, 1, False, -np.inf) is not None


def test_sum_order_shortcuts_match_the_loop_nest(monkeypatch):
    """``sum_f32``'s shortcuts (1-d, the last axis, a whole small matrix) against its general loop
    nest, which the 2-d shape (n, 1) with its unit axis dropped runs without them."""
    for n in [*range(1, 200), 1000, 1023, 1025, 4095]:
        x = _data((n,), np.float32)
        general = sum_order.sum_f32(x[:, None], (0, 1))
        assert _same(core.Array(sum_order.sum_f32(x, (0,))), core.Array(general)), n
    for rows, cols in itertools.product(range(1, 34, 3), range(1, 34, 4)):
        x = _data((rows, cols), np.float32)
        nest = sum_order.sum_f32(x[:, None, :], (0, 1, 2))  # (the unit axis: the general prelude)
        assert _same(core.Array(sum_order.sum_f32(x, (0, 1))), core.Array(nest)), (rows, cols)
        nest = sum_order.sum_f32(x[:, :, None], (1, 2)).reshape(rows)
        assert _same(core.Array(sum_order.sum_f32(x, (1,))), core.Array(nest)), (rows, cols)


@pytest.mark.parametrize(
    "name", ["exp", "log", "log1p", "expm1", "tanh", "sin", "cos", "sqrt", "arctan", "cosh"]
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_matches_the_general_path(name, dtype):
    values = np.concatenate(
        [RNG.normal(size=50) * 20, [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, 88.7, -100]]
    )
    f = getattr(jnp, name)
    for weak in (False, True):
        x = core.Array(values.astype(dtype), weak)

        def general():
            core.staging_anywhere[0] += 1  # (the fast paths' off switch)
            try:
                return f(x)
            finally:
                core.staging_anywhere[0] -= 1

        _check(lambda: f(x), general)


@pytest.mark.parametrize(
    "shapes",
    [((5,), (5,), (5,)), ((5,), (5,), ()), ((), (5,), (5,)), ((3, 1), (1, 4), (4,)), ((3,), (4,), (4,))],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_where_matches_the_general_path(monkeypatch, shapes, dtype):
    cs, xs, ys = shapes
    c = core.Array(RNG.random(cs) > 0.5)
    for xw, yw, kinds in itertools.product([False, True], [False, True], ["aa", "af", "fa", "a32"]):
        x = core.Array(_data(xs, dtype), xw) if kinds[0] == "a" else 1e40
        y = core.Array(_data(ys, np.float32 if kinds == "a32" else dtype), yw) if kinds[1] != "f" else -0.0
        with monkeypatch.context() as m:
            m.setattr(_selection, "_eager_where", lambda *a: None)
            slow = _outcome(lambda: jnp.where(c, x, y))
        fast = _outcome(lambda: jnp.where(c, x, y))
        assert fast[1] == slow[1]
        if fast[1] is None:
            assert _same(fast[0], slow[0]), (xw, yw, kinds)
    assert _selection._eager_where(c, core.Array(_data(cs, dtype)), 0.0) is not None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stop_gradient_and_promotion_match_the_general_path(dtype):
    from engine import lax
    from engine.numpy._promote import promote_args_inexact

    for weak in (False, True):
        x = core.Array(_data((3, 4), dtype), weak)

        def general(f):
            core.staging_anywhere[0] += 1  # (the fast paths' off switch)
            try:
                return f()
            finally:
                core.staging_anywhere[0] -= 1

        _check(lambda: lax.stop_gradient(x), lambda: general(lambda: lax.stop_gradient(x)))
        assert promote_args_inexact("f", x)[0] is general(lambda: promote_args_inexact("f", x))[0] is x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_staged_functions_called_directly_match_the_general_path(dtype):
    """A jnp function JAX jits, called eagerly on concrete arrays, floats and Nones, runs its body
    at once (``_staged``): as the wrapper's checks would have it."""
    import engine

    x = core.Array(_data((4, 5), dtype))
    calls = [
        lambda: jnp.clip(x, -1.0, 1.0),
        lambda: jnp.clip(x, None, 0.5),
        lambda: engine.nn.relu(x),
        lambda: engine.nn.sigmoid(x),
        lambda: jnp.where(x > 0, x, 0.0),
    ]
    for call in calls:

        def general():
            core.staging_anywhere[0] += 1  # (the fast paths' off switch)
            try:
                return call()
            finally:
                core.staging_anywhere[0] -= 1

        _check(call, general)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (7,), (100,), (3, 4)])
def test_clip_matches_the_general_path(dtype, shape):
    # (_selection._eager_clip: with no zero and no NaN among the operands, numpy's maximum and
    # minimum at once; else the body's own fast steps)
    bounds = [None, -1.0, 1.0, 0.0, -0.0, np.nan, 1e40, -1e40, 1e-50, 2.5e-45, 0.25]
    plain = np.asarray(RNG.normal(size=shape) + 0.5, dtype)
    plain[plain == 0] = 1
    for data, weak in itertools.product((plain, _data(shape, dtype)), (False, True)):
        x = core.Array(data, weak)
        for lo, hi in itertools.product(bounds, bounds):

            def general():
                core.staging_anywhere[0] += 1  # (the fast paths' off switch)
                try:
                    return jnp.clip(x, lo, hi)
                finally:
                    core.staging_anywhere[0] -= 1

            _check(lambda: jnp.clip(x, lo, hi), general)
    assert _selection._eager_clip(core.Array(plain), -1.0, 1.0) is not None
    assert _selection._eager_clip(core.Array(plain), None, 1.0) is not None


def test_a_float32_vector_sums_without_the_dispatch(monkeypatch):
    # (_eager_reductions.sum: the whole of a float32 vector goes straight to sum_order's 1-d sum,
    # which reduce_sum's impl comes to; the general path's results are checked above)
    from engine.lax import reductions

    x = core.Array(_data((100,), np.float32), True)
    want = [jnp.sum(x, axis, keepdims=kd) for axis in (None, 0, -1) for kd in (False, True)]
    monkeypatch.setitem(core.impl_rules, reductions.reduce_sum_p, None)
    got = [jnp.sum(x, axis, keepdims=kd) for axis in (None, 0, -1) for kd in (False, True)]
    assert all(_same(g, w) for g, w in zip(got, want))


@pytest.mark.parametrize("shape", [(32, 32), (7,), (3, 4, 5), (1, 5), (2, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_softmax_matches_the_general_path(shape, dtype):
    # (nn._eager_log_softmax: the body's impls without their dispatch, its max(-inf, m) left out)
    import engine

    for weak, axis in itertools.product((False, True), (-1, 0, 1, -2, 3)):
        data = _data(shape, dtype)
        if data.size > 6:
            data.reshape(-1)[5:7] = -np.inf, np.inf
        x = core.Array(data, weak)

        def general():
            core.staging_anywhere[0] += 1  # (the fast paths' off switch)
            try:
                return engine.nn.log_softmax(x, axis)
            finally:
                core.staging_anywhere[0] -= 1

        _check(lambda: engine.nn.log_softmax(x, axis), general)
    assert engine.nn._eager_log_softmax(core.Array(_data((4, 5), dtype))) is not None


@pytest.mark.parametrize("mkn", [(32, 32, 32), (1, 1, 1), (3, 0, 4), (5, 7, 1), (1, 9, 6), (70, 130, 9)])
def test_matmul_matches_the_general_path(mkn):
    # (_contract._eager_matmul: two float32 matrices, dot_general's impl without the layers)
    from engine.numpy import _contract

    m, k, n = mkn
    for wa, wb in itertools.product((False, True), (False, True)):
        a, b = core.Array(_data((m, k), np.float32), wa), core.Array(_data((k, n), np.float32), wb)

        def general():
            core.staging_anywhere[0] += 1  # (the fast paths' off switch)
            try:
                return a @ b
            finally:
                core.staging_anywhere[0] -= 1

        _check(lambda: a @ b, general)
        _check(lambda: jnp.matmul(a, b), general)
    pair = core.Array(_data((2, 3), np.float32)), core.Array(_data((3, 4), np.float32))
    assert _contract._eager_matmul(*pair) is not None
