"""``pmap_p``: the call primitive of ``pmap`` (params: the closed jaxpr, ``axis_name``,
``axis_size``, ``in_axes``, ``out_axes``, devices), its execution in the device processes and its
rules (like ``jit_p``'s, with the mapped axes tracked). ``engine.parallel.pmap`` is the public module.
"""

from __future__ import annotations

import functools
import itertools
import math
import pickle
import threading
import time
import weakref
from typing import Callable

import numpy as np

from .. import ad, batching, core, ir, monitoring
from ..debug import refuse_ordered_effects
from ..core import Array, ShapedArray
from ..ir import ClosedJaxpr, Jaxpr, dce_jaxpr, eval_jaxpr
from ..call_operands import _hoist_tracer_consts
from ..lax import parallel as lax_parallel
from ..staging import trace_to_jaxpr
from . import collectives, programs
from .runtime import get_runtime
from .sharded import ShardedArray

pmap_p = core.Primitive("xla_pmap", multiple_results=True)
pmap_p.takes_arrays = True  # device-resident arguments reach the impl as they are, not fetched


class AnonymousAxis:
    """The name of an axis that the user left unnamed (collectives in rules still need one).
    Equal by number, so it survives pickling to the devices."""

    __slots__ = ("n",)
    _counter = itertools.count()

    def __init__(self, n=None):
        self.n = next(self._counter) if n is None else n

    def __eq__(self, other):
        return type(other) is AnonymousAxis and other.n == self.n

    def __hash__(self):
        return hash(("anonymous axis", self.n))

    def __reduce__(self):
        return (AnonymousAxis, (self.n,))

    def __repr__(self):
        return f"<axis {self.n}>"


def _drop_axis(aval: ShapedArray, axis) -> ShapedArray:
    if axis is None:
        return aval
    shape = list(aval.shape)
    del shape[axis]
    return aval.update(shape=tuple(shape))


def _add_axis(aval: ShapedArray, axis, size) -> ShapedArray:
    if axis is None:
        return aval
    shape = list(aval.shape)
    shape.insert(axis, size)
    return aval.update(shape=tuple(shape))


@functools.lru_cache(maxsize=1024)
def _mapped_aval(aval: ShapedArray, axis, size) -> ShapedArray:
    """``_add_axis``, remembered: a warm call's results get their avals without building them."""
    return _add_axis(aval, axis, size)


@pmap_p.def_abstract_eval
def _pmap_abstract(*avals, jaxpr, axis_size, out_axes, **_):
    return [_add_axis(a, o, axis_size) for a, o in zip(jaxpr.out_avals, out_axes)]


# ---------------------------------------------------------------------------------------------
# Execution.


class Program:
    """A pmap body ready for the devices: pickled bytes and the key workers cache it under."""

    __slots__ = (
        "closed",
        "key",
        "payload",
        "mesh",
        "names",
        "slot_bytes",
        "name",
        "compiled",
        "input_operands",
        "calls_host",
    )

    def __init__(self, closed, name, axis_name, axis_size, device_count, nested=True, axes=None, eager=False):
        _refuse_uncompilable(closed.jaxpr)
        self.closed, self.name = closed, name
        closed = programs.eager_form(closed) if eager else programs.device_form(closed)
        # compiled here first, so the devices load it (from memory if forked later, else from disk)
        self.compiled = (
            not eager and programs.wants_compiling(closed) and programs.compile_in_host(closed, name)
        )
        if axes is not None:  # a named mesh (jit of sharded arrays, shard_map): one dimension per axis
            self.mesh = tuple(s for _, s in axes)
            self.names = {n: d for d, (n, _) in enumerate(axes)}
        else:
            self.mesh = programs.mesh_for(closed, axis_size, device_count) if nested else (axis_size,)
            self.names = {axis_name: 0, _dim_name(0): 0}
        self.slot_bytes = programs.slot_bytes_for(closed, self.mesh)
        self.input_operands = programs.input_operands(closed.jaxpr)
        self.calls_host = programs.calls_python(closed.jaxpr)  # (its callbacks ask the host: host_calls)
        try:
            self.key, self.payload = programs.dumps(closed)
        except (pickle.PicklingError, TypeError, AttributeError):
            # Not picklable: the workers get it by being forked with it in memory.
            self.key, self.payload = f"inherited-{id(closed)}-{time.perf_counter_ns()}", None
            rt = get_runtime()
            rt.inherited[self.key] = closed
            rt.stop_workers()

    def describe(self) -> str:
        shape = "x".join(map(str, self.mesh))
        return f"pmap({self.name}) on {math.prod(self.mesh)} devices (mesh {shape})"


