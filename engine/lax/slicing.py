"""Slicing and indexing primitives: slice, dynamic_slice, dynamic_update_slice, gather and the
scatter family, with XLA's semantics evaluated in numpy.

``jnp`` indexing and ``.at[]`` are built on ``gather``/``scatter``, so the dimension-number types,
``GatherScatterMode`` and the wrappers' signatures are JAX's, including the batching dimensions
that let batching rules stay simple (a vmapped gather is a gather with one more batching dim).
"""

from __future__ import annotations

import builtins
import enum
from typing import NamedTuple, Sequence

import numpy as np

from .. import ad, batching, core, ir
from ..batching import not_mapped
from ..core import Primitive, ShapedArray, Tracer


def _lax():
    from . import api

    return api


# ---------------------------------------------------------------------------------------------
# slice

_pyslice = builtins.slice  # `slice` below is lax.slice
slice_p = Primitive("slice")


def slice(
    operand, start_indices: Sequence[int], limit_indices: Sequence[int], strides: Sequence[int] | None = None
):
    """``operand[start:limit:stride]`` along every dimension, with static bounds.

    >>> slice(jnp.arange(10), (1,), (8,), (3,))
    Array([1, 4, 7], dtype=int32)
    """
    return slice_p.bind(
        operand,
        start_indices=tuple(int(i) for i in start_indices),
        limit_indices=tuple(int(i) for i in limit_indices),
        strides=None if strides is None else tuple(int(s) for s in strides),
    )


