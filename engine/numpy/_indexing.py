"""numpy-style indexing (``x[idx]``) and functional updates (``x.at[idx].set(v)``), lowered as JAX
0.10.2 lowers them (``jax._src.numpy.indexing``), so the jaxprs are JAX's:

* the index is parsed against the shape (``None``, ``Ellipsis``, slices, ints, bool and int arrays);
* static ints and slices become ``lax.slice`` / ``lax.rev`` / ``lax.squeeze`` / ``expand_dims``;
* ints with traced scalars become one ``lax.dynamic_slice`` (negative starts count from the end;
  starts are clamped, as XLA does);
* anything else is one ``lax.gather`` (``PROMISE_IN_BOUNDS`` by default, which clamps), whose
  indices and dimension numbers ``_index_to_gather`` builds;
* updates are the transposed gather: one ``lax.scatter*`` (out-of-bounds updates dropped).

Index parsing is in ``_index_parsing``, ``take``/``take_along_axis`` in ``_take``, the ``.at[]``
helper in ``_index_update``.
"""

from __future__ import annotations

import functools

from typing import NamedTuple

import numpy as np

from .. import core, dims, lax, transfers
from ..core import Array, Tracer
from ._index_parsing import (
    _ARRAY,
    _BOOLEAN,
    _DYNAMIC_SLICE,
    _ELLIPSIS,
    _INT32,
    _INTEGER,
    _NONE,
    _SLICE,
    _expand_bool_indices,
    _expand_ellipses,
    _parse,
    _parse_mode,
    _Parsed,
    _slice_indices,
    _static_slice_part,
    _validate_slices,
)
from ._promote import as_operand, broadcast_shapes, broadcast_to_shape, convert, promote_dtypes
from ..narrow_dtypes import kind as dtype_kind

_PROMISE, _CLIP = lax.GatherScatterMode.PROMISE_IN_BOUNDS, lax.GatherScatterMode.CLIP


# --- x[idx]: static slice, dynamic slice, else gather (JAX's rewriting_take) --------------------


def rewriting_take(
    arr,
    idx,
    *,
    mode=None,
    fill_value=None,
    unique_indices=False,
    indices_are_sorted=False,
    normalize_indices=True,
    out_sharding=None,
    api_name=".get",
):
    """``arr[idx]`` with numpy semantics, lowered to lax as described in the module docstring.
    Without ``normalize_indices`` a negative index is out of bounds (``mode`` decides), not from the end.
    ``out_sharding`` lays a gather's result out (the gather itself runs with the mesh's axes
    ``Auto``), where its sharding type would be ambiguous."""
    if transfers.active[0] and core._state.dynamic is None:
        _index_transfer(idx, np.ndim(arr))
        with transfers.inside_program():
            return rewriting_take(
                arr,
                idx,
                mode=mode,
                fill_value=fill_value,
                unique_indices=unique_indices,
                indices_are_sorted=indices_are_sorted,
                normalize_indices=normalize_indices,
                out_sharding=out_sharding,
            )
    x = as_operand(arr)
    indices = _parse(idx, x.shape)
    parsed_mode = None if mode is None else _parse_mode(mode)
    # (JAX slices statically only arrays of constant shape: symbolic ones go the general way)
    # (JAX slices arrays of symbolic shape with a gather, and indexes them by ints dynamically)
    constant = dims.is_constant_shape(x.shape)
    # An array on several devices is sliced (but for whole dimensions) by a gather, as in JAX:
    # a slice keeps its operand's sharding, which for x[0] or x[:2] is not the data's
    sliceable = not (getattr(arr, "on_mesh", False) and _has_partial_slices(indices, x.shape))
    if parsed_mode in (None, _PROMISE, _CLIP) and normalize_indices and sliceable:  # (the slices normalize)
        out = _try_static_slice(x, indices, parsed_mode) if constant else None
        if out is not None:
            return out
        slicing = not constant and any(p.typ == _SLICE for p in indices)
        out = None if slicing else _try_dynamic_slice(x, indices)
        if out is not None:
            return out
    indices = _expand_bool_indices(indices, x.shape)
    args = (parsed_mode, fill_value, unique_indices, indices_are_sorted, normalize_indices)
    if out_sharding is None:
        return _gather(x, indices, *args)
    return _auto_axes_out(lambda x, indices: _gather(x, indices, *args), out_sharding, api_name)(x, indices)