# Primitives no device program may hold: compiling one refuses it on the host, before any device
# runs (as XLA's CPU compiler does: a Pallas kernel outside interpret mode). -> the error to raise.
compile_refusals: dict[core.Primitive, Callable[[], Exception]] = {}


def _refuse_uncompilable(jaxpr) -> None:
    for eqn in jaxpr.eqns:
        refusal = compile_refusals.get(eqn.primitive)
        if refusal is not None:
            raise refusal()
        for sub in ir.subjaxprs(eqn):
            _refuse_uncompilable(sub)


def _dim_name(d):
    return ("pmap mesh dim", d)


_programs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def _program(closed, name, axis_name, axis_size, explicit_devices) -> Program:
    per = _programs.setdefault(closed, {})
    rt = get_runtime()
    key = (axis_name, axis_size, explicit_devices, rt.n)
    prog = per.get(key)
    if prog is None or (prog.payload is None and prog.key not in rt.inherited):
        prog = per[key] = Program(closed, name, axis_name, axis_size, rt.n, nested=not explicit_devices)
    return prog


def mesh_program(closed, name, mesh, eager: bool = False) -> Program:
    """``closed`` as a program over every device of ``mesh`` (a ``jax.sharding.Mesh``), whose
    collectives name the mesh's axes; positions are the mesh's devices in row-major order.
    ``eager``: an eager shard_map's body (which JAX runs per device, ordered effects and all)."""
    per = _programs.setdefault(closed, {})
    rt = get_runtime()
    axes = tuple(zip(mesh.axis_names, mesh.axis_sizes))
    key = ("mesh", axes, tuple(int(i) for i in mesh.device_ids.flat), rt.n, eager)
    prog = per.get(key)
    if prog is None or (prog.payload is None and prog.key not in rt.inherited):
        if not eager:
            refuse_ordered_effects(closed.jaxpr, mesh.size)
        prog = per[key] = Program(closed, name, None, mesh.size, rt.n, axes=axes, eager=eager)
    return prog


@pmap_p.def_impl
def _pmap_impl(*args, jaxpr, name, axis_name, axis_size, in_axes, out_axes, devices):
    ctx = collectives.current()
    if ctx is not None:
        return _run_nested(ctx, args, jaxpr, axis_name, axis_size, in_axes, out_axes)
    return _run_on_devices(args, jaxpr, name, axis_name, axis_size, in_axes, out_axes, devices)


