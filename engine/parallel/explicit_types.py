"""The types of a program's values on an explicit mesh, as JAX's types say them (``float32[8@x,4]``),
from the layouts the partitioner gives them:

- ``typed_avals``: a loop body's or a branch's inputs and outputs, for the carry and branch checks
  (``lax.control_flow_errors``): a carry that comes out of the body laid out otherwise than it went
  in, or branches that give differently laid out results, are refused as JAX refuses them;
- ``typed_vars``: every variable of a linear program a backward pass transposes, so that transpose
  rules lay their results out as JAX's do (``out_sharding=operand.aval.sharding``).

Operands are laid out as an array's sharding, or a traced value's (``vjp_function.explicit_layout``),
or an undefined primal's typed aval. Where a rule of the partitioner gathered a split it could not
follow (``_Partitioned.untyped``), the types are not JAX's: none are given then (a loop runs
gathered, as before, rather than refusing a program JAX may take).
"""

from __future__ import annotations

from typing import Sequence

from .. import core
from ..ad import UndefPrimal, typed_undefined
from ..ir import ClosedJaxpr, Jaxpr, Literal
from ..sharding import Mesh, NamedSharding, PartitionSpec, spec_entry
from ..sharded_types import ShardedShapedArray
from .partial_types import reduced_of, unreduced_of


def operand_layouts(operands: Sequence, sliced: int = 0) -> list | None:
    """The shardings a body traced for ``operands`` (the last ``sliced`` scanned over: the body
    sees each without its leading dimension) takes its inputs in, on an explicit mesh, so that
    values it makes from them are typed as they will be (``jax.typeof`` in the body, a transpose's
    layout); None when no operand lies on one."""
    from ..sharding import get_abstract_mesh
    from ..vjp_function import explicit_layout

    if not get_abstract_mesh().explicit_axes and not any(getattr(x, "on_mesh", False) for x in operands):
        return None
    layouts = [_layout(x, explicit_layout) for x in operands]
    if not any(layouts):
        return None
    for k in range(len(operands) - sliced, len(operands)):
        s = layouts[k]
        if s is not None:
            spec = s.spec
            parts = tuple(spec.partitions)
            layouts[k] = (
                None
                if parts and parts[0] is not None
                else s.with_spec(PartitionSpec(*parts[1:], unreduced=spec.unreduced, reduced=spec.reduced))
            )
    return layouts


def typed_avals(closed: ClosedJaxpr, args: Sequence, sliced: int = 0) -> tuple[list, list] | None:
    """``closed``'s input and output avals, typed by their layouts on an explicit mesh, when it is
    applied to ``args`` (its inputs' values; the last ``sliced`` are scanned over: a body sees each
    without its leading dimension). None when no argument lies on a mesh with explicit axes."""
    from ..vjp_function import explicit_layout

    layouts = [_layout(a, explicit_layout) for a in args]
    meshes = {s.mesh for s in layouts if s is not None}
    if len(meshes) != 1:
        return None
    mesh = meshes.pop()
    if not isinstance(mesh, Mesh):
        return None
    from .partition import MeshContext, _replicated, partition, spec_of

    ctx = MeshContext(mesh)
    specs = []
    for k, (a, s) in enumerate(zip(args, layouts)):
        ndim = core.get_aval(a).ndim
        spec = spec_of(s, ndim) if s is not None else _replicated(ndim)
        if k >= len(args) - sliced:
            if spec and spec[0]:  # (a split scanned dimension: the scan's own rule refuses it)
                return None
            spec = spec[1:]
        specs.append(spec)
    consts = closed.jaxpr.constvars
    if consts:  # (closed-over values: laid out as they are, when they are arrays on the mesh)
        const_specs = []
        for c, v in zip(closed.consts, consts):
            s = _layout(c, explicit_layout)
            const_specs.append(
                spec_of(s, v.aval.ndim) if s is not None and s.mesh == mesh else _replicated(v.aval.ndim)
            )
        jaxpr = closed.jaxpr
        closed = ClosedJaxpr(Jaxpr([], [*consts, *jaxpr.in_binders], jaxpr.eqns, jaxpr.outs), [])
        specs = const_specs + specs
    part = partition(closed, ctx, specs)
    if part.untyped or any(v is not None for v in part.out_views):
        return None
    ins = closed.in_avals[len(consts) :]
    return (
        [_typed(mesh, a, s) for a, s in zip(ins, specs[len(consts) :])],
        [_typed(mesh, a, s) for a, s in zip(closed.out_avals, part.out_specs)],
    )


