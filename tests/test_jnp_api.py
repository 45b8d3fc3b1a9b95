"""jnp API of JAX 0.10.2 beyond the elementwise functions (values against JAX are in
tests/jax_reference/snippets_jnp_api.py): derivatives against finite differences, vmap against a
loop, jit against eager for ufunc methods, weighted quantiles, ``delete`` with traced indices and
the DLPack / save-load paths."""

from __future__ import annotations

import io

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from engine.test_util import check_batching, check_grads

X = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)


def _delete_unique(x, i):
    return jnp.delete(x, i, axis=1, assume_unique_indices=True)


def test_delete_unique_indices_grads_vmap_jit():
    i = jnp.array([3, 0])
    check_grads(lambda x: _delete_unique(x, i), (X,), order=2)
    check_grads(engine.jit(lambda x: _delete_unique(x, i)), (X,), order=1)
    check_batching(_delete_unique, (np.stack([X, 2 * X]), np.array([[0, 1], [2, 3]])), in_axes=0)
    np.testing.assert_array_equal(engine.jit(_delete_unique)(X, i), np.delete(X, [3, 0], axis=1))


def test_delete_unique_indices_matches_numpy_for_every_pair():
    x = np.arange(6)
    f = engine.jit(lambda i: jnp.delete(x, i, assume_unique_indices=True))
    for a in range(-6, 6):
        for b in range(-6, 6):
            if a % 6 != b % 6:
                np.testing.assert_array_equal(f(jnp.array([a, b])), np.delete(x, [a, b]), err_msg=f"{a},{b}")


def test_from_dlpack_shares_numpy_buffer_and_exports_read_only():
    a = np.arange(4, dtype=np.float32)
    x = jnp.from_dlpack(a)
    assert np.shares_memory(np.asarray(x), a)
    assert not np.shares_memory(np.asarray(jnp.from_dlpack(a, copy=True)), a)
    back = np.from_dlpack(x)
    assert not back.flags.writeable and np.shares_memory(back, np.asarray(x))
    legacy = x.__dlpack__()  # a consumer without DLPack 1.0 gets a copy it may write to
    assert type(legacy).__name__ == "PyCapsule"
    with pytest.raises(TypeError, match="__dlpack__"):
        jnp.from_dlpack(np.arange(3).tolist())


def test_float64_dlpack_input_is_canonicalized_as_jax():
    assert jnp.from_dlpack(np.arange(3.0)).dtype == np.float32
    assert jnp.from_dlpack(np.arange(3, dtype=np.int64)).dtype == np.int32


def test_save_load_round_trip_keeps_dtype_and_weakness():
    f = io.BytesIO()
    jnp.save(f, jnp.arange(6, dtype=jnp.int16).reshape(2, 3))
    f.seek(0)
    y = jnp.load(f)
    assert type(y) is engine.core.Array and y.dtype == np.int16 and y.shape == (2, 3)


# --- jnp.ufunc -------------------------------------------------------------------------------


def test_builtin_ufunc_call_is_the_function_behind_the_out_where_check():
    """Only JAX's refusal of ``out=``/``where=`` (NotImplementedError) stands between
    ``jnp.add(x, y)`` and the function (the hottest eager call)."""
    from engine.numpy import _logic, _selection, _ufuncs

    for name, module in [
        ("add", _ufuncs),
        ("maximum", _selection),
        ("bitwise_or", _logic),
        ("negative", _ufuncs),
    ]:
        u = getattr(jnp, name)
        assert isinstance(u, jnp.ufunc)
        assert type(u).__dict__["__call__"].__wrapped__ is getattr(module, name)
        args = (jnp.ones(2, np.int32),) * u.nin
        with pytest.raises(NotImplementedError, match=f"out argument of <jnp.ufunc '{name}'>"):
            u(*args, out=args[0])
        with pytest.raises(NotImplementedError, match=f"where argument of <jnp.ufunc '{name}'>"):
            u(*args, where=True)
        np.testing.assert_array_equal(u(*args, out=None, where=None), getattr(module, name)(*args))
    assert jnp.add(jnp.ones(2), 1.0).weak_type is False


