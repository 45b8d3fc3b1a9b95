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
    assert type(y) is engine.Array and y.dtype == np.int16 and y.shape == (2, 3)