def _shards(rt, x, axis, placement, group):
    """One Buffer per position: its piece of ``x`` (all of it when ``axis`` is None)."""
    if (
        isinstance(x, ShardedArray)
        and axis is not None
        and x._axis == axis
        and group == 1
        and x.device_ids == list(placement)
    ):
        return x._buffers  # already where it is needed
    value = core._canonical_np(x) if isinstance(x, np.ndarray) else core.to_numpy(x)
    if axis is None:
        return rt.put_each(placement, value[None], [0] * len(placement))
    rows = np.moveaxis(value, axis, 0) if axis else value
    return rt.put_each(
        placement, rows, None if group == 1 else [pos // group for pos in range(len(placement))]
    )


def _run_on_devices(args, jaxpr, name, axis_name, axis_size, in_axes, out_axes, devices):
    t0 = time.perf_counter()
    rt = get_runtime()
    refuse_ordered_effects(jaxpr.jaxpr, axis_size)
    prog = _program(jaxpr, name, axis_name, axis_size, devices is not None)
    placement = list(devices) if devices is not None else list(range(math.prod(prog.mesh)))
    group = len(placement) // axis_size
    per_arg = [_shards(rt, x, a, placement, group) for x, a in zip(args, in_axes)]
    inputs = [[bufs[p] for bufs in per_arg] for p in range(len(placement))]
    t_put = time.perf_counter()
    listening = monitoring.listening()
    outs, replies = rt.run(prog, placement, inputs, jaxpr.out_avals, t0, events=listening)
    results = []
    for k, (aval, o) in enumerate(zip(jaxpr.out_avals, out_axes)):
        if o is None:
            results.append(ShardedArray([outs[0][k]], None, aval))
        else:
            leaders = [outs[p][k] for p in range(0, len(placement), group)]
            results.append(ShardedArray(leaders, o, _mapped_aval(aval, o, axis_size)))
    if listening:
        _emit(prog, placement, inputs, outs, replies, axis_name, t0, t_put)
    return results


def _run_nested(ctx, args, jaxpr, axis_name, axis_size, in_axes, out_axes):
    """A pmap inside a pmap's program, on one device of the mesh."""
    weak = [a.weak_type for a in jaxpr.in_avals]
    d = ctx.depth
    if d < len(ctx.mesh) and ctx.mesh[d] == axis_size:
        j = ctx.coords[d]
        local = []
        for x, a, w in zip(args, in_axes, weak):
            x = np.asarray(x)
            local.append(Array(x if a is None else np.take(x, j, axis=a), w))
        names = [_dim_name(d)] + ([axis_name] if axis_name is not None else [])
        with ctx.enter_dim(names, d):
            outs = [core.to_numpy(o) for o in eval_jaxpr(jaxpr.jaxpr, local, jaxpr.consts)]
            return ctx.gather_outputs(outs, out_axes, names[-1])
    # No mesh dimension for it: map it on this device, as a vmap.
    xs = [Array(np.asarray(x), w) for x, w in zip(args, weak)]
    outs = batching.vmap_flat(
        lambda *ys: eval_jaxpr(jaxpr.jaxpr, ys, jaxpr.consts),
        axis_size,
        axis_name,
        list(in_axes),
        xs,
        lambda n: list(out_axes),
    )
    return [core.to_numpy(o) for o in outs]


def _emit(prog, placement, inputs, outs, replies, axis_name, t0, t_put, kind="pmap"):
    """Tell listeners (the run report) what each device computed and exchanged; ``kind`` says
    which API ran the program: ``pmap``, ``shard_map`` or ``jit`` (of sharded arrays)."""
    devices, merged = [], {}
    for pos, (dev, rep) in enumerate(zip(placement, replies)):
        # A device's run time less its barrier waits includes its collectives' own work (copying
        # into and out of the exchange, reducing): that is the exchange, not compute.
        exchange_ms = sum(ev["duration_ms"] - ev["wait_ms"] for ev in rep["events"])
        devices.append(
            dict(
                id=dev,
                coords=list(collectives.mesh_coords(pos, prog.mesh)),
                inputs=[b.read() for b in inputs[pos]],
                outputs=[b.read() for b in outs[pos]],
                compute_ms=max(0.0, rep["compute_ms"] - exchange_ms),
                exchange_ms=exchange_ms,
                collective_wait_ms=rep["wait_ms"],
            )
        )
        for ev in rep["events"]:
            m = merged.get(ev["seq"])
            if m is None:
                m = merged[ev["seq"]] = dict(ev, waits_ms={}, times_ms={}, groups=[])
                del m["wait_ms"]
            if ev["devices"] not in m["groups"]:  # the devices that exchanged with each other
                m["groups"].append(list(ev["devices"]))
            m["start_ms"] = min(m["start_ms"], ev["start_ms"])
            m["waits_ms"][dev] = ev["wait_ms"]
            m["times_ms"][dev] = ev["duration_ms"]
            if dev not in m["devices"]:
                m["devices"] = sorted(set(m["devices"]) | set(ev["devices"]))
    events = []
    for seq in sorted(merged):
        m = merged[seq]
        # The longest any one device spent in it (its wait included). Not the span from the first
        # device entering to the last leaving: devices start their programs at different times (a
        # 2-core machine runs 8 of them in turns), and a device that is not in the collective yet
        # is not taking part in it: a psum of program inputs, which needs no barrier, would show
        # that skew as milliseconds of a collective in which every device waited 0.
        m["duration_ms"] = max(m["times_ms"].values())
        m["devices"] = sorted(set(m["devices"]))
        m["groups"].sort()
        events.append(m)
    if isinstance(axis_name, tuple):  # a named mesh: its axes
        names = list(axis_name)
    else:
        names = [None if isinstance(axis_name, AnonymousAxis) else axis_name]
    monitoring.emit(
        "pmap_execute",
        name=prog.name,
        api=kind,
        jaxpr=prog.closed,
        axis_names=names,
        mesh=list(prog.mesh),
        devices=devices,
        collectives=events,
        transfer_ms=(t_put - t0) * 1e3,
        seconds=time.perf_counter() - t0,
    )


# ---------------------------------------------------------------------------------------------
# Rules: like jit_p's, with the mapped axes tracked.


_shown = threading.local()  # depth of pmaps being staged as shard_map (nested ones stay xla_pmap)


def _trace_body(f, avals, axis_name, axis_size):
    with lax_parallel.extend_axis_env(axis_name, axis_size):
        return _hoist_tracer_consts(trace_to_jaxpr(f, avals))


def _bind(hoisted, args, in_axes, out_axes, closed, **params):
    return pmap_p.bind(
        *hoisted,
        *args,
        jaxpr=closed,
        in_axes=(None,) * len(hoisted) + tuple(in_axes),
        out_axes=tuple(out_axes),
        **params,
    )


def _pmap_jvp(primals, tangents, *, jaxpr, in_axes, out_axes, axis_name, axis_size, **params):
    nonzero = [type(t) is not ad.Zero for t in tangents]
    in_avals = jaxpr.in_avals
    n = len(primals)

    def f(*args):
        ts_it = iter(args[n:])
        ts = [next(ts_it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(nonzero, in_avals)]
        pout, tout = ad.jvp_flat(lambda *xs: eval_jaxpr(jaxpr.jaxpr, xs, jaxpr.consts), args[:n], ts)
        return [*pout, *tout]

    t_avals = [ad.tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
    closed, hoisted = _trace_body(f, [*in_avals, *t_avals], axis_name, axis_size)
    tvals = [t for t in tangents if type(t) is not ad.Zero]
    t_axes = [a for a, nz in zip(in_axes, nonzero) if nz]
    outs = _bind(
        hoisted,
        [*primals, *tvals],
        [*in_axes, *t_axes],
        [*out_axes, *out_axes],
        closed,
        axis_name=axis_name,
        axis_size=axis_size,
        **params,
    )
    m = len(out_axes)
    return outs[:m], outs[m:]


def _pmap_transpose(cts, *args, jaxpr, in_axes, out_axes, axis_name, axis_size, **params):
    undef = [ad.is_undefined(a) for a in args]
    defined = [(a, ax) for a, ax, u in zip(args, in_axes, undef) if not u]
    cts = [ad.instantiate_zeros(c) for c in cts]
    undef_avals = [_drop_axis(a.aval, ax) for a, ax, u in zip(args, in_axes, undef) if u]
    undef_axes = [ax for ax, u in zip(in_axes, undef) if u]
    avals = [_drop_axis(core.get_aval(a), ax) for a, ax in defined] + [
        _drop_axis(core.get_aval(c), ax) for c, ax in zip(cts, out_axes)
    ]
    nd = len(defined)
    body = jaxpr.jaxpr
    if body.constvars:
        body = Jaxpr([], [*body.constvars, *body.in_binders], body.eqns, body.outs)

    def f(*xs):
        it, ut = iter(xs[:nd]), iter(undef_avals)
        full = [ad.UndefPrimal(next(ut)) if u else next(it) for u in undef]
        outs = ad.backward_pass(body, [*jaxpr.consts, *full], list(xs[nd:]))
        res = []
        for o, ax in zip(outs, undef_axes):
            o = ad.instantiate_zeros(o)
            if ax is None:  # broadcast in, so its cotangent sums over the devices
                (o,) = lax_parallel.psum_p.bind(o, axes=(axis_name,), axis_index_groups=None)
            res.append(o)
        return res

    closed, hoisted = _trace_body(f, avals, axis_name, axis_size)
    outs = _bind(
        hoisted,
        [a for a, _ in defined] + cts,
        [ax for _, ax in defined] + list(out_axes),
        undef_axes,
        closed,
        axis_name=axis_name,
        axis_size=axis_size,
        **params,
    )
    it = iter(outs)
    return [next(it) if u else None for u in undef]


def _pmap_batch(size, vals, dims, *, jaxpr, in_axes, out_axes, axis_name, axis_size, **params):
    new_vals, mapped, avals, f = batching.batch_leading(jaxpr, size, vals, dims)
    new_axes = [a + 1 if m and a is not None else a for a, m in zip(in_axes, mapped)]
    closed, hoisted = _trace_body(f, avals, axis_name, axis_size)
    outs = _bind(
        hoisted,
        new_vals,
        new_axes,
        [None if o is None else o + 1 for o in out_axes],
        closed,
        axis_name=axis_name,
        axis_size=axis_size,
        **params,
    )
    return outs, [0] * len(outs)


def _pmap_partial_eval(trace, tracers, *, jaxpr, in_axes, out_axes, axis_name, axis_size, **params):
    in_unknowns = [not t.pval.is_known for t in tracers]
    j1, j2, out_unknowns, num_res = ad.partial_eval_jaxpr(jaxpr.jaxpr, in_unknowns)
    known_vals = [t.pval.const for t, u in zip(tracers, in_unknowns) if not u]
    known_axes = [a for a, u in zip(in_axes, in_unknowns) if not u]
    known_closed, hoisted = _hoist_tracer_consts(ClosedJaxpr(dce_jaxpr(j1), jaxpr.consts))
    known_out_axes = [o for o, u in zip(out_axes, out_unknowns) if not u] + [0] * num_res
    outs1_res = _bind(
        hoisted,
        known_vals,
        known_axes,
        known_out_axes,
        known_closed,
        axis_name=axis_name,
        axis_size=axis_size,
        **params,
    )
    n_known_out = len(outs1_res) - num_res
    outs1, res = outs1_res[:n_known_out], outs1_res[n_known_out:]
    res_tracers = [trace.instantiate_const(trace.full_raise(r)) for r in res]
    unknown_tracers = [trace.instantiate_const(t) for t, u in zip(tracers, in_unknowns) if u]
    closed2 = ClosedJaxpr(j2, [])
    unk_out_axes = tuple(o for o, u in zip(out_axes, out_unknowns) if u)
    params2 = dict(
        jaxpr=closed2,
        axis_name=axis_name,
        axis_size=axis_size,
        in_axes=(0,) * num_res + tuple(a for a, u in zip(in_axes, in_unknowns) if u),
        out_axes=unk_out_axes,
        **params,
    )
    out_avals = [_add_axis(v.aval, o, axis_size) for v, o in zip(j2.outs, unk_out_axes)]
    outs2 = [ad.PartialEvalTracer(trace, ad.PartialVal.unknown(a), None) for a in out_avals]
    recipe = ad.JaxprEqnRecipe(
        pmap_p, res_tracers + unknown_tracers, params2, out_avals, outs2, core.current_source_info()
    )
    for t in outs2:
        t.recipe = recipe
    it1, it2 = iter(outs1), iter(outs2)
    return [next(it2) if u else next(it1) for u in out_unknowns]


def _pmap_partial_eval_jaxpr(unks_in, eqn):
    """Split a pmap equation (of a jaxpr being split, e.g. a pmap nested in a pmap under grad)
    into a known pmap that also returns residuals (stacked along axis 0) and an unknown one."""
    from ..ir import JaxprEqn, Var

    p = eqn.params
    body, size = p["jaxpr"], p["axis_size"]
    j1, j2, out_unks, num_res = ad.partial_eval_jaxpr(body.jaxpr, unks_in)
    n_known_out = len(j1.outs) - num_res
    res_vars = [Var(_add_axis(v.aval, 0, size)) for v in j1.outs[n_known_out:]]
    known_outs = [v for v, u in zip(eqn.out_binders, out_unks) if not u]
    unknown_outs = [v for v, u in zip(eqn.out_binders, out_unks) if u]
    rest = {k: v for k, v in p.items() if k not in ("jaxpr", "in_axes", "out_axes")}
    eqn1 = JaxprEqn(
        pmap_p,
        [x for x, u in zip(eqn.inputs, unks_in) if not u],
        dict(
            rest,
            jaxpr=ClosedJaxpr(dce_jaxpr(j1), body.consts),
            in_axes=tuple(a for a, u in zip(p["in_axes"], unks_in) if not u),
            out_axes=tuple(o for o, u in zip(p["out_axes"], out_unks) if not u) + (0,) * num_res,
        ),
        known_outs + res_vars,
        eqn.source_info,
    )
    eqn2 = JaxprEqn(
        pmap_p,
        res_vars + [x for x, u in zip(eqn.inputs, unks_in) if u],
        dict(
            rest,
            jaxpr=ClosedJaxpr(j2, []),
            in_axes=(0,) * num_res + tuple(a for a, u in zip(p["in_axes"], unks_in) if u),
            out_axes=tuple(o for o, u in zip(p["out_axes"], out_unks) if u),
        ),
        unknown_outs,
        eqn.source_info,
    )
    return eqn1, eqn2, out_unks, res_vars


ad.partial_eval_jaxpr_rules[pmap_p] = _pmap_partial_eval_jaxpr
ad.jvp_rules[pmap_p] = _pmap_jvp
ad.transpose_rules[pmap_p] = _pmap_transpose
batching.batch_rules[pmap_p] = _pmap_batch
ad.partial_eval_rules[pmap_p] = _pmap_partial_eval
