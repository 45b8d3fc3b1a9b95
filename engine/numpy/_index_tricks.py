"""Index arithmetic (ix_, unravel_index, ravel_multi_index) and editing entries at static positions
along an axis (delete, insert, compress)."""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .. import core, lax
from ..core import Array, Tracer
from ..narrow_dtypes import kind as dtype_kind
from ._promote import as_operand, canonicalize_axis, check_arraylike, concrete_int, concrete_shape
from ._searching import _concrete_value
from ._shape import concatenate, moveaxis, ravel


def ix_(*args):
    """Open-mesh index arrays: ``x[ix_(rows, cols)]`` selects the cross product.

    >>> [a.shape for a in jnp.ix_(jnp.array([0, 2]), jnp.array([1, 3, 4]))]
    [(2, 1), (1, 3)]
    """
    check_arraylike("ix", *args)
    out = []
    for i, a in enumerate(as_operand(a) for a in args):
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {a.shape}")
        if a.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(args)
        shape[i] = a.shape[0]
        if a.size == 0:  # (numpy's integer index type for an empty one)
            out.append(lax.full(shape, np.zeros((), np.intp)))
        else:
            out.append(lax.broadcast_in_dim(a, shape, (i,)))
    return tuple(out)


def unravel_index(indices, shape):
    """Coordinates of flat ``indices`` in an array of ``shape``: repeated divmods from the last
    axis; indices past either end give the last (first) coordinates.

    >>> jnp.unravel_index(jnp.array([5, 11]), (3, 4))
    (Array([1, 2], dtype=int32), Array([1, 3], dtype=int32))
    """
    from ._creation import asarray
    from ._selection import where
    from ._ufuncs import divmod as divmod_

    check_arraylike("unravel_index", indices)
    idx = as_operand(indices)
    try:
        shape = list(shape)  # (kept as given: weakly typed sizes stay weak)
    except TypeError:
        shape = [shape]
    if any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    coords: list = [0] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        idx, coords[i] = divmod_(idx, s)
    past_end = idx > 0
    before_start = asarray(False) if dtype_kind(idx.dtype) == "u" else idx < -1
    return tuple(where(past_end, s - 1, where(before_start, 0, c)) for s, c in zip(shape, coords))


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C", *, dtype=None):
    """The flat index of each coordinate tuple in an array of shape ``dims`` (``mode``: what out of
    range coordinates do: ``raise`` -- which needs concrete values --, ``clip``, ``wrap``, ``ignore``).

    >>> jnp.ravel_multi_index((jnp.array([0, 1]), jnp.array([2, 0])), (2, 3))
    Array([2, 3], dtype=int32)
    """
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


def delete(arr, obj, axis=None, *, assume_unique_indices: bool = False):
    """``arr`` without the entries at ``obj`` along ``axis``: a static integer (two slices joined),
    a slice, or an array of indices or a mask (static; integer indices may be traced with
    ``assume_unique_indices=True``, the result's size then being static).

    >>> jax.jit(lambda x, i: delete(x, i, assume_unique_indices=True))(jnp.arange(5), jnp.array([3, 0]))
    Array([1, 2, 4], dtype=int32)
    """
    check_arraylike("delete", arr)
    a = as_operand(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, a.ndim)
    before = (slice(None),) * axis
    try:
        position = operator.index(obj)
    except TypeError:
        pass
    else:
        position = canonicalize_axis(position, a.shape[axis])
        return concatenate(
            [a[before + (slice(0, position),)], a[before + (slice(position + 1, None),)]], axis=axis
        )
    if isinstance(obj, slice):
        from ._creation import arange

        obj, assume_unique_indices = arange(a.shape[axis])[obj], True
    check_arraylike("delete", a, obj)
    if hasattr(obj, "__jax_array__"):
        obj = obj.__jax_array__()
    obj_dtype = obj.dtype if hasattr(obj, "dtype") else np.asarray(obj).dtype
    if dtype_kind(obj_dtype) in "iu" and assume_unique_indices:
        return _delete_unique(a, obj, axis)
    positions = np.asarray(_concrete_value(obj, "'obj' array argument of jnp.delete()"))
    if dtype_kind(positions.dtype) in "iu":
        mask = np.ones(a.shape[axis], dtype=bool)
        mask[positions] = False
    elif positions.dtype == bool:
        if positions.shape != (a.shape[axis],):
            raise ValueError(
                "np.delete(arr, obj): for boolean indices, obj must be one-dimensional "
                "with length matching specified axis."
            )
        mask = ~positions
    else:
        raise ValueError(f"np.delete(arr, obj): got obj.dtype={positions.dtype}; must be integer or bool.")
    return a[before + (mask,)]


