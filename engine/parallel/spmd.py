"""``shard_map``: a function written per device, run once per device of a mesh on that device's
blocks. Collectives in it (``lax.psum(x, 'j')``, ``all_gather(x, ('i', 'j'))``) name mesh axes, one
or several, of a mesh of any rank.

``shard_map_p``'s params, JAX's: the body (a closed jaxpr on per-device blocks), the ``mesh`` (the
concrete one passed, or, from the context, its abstract mesh keeping the devices: ``ContextMesh``),
the axes made manual (every mesh axis), and per argument/result a spec (per dimension ``None``, a
mesh axis name or a tuple of names). Its impl runs the body as one program on the mesh's device processes (``pmap_primitive.Program`` with
the mesh's axes as its dimensions); a ``jit`` holding it runs it there too. It has rows in the
rule tables like any call primitive: jvp, transpose (cotangents of replicated outputs are divided
among the devices that hold them, cotangents of replicated inputs summed over the axes they are
replicated on), partial evaluation (residuals leave the known body stacked over all mesh axes)
and batching (the batch dimension is an unsplit leading dimension).

Called outside any transformation, shard_map runs eagerly as JAX does: the body is Python run on
values that hold one block per device (``shard_map_eager.ShardMapTracer``; each operation is a one-equation
program on the devices), so ``print`` inside shows every device's block, and ``jax.typeof``
shows the mesh axes a value varies over (``float32[3]{V:i}``).
"""

from __future__ import annotations

import functools
import math
import time
from contextlib import ExitStack, contextmanager

import numpy as np

from .. import ad, batching, core, ir, monitoring
from ..core import Array, ShapedArray
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr, eval_jaxpr
from ..lax import parallel as lax_parallel
from ..lax.varying import checking_vma
from ..sharding import AbstractMesh, AxisType, Mesh, NamedSharding, PartitionSpec, _axes_of
from ..sharding import CPU_DEVICE, use_abstract_mesh
from ..staging import trace_to_jaxpr
from ..tracer_origins import debug_info
from . import partition, spec_errors
from ..avals import PartialAxis
from .arg_specs import Infer, check_in_specs_match, inferred_spec
from .partial_types import reduced_of, unreduced_of, with_partial
from .named import NamedShardedArray, put_sharded
from .partition import Spec, _entry
from .varying_types import _in_mesh_order, type_varying
from .runtime import get_runtime

shard_map_p = core.Primitive("shard_map", multiple_results=True)
shard_map_p.takes_arrays = True  # device-resident blocks are used where they are


# ---------------------------------------------------------------------------------------------
# Specs and blocks. A spec holds, per dimension as the user wrote it (``P('i')`` for a rank-2
# value has one entry: jaxprs print it so), the tuple of mesh axes splitting that dimension.


def _factor(mesh: Mesh, entry) -> int:
    return math.prod(mesh.shape[a] for a in _axes_of(entry))


def _padded(spec: Spec, ndim: int) -> Spec:
    return with_partial(tuple(spec) + _replicated(ndim - len(spec)), unreduced_of(spec), reduced_of(spec))


