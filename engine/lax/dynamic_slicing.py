"""dynamic_slice and dynamic_update_slice: static-size windows at traced start indices, clamped into
bounds as XLA does. Batched, they become a gather / a scatter (as in JAX).
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

from .. import ad, batching, core, dims, narrow_dtypes, transfers
from ..batching import not_mapped
from ..core import Primitive, ShapedArray, Tracer
from ..errors import invalid_shape_error, traced_shape_error
from .same_dtypes import check_same_dtypes
from .gather_scatter import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    _gather_batch,
    _scatter_batch,
    scatter_p,
)
from ..narrow_dtypes import kind as dtype_kind

_pyslice = builtins.slice


def _lax():
    from . import api

    return api


# ---------------------------------------------------------------------------------------------
# dynamic_slice and dynamic_update_slice: start indices are arrays, clamped into bounds.

dynamic_slice_p = Primitive("dynamic_slice")
dynamic_update_slice_p = Primitive("dynamic_update_slice")
# Moves narrow values (bfloat16, ...) as they are: numpy moves ml_dtypes' values, nothing to widen.
narrow_dtypes.keeps_narrow.update((dynamic_slice_p, dynamic_update_slice_p))
core.eager_checked.update((dynamic_slice_p, dynamic_update_slice_p))


def _dynamic_slice_indices(operand, start_indices, name="dynamic_slice", allow_negative=True):
    """Negative start indices count from the end (as in JAX), then XLA clamps into bounds.
    ``allow_negative``: JAX's ``allow_negative_indices``, a bool or one per dimension; where False,
    a negative static start is refused and a traced one is left as it is (clamped to 0)."""
    shape = core.get_aval(operand).shape
    if len(start_indices) != len(shape):  # (JAX's words print the shape where they say dimensions)
        raise ValueError(
            f"Length of slice indices must match number of operand dimensions "
            f"({len(start_indices)} vs {shape})"
        )
    _check_start_dtypes(name, start_indices)
    lax = _lax()
    out = []
    if isinstance(allow_negative, (bool, np.bool_)):
        allow_negative = [bool(allow_negative)] * len(shape)
    for i, n, negative_ok in zip(start_indices, shape, allow_negative):
        if not negative_ok and isinstance(i, (int, np.integer)) and i < 0:
            raise ValueError(f"Index {i} is out of bounds for dimension {n} if allow_negative_indices=False")
        if isinstance(i, (int, np.integer)):  # static: a constant of its canonical int dtype, as JAX
            d = core.canonical_dtype(np.asarray(i).dtype) if isinstance(i, np.integer) else None
            d = d if d is not None else core.default_dtype(int)
            if transfers.active[0]:  # (converted on the host, then transferred)
                transfers.entering(i, d, False)
            out.append(core.Array(np.asarray(int(i) + n if i < 0 else int(i), d)))
            continue
        aval = core.get_aval(i)
        if aval.shape != ():
            raise TypeError(f"dynamic_slice start indices must be integer scalars, got {aval.str_short()}")
        if dtype_kind(aval.dtype) == "u" or not negative_ok:  # cannot be negative, or taken as it is
            out.append(i)
        elif isinstance(i, Tracer) or core.staging_anywhere[0]:
            # JAX adds the size with jnp's `+`, whose promotion makes a weak index strong first
            # (a constant converts without an equation); constants are staged, as JAX does.
            # (a symbolic size is converted first, as JAX's jnp `+` converts the dimension operand)
            size = lax.full((), n, aval.dtype) if dims.is_symbolic_dim(n) else None
            negative = lax.lt(i, lax.full((), 0, aval.dtype))
            strong = (
                lax.convert_element_type(i, aval.dtype)
                if isinstance(i, Tracer)
                else core.Array(np.asarray(core.to_numpy(i), aval.dtype))
            )
            added = lax.add(strong, lax.full((), n, aval.dtype) if size is None else size)
            out.append(lax.select(negative, added, i))
        else:
            v = core.to_numpy(i)
            out.append(core.Array(v + n if v < 0 else v))
    return out


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """A slice of static size ``slice_sizes`` starting at traced ``start_indices``.

    Starts are clamped so the slice fits, as in XLA:

    >>> dynamic_slice(jnp.arange(5), (4,), (2,))
    Array([3, 4], dtype=int32)
    """
    idx = _dynamic_slice_indices(operand, start_indices, allow_negative=allow_negative_indices)
    try:
        sizes = tuple(s if type(s) is int else dims.as_dim(s) for s in slice_sizes)
    except TypeError:  # (a size that is no integer: 2.0, or traced)
        if any(isinstance(s, core.Tracer) for s in slice_sizes):
            raise traced_shape_error(tuple(slice_sizes)) from None
        raise invalid_shape_error(tuple(slice_sizes)) from None
    return dynamic_slice_p.bind(operand, *idx, slice_sizes=sizes)


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with ``update`` written at traced ``start_indices`` (clamped so it fits)."""
    idx = _dynamic_slice_indices(operand, start_indices, "dynamic_update_slice", allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *idx)


