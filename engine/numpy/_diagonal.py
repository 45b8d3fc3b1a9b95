"""Diagonals: diagonal, diag, diagflat, trace, fill_diagonal and the ``*_indices_from`` helpers."""

from __future__ import annotations

import builtins

import numpy as np

from .. import core, lax, transfers
from ._promote import as_operand, canonicalize_axis, check_arraylike
from ._staged import staged_as_jit
from ._shape import moveaxis, ravel


@staged_as_jit(static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The ``offset`` diagonal of the ``(axis1, axis2)`` planes, as the last axis of the result:
    JAX's formulation, a gather of ``a[..., i, i + offset]`` (for a square matrix, staged as a
    ``platform_dependent`` whose other branch, for TPU kernels, masks with ``eye`` and sums).

    >>> jnp.diagonal(jnp.arange(4.0).reshape(2, 2))
    Array([0., 3.], dtype=float32)
    """
    from ..lax.cond import platform_dependent
    from ._creation import arange, eye

    a = as_operand(a)
    if a.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    ax1, ax2 = canonicalize_axis(axis1, a.ndim), canonicalize_axis(axis2, a.ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 must be different")
    offset = int(offset)

    def default(a):
        n, m = a.shape[ax1], a.shape[ax2]
        a = moveaxis(a, (ax1, ax2), (-2, -1))
        size = builtins.max(0, builtins.min(n + builtins.min(offset, 0), m - builtins.max(offset, 0)))
        i = arange(size)
        j = arange(builtins.abs(offset), builtins.abs(offset) + size)
        return a[..., i, j] if offset >= 0 else a[..., j, i]

    if a.shape[0] != a.shape[1] or a.ndim != 2 or offset != 0 or a.dtype == np.bool_:
        return default(a)
    mask = eye(a.shape[0], dtype=a.dtype)

    def masked_sum(a):
        return lax.reduce_sum(lax.mul(mask, a), (0,))

    return platform_dependent(a, default=default, mosaic=masked_sum)


def diag(v, k: int = 0):
    """The ``k``-th diagonal of a 2-D array, or a 2-D array with ``v`` on its ``k``-th diagonal (a
    ``jit`` named ``_diag``, as JAX's)."""
    v = as_operand(v)
    if v.ndim not in (1, 2):
        raise ValueError("diag input must be 1d or 2d")
    return _diag(v, k=int(k))


@staged_as_jit(static_argnames=("k",))
def _diag(v, k):
    if v.ndim == 2:
        return diagonal(v, k)
    from ._selection import where

    # JAX's formulation: v padded to the matrix's size, selected into the rows of an eye mask
    zero = lax.full((), 0, v.dtype, v.weak_type)
    n = v.shape[0] + builtins.abs(k)
    v = lax.pad(v, zero, [(builtins.max(0, -k), builtins.max(0, k), 0)])
    index = core.default_dtype(int)  # (the Python int k's dtype, as JAX's: int64 under x64)
    rows = lax.broadcasted_iota(index, (n, n), 0)
    cols = lax.broadcasted_iota(index, (n, n), 1)
    on_diagonal = lax.eq(lax.add(rows, index.type(k)), cols)
    return where(on_diagonal, lax.broadcast_in_dim(v, (n, 1), (0,)), zero)


def diagflat(v, k: int = 0):
    """A square matrix with the flattened ``v`` on its ``k``-th diagonal: scattered into the
    flat zeros at every (n + 1)-th position from ``k`` (as JAX's).

    >>> jnp.diagflat(jnp.array([1, 2]), 1)
    Array([[0, 1, 0],
           [0, 0, 2],
           [0, 0, 0]], dtype=int32)
    """
    from ._creation import arange, zeros

    check_arraylike("diagflat", v)
    flat = ravel(v)
    n = len(flat) + abs(k)
    out = zeros(n * n, dtype=flat.dtype)
    i = arange(0, n - abs(k))
    positions = i + k + i * n if k >= 0 else i + (i - k) * n
    return out.at[positions].set(flat).reshape(n, n)


@staged_as_jit(static_argnames=("axis1", "axis2", "dtype"))
def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    """Sum of the ``offset`` diagonal: JAX's formulation, the array masked with ``eye`` and summed
    (staged as JAX's jit ``trace``).

    >>> jnp.trace(jnp.arange(4.0).reshape(2, 2))
    Array(3., dtype=float32)
    """
    from ._creation import eye, zeros_like
    from ._reductions import sum
    from ._selection import where

    check_arraylike("trace", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    a = as_operand(a)
    if canonicalize_axis(axis1, a.ndim) == canonicalize_axis(axis2, a.ndim):
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    a_shape = a.shape
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    a = where(eye(a_shape[axis1], a_shape[axis2], k=offset, dtype=bool), a, zeros_like(a))
    return sum(a, axis=(-2, -1), dtype=dtype)


def diag_indices_from(arr):
    a = as_operand(arr)
    from ._creation import diag_indices

    return diag_indices(a.shape[0], a.ndim)


def tril_indices_from(arr, k: int = 0):
    from ._creation import tril_indices

    a = as_operand(arr)
    return tril_indices(a.shape[-2], k, a.shape[-1])


def triu_indices_from(arr, k: int = 0):
    from ._creation import triu_indices

    a = as_operand(arr)
    return triu_indices(a.shape[-2], k, a.shape[-1])


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """A copy of ``a`` with ``val`` (repeated as needed) on its main diagonal (JAX requires
    ``inplace=False`` and refuses ``wrap``).

    >>> jnp.fill_diagonal(jnp.zeros((2, 2)), 5.0, inplace=False)
    Array([[5., 0.],
           [0., 5.]], dtype=float32)
    """
    from ._creation import diag_indices
    from ._array_edits import _tile_to

    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    check_arraylike("fill_diagonal", a, val)
    if transfers.active[0] and type(val) in (bool, int, float, complex):
        # (JAX's ensure_arraylike converts a Python scalar on the host: what is transferred is a
        # strong array of its default type, made weak as the scalar was)
        dtype = core.python_scalar_dtype(val)
        if transfers.entering(val, dtype, False):
            val = core.Array(np.asarray(val, dtype), type(val) is not bool)
    a, val = as_operand(a), as_operand(val)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and not all(n == a.shape[0] for n in a.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = builtins.min(a.shape)
    return a.at[diag_indices(n, a.ndim)].set(val if val.ndim == 0 else _tile_to(ravel(val), n))