@slice_p.def_impl
def _slice_impl(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    return x[tuple(_pyslice(a, b, s) for a, b, s in zip(start_indices, limit_indices, strides))]


@slice_p.def_abstract_eval
def _slice_abstract(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim:
        raise TypeError(
            f"slice start_indices {start_indices}, limit_indices {limit_indices} and "
            f"strides {strides} must each have one entry per dimension of shape {x.shape}"
        )
    shape = []
    for n, a, b, s in zip(x.shape, start_indices, limit_indices, strides):
        if not 0 <= a <= b <= n or s < 1:
            raise TypeError(
                f"slice indices must satisfy 0 <= start <= limit <= shape and "
                f"strides >= 1; got start_indices={start_indices}, "
                f"limit_indices={limit_indices}, strides={strides} for shape {x.shape}"
            )
        shape.append(-(-(b - a) // s))
    return ShapedArray(shape, x.dtype, x.weak_type)


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    lax = _lax()
    shape = x.aval.shape
    strides = strides or (1,) * len(shape)
    out_shape = core.get_aval(ct).shape
    # The last element taken sits at start + (n - 1) * stride; everything after it is high padding.
    # (numpy integers where JAX computes them with numpy, so the printed params match JAX's.)
    if all(s == 1 for s in strides):
        config = tuple((a, np.int64(d - b), 0) for a, d, b in zip(start_indices, shape, limit_indices))
    else:
        real_limits = [a + (n - 1) * s + 1 if n else a for a, n, s in zip(start_indices, out_shape, strides)]
        config = tuple(
            (a, np.int64(d - r), np.int64(s - 1))
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
    axis = int(axis) % len(shape)
    start, limit, _ = _pyslice(start_index, limit_index).indices(shape[axis])
    starts = [0] * len(shape)
    limits = list(shape)
    strides = [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, max(limit, start), int(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """The ``index``-th element along ``axis`` (negative indices count from the end)."""
    shape = core.get_aval(operand).shape
    axis = int(axis) % len(shape)
    index = int(index)
    if not -shape[axis] <= index < shape[axis]:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {shape[axis]}")
    index %= shape[axis]
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else _lax().squeeze(out, (axis,))


# ---------------------------------------------------------------------------------------------
# dynamic_slice and dynamic_update_slice: start indices are arrays, clamped into bounds.

dynamic_slice_p = Primitive("dynamic_slice")
dynamic_update_slice_p = Primitive("dynamic_update_slice")


def _dynamic_slice_indices(operand, start_indices):
    """Negative start indices count from the end (as in JAX), then XLA clamps into bounds."""
    shape = core.get_aval(operand).shape
    if len(start_indices) != len(shape):
        raise ValueError(
            f"Length of slice indices must match number of operand dimensions "
            f"({len(start_indices)} vs {len(shape)})"
        )
    lax = _lax()
    out = []
    for i, n in zip(start_indices, shape):
        if isinstance(i, (int, np.integer)):  # static: a constant int32, as JAX converts it
            out.append(core.Array(np.asarray(int(i) + n if i < 0 else int(i), np.int32)))
            continue
        aval = core.get_aval(i)
        if aval.shape != () or aval.dtype.kind not in "iu":
            raise TypeError(f"dynamic_slice start indices must be integer scalars, got {aval.str_short()}")
        if aval.dtype.kind == "u":  # cannot be negative
            out.append(i)
        elif isinstance(i, Tracer) or core.staging_anywhere[0]:
            # JAX adds the size with jnp's `+`, whose promotion makes a weak index strong first
            # (a constant converts without an equation); constants are staged, as JAX does.
            negative = lax.lt(i, lax.full((), 0, aval.dtype))
            strong = (
                lax.convert_element_type(i, aval.dtype)
                if isinstance(i, Tracer)
                else core.Array(np.asarray(core.to_numpy(i), aval.dtype))
            )
            added = lax.add(strong, lax.full((), n, aval.dtype))
            out.append(lax.select(negative, added, i))
        else:
            v = core.to_numpy(i)
            out.append(core.Array(v + n if v < 0 else v))
    return out


def dynamic_slice(operand, start_indices, slice_sizes):
    """A slice of static size ``slice_sizes`` starting at traced ``start_indices``.

    Starts are clamped so the slice fits, as in XLA:

    >>> dynamic_slice(jnp.arange(5), (4,), (2,))
    Array([3, 4], dtype=int32)
    """
    idx = _dynamic_slice_indices(operand, start_indices)
    return dynamic_slice_p.bind(operand, *idx, slice_sizes=tuple(int(s) for s in slice_sizes))


def dynamic_update_slice(operand, update, start_indices):
    """``operand`` with ``update`` written at traced ``start_indices`` (clamped so it fits)."""
    idx = _dynamic_slice_indices(operand, start_indices)
    return dynamic_update_slice_p.bind(operand, update, *idx)


def _clamped_starts(shape, sizes, idx):
    return [int(np.clip(int(i), 0, n - s)) for i, n, s in zip(idx, shape, sizes)]


@dynamic_slice_p.def_impl
def _dynamic_slice_impl(x, *idx, slice_sizes):
    starts = _clamped_starts(x.shape, slice_sizes, idx)
    return x[tuple(_pyslice(a, a + s) for a, s in zip(starts, slice_sizes))]


def _check_indices(name, x, idx):
    if len(idx) != x.ndim:
        raise TypeError(f"{name}: {len(idx)} start indices for an operand of rank {x.ndim}")
    for i in idx:
        if i.shape != () or i.dtype.kind not in "iu":
            raise TypeError(f"{name} start indices must be integer scalars, got {i.str_short()}")


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract(x, *idx, slice_sizes):
    _check_indices("dynamic_slice", x, idx)
    if len(slice_sizes) != x.ndim or any(not 0 <= s <= n for s, n in zip(slice_sizes, x.shape)):
        raise TypeError(
            f"dynamic_slice slice_sizes {slice_sizes} must be non-negative and fit in "
            f"the operand shape {x.shape}"
        )
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    x, *idx = primals
    out = dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
    return out, dynamic_slice_p.bind(ad.instantiate_zeros(tangents[0]), *idx, slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, x, *idx, slice_sizes):
    lax = _lax()
    zeros = lax.full(x.aval.shape, 0, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *idx)] + [None] * len(idx)


def _batch_dynamic_slice_indices(size, idx, dims):
    """Scalar start indices (some batched) as one index array, and its batch dim (JAX's rule):
    ``(size, n)`` when any is batched, else an unbatched ``(n,)``."""
    lax = _lax()
    if not idx:
        return core.Array(np.array([], np.int32)), not_mapped
    if all(d is not_mapped for d in dims):
        return lax.concatenate([lax.broadcast_in_dim(i, (1,), ()) for i in idx], 0), not_mapped
    cols = [lax.broadcast_in_dim(i, (size, 1), () if d is not_mapped else (0,)) for i, d in zip(idx, dims)]
    return lax.concatenate(cols, 1), 0


def _dynamic_slice_batch(size, vals, dims, *, slice_sizes):
    # A batched dynamic_slice is a gather whose windows are the slices (JAX does the same).
    x, *idx = vals
    dx, *didx = dims
    nd = len(slice_sizes)
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(range(nd)), collapsed_slice_dims=(), start_index_map=tuple(range(nd))
    )
    index, dindex = _batch_dynamic_slice_indices(size, idx, didx)
    return _gather_batch(
        size,
        [x, index],
        [dx, dindex],
        dimension_numbers=dnums,
        slice_sizes=slice_sizes,
        indices_are_sorted=True,
        unique_indices=True,
        mode=GatherScatterMode.CLIP,
        fill_value=None,
    )


ad.jvp_rules[dynamic_slice_p] = _dynamic_slice_jvp
ad.transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose
batching.batch_rules[dynamic_slice_p] = _dynamic_slice_batch


@dynamic_update_slice_p.def_impl
def _dynamic_update_slice_impl(x, update, *idx):
    starts = _clamped_starts(x.shape, update.shape, idx)
    out = np.array(x)
    out[tuple(_pyslice(a, a + s) for a, s in zip(starts, update.shape))] = update
    return out


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract(x, update, *idx):
    _check_indices("dynamic_update_slice", x, idx)
    if update.dtype != x.dtype:
        raise TypeError(
            f"dynamic_update_slice update dtype {update.dtype.name} must match the "
            f"operand dtype {x.dtype.name}"
        )
    if update.ndim != x.ndim or any(u > n for u, n in zip(update.shape, x.shape)):
        raise TypeError(
            f"dynamic_update_slice update shape {update.shape} must fit in the operand shape {x.shape}"
        )
    return x


def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *idx = primals
    gx, gu = ad.instantiate_zeros(tangents[0]), ad.instantiate_zeros(tangents[1])
    return (dynamic_update_slice_p.bind(x, update, *idx), dynamic_update_slice_p.bind(gx, gu, *idx))


def _dynamic_update_slice_transpose(ct, x, update, *idx):
    lax = _lax()
    u_aval = update.aval if ad.is_undefined(update) else core.get_aval(update)
    ct_x = ct_u = None
    if ad.is_undefined(x):
        ct_x = dynamic_update_slice_p.bind(ct, lax.full(u_aval.shape, 0, u_aval.dtype), *idx)
    if ad.is_undefined(update):
        ct_u = dynamic_slice_p.bind(ct, *idx, slice_sizes=u_aval.shape)
    return [ct_x, ct_u] + [None] * len(idx)


def _dynamic_update_slice_batch(size, vals, dims):
    # A batched dynamic_update_slice is a scatter of one window per member (JAX does the same).
    x, update, *idx = vals
    dx, du, *didx = dims
    nd = core.get_aval(x).ndim - (dx is not not_mapped)
    dnums = ScatterDimensionNumbers(
        update_window_dims=tuple(range(nd)),
        inserted_window_dims=(),
        scatter_dims_to_operand_dims=tuple(range(nd)),
    )
    index, dindex = _batch_dynamic_slice_indices(size, idx, didx)
    return _scatter_batch(scatter_p)(
        size,
        [x, index, update],
        [dx, dindex, du],
        dimension_numbers=dnums,
        indices_are_sorted=True,
        unique_indices=True,
        mode=GatherScatterMode.CLIP,
    )


ad.jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose
batching.batch_rules[dynamic_update_slice_p] = _dynamic_update_slice_batch


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0):
    """``dynamic_slice`` along one axis."""
    shape = core.get_aval(operand).shape
    axis = int(axis) % len(shape)
    starts = [0] * len(shape)
    sizes = list(shape)
    starts[axis], sizes[axis] = start_index, int(slice_size)
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
    """The element at traced ``index`` along ``axis``."""
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else _lax().squeeze(out, (int(axis) % core.get_aval(operand).ndim,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int):
    """``dynamic_update_slice`` along one axis."""
    ndim = core.get_aval(operand).ndim
    axis = int(axis) % ndim
    starts = [0] * ndim
    starts[axis] = start_index
    return dynamic_update_slice(operand, update, starts)


def dynamic_update_index_in_dim(operand, update, index, axis: int):
    """Write ``update`` (without the ``axis`` dimension, or with it of size 1) at ``index``."""
    ndim = core.get_aval(operand).ndim
    axis = int(axis) % ndim
    if core.get_aval(update).ndim == ndim - 1:
        update = _lax().expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)


# ---------------------------------------------------------------------------------------------
# gather and scatter: dimension numbers and out-of-bounds modes, as in JAX.


class GatherDimensionNumbers(NamedTuple):
    """How the dimensions of a gather's operand, indices and output correspond (XLA's Gather).

    ``offset_dims``: output dims holding the slice window (ascending). ``collapsed_slice_dims``:
    operand dims of window size 1 with no output dim. ``start_index_map``: the operand dim each
    entry of an index vector (the indices' last dim) starts. ``operand_batching_dims`` /
    ``start_indices_batching_dims``: operand dims paired one-to-one with indices dims.
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How a scatter's operand, indices and updates correspond; the mirror of gather's."""

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """Out-of-bounds handling. ``CLIP`` clamps starts so the window fits; ``FILL_OR_DROP``
    fills a gathered window that is not wholly in bounds / drops such a scattered window;
    ``PROMISE_IN_BOUNDS`` clamps gathers and drops scatters (what XLA does unchecked)."""

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s):
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


def _tuple_dnums(cls, dnums):
    return cls(*(tuple(int(i) for i in f) for f in dnums))


def _default_fill(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "i":
        return np.iinfo(dtype).min
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    if dtype.kind == "b":
        return True
    raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


def _window_index(
    operand_shape, indices, index_map, batching_dims, indices_batching_dims, window_sizes, clamp: bool
):
    """Per-operand-dim integer arrays of shape ``batch + window`` addressing every element of
    every window, and a ``batch``-shaped mask of windows that are wholly in bounds."""
    batch = indices.shape[:-1]
    nd = len(operand_shape)
    starts = [np.zeros(batch, np.int64) for _ in range(nd)]
    for k, d in enumerate(index_map):
        starts[d] = indices[..., k].astype(np.int64)
    for od, idim in zip(batching_dims, indices_batching_dims):
        ramp = np.arange(batch[idim]).reshape([-1 if i == idim else 1 for i in range(len(batch))])
        starts[od] = np.broadcast_to(ramp, batch)
    upper = [n - w for n, w in zip(operand_shape, window_sizes)]
    in_bounds = np.ones(batch, bool)
    for d in range(nd):
        in_bounds &= (starts[d] >= 0) & (starts[d] <= upper[d])
    if clamp:
        starts = [np.clip(s, 0, max(u, 0)) for s, u in zip(starts, upper)]
    idx = []
    for d in range(nd):
        offs = np.arange(window_sizes[d]).reshape([1] * len(batch) + [-1 if j == d else 1 for j in range(nd)])
        idx.append(starts[d].reshape(batch + (1,) * nd) + offs)
    return idx, in_bounds


gather_p = Primitive("gather")


def gather(
    operand,
    start_indices,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes,
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode=None,
    fill_value=None,
):
    """XLA's Gather: windows of ``slice_sizes`` taken at the index vectors in ``start_indices``
    (its last dimension). Prefer ``jnp`` indexing; this is what that is built on.

    >>> x = jnp.array([10, 11, 12])
    >>> dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
    >>> gather(x, jnp.array([[2], [0]]), dn, (1,))
    Array([12, 10], dtype=int32)
    """
    parsed = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    if parsed == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = _default_fill(core.get_aval(operand).dtype)
    else:
        fill_value = None
    return gather_p.bind(
        operand,
        start_indices,
        dimension_numbers=_tuple_dnums(GatherDimensionNumbers, dimension_numbers),
        slice_sizes=tuple(int(s) for s in slice_sizes),
        unique_indices=bool(unique_indices),
        indices_are_sorted=bool(indices_are_sorted),
        mode=parsed,
        fill_value=fill_value,
    )


def _gather_window_sizes(dn, slice_sizes):
    return [
        s
        for d, s in enumerate(slice_sizes)
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    ]


def _gather_output_perm(batch_rank, offset_dims):
    """Output dim order from the ``batch + offsets`` layout the numpy evaluation produces."""
    perm, b = [], 0
    for i in range(batch_rank + len(offset_dims)):
        if i in offset_dims:
            perm.append(batch_rank + offset_dims.index(i))
        else:
            perm.append(b)
            b += 1
    return perm


@gather_p.def_impl
def _gather_impl(
    operand, indices, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted, mode, fill_value
):
    dn = dimension_numbers
    clip = mode != GatherScatterMode.FILL_OR_DROP
    idx, in_bounds = _window_index(
        operand.shape,
        indices,
        dn.start_index_map,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        slice_sizes,
        clamp=True,
    )
    batch = indices.shape[:-1]
    out = operand[tuple(idx)] if operand.size else np.zeros(batch + tuple(slice_sizes), operand.dtype)
    if not clip:
        fill = _default_fill(operand.dtype) if fill_value is None else fill_value
        mask = in_bounds.reshape(batch + (1,) * operand.ndim)
        out = np.where(mask, out, np.asarray(fill).astype(operand.dtype))
    out = out.reshape(batch + tuple(_gather_window_sizes(dn, slice_sizes)))
    return np.transpose(out, _gather_output_perm(len(batch), list(dn.offset_dims)))


@gather_p.def_abstract_eval
def _gather_abstract(
    operand, indices, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted, mode, fill_value
):
    dn = dimension_numbers
    if indices.dtype.kind not in "iu":
        raise TypeError(f"gather indices must be integers, got {indices.dtype.name}")
    if indices.ndim < 1 or indices.shape[-1] != len(dn.start_index_map):
        raise TypeError(
            f"gather: the last dimension of start_indices (shape {indices.shape}) must "
            f"be the index vector, of length len(start_index_map)={len(dn.start_index_map)}"
        )
    if len(slice_sizes) != operand.ndim:
        raise TypeError(
            f"gather slice_sizes {slice_sizes} must have one entry per operand "
            f"dimension (shape {operand.shape})"
        )
    for d, (s, n) in enumerate(zip(slice_sizes, operand.shape)):
        if not 0 <= s <= n:
            raise TypeError(
                f"gather slice size {s} of dimension {d} does not fit the operand shape {operand.shape}"
            )
        if (d in dn.collapsed_slice_dims or d in dn.operand_batching_dims) and s > 1:
            raise TypeError(
                f"gather: collapsed or batching operand dimension {d} needs slice size 1, got {s}"
            )
    if len(dn.operand_batching_dims) != len(dn.start_indices_batching_dims):
        raise TypeError("gather: operand_batching_dims and start_indices_batching_dims must pair up")
    batch = indices.shape[:-1]
    for od, idim in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        if operand.shape[od] != batch[idim]:
            raise TypeError(
                f"gather: operand batching dim {od} (size {operand.shape[od]}) and "
                f"indices batching dim {idim} (size {batch[idim]}) differ"
            )
    window = _gather_window_sizes(dn, slice_sizes)
    if len(dn.offset_dims) != len(window) or list(dn.offset_dims) != sorted(dn.offset_dims):
        raise TypeError(
            f"gather offset_dims {dn.offset_dims} must be sorted and name one output "
            f"dimension per window dimension ({len(window)})"
        )
    rank = len(batch) + len(window)
    shape, b, w = [], iter(batch), iter(window)
    for i in range(rank):
        shape.append(next(w) if i in dn.offset_dims else next(b))
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _scatter_dnums_for(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims,
        inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims,
    )


def _gather_dnums_for(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(
        offset_dims=dn.update_window_dims,
        collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims,
    )


def _gather_jvp(primals, tangents, **params):
    x, idx = primals
    out = gather_p.bind(x, idx, **params)
    fill = 0 if params["mode"] == GatherScatterMode.FILL_OR_DROP else None
    return out, gather_p.bind(ad.instantiate_zeros(tangents[0]), idx, **{**params, "fill_value": fill})


def _gather_transpose(
    ct, x, idx, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted, mode, fill_value
):
    assert ad.is_undefined(x) and not ad.is_undefined(idx)
    zeros = _lax().full(x.aval.shape, 0, x.aval.dtype)
    return [
        scatter_add_p.bind(
            zeros,
            idx,
            ct,
            dimension_numbers=_scatter_dnums_for(dimension_numbers),
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        ),
        None,
    ]


def _shift(dims):
    # np.add, as JAX's batching rules do: their dimension numbers print as np.int64(...).
    return tuple(np.add(1, dims))


def _gather_batch(size, vals, dims, *, dimension_numbers, slice_sizes, **params):
    x, idx = vals
    dx, di = dims
    dn = dimension_numbers
    if di is not_mapped:  # the batch dim is one more window dim, taken whole
        x = batching.moveaxis(x, dx, 0)
        new = GatherDimensionNumbers(
            offset_dims=(0, *_shift(dn.offset_dims)),
            collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
            start_index_map=_shift(dn.start_index_map),
            operand_batching_dims=_shift(dn.operand_batching_dims),
            start_indices_batching_dims=dn.start_indices_batching_dims,
        )
        return gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=(size, *slice_sizes), **params), 0
    idx = batching.moveaxis(idx, di, 0)
    if dx is not_mapped:  # the batch dim is one more batch dim of the indices
        new = dn._replace(
            offset_dims=tuple(1 + d for d in dn.offset_dims),
            start_indices_batching_dims=_shift(dn.start_indices_batching_dims),
        )
        # Batched indices into one array may no longer be sorted or unique.
        params = dict(params, indices_are_sorted=False, unique_indices=False)
        return gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=slice_sizes, **params), 0
    x = batching.moveaxis(x, dx, 0)  # both batched: pair them with a batching dim
    new = GatherDimensionNumbers(
        offset_dims=_shift(dn.offset_dims),
        collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
        start_index_map=_shift(dn.start_index_map),
        operand_batching_dims=(0, *_shift(dn.operand_batching_dims)),
        start_indices_batching_dims=(0, *_shift(dn.start_indices_batching_dims)),
    )
    return gather_p.bind(x, idx, dimension_numbers=new, slice_sizes=(1, *slice_sizes), **params), 0


ad.jvp_rules[gather_p] = _gather_jvp
ad.transpose_rules[gather_p] = _gather_transpose
batching.batch_rules[gather_p] = _gather_batch


# --- scatter family ----------------------------------------------------------------------------

scatter_p = Primitive("scatter")
scatter_add_p = Primitive("scatter-add")
scatter_sub_p = Primitive("scatter-sub")
scatter_mul_p = Primitive("scatter-mul")
scatter_min_p = Primitive("scatter-min")
scatter_max_p = Primitive("scatter-max")

_SCATTER_COMBINE = {
    scatter_add_p: np.add,
    scatter_sub_p: np.subtract,
    scatter_mul_p: np.multiply,
    scatter_min_p: np.minimum,
    scatter_max_p: np.maximum,
}


def _scatter_pp_params(combine_name):
    # JAX shows the combining function as a scalar jaxpr (None for a plain scatter) and its consts.
    def rule(eqn):
        update_jaxpr = None
        if combine_name is not None:
            from . import elementwise

            aval = ShapedArray((), eqn.out_binders[0].aval.dtype, False)
            x, y, out = ir.Var(aval), ir.Var(aval), ir.Var(aval)
            prim = getattr(elementwise, combine_name + "_p")
            update_jaxpr = ir.Jaxpr([], [x, y], [ir.JaxprEqn(prim, [x, y], {}, [out])], [out])
        return sorted({**eqn.params, "update_consts": (), "update_jaxpr": update_jaxpr}.items())

    return rule


for _p, _name in [(scatter_p, None), (scatter_add_p, "add"), (scatter_sub_p, "sub"), (scatter_mul_p, "mul"),
                  (scatter_min_p, "min"), (scatter_max_p, "max")]:  # fmt: skip
    ir.pp_params_rules[_p] = _scatter_pp_params(_name)


def _scatter_window_sizes(operand_shape, updates_shape, dn):
    sizes, pos = [], 0
    for d in range(len(operand_shape)):
        if d in dn.inserted_window_dims or d in dn.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(updates_shape[dn.update_window_dims[pos]])
            pos += 1
    return sizes


def _scatter_impl(prim):
    def impl(operand, indices, updates, *, dimension_numbers, indices_are_sorted, unique_indices, mode):
        dn = dimension_numbers
        sizes = _scatter_window_sizes(operand.shape, updates.shape, dn)
        scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
        batch = indices.shape[:-1]
        u = np.transpose(updates, scatter_dims + list(dn.update_window_dims)).reshape(batch + tuple(sizes))
        clip = mode == GatherScatterMode.CLIP
        idx, in_bounds = _window_index(
            operand.shape,
            indices,
            dn.scatter_dims_to_operand_dims,
            dn.operand_batching_dims,
            dn.scatter_indices_batching_dims,
            sizes,
            clamp=clip,
        )
        keep = np.ones(batch, bool) if clip else in_bounds
        where = tuple(i[keep] for i in idx)
        vals = u[keep]
        out = np.array(operand)
        if prim is scatter_p:
            out[where] = vals
        else:
            _SCATTER_COMBINE[prim].at(out, where, vals)
        return out

    return impl


def _scatter_abstract(
    operand, indices, updates, *, dimension_numbers, indices_are_sorted, unique_indices, mode
):
    dn = dimension_numbers
    if indices.dtype.kind not in "iu":
        raise TypeError(f"scatter indices must be integers, got {indices.dtype.name}")
    if updates.dtype != operand.dtype:
        raise TypeError(
            f"scatter updates dtype {updates.dtype.name} must match the operand dtype {operand.dtype.name}"
        )
    if indices.ndim < 1 or indices.shape[-1] != len(dn.scatter_dims_to_operand_dims):
        raise TypeError(
            f"scatter: the last dimension of indices (shape {indices.shape}) must be "
            f"the index vector, of length {len(dn.scatter_dims_to_operand_dims)}"
        )
    n_window = operand.ndim - len(dn.inserted_window_dims) - len(dn.operand_batching_dims)
    if len(dn.update_window_dims) != n_window:
        raise TypeError(
            f"scatter: update_window_dims {dn.update_window_dims} must name "
            f"{n_window} window dimensions of the updates"
        )
    scatter_shape = tuple(s for d, s in enumerate(updates.shape) if d not in dn.update_window_dims)
    if scatter_shape != indices.shape[:-1]:
        raise TypeError(
            f"scatter: updates scatter dims {scatter_shape} must match the indices batch "
            f"shape {indices.shape[:-1]}"
        )
    sizes = _scatter_window_sizes(operand.shape, updates.shape, dn)
    if updates.size and any(s > n for s, n in zip(sizes, operand.shape)):  # empty updates write nothing
        raise TypeError(f"scatter: update window {sizes} is larger than the operand {operand.shape}")
    return operand


def _scatter_params(params):
    return {k: params[k] for k in ("dimension_numbers", "indices_are_sorted", "unique_indices", "mode")}


def _scatter_gather(x, idx, updates_aval, dn, params):
    """The gather reading back the windows a scatter wrote: the transpose of scatter-add."""
    lax = _lax()
    sizes = _scatter_window_sizes(core.get_aval(x).shape, updates_aval.shape, dn)
    mode = params["mode"]
    out = gather_p.bind(
        x,
        idx,
        dimension_numbers=_gather_dnums_for(dn),
        slice_sizes=tuple(sizes),
        unique_indices=params["unique_indices"],
        indices_are_sorted=params["indices_are_sorted"],
        mode=mode,
        fill_value=0 if mode == GatherScatterMode.FILL_OR_DROP else None,
    )
    return lax.convert_element_type(out, updates_aval.dtype) if out.dtype != updates_aval.dtype else out


def _zeros(x):
    return _lax().full_like(x, 0)


def _scatter_linear_jvp(prim):
    def rule(primals, tangents, **params):
        x, idx, u = primals
        gx, _, gu = tangents
        gx = _zeros(x) if type(gx) is ad.Zero else gx
        gu = _zeros(u) if type(gu) is ad.Zero else gu
        return prim.bind(x, idx, u, **params), prim.bind(gx, idx, gu, **params)

    return rule


def _scatter_add_transpose(sign):
    def rule(ct, x, idx, u, **params):
        ct_x = ct if ad.is_undefined(x) else None
        ct_u = None
        if ad.is_undefined(u):
            ct_u = _scatter_gather(ct, idx, u.aval, params["dimension_numbers"], params)
            ct_u = _lax().neg(ct_u) if sign < 0 else ct_u
        return [ct_x, None, ct_u]

    return rule


def _scatter_mul_jvp(primals, tangents, **params):
    x, idx, u = primals
    gx, _, gu = tangents
    out = scatter_mul_p.bind(x, idx, u, **params)
    acc = ad.Zero(ad.tangent_aval(core.get_aval(out)))
    if type(gx) is not ad.Zero:
        acc = ad.add_tangents(acc, scatter_mul_p.bind(gx, idx, u, **params))
    if type(gu) is not ad.Zero:
        if not params["unique_indices"]:
            raise NotImplementedError("scatter_mul gradients are only implemented if `unique_indices=True`")
        acc = ad.add_tangents(acc, _lax().mul(x, scatter_add_p.bind(_zeros(x), idx, gu, **params)))
    return out, acc


def _scatter_mul_transpose(ct, x, idx, u, **params):
    if ad.is_undefined(u):
        raise NotImplementedError("scatter_mul is not linear in its updates")
    return [scatter_mul_p.bind(ct, idx, u, **params) if ad.is_undefined(x) else None, None, None]


def _scatter_extremal_jvp(prim):
    # The tangent at each output element averages the tangents of every value that attains it:
    # the operand element if it survived, and each update equal to the result.
    def rule(primals, tangents, **params):
        lax = _lax()
        x, idx, u = primals
        gx, _, gu = tangents
        out = prim.bind(x, idx, u, **params)
        dn = params["dimension_numbers"]
        gx = _zeros(x) if type(gx) is ad.Zero else gx
        gu = _zeros(u) if type(gu) is ad.Zero else gu
        dtype = core.get_aval(out).dtype
        won = lax.convert_element_type(
            lax.eq(u, _scatter_gather(out, idx, core.get_aval(u), dn, params)), dtype
        )
        kept = lax.convert_element_type(lax.eq(x, out), dtype)
        count = scatter_add_p.bind(kept, idx, won, **params)
        total = scatter_add_p.bind(lax.mul(gx, kept), idx, lax.mul(gu, won), **params)
        safe = lax.select(lax.eq(count, _zeros(count)), lax.full_like(count, 1), count)
        return out, lax.div(total, safe)

    return rule


def _scatter_jvp(primals, tangents, **params):
    """Plain scatter: with unique indices its tangent is a scatter of tangents. Otherwise (JAX's
    construction) scatter update ids to learn which update won each element, mask the losers,
    and express both value and tangent as scatter-adds of the winners."""
    lax = _lax()
    x, idx, u = primals
    gx, _, gu = tangents
    gx = _zeros(x) if type(gx) is ad.Zero else gx
    gu = _zeros(u) if type(gu) is ad.Zero else gu
    if params["unique_indices"]:
        return scatter_p.bind(x, idx, u, **params), scatter_p.bind(gx, idx, gu, **params)
    dn = params["dimension_numbers"]
    u_shape = core.get_aval(u).shape
    scatter_dims = [d for d in range(len(u_shape)) if d not in dn.update_window_dims]
    n_updates = int(np.prod([u_shape[d] for d in scatter_dims], dtype=np.int64))
    ids_flat = (
        lax.add(lax.iota(np.int32, n_updates), lax.full((), 1, np.int32))
        if n_updates
        else lax.full((0,), 0, np.int32)
    )
    ids = lax.reshape(ids_flat, [u_shape[d] for d in scatter_dims])
    ids = lax.broadcast_in_dim(ids, u_shape, tuple(scatter_dims))
    winner = scatter_p.bind(lax.full(core.get_aval(x).shape, 0, np.int32), idx, ids, **params)
    won = lax.eq(ids, _scatter_gather(winner, idx, core.get_aval(ids), dn, params))
    untouched = lax.eq(winner, lax.full_like(winner, 0))
    val = scatter_add_p.bind(
        lax.select(untouched, x, _zeros(x)), idx, lax.select(won, u, _zeros(u)), **params
    )
    tan = scatter_add_p.bind(
        lax.select(untouched, gx, _zeros(gx)), idx, lax.select(won, gu, _zeros(gu)), **params
    )
    return val, tan


def _scatter_transpose(ct, x, idx, u, **params):
    if not params["unique_indices"]:
        raise NotImplementedError("scatter transpose is only implemented where unique_indices=True")
    lax = _lax()
    ct_x = ct_u = None
    if ad.is_undefined(x):
        u_aval = u.aval if ad.is_undefined(u) else core.get_aval(u)
        ct_x = scatter_p.bind(ct, idx, lax.full(u_aval.shape, 0, u_aval.dtype), **params)
    if ad.is_undefined(u):
        ct_u = _scatter_gather(ct, idx, u.aval, params["dimension_numbers"], params)
    return [ct_x, None, ct_u]


def _scatter_batch(prim):
    def rule(size, vals, dims, *, dimension_numbers, **params):
        x, idx, u = vals
        dx, di, du = dims
        dn = dimension_numbers
        x = batching.bdim_at_front(x, dx, size)
        u = batching.bdim_at_front(u, du, size)
        if di is not_mapped:  # the batch dim becomes one more (whole) window dim
            new = ScatterDimensionNumbers(
                update_window_dims=(0, *_shift(dn.update_window_dims)),
                inserted_window_dims=_shift(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=_shift(dn.operand_batching_dims),
                scatter_indices_batching_dims=dn.scatter_indices_batching_dims,
            )
            return prim.bind(x, idx, u, dimension_numbers=new, **params), 0
        idx = batching.moveaxis(idx, di, 0)
        new = ScatterDimensionNumbers(
            update_window_dims=_shift(dn.update_window_dims),
            inserted_window_dims=_shift(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=(0, *_shift(dn.operand_batching_dims)),
            scatter_indices_batching_dims=(0, *_shift(dn.scatter_indices_batching_dims)),
        )
        return prim.bind(x, idx, u, dimension_numbers=new, **params), 0

    return rule


for _p in (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p, scatter_max_p):
    _p.def_impl(_scatter_impl(_p))
    _p.def_abstract_eval(_scatter_abstract)
    batching.batch_rules[_p] = _scatter_batch(_p)

ad.jvp_rules[scatter_add_p] = _scatter_linear_jvp(scatter_add_p)
ad.transpose_rules[scatter_add_p] = _scatter_add_transpose(+1)
ad.jvp_rules[scatter_sub_p] = _scatter_linear_jvp(scatter_sub_p)
ad.transpose_rules[scatter_sub_p] = _scatter_add_transpose(-1)
ad.jvp_rules[scatter_mul_p] = _scatter_mul_jvp
ad.transpose_rules[scatter_mul_p] = _scatter_mul_transpose
ad.jvp_rules[scatter_min_p] = _scatter_extremal_jvp(scatter_min_p)
ad.jvp_rules[scatter_max_p] = _scatter_extremal_jvp(scatter_max_p)
ad.jvp_rules[scatter_p] = _scatter_jvp
ad.transpose_rules[scatter_p] = _scatter_transpose


def _scatter_wrapper(prim, doc):
    def wrapper(
        operand,
        scatter_indices,
        updates,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode=None,
    ):
        return prim.bind(
            operand,
            scatter_indices,
            updates,
            dimension_numbers=_tuple_dnums(ScatterDimensionNumbers, dimension_numbers),
            indices_are_sorted=bool(indices_are_sorted),
            unique_indices=bool(unique_indices),
            mode=GatherScatterMode.from_any(mode),
        )

    wrapper.__name__ = prim.name.replace("-", "_")
    wrapper.__doc__ = doc
    return wrapper


scatter = _scatter_wrapper(
    scatter_p,
    """XLA's Scatter with replacement: ``updates`` windows
overwrite ``operand`` at ``scatter_indices``. Prefer ``x.at[idx].set(v)``.

>>> dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
...                              scatter_dims_to_operand_dims=(0,))
>>> scatter(jnp.zeros(3), jnp.array([[1]]), jnp.array([5.]), dn)
Array([0., 5., 0.], dtype=float32)
""",
)
scatter_add = _scatter_wrapper(scatter_add_p, "Scatter combining with addition (``x.at[idx].add(v)``).")
scatter_sub = _scatter_wrapper(scatter_sub_p, "Scatter combining with subtraction.")
scatter_mul = _scatter_wrapper(
    scatter_mul_p, "Scatter combining with multiplication (``x.at[idx].multiply(v)``)."
)
scatter_min = _scatter_wrapper(scatter_min_p, "Scatter combining with minimum (``x.at[idx].min(v)``).")
scatter_max = _scatter_wrapper(scatter_max_p, "Scatter combining with maximum (``x.at[idx].max(v)``).")
