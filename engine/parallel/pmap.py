"""``pmap``: run a function once per device, in the device processes, with collectives between
them.

``pmap(f)(x)`` traces ``f`` at per-device shapes to a closed jaxpr and binds the call primitive
``pmap_p`` (params: the jaxpr, ``axis_name``, ``axis_size``, ``in_axes``, ``out_axes``, devices).
Like ``jit_p``, its rules transform the inner jaxpr, so ``grad``, ``vmap`` and ``jit`` of a pmapped
function stay pmapped and their work (the backward pass included) runs on the devices. Executing
``pmap_p`` ships the program (pickled once, cached per device by hash), places the argument shards
in device memory and collects sharded results that stay there until read.

A ``pmap`` traced inside another becomes a ``pmap_p`` equation of the outer program; the devices
form a mesh (outer x inner) and each group of devices runs the inner map, gathering its outputs.
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

from .. import ad, batching, core, monitoring
from .. import random_keys as rk
from ..batching import not_mapped
from ..core import Array, ShapedArray, Tracer
from ..ir import ClosedJaxpr, Jaxpr, dce_jaxpr, eval_jaxpr
from ..jit import _hoist_tracer_consts
from ..lax import api as lax_api
from ..lax import parallel as lax_parallel
from ..random_primitives import random_unwrap, random_wrap
from ..staging import displaying, trace_to_jaxpr
from ..tree_util import broadcast_prefix, tree_flatten, tree_unflatten
from . import collectives, programs
from . import topology as _devices
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


@pmap_p.def_abstract_eval
def _pmap_abstract(*avals, jaxpr, axis_size, out_axes, **_):
    return [_add_axis(a, o, axis_size) for a, o in zip(jaxpr.out_avals, out_axes)]


# ---------------------------------------------------------------------------------------------
# Execution.


class Program:
    """A pmap body ready for the devices: pickled bytes and the key workers cache it under."""

    __slots__ = ("closed", "key", "payload", "mesh", "names", "slot_bytes", "name", "compiled")

    def __init__(self, closed, name, axis_name, axis_size, device_count, nested=True):
        self.closed, self.name = closed, name
        # compiled here first, so the devices load it (from memory if forked later, else from disk)
        self.compiled = programs.wants_compiling(closed) and programs.compile_in_host(closed, name)
        self.mesh = programs.mesh_for(closed, axis_size, device_count) if nested else (axis_size,)
        self.names = {axis_name: 0, _dim_name(0): 0}
        self.slot_bytes = programs.slot_bytes_for(closed, self.mesh)
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
        return [rt.put(dev, value) for dev in placement]
    index = [slice(None)] * value.ndim
    out = []
    for pos, dev in enumerate(placement):
        index[axis] = pos // group
        out.append(rt.put(dev, value[tuple(index)]))
    return out


def _run_on_devices(args, jaxpr, name, axis_name, axis_size, in_axes, out_axes, devices):
    t0 = time.perf_counter()
    rt = get_runtime()
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
            results.append(ShardedArray(leaders, o, _add_axis(aval, o, axis_size)))
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


def _emit(prog, placement, inputs, outs, replies, axis_name, t0, t_put):
    devices, merged = [], {}
    for pos, (dev, rep) in enumerate(zip(placement, replies)):
        devices.append(
            dict(
                id=dev,
                coords=list(collectives.mesh_coords(pos, prog.mesh)),
                inputs=[b.read() for b in inputs[pos]],
                outputs=[b.read() for b in outs[pos]],
                compute_ms=rep["compute_ms"],
                collective_wait_ms=rep["wait_ms"],
            )
        )
        for ev in rep["events"]:
            m = merged.get(ev["seq"])
            end = ev["start_ms"] + ev["duration_ms"]
            if m is None:
                m = merged[ev["seq"]] = dict(ev, waits_ms={}, _end=end)
                del m["wait_ms"]
            m["start_ms"] = min(m["start_ms"], ev["start_ms"])
            m["_end"] = max(m["_end"], end)
            m["waits_ms"][dev] = ev["wait_ms"]
            if dev not in m["devices"]:
                m["devices"] = sorted(set(m["devices"]) | set(ev["devices"]))
    events = []
    for seq in sorted(merged):
        m = merged[seq]
        m["duration_ms"] = m.pop("_end") - m["start_ms"]
        m["devices"] = sorted(set(m["devices"]))
        events.append(m)
    names = [None if isinstance(axis_name, AnonymousAxis) else axis_name]
    monitoring.emit(
        "pmap_execute",
        name=prog.name,
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
                (o,) = lax_parallel.psum_p.bind(o, axes=(axis_name,))
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
    trace = batching.current_batch_trace()
    vname = trace.axis_name if trace is not None else None
    new_vals, new_axes, inner_dims, avals = [], [], [], []
    for v, d, a, aval in zip(vals, dims, in_axes, jaxpr.in_avals):
        if d is not_mapped:
            new_vals.append(v), new_axes.append(a), inner_dims.append(None), avals.append(aval)
        else:
            new_vals.append(batching.moveaxis(v, d, 0))
            new_axes.append(None if a is None else a + 1)
            inner_dims.append(0)
            avals.append(aval.update(shape=(size, *aval.shape)))

    def f(*xs):
        return batching.vmap_flat(
            lambda *ys: eval_jaxpr(jaxpr.jaxpr, ys, jaxpr.consts),
            size,
            vname,
            inner_dims,
            xs,
            lambda n: [0] * n,
        )

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


# ---------------------------------------------------------------------------------------------
# The public API.


def _normalize_axis(ax, ndim, what):
    if ax is None:
        return None
    if not isinstance(ax, (int, np.integer)):
        raise TypeError(f"pmap {what} must be an int, None, or a tree of them, got {ax!r}")
    return int(ax) % ndim if ndim else int(ax)


class PmapFunction:
    """The callable that ``pmap`` returns; caches one traced program per input signature."""

    def __init__(self, fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices):
        self.fun = fun
        functools.update_wrapper(self, fun, updated=())
        self.name = getattr(fun, "__name__", "fun")
        self.axis_name = AnonymousAxis() if axis_name is None else axis_name
        self.in_axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
        self.out_axes = out_axes
        statics = static_broadcasted_argnums
        self.static_argnums = (statics,) if isinstance(statics, int) else tuple(statics or ())
        self.devices = (
            None
            if devices is None
            else tuple(d.id if isinstance(d, _devices.Device) else int(d) for d in devices)
        )
        self._cache: dict = {}
        self._axes_cache: dict = {}  # (argument tree, static positions) -> flat in_axes

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __repr__(self):
        return f"<pmap({self.name})>"

    def _flat_axes(self, dyn_args, kwargs):
        in_axes = self.in_axes
        if isinstance(in_axes, tuple):
            if len(in_axes) != len(dyn_args):
                raise ValueError(
                    f"pmap in_axes specification must be a tree prefix of the "
                    f"corresponding value, got specification {in_axes} for value tree "
                    f"of {len(dyn_args)} positional arguments"
                )
        else:
            in_axes = (in_axes,) * len(dyn_args)
        try:
            axes = broadcast_prefix(in_axes, tuple(dyn_args), is_leaf=lambda x: x is None)
        except ValueError as e:
            raise ValueError(
                f"pmap in_axes specification must be a tree prefix of the corresponding value: {e}"
            ) from None
        return list(axes) + [0] * len(tree_flatten(kwargs)[0])

    def __call__(self, *args, **kwargs):
        nargs = len(args)
        static_nums = {i % nargs for i in self.static_argnums if -nargs <= i < nargs}
        statics = tuple((i, args[i]) for i in sorted(static_nums))
        for i, v in statics:
            try:
                hash(v)
            except TypeError:
                raise ValueError(
                    f"Non-hashable static arguments are not supported: argument {i} "
                    f"of type {type(v).__name__} is marked in static_broadcasted_argnums. "
                    f"Pass it as a regular argument instead (with in_axes=None to "
                    f"broadcast it)."
                ) from None
        dyn_args = [a for i, a in enumerate(args) if i not in static_nums]
        if isinstance(self.in_axes, tuple) and static_nums and len(self.in_axes) == nargs:
            in_axes_spec = tuple(a for i, a in enumerate(self.in_axes) if i not in static_nums)
        else:
            in_axes_spec = self.in_axes
        leaves, in_tree = tree_flatten((tuple(dyn_args), kwargs))
        # Typed PRNG keys cross to the devices as their uint32 data (wrapped again inside).
        key_in = tuple(rk.is_typed(x) for x in leaves)
        if any(key_in):
            leaves = [random_unwrap(x) if k else x for x, k in zip(leaves, key_in)]
        axes_key = (in_tree, tuple(sorted(static_nums)))
        axes = self._axes_cache.get(axes_key)
        if axes is None:
            saved, self.in_axes = self.in_axes, in_axes_spec
            try:
                axes = self._flat_axes(dyn_args, kwargs)
            finally:
                self.in_axes = saved
            self._axes_cache[axes_key] = axes
        if any(key_in):  # (a negative axis counts from the end of the key shape, before the data axis)
            axes = [a - 1 if k and a is not None and a < 0 else a for a, k in zip(axes, key_in)]
        avals, flat_axes, size = self._check_args(leaves, axes, dyn_args, in_axes_spec)
        if self._stages_as_jax(leaves, flat_axes):
            return self._staged_as_shard_map(statics, nargs, in_tree, leaves, flat_axes, key_in, size)
        key = (statics, in_tree, tuple(flat_axes), tuple(avals), key_in)
        entry = self._cache.get(key)
        listening = monitoring.listening()
        if entry is None:
            t0 = time.perf_counter()
            entry = self._trace(statics, nargs, in_tree, flat_axes, avals, size, key_in)
            if not entry[2]:
                self._cache[key] = entry
            if listening:
                monitoring.emit(
                    "pmap_trace",
                    name=self.name,
                    jaxpr=entry[0],
                    cache="miss",
                    seconds=time.perf_counter() - t0,
                    fun=self.fun,
                )
        elif listening:
            monitoring.emit(
                "pmap_trace", name=self.name, jaxpr=entry[0], cache="hit", seconds=0.0, fun=self.fun
            )
        closed, out_tree, hoisted, out_axes, key_out = entry
        if not hoisted and not core.tracing_active() and not any(isinstance(x, Tracer) for x in leaves):
            # Eager: straight to the devices (binding would convert device arrays to numpy first).
            outs = _run_on_devices(
                leaves, closed, self.name, self.axis_name, size, tuple(flat_axes), out_axes, self.devices
            )
        else:
            outs = _bind(
                hoisted,
                leaves,
                flat_axes,
                out_axes,
                closed,
                name=self.name,
                axis_name=self.axis_name,
                axis_size=size,
                devices=self.devices,
            )
        if any(key_out):
            outs = [random_wrap(o) if k else o for o, k in zip(outs, key_out)]
        return tree_unflatten(out_tree, outs)

    def _stages_as_jax(self, leaves, flat_axes) -> bool:
        """Whether this call is staged into a jaxpr made to be shown (make_jaxpr, the page's stages)
        directly, with axes JAX's ``jit(shard_map)`` form expresses: then it is staged in that form."""
        dyn = core._state.dynamic
        return (
            dyn is not None
            and displaying()
            and not getattr(_shown, "depth", 0)
            and core.find_top_trace(leaves).main is dyn
            and self.devices is None
            and isinstance(self.out_axes, int)
            and self.out_axes == 0
            and all(a in (0, None) for a in flat_axes)
            and isinstance(self.axis_name, (str, AnonymousAxis))
        )

    def _staged_as_shard_map(self, statics, nargs, in_tree, leaves, flat_axes, key_in, size):
        """JAX 0.10.2's pmap: ``jit[name=_fun]`` around a ``shard_map`` over a 1-D mesh of the first
        ``size`` devices, whose body squeezes each device's block and expands each result. The
        shard_map runs its body on the same device processes (``spmd._shard_map_impl``)."""
        from ..jit import jit
        from ..sharding import Mesh, PartitionSpec
        from .spmd import shard_map

        axis = "_internal_pmap_axis_name" if isinstance(self.axis_name, AnonymousAxis) else self.axis_name
        mesh = Mesh(np.array(_devices.devices()[:size]), (axis,))
        static_pos = dict(statics)
        out_store: list = []

        def body(*blocks):
            xs = [lax_api.squeeze(b, (0,)) if ax is not None else b for b, ax in zip(blocks, flat_axes)]
            xs = [random_wrap(x) if k else x for x, k in zip(xs, key_in)]
            dyn, kwargs = tree_unflatten(in_tree, xs)
            it = iter(dyn)
            full = [static_pos[i] if i in static_pos else next(it) for i in range(nargs)]
            out_leaves, out_tree = tree_flatten(self.fun(*full, **kwargs))
            key_out = tuple(rk.is_typed(o) for o in out_leaves)
            out_store[:] = [out_tree, key_out]
            outs = [random_unwrap(o) if k else o for o, k in zip(out_leaves, key_out)]
            return [lax_api.expand_dims(o, (0,)) for o in outs]

        in_specs = tuple(PartitionSpec(axis) if ax is not None else PartitionSpec() for ax in flat_axes)
        mapped = shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=PartitionSpec(axis), check_vma=False)

        def _fun(*xs):
            return mapped(*xs)

        _shown.depth = getattr(_shown, "depth", 0) + 1
        try:
            outs = jit(_fun)(*leaves)
        finally:
            _shown.depth -= 1
        out_tree, key_out = out_store
        outs = [random_wrap(o) if k else o for o, k in zip(outs, key_out)]
        return tree_unflatten(out_tree, outs)

    def _check_args(self, leaves, axes, dyn_args, in_axes_spec):
        avals, flat_axes, sizes = [], [], []
        for i, (x, ax) in enumerate(zip(leaves, axes)):
            aval = (
                ShapedArray(x.shape, x.dtype, x.weak_type)
                if isinstance(x, ShardedArray)
                else core.get_aval(x)
            )
            if ax is not None:
                if not -aval.ndim <= ax < aval.ndim:
                    raise ValueError(_rank_error(ax, aval, i, len(leaves), dyn_args, in_axes_spec))
                ax = ax % aval.ndim
                sizes.append((aval.shape[ax], ax, aval))
            flat_axes.append(ax)
            avals.append(_drop_axis(aval, ax))
        if not sizes:
            raise ValueError(
                "pmap requires at least one argument with a mapped axis (in_axes other than None)"
            )
        size = sizes[0][0]
        if any(s != size for s, _, _ in sizes):
            lines = "\n".join(
                f"* one axis had size {s}: axis {ax} of an argument of type {a.str_short()}"
                for s, ax, a in sizes
            )
            raise ValueError(f"pmap got inconsistent sizes for array axes to be mapped:\n{lines}")
        available = len(self.devices) if self.devices is not None else _devices.device_count()
        if self.devices is not None and size != available:
            raise ValueError(
                f"Leading axis size of input to pmapped function must equal the number "
                f"of local devices passed to pmap. Got axis_size={size}, "
                f"num_local_devices={available}."
            )
        if size > available:
            raise ValueError(
                f"compiling computation that requires {size} logical devices, but only "
                f"{available} XLA devices are available (num_replicas={size}). The mapped "
                f"axis of a pmap cannot be larger than the device count; set "
                f"XLA_FLAGS=--xla_force_host_platform_device_count=N for more."
            )
        return avals, flat_axes, size

    def _trace(self, statics, nargs, in_tree, flat_axes, avals, size, key_in):
        out_store = []
        static_pos = dict(statics)

        def flat(*xs):
            xs = [random_wrap(x) if k else x for x, k in zip(xs, key_in)]
            dyn, kwargs = tree_unflatten(in_tree, xs)
            it = iter(dyn)
            full = [static_pos[i] if i in static_pos else next(it) for i in range(nargs)]
            out = self.fun(*full, **kwargs)
            out_leaves, out_tree = tree_flatten(out)
            key_out = tuple(rk.is_typed(o) for o in out_leaves)
            out_store[:] = [out_tree, key_out]
            return [random_unwrap(o) if k else o for o, k in zip(out_leaves, key_out)]

        closed, hoisted = _trace_body(flat, avals, self.axis_name, size)
        out_tree, key_out = out_store
        try:
            out_axes = broadcast_prefix(
                self.out_axes,
                tree_unflatten(out_tree, [0] * len(closed.out_avals)),
                is_leaf=lambda x: x is None,
            )
        except ValueError as e:
            raise ValueError(
                f"pmap out_axes specification must be a tree prefix of the corresponding value: {e}"
            ) from None
        out_axes = tuple(
            None if o is None else _normalize_axis(o, a.ndim + 1, "out_axes")
            for o, a in zip(out_axes, closed.out_avals)
        )
        return closed, out_tree, hoisted, out_axes, key_out