def _block_shape(mesh: Mesh, shape, spec: Spec) -> tuple:
    return tuple(n // _factor(mesh, e) for n, e in zip(shape, _padded(spec, len(shape))))


def _global_shape(mesh: Mesh, shape, spec: Spec) -> tuple:
    return tuple(n * _factor(mesh, e) for n, e in zip(shape, _padded(spec, len(shape))))


def _mentioned(spec: Spec) -> set:
    return {a for e in spec for a in _axes_of(e)}


def _unmentioned(mesh: Mesh, spec: Spec) -> tuple:
    """The mesh axes a value laid out by ``spec`` is replicated over (not split, unreduced or reduced)."""
    used = _mentioned(spec) | unreduced_of(spec) | reduced_of(spec)
    return tuple(a for a in mesh.axis_names if a not in used)


def _typed_axes(mesh: Mesh, spec: Spec) -> tuple:
    """The ``vma`` of a body's value laid out by ``spec``: the axes it varies over (those splitting
    it), unreduced over or reduced over, in the mesh's order."""
    u, r = unreduced_of(spec), reduced_of(spec)
    split = _mentioned(spec)
    return tuple(
        PartialAxis(a, "U") if a in u else PartialAxis(a, "R") if a in r else a
        for a in mesh.axis_names
        if a in split or a in u or a in r
    )


def _replicated(ndim: int) -> Spec:
    return ((),) * ndim


def _stacked_spec(mesh: Mesh, ndim: int) -> Spec:
    """Leading dimensions, one per mesh axis, each split over its axis: one block per device."""
    return tuple((a,) for a in mesh.axis_names) + _replicated(ndim)


def _sharding(mesh: Mesh, spec: Spec) -> NamedSharding:
    return NamedSharding(mesh, _pp_spec(spec))


def _spec_entries(p: PartitionSpec | None, ndim: int, mesh: Mesh, what: str) -> Spec:
    p = p if p is not None else PartitionSpec()
    for a in [a for e in p.partitions for a in _axes_of(e)] + sorted(p.unreduced | p.reduced):
        if a not in mesh.shape:
            raise ValueError(
                f"shard_map {what}: {p} names the axis {a!r}, which the mesh {mesh} does not have"
            )
    return with_partial(tuple(_axes_of(e) for e in p.partitions), p.unreduced, p.reduced)


def _pp_spec(spec) -> PartitionSpec:
    return PartitionSpec(
        *[_entry(axes) for axes in spec], unreduced=unreduced_of(spec), reduced=reduced_of(spec)
    )


@contextmanager
def _manual_axes(mesh: Mesh):
    """Bind every mesh axis (collectives in a body being traced name them); the context mesh is the
    body's with Manual axes, as JAX's ``get_abstract_mesh()`` is inside (``sharded_types.context_sharding``)."""
    types = (AxisType.Manual,) * len(mesh.axis_names)
    manual = AbstractMesh(mesh.axis_sizes, mesh.axis_names, types, abstract_device=CPU_DEVICE)
    with ExitStack() as stack:
        for name, size in zip(mesh.axis_names, mesh.axis_sizes):
            stack.enter_context(lax_parallel.extend_axis_env(name, size))
        stack.enter_context(use_abstract_mesh(manual))
        yield


def _trace_body(f, avals, mesh, debug=None, specs=None) -> tuple[ClosedJaxpr, list]:
    """``f`` traced as a body on ``mesh``; with ``specs`` (its operands', in a body whose varying
    axes are checked) each operand varies over the axes its spec names."""
    from ..call_operands import _hoist_tracer_consts

    if specs is not None:
        vmas = [_typed_axes(mesh, s) for s in specs]
        avals = [a.update(vma=v) if type(a) is ShapedArray else a for a, v in zip(avals, vmas)]
    with _manual_axes(mesh), checking_vma(specs is not None):
        return _hoist_tracer_consts(trace_to_jaxpr(f, avals, None, debug))


def _checked(params, specs):
    """``specs`` for ``_trace_body`` where the shard_map's ``params`` check varying axes, else None."""
    return list(specs) if params.get("check_vma") else None


def _typed_body(body: ClosedJaxpr, specs, mesh, params) -> ClosedJaxpr:
    """A rule's body, its values typed with the axes they vary over (as JAX's) where checked."""
    if not params.get("check_vma") or body.jaxpr in ir.sharded_types:
        return body
    typed, _ = type_varying(body.jaxpr, [_typed_axes(mesh, s) for s in specs], mesh)
    return ClosedJaxpr(typed, body.consts)


def _bind(hoisted, args, in_specs, out_specs, body, *, mesh, **params):
    """``shard_map_p`` on ``args`` (tracers of outer transformations closed over by the body come
    first, replicated)."""
    specs = ((),) * len(hoisted) + tuple(in_specs)
    params.setdefault("newly_manual_axes", frozenset(mesh.axis_names))  # (every mesh axis)
    body = _typed_body(body, specs, mesh, params)
    return shard_map_p.bind(
        *hoisted, *args, jaxpr=body, mesh=mesh, in_specs=specs, out_specs=tuple(out_specs), **params
    )


# ---------------------------------------------------------------------------------------------
# The primitive.


class ContextMesh(AbstractMesh):
    """A shard_map's mesh taken from the context (``jax.set_mesh``): JAX records the context's
    AbstractMesh, which this is (and prints as); it keeps the devices the body runs on, which its
    equality compares too."""

    def __init__(self, mesh: Mesh):
        a = mesh.abstract_mesh
        super().__init__(a.axis_sizes, a.axis_names, a.axis_types, abstract_device=a.abstract_device)
        self.concrete = mesh

    def _key(self):
        return (*super()._key(), self.concrete)


def concrete(mesh) -> Mesh:
    """The devices of a shard_map's ``mesh`` param."""
    return mesh.concrete if isinstance(mesh, ContextMesh) else mesh


def _shard_map_abstract(*avals, jaxpr, mesh, in_specs, out_specs, **_):
    return [
        ShapedArray(_global_shape(mesh, a.shape, s), a.dtype, a.weak_type)
        for a, s in zip(jaxpr.out_avals, out_specs)
    ]


shard_map_p.def_abstract_eval(_shard_map_abstract)


def _pp_shard_map(eqn):
    # JAX's parameters: specs as P(...)
    p = eqn.params
    return [
        ("check_vma", p["check_vma"]),
        ("in_specs", tuple(_pp_spec(s) for s in p["in_specs"])),
        ("jaxpr", p["jaxpr"]),
        ("mesh", p["mesh"]),
        ("newly_manual_axes", p["newly_manual_axes"]),
        ("out_specs", tuple(_pp_spec(s) for s in p["out_specs"])),
    ]


ir.pp_params_rules[shard_map_p] = _pp_shard_map


def _placement(mesh: Mesh) -> list[int]:
    return [int(d) for d in mesh.device_ids.flat]


def _shard_map_impl(*args, jaxpr, mesh, in_specs, out_specs, **_):
    """The body runs on each device of the mesh, on its blocks; results stay there."""
    from .pmap_primitive import _emit, mesh_program

    t0 = time.perf_counter()
    rt = get_runtime()
    mesh = concrete(mesh)
    placement = _placement(mesh)
    prog = mesh_program(jaxpr, "shard_map", mesh, eager=True)
    per_arg = []
    for a, spec in zip(args, in_specs):
        sharding = _sharding(mesh, spec)
        if isinstance(a, NamedShardedArray) and a.sharding == sharding:
            per_arg.append(a._buffers)
        else:
            per_arg.append(put_sharded(a if isinstance(a, Array) else np.asarray(a), sharding)._buffers)
    inputs = [[bufs[p] for bufs in per_arg] for p in range(len(placement))]
    t_put = time.perf_counter()
    listening = monitoring.listening()
    outs, replies = rt.run(prog, placement, inputs, jaxpr.out_avals, t0, events=listening)
    results = []
    for k, (aval, spec) in enumerate(zip(jaxpr.out_avals, out_specs)):
        sharding = _sharding(mesh, spec)
        bufs = [outs[p][k] for p in range(len(placement))]
        gaval = ShapedArray(_global_shape(mesh, aval.shape, spec), aval.dtype, aval.weak_type)
        results.append(NamedShardedArray(bufs, gaval, sharding))
    if listening:
        _emit(prog, placement, inputs, outs, replies, tuple(mesh.axis_names), t0, t_put, kind="shard_map")
    return results


shard_map_p.def_impl(_shard_map_impl)


def _shard_map_partition_rule(ctx, prim, vals, params):
    """Inside a jit partitioned over the same mesh: the body runs in line on the blocks."""
    mesh = concrete(params["mesh"])
    if mesh != ctx.mesh:
        raise ValueError(f"shard_map over {mesh} inside a computation on {ctx.mesh}")
    local = [
        x.val if x.spec == s else partition._to_spec(ctx, x, s)
        for x, s in ((x, _padded(s, len(x.spec))) for x, s in zip(vals, params["in_specs"]))
    ]
    body = params["jaxpr"]
    outs = eval_jaxpr(body.jaxpr, local, body.consts)
    return [
        partition.Sharded(o, _padded(s, core.get_aval(o).ndim)) for o, s in zip(outs, params["out_specs"])
    ]


partition.spmd_rules[shard_map_p] = _shard_map_partition_rule
partition.eqn_meshes[shard_map_p] = lambda eqn: concrete(eqn.params["mesh"])
partition._always_ruled.add(shard_map_p)  # (replicated operands too: its body names the mesh axes)


# ---------------------------------------------------------------------------------------------
# Differentiation and batching.


def _params(params):
    return {k: v for k, v in params.items() if k not in ("jaxpr", "in_specs", "out_specs", "mesh")}


def _shard_map_jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, **params):
    nonzero = [type(t) is not ad.Zero for t in tangents]
    in_avals = jaxpr.in_avals
    n = len(primals)

    def f(*args):
        it = iter(args[n:])
        ts = [next(it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(nonzero, in_avals)]
        pout, tout = ad.jvp_flat(lambda *xs: eval_jaxpr(jaxpr.jaxpr, xs, jaxpr.consts), args[:n], ts)
        return [*pout, *[ad.instantiate_zeros(t) for t in tout]]

    t_avals = [ad.tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
    tvals = [t for t in tangents if type(t) is not ad.Zero]
    t_specs = [s for s, nz in zip(in_specs, nonzero) if nz]
    body, hoisted = _trace_body(f, [*in_avals, *t_avals], mesh, specs=_checked(params, [*in_specs, *t_specs]))
    outs = _bind(
        hoisted,
        [*primals, *tvals],
        [*in_specs, *t_specs],
        [*out_specs, *out_specs],
        body,
        mesh=mesh,
        **params,
    )
    m = len(out_specs)
    return outs[:m], outs[m:]


def _shard_map_transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, **params):
    from ..lax import api as lax

    undef = [ad.is_undefined(a) for a in args]
    defined = [(a, s) for a, s, u in zip(args, in_specs, undef) if not u]
    checked = bool(params.get("check_vma"))
    # Unchecked, a result replicated over some axes was counted once: each copy takes its share
    # (checked, the body's own psum_invariant and pvary transposes share it, as in JAX).
    shared = []
    for c, s in zip(cts, out_specs):
        c = ad.instantiate_zeros(c)
        copies = 1 if checked else math.prod(mesh.shape[a] for a in _unmentioned(mesh, s))
        shared.append(c if copies == 1 else lax.div(c, float(copies)))
    # (the body's own binder types: in a checked body they carry the axes each input varies over)
    undef_avals = [v.aval for v, u in zip(jaxpr.jaxpr.in_binders, undef) if u]
    undef_specs = [s for s, u in zip(in_specs, undef) if u]
    avals = [_local_aval(mesh, c, s) for c, s in zip(shared, out_specs)] + [
        _local_aval(mesh, a, s) for a, s in defined
    ]
    nc = len(shared)
    body = jaxpr.jaxpr
    if body.constvars:
        body = Jaxpr([], [*body.constvars, *body.in_binders], body.eqns, body.outs)

    def f(*xs):
        it, ut = iter(xs[nc:]), iter(undef_avals)
        full = [ad.UndefPrimal(next(ut)) if u else next(it) for u in undef]
        outs = ad.backward_pass(body, [*jaxpr.consts, *full], list(xs[:nc]))
        res = []
        for o, s in zip(outs, undef_specs):
            o = ad.instantiate_zeros(o)
            over = () if checked else _unmentioned(mesh, s)
            if over:  # the argument was replicated there: its cotangent sums the copies'
                (o,) = lax_parallel.psum_p.bind(o, axes=over, axis_index_groups=None)
            res.append(o)
        return res

    # (a cotangent's spec: unreduced where its primal's is reduced, and the other way round)
    ct_specs = [with_partial(s, reduced_of(s), unreduced_of(s)) for s in out_specs]
    specs = ct_specs + [s for _, s in defined]
    closed, hoisted = _trace_body(f, avals, mesh, specs=_checked(params, specs))
    outs = _bind(
        hoisted,
        shared + [a for a, _ in defined],
        specs,
        [with_partial(s, reduced_of(s), unreduced_of(s)) for s in undef_specs],
        closed,
        mesh=mesh,
        **params,
    )
    it = iter(outs)
    return [next(it) if u else None for u in undef]


def _local_aval(mesh, x, spec) -> ShapedArray:
    aval = core.get_aval(x)
    return aval.update(shape=_block_shape(mesh, aval.shape, spec))


def _batch_spec(spec, dim):
    """``spec`` with an unsplit batch dimension at ``dim`` (JAX's ``pxla.batch_spec``)."""
    spec = tuple(spec) + ((),) * (dim - len(spec))
    return (*spec[:dim], (), *spec[dim:])


def _shard_map_batch(size, vals, dims, *, jaxpr, mesh, in_specs, out_specs, **params):
    # As JAX's rule: each operand's batch dimension stays where it is (an unsplit dimension in its
    # spec), and each result's is where the batched body leaves it; unbatched results stay so.
    trace = batching.current_batch_trace()
    vname = trace.axis_name if trace is not None else None
    in_dims = [None if d is batching.not_mapped else d for d in dims]
    avals = [
        a if d is None else a.update(shape=(*a.shape[:d], size, *a.shape[d:]))
        for a, d in zip(jaxpr.in_avals, in_dims)
    ]
    specs = [s if d is None else _batch_spec(s, d) for s, d in zip(in_specs, in_dims)]
    out_dims: list = []

    def f(*xs):
        outs, ds = batching.vmap_traced(
            lambda *ys: eval_jaxpr(jaxpr.jaxpr, ys, jaxpr.consts), size, vname, in_dims, xs
        )
        out_dims[:] = [None if d is batching.not_mapped else d for d in ds]
        return outs

    body, hoisted = _trace_body(f, avals, mesh, specs=_checked(params, specs))
    new_outs = [s if d is None else _batch_spec(s, d) for s, d in zip(out_specs, out_dims)]
    outs = _bind(hoisted, list(vals), specs, new_outs, body, mesh=mesh, **params)
    return outs, [batching.not_mapped if d is None else d for d in out_dims]


def _split(jaxpr: ClosedJaxpr, unks_in, mesh, checked: bool = False, traced: bool = True):
    """The known body (residuals first, then its known results) and the unknown body (the
    residuals, then its unknown inputs), as JAX lays them out. A residual that is one of the
    body's known inputs or known results is forwarded from outside, not returned (JAX's
    ``in_fwd``/``out_fwd``): ``res_fwd[k]`` is ``("in", i)`` or ``("out", i)`` for those, else
    None. Each device's other residual blocks are stacked along their first dimension over all
    mesh axes (a scalar becomes shape ``(1,)``); in a ``checked`` body, over the axes the residual
    varies over (an invariant one is not). Constants JAX holds as values (``op_result``, such as
    pmean's divisor) that the unknown body reads are residuals too when the shard_map is being
    ``traced`` under linearization, as JAX's tangent trace captures them (a staged one's, in a jit
    being split, are literals by then)."""
    from ..lax import api as lax

    j1, j2, out_unks, num_res = ad.partial_eval_jaxpr(jaxpr.jaxpr, unks_in, op_literal_residuals=traced)
    # (a traced split keeps the residuals of every unknown equation its outputs reach, as JAX's
    # JaxprTrace does, even one whose body a DCE would leave not reading them)
    j1, j2, num_res = ir.prune_residuals(j1, j2, num_res, whole=traced)
    if not traced:
        j1 = dce_jaxpr(j1)
    n_known_out = len(j1.outs) - num_res
    res, known_outs = j1.outs[n_known_out:], j1.outs[:n_known_out]
    ins_at = {v: ("in", i) for i, v in enumerate(j1.in_binders)}
    outs_at = {v: ("out", i) for i, v in enumerate(known_outs) if type(v) is Var}
    res_fwd = [(ins_at.get(r) or outs_at.get(r)) if type(r) is Var else None for r in res]
    kept = [r for r, f in zip(res, res_fwd) if f is None]
    res_avals = [v.aval if v.aval.ndim or f else v.aval.update(shape=(1,)) for v, f in zip(res, res_fwd)]
    if all(v.aval.ndim for v in kept):
        known = ClosedJaxpr(Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*kept, *known_outs]), jaxpr.consts)
        unknown = ClosedJaxpr(j2, [])
    else:
        promoted = [f is None and not v.aval.ndim for v, f in zip(res, res_fwd)]

        def known_fun(*xs):
            outs = eval_jaxpr(j1, xs, jaxpr.consts)
            rs = [r for r, f in zip(outs[n_known_out:], res_fwd) if f is None]
            return [
                *[r if core.get_aval(r).ndim else lax.broadcast(r, (1,)) for r in rs],
                *outs[:n_known_out],
            ]

        def unknown_fun(*xs):
            rs = [lax.squeeze(r, (0,)) if p else r for r, p in zip(xs[:num_res], promoted)]
            return eval_jaxpr(j2, [*rs, *xs[num_res:]], [])

        with _manual_axes(mesh), checking_vma(checked):
            known = trace_to_jaxpr(known_fun, [v.aval for v in j1.in_binders])
            unknown = trace_to_jaxpr(unknown_fun, [*res_avals, *[v.aval for v in j2.in_binders[num_res:]]])
    if checked:
        res_specs = [(v.aval.vma,) if getattr(v.aval, "vma", ()) else () for v in res]
    else:
        res_specs = [(tuple(mesh.axis_names),) for _ in res_avals]
    return known, unknown, out_unks, res_avals, res_specs, res_fwd


