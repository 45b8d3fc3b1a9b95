"""Gather and the scatter family: XLA's Gather/Scatter evaluated in numpy, with JAX's dimension-number
types, ``GatherScatterMode`` and wrappers' signatures, including the batching dimensions that let
batching rules stay simple (a vmapped gather is a gather with one more batching dim).

``jnp`` indexing and ``.at[]`` (``engine/numpy/_indexing.py``) are built on these.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np

from .. import ad, batching, core, dims, ir, narrow_dtypes
from ..batching import not_mapped
from ..core import Primitive, ShapedArray
from ..narrow_dtypes import kind as dtype_kind
from .gather_checks import check_gather, check_scatter
from .same_dtypes import check_same_dtypes
from .scatter_combiners import combiner


def _lax():
    from . import api

    return api


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
    return cls(*(tuple(f) for f in dnums))  # (element types kept: JAX prints np.int64 where made)


def _default_fill(dtype):
    if isinstance(dtype, core.ExtendedDType):  # (typed keys: every word of a filled key, JAX's)
        return np.iinfo(np.uint32).max
    dtype = np.dtype(dtype)
    if dtype_kind(dtype) in "fc":
        return np.nan
    if dtype_kind(dtype) == "i":
        return np.iinfo(dtype).min
    if dtype_kind(dtype) == "u":
        return np.iinfo(dtype).max
    if dtype_kind(dtype) == "b":
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
core.eager_checked.add(gather_p)  # (numpy would clamp or broadcast what XLA's shape inference refuses)


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
        slice_sizes=tuple(s if type(s) is int else dims.as_dim(s) for s in slice_sizes),
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
    check_gather(operand, indices, dn, slice_sizes)
    if dtype_kind(indices.dtype) not in "iu":
        raise ValueError("indices must have an integer type")
    batch = indices.shape[:-1]
    window = _gather_window_sizes(dn, slice_sizes)
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
    zeros = _lax().full(
        x.aval.shape, 0, x.aval.dtype, sharding=getattr(x.aval, "sharding", None)
    )  # (typed as x)
    return [
        scatter_add_p.bind(
            zeros,
            idx,
            ct,
            dimension_numbers=_scatter_dnums_for(dimension_numbers),
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
            **_combining("add", x.aval.dtype),
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
scatters = (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p, scatter_max_p)
# Moves narrow values (bfloat16, ...) as they are: numpy moves ml_dtypes' values, nothing to widen.
# A scatter's combiner rounds each update to the narrow dtype (numpy's ufunc.at on ml_dtypes' types),
# as XLA's scatter loop does: widened, duplicates would be summed in float32 and rounded once.
narrow_dtypes.keeps_narrow.update((gather_p, *scatters))

_COMBINER_OPS = {
    scatter_add_p: "add",
    scatter_sub_p: "sub",
    scatter_mul_p: "mul",
    scatter_min_p: "min",
    scatter_max_p: "max",
}
_SCATTER_COMBINE = {
    scatter_add_p: np.add,
    scatter_sub_p: np.subtract,
    scatter_mul_p: np.multiply,
    scatter_min_p: np.minimum,
    scatter_max_p: np.maximum,
}


def _combining(op, dtype):
    """A scatter's params for its combining function: JAX's ``update_jaxpr`` (here closed: the
    combiner's jaxpr with its consts) and ``update_consts``; None and () for a plain scatter."""
    if op is None:
        return _NO_COMBINER
    closed = combiner(op, dtype)
    return {"update_jaxpr": closed, "update_consts": tuple(closed.consts)}


_NO_COMBINER = {"update_jaxpr": None, "update_consts": ()}


def _scatter_pp_params(eqn):
    # JAX's update_jaxpr is an open jaxpr (its consts are update_consts)
    closed = eqn.params["update_jaxpr"]
    return sorted({**eqn.params, "update_jaxpr": None if closed is None else closed.jaxpr}.items())


for _p in (scatter_p, *_COMBINER_OPS):
    ir.pp_params_rules[_p] = _scatter_pp_params


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
    def impl(
        operand,
        indices,
        updates,
        *,
        dimension_numbers,
        indices_are_sorted,
        unique_indices,
        mode,
        update_jaxpr,
        update_consts,
    ):
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
        if update_jaxpr is not None and prim is scatter_p:  # (scatter_apply's function)
            return _apply_combiner(update_jaxpr, out, where, vals)
        if prim is scatter_p:
            out[where] = vals
        else:
            _SCATTER_COMBINE[prim].at(out, where, vals)
        return out

    return impl


def _apply_combiner(update_jaxpr, out, where, vals):
    """XLA's scatter with a combiner: ``out[i] = f(out[i], u)`` for each update in turn, so an
    element indexed twice is combined twice. Done in rounds: round ``r`` takes each element's
    ``r``-th update, all at distinct elements, so one batched call of ``f`` serves the round."""
    from ..api import vmap

    out = np.ascontiguousarray(out)  # (so that its flat view below writes into it)
    where = np.broadcast_arrays(*where)  # (a window's index parts broadcast against each other)
    flat = (
        np.ravel_multi_index(tuple(np.ravel(w) for w in where), out.shape) if out.ndim else np.zeros(0, int)
    )
    vals = np.ravel(np.broadcast_to(vals, where[0].shape) if out.ndim else vals)
    order = np.argsort(flat, kind="stable")
    first = np.r_[0, np.flatnonzero(np.diff(flat[order])) + 1] if flat.size else np.zeros(0, int)
    rank = np.empty(flat.size, int)
    rank[order] = np.arange(flat.size) - np.repeat(first, np.diff(np.r_[first, flat.size]))
    combine = vmap(lambda x, u: ir.eval_closed(update_jaxpr, x, u)[0])
    view = out.reshape(-1)
    for r in range(int(rank.max()) + 1 if rank.size else 0):
        at = rank == r
        view[flat[at]] = core.to_numpy(combine(view[flat[at]], vals[at]))
    return out


def _scatter_abstract(
    operand,
    indices,
    updates,
    *,
    dimension_numbers,
    indices_are_sorted,
    unique_indices,
    mode,
    update_jaxpr,
    update_consts,
):
    check_scatter(operand, indices, updates, dimension_numbers)
    if dtype_kind(indices.dtype) not in "iu":
        raise ValueError("indices must have an integer type")
    check_same_dtypes("scatter", operand, updates)
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


def _unflagged(params):
    # JAX's scatter transposes gather without the scatter's sorted/unique promises.
    return dict(params, unique_indices=False, indices_are_sorted=False)


def _zeros(x):
    return _lax().full_like(x, 0)


def _add(params, x):
    """``params`` for a scatter-add a rule makes: combining with add (``x``'s dtype), not the
    combiner of the scatter it came from."""
    return dict(params, **_combining("add", core.get_aval(x).dtype))


def _scatter_linear_jvp(prim):
    def rule(primals, tangents, **params):
        x, idx, u = primals
        gx, _, gu = tangents
        out = prim.bind(x, idx, u, **params)  # (first, as JAX: then the zero tangents)
        if type(gx) is ad.Zero and type(gu) is ad.Zero:
            return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))
        gx = _zeros(x) if type(gx) is ad.Zero else gx
        gu = _zeros(u) if type(gu) is ad.Zero else gu
        return out, prim.bind(gx, idx, gu, **params)

    return rule


