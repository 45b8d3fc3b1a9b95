"""``reshard`` and ``with_sharding_constraint`` inside traced code (primitives the partitioner
honours), the mesh a staged program works on, and ``jax.typeof``'s layout of a value being
traced (the program traced so far, partitioned like a whole program)."""

from __future__ import annotations

import weakref
from typing import Callable

from .. import ad, batching, core, ir
from ..core import ShapedArray
from ..device_put_primitive import device_put_p
from ..ir import ClosedJaxpr, Literal
from ..sharding import Mesh, NamedSharding, PartitionSpec, _arranged
from ..staging import trace_to_jaxpr
from .partial_types import convert, convert_first, states_str
from .partition import (
    MeshContext,
    Sharded,
    _always_ruled,
    _arg_mesh,
    _axis_groups,
    _check_mesh,
    _host_only,
    _install_rules,
    _interpret,
    _replicated,
    _spec_of,
    _to_spec,
    _view_sharding,
    sharding_of,
    spec_of,
    spmd_rules,
    structural_rules_missing,
    typed_one_device_mesh,
)

reshard_p = core.Primitive("reshard")
# JAX's params: ``dst_sharding`` over the mesh's AbstractMesh (what the result's type says) and
# ``concrete_mesh``, the devices (JAX's is None for a sharding given over an abstract mesh; the
# engine's reshard always names a concrete Mesh).
# (bound eagerly under vmap or jvp: the value moves, as jax.reshard moves it; a jit holding one
# runs per device, laid out by the partitioner)
reshard_p.def_impl(lambda x, **params: x if params["concrete_mesh"] is None else _put(x, _target(params)))
reshard_p.def_abstract_eval(lambda x, **_: x)


def _reshard_transpose(ct, x, *, dst_sharding, concrete_mesh):
    """Values are unchanged, so are cotangents; but a cast to reduced (or unreduced) makes the
    cotangent unreduced (reduced): it is resharded back to the type of ``x``'s cotangent, which is
    where the backward pass's ``psum`` runs (JAX's ``reshard(ct, x.aval.to_ct_aval().sharding)``)."""
    spec = dst_sharding.spec
    typed = getattr(x.aval, "sharding", None)
    held = typed.spec if isinstance(typed, NamedSharding) else PartitionSpec()
    if type(ct) is ad.Zero:
        return [ct]
    if not (spec.unreduced or spec.reduced or held.unreduced or held.reduced):
        # (the cotangent is typed as the reshard's result: moved back where x's type says, if elsewhere)
        ndim = x.aval.ndim
        if not isinstance(typed, NamedSharding) or typed._normalized(ndim) == dst_sharding._normalized(ndim):
            return [ct]
        return [reshard_p.bind(ct, dst_sharding=typed, concrete_mesh=concrete_mesh)]
    mesh = concrete_mesh if concrete_mesh is not None else dst_sharding.mesh
    if isinstance(typed, NamedSharding):
        back = PartitionSpec(
            *typed.spec.partitions, unreduced=typed.spec.reduced, reduced=typed.spec.unreduced
        )
    else:  # (replicated: the engine's types carry no spec there)
        back = PartitionSpec(*[None] * x.aval.ndim)
    return [reshard_p.bind(ct, dst_sharding=NamedSharding(dst_sharding.mesh, back), concrete_mesh=mesh)]


ad.deflinear(reshard_p, _reshard_transpose)
_always_ruled.add(reshard_p)
ir.pp_params_rules[reshard_p] = lambda eqn: []  # (JAX prints a reshard without parameters: the type says it)
_host_only.add(reshard_p)


def _put(x, sharding):
    from .named import put_sharded

    return put_sharded(x, sharding)


def _reshard_params(sharding: NamedSharding) -> dict:
    """``reshard``'s params for a sharding over a concrete Mesh."""
    dst = NamedSharding(sharding.mesh.abstract_mesh, sharding.spec, memory_kind=sharding.memory_kind)
    return {"dst_sharding": dst, "concrete_mesh": sharding.mesh}