def _forwarded(res_fwd, kept, known_ins, known_outs):
    """Each residual: the next of ``kept`` (returned by the known body), or the known input or
    result it forwards."""
    it = iter(kept)
    return [next(it) if f is None else (known_ins if f[0] == "in" else known_outs)[f[1]] for f in res_fwd]


def _shard_map_partial_eval(trace, tracers, *, jaxpr, mesh, in_specs, out_specs, **params):
    from ..call_operands import _hoist_tracer_consts

    in_unknowns = [not t.pval.is_known for t in tracers]
    known, unknown, out_unks, res_avals, res_specs, res_fwd = _split(
        jaxpr, in_unknowns, mesh, bool(params.get("check_vma"))
    )
    known, hoisted = _hoist_tracer_consts(known)
    known_vals = [t.pval.const for t, u in zip(tracers, in_unknowns) if not u]
    known_in_specs = [s for s, u in zip(in_specs, in_unknowns) if not u]
    known_out_specs = [s for s, u in zip(out_specs, out_unks) if not u]
    kept_specs = [s for s, f in zip(res_specs, res_fwd) if f is None]
    res_outs1 = _bind(
        hoisted, known_vals, known_in_specs, kept_specs + known_out_specs, known, mesh=mesh, **params
    )
    kept, outs1 = res_outs1[: len(kept_specs)], res_outs1[len(kept_specs) :]
    res = _forwarded(res_fwd, kept, known_vals, outs1)
    res_specs = _forwarded(res_fwd, kept_specs, known_in_specs, known_out_specs)
    res_tracers = [trace.instantiate_const(trace.full_raise(r)) for r in res]
    unknown_tracers = [trace.instantiate_const(t) for t, u in zip(tracers, in_unknowns) if u]
    unk_out_specs = tuple(s for s, u in zip(out_specs, out_unks) if u)
    unk_in_specs = tuple(res_specs) + tuple(s for s, u in zip(in_specs, in_unknowns) if u)
    params2 = dict(
        params,
        jaxpr=_typed_body(unknown, unk_in_specs, mesh, params),
        mesh=mesh,
        in_specs=unk_in_specs,
        out_specs=unk_out_specs,
    )
    out_avals = shard_map_p.abstract_eval(**params2)
    outs2 = [ad.PartialEvalTracer(trace, ad.PartialVal.unknown(a), None) for a in out_avals]
    recipe = ad.JaxprEqnRecipe(
        shard_map_p, res_tracers + unknown_tracers, params2, out_avals, outs2, core.current_source_info()
    )
    for t in outs2:
        t.recipe = recipe
    it1, it2 = iter(outs1), iter(outs2)
    return [next(it2) if u else next(it1) for u in out_unks]


