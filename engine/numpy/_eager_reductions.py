"""Eager sums, means, maxima and minima of a concrete float32/float64 array, the common case (no
``dtype``, ``where`` or ``initial``), without jnp's general path.

That path (dtype promotion, converts, lax's checks, a bind per primitive, a broadcast_in_dim for
``keepdims``) decides the same things on every such call and cost 20-40 us of the ~7 us JAX's
eager sum takes. Here the case calls the primitives' own impls, the functions ``EvalTrace`` runs on
the same numpy operands with the same params, so results are the general path's to the bit (and
its weak types: the general path converts its operand to a strong one first). Anything else, and
anything while staging or under a checking config (``core.staging_anywhere``), returns None: the
caller takes the general path.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..core import Array
from ..lax import elementwise as ew
from ..lax import reductions as red
from ..lax import sum_order
from ._promote import canonicalize_axes, check_axes_index

_staging = core.staging_anywhere
_impl = core.impl_rules


def _operand(a) -> np.ndarray | None:
    if _staging[0] or type(a) is not Array:
        return None
    v = a._value
    return v if v.dtype.char in "fd" else None  # (float32, float64: a dtype's == costs 1 us)


def _axes(axis, ndim: int) -> tuple | None:
    """``canonicalize_axes``' axes, or None where lax's check of them refuses them (a 0-d array's
    axis 0, which jnp lets through; repeated axes): the general path raises there."""
    if type(axis) is int and -ndim <= axis < ndim:  # (the common case, without the general checks)
        return (axis % ndim,)
    axes = canonicalize_axes(axis, ndim)
    if len(set(axes)) != len(axes) or any(not 0 <= a < ndim for a in axes):
        return None
    return axes


def _result(out, shape, axes, keepdims) -> Array:
    if keepdims:  # (broadcast_in_dim of a reduced array to size-1 axes: its values, reshaped)
        out = np.reshape(out, [1 if i in axes else n for i, n in enumerate(shape)])
    return Array(out, False)


def sum(a, axis, keepdims) -> Array | None:
    """``jnp.sum(a, axis, keepdims=keepdims)``, or None (the general path)."""
    v = _operand(a)
    total = None if v is None else _sum(v, axis, keepdims)
    return None if total is None else Array(total[0], False)


def _sum(v: np.ndarray, axis, keepdims) -> tuple[np.ndarray, int] | None:
    """The sum of ``v`` over ``axis`` (reduce_sum's impl) and the count of what it added, or None
    where lax's checks would refuse the axes."""
    if (
        v.ndim == 1
        and v.dtype.char == "f"
        and 1 < v.shape[0] < sum_order.TREE_LIMIT  # (one element: reduce_sum reshapes it)
        and (axis is None or (type(axis) is int and -1 <= axis <= 0))
    ):  # (the whole of a float32 vector: where reduce_sum's impl comes to, without the dispatch)
        out = sum_order._sum_1d(v)
        return (out.reshape(1) if keepdims else out), v.shape[0]
    if axis is None and v.dtype.char == "f" and 1 < v.size < sum_order.TREE_LIMIT:
        # (the whole of a float32 array, as reduce_sum's impl sums it, without the dispatch)
        out = sum_order.sum_f32(v, tuple(range(v.ndim)))
        return (out.reshape((1,) * v.ndim) if keepdims else out), v.size
    axes = _axes(axis, v.ndim)
    if axes is None:
        return None
    n = 1
    for i in axes:
        n *= v.shape[i]
    out = _impl[red.reduce_sum_p](v, axes=axes, out_sharding=None)
    if keepdims:  # (broadcast_in_dim of a reduced array to size-1 axes: its values, reshaped)
        out = np.reshape(out, [1 if i in axes else d for i, d in enumerate(v.shape)])
    return out, n


def extreme(name, a, axis, keepdims, initial) -> Array | None:
    """``jnp.max`` or ``jnp.min`` (``name``) with no ``initial`` or a Python float's (the general
    path's ``lax.max(initial, result)``), or None (the general path)."""
    v = _operand(a)
    if v is None or not (initial is None or (type(initial) is float and v.dtype.kind == "f")):
        return None  # (an int's initial: parsed and cast as the general path does)
    axes = _axes(axis, v.ndim)
    if axes is None or any(
        v.shape[i] == 0 for i in axes
    ):  # (the general path raises numpy's error, or gives initial)
        return None
    reduce, combine = (red.reduce_max_p, ew.max_p) if name == "max" else (red.reduce_min_p, ew.min_p)
    out = _impl[reduce](v, axes=axes)
    if initial is not None:
        out = _impl[combine](np.asarray(initial, v.dtype), np.asarray(out))
    return _result(out, v.shape, axes, keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None) -> Array | None:
    """``jnp.mean(a, axis, keepdims=keepdims)``: the sum times the rounded reciprocal of the count
    (``divide_by_constant``: what XLA computes), or None (the general path)."""
    v = _operand(a)
    if v is None or dtype is not None or out is not None or where is not None:
        return None
    check_axes_index(v.shape, axis)
    summed = _sum(v, axis, keepdims)
    if summed is None:
        return None
    total, n = summed
    if n:  # (1/n and a sum times it raise no floating-point flag: no errstate, ~1.5 us)
        return Array(np.multiply(np.asarray(total), np.true_divide(v.dtype.type(1), v.dtype.type(n))), False)
    with np.errstate(all="ignore"):  # (div's and mul's impls for float32/float64: IEEE's)
        one_over_n = np.true_divide(v.dtype.type(1), v.dtype.type(n))
        return Array(np.multiply(np.asarray(total), one_over_n), False)
