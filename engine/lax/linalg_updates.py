"""``jax.lax.linalg.symmetric_product`` and ``cholesky_update``: primitives with JAX's names, params
and checks. Real floating dtypes only (JAX refuses complex ones), float16/bfloat16 included: on CPU
JAX lowers both to ordinary operations, not LAPACK. Neither has a derivative in JAX, and
``cholesky_update`` has no batching rule there either (it takes one matrix and one vector).

``symmetric_product(a, c, alpha, beta)`` is ``alpha a a^T + beta c``; ``cholesky_update(r, w)`` is
the upper Cholesky factor of ``r^T r + w w^T``, by the Givens rotations JAX applies row by row.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..core import Primitive, ShapedArray
from .linalg import _batch_leading, _tril
from .linalg_tridiagonal import _check_dtypes, _check_ranks, _checked_eager

# ---------------------------------------------------------------------------------------------
# symmetric_product: alpha a a^T + beta c (JAX's syrk).

symmetric_product_p = Primitive("symmetric_product")


def _symmetric_product_impl(a, c, *, alpha, beta):
    # the product in float64 (HIGHEST, as JAX's lowering), then each step rounded to the dtype
    product = np.matmul(a.astype(np.float64), np.swapaxes(a, -1, -2).astype(np.float64)).astype(a.dtype)
    dtype = np.dtype(a.dtype)
    return (np.asarray(alpha, dtype) * product + np.asarray(beta, dtype) * c).astype(dtype)


@symmetric_product_p.def_abstract_eval
def _symmetric_product_abstract(a, c, *, alpha, beta):
    _check_dtypes("symmetric_product", [a, c], kinds=("f",))
    a_shape, c_shape = _check_ranks("symmetric_product", [a, c], [2, 2])
    if a_shape[0] != c_shape[1] or c_shape[0] != c_shape[1]:
        raise ValueError(
            "symmetric_update expects a rectangular matrix of shape (m, n) and a square matrix of "
            f"shape (n, n). Got shapes {a_shape} and {c_shape}."
        )
    return ShapedArray((*a.shape[:-2], *c_shape), a.dtype)


symmetric_product_p.def_impl(_checked_eager(_symmetric_product_abstract)(_symmetric_product_impl))
_batch_leading(symmetric_product_p)


def symmetric_product(
    a_matrix, c_matrix, *, alpha: float = 1.0, beta: float = 0.0, symmetrize_output: bool = False
):
    """``alpha * a @ a.T + beta * c``; only the lower triangle is guaranteed (the whole matrix with
    ``symmetrize_output``, which mirrors the lower triangle into the upper).

    >>> lax.linalg.symmetric_product(jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.eye(2), beta=1.0)
    Array([[ 6., 11.],
           [11., 26.]], dtype=float32)
    """
    result = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        from .api import transpose

        ndim = core.get_aval(result).ndim
        upper_half = transpose(_tril(result, -1), (*range(ndim - 2), ndim - 1, ndim - 2))
        result = _tril(result, 0) + upper_half
    return result


# ---------------------------------------------------------------------------------------------
# cholesky_update: the factor of r^T r + w w^T, by Givens rotations (JAX's drotg/drot loop).

cholesky_update_p = Primitive("cholesky_update")


def _cholesky_update_impl(r, w):
    # JAX's loop in the operand's dtype (each operation rounded to it, as XLA computes it)
    r, z = r.copy(), w.copy()
    dtype = r.dtype
    one, zero = np.ones((), dtype), np.zeros((), dtype)
    with np.errstate(all="ignore"):
        for k in range(z.shape[0]):
            x, y = r[k, k], z[k]
            if y == 0:
                c, s = one, zero
            else:
                denominator = abs(x) if abs(x) > abs(y) else abs(y)
                x, y = x / denominator, y / denominator
                rh = one / np.sqrt(x * x + y * y)
                c, s = x * rh, -y * rh
            row = r[k, :].copy()
            r[k, :] = c * row - s * z
            z = c * z + s * row
    return r


@cholesky_update_p.def_abstract_eval
def _cholesky_update_abstract(r, w):
    _check_dtypes("cholesky_update", [r, w], kinds=("f",))
    r_shape, w_shape = _check_ranks("cholesky_update", [r, w], [2, 1], supports_batching=False)
    if r_shape[0] != r_shape[1] or w_shape[0] != r_shape[1]:
        raise ValueError(
            "Rank-1 update to Cholesky decomposition takes a square matrix and a vector of the same "
            f"size as input. Got shapes {r_shape} and {w_shape} instead"
        )
    return ShapedArray(r.shape, r.dtype)


cholesky_update_p.def_impl(_checked_eager(_cholesky_update_abstract)(_cholesky_update_impl))


def cholesky_update(r_matrix, w_vector):
    """The upper-triangular ``R'`` with ``R'^T R' = R^T R + w w^T`` (``r_matrix`` upper triangular),
    in O(n^2) by Givens rotations.

    >>> lax.linalg.cholesky_update(jnp.array([[3.0, 0.0], [0.0, 1.0]]), jnp.array([4.0, 0.0]))
    Array([[5., 0.],
           [0., 1.]], dtype=float32)
    """
    return cholesky_update_p.bind(r_matrix, w_vector)