def _shard_map_partial_eval_jaxpr(unks_in, eqn):
    """Split a shard_map equation of a jaxpr being split (a shard_map in a jit under grad)."""
    p = eqn.params
    mesh = p["mesh"]
    known, unknown, out_unks, res_avals, res_specs, res_fwd = _split(
        p["jaxpr"], unks_in, mesh, bool(p.get("check_vma")), traced=False
    )
    known_in_specs = [s for s, u in zip(p["in_specs"], unks_in) if not u]
    known_out_specs = [s for s, u in zip(p["out_specs"], out_unks) if not u]
    kept_specs = [s for s, f in zip(res_specs, res_fwd) if f is None]
    kept_vars = [
        Var(a.update(shape=_global_shape(mesh, a.shape, s)))
        for a, s, f in zip(res_avals, res_specs, res_fwd)
        if f is None
    ]
    known_outs = [v for v, u in zip(eqn.out_binders, out_unks) if not u]
    known_ins = [x for x, u in zip(eqn.inputs, unks_in) if not u]
    res_vars = _forwarded(res_fwd, kept_vars, known_ins, known_outs)
    res_specs = _forwarded(res_fwd, kept_specs, known_in_specs, known_out_specs)
    rest = _params(p)
    eqn1 = JaxprEqn(
        shard_map_p,
        known_ins,
        dict(
            rest,
            jaxpr=_typed_body(known, known_in_specs, mesh, p),
            mesh=mesh,
            in_specs=tuple(known_in_specs),
            out_specs=tuple(kept_specs) + tuple(known_out_specs),
        ),
        kept_vars + known_outs,
        eqn.source_info,
    )
    unk_in_specs = tuple(res_specs) + tuple(s for s, u in zip(p["in_specs"], unks_in) if u)
    eqn2 = JaxprEqn(
        shard_map_p,
        res_vars + [x for x, u in zip(eqn.inputs, unks_in) if u],
        dict(
            rest,
            jaxpr=_typed_body(unknown, unk_in_specs, mesh, p),
            mesh=mesh,
            in_specs=unk_in_specs,
            out_specs=tuple(s for s, u in zip(p["out_specs"], out_unks) if u),
        ),
        [v for v, u in zip(eqn.out_binders, out_unks) if u],
        eqn.source_info,
    )
    return eqn1, eqn2, out_unks, res_vars