def _has_partial_slices(indices, shape) -> bool:
    """JAX's ``NDIndexer.has_partial_slices``: an int, a ``jax.ds`` or a slice short of its whole
    dimension (or strided)."""
    for p in indices:
        if p.typ in (_INTEGER, _DYNAMIC_SLICE):
            return True
        if p.typ == _SLICE:
            start, stop, step = p.index.indices(shape[p.axes[0]])
            if abs(step) != 1 or abs(stop - start) != shape[p.axes[0]]:
                return True
    return False


def _auto_axes_out(fun, out_sharding, api_name: str):
    """``fun`` run with the mesh's explicit axes ``Auto``, its result laid out by ``out_sharding``
    (a ``PartitionSpec`` is on the current mesh), as JAX's ``.at[...].get/set(out_sharding=)``.
    Only explicit axes may be named; on a mesh with none it lays nothing out (as JAX)."""
    from ..sharding import (
        AxisType,
        NamedSharding,
        PartitionSpec,
        _axes_of,
        auto_axes,
        get_abstract_mesh,
        spec_without_mesh,
    )
    from ..source_info import current_source_info
    from ..tracer_origins import summarize

    if not isinstance(out_sharding, (NamedSharding, PartitionSpec)):
        raise TypeError(
            f"`out_sharding` argument of {api_name} only supports instances of `NamedSharding` or "
            f"`PartitionSpec`. Got {out_sharding} of type: {type(out_sharding)}"
        )
    mesh = out_sharding.mesh if isinstance(out_sharding, NamedSharding) else get_abstract_mesh()
    if not mesh.axis_names:
        raise spec_without_mesh(out_sharding)
    spec = out_sharding.spec if isinstance(out_sharding, NamedSharding) else out_sharding
    kinds = dict(zip(mesh.axis_names, mesh.axis_types))
    for entry in spec:
        for name in _axes_of(entry):
            if kinds.get(name) in (AxisType.Auto, AxisType.Manual):
                raise ValueError(
                    f"PartitionSpec passed to {api_name} cannot contain axis names that are of type "
                    f"Auto or Manual. Got PartitionSpec: {spec} with axis name: {name} of type: "
                    f"{kinds[name]}. This error occurs at source:  {summarize(current_source_info())}"
                )
    if not mesh.explicit_axes:
        return fun
    return functools.partial(auto_axes(fun, axes=mesh.explicit_axes), out_sharding=out_sharding)