def _target(params) -> NamedSharding:
    """The sharding a ``reshard`` moves to, over its concrete mesh."""
    dst = params["dst_sharding"]
    return NamedSharding(params["concrete_mesh"], dst.spec, memory_kind=dst.memory_kind)


def _reshard_batch(axis_size, vals, dims, *, dst_sharding, concrete_mesh):
    (x,), (d,) = vals, dims
    spec = list(dst_sharding.spec.partitions) + [None] * (core.get_aval(x).ndim - 1 - len(dst_sharding.spec))
    spec.insert(d, None)  # the batch dimension is not split
    return reshard_p.bind(x, dst_sharding=dst_sharding.with_spec(spec), concrete_mesh=concrete_mesh), d


batching.batch_rules[reshard_p] = _reshard_batch


def _reshard_rule(ctx, prim, vals, params):
    (x,) = vals
    dst = params["dst_sharding"]
    # (over an abstract mesh, as grad's seed of a shard_map's result: its axes are the program's)
    if params["concrete_mesh"] is None:
        if dst.mesh.axis_names != ctx.mesh.axis_names:
            return x
        return _reshard_to(ctx, x, NamedSharding(ctx.mesh, dst.spec, memory_kind=dst.memory_kind))
    return _reshard_to(ctx, x, _target(params))


def _reshard_to(ctx, x, sharding):
    view = None
    groups = _axis_groups(ctx.mesh, sharding.mesh) if sharding.mesh != ctx.mesh else None
    if groups is not None:  # the same devices with other axes: in the program's axes
        view = sharding.mesh
        spec = tuple(tuple(a for n in axes for a in groups[n]) for axes in spec_of(sharding, len(x.spec)))
    else:
        _check_mesh(ctx, sharding, "reshard inside jit")
        spec = spec_of(sharding, len(x.spec))
    if spec == x.spec:
        return Sharded(x.val, spec, view)
    x = convert_first(ctx, x, spec)  # (a sum over the axes it stops being unreduced over: first)
    val = x.val if tuple(spec) == tuple(x.spec) else _to_spec(ctx, x, spec)
    return Sharded(convert(ctx, val, x.spec, spec), spec, view)


spmd_rules[reshard_p] = _reshard_rule


def _device_put_rule(ctx, prim, vals, params):
    """A ``device_put`` inside jit keeps its operand's layout unless the target mesh has
    ``Explicit`` axes. JAX 0.10.2 lowers ``device_put`` to nothing on CPU (the sharding is dropped;
    XLA's propagation lays the result out as its operand), while an Explicit mesh puts the
    sharding in the result's type, which the program honours as a reshard does. Memory kinds are
    types only: the engine has one memory."""
    return [_reshard_to(ctx, x, d) if _onto_explicit_mesh(d) else x for x, d in zip(vals, params["devices"])]


def _onto_explicit_mesh(device) -> bool:
    return _onto_mesh(device) and bool(device.mesh.explicit_axes)


def _onto_mesh(device) -> bool:
    return isinstance(device, NamedSharding) and isinstance(device.mesh, Mesh)


spmd_rules[device_put_p] = _device_put_rule
_always_ruled.add(device_put_p)


def bind_reshard(x, sharding: NamedSharding):
    """``reshard`` of a traced value: a ``reshard`` equation for the partitioner."""
    if not isinstance(sharding, NamedSharding) or not isinstance(sharding.mesh, Mesh):
        raise TypeError(f"reshard inside jit needs a NamedSharding over a Mesh, got {sharding!r}")
    sharding.check_shape(core.get_aval(x).shape)
    return reshard_p.bind(x, **_reshard_params(sharding))


# with_sharding_constraint inside traced code (Auto mesh axes): JAX's sharding_constraint. Its
# transpose constrains the cotangent alike; vmap leaves the batch dimension UNCONSTRAINED.

