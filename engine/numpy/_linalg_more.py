"""More of ``jnp.linalg``: ``cond``, ``cross``, ``multi_dot``, ``tensorinv``, ``tensorsolve``,
written with the traceable factorizations of ``jnp.linalg``."""

from __future__ import annotations

import math
import operator

import numpy as np

from ._contract import cross as _cross
from ._contract import einsum
from ._logic import isnan
from ._promote import as_operand, check_arraylike
from ._selection import where
from ._shape import moveaxis
from ._staged import staged_as_jit


@staged_as_jit(static_argnames=("p",))
def cond(x, p=None):
    """The condition number of ``x`` in the ``p``-norm (default: 2-norm, from singular values).

    >>> jnp.linalg.cond(jnp.array([[1.0, 0.0], [0.0, 4.0]]))
    Array(4., dtype=float32)
    """
    from .linalg import inv, norm, svdvals

    check_arraylike("cond", x)
    arr = as_operand(x)
    if arr.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got arr.shape={arr.shape}")
    if arr.shape[-1] == 0 or arr.shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got arr.shape={arr.shape}")
    if p is None or p == 2:
        s = svdvals(arr)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(arr)
        r = s[..., -1] / s[..., 0]
    else:
        if arr.shape[-2] != arr.shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for p={p!r}, array must be square; got arr.shape={arr.shape}")
        r = norm(arr, ord=p, axis=(-2, -1)) * norm(inv(arr), ord=p, axis=(-2, -1))
    # A singular matrix has infinite condition (nan from inf * 0), unless x itself has nans.
    return where(isnan(r) & ~isnan(arr).any(axis=(-2, -1)), np.inf, r)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of (arrays of) 3-vectors along ``axis`` (the array API's ``linalg.cross``)."""
    check_arraylike("jnp.linalg.outer", x1, x2)
    x1, x2 = as_operand(x1), as_operand(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they have x1.shape[axis]={x1.shape[axis]} and x2.shape[axis]={x2.shape[axis]}"
        )
    return _cross(x1, x2, axis=axis)


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices, multiplied in the cheapest order (the first and last may
    be vectors).

    >>> jnp.linalg.multi_dot([jnp.ones(2), jnp.ones((2, 3)), jnp.ones(3)])
    Array(6., dtype=float32)
    """
    arrs = [as_operand(a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2) and all(a.ndim == 2 for a in arrs[1:-1])):
        raise ValueError(
            "multi_dot: input arrays must all be two-dimensional, except for the first and last array "
            f"which may be 1 or 2 dimensional. Got array shapes {[a.shape for a in arrs]}"
        )
    if any(a.shape[-1] != b.shape[0] for a, b in zip(arrs[:-1], arrs[1:])):
        raise ValueError(
            "multi_dot: last dimension of each array must match first dimension of following array. "
            f"Got array shapes {[a.shape for a in arrs]}"
        )
    # JAX's: one einsum over the chain (axis i shared by arrays i-1 and i), so opt_einsum's path
    # picks the order of the products
    labels = [[i, i + 1] for i in range(len(arrs))]
    if arrs[0].ndim == 1:
        labels[0] = labels[0][1:]
    if arrs[-1].ndim == 1:
        labels[-1] = labels[-1][:1]
    return einsum(*[x for pair in zip(arrs, labels) for x in pair], optimize="auto", precision=precision)


def tensorinv(a, ind: int = 2):
    """The inverse of ``a`` seen as a linear map from its last dimensions to its first ``ind``.

    >>> jnp.linalg.tensorinv(jnp.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    from .linalg import inv

    check_arraylike("tensorinv", a)
    arr = as_operand(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got ind={ind}")
    contracting, batch = arr.shape[:ind], arr.shape[ind:]
    flat = (math.prod(contracting), math.prod(batch))
    if flat[0] != flat[1]:
        raise ValueError(
            "tensorinv is only possible when the product of the first `ind` dimensions equals that of "
            f"the remaining dimensions. got arr.shape={arr.shape} with ind={ind}."
        )
    return inv(arr.reshape(flat)).reshape(*batch, *contracting)


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b``.

    >>> jnp.linalg.tensorsolve(2 * jnp.eye(4).reshape(2, 2, 2, 2), jnp.ones((2, 2)))
    Array([[0.5, 0.5],
           [0.5, 0.5]], dtype=float32)
    """
    from .linalg import solve

    check_arraylike("tensorsolve", a, b)
    a, b = as_operand(a), as_operand(b)
    if axes is not None:
        a = moveaxis(a, axes, len(axes) * (a.ndim - 1,))
    out_shape = a.shape[b.ndim :]
    if a.shape[: b.ndim] != b.shape:
        raise ValueError(
            "After moving axes to end, leading shape of a must match shape of b."
            f" got a.shape={a.shape}, b.shape={b.shape}"
        )
    if b.size != math.prod(out_shape):
        raise ValueError(
            "Input arrays must have prod(a.shape[:b.ndim]) == prod(a.shape[b.ndim:]);"
            f" got a.shape={a.shape}, b.ndim={b.ndim}."
        )
    return solve(a.reshape(b.size, math.prod(out_shape)), b.ravel()).reshape(out_shape)


# jnp.linalg's own products: JAX's array-API signatures (operands positional-only), over jnp's.
def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """The matrix product of ``x1`` and ``x2`` (``jnp.matmul``)."""
    from ._contract import matmul as _matmul

    check_arraylike("jnp.linalg.matmul", x1, x2)
    return _matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def outer(x1, x2, /):
    """The outer product of two one-dimensional arrays."""
    from ._contract import outer as _outer

    check_arraylike("jnp.linalg.outer", x1, x2)
    x1, x2 = as_operand(x1), as_operand(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(
            f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim} x2.ndim={x2.ndim}"
        )
    return _outer(x1, x2)


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None, **kwargs):
    """``jnp.tensordot`` with ``axes`` by keyword (``kwargs``: jnp.tensordot's other keywords)."""
    from ._contract import tensordot as _tensordot

    check_arraylike("jnp.linalg.tensordot", x1, x2)
    return _tensordot(
        x1, x2, axes, precision=precision, preferred_element_type=preferred_element_type, **kwargs
    )