F = np.random.default_rng(1).normal(size=(3, 4)).astype(np.float32)
METHODS = {
    "logaddexp.reduce": lambda f: jnp.logaddexp.reduce(f, axis=1),
    "logaddexp2.reduce_initial": lambda f: jnp.logaddexp2.reduce(f, axis=None, initial=0.5),
    "subtract.reduce": lambda f: jnp.subtract.reduce(f),
    "multiply.accumulate": lambda f: jnp.multiply.accumulate(f, axis=1),
    "subtract.accumulate": lambda f: jnp.subtract.accumulate(f),
    "add.outer": lambda f: jnp.add.outer(f[0], f[:, 1]),
    "multiply.at": lambda f: jnp.multiply.at(f, (jnp.array([0, 0, 2]), 1), 1.5, inplace=False),
    "logaddexp.at": lambda f: jnp.logaddexp.at(f, (jnp.array([1, 1]),), 0.3, inplace=False),
    "add.reduceat": lambda f: jnp.add.reduceat(f, jnp.array([0, 2, 3]), axis=1),
    "frompyfunc.reduce": lambda f: jnp.frompyfunc(lambda a, b: a * b + 1, 2, 1).reduce(f, axis=1),
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_ufunc_method_grads(name):
    check_grads(METHODS[name], (F,), order=2 if "at" not in name else 1, atol=5e-3, rtol=5e-3)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_ufunc_method_jit_and_vmap(name):
    f = METHODS[name]
    np.testing.assert_allclose(engine.jit(f)(F), f(F), rtol=1e-6)
    check_batching(f, (np.stack([F, F[::-1] * 0.5]),), in_axes=0)


def test_ufunc_methods_match_numpy():
    x = np.array([[3, 1, 4, 1], [5, 9, 2, 6]], np.int32)
    np.testing.assert_array_equal(jnp.subtract.accumulate(x, axis=1), np.subtract.accumulate(x, axis=1))
    np.testing.assert_array_equal(
        jnp.maximum.reduceat(x, jnp.array([0, 2, 1]), axis=1), np.maximum.reduceat(x, [0, 2, 1], axis=1)
    )
    want = x.copy()
    np.maximum.at(want, (np.array([0, 0, 1]), np.array([1, 1, 3])), np.array([7, 2, 8], np.int32))
    got = jnp.maximum.at(x, (jnp.array([0, 0, 1]), jnp.array([1, 1, 3])), jnp.array([7, 2, 8]), inplace=False)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(jnp.bitwise_xor.reduce(x, axis=None), np.bitwise_xor.reduce(x, axis=None))


def test_ufunc_is_a_static_argument():
    f = engine.jit(lambda u, x: u.reduce(x), static_argnums=0)
    np.testing.assert_array_equal(f(jnp.add, jnp.arange(4)), 6)
    np.testing.assert_array_equal(f(jnp.multiply, jnp.arange(1, 5)), 24)
    with pytest.raises(AttributeError):
        jnp.add.identity = 1


# --- weighted quantiles (method='inverted_cdf') -----------------------------------------------


def _weighted_quantile_by_definition(x, w, q):
    order = np.argsort(x, kind="stable")
    cum = np.cumsum(w[order])
    return x[order][min(np.searchsorted(cum, q * cum[-1], side="left"), len(x) - 1)]


def test_weighted_quantile_matches_the_definition():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 7)).astype(np.float32)
    w = rng.uniform(0.1, 2.0, size=(4, 7)).astype(np.float32)
    qs = np.array([0.0, 0.2, 0.5, 0.9, 1.0], np.float32)
    got = jnp.quantile(x, qs, axis=1, weights=w, method="inverted_cdf")
    for i in range(4):
        for j, q in enumerate(qs):
            assert got[j, i] == _weighted_quantile_by_definition(x[i], w[i], q), (i, q)
    got = jnp.percentile(x, 35.0, axis=0, weights=w[:, 0], method="inverted_cdf")
    for k in range(7):
        assert got[k] == _weighted_quantile_by_definition(x[:, k], w[:, 0], 0.35), k


def test_weighted_quantile_grads_jit_vmap():
    rng = np.random.default_rng(3)
    x = rng.permutation(12).reshape(3, 4).astype(np.float32)  # distinct: derivatives are defined
    w = rng.uniform(0.5, 2.0, size=(3, 4)).astype(np.float32)

    def f(x):
        return jnp.quantile(x, jnp.array([0.25, 0.6]), axis=1, weights=w, method="inverted_cdf")

    check_grads(f, (x,), order=2)
    np.testing.assert_array_equal(engine.jit(f)(x), f(x))
    check_batching(
        lambda x, w: jnp.nanquantile(x, 0.5, weights=w, method="inverted_cdf"), (x, w), in_axes=(0, 0)
    )