def _rank_error(ax, aval, i, n_leaves, dyn_args, in_axes_spec) -> str:
    msg = (
        f"pmap was requested to map its argument along axis {ax}, which implies that its rank "
        f"should be at least {ax + 1 if ax >= 0 else -ax}, but is only {aval.ndim} (its shape is "
        f"{aval.shape})."
    )
    if len(dyn_args) > 1 and n_leaves == len(dyn_args):
        spec = ", ".join("None" if j == i else "0" for j in range(len(dyn_args)))
        msg += f" To broadcast argument {i} to every device instead of mapping it, pass in_axes=({spec})."
    else:
        msg += " Pass in_axes=None for arguments that should be broadcast, e.g. in_axes=(0, None)."
    return msg


def pmap(
    fun: Callable | None = None,
    axis_name=None,
    *,
    in_axes=0,
    out_axes=0,
    static_broadcasted_argnums=(),
    devices=None,
    backend=None,
    axis_size=None,
    donate_argnums=(),
    global_arg_shapes=None,
):
    """Map ``fun`` over a leading axis of its arguments, one slice per device, in the device
    processes; collectives (``lax.psum`` ...) over ``axis_name`` act across the devices.

    >>> pmap(lambda x: x / lax.psum(x, 'i'), axis_name='i')(jnp.arange(4.))
    Array([0.        , 0.16666667, 0.33333334, 0.5       ], dtype=float32)
    """
    if fun is None:
        return lambda f: pmap(
            f,
            axis_name,
            in_axes=in_axes,
            out_axes=out_axes,
            static_broadcasted_argnums=static_broadcasted_argnums,
            devices=devices,
        )
    if not callable(fun):
        raise TypeError(f"pmap: expected a callable, got {fun!r}")
    return PmapFunction(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices)