ad.jvp_rules[shard_map_p] = _shard_map_jvp
ad.transpose_rules[shard_map_p] = _shard_map_transpose
ad.partial_eval_rules[shard_map_p] = _shard_map_partial_eval
ad.partial_eval_jaxpr_rules[shard_map_p] = _shard_map_partial_eval_jaxpr
batching.batch_rules[shard_map_p] = _shard_map_batch


def _check_out_vma(fun_name, mesh, out_sp, out_vmas, out_specs, out_value):
    """Refuse (JAX's ValueError) out_specs that leave out a mesh axis a result varies over."""
    bad = []
    for i, (spec, vma) in enumerate(zip(out_sp, out_vmas)):
        unmentioned = _unmentioned(mesh, spec)
        if any(a in set(vma) for a in unmentioned):
            named = _in_mesh_order(mesh, _mentioned(spec))
            bad.append((i, list(unmentioned), list(named), list(_in_mesh_order(mesh, vma))))
    if bad:
        value = _as_args(out_value, out_specs)
        eager = fun_name == "_rem_singleton"  # (JAX's name for an eager shard_map's body)
        raise ValueError(spec_errors.replication_error(fun_name, mesh, out_specs, value, bad, eager))


def _check_ranks(kind, f, specs, value, flat_specs, avals):
    """Refuse (JAX's ValueError) specs with more entries than their values have dimensions."""
    fails = [s is not None and len(s) > a.ndim for s, a in zip(flat_specs, avals)]
    if any(fails):
        raise ValueError(spec_errors.rank_error(kind, f, specs, value, avals, fails))


