"""Partitioning rules of slicing, gather and scatter, with JAX's sharding-in-types rules for them.

On ``Explicit`` mesh axes a value's type names its sharding, so a slice, gather or scatter must say
how its result is split. JAX's rules, which these follow:

* ``slice`` / ``dynamic_slice`` keep the operand's spec; a sliced dimension stays split only when
  its new size divides by its axes, else ``ShardingTypeError`` (JAX does not move data to fix it).
* ``gather`` propagates what it can without collectives: dimensions it slices into must be whole
  or replicated, its index vectors replicated; otherwise the user must give ``out_sharding``
  (``x.at[i].get(out_sharding=...)``). ``scatter`` is the mirror image.
* ``dynamic_update_slice`` wants its update typed as its operand.

The engine computes these on gathered operands and slices the result locally to the typed spec (no
communication beyond the gather). Errors are raised where the mesh context checks (eager operations,
as ``MeshContext.explicit``) but for slicing, whose rule JAX applies inside ``jit`` as well.
"""

from __future__ import annotations

import numpy as np

from .. import core
from .partition import (
    MeshContext,
    Sharded,
    ShardingTypeError,
    Spec,
    _entry,
    _fallback,
    _replicated,
    _to_spec,
    _type_str,
)


def _typed(ctx: MeshContext, axes) -> tuple:
    return tuple(a for a in axes if a in ctx.typed)


def _shaped(ctx: MeshContext, x: Sharded) -> str:
    """``ShapedArray(float32[8@i,4])``: the repr JAX's gather/scatter errors print."""
    short = _type_str(ctx, x)
    dtype = core.get_aval(x.val).dtype
    return f"ShapedArray({dtype.name}{short[short.index('[') :]})"


def _laid_out(ctx: MeshContext, out: Sharded, spec: Spec) -> Sharded:
    return out if out.spec == spec else Sharded(_to_spec(ctx, out, spec), spec)


def _kept_spec(ctx: MeshContext, x: Sharded, out_shape, name: str) -> Spec:
    """JAX's ``_get_sharding_for_varying_out_shape``: the operand's typed spec, if every dimension
    whose size changes still divides by its axes. (Raised inside ``jit`` too: the rule needs no
    ``out_sharding`` that the engine's own AD rules would have to give.)"""
    shape = ctx.global_shape(core.get_aval(x.val).shape, x.spec)
    spec = tuple(_typed(ctx, s) for s in x.spec)
    for n, out, axes in zip(shape, out_shape, spec):
        if n != out and axes and out % ctx.parts(axes):
            sizes: tuple = tuple(int(n) for n in out_shape)
            if (
                ctx.checks is True and name == "slicing"
            ):  # (JAX's eager slice is a dynamic_slice of numpy ints)
                name, sizes = "dynamic_slice", tuple(np.int64(n) for n in sizes)
            raise ShardingTypeError(
                f"{name} on sharded dims where out dim ({out}) is not divisible by mesh axes "
                f"({ctx.parts(axes)}) with spec ({_entry(axes)}) is not implemented. Got input "
                f"type={_type_str(ctx, x)} and output shape={sizes}"
            )
    return spec