def _scatter_add_transpose(sign):
    def rule(ct, x, idx, u, **params):
        ct_x = ct if ad.is_undefined(x) else None
        ct_u = None
        if ad.is_undefined(u):
            ct_u = _scatter_gather(ct, idx, u.aval, params["dimension_numbers"], _unflagged(params))
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
        acc = ad.add_tangents(acc, _lax().mul(x, scatter_add_p.bind(_zeros(x), idx, gu, **_add(params, x))))
    return out, acc


def _scatter_mul_transpose(ct, x, idx, u, **params):
    if ad.is_undefined(u):
        raise NotImplementedError("scatter_mul is not linear in its updates")
    if not ad.is_undefined(x):
        return [None, None, None]
    return [
        scatter_mul_p.bind(ct, idx, u, **dict(params, **_combining("mul", ct.dtype))),
        None,
        None,
    ]


def _scatter_extremal_jvp(prim):
    # JAX's rule: the tangent at each output element averages the tangents of every value that
    # attains it (the operand element if it survived, and each update equal to the result),
    # built from gathers and scatter-adds as JAX builds it. One deliberate difference: under
    # mode='clip' the counting gathers and scatters clip too (JAX's drop out-of-bounds updates
    # from the counts, so its tangent there is inf or nan).
    def rule(primals, tangents, **params):
        lax = _lax()
        x, idx, u = primals
        gx, _, gu = tangents
        out = prim.bind(x, idx, u, **params)
        if type(gx) is ad.Zero and type(gu) is ad.Zero:
            return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))
        gx, gu = ad.instantiate_zeros(gx), ad.instantiate_zeros(gu)
        dn = params["dimension_numbers"]
        gdn = _gather_dnums_for(dn)
        sizes = _scatter_window_sizes(core.get_aval(x).shape, core.get_aval(u).shape, dn)

        clip = params["mode"] == GatherScatterMode.CLIP
        count_mode = GatherScatterMode.CLIP if clip else None

        def take(a):
            return gather(a, idx, gdn, sizes, mode=count_mode)

        initial, target = take(x), take(out)
        successful, retained = lax.eq(u, target), lax.eq(initial, target)
        zeros = lax.full_like(x, 0)
        num_updates = take(
            scatter_add(
                zeros,
                idx,
                lax.select(successful, lax.full_like(u, 1), lax.full_like(u, 0)),
                dn,
                mode=count_mode,
            )
        )
        zeros = lax.full_like(x, 0)
        num_refs = take(scatter_add(zeros, idx, lax.full_like(u, 1), dn, mode=count_mode))
        updates_normalizer = lax.select(retained, 1.0 / (num_updates + 1), 1.0 / num_updates)
        updates_coef = lax.select(successful, updates_normalizer, lax.full_like(u, 0))
        operand_normalizer = lax.select(retained, 1.0 / (num_updates + 1), lax.full_like(num_updates, 0))
        operand_coef = (-1.0 + operand_normalizer) / num_refs
        tangent_updates = take(gx) * operand_coef + gu * updates_coef
        return out, scatter_add_p.bind(gx, idx, tangent_updates, **_add(params, gx))

    return rule