def _delete_unique(a, positions, axis):
    """Delete distinct (possibly traced) positions: the kept entries are the first ``n - k``
    positions, each moved up past every deleted position at or before it."""
    from ._creation import arange, asarray
    from ._searching import sort
    from ._selection import clip, where

    n = a.shape[axis]
    pos = ravel(asarray(positions))
    pos = sort(clip(where(pos < 0, pos + n, pos), 0, n))
    pos -= arange(len(pos), dtype=pos.dtype)
    keep = arange(n - pos.size, dtype=pos.dtype)
    keep += (keep[None, :] >= pos[:, None]).sum(0, dtype=keep.dtype)
    return a[(slice(None),) * axis + (keep,)]


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the indices ``obj`` (a slice, an index or an array of
    them, possibly traced) along ``axis``: zeros of the joint shape, then the values scattered to
    their sorted positions and the array's entries to the rest.

    >>> jnp.insert(jnp.array([1, 2, 3]), 1, 9)
    Array([1, 9, 2, 3], dtype=int32)
    """
    from ._creation import arange, array, asarray, full, ones, zeros_like
    from ._searching import argsort
    from ._selection import clip, where

    check_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
    a = as_operand(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(concrete_int(axis, "axis argument of jnp.insert()"), a.ndim)
    indices = arange(*obj.indices(a.shape[axis])) if isinstance(obj, slice) else asarray(obj)
    if indices.ndim > 1:
        raise ValueError(
            f"jnp.insert(): obj must be a slice, a one-dimensional array, or a scalar; got {obj}"
        )
    if dtype_kind(indices.dtype) not in "iu":
        if indices.size == 0 and not isinstance(obj, (Array, Tracer)):
            indices = indices.astype(int)
        else:  # (numpy's boolean positions are deprecated)
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    values = array(values, ndmin=a.ndim, dtype=a.dtype, copy=False)
    if indices.size == 1:  # one position: all the values go there (a scalar one: their first axis)
        index = ravel(indices)[0]
        if indices.ndim == 0:
            values = moveaxis(values, 0, axis)
        indices = full(values.shape[axis], index)
    n_input = a.shape[axis]
    n_insert = np.broadcast_shapes(indices.shape, (values.shape[axis],))[0]
    out_shape = list(a.shape)
    out_shape[axis] += n_insert
    out = zeros_like(a, shape=tuple(out_shape))
    indices = clip(where(indices < 0, indices + n_input, indices), 0, n_input)
    values_at = indices.at[argsort(indices)].add(arange(n_insert, dtype=indices.dtype))
    arr_at = where(ones(n_input + n_insert, dtype=bool).at[values_at].set(False), size=n_input)[0]
    out = out.at[(slice(None),) * axis + (values_at,)].set(values)
    return out.at[(slice(None),) * axis + (arr_at,)].set(a)


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    from ._reductions import no_out

    no_out("compress", out)
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    if size is not None:  # a fixed size: traceable (selected rows first, then fill_value rows)
        return _compress_sized(as_operand(condition), a, axis, size, fill_value)
    # As JAX: the condition is an array op (staged under a trace, where the bounds check below
    # raises TracerBoolConversionError), and entries past the axis must be False.
    from ._reductions import any as any_
    from ._shape import moveaxis

    cond = as_operand(condition).astype(bool)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1D array")
    a = moveaxis(a, axis, 0)
    cond, extra = cond[: a.shape[0]], cond[a.shape[0] :]
    a = a[: cond.shape[0]]
    if any_(extra):
        raise ValueError("condition contains entries that are out of bounds")
    return moveaxis(a[cond], 0, axis)


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