def _slice(ctx, prim, vals, params):
    """Whole dimensions stay split, each block sliced alike; a sliced one is gathered first (as
    XLA), then split again by the same axes where its new size divides (as JAX's types, and XLA
    inside ``jit``)."""
    (x,) = vals
    shape = core.get_aval(x.val).shape
    start, limit, strides = params["start_indices"], params["limit_indices"], params["strides"]
    steps = strides or (1,) * len(shape)
    out_shape = [max(0, -(-(hi - lo) // s)) for lo, hi, s in zip(start, limit, steps)]
    if ctx.typed:
        _kept_spec(ctx, x, out_shape, "slicing")
    gshape = ctx.global_shape(shape, x.spec)
    whole = [start[d] == 0 and limit[d] == n for d, n in enumerate(gshape)]
    spec = tuple(s if w and steps[d] == 1 else () for d, (s, w) in enumerate(zip(x.spec, whole)))
    v = x.val if spec == x.spec else _to_spec(ctx, x, spec)
    local = tuple(shape[d] if s else n for d, (s, n) in enumerate(zip(spec, limit)))
    out = Sharded(prim.bind(v, **dict(params, limit_indices=local)), spec)

    def kept(s, whole, m):
        if whole or (ctx.checks is True and not _typed(ctx, s)):  # (XLA's eager one-op program gathers it)
            return whole
        return s if m % ctx.parts(s) == 0 else ()

    return _laid_out(ctx, out, tuple(kept(s, w, m) for s, w, m in zip(x.spec, spec, out_shape)))


def _dynamic_slice(ctx, prim, vals, params):
    """Replicated on ``Auto`` axes (as XLA lays it out), typed axes kept (as JAX's types)."""
    out = _fallback(ctx, prim, vals, params)
    return _laid_out(ctx, out, _kept_spec(ctx, vals[0], params["slice_sizes"], "dynamic_slice"))


def _dynamic_update_slice(ctx, prim, vals, params):
    x, update = vals[0], vals[1]
    typed = tuple(_typed(ctx, s) for s in x.spec)
    if ctx.explicit and typed != tuple(_typed(ctx, s) for s in update.spec):
        raise ShardingTypeError(
            "dynamic_update_slice operand sharding must be equal to update sharding, got operand "
            f"sharding {_typed_str(ctx, x)} and update sharding {_typed_str(ctx, update)}."
        )
    return _laid_out(ctx, _fallback(ctx, prim, vals, params), x.spec)


def _typed_str(ctx: MeshContext, x: Sharded) -> str:
    """``float32[8@i,4]({Explicit: ('i', 'j')})``: JAX's ``str_short(mesh_axis_types=True)``."""
    short = _type_str(ctx, x)
    groups: dict = {}
    for name, kind in zip(ctx.mesh.axis_names, ctx.mesh.axis_types):
        groups.setdefault(getattr(kind, "name", str(kind)), []).append(name)
    kinds = ", ".join(f"{k}: {tuple(v)!r}" for k, v in groups.items())
    return f"{core.get_aval(x.val).dtype.name}{short[short.index('[') :]}({{{kinds}}})"


def _gather_spec(operand: Spec, indices: Spec, oshape, dn, slice_sizes) -> Spec | None:
    """JAX's ``_gather_spec_computation`` on typed specs (``()``: not split)."""
    ispec = list(indices)
    if not any(operand) and not any(ispec):
        return _replicated(len(dn.offset_dims) + len(ispec) - 1)
    pairs = list(zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    if not (
        all(slice_sizes[d] == oshape[d] or not operand[d] for d in dn.start_index_map)
        and all(not operand[o] or not ispec[i] or operand[o] == ispec[i] for o, i in pairs)
        and all(not s for i, s in enumerate(ispec) if i not in dn.start_indices_batching_dims)
    ):
        return None
    for o, i in pairs:
        ispec[i] = ispec[i] or operand[o]
    windows = iter(
        d
        for d in range(len(oshape))
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    )
    batch = iter(ispec[:-1])  # (the last dimension is the index vector)
    rank = len(dn.offset_dims) + len(ispec) - 1
    return tuple(operand[next(windows)] if d in dn.offset_dims else next(batch) for d in range(rank))


def _gather(ctx, prim, vals, params):
    x, idx = vals
    operand, indices = tuple(_typed(ctx, s) for s in x.spec), tuple(_typed(ctx, s) for s in idx.spec)
    oshape = ctx.global_shape(core.get_aval(x.val).shape, x.spec)
    dn, sizes = params["dimension_numbers"], params["slice_sizes"]
    spec = _gather_spec(operand, indices, oshape, dn, sizes)
    if spec is None and ctx.explicit:
        raise ShardingTypeError(
            "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather "
            "indexing as out sharding could not be resolved unambiguously (or would require "
            f"collectives on inputs). Got operand={_shaped(ctx, x)}, indices={_shaped(ctx, idx)}"
        )
    if spec is None or not ctx.typed:  # (on Auto axes, as XLA: dimensions kept whole stay split)
        spec = _gather_spec(x.spec, idx.spec, oshape, dn, sizes) or _passthrough(
            x.spec, idx.spec, oshape, dn, sizes
        )
    return _laid_out(ctx, _fallback(ctx, prim, vals, params), spec)


def _passthrough(operand: Spec, indices: Spec, oshape, dn, slice_sizes) -> Spec:
    windows = iter(
        d
        for d in range(len(oshape))
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    )
    rank = len(dn.offset_dims) + len(indices) - 1
    out = []
    for d in range(rank):
        if d in dn.offset_dims:
            w = next(windows)
            out.append(operand[w] if slice_sizes[w] == oshape[w] else ())
        else:
            out.append(())
    used = [a for s in out for a in s]
    return tuple(out) if len(used) == len(set(used)) else _replicated(rank)


def _scatter_spec(operand: Spec, indices: Spec, updates: Spec, oshape, ushape, dn) -> Spec | None:
    """JAX's ``_scatter_spec_computation`` on typed specs (``()``: not split)."""
    if not any(operand) and not any(indices) and not any(updates):
        return operand
    vector = len(indices) - 1
    scatter_dims: list = list(range(vector))
    for d in dn.update_window_dims:
        scatter_dims.insert(d, None)
    ubatch = tuple(scatter_dims.index(i) for i in dn.scatter_indices_batching_dims)
    windows = [
        d
        for d in range(len(oshape))
        if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
    ]
    batches = list(zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims, ubatch))
    if not (
        all(len({a for a in (operand[o], indices[i], updates[u]) if a}) <= 1 for o, i, u in batches)
        and all(
            (ushape[u] == oshape[o] and updates[u] == operand[o]) or (not updates[u] and not operand[o])
            for u, o in zip(dn.update_window_dims, windows)
        )
        and all(not operand[d] for d in dn.inserted_window_dims)
        and all(not s for i, s in enumerate(updates) if i not in ubatch and i not in dn.update_window_dims)
        and all(not s for i, s in enumerate(indices[:vector]) if i not in dn.scatter_indices_batching_dims)
        and not indices[vector]
    ):
        return None
    out = list(operand)
    for o, i, u in batches:
        out[o] = out[o] or indices[i] or updates[u]
    for u, o in zip(dn.update_window_dims, windows):
        out[o] = out[o] or updates[u]
    return tuple(out)


def _scatter(ctx, prim, vals, params):
    x, idx, upd = vals[:3]
    typed = [tuple(_typed(ctx, s) for s in v.spec) for v in (x, idx, upd)]
    shapes = [ctx.global_shape(core.get_aval(v.val).shape, v.spec) for v in (x, upd)]
    spec = _scatter_spec(*typed, *shapes, params["dimension_numbers"])
    if spec is None and ctx.explicit:
        raise ShardingTypeError(
            "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for the "
            "scatter update as out sharding could not be resolved unambiguously (or would require "
            f"collectives on inputs). Got operand={_shaped(ctx, x)}, indices={_shaped(ctx, idx)}, "
            f"updates={_shaped(ctx, upd)}"
        )
    if spec is None or not ctx.typed:  # (on Auto axes, as XLA: laid out as its operand)
        spec = _scatter_spec(x.spec, idx.spec, upd.spec, *shapes, params["dimension_numbers"]) or x.spec
    return _laid_out(ctx, _fallback(ctx, prim, vals, params), spec)


def install(rules: dict) -> None:
    from ..lax import dynamic_slicing, gather_scatter, slicing

    rules[slicing.slice_p] = _slice
    rules[dynamic_slicing.dynamic_slice_p] = _dynamic_slice
    rules[dynamic_slicing.dynamic_update_slice_p] = _dynamic_update_slice
    rules[gather_scatter.gather_p] = _gather
    for p in gather_scatter.scatters:
        rules[p] = _scatter
