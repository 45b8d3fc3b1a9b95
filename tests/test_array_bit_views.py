"""``x.view(dtype)``, ``x.byteswap()`` and ``x.at[i].*(wrap_negative_indices=False)``: the reprs
JAX 0.10.2 printed for the same calls."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp

CASES = [
    (
        lambda: jnp.array([1, 0, 1], dtype=jnp.int8).view(jnp.bool_),
        "Array([ True, False,  True], dtype=bool)",
    ),
    (
        lambda: jnp.arange(4, dtype=jnp.float32).view(jnp.int32),
        "Array([         0, 1065353216, 1073741824, 1077936128], dtype=int32)",
    ),
    (
        lambda: jnp.arange(8, dtype=jnp.uint8).view(jnp.float32),
        "Array([3.8204714e-37, 1.0082514e-34], dtype=float32)",
    ),
    (lambda: jnp.array([True, False, True, True]).view(jnp.int16), "Array([  1, 257], dtype=int16)"),
    (
        lambda: jnp.array([1 + 2j, 3 - 4j], dtype=jnp.complex64).view(jnp.float32),
        "Array([ 1.,  2.,  3., -4.], dtype=float32)",
    ),
    (lambda: jnp.array([1.0, 2.0, 3.0, 4.0]).view(jnp.complex64), "Array([1.+2.j, 3.+4.j], dtype=complex64)"),
    (lambda: jnp.float32(1.5).view(jnp.int32), "Array(1069547520, dtype=int32)"),
    (
        lambda: jax.jit(lambda x: x.view(jnp.int32))(jnp.ones(3)),
        "Array([1065353216, 1065353216, 1065353216], dtype=int32)",
    ),
    (
        lambda: jax.vmap(lambda x: x.view(jnp.uint16))(jnp.ones((2, 3))),
        "Array([[    0, 16256,     0, 16256,     0, 16256],\n       [    0, 16256,     0, 16256,     0, 16256]], dtype=uint16)",
    ),
    (
        lambda: jnp.arange(5, dtype="int32").byteswap(),
        "Array([       0, 16777216, 33554432, 50331648, 67108864], dtype=int32)",
    ),
    (
        lambda: jnp.array([1.5, -2.0], dtype=jnp.float32).byteswap(),
        "Array([6.8965e-41, 2.6905e-43], dtype=float32)",
    ),
    (
        lambda: jnp.array([1.5, -2.0], dtype=jnp.bfloat16).byteswap(),
        "Array([-2.98438, 1.76324e-38], dtype=bfloat16)",
    ),
    (
        lambda: jnp.array([1 + 2j], dtype=jnp.complex64).byteswap(),
        "Array([4.6006e-41+9.e-44j], dtype=complex64)",
    ),
    (lambda: jnp.array(7, dtype=jnp.uint16).byteswap(), "Array(1792, dtype=uint16)"),
    (
        lambda: jax.jit(lambda x: x.byteswap())(jnp.arange(3, dtype=jnp.int16)),
        "Array([  0, 256, 512], dtype=int16)",
    ),
    (
        lambda: jnp.arange(3).at[-1].set(99, wrap_negative_indices=False, mode="drop"),
        "Array([0, 1, 2], dtype=int32)",
    ),
    (
        lambda: jnp.arange(3).at[-1].add(5, wrap_negative_indices=False, mode="clip"),
        "Array([5, 1, 2], dtype=int32)",
    ),
    (
        lambda: jnp.arange(3).at[jnp.array([-1, 1])].set(7, wrap_negative_indices=False, mode="drop"),
        "Array([0, 7, 2], dtype=int32)",
    ),
    (
        lambda: jnp.arange(3).at[-1].get(wrap_negative_indices=False, mode="fill", fill_value=-9),
        "Array(-9, dtype=int32)",
    ),
    (lambda: jnp.arange(3).at[-1].get(wrap_negative_indices=True), "Array(2, dtype=int32)"),
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_bit_views_and_index_wrapping_match_jax(i):
    f, want = CASES[i]
    assert repr(f()) == want


def test_view_shapes_and_errors():
    assert jnp.zeros([1, 2, 3], dtype=jnp.int16).view(jnp.int8).shape == (1, 2, 6)
    assert jnp.zeros([1, 2, 4], dtype=jnp.int8).view(jnp.int16).shape == (1, 2, 2)
    x = jnp.arange(4.0)
    assert x.view() is x and np.array_equal(np.asarray(x.byteswap().byteswap()), np.asarray(x))
    with pytest.raises(ValueError, match="divisor of the total size"):
        jnp.arange(3, dtype=jnp.int16).view(jnp.int32)
    with pytest.raises(ValueError, match="0d array"):
        jnp.float32(1.5).view(jnp.int8)
    with pytest.raises(NotImplementedError, match="type"):
        x.view(jnp.int32, type=np.ndarray)
