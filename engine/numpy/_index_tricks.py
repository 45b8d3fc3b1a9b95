"""Index arithmetic (ix_, unravel_index, ravel_multi_index) and editing entries at static positions
along an axis (delete, insert, compress)."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import lax
from ..core import Array, Tracer
from ._promote import as_operand, canonicalize_axis, concrete_shape, convert
from ._searching import _concrete_value, nonzero
from ._shape import broadcast_to, concatenate, moveaxis, ravel


def ix_(*args):
    """Open-mesh index arrays: ``x[ix_(rows, cols)]`` selects the cross product."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = as_operand(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == np.bool_:
            a = nonzero(a)[0]
        out.append(lax.reshape(a, (1,) * i + (a.shape[0],) + (1,) * (n - i - 1)))
    return tuple(out)


def unravel_index(indices, shape):
    """Coordinates of flat ``indices`` in an array of ``shape`` (out-of-range ones are clipped)."""
    idx = as_operand(indices)
    shape = concrete_shape(shape)
    size = int(np.prod(shape, dtype=np.int64))
    idx = lax.clamp(lax.full((), -size, idx.dtype), idx, lax.full((), size - 1, idx.dtype))
    idx = lax.select(lax.lt(idx, lax.full_like(idx, 0)), lax.add(idx, lax.full_like(idx, size)), idx)
    out = []
    for d in reversed(shape):
        out.append(lax.rem(idx, lax.full_like(idx, d)))
        idx = lax.div(idx, lax.full_like(idx, d))
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *, dtype=None):
    """The flat index of each coordinate tuple in an array of shape ``dims`` (``mode``: what out of
    range coordinates do: ``raise`` -- which needs concrete values --, ``clip``, ``wrap``, ``ignore``).

    >>> jnp.ravel_multi_index((jnp.array([0, 1]), jnp.array([2, 0])), (2, 3))
    Array([2, 3], dtype=int32)
    """
    from .. import core
    from ._dtypes import result_type, to_dtype
    from ._reductions import any as any_
    from ._selection import clip

    if len(multi_index) != len(dims):
        raise AssertionError(f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = concrete_shape(dims)
    indices = [as_operand(i) for i in multi_index]
    dtype = result_type(int, *indices) if dtype is None else core.canonical_dtype(to_dtype(dtype))
    if dtype.kind not in "iu":
        raise ValueError(f"{dtype=} is not an integer type.")
    if math.prod(dims) - 1 > np.iinfo(dtype).max:
        raise ValueError(
            f"jnp.ravel_multi_index: {dtype=} not large enough to hold flattened index for {dims=}."
        )
    for i in indices:
        if mode == "raise":
            core.concrete_or_error(
                i,
                "The error occurred because ravel_multi_index was jit-compiled with mode='raise'. "
                "Use mode='wrap' or mode='clip' instead.",
            )
        if i.dtype.kind not in "iu":
            raise TypeError("only int indices permitted")
    if mode == "raise":
        if builtins.any(bool(any_((i < 0) | (i >= d))) for i, d in zip(indices, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        indices = [clip(i, 0, d - 1) for i, d in zip(indices, dims)]
    elif mode == "wrap":
        indices = [i % d for i, d in zip(indices, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or 'ignore'.")
    if order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    elif order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    flat = np.zeros((), dtype)  # (JAX's array(0, dtype): a literal)
    for i, stride in zip(indices, strides):
        flat = flat + i.astype(dtype) * int(stride)
    return flat


def _static_positions(obj, n, what):
    v = obj if not isinstance(obj, (Array, Tracer)) else _concrete_value(obj, what)
    if isinstance(v, slice):
        return np.arange(n)[v]
    v = np.atleast_1d(np.asarray(v))
    if v.dtype == np.bool_:
        return np.nonzero(v)[0]
    return np.where(v < 0, v + n, v)


def delete(arr, obj, axis=None, *, assume_unique_indices: bool = False):
    """``arr`` without the entries at ``obj`` (static indices, slice or mask) along ``axis``; with
    ``assume_unique_indices=True``, integer indices may be traced (the result's size is static).

    >>> jax.jit(lambda x, i: delete(x, i, assume_unique_indices=True))(jnp.arange(5), jnp.array([3, 0]))
    Array([1, 2, 4], dtype=int32)
    """
    from ._take import take

    a = as_operand(arr)
    if axis is None:
        a, axis = ravel(a), 0
    ax = canonicalize_axis(axis, a.ndim)
    n = a.shape[ax]
    if assume_unique_indices and not isinstance(obj, (slice, int, np.integer)):
        obj = as_operand(obj)
        if obj.dtype.kind in "iu":
            return _delete_unique(a, obj, ax)
    keep = np.setdiff1d(np.arange(n), _static_positions(obj, n, "jnp.delete"))
    return take(a, Array(keep.astype(np.int32)), axis=ax)


def _delete_unique(a, positions, axis):
    """Delete distinct (possibly traced) positions: the kept entries are the first ``n - k``
    positions, each moved up past every deleted position at or before it."""
    from ._creation import arange
    from ._searching import sort
    from ._selection import clip, where

    n = a.shape[axis]
    pos = ravel(positions)
    pos = sort(clip(where(pos < 0, pos + n, pos), 0, n))
    pos = pos - arange(pos.shape[0], dtype=pos.dtype)
    keep = arange(n - pos.shape[0], dtype=pos.dtype)
    keep = keep + (keep[None, :] >= pos[:, None]).sum(0, dtype=keep.dtype)
    return a[(slice(None),) * axis + (keep,)]


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the (static) indices ``obj`` along ``axis``."""
    from ._creation import asarray
    from ._take import take

    a = as_operand(arr)
    if axis is None:
        a, axis = ravel(a), 0
    ax = canonicalize_axis(axis, a.ndim)
    n = a.shape[ax]
    vals = convert(asarray(values), a.dtype)
    if np.ndim(obj) == 0 and not isinstance(obj, slice):
        pos = int(_static_positions(obj, n + 1, "jnp.insert")[0])
        # numpy's rule for one position: values gain leading axes, then their first axis moves to ``axis``.
        vals = lax.reshape(vals, (1,) * (a.ndim - vals.ndim) + vals.shape)
        vals = moveaxis(vals, 0, ax)
        shape = list(a.shape)
        shape[ax] = vals.shape[ax]
        vals = broadcast_to(vals, shape)
        m = shape[ax]
    else:
        pos = _static_positions(obj, n + 1, "jnp.insert")
        m = len(pos)
        shape = list(a.shape)
        shape[ax] = m
        vals = broadcast_to(vals, shape) if vals.ndim else broadcast_to(vals, shape)
    # numpy's own insert on positions gives the permutation of concatenate([a, vals]).
    order = np.insert(np.arange(n), pos, np.arange(n, n + m))
    return take(concatenate([a, vals], ax), Array(order.astype(np.int32)), axis=ax)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    from ._reductions import no_out
    from ._take import take

    no_out("compress", out)
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    if size is not None:  # a fixed size: traceable (selected rows first, then fill_value rows)
        return _compress_sized(as_operand(condition), a, axis, size, fill_value)
    cond = _concrete_value(condition, "jnp.compress").astype(bool)
    idx = np.nonzero(cond)[0]
    return take(a, Array(idx.astype(np.int32)), axis=axis)


def _compress_sized(condition, a, axis, size, fill_value):
    from ._searching import argsort
    from ._selection import where
    from ._shape import expand_dims, moveaxis

    cond = condition.astype(bool)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1D array")
    a = moveaxis(a, axis, 0)
    cond, _ = cond[: a.shape[0]], cond[a.shape[0] :]  # (JAX cuts off the excess, staged, then ignores it)
    a = a[: cond.shape[0]]
    if not 0 <= size <= a.shape[0]:
        raise ValueError(
            "size must be positive and not greater than the size of the array axis;"
            f" got {size=} for a.shape[axis]={a.shape[0]}"
        )
    mask = expand_dims(cond, tuple(range(1, a.ndim)))
    # (JAX's jnp.array(fill_value, dtype): a copy of the array, staged even for a constant, converted)
    fill = lax.convert_element_type(lax.copy_p.bind(as_operand(fill_value)), a.dtype)
    a = where(mask, a, fill)
    return moveaxis(a[argsort(cond, stable=True, descending=True)][:size], 0, axis)
