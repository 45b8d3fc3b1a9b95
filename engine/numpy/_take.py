"""``jnp.take`` and ``jnp.take_along_axis``, as JAX writes them (gathers, staged as JAX's jits)."""

from __future__ import annotations

import numpy as np

from .. import lax
from ..core import Array
from ._index_parsing import _INT32
from ._indexing import _CLIP, _PROMISE, _normalize_index, rewriting_take
from ._promote import as_operand, broadcast_shapes, convert
from ._staged import staged_as_jit
from ..narrow_dtypes import kind as dtype_kind


def take(
    a,
    indices,
    axis: int | None = None,
    out=None,
    mode=None,
    unique_indices=False,
    indices_are_sorted=False,
    fill_value=None,
):
    """Elements of ``a`` at ``indices`` along ``axis`` (flattened when None); out of bounds gives
    ``fill_value`` (NaN for floats) unless ``mode='clip'`` or ``'wrap'``.

    >>> jnp.take(jnp.array([10, 20, 30]), jnp.array([2, 0]))
    Array([30, 10], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    return _take(
        as_operand(a),
        as_operand(indices),
        axis=None if axis is None else int(axis.__index__()),
        mode=mode,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
        fill_value=fill_value,
    )


@staged_as_jit(static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted", "fill_value"))
def _take(a, indices, axis=None, mode=None, unique_indices=False, indices_are_sorted=False, fill_value=None):
    from ._promote import canonicalize_axis
    from ._shape import ravel
    from ._selection import _where
    from ._ufuncs import remainder

    if dtype_kind(indices.dtype) not in "iu":
        raise ValueError("indices must have an integer type")  # (JAX's class and words)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonicalize_axis(axis, a.ndim)
    n = a.shape[axis]
    if mode is None or mode == "fill":
        gather_mode = lax.GatherScatterMode.FILL_OR_DROP
        # gather does not count negative indices from the end; take does
        indices = _where(indices < 0, indices + n, indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = remainder(indices, Array(np.asarray(n, indices.dtype)))
        gather_mode = _PROMISE
    elif mode == "clip":
        gather_mode = _CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")
    slice_sizes = list(a.shape)
    if n == 0:
        if indices.size != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if indices.size == 0:
        return lax.full_like(
            a, 0, shape=tuple(slice_sizes[:axis]) + indices.shape + tuple(slice_sizes[axis + 1 :])
        )
    slice_sizes[axis] = 1
    index_dims = indices.ndim
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(list(range(axis)) + list(range(axis + index_dims, a.ndim + index_dims - 1))),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
    )
    return lax.gather(
        a,
        rewriting_take(indices, (Ellipsis, None)),
        dnums,
        tuple(slice_sizes),
        mode=gather_mode,
        unique_indices=unique_indices,
        indices_are_sorted=indices_are_sorted,
        fill_value=fill_value,
    )


def take_along_axis(
    arr, indices, axis: int | None = -1, mode=None, fill_value=None, *, wrap_negative_indices=None
):
    """Pick ``arr`` values at ``indices`` along ``axis``; the other axes are matched (broadcast).

    >>> x = jnp.array([[3, 1], [0, 5]])
    >>> jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
    Array([[1, 3],
           [0, 5]], dtype=int32)
    """
    a, i = as_operand(arr), as_operand(indices)
    return _take_along_axis(
        a, i, axis, mode=mode, fill_value=fill_value, wrap_negative_indices=wrap_negative_indices
    )


@staged_as_jit(
    name="take_along_axis", static_argnames=("axis", "mode", "fill_value", "wrap_negative_indices")
)
def _take_along_axis(a, indices, axis, mode=None, fill_value=None, wrap_negative_indices=None):
    from ._promote import canonicalize_axis
    from ._shape import ravel

    if dtype_kind(indices.dtype) not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got {indices.dtype.name}")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape {indices.shape}")
        a, axis = ravel(a), 0
    rank = a.ndim
    if rank != indices.ndim:
        raise ValueError(
            f"indices and arr must have the same number of dimensions; {indices.ndim} vs. {a.ndim}"
        )
    axis = canonicalize_axis(axis, rank)
    idx_shape = indices.shape
    axis_size = a.shape[axis]
    arr_shape = a.shape[:axis] + (1,) + a.shape[axis + 1 :]
    out_shape = broadcast_shapes(idx_shape, arr_shape)
    if axis_size == 0:
        return lax.full(out_shape, 0, a.dtype)
    # (JAX's: negative indices wrap, unless told not to or, by default, under promise_in_bounds)
    wrap = mode != "promise_in_bounds" if wrap_negative_indices is None else wrap_negative_indices
    if wrap:
        # (JAX's: any integer type is made int32, signed, before negative indices wrap)
        indices = _normalize_index(convert(indices, _INT32), axis_size)
    index_dims = [i for i, d in enumerate(idx_shape) if i == axis or d != 1]
    indices = lax.reshape(indices, tuple(out_shape[i] for i in index_dims) + (1,))
    slice_sizes, offset_dims, start_index_map, collapsed, op_batching, idx_batching = [], [], [], [], [], []
    squeeze, new_i, j = [], 0, 0
    for i in range(rank):
        if i == axis:
            slice_sizes.append(1)
            start_index_map.append(new_i)
            collapsed.append(new_i)
            new_i += 1
            j += 1
        elif idx_shape[i] == 1:  # take the whole axis: no iota index
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeeze.append(i)
            j += 1
        else:  # matching axes of array and indices pair up as batching dims
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            op_batching.append(new_i)
            idx_batching.append(j)
            new_i += 1
            j += 1
    a = lax.squeeze(a, tuple(squeeze))
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(collapsed),
        start_index_map=tuple(start_index_map),
        operand_batching_dims=tuple(op_batching),
        start_indices_batching_dims=tuple(idx_batching),
    )
    return lax.gather(
        a, indices, dnums, tuple(slice_sizes), mode="fill" if mode is None else mode, fill_value=fill_value
    )