sharding_constraint_p = core.Primitive("sharding_constraint")
# JAX's params: ``sharding`` (over the AbstractMesh when given as a bare PartitionSpec, as JAX
# resolves one), ``layout`` (always None: the engine has no layouts), ``context_mesh`` (the
# concrete mesh set by ``jax.set_mesh``, or None; JAX's is its abstract mesh) and
# ``unconstrained_dims``.
sharding_constraint_p.def_impl(lambda x, **_: x)  # host path only; a jit holding one runs per device
sharding_constraint_p.def_abstract_eval(lambda x, **_: x)
ad.deflinear(sharding_constraint_p, lambda ct, x, **params: [sharding_constraint_p.bind(ct, **params)])
_always_ruled.add(sharding_constraint_p)
_host_only.add(sharding_constraint_p)


def _constraint_batch(axis_size, vals, dims, *, sharding, unconstrained_dims, **params):
    from ..sharding import UNCONSTRAINED

    (x,), (d,) = vals, dims
    spec = list(sharding.spec.partitions) + [None] * (core.get_aval(x).ndim - 1 - len(sharding.spec))
    spec.insert(d, UNCONSTRAINED)
    dims_after = frozenset({d} | {u + (u >= d) for u in unconstrained_dims})
    out = sharding_constraint_p.bind(
        x,
        sharding=NamedSharding(sharding.mesh, PartitionSpec(*spec)),
        unconstrained_dims=dims_after,
        **params,
    )
    return out, d


batching.batch_rules[sharding_constraint_p] = _constraint_batch


def _constraint_rule(ctx, prim, vals, params):
    from ..sharding import UNCONSTRAINED

    (x,) = vals
    sharding = constraint_sharding(params)
    _check_mesh(ctx, sharding, "with_sharding_constraint inside jit")
    entries = list(sharding.spec) + [None] * (len(x.spec) - len(sharding.spec))
    spec = tuple(
        have if e is UNCONSTRAINED else tuple(axes)
        for have, e, axes in zip(x.spec, entries, spec_of(sharding, len(x.spec)))
    )
    return Sharded(x.val if spec == x.spec else _to_spec(ctx, x, spec), spec)


spmd_rules[sharding_constraint_p] = _constraint_rule


class _MeshShown:
    """A parameter printed as JAX prints the constraint's meshes (``Mesh()`` when none is set)."""

    def __init__(self, text):
        self.text = text

    def __str__(self):
        return self.text


def _pp_constraint(eqn):
    p = eqn.params
    context = p["context_mesh"]
    return [
        ("context_mesh", _MeshShown("Mesh()" if context is None else str(context.abstract_mesh))),
        ("layout", p["layout"]),
        ("sharding", p["sharding"]),
        ("unconstrained_dims", p["unconstrained_dims"]),
    ]


ir.pp_params_rules[sharding_constraint_p] = _pp_constraint


def bind_sharding_constraint(x, sharding, *, from_spec: bool):
    """``with_sharding_constraint`` of a traced value: a ``sharding_constraint`` equation."""
    from ..sharding import get_mesh

    if not isinstance(sharding, NamedSharding) or not isinstance(sharding.mesh, Mesh):
        raise TypeError(
            f"with_sharding_constraint inside jit needs a NamedSharding over a Mesh, got {sharding!r}"
        )
    sharding.check_shape(core.get_aval(x).shape)
    if from_spec:  # (a bare PartitionSpec: JAX resolves it against the abstract mesh)
        sharding = NamedSharding(sharding.mesh.abstract_mesh, sharding.spec)
    return sharding_constraint_p.bind(
        x, sharding=sharding, layout=None, context_mesh=get_mesh(), unconstrained_dims=frozenset()
    )