# ---------------------------------------------------------------------------------------------
# The API.


def _per_leaf_specs(specs, tree_args, what) -> list:
    """One ``PartitionSpec`` per flattened leaf: ``specs`` is a pytree prefix of ``tree_args``
    (one spec for a whole subtree applies to each of its leaves)."""
    from ..tree_util import tree_flatten

    def is_spec(s):
        return isinstance(s, PartitionSpec) or s is None

    if is_spec(specs):
        return [PartitionSpec() if specs is None else specs] * len(tree_flatten(tree_args)[0])
    if isinstance(specs, (tuple, list)) and isinstance(tree_args, (tuple, list)):
        if len(specs) != len(tree_args):
            raise ValueError(
                f"shard_map {what}: {len(specs)} specs for {len(tree_args)} values ({specs!r}); give one "
                "PartitionSpec per argument/output (or a pytree of them matching it)"
            )
        return [leaf for s, a in zip(specs, tree_args) for leaf in _per_leaf_specs(s, a, what)]
    if isinstance(specs, dict) and isinstance(tree_args, dict) and set(specs) == set(tree_args):
        return [
            leaf for key in sorted(tree_args) for leaf in _per_leaf_specs(specs[key], tree_args[key], what)
        ]
    raise ValueError(f"shard_map {what}: {specs!r} is not a pytree prefix of the values it describes")


