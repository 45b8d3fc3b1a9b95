"""lax.reduce_window as JAX 0.10.2 computes and stages it: add from 0 and max/min from their identity
are the reduce_window_sum/max/min primitives (explicit, negative and SAME padding, base and window
dilation), eagerly, under jit and under grad; and lax.conv_general_dilated_patches, the other
window helper. Values recorded from JAX for the same calls."""

import numpy as np
import pytest

import engine as jax
from engine import lax

X = np.arange(20, dtype=np.float32).reshape(4, 5) * np.array([1, -1, 1, -1, 1], np.float32)
INF = np.inf

CASES = {
    "min_explicit_padding": (
        lambda x: lax.reduce_window(x, np.inf, lax.min, (2, 2), (1, 2), ((1, 0), (0, 1))),
        [[-1.0, -3.0, 4.0], [-6.0, -8.0, 4.0], [-11.0, -13.0, 9.0], [-16.0, -18.0, 14.0]],
    ),
    "sum_negative_padding_base_dilation": (
        lambda x: lax.reduce_window(
            x, 0.0, lax.add, (2, 2), (2, 1), ((1, -1), (-1, 2)), base_dilation=(2, 1)
        ),
        [[1.0, -1.0, 1.0, 4.0, 0.0], [1.0, -1.0, 1.0, 9.0, 0.0], [1.0, -1.0, 1.0, 14.0, 0.0]],
    ),
    "max_same_dilated": (
        lambda x: lax.reduce_window(x, -np.inf, lax.max, (3, 2), (1, 1), "SAME", (1, 2), (1, 2)),
        [
            [-INF, 5.0, -INF, 7.0, -INF, 7.0, -INF, 9.0, -INF],
            [-INF, 10.0, -INF, 12.0, -INF, 12.0, -INF, 14.0, -INF],
            [-INF, 15.0, -INF, 17.0, -INF, 17.0, -INF, 19.0, -INF],
            [-INF, 15.0, -INF, 17.0, -INF, 17.0, -INF, 19.0, -INF],
        ],
    ),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("wrap", [lambda f: f, jax.jit], ids=["eager", "jit"])
def test_values(name, wrap):
    fn, want = CASES[name]
    np.testing.assert_array_equal(wrap(fn)(X), np.array(want, np.float32))


def test_staged_as_the_monoid_primitives():
    text = str(jax.make_jaxpr(CASES["min_explicit_padding"][0])(X))
    assert "reduce_window_min[" in text and "padding=((1, 0), (0, 1))" in text
    text = str(jax.make_jaxpr(lambda x: lax.reduce_window(x, 1.0, lax.max, (2, 2), (1, 1), "VALID"))(X))
    assert "reduce_window_max" not in text  # (not the identity: JAX's generic reduce_window)


def test_grads():
    g = jax.grad(lambda x: CASES["sum_negative_padding_base_dilation"][0](x).sum())(X)
    np.testing.assert_array_equal(g, [[0.0, 1, 2, 2, 2], [0, 1, 2, 2, 2], [0, 1, 2, 2, 2], [0, 0, 0, 0, 0]])
    g = jax.grad(lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 1), "VALID").sum())(X)
    np.testing.assert_array_equal(g, [[0.0, 0, 0, 0, 0], [1, 0, 2, 0, 1], [1, 0, 2, 0, 1], [1, 0, 2, 0, 1]])


def test_conv_general_dilated_patches_values():
    # (JAX 0.10.2's shape, total and one output pixel for the same call)
    x = np.arange(2 * 5 * 4 * 3, dtype=np.float32).reshape(2, 5, 4, 3)
    dnums = ("NHWC", "HWIO", "NHWC")
    y = lax.conv_general_dilated_patches(
        x, (2, 3), (1, 2), "SAME", rhs_dilation=(2, 1), dimension_numbers=dnums
    )
    assert y.shape == (2, 5, 2, 18) and float(np.asarray(y).sum()) == 14352.0
    want = [78.0, 81, 0, 102, 105, 0, 79, 82, 0, 103, 106, 0, 80, 83, 0, 104, 107, 0]
    np.testing.assert_array_equal(np.asarray(y)[1, 2, 1], want)
    np.testing.assert_array_equal(
        jax.jit(lambda v: lax.conv_general_dilated_patches(v, (2,), (1,), "VALID"))(
            np.arange(4.0, dtype=np.float32).reshape(1, 1, 4)
        )[0],
        [[0.0, 1, 2], [1, 2, 3]],
    )


def test_other_computations_and_inits_are_the_generic_primitive():
    x = np.arange(20, dtype=np.float32).reshape(4, 5) / 7 + 0.5
    prod = lambda v: lax.reduce_window(v, 1.0, lax.mul, (2, 1), (1, 1), "VALID")  # noqa: E731
    want = [
        [0.6071, 0.8724, 1.1786, 1.5255, 1.9133],
        [2.3418, 2.8112, 3.3214, 3.8724, 4.4643],
        [5.0969, 5.7704, 6.4847, 7.2398, 8.0357],
    ]
    np.testing.assert_allclose(prod(x), want, atol=1e-4)
    np.testing.assert_allclose(jax.jit(prod)(x), want, atol=1e-4)
    np.testing.assert_allclose(jax.vmap(prod)(np.stack([x, x])), [want, want], atol=1e-4)
    assert "reduce_window[" in str(jax.make_jaxpr(prod)(x))
    with pytest.raises(ValueError, match="Linearization failed"):  # (JAX's jvp cannot be linearized)
        jax.grad(lambda v: prod(v).sum())(x)