def _layout(x, explicit_layout) -> NamedSharding | None:
    if type(x) is UndefPrimal:
        s = getattr(x.aval, "sharding", None)
    elif isinstance(x, core.Tracer):
        s = explicit_layout(x)
    elif getattr(x, "on_mesh", False) or getattr(x, "on_one_device_mesh", False):
        s = x.sharding
    else:
        return None
    if not isinstance(s, NamedSharding) or not s.mesh.explicit_axes:
        return None
    return s


def _typed(mesh: Mesh, aval, spec, replicated: bool = False):
    """``aval`` typed by ``spec``'s explicit axes (as it is where it names none, unless
    ``replicated``: then typed replicated on the mesh, as JAX's types of a linear program's values
    are, which its transpose rules pass on as ``out_sharding``)."""
    explicit = set(mesh.explicit_axes)
    typed = [tuple(a for a in axes if a in explicit) for axes in spec]
    u, r = unreduced_of(spec), reduced_of(spec)
    if not (replicated or any(typed) or u or r) or not isinstance(aval, core.ShapedArray):
        return aval
    sharding = NamedSharding(mesh, PartitionSpec(*[spec_entry(t) for t in typed], unreduced=u, reduced=r))
    return ShardedShapedArray(aval.shape, aval.dtype, aval.weak_type, sharding)


def typed_vars(jaxpr: Jaxpr, args: Sequence) -> dict:
    """Each variable of ``jaxpr`` (applied to ``args``: values and undefined primals) that its layout
    types on an explicit mesh, to its typed aval; empty when no argument lies on one."""
    from ..vjp_function import explicit_layout

    layouts = [_layout(a, explicit_layout) for a in args]
    meshes = {s.mesh for s in layouts if s is not None}
    if len(meshes) != 1:
        return {}
    mesh = meshes.pop()
    if not isinstance(mesh, Mesh):
        return {}
    from ..core import ShapedArray
    from .partition import MeshContext, _replicated, spec_of
    from .reshard import recorded_layouts

    ctx = MeshContext(mesh)
    specs = [
        spec_of(s, v.aval.ndim) if s is not None and s.mesh == mesh else _replicated(v.aval.ndim)
        for v, s in zip(jaxpr.in_binders, layouts)
    ]
    env = recorded_layouts(ctx, jaxpr, [], specs)
    if ctx.untyped:
        return {}
    # (replicated values are typed so too only when every traced argument's layout is known: one
    # taken as replicated for want of knowing it would type what it reaches wrongly)
    known = all(
        s is not None
        for a, s in zip(args, layouts)
        if isinstance(a, (core.Tracer, UndefPrimal))
        and getattr(core.get_aval(a) if not isinstance(a, UndefPrimal) else a.aval, "ndim", 0)
    )
    typed = {}
    for v, x in env.items():
        if type(v) is not Literal and x.view is None and isinstance(v.aval, ShapedArray):
            t = _typed(mesh, v.aval, x.spec, replicated=known)
            if t is not v.aval:
                typed[v] = t
    return typed


def typed_aval(aval, sharding):
    """``aval`` typed by ``sharding`` (a primal's layout, which its cotangent takes), when that
    names explicit axes; else ``aval``."""
    from .partition import spec_of

    if sharding is None or not isinstance(sharding.mesh, Mesh) or not isinstance(aval, core.ShapedArray):
        return aval
    typed_undefined[0] = True  # (backward passes look for typed undefined primals from now on)
    return _typed(sharding.mesh, aval, spec_of(sharding, aval.ndim), replicated=True)


def typed_like(aval, outer, sliced=False):
    """``aval`` (a loop body's input) typed as the undefined primal ``outer`` is on an explicit
    mesh (without its scanned dimension when ``sliced``): the body's cotangents are laid out by it."""
    typed = getattr(getattr(outer, "aval", None), "sharding", None)
    if typed is None or type(outer) is not UndefPrimal:
        return aval
    if sliced:
        spec = typed.spec
        typed = typed.with_spec(
            spec.update(partitions=spec._normalized_spec_for_aval(aval.ndim + 1).partitions[1:])
        )
    return typed_aval(aval, typed)
