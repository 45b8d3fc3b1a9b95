"""The derivative of a max (or min) window reduction (max pooling) as JAX 0.10.2 computes it: where
several entries of a window tie for its extreme, the window's whole tangent (cotangent) belongs to
the FIRST of them in window order (JAX's select_and_gather_add / select_and_scatter_add select with
``ge`` for max, ``le`` for min), not a share to each (as ``jnp.max`` over whole axes gives); with
overlapping windows an entry collects from every window it is chosen in. Under grad, jvp,
jacrev/jacfwd, vmap of grad and jit of grad, with SAME padding, strides and window dilation (jvp:
JAX refuses its grad). Expected values recorded from JAX 0.10.2 for the same calls."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax

x2 = np.array(
    [[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 1.0, 3.0], [0.0, 0.0, 5.0, 5.0], [5.0, 5.0, 1.0, 2.0]], np.float32
)
xi = np.array([[1, 1, 2, 0, 2], [1, 0, 2, 2, 1], [0, 2, 2, 1, 0], [2, 1, 0, 2, 2]])  # (ties: cast to float)
xn = np.array([[0.3, -1.2, 2.5, 0.7], [1.1, 0.4, -0.6, 1.9], [0.2, 2.2, -1.5, 0.8]], np.float32)


def pool(x, init=-np.inf, op=None, win=(2, 2), st=(2, 2), pad="VALID", **kw):
    return lax.reduce_window(x, init, op or lax.max, win, st, pad, **kw)


CASES = {
    "ties_2x2": lambda: jax.grad(lambda x: pool(x).sum())(x2),
    "all_equal": lambda: jax.grad(lambda x: pool(x).sum())(jnp.ones((4, 4))),
    "ints_cast_overlap": lambda: jax.grad(
        lambda x: (pool(x, win=(2, 2), st=(1, 1)) * jnp.arange(12.0).reshape(3, 4)).sum()
    )(xi.astype(np.float32)),
    "same_pad_overlap": lambda: jax.grad(lambda x: (pool(x, win=(3, 3), st=(1, 1), pad="SAME") ** 2).sum())(
        x2
    ),
    "min_ties_same_stride2": lambda: jax.grad(
        lambda x: pool(x, np.inf, lax.min, (3, 2), (2, 1), "SAME").sum()
    )(x2),
    "dilation_jvp": lambda: jax.jvp(
        lambda x: pool(x, win=(2, 2), st=(1, 1), window_dilation=(2, 1)),
        (x2,),
        (np.arange(16.0, dtype=np.float32).reshape(4, 4),),
    )[1],
    "no_ties": lambda: jax.grad(lambda x: (pool(x, win=(2, 2), st=(1, 1)) ** 2).sum())(xn),
    "jvp": lambda: jax.jvp(
        lambda x: pool(x, win=(2, 2), st=(1, 1)), (x2,), (np.arange(16.0, dtype=np.float32).reshape(4, 4),)
    )[1],
    "jacrev": lambda: jax.jacrev(lambda x: pool(x, win=(3,), st=(1,)))(
        np.array([1.0, 2.0, 2.0, 2.0, 0.0], np.float32)
    ),
    "jacfwd": lambda: jax.jacfwd(lambda x: pool(x, win=(3,), st=(1,)))(
        np.array([1.0, 2.0, 2.0, 2.0, 0.0], np.float32)
    ),
    "vmap_grad": lambda: jax.vmap(jax.grad(lambda x: pool(x, win=(2,), st=(1,)).sum()))(
        np.array([[1.0, 1.0, 1.0], [2.0, 0.0, 2.0]], np.float32)
    ),
    "jit_grad": lambda: jax.jit(jax.grad(lambda x: pool(x, win=(2, 2), st=(1, 1)).sum()))(x2),
}

EXPECTED = {
    "ties_2x2": [[0.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
    "all_equal": [[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
    "ints_cast_overlap": [
        [0.0, 0.0, 3.0, 0.0, 3.0],
        [0.0, 0.0, 11.0, 7.0, 0.0],
        [0.0, 21.0, 10.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 11.0, 0.0],
    ],
    "same_pad_overlap": [
        [0.0, 24.0, 6.0, 0.0],
        [0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 90.0, 0.0],
        [20.0, 0.0, 0.0, 0.0],
    ],
    "min_ties_same_stride2": [
        [0.0, 0.0, 0.0, 2.0],
        [0.0, 0.0, 0.0, 0.0],
        [2.0, 2.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 1.0],
    ],
    "dilation_jvp": [[1.0, 10.0, 10.0], [12.0, 13.0, 7.0]],
    "no_ties": [
        [0.0, 0.0, 10.0, 0.0],
        [2.200000047683716, 0.0, 0.0, 3.799999952316284],
        [0.0, 8.800000190734863, 0.0, 0.0],
    ],
    "jvp": [[1.0, 1.0, 2.0], [4.0, 10.0, 10.0], [12.0, 10.0, 10.0]],
    "jacrev": [[0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0]],
    "jacfwd": [[0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0]],
    "vmap_grad": [[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]],
    "jit_grad": [[0.0, 2.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0], [1.0, 0.0, 0.0, 0.0]],
}


@pytest.mark.parametrize("name", CASES)
def test_tied_window_extremes_choose_the_first(name):
    np.testing.assert_allclose(np.asarray(CASES[name]()), np.asarray(EXPECTED[name]), rtol=1e-6, atol=0)
