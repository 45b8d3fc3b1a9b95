"""lax.reduce with a general computation is JAX's generic ``reduce`` primitive, and the generic
``reduce_window`` has JAX's jvp (values, programs and refusals against JAX in
tests/jax_reference/snippets_general_reduce.py, their refusals word for word in
test_jax_reference); here their derivatives against finite differences."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import engine
from engine import lax
from engine.test_util import check_grads
from conftest import numba_backend

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


# --- values: the order XLA's CPU backend folds in, eagerly and compiled -----------------------------

jit_mod = importlib.import_module("engine.jit")


@pytest.fixture(params=["numba", "interpreter"])
def backend(request, tmp_path_factory, monkeypatch):
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "kernels"))
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", False)  # (compiled now)
    jit_mod.set_backend(
        jit_mod.Interpreter() if request.param == "interpreter" else numba_backend().NumbaBackend()
    )
    yield request.param
    jit_mod.set_backend(None)


def _fold(x, f, init):
    """Index-order fold over axis 0."""
    acc = np.full(x.shape[1:], init, x.dtype)
    for row in x:
        acc = f(acc, row)
    return acc


def _xla_order(x, f, init, window=32):
    """A one-operand reduce over axis 0 as XLA's CPU backend computes it (its TreeReductionRewriter):
    longer than ``window``, windows of that length (SAME padding, which is skipped) are folded first
    and their results reduced again. JAX's values of such reduces are recorded in
    tests/jax_reference/general_reduce.json (xla_order_*)."""
    n = x.shape[0]
    if n <= window:
        return _fold(x, f, init)
    m = -(-n // window)
    lo = (m * window - n) // 2
    parts = [_fold(x[max(0, i * window - lo) : min(n, (i + 1) * window - lo)], f, init) for i in range(m)]
    return _xla_order(np.stack(parts), f, init, window)


@pytest.mark.parametrize("n", [2, 32, 33, 100, 1025, 5000])
def test_non_associative_computations_fold_in_xla_order(backend, n):
    rng = np.random.default_rng(n)
    ints = rng.integers(-5, 5, size=(n, 3)).astype(np.int32)
    floats = rng.normal(size=(3, n)).astype(np.float32)
    tri, half = (lambda a, b: a * 3 + b), (lambda a, b: (a + b) * 0.5)
    with np.errstate(over="ignore"):
        want_ints = _xla_order(ints, lambda a, b: (a * np.int32(3) + b).astype(np.int32), 0)
    want_floats = _xla_order(floats.T, lambda a, b: ((a + b) * np.float32(0.5)).astype(np.float32), 0)
    for run in (lambda f: f, engine.jit):
        np.testing.assert_array_equal(run(lambda v: lax.reduce(v, np.int32(0), tri, (0,)))(ints), want_ints)
        np.testing.assert_array_equal(
            run(lambda v: lax.reduce(v, np.float32(0), half, (1,)))(floats), want_floats
        )


def test_variadic_computations_fold_in_index_order(backend):
    x, y = (np.random.default_rng(k).normal(size=(4, 300)).astype(np.float32) for k in (1, 2))
    mix = lambda a, b: (a[0] * 0.5 - b[0], a[1] + b[1] * a[0])  # (not associative)
    acc0, acc1 = np.zeros(4, np.float32), np.ones(4, np.float32)
    for u, v in zip(x.T, y.T):
        acc0, acc1 = acc0 * np.float32(0.5) - u, acc1 + v * acc0
    for run in (lambda f: f, engine.jit):
        got = run(lambda x, y: lax.reduce((x, y), (np.float32(0), np.float32(1)), mix, (1,)))(x, y)
        np.testing.assert_allclose(got[0], acc0, rtol=1e-6)
        np.testing.assert_allclose(got[1], acc1, rtol=1e-5)


def _argmax(a, b):
    pick = (a[0] > b[0]) | ((a[0] == b[0]) & (a[1] < b[1]))
    return lax.select(pick, a[0], b[0]), lax.select(pick, a[1], b[1])


@pytest.mark.parametrize(
    "shape,dims", [((1000, 7), (0,)), ((5, 40, 70), (1, 2)), ((33, 4, 9), (0, 2)), ((6, 3), (1,))]
)
def test_max_with_index_pairs_and_other_monoids_match_numpy(backend, shape, dims):
    x = np.round(np.random.default_rng(3).normal(size=shape), 1).astype(np.float32)  # (ties)
    keep = [d for d in range(len(shape)) if d not in dims]
    flat = np.transpose(x, keep + list(dims)).reshape(*[shape[d] for d in keep], -1)
    index = np.arange(flat.shape[-1], dtype=np.int32) * np.ones_like(flat, np.int32)
    ints = np.random.default_rng(4).integers(-3, 4, size=shape).astype(np.int32)
    for run in (lambda f: f, engine.jit):
        top, at = run(
            lambda v, i: lax.reduce((v, i), (np.float32(-np.inf), np.int32(0)), _argmax, (len(keep),))
        )(flat, index)
        np.testing.assert_array_equal(top, flat.max(-1))
        np.testing.assert_array_equal(at, flat.argmax(-1))
        total, count = run(
            lambda v, w: lax.reduce(
                (v, w), (np.int32(0), np.int32(0)), lambda a, b: (a[0] + b[0], a[1] + (b[1] > 0)), dims
            )
        )(ints, ints)
        np.testing.assert_array_equal(total, ints.sum(dims))
        np.testing.assert_array_equal(count, (ints > 0).sum(dims))
        bits = run(lambda v: lax.reduce(v, np.int32(0), lambda a, b: a | (b & 7), dims))(ints)
        np.testing.assert_array_equal(bits, np.bitwise_or.reduce(ints & 7, axis=dims))


def test_long_reduces_keep_their_derivatives_and_batching():
    x = np.random.default_rng(5).uniform(0.1, 0.4, size=(3, 70)).astype(np.float32)
    check_grads(
        lambda v: lax.reduce(v, np.float32(0.0), lambda a, b: a + b + a * b, (1,)), (x / 10,), order=1
    )
    np.testing.assert_allclose(engine.vmap(_grow)(np.stack([x, x / 2])), [_grow(x), _grow(x / 2)], rtol=1e-6)


def test_scalar_computations_compile_to_one_kernel(tmp_path, monkeypatch):
    """numba folds the rows in a kernel of the scalar computation (no interpreter fallback), with
    the interpreter's values bit for bit."""
    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    nb = numba_backend()
    x = np.random.default_rng(6).normal(size=(50, 40)).astype(np.float32)
    i = np.random.default_rng(7).integers(0, 9, size=(50, 40)).astype(np.int32)
    programs = [
        (
            lambda v: lax.reduce(v, np.float32(1.0), lambda a, b: a * b + 0.1 * engine.numpy.sin(a), (0, 1)),
            (x,),
        ),
        (lambda v: lax.reduce(v, np.float32(0.0), lambda a, b: (a + b) * 0.5, (1,)), (x,)),
        (lambda v, w: lax.reduce((v, w), (np.float32(-np.inf), np.int32(0)), _argmax, (0,)), (x, i)),
        (lambda w: lax.reduce(w > 4, False, lambda a, b: a ^ b, (0,)), (i,)),
    ]
    for f, args in programs:
        closed = engine.jit(f).lower(*args).jaxpr
        exe = nb.NumbaBackend().compile(closed, "f")
        assert exe.fallbacks == [] and "def w" in exe.source, exe.source
        want = jit_mod.Interpreter().compile(closed, "f")(*args)
        for got, w in zip(exe(*args), want):
            np.testing.assert_array_equal(got, w)
