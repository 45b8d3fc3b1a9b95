"""Bit-level lax ops on the bits XLA sees (two's complement, the top bit of an unsigned operand as a
sign bit) and top_k along a chosen axis: values JAX 0.10.2 returned for the same calls, eagerly,
under jit and (top_k) under grad and vmap."""

import numpy as np
import pytest

import engine as jax
from engine import lax

M = np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0], [2.0, 6.0, 5.0]], np.float32)


@pytest.mark.parametrize("wrap", [lambda f: f, jax.jit], ids=["eager", "jit"])
def test_population_count_counts_twos_complement_bits(wrap):
    got = wrap(lax.population_count)(np.array([-2, -1, 0, 1, 2, 3], np.int32))
    np.testing.assert_array_equal(got, [31, 32, 0, 1, 1, 2])
    np.testing.assert_array_equal(wrap(lax.population_count)(np.array([-1, -128, 5], np.int8)), [8, 1, 2])


@pytest.mark.parametrize("wrap", [lambda f: f, jax.jit], ids=["eager", "jit"])
def test_shift_right_arithmetic_of_unsigned_shifts_in_the_top_bit(wrap):
    x = np.array([0x80000000, 0xFFFFFFFF, 0x7FFFFFFF], np.uint32)
    got = wrap(lax.shift_right_arithmetic)(x, np.array([4, 40, 1], np.uint32))
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got, [4160749568, 4294967295, 1073741823])
    got = wrap(lax.shift_right_arithmetic)(
        np.array([1, 7, 255, 0xF0F0F0F0], np.uint32), np.array([1, 4, 31, 3], np.uint32)
    )
    np.testing.assert_array_equal(got, [0, 0, 0, 4263386654])


def test_top_k_along_axis_0():
    values, idx = lax.top_k(M, 2, axis=0)
    np.testing.assert_array_equal(values, [[3.0, 6.0, 9.0], [2.0, 5.0, 5.0]])
    np.testing.assert_array_equal(idx, [[0, 2, 1], [2, 1, 2]])
    g = jax.grad(lambda x: lax.top_k(x, 2, axis=0)[0].sum())(M)
    np.testing.assert_array_equal(g, [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    batched = jax.vmap(lambda x: lax.top_k(x, 2, axis=0)[0], in_axes=1)(M)  # columns: axis 0 of each
    np.testing.assert_array_equal(batched, values.T)
    assert str(jax.make_jaxpr(lambda x: lax.top_k(x, 1, axis=-2))(M)).count("top_k[axis=0 k=1]") == 1
