"""Slicing and indexing primitives, with XLA's semantics evaluated in numpy: ``slice`` here,
``dynamic_slice``/``dynamic_update_slice`` in ``dynamic_slicing``, ``gather`` and the scatter family
in ``gather_scatter``. Every name stays importable from this module.
"""

from __future__ import annotations

import builtins
from typing import Sequence

import numpy as np

from .. import ad, batching, core, dims, narrow_dtypes
from ..core import Primitive, ShapedArray
from ..errors import invalid_shape_error


def _lax():
    from . import api

    return api


# ---------------------------------------------------------------------------------------------
# slice

_pyslice = builtins.slice  # `slice` below is lax.slice
slice_p = Primitive("slice")
# Moves narrow values (bfloat16, ...) as they are: numpy moves ml_dtypes' values, nothing to widen.
narrow_dtypes.keeps_narrow.add(slice_p)


def slice(
    operand, start_indices: Sequence[int], limit_indices: Sequence[int], strides: Sequence[int] | None = None
):
    """``operand[start:limit:stride]`` along every dimension, with static bounds.

    >>> slice(jnp.arange(10), (1,), (8,), (3,))
    Array([1, 4, 7], dtype=int32)
    """
    _check_slice_bounds(operand, start_indices, limit_indices)
    return slice_p.bind(
        operand,
        start_indices=tuple(i if type(i) is int else dims.as_dim(i) for i in start_indices),
        limit_indices=tuple(i if type(i) is int else dims.as_dim(i) for i in limit_indices),
        strides=None if strides is None else tuple(int(s) for s in strides),
    )


def _check_slice_bounds(operand, start_indices, limit_indices):
    """JAX's TypeErrors for bounds that are no integers: traced, its shape rule's check names the
    bounds' types; eagerly JAX slices by its dynamic_slice (whose starts must be integer arrays),
    and a float limit makes a float result shape."""

    def integer(d):
        return dims.is_constant_dim(d) or dims.is_symbolic_dim(d)

    for what, bounds in (("start_indices", start_indices), ("limit_indices", limit_indices)):
        if all(integer(d) for d in bounds):
            continue
        if isinstance(operand, core.Tracer):
            got = tuple(map(type, bounds))
            raise TypeError(f"slice {what} must have every element be an integer type, got {got}.")
        if what == "start_indices":
            names = ", ".join(core.default_dtype(int if integer(d) else float).name for d in bounds)
            raise TypeError(
                f"index arguments to dynamic_slice must be integers of the same type, got: {names}"
            )
        raise invalid_shape_error(tuple(np.subtract(np.asarray(limit_indices), np.asarray(start_indices))))


@slice_p.def_impl
def _slice_impl(x, *, start_indices, limit_indices, strides):
    unstrided = strides is None
    strides = strides or (1,) * x.ndim
    if len(start_indices) != x.ndim or not all(
        0 <= a <= b <= n and s > 0 for a, b, n, s in zip(start_indices, limit_indices, x.shape, strides)
    ):  # (numpy would clamp what does not fit: JAX's shape rule refuses it)
        if unstrided and len(start_indices) == len(limit_indices) == x.ndim:
            return _as_dynamic_slice(x, start_indices, limit_indices)
        _slice_abstract(x, start_indices=start_indices, limit_indices=limit_indices, strides=strides)
    return x[tuple(_pyslice(a, b, s) for a, b, s in zip(start_indices, limit_indices, strides))]


def _as_dynamic_slice(x, start_indices, limit_indices):
    """An eager unstrided slice as JAX runs it: a ``dynamic_slice`` of sizes ``limit - start``
    (its rule's checks, in its words; its starts clamped into the operand)."""
    sizes = tuple(np.array(limit_indices) - np.array(start_indices))
    starts = [np.int32(a) for a in start_indices]
    dynamic_slice_p.abstract_eval(core.get_aval(x), *map(core.get_aval, starts), slice_sizes=sizes)
    return core.impl_rules[dynamic_slice_p](x, *starts, slice_sizes=tuple(map(int, sizes)))