def _check_start_dtypes(name, start_indices):
    """JAX's TypeError for a start index that is no integer (``(1.0,)``), naming every start's
    dtype (a Python int's is the default int)."""
    names = [
        core.default_dtype(int).name if isinstance(i, int) else np.dtype(core.get_aval(i).dtype).name
        for i in start_indices
    ]
    if any(not np.issubdtype(np.dtype(n), np.integer) for n in names):
        got = "got: " if name == "dynamic_slice" else "got "  # (JAX's two messages differ so)
        raise TypeError(
            f"index arguments to {name} must be integers of the same type, {got}{', '.join(names)}"
        )


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
        if i.shape != () or dtype_kind(i.dtype) not in "iu":
            raise TypeError(f"{name} start indices must be integer scalars, got {i.str_short()}")


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract(x, *idx, slice_sizes):
    _check_indices("dynamic_slice", x, idx)
    if len(slice_sizes) != x.ndim or any(s > n for s, n in zip(slice_sizes, x.shape)):
        raise TypeError(
            f"slice slice_sizes must be less than or equal to operand shape, got slice_sizes "
            f"{slice_sizes} for operand shape {x.shape}."
        )
    if any(s < 0 for s in slice_sizes):
        raise TypeError(
            f"slice slice_sizes must be greater than or equal to zero, got slice_sizes of {slice_sizes}."
        )
    return ShapedArray(slice_sizes, x.dtype, x.weak_type)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    # (JAX's rule slices the tangent first, then the primal: the order its jvp stages them in; a
    # zero tangent stays zero)
    x, *idx = primals
    t = tangents[0]
    if type(t) is not ad.Zero:
        t = dynamic_slice_p.bind(t, *idx, slice_sizes=slice_sizes)
    out = dynamic_slice_p.bind(x, *idx, slice_sizes=slice_sizes)
    return out, t if type(t) is not ad.Zero else ad.Zero(ad.tangent_aval(core.get_aval(out)))


def _dynamic_slice_transpose(ct, x, *idx, slice_sizes):
    lax = _lax()
    zeros = lax.full(
        x.aval.shape, 0, x.aval.dtype, sharding=getattr(x.aval, "sharding", None)
    )  # (typed as x)
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
    if update.ndim != x.ndim:
        raise TypeError(
            f"dynamic_update_slice update must have the same rank as operand, got update shape "
            f"{update.shape} for operand shape {x.shape}."
        )
    _check_indices("dynamic_update_slice", x, idx)
    if any(u > n for u, n in zip(update.shape, x.shape)):
        raise TypeError(
            f"dynamic_update_slice update shape must be smaller than operand shape, got update "
            f"shape {update.shape} for operand shape {x.shape}."
        )
    check_same_dtypes("dynamic_update_slice", x, update)  # (after the shapes, as JAX's rules)
    return x


def _dynamic_update_slice_jvp(primals, tangents):
    x, update, *idx = primals
    out = dynamic_update_slice_p.bind(x, update, *idx)  # the primal first, as in JAX's rule
    gx, gu = ad.instantiate_zeros(tangents[0]), ad.instantiate_zeros(tangents[1])
    return out, dynamic_update_slice_p.bind(gx, gu, *idx)


def _dynamic_update_slice_transpose(ct, x, update, *idx):
    lax = _lax()
    u_aval = update.aval if ad.is_undefined(update) else core.get_aval(update)
    ct_x = ct_u = None
    zeros = lax.full(u_aval.shape, 0, u_aval.dtype)  # made either way, as JAX's rule does
    if ad.is_undefined(x):
        ct_x = dynamic_update_slice_p.bind(ct, zeros, *idx)
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
        update_jaxpr=None,
        update_consts=(),
    )


ad.jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose
batching.batch_rules[dynamic_update_slice_p] = _dynamic_update_slice_batch


def dynamic_slice_in_dim(
    operand, start_index, slice_size: int, axis: int = 0, *, allow_negative_indices=True
):
    """``dynamic_slice`` along one axis."""
    shape = core.get_aval(operand).shape
    starts = [0] * len(shape)
    sizes = list(shape)
    allow = [False] * len(shape)  # (as JAX: only the sliced axis' start may count back)
    # (Python's list assignment says an axis is out of range, as in JAX; a negative one counts back)
    starts[int(axis)], sizes[int(axis)] = start_index, dims.as_dim(slice_size)
    allow[int(axis)] = allow_negative_indices
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow)


def _staged_as_jit(static_argnames):
    """JAX jits these helpers, so they print as nested ``jit`` equations; the decorator lives with
    jnp's staged helpers, which import lax, so it is looked up at the first call."""

    def decorate(fn):
        staged = []

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not staged:
                from ..numpy._staged import staged_as_jit

                staged.append(staged_as_jit(fn, static_argnames=static_argnames))
            return staged[0](*args, **kwargs)

        return wrapper

    return decorate


@_staged_as_jit(static_argnames=("axis", "keepdims", "allow_negative_indices"))
def dynamic_index_in_dim(
    operand, index, axis: int = 0, keepdims: bool = True, *, allow_negative_indices=True
):
    """The element at traced ``index`` along ``axis``."""
    out = dynamic_slice_in_dim(operand, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else _lax().squeeze(out, (int(axis),))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *, allow_negative_indices=True):
    """``dynamic_update_slice`` along one axis."""
    ndim = core.get_aval(operand).ndim
    starts = [0] * ndim
    starts[int(axis)] = start_index  # (Python's IndexError for an axis out of range, as in JAX)
    allow = [False] * ndim
    allow[int(axis)] = allow_negative_indices
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow)


@_staged_as_jit(static_argnames=("axis", "allow_negative_indices"))
def dynamic_update_index_in_dim(operand, update, index, axis: int, *, allow_negative_indices=True):
    """Write ``update`` (without the ``axis`` dimension, or with it of size 1) at ``index``."""
    ndim = core.get_aval(operand).ndim
    axis = int(axis)
    if core.get_aval(update).ndim == ndim - 1:
        update = _lax().expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(
        operand, update, index, axis, allow_negative_indices=allow_negative_indices
    )
