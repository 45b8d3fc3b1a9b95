"""StableHLO rules for SPMD programs, as JAX 0.10.2 lowers them with Shardy: a ``shard_map`` is an
``sdy.manual_computation`` over the module's mesh (declared once, ``sdy.mesh @mesh``; the module
then has one partition per device of it), the collectives inside it ``stablehlo.all_reduce`` /
``all_gather`` / ``reduce_scatter`` / ``collective_permute`` / ``all_to_all`` over replica groups
of mesh positions, ``axis_index`` arithmetic on ``partition_id``, and ``with_sharding_constraint``
an ``sdy.sharding_constraint``. A collective outside a manual computation (or in groups) is not
printed: it raises NotImplementedError."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..lax import parallel as par
from ..lax import reductions, varying
from ..lax import all_gather_typed
from ..parallel.reshard import constraint_sharding, reshard_p, sharding_constraint_p
from ..parallel.spmd import shard_map_p
from ..sharding import UNCONSTRAINED, AxisType, _axes_of
from . import literals
from .lowering import Module, RuleContext, register, rules
from .rules_control import _return
from .rules_elementwise import broadcast_in_dim, hlo_op
from .rules_indexing import generic
from .rules_structural import reshape
from .syntax import Block, Printer, Spec, Value, functional_type

_CHANNEL = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"


# --- the mesh and its shardings ------------------------------------------------------------------


def use_mesh(module: Module, mesh: Any) -> str:
    """The module's mesh symbol for ``mesh`` (JAX's abstract mesh: axis names and sizes; which
    devices do not show). The engine prints one mesh per module."""
    if any(t is not AxisType.Auto for t in mesh.axis_types):
        raise NotImplementedError("StableHLO text for a mesh of Explicit or Manual axes is not implemented")
    key = (tuple(mesh.axis_names), tuple(int(s) for s in mesh.axis_sizes))
    if module.mesh is None:
        module.mesh = key
    elif module.mesh != key:
        raise NotImplementedError("StableHLO text for a program over two meshes is not implemented")
    return "@mesh"


def mesh_declaration(mesh: tuple[tuple[str, ...], tuple[int, ...]]) -> str:
    names, sizes = mesh
    axes = ", ".join(f'"{n}"={s}' for n, s in zip(names, sizes))
    attrs = ", ".join(f'{{name = "{n}", size = {s} : i64}}' for n, s in zip(names, sizes))
    return f"  sdy.mesh @mesh = <[{axes}]> {{stablehlo.mesh = {{axes = [{attrs}]}}}}\n"


def dims_text(spec: Sequence[Any], ndim: int, unconstrained: Any = ()) -> str:
    """``[{"i"}, {}, {?}]``: per dimension, the mesh axes splitting it (open when unconstrained)."""
    entries = list(spec) + [None] * (ndim - len(spec))
    out = []
    for d, e in enumerate(entries[:ndim]):
        if e is UNCONSTRAINED or d in unconstrained:
            out.append("{?}")
        else:
            out.append("{" + ", ".join(f'"{a}"' for a in _axes_of(e)) + "}")
    return "[" + ", ".join(out) + "]"


def sharding_text(mesh_ref: str, spec: Sequence[Any], ndim: int) -> str:
    return f"<{mesh_ref}, {dims_text(spec, ndim)}>"


# --- manual computations -------------------------------------------------------------------------


@register(shard_map_p)
def _shard_map(
    ctx: RuleContext, *args: Value, jaxpr: Any, mesh: Any, in_specs: Any, out_specs: Any, **_: Any
) -> list[Value]:
    if ctx.module.manual:
        raise NotImplementedError("StableHLO text for a shard_map inside a shard_map is not implemented")
    names, sizes = tuple(mesh.axis_names), tuple(int(s) for s in mesh.axis_sizes)
    ctx.module.manual.append((names, sizes))
    try:
        if math.prod(sizes) == 1:  # (JAX: no manual computation, nor a mesh, when every axis has size 1)
            return ctx.lower_jaxpr(ctx.block, jaxpr, args)
        ref = use_mesh(ctx.module, mesh)
        body = Block([literals.aval_type(v.aval) for v in jaxpr.jaxpr.in_binders])
        c = ctx.at(body)
        outs = c.lower_jaxpr(body, jaxpr, body.args)
        c.emit([], lambda p: f"sdy.return {p.list(outs)} : {', '.join(v.type for v in outs)}")
    finally:
        ctx.module.manual.pop()
    ins = ", ".join(sharding_text(ref, s, len(a.shape)) for s, a in zip(in_specs, ctx.avals_in))
    outs_sh = ", ".join(sharding_text(ref, s, len(a.shape)) for s, a in zip(out_specs, ctx.avals_out))
    manual = ", ".join(f'"{n}"' for n in names)
    types = ctx.out_types
    sig = functional_type([a.type for a in args], types)

    def render(p: Printer) -> str:
        block_args = ", ".join(f"{p(a)}: {a.type}" for a in body.args)
        return (
            f"sdy.manual_computation({p.list(args)}) in_shardings=[{ins}] out_shardings=[{outs_sh}] "
            f"manual_axes={{{manual}}} ({block_args}) {{\n{p.block(body, p.indent + '  ')}{p.indent}}} : {sig}"
        )

    results = ctx.emit(types, render, regions=[body])
    if results:  # (what the HLO printer reads: the shardings' texts, the manual axes)
        ins_each = [sharding_text(ref, s, len(a.shape)) for s, a in zip(in_specs, ctx.avals_in)]
        outs_each = [sharding_text(ref, s, len(a.shape)) for s, a in zip(out_specs, ctx.avals_out)]
        attrs = {"in": ins_each, "out": outs_each, "manual": list(names), "returned": outs}
        results[0].op.spec = Spec("sdy.manual_computation", args, attrs)  # type: ignore[union-attr]
    return results


@register(sharding_constraint_p)
def _sharding_constraint(ctx: RuleContext, x: Value, **params: Any) -> list[Value]:
    sharding, unconstrained_dims = constraint_sharding(params), params["unconstrained_dims"]
    if ctx.module.manual:  # (JAX: as outside, when the mesh is the shard_map's and no manual axis is named)
        names, sizes = ctx.module.manual[-1]
        mesh, spec = sharding.mesh, sharding.spec
        named = {a for e in spec if e is not None and e is not UNCONSTRAINED for a in _axes_of(e)}
        free = unconstrained_dims or any(e is UNCONSTRAINED for e in spec)  # (JAX: no Auto axis left)
        if (
            (tuple(mesh.axis_names), tuple(int(n) for n in mesh.axis_sizes)) != (names, sizes)
            or named
            or free
        ):
            raise NotImplementedError(
                "StableHLO text for with_sharding_constraint inside a shard_map is implemented for a "
                "spec over the shard_map's mesh naming none of its (manual) axes, nor unconstrained"
            )
    ref = use_mesh(ctx.module, sharding.mesh)
    dims = dims_text(sharding.spec, len(ctx.avals_in[0].shape), unconstrained_dims)
    spec = Spec("sdy.sharding_constraint", [x], {"sharding": f"<{ref}, {dims}>"})
    return ctx.emit(
        [x.type], lambda p: f"sdy.sharding_constraint {p(x)} <{ref}, {dims}> : {x.type}", spec=spec
    )


# --- collectives ---------------------------------------------------------------------------------


def _manual_mesh(ctx: RuleContext) -> tuple[tuple[str, ...], tuple[int, ...]]:
    if not ctx.module.manual:
        raise NotImplementedError(
            f"StableHLO text for '{ctx.primitive.name}' outside a shard_map is not implemented in the engine"
        )
    return ctx.module.manual[-1]


def replica_groups(ctx: RuleContext, axes: Sequence[Any]) -> np.ndarray:
    """JAX's ``axis_groups``: the mesh positions that differ only along ``axes``, one group per
    row, positions ordered as ``axes`` lists them."""
    if any(isinstance(a, int) for a in axes):
        raise NotImplementedError("StableHLO text for a collective over positional axes is not implemented")
    names, sizes = _manual_mesh(ctx)
    where = [names.index(a) for a in axes]
    iota = np.arange(math.prod(sizes)).reshape(sizes)
    moved = np.moveaxis(iota, where, list(range(len(where))))
    return moved.reshape(math.prod(sizes[w] for w in where), -1).T.astype(np.int64)


def _dense(groups: np.ndarray) -> str:
    return f"{literals.dense_text(groups, np.int64)} : {literals.tensor_type(groups.shape, np.int64)}"


def _reducer(ctx: RuleContext, op: str, dtype: Any) -> Block:
    """The scalar region of an all-reduce or a reduce-scatter: ``op`` of its two arguments."""
    scalar = literals.tensor_type((), dtype)
    block = Block([scalar, scalar])
    c = ctx.at(block)
    a, b = block.args
    _return(c, [hlo_op(c, op, a, b, out_type=scalar)])
    return block


def _all_reduce(op: str, positional: Any):
    def rule(ctx: RuleContext, *xs: Value, axes: Any, axis_index_groups: Any = None, **_: Any) -> list[Value]:
        if axis_index_groups is not None:
            raise NotImplementedError(
                "StableHLO text for a collective over axis_index_groups is not implemented"
            )
        named = tuple(a for a in axes if not isinstance(a, int))
        dims = tuple(a for a in axes if isinstance(a, int))
        groups = replica_groups(ctx, named) if named else None
        props = f"{_CHANNEL}, replica_groups = {_dense(groups)}, use_global_device_ids" if named else ""
        outs = []
        for x, aval in zip(xs, ctx.avals_in):
            if op == "stablehlo.add" and np.dtype(aval.dtype) == np.bool_:
                raise NotImplementedError("StableHLO text of a psum of booleans is not implemented")
            if dims:  # (JAX reduces the positional axes first, as the lax reduction lowers)
                out_aval = aval.update(shape=tuple(d for i, d in enumerate(aval.shape) if i not in dims))
                sub = RuleContext(ctx.module, ctx.block, [aval], [out_aval], positional)
                (x,) = rules[positional](sub, x, axes=dims, out_sharding=None)
                if x.op is not None:  # (JAX locates it as the reduction: reduce_sum)
                    x.op.source = positional.name
                aval = out_aval
            if not named:
                outs.append(x)
                continue
            region = _reducer(ctx, op, aval.dtype)
            render = generic("stablehlo.all_reduce", [x], [x.type], props, [region])
            spec = Spec("stablehlo.all_reduce", [x], {"groups": groups, "op": op})
            outs.append(ctx.emit([x.type], render, regions=[region], spec=spec)[0])
        return outs

    return rule


register(par.psum_p)(_all_reduce("stablehlo.add", reductions.reduce_sum_p))
register(par.psum_invariant_p)(_all_reduce("stablehlo.add", reductions.reduce_sum_p))
register(par.pmax_p)(_all_reduce("stablehlo.maximum", reductions.reduce_max_p))
register(par.pmin_p)(_all_reduce("stablehlo.minimum", reductions.reduce_min_p))


@register(par.pvary_p)
def _pvary(ctx: RuleContext, *xs: Value, **_: Any) -> list[Value]:
    return list(xs)


for _cast in (varying.vary_unreduced_cast_p, varying.reduced_vary_cast_p, varying.preduced_p):
    register(_cast)(lambda ctx, x, **_: [x])  # (types only: JAX lowers them to their operand)


@register(par.all_gather_p)
def _all_gather(
    ctx: RuleContext, x: Value, *, axis_name: Any, all_gather_dimension: int, tiled: bool, **_: Any
) -> list[Value]:
    groups = replica_groups(ctx, axis_name)
    aval = ctx.avals_in[0]
    if not tiled:  # (a new axis of size 1 at the gathered dimension)
        shape = list(aval.shape)
        shape.insert(all_gather_dimension, 1)
        kept = [d for d in range(len(shape)) if d != all_gather_dimension]
        x = broadcast_in_dim(ctx, x, shape, kept)
    props = (
        f"all_gather_dim = {all_gather_dimension} : i64, {_CHANNEL}, replica_groups = {_dense(groups)}, "
        "use_global_device_ids"
    )
    ty = ctx.out_types[0]
    spec = Spec("stablehlo.all_gather", [x], {"groups": groups, "dim": all_gather_dimension})
    return ctx.emit([ty], generic("stablehlo.all_gather", [x], [ty], props, []), spec=spec)


for _gather in (all_gather_typed.all_gather_invariant_p, all_gather_typed.all_gather_reduced_p):
    register(_gather)(_all_gather)


@register(par.psum_scatter_p)
def _reduce_scatter(
    ctx: RuleContext,
    x: Value,
    *,
    axis_name: Any,
    axis_size: int,
    scatter_dimension: int,
    tiled: bool,
    **_: Any,
) -> list[Value]:
    groups = replica_groups(ctx, axis_name)
    aval = ctx.avals_in[0]
    shape = list(aval.shape)
    shape[scatter_dimension] //= axis_size
    ty = literals.tensor_type(shape, aval.dtype)
    props = (
        f"{_CHANNEL}, replica_groups = {_dense(groups)}, scatter_dimension = {scatter_dimension} : i64, "
        "use_global_device_ids"
    )
    region = _reducer(ctx, "stablehlo.add", aval.dtype)
    spec = Spec(
        "stablehlo.reduce_scatter", [x], {"groups": groups, "dim": scatter_dimension, "op": "stablehlo.add"}
    )
    render = generic("stablehlo.reduce_scatter", [x], [ty], props, [region])
    out = ctx.emit([ty], render, regions=[region], spec=spec)[0]
    return [out] if tiled else [reshape(ctx, out, ctx.out_types[0])]


register(all_gather_typed.unreduced_reduce_scatter_p)(_reduce_scatter)


@register(par.ppermute_p)
def _ppermute(ctx: RuleContext, x: Value, *, axis_name: Any, perm: Any) -> list[Value]:
    groups = replica_groups(ctx, axis_name)
    pairs = np.array(
        [[sorted(g)[s], sorted(g)[d]] for g in groups.tolist() for s, d in perm], np.int64
    ).reshape(-1, 2)
    props = f"{_CHANNEL}, source_target_pairs = {_dense(pairs)}"
    spec = Spec("stablehlo.collective_permute", [x], {"pairs": pairs})
    return ctx.emit([x.type], generic("stablehlo.collective_permute", [x], [x.type], props, []), spec=spec)


@register(par.all_to_all_p)
def _all_to_all(
    ctx: RuleContext, x: Value, *, axis_name: Any, split_axis: int, concat_axis: int, **params: Any
) -> list[Value]:
    if params.get("axis_index_groups") is not None:
        raise NotImplementedError("StableHLO text for a collective over axis_index_groups is not implemented")
    groups = replica_groups(ctx, axis_name)
    if groups.shape[1] == 1:
        return [x]
    props = (
        f"{_CHANNEL}, concat_dimension = {concat_axis} : i64, replica_groups = {_dense(groups)}, "
        f"split_count = {groups.shape[1]} : i64, split_dimension = {split_axis} : i64"
    )
    ty = ctx.out_types[0]
    spec = Spec("stablehlo.all_to_all", [x], {"groups": groups, "split": split_axis, "concat": concat_axis})
    return ctx.emit([ty], generic("stablehlo.all_to_all", [x], [ty], props, []), spec=spec)


@register(par.axis_index_p)
def _axis_index(ctx: RuleContext, *, axis_name: Any) -> list[Value]:
    if isinstance(axis_name, (tuple, list)):
        if len(axis_name) != 1:
            raise NotImplementedError("StableHLO text of axis_index of several axes is not implemented")
        (axis_name,) = axis_name
    names, sizes = _manual_mesh(ctx)
    pos = names.index(axis_name)
    div = ctx.constant(np.uint32(math.prod(sizes[pos + 1 :])), np.uint32)
    mod = ctx.constant(np.uint32(sizes[pos]), np.uint32)
    u32 = "tensor<ui32>"
    (device,) = ctx.emit(
        [u32], lambda p: f"stablehlo.partition_id : {u32}", spec=Spec("stablehlo.partition_id", [])
    )
    index = hlo_op(
        ctx,
        "stablehlo.remainder",
        hlo_op(ctx, "stablehlo.divide", device, div, out_type=u32),
        mod,
        out_type=u32,
    )
    return [hlo_op(ctx, "stablehlo.convert", index, out_type="tensor<i32>")]


# --- jit's in_shardings / out_shardings -------------------------------------------------------------


def jit_sharding_attrs(in_shardings: Any, out_shardings: Any, closed: Any, out_tree: Any) -> Any:
    """``(mesh, (argument attributes, result attributes))``: the ``sdy.sharding`` of each argument
    and result of ``jit(f, in_shardings=..., out_shardings=...)``, when each is a NamedSharding
    (one per argument and per result, or one for all) over one mesh of Auto axes; None otherwise."""
    from ..sharding import NamedSharding

    def each(shardings: Any, n: int) -> list | None:
        if isinstance(shardings, NamedSharding):
            return [shardings] * n
        if isinstance(shardings, (list, tuple)) and len(shardings) == n:
            return list(shardings) if all(isinstance(s, NamedSharding) for s in shardings) else None
        return None

    ins = each(in_shardings, len(closed.jaxpr.in_binders))
    outs = each(out_shardings, len(closed.jaxpr.outs))
    if ins is None or outs is None or out_tree.num_leaves != len(closed.jaxpr.outs):
        return None
    meshes = {(tuple(s.mesh.axis_names), tuple(int(k) for k in s.mesh.axis_sizes)) for s in ins + outs}
    if len(meshes) != 1 or any(t is not AxisType.Auto for s in ins + outs for t in s.mesh.axis_types):
        return None
    if any(s.spec.unreduced or s.spec.reduced or UNCONSTRAINED in s.spec.partitions for s in ins + outs):
        return None

    def attr(s: Any, aval: Any) -> str:
        return f"sdy.sharding = #sdy.sharding<@mesh, {dims_text(tuple(s.spec), len(aval.shape))}>"

    args = [attr(s, v.aval) for s, v in zip(ins, closed.jaxpr.in_binders)]
    results = [attr(s, v.aval) for s, v in zip(outs, closed.jaxpr.outs)]
    return meshes.pop(), (args, results)


# --- pmap ----------------------------------------------------------------------------------------


def pmap_form(lowered: Any, restage: bool = True) -> tuple[Any, Any, bool] | None:
    """A program with a pmap as JAX 0.10.2 stages it (the pmap a ``jit`` of a ``shard_map``):
    ``(jaxpr, out_tree, itself)``, or None when it has no pmap. ``itself``: the function lowered is
    a pmap, or jit, vmap, grad, ... of one; JAX's pmap has a lower of its own, which those keep
    (``functools.wraps`` copies it), so the pmap itself is lowered on the arguments. ``restage=False``
    only tells whether there is a pmap (``(None, None, itself)``)."""
    from ..ir import subjaxprs
    from ..jit import JitFunction, jit
    from ..parallel.pmap_primitive import pmap_p
    from ..staging import staging_for_display

    relower = getattr(lowered, "relower", None)
    if relower is None:
        return None
    owner = relower.func.__self__
    target = owner.fun
    while type(target).__name__ != "PmapFunction" and (
        isinstance(target, JitFunction) or hasattr(target, "__wrapped__")
    ):
        target = target.fun if isinstance(target, JitFunction) else target.__wrapped__
    itself = (
        type(target).__name__ == "PmapFunction" and not owner.static_argnums and not owner.static_argnames
    )

    def has_pmap(j: Any) -> bool:
        return any(e.primitive is pmap_p or any(map(has_pmap, subjaxprs(e))) for e in j.eqns)

    if not itself and not has_pmap(lowered.jaxpr.jaxpr):
        return None
    if not restage:
        return None, None, itself
    with staging_for_display():
        again = jit(target).lower(*relower.args, **relower.keywords) if itself else relower()
    return again.jaxpr, again.out_tree, itself


@register(reshard_p)
def _reshard(ctx: RuleContext, x: Value, *, dst_sharding: Any, **_: Any) -> list[Value]:
    """JAX's ``lower_with_sharding_in_types``: a value resharded onto a mesh with no axis Explicit
    (all Auto, all Manual, none) is itself, no constraint (grad's seed of a shard_map's result,
    typed on its mesh)."""
    types = tuple(dst_sharding.mesh.axis_types)
    if not types or all(t is AxisType.Auto for t in types) or all(t is AxisType.Manual for t in types):
        return [x]
    raise NotImplementedError("StableHLO text for reshard onto a mesh with Explicit axes is not implemented")