def constraint_sharding(params) -> NamedSharding:
    """A ``sharding_constraint``'s sharding over a concrete mesh: one over an abstract mesh is
    over the context mesh's devices, arranged as the abstract mesh says."""
    sharding = params["sharding"]
    if isinstance(sharding.mesh, Mesh):
        return sharding
    return NamedSharding(_arranged(params["context_mesh"], sharding.mesh), sharding.spec)


_jaxpr_meshes: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[bool, Mesh | None]]" = weakref.WeakKeyDictionary()


def _mesh_in_jaxpr(jaxpr, running: bool) -> Mesh | None:
    from ..ir import subjaxprs

    for eqn in jaxpr.eqns:
        found = _eqn_mesh(eqn) or (running and _call_mesh(eqn)) or None
        if found is not None:
            return found
        for sub in subjaxprs(eqn):
            found = _mesh_in_jaxpr(sub, running)
            if found is not None:
                return found
    return None


# primitive -> the mesh an equation of it names (reshard, shard_map...), or None
eqn_meshes: dict[core.Primitive, Callable] = {
    reshard_p: lambda eqn: eqn.params["concrete_mesh"],
    sharding_constraint_p: lambda eqn: constraint_sharding(eqn.params).mesh,
    device_put_p: lambda eqn: next((d.mesh for d in eqn.params["devices"] if _onto_mesh(d)), None),
}


def _param_mesh(key: str):
    def mesh(eqn):
        s = eqn.params.get(key)
        return s.mesh if s is not None and isinstance(s.mesh, Mesh) else None

    return mesh


def _eqn_mesh(eqn):
    if not eqn_meshes.get("installed"):
        from ..lax import structural as st

        for p in (st.dot_general_p, st.reduce_sum_p):
            eqn_meshes[p] = _param_mesh("out_sharding")
        for p in (st.broadcast_in_dim_p, st.reshape_p, st.iota_p, st.convert_element_type_p):
            eqn_meshes[p] = _param_mesh("sharding")
        eqn_meshes["installed"] = True  # type: ignore[index]
    rule = eqn_meshes.get(eqn.primitive)
    return rule(eqn) if rule is not None else None


def _call_mesh(eqn) -> Mesh | None:
    from .sharded_jit import call_mesh

    return call_mesh(eqn)


def mesh_of_jaxpr(closed: ClosedJaxpr, running: bool = True) -> Mesh | None:
    """The mesh a ``reshard`` (or ``shard_map``) inside ``closed`` names (cached per jaxpr), or None.
    ``running``: a nested jit's shardings name one too (its program runs over that mesh), though
    they type nothing (JAX's jit results have the types of its body's: ``annotate_types``)."""
    per = _jaxpr_meshes.setdefault(closed, {})
    if running not in per:
        per[running] = _mesh_in_jaxpr(closed.jaxpr, running)
    return per[running]


# ---------------------------------------------------------------------------------------------
# jax.typeof of a traced value: its layout, found by partitioning the program traced so far.


def _free_spec(v, seeds: dict, consts: dict, mesh: Mesh):
    """How a value a traced program reads from outside is laid out: an argument as its seed says,
    a closed-over value (an outer ``jit``'s tracer, an array on the mesh) as it is; else replicated."""
    s = seeds.get(v)
    if s is None and v in consts:
        from ..vjp_function import explicit_layout

        s = explicit_layout(consts[v])
        if s is not None and s.mesh != mesh:
            s = None
    return spec_of(s, v.aval.ndim) if s is not None else _replicated(v.aval.ndim)