@slice_p.def_abstract_eval
def _slice_abstract(x, *, start_indices, limit_indices, strides):
    for what, bounds in (("start_indices", start_indices), ("limit_indices", limit_indices)):
        if not all(d >= 0 for d in bounds if dims.is_constant_dim(d)):  # (JAX's _check_shapelike)
            raise TypeError(f"slice {what} must have every element be nonnegative, got {bounds}.")
    if x.ndim != len(start_indices):
        raise TypeError(
            f"slice start_indices must have length equal to the number of dimensions of the operand, "
            f"got indices {start_indices} for operand shape {x.shape}."
        )
    if len(start_indices) != len(limit_indices):
        raise TypeError(
            f"slice limit_indices must have the same length as start_indices, got start_indices "
            f"{start_indices} and limit_indices {limit_indices}."
        )
    # (each condition over all dimensions in turn, as JAX's rule: which one a symbolic dimension
    # cannot decide is part of its message)
    if not all(n >= b for n, b in zip(x.shape, limit_indices)):
        raise TypeError(
            f"slice limit_indices must be less than or equal to operand shape, got limit_indices "
            f"{limit_indices} for operand shape {x.shape}."
        )
    if not all(a >= 0 for a in start_indices):
        raise TypeError(
            f"slice start_indices must be greater than or equal to zero, got start_indices of {start_indices}."
        )
    if not all(b >= a for a, b in zip(start_indices, limit_indices)):
        raise TypeError(
            f"slice limit_indices must be greater than or equal to start_indices, got start_indices "
            f"{start_indices} and limit_indices {limit_indices}."
        )
    strides = strides or (1,) * x.ndim
    if len(strides) != x.ndim:
        raise TypeError(
            f"slice strides must have length equal to the number of dimensions of the operand, got "
            f"strides {strides} for operand shape {x.shape}."
        )
    if not all(st >= 0 for st in strides):
        raise TypeError(f"slice strides must be positive, got {strides}")
    # (a zero stride divides by zero here, as in JAX)
    shape = [(b - a + st - 1) // st for a, b, st in zip(start_indices, limit_indices, strides)]
    return ShapedArray(shape, x.dtype, x.weak_type)


def _i64(d):
    return d if dims.is_symbolic_dim(d) else np.int64(d)


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    lax = _lax()
    shape = x.aval.shape
    strides = strides or (1,) * len(shape)
    out_shape = core.get_aval(ct).shape
    # The last element taken sits at start + (n - 1) * stride; everything after it is high padding.
    # (numpy integers where JAX computes them with numpy, so the printed params match JAX's.)
    if all(s == 1 for s in strides):
        config = tuple((a, _i64(d - b), 0) for a, d, b in zip(start_indices, shape, limit_indices))
    else:
        real_limits = [a + (n - 1) * s + 1 if n else a for a, n, s in zip(start_indices, out_shape, strides)]
        config = tuple(
            (a, _i64(d - r), np.int64(s - 1))
            for a, d, r, s in zip(start_indices, shape, real_limits, strides)
        )
    from .structural import pad_p  # bound directly: lax.pad would make the numpy ints plain ints

    return [pad_p.bind(ct, lax.full((), 0, ct.dtype), padding_config=config)]


def _slice_batch(size, vals, dims, *, start_indices, limit_indices, strides):
    x, d = vals[0], dims[0]
    n = core.get_aval(x).shape[d]
    starts = list(start_indices)
    limits = list(limit_indices)
    starts.insert(d, 0)
    limits.insert(d, n)
    if strides is not None:
        strides = list(strides)
        strides.insert(d, 1)
        strides = tuple(strides)
    return slice_p.bind(x, start_indices=tuple(starts), limit_indices=tuple(limits), strides=strides), d


ad.deflinear(slice_p, _slice_transpose)
batching.batch_rules[slice_p] = _slice_batch


def slice_in_dim(operand, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0):
    """``slice`` along one axis; ``None`` bounds and negative indices as in Python slicing."""
    shape = core.get_aval(operand).shape
    axis = int(axis)
    size = shape[axis]  # (an axis out of range: Python's IndexError, as in JAX)
    axis %= len(shape)
    if dims.is_symbolic_dim(size) or dims.is_symbolic_dim(limit_index):
        # as JAX: negative bounds count from the end, no clamping (the slice checks the bounds)
        start = 0 if start_index is None else start_index + shape[axis] if start_index < 0 else start_index
        limit = (
            shape[axis]
            if limit_index is None
            else limit_index + shape[axis]
            if limit_index < 0
            else limit_index
        )
    else:
        start, limit, _ = _pyslice(start_index, limit_index).indices(shape[axis])
    starts = [0] * len(shape)
    limits = list(shape)
    strides = [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, dims.max_dim(limit, start), int(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """The ``index``-th element along ``axis`` (negative indices count from the end)."""
    shape = core.get_aval(operand).shape
    axis = int(axis)
    shape[axis]  # (an axis out of range: Python's IndexError, as in JAX)
    axis %= len(shape)
    index = int(index)
    if not -shape[axis] <= index < shape[axis]:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {shape[axis]}")
    index %= shape[axis]
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else _lax().squeeze(out, (axis,))


from .dynamic_slicing import (  # noqa: E402,F401  (importable from here, as before the split)
    _check_indices,
    _clamped_starts,
    _dynamic_slice_indices,
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_slice_p,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    dynamic_update_slice_p,
)
from .gather_scatter import (  # noqa: E402,F401
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    gather,
    gather_p,
    scatter,
    scatter_add,
    scatter_add_p,
    scatter_apply,
    scatter_max,
    scatter_max_p,
    scatter_min,
    scatter_min_p,
    scatter_mul,
    scatter_mul_p,
    scatter_p,
    scatter_sub,
    scatter_sub_p,
)