def _out_specs(f, out_specs, out_value, out_avals, mesh) -> list:
    specs = _per_leaf_specs(out_specs, _as_args(out_value, out_specs), "out_specs")
    _check_ranks("out", f, out_specs, _as_args(out_value, out_specs), specs, out_avals)
    return [_spec_entries(s, a.ndim, mesh, "out_specs") for s, a in zip(specs, out_avals)]


def _as_args(out, out_specs):
    # out_specs per output element when both are sequences of the same length
    if isinstance(out_specs, (tuple, list)) and not isinstance(out_specs, PartitionSpec):
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return out


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(), check_vma=True):
    """Run ``f`` once per device of ``mesh`` on that device's blocks (as ``in_specs`` cut the
    arguments); ``out_specs`` say how the per-device results assemble. Collectives in ``f``
    (``lax.psum(x, 'batch')``) name mesh axes, one or a tuple of them.

    >>> from engine.sharding import PartitionSpec as P
    >>> mesh = jax.make_mesh((2,), ("b",))
    >>> f = shard_map(lambda a: lax.psum(a.sum(0), "b"), mesh=mesh, in_specs=P("b"), out_specs=P())
    >>> x = jax.device_put(jnp.arange(8.0).reshape(4, 2), jax.sharding.NamedSharding(mesh, P("b")))
    >>> f(x)
    Array([12., 16.], dtype=float32)
    """
    from ..sharding import get_mesh
    from ..tree_util import tree_flatten, tree_unflatten

    if f is None:
        return functools.partial(
            shard_map,
            out_specs=out_specs,
            in_specs=in_specs,
            mesh=mesh,
            axis_names=axis_names,
            check_vma=check_vma,
        )
    if axis_names and mesh is not None and set(axis_names) != set(mesh.axis_names):
        raise NotImplementedError(
            "shard_map with axis_names= a subset of the mesh axes (partially manual) is not supported by the "
            "engine; leave axis_names out to make every mesh axis manual"
        )
    fun_name = getattr(f, "__name__", str(f))

    @functools.wraps(f)
    def wrapped(*args):
        m = mesh if mesh is not None else get_mesh()
        if not isinstance(m, Mesh):
            raise ValueError("shard_map needs a mesh: pass mesh= or call it under jax.set_mesh(mesh)")
        leaves, in_tree = tree_flatten(args)
        if in_specs is Infer:
            specs = [inferred_spec(x, m) for x in leaves]
        else:
            specs = _per_leaf_specs(in_specs, args, "in_specs")
        avals = [core.get_aval(x) for x in leaves]
        _check_ranks("in", f, in_specs, args, specs, avals)
        in_sp = [_spec_entries(s, a.ndim, m, "in_specs") for s, a in zip(specs, avals)]
        for a, s in zip(avals, in_sp):
            _sharding(m, s).check_shape(a.shape)
        if in_specs is not Infer:
            check_in_specs_match(m, leaves, in_sp)
        if not core.tracing_active() and core._state.dynamic is None:
            from .shard_map_eager import run_eagerly

            return run_eagerly(f, fun_name, m, leaves, in_tree, in_sp, out_specs, check_vma)
        local_avals = [a.update(shape=_block_shape(m, a.shape, s)) for a, s in zip(avals, in_sp)]
        checked_specs = list(in_sp) if check_vma else None
        out_store: list = []

        def local_fun(*vals):
            out = f(*tree_unflatten(in_tree, list(vals)))
            out_leaves, out_tree = tree_flatten(out)
            out_store[:] = [out_tree, out]
            return out_leaves

        debug = debug_info("shard_map", f, args)  # (errors about its values: "for shard_map")
        body, hoisted = _trace_body(local_fun, local_avals, m, debug, checked_specs)
        out_tree, out_value = out_store
        out_sp = _out_specs(f, out_specs, out_value, body.out_avals, m)
        if check_vma:
            in_vmas = [()] * len(hoisted) + [_typed_axes(m, s) for s in in_sp]
            typed, out_vmas = type_varying(body.jaxpr, in_vmas, m)
            _check_out_vma(fun_name, m, out_sp, out_vmas, out_specs, out_value)
            typed, _ = type_varying(body.jaxpr, in_vmas, m, [_mentioned(s) for s in out_sp])
            body = ClosedJaxpr(typed, body.consts)
        outs = _bind(
            hoisted,
            leaves,
            in_sp,
            out_sp,
            body,
            mesh=m if mesh is not None else ContextMesh(m),
            check_vma=check_vma,
        )
        return tree_unflatten(out_tree, outs)

    return wrapped


from . import shard_map_dce  # noqa: E402, F401  (its row in the DCE table)