def traced_sharding(tracer) -> NamedSharding | None:
    """The sharding a value being staged (a ``jit`` tracer) will have, when the program works on a
    mesh (its arguments are sharded, or it reshards): the program traced so far up to the
    equation making the value, partitioned like a whole program is. None when no mesh is named."""
    from ..ir import Jaxpr, Var
    from ..staging import staged_var

    staged = staged_var(tracer)
    if staged is None:
        return None
    builder, var = staged
    seeds = builder.in_shardings
    if var in seeds:
        return seeds[var]
    mesh = next((s.mesh for s in seeds.values() if isinstance(getattr(s, "mesh", None), Mesh)), None)
    for eqn in builder.eqns:
        if mesh is not None:
            break
        mesh = _eqn_mesh(eqn)
    if mesh is None:
        return None
    k = next((i for i, e in enumerate(builder.eqns) if var in e.out_binders), None)
    if k is None:
        return None
    eqns = builder.eqns[: k + 1]
    defined = {v for e in eqns for v in e.out_binders}
    free: list = []
    for e in eqns:
        for x in e.inputs:
            if type(x) is Var and x not in defined and x not in free:
                free.append(x)
    ctx = MeshContext(mesh)
    consts = builder.constvals
    specs = [_free_spec(v, seeds, consts, mesh) for v in free]
    out_spec: list = []

    def local_fun(*vals):
        args = [
            Sharded(consts[v] if v in consts and not any(s) else val, s)
            for v, val, s in zip(free, vals, specs)
        ]
        (out,) = _interpret(ctx, Jaxpr([], free, eqns, [var]), [], args)
        out_spec[:] = [(out.spec, out.view)]
        return [out.val]

    if structural_rules_missing():
        _install_rules()
    local_avals = [
        ShapedArray(ctx.local_shape(v.aval.shape, s), v.aval.dtype, v.aval.weak_type)
        for v, s in zip(free, specs)
    ]
    with ctx.axis_env():
        trace_to_jaxpr(local_fun, local_avals)
    spec, view = out_spec[0]
    return (view is not None and _view_sharding(mesh, view, spec)) or sharding_of(mesh, spec)


def recorded_layouts(ctx: MeshContext, jaxpr, consts, in_specs) -> dict:
    """Every variable of ``jaxpr`` (bodies of calls included) to its layout (``Sharded``), the
    program partitioned for arguments split as ``in_specs``."""
    if structural_rules_missing():
        _install_rules()
    env: dict = {}
    ctx.record = env

    def local_fun(*vals):
        outs = _interpret(ctx, jaxpr, consts, [Sharded(v, s) for v, s in zip(vals, in_specs)], env)
        return [o.val for o in outs]

    avals = [
        ShapedArray(ctx.local_shape(v.aval.shape, s), v.aval.dtype, v.aval.weak_type)
        for v, s in zip(jaxpr.in_binders, in_specs)
    ]
    with ctx.axis_env():
        trace_to_jaxpr(local_fun, avals)
    return env


def annotate_types(closed: ClosedJaxpr, args) -> dict:
    """For ``make_jaxpr`` of values on an explicit mesh: each variable's type as JAX prints it
    (``f32[8@X,4]``), from the layouts the partitioner gives the program. Empty when no mesh is
    involved or no axis is explicit."""
    mesh = _arg_mesh(args) or mesh_of_jaxpr(closed, running=False) or typed_one_device_mesh(args)
    if mesh is None or not mesh.explicit_axes:
        return {}
    ctx = MeshContext(mesh, checks="user")  # (JAX's type errors, raised as JAX's trace raises them)
    jaxpr = closed.jaxpr
    in_specs = [_spec_of(a, ctx, v.aval.ndim) for a, v in zip(args, jaxpr.in_binders)]
    env = recorded_layouts(ctx, jaxpr, closed.consts, in_specs)
    types = {}
    explicit = set(mesh.explicit_axes)
    for v, x in env.items():
        states = states_str(ctx, x.spec)
        if type(v) is Literal or not (states or any(set(axes) & explicit for axes in x.spec)):
            continue
        dims = []
        for n, axes in zip(v.aval.shape, x.spec):
            shown = [a for a in axes if a in explicit]
            dims.append(
                f"{n}@{shown[0] if len(shown) == 1 else '(' + ','.join(shown) + ')'}" if shown else str(n)
            )
        types[v] = f"{core.dtype_short(v.aval.dtype)}[{','.join(dims)}]{states}"
    return types