def _scatter_transpose(ct, x, idx, u, **params):
    if not params["unique_indices"]:
        raise NotImplementedError("scatter transpose is only implemented where unique_indices=True")
    lax = _lax()
    ct_x = ct_u = None
    if ad.is_undefined(x):
        u_aval = u.aval if ad.is_undefined(u) else core.get_aval(u)
        # (zeros typed as the updates are: JAX's full_like of their type)
        if ad.is_undefined(u):
            layout = getattr(u_aval, "sharding", None)
        else:
            from ..sharded_types import typed_layout

            layout = typed_layout(u) if isinstance(u, core.Tracer) else None
        ct_x = scatter_p.bind(ct, idx, lax.full(u_aval.shape, 0, u_aval.dtype, sharding=layout), **params)
    if ad.is_undefined(u):
        ct_u = _scatter_gather(ct, idx, u.aval, params["dimension_numbers"], _unflagged(params))
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


for _p in scatters:
    core.eager_checked.add(_p)
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
ad.transpose_rules[scatter_p] = _scatter_transpose


def _scatter_wrapper(prim, doc):
    op = _COMBINER_OPS.get(prim)

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
        combining = _combining(op, core.get_aval(operand).dtype)
        return prim.bind(
            operand,
            scatter_indices,
            updates,
            dimension_numbers=_tuple_dnums(ScatterDimensionNumbers, dimension_numbers),
            indices_are_sorted=bool(indices_are_sorted),
            unique_indices=bool(unique_indices),
            mode=GatherScatterMode.from_any(mode),
            **combining,
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


from . import scatter_jvp  # noqa: E402, F401  (the JVP of a plain scatter)
from .scatter_apply import scatter_apply  # noqa: E402, F401  (a scatter with a function as combiner)