def _index_transfer(idx, ndim: int):
    """What JAX transfers first to index an array of ``ndim`` dimensions eagerly: a NumPy index
    array, a boolean index's positions, a weak default int (int32; int64 under x64) for an int
    index, a signed integer index array or (with no array scalar among the indices) a unit-step
    slice of part of an axis; else, for a dynamic slice at an integer array scalar, the constant
    its start indices are normalized beside: over several dimensions they are all converted to
    int32 first (JAX's int type for shapes this small), over one the constant has the scalar's
    type (an unsigned one is not normalized)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    scalars = [p for p in parts if isinstance(p, (Array, Tracer)) and p.ndim == 0 and p.dtype != np.bool_]
    index_dtype = core.default_dtype(int)
    for p in parts:
        if isinstance(p, (bool, np.bool_)) or (isinstance(p, np.ndarray) and p.dtype == np.bool_):
            # a boolean index is the positions where it is True: that int array is transferred
            transfers.entering(np.zeros(int(np.count_nonzero(p)), index_dtype))
            return
        if isinstance(p, np.ndarray):
            transfers.entering(p)
            return
        if (
            (isinstance(p, (int, np.integer)) and not isinstance(p, bool))
            or (isinstance(p, (Array, Tracer)) and p.ndim and dtype_kind(p.dtype) == "i")
            or (not scalars and isinstance(p, slice) and p != slice(None) and p.step in (None, 1))
        ):
            transfers.entering(0, index_dtype, True)
            return
    if scalars and ndim > 1:
        transfers.entering(0, np.int32, False)
    elif scalars and dtype_kind(scalars[0].dtype) == "i":
        transfers.entering(0, scalars[0].dtype, False)


def _range_length(start, stop, step):
    """``len(range(start, stop, step))``; for symbolic bounds an expression."""
    if dims.is_constant_dim(start) and dims.is_constant_dim(stop):
        return len(range(start, stop, step))
    if step < 0:
        return dims.max_dim(0, (start - stop - step - 1) // -step)
    return dims.max_dim(0, (stop - start + step - 1) // step)


def _index_i32(v):
    """An int32 index operand: a constant, a symbolic dimension's value, or (a ``jax.ds`` start)
    an array."""
    if isinstance(v, (Array, Tracer)):
        return lax.convert_element_type(v, _INT32, False)
    if dims.is_constant_dim(v):
        return Array(np.asarray(v, _INT32))
    return lax.convert_element_type(dims.dimension_as_value(v), _INT32, False)


def _try_static_slice(x, indices, mode):
    if any(p.typ not in (_INTEGER, _ELLIPSIS, _SLICE, _NONE) for p in indices):
        return None
    shape = x.shape
    if mode != _CLIP:  # promise_in_bounds: an out-of-bounds int goes the dynamic (clamping) way
        for p in indices:
            if p.typ == _INTEGER and not -shape[p.axes[0]] <= int(p.index) < shape[p.axes[0]]:
                return None
    _validate_slices(indices)
    starts, limits, strides, rev, squeeze, newaxis = [], [], [], [], [], []
    for p in _expand_ellipses(indices, shape):
        if p.typ == _NONE:
            newaxis.append(len(starts) - len(squeeze) + len(newaxis))
        elif p.typ == _INTEGER:
            (axis,) = p.axes
            if shape[axis] == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            start = int(p.index)
            start = start + shape[axis] if start < 0 else start
            start = min(max(start, 0), shape[axis] - 1)
            starts.append(start)
            limits.append(start + 1)
            strides.append(1)
            squeeze.append(axis)
        else:
            (axis,) = p.axes
            size = shape[axis]
            start, stop, stride = _slice_indices(p.index, size)
            if stride < 0:
                span = start - stop - 1  # (>= 0 when symbolic: the bounds of ``[::step]``)
                skip = (abs(span) if dims.is_constant_dim(span) else span) % abs(stride)
                new_start = dims.min_dim(size, stop + 1 + skip)
                starts.append(new_start)
                limits.append(dims.max_dim(new_start, start + 1))
                strides.append(abs(stride))
                rev.append(axis)
            else:
                starts.append(start)
                symbolic = dims.is_symbolic_dim(start) or dims.is_symbolic_dim(stop)
                limits.append(start + dims.max_dim(0, stop - start) if symbolic else max(start, stop))
                strides.append(stride)
    out = x
    trivial = all(s == 1 for s in strides) and all((a, b) == (0, n) for a, b, n in zip(starts, limits, shape))
    if not trivial:
        out = lax.slice(out, starts, limits, None if all(s == 1 for s in strides) else strides)
    if rev:
        out = lax.rev(out, tuple(rev))
    if squeeze:
        out = lax.squeeze(out, tuple(squeeze))
    if newaxis:
        out = lax.expand_dims(out, tuple(newaxis))
    return out


def _try_dynamic_slice(x, indices):
    for p in indices:
        if p.typ == _SLICE:
            step = _static_slice_part(p.index.step)
            if step not in (None, -1, 1):
                return None
        elif p.typ == _ARRAY:
            if np.ndim(p.index) != 0:
                return None
        elif p.typ == _BOOLEAN or (p.typ == _DYNAMIC_SLICE and p.index.stride != 1):
            return None
    shape = x.shape
    starts, sizes, rev, squeeze, newaxis = [], [], [], [], []
    trivial = True
    for p in _expand_ellipses(indices, shape):
        if p.typ == _NONE:
            newaxis.append(len(starts) - len(squeeze) + len(newaxis))
        elif p.typ in (_INTEGER, _ARRAY):
            trivial = False
            (axis,) = p.axes
            if shape[axis] == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            starts.append(
                as_operand(p.index) if p.typ == _ARRAY else Array(np.asarray(p.index, _INT32), True)
            )
            sizes.append(1)
            squeeze.append(axis)
        elif p.typ == _DYNAMIC_SLICE:
            trivial = False
            starts.append(p.index.start)
            sizes.append(p.index.size)
        else:
            (axis,) = p.axes
            if p.index != slice(None):
                trivial = False
            size = shape[axis]
            start, stop, stride = _slice_indices(p.index, size)
            if stride < 0:
                new_start = stop + 1 + abs(start - stop - 1) % abs(stride)
                starts.append(new_start)
                sizes.append(max(0, start + 1 - new_start))
                rev.append(axis)
            else:
                starts.append(start)
                sizes.append(max(0, stop - start))
    if len(starts) > 1:  # dynamic_slice wants one index dtype
        starts = [_as_index_dtype(i) for i in starts]
    out = x if trivial else lax.dynamic_slice(x, starts, sizes)
    if rev:
        out = lax.rev(out, tuple(rev))
    if squeeze:
        out = lax.squeeze(out, tuple(squeeze))
    if newaxis:
        out = lax.expand_dims(out, tuple(newaxis))
    return out


def _as_index_dtype(i):
    """``lax.convert_element_type(i, int32)``; JAX converts a constant without staging it, but binds
    (and under a trace stages) the convert of an index array of another dtype (``x[np.uint8([4])]``)."""
    if isinstance(i, Tracer) or (isinstance(i, Array) and i.dtype != _INT32):
        return lax.convert_element_type(i, _INT32)
    return Array(np.asarray(core.to_numpy(i) if isinstance(i, Array) else i, _INT32))


def _gather(x, indices, mode, fill_value, unique_indices, indices_are_sorted, normalize_indices=True):
    g = _index_to_gather(x.shape, indices, normalize_indices)
    y = x
    if fill_value is not None:
        if isinstance(fill_value, Tracer) and fill_value.concrete_value() is None:
            raise core.ConcretizationTypeError(fill_value, "fill_value argument to indexed get()")
        if np.ndim(fill_value) != 0:
            raise ValueError("fill_value argument to indexed get() must be a scalar")
        if isinstance(fill_value, np.ndarray):
            fill_value = fill_value.item()
    if g.scalar_bool_dims:
        y = lax.expand_dims(y, g.scalar_bool_dims)
    if 0 in g.slice_shape:
        return lax.full_like(y, 0, shape=g.slice_shape)
    if 0 not in np.shape(g.indices):
        y = lax.gather(
            y,
            g.indices,
            g.dnums,
            g.gather_slice_shape,
            unique_indices=unique_indices or g.unique_indices,
            indices_are_sorted=indices_are_sorted or g.indices_are_sorted,
            mode=mode,
            fill_value=fill_value,
        )
    if g.reversed_y_dims:
        y = lax.rev(y, g.reversed_y_dims)
    return lax.expand_dims(y, g.newaxis_dims) if g.newaxis_dims else y


class _GatherIndexer(NamedTuple):
    slice_shape: tuple
    gather_slice_shape: tuple
    indices: object
    dnums: lax.GatherDimensionNumbers
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: tuple
    newaxis_dims: tuple
    scalar_bool_dims: tuple
    slice_axes: tuple  # per slice dimension, the operand axis it is a slice of (else None)


def _normalize_index(i, size):
    """Negative indices count from the end: ``select(i < 0, i + size, i)`` (unsigned ones cannot)."""
    if dtype_kind(i.dtype) == "u":
        return i
    if isinstance(i, np.ndarray):  # a numpy index: JAX compares it with numpy's `<`, a constant mask
        v = i.astype(core.canonical_dtype(i.dtype))
        operand = Array(v)
        return lax.select(v < 0, lax.add(operand, np.asarray(size, v.dtype)), operand)
    if not isinstance(i, Tracer) and not core.staging_anywhere[0]:  # eager: the same values in numpy
        v = core.to_numpy(i)
        return Array(np.where(v < 0, v + np.asarray(size, v.dtype), v), i.weak_type)
    # JAX's lax._const: a weak scalar index adds a weak (Python) size, so the sum stays weak.
    if dims.is_symbolic_dim(size):  # its value, as the index's type
        n = lax.convert_element_type(dims.dimension_as_value(size), i.dtype, i.weak_type and i.ndim == 0)
    else:
        n = size if i.weak_type and i.ndim == 0 else np.asarray(size, i.dtype)
    zero = np.zeros((), i.dtype)
    if transfers.active[0] and transfers.entering(0, core.default_dtype(int), True):
        # (eager, under a transfer guard: JAX transfers a weak default int here, whatever i's type)
        with transfers.inside_program():
            negative = lax.lt(i, zero)
    else:
        negative = lax.lt(i, zero)
    return lax.select(negative, lax.add(i, n), i)


def _index_to_gather(shape, indices, normalize_indices: bool = True) -> _GatherIndexer:
    """JAX's ``_index_to_gather``: the gather (and, transposed, the scatter) computing ``x[idx]``.
    Without ``normalize_indices`` negative indices stay out of bounds (``jax.ops.segment_*``,
    ``x.at[i].set(v, wrap_negative_indices=False)``)."""
    _validate_slices(indices)
    is_advanced = np.nonzero([p.typ in (_ARRAY, _INTEGER) for p in indices])[0]
    contiguous = bool(np.all(np.diff(is_advanced) == 1))
    indices = _expand_ellipses(indices, shape)
    scalar_bool_dims = tuple(n for n, p in enumerate(indices) if p.typ == _BOOLEAN)
    # Scalar bools: a new unit axis, indexed by arange(1) (True) or arange(0) (False).
    shape, expanded, dim = list(shape), [], 0
    for k, p in enumerate(indices):
        if p.typ == _BOOLEAN:
            shape.insert(k, 1)
            # (numpy's arange, as JAX's: its sign check is numpy's, folded into a constant mask)
            expanded.append(_Parsed(np.arange(int(p.index)), _ARRAY, (dim,)))
            dim += 1
        else:
            expanded.append(_Parsed(p.index, p.typ, tuple(range(dim, dim + len(p.axes)))))
            dim += len(p.axes)
    indices = []
    for p in expanded:  # normalize negative indices
        if p.typ == _INTEGER:
            n = shape[p.axes[0]]
            i = int(p.index)
            indices.append(p._replace(index=i + n if i < 0 and normalize_indices else i))
        elif p.typ == _ARRAY:
            i = (
                p.index
                if isinstance(p.index, np.ndarray) and dtype_kind(p.index.dtype) == "i"
                else as_operand(p.index)
            )
            indices.append(
                p._replace(index=_normalize_index(i, shape[p.axes[0]]) if normalize_indices else i)
            )
        else:
            indices.append(p)

    advanced, idx_adv_axes, x_adv_axes = [], [], []
    if any(p.typ == _ARRAY and np.ndim(p.index) > 0 for p in indices):
        without_none = [(i, p) for i, p in enumerate(indices) if p.typ != _NONE]
        for j, (i, p) in enumerate(without_none):
            if p.typ in (_ARRAY, _INTEGER):
                advanced.append(as_operand(p.index) if p.typ == _ARRAY else Array(np.asarray(p.index), True))
                idx_adv_axes.append(i)
                x_adv_axes.append(j)

    x_axis = y_axis = collapsed_y_axis = 0
    offset_dims: list = []
    collapsed_slice_dims: list = []
    start_index_map: list = []
    gather_indices: list = []  # (array, first dim in the indices' batch shape)
    gather_indices_shape: list = []
    slice_shape: list = []
    slice_axes: list = []
    newaxis_dims: list = []
    reversed_y_dims: list = []
    gather_slice_shape: list = []

    for idx_pos, p in enumerate(indices):
        if advanced and (contiguous and idx_pos == idx_adv_axes[0] or not contiguous and idx_pos == 0):
            bshape = broadcast_shapes(*[a.shape for a in advanced])
            arrs = [broadcast_to_shape(a, bshape) for a in advanced]
            start_dim = len(gather_indices_shape)
            gather_indices.extend((_as_index_dtype(a), start_dim) for a in arrs)
            gather_indices_shape += bshape
            start_index_map.extend(x_adv_axes)
            collapsed_slice_dims.extend(x_adv_axes)
            slice_shape.extend(bshape)
            slice_axes.extend([None] * len(bshape))
            y_axis += len(bshape)
            collapsed_y_axis += len(bshape)
        if idx_pos in idx_adv_axes:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        if p.typ in (_INTEGER, _ARRAY) and np.ndim(p.index) == 0:
            if shape[x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            gather_indices.append((_as_index_dtype(p.index), len(gather_indices_shape)))
            collapsed_slice_dims.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
            x_axis += 1
        elif p.typ == _NONE:
            slice_shape.append(1)
            slice_axes.append(None)
            newaxis_dims.append(y_axis)
            y_axis += 1
        elif p.typ in (_SLICE, _DYNAMIC_SLICE):
            if p.typ == _SLICE:
                start, stop, step = _slice_indices(p.index, shape[x_axis])
                size = _range_length(start, stop, step)
            else:  # (its start may be traced: the ramp below starts there)
                start, size, step = p.index.start, p.index.size, p.index.stride
            slice_shape.append(size)
            slice_axes.append(x_axis)
            if step == 1:
                if size != shape[x_axis]:  # a whole axis needs no index
                    gather_indices.append((_index_i32(start), len(gather_indices_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                if isinstance(start, (Array, Tracer)):  # (JAX: jnp.array(start, int32), a copy)
                    from ._creation import array

                    start = array(start, dtype=_INT32)
                ramp = lax.add(
                    _index_i32(start),
                    lax.mul(_index_i32(step), lax.iota(_INT32, size)),
                )
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    ramp = lax.rev(ramp, (0,))
                gather_slice_shape.append(1)
                gather_indices.append((ramp, len(gather_indices_shape)))
                start_index_map.append(x_axis)
                gather_indices_shape.append(size)
                collapsed_slice_dims.append(x_axis)
            collapsed_y_axis += 1
            y_axis += 1
            x_axis += 1
        else:
            raise IndexError(f"Got unsupported indexer at position {idx_pos}: {p.index!r}")

    if not gather_indices:
        index_array = Array(np.zeros((0,), _INT32))
    elif len(gather_indices) == 1:
        g, _ = gather_indices[0]
        index_array = lax.expand_dims(g, (np.ndim(g),))
    else:
        last = len(gather_indices_shape)
        gather_indices_shape.append(1)
        index_array = lax.concatenate(
            [
                lax.broadcast_in_dim(g, gather_indices_shape, tuple(range(i, i + np.ndim(g))))
                for g, i in gather_indices
            ],
            last,
        )
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(sorted(collapsed_slice_dims)),
        start_index_map=tuple(start_index_map),
    )
    return _GatherIndexer(
        slice_shape=tuple(slice_shape),
        gather_slice_shape=tuple(gather_slice_shape),
        indices=index_array,
        dnums=dnums,
        unique_indices=not advanced,
        indices_are_sorted=not advanced,
        reversed_y_dims=tuple(reversed_y_dims),
        newaxis_dims=tuple(newaxis_dims),
        scalar_bool_dims=scalar_bool_dims,
        slice_axes=tuple(slice_axes),
    )


# --- scatter (x.at[idx].op(v)): the gather above, transposed (JAX's _scatter_update) ------------


def _split_like(y, x, slice_axes):
    """``y`` split over the explicit axes splitting the dimensions of ``x`` it is a slice of."""
    from ..sharding import NamedSharding, PartitionSpec, reshard

    sharding = x.sharding
    axes, typed = sharding._normalized(x.ndim), set(sharding.mesh.explicit_axes)
    # (a spec canonicalizes () to None and a 1-tuple to its axis)
    want = PartitionSpec(*[() if a is None else tuple(n for n in axes[a] if n in typed) for a in slice_axes])
    return reshard(y, NamedSharding(sharding.mesh, want)) if any(want) else y


def _slice_layout(x, slice_axes):
    """A traced ``x``'s layout on an explicit mesh taken to the slice ``x[idx]`` (a dimension of
    ``x`` kept is split as in ``x``, another is not), else None."""
    from ..sharded_types import type_sharding
    from ..sharding import PartitionSpec

    typed = type_sharding(x) if isinstance(x, Tracer) else None
    if typed is None:
        return None
    spec = list(typed.spec.partitions) + [None] * (x.ndim - len(typed.spec))
    return typed.with_spec(PartitionSpec(*[None if a is None else spec[a] for a in slice_axes]))


def _fits(value: int, dtype) -> bool:
    from ..narrow_dtypes import iinfo

    info = iinfo(dtype)
    return bool(info.min <= value <= info.max)


def scatter_update(
    x,
    idx,
    y,
    scatter_fn,
    *,
    mode=None,
    unique_indices=False,
    indices_are_sorted=False,
    normalize_indices=True,
    out_sharding=None,
    api_name=".set",
):
    """``x`` with ``y`` combined into ``x[idx]`` by ``scatter_fn`` (a ``lax.scatter*``).
    ``out_sharding`` lays the result out (the scatter runs with the mesh's axes ``Auto``)."""
    if out_sharding is not None:
        kw = dict(
            mode=mode,
            unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted,
            normalize_indices=normalize_indices,
        )
        return _auto_axes_out(
            lambda x, y: scatter_update(x, idx, y, scatter_fn, **kw), out_sharding, api_name
        )(x, y)
    on_mesh = getattr(x, "on_mesh", False)
    x = as_operand(x)
    if isinstance(y, int) and dtype_kind(x.dtype) in "iu" and _fits(y, x.dtype):
        y = Array(np.asarray(y, x.dtype))  # (as JAX: a Python int that fits takes x's dtype, not weak)
    written, y = y, as_operand(y)
    if type(written) in (float, complex):  # a weak Python float prints as written (2.7:f32[])
        y.python_value = written
    if x.ndim == 0:  # x.at[()] / x.at[...]: a one-element vector has an axis to scatter along
        _parse(idx, ())
        out = scatter_update(lax.reshape(x, (1,)), 0, y, scatter_fn, mode=mode)
        return lax.reshape(out, ())
    indices = _expand_bool_indices(_parse(idx, x.shape), x.shape)
    g = _index_to_gather(x.shape, indices, normalize_indices)
    if 0 in g.slice_shape:
        return x
    # after the indices, as JAX: both promoted together, the result converted back to x's type
    dtype, weak = x.dtype, x.weak_type
    x, y = promote_dtypes(x, y)
    # (its errors are JAX's for an update that does not fit; traced on an explicit mesh, the update
    # is typed as the dimensions it is a slice of, as JAX's broadcast_to(out_sharding=slice_sharding))
    y = broadcast_to_shape(y, g.slice_shape, _slice_layout(x, g.slice_axes))
    if on_mesh:  # (as JAX: the update is split as the dimensions it is a slice of)
        y = _split_like(y, x, g.slice_axes)
    if g.newaxis_dims:
        y = lax.squeeze(y, g.newaxis_dims)
    if g.reversed_y_dims:
        y = lax.rev(y, g.reversed_y_dims)
    if g.scalar_bool_dims:
        x = lax.expand_dims(x, g.scalar_bool_dims)
    dn = g.dnums
    dnums = lax.ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims,
        inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims,
    )
    out = scatter_fn(
        x,
        g.indices,
        y,
        dnums,
        indices_are_sorted=g.indices_are_sorted or indices_are_sorted,
        unique_indices=g.unique_indices or unique_indices,
        mode=mode,
    )
    out = lax.squeeze(out, g.scalar_bool_dims) if g.scalar_bool_dims else out
    return convert(out, dtype, weak)
