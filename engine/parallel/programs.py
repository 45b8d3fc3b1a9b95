"""Programs shipped to devices: a closed per-device jaxpr, pickled once and cached by the workers
under a hash of its bytes.

Primitives are pickled by reference (name and identity in the host), because the rule tables are
keyed by the primitive objects: the forked worker has the very same objects. Modules the host
imported later are imported by the worker before unpickling. A program that cannot be pickled
(a parameter holding a lambda, say) is instead inherited: the pool is re-forked with it in memory.
"""

from __future__ import annotations

import hashlib
import io
import math
import functools
import importlib
import pickle
import sys

import numpy as np

from .. import core, narrow_dtypes
from ..ir import ClosedJaxpr, Jaxpr, Var, holds_jaxprs, subjaxprs
from . import host_calls


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, core.Primitive):
            return _primitive_ref, (obj.name, id(obj))
        # a class presented under JAX's path (core.jax_class_path): by where it is (no `jax` there)
        if isinstance(obj, type) and "_engine_origin" in vars(obj):
            return _engine_class, vars(obj)["_engine_origin"]
        if not isinstance(obj, type) and hasattr(obj, "host_number"):
            return host_calls.stub(obj)  # (run on the host: engine.parallel.host_calls)
        return NotImplemented


def _engine_class(module: str, qualname: str) -> type:
    cls: type = functools.reduce(getattr, qualname.split("."), importlib.import_module(module))
    return cls


_registry: dict[int, core.Primitive] | None = None


def _all_primitives():
    from .. import ad, batching

    seen = {}
    for table in (
        core.impl_rules,
        core.abstract_eval_rules,
        ad.jvp_rules,
        ad.transpose_rules,
        batching.batch_rules,
    ):
        for p in table:
            seen[id(p)] = p
    return seen


def _primitive_ref(name: str, host_id: int):
    global _registry
    if _registry is None or host_id not in _registry:
        _registry = _all_primitives()
    p = _registry.get(host_id)
    if p is not None and p.name == name:
        return p
    matches = [p for p in _registry.values() if p.name == name]
    if len(matches) == 1:
        return matches[0]
    raise RuntimeError(f"primitive {name!r} is unknown to the device process")


def dumps(closed: ClosedJaxpr) -> tuple[str, bytes]:
    """``(key, payload)``: the engine modules the host has imported, then the program. Raises
    ``pickle.PicklingError``/``TypeError``/``AttributeError`` when the program is not picklable."""
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle.HIGHEST_PROTOCOL)
    pickler.dump(sorted(m for m in list(sys.modules) if m.startswith("engine")))
    pickler.dump(closed)
    payload = buf.getvalue()
    return hashlib.blake2b(payload, digest_size=12).hexdigest(), payload


def loads(payload: bytes) -> ClosedJaxpr:
    from .worker import import_modules

    global _registry
    unpickler = pickle.Unpickler(io.BytesIO(payload))  # one unpickler: the two share a memo
    modules = unpickler.load()
    missing = [m for m in modules if m not in sys.modules]
    if missing:
        import_modules(missing)
        _registry = None
    return unpickler.load()


def calls_python(jaxpr: Jaxpr) -> bool:
    """Whether running ``jaxpr`` may call back into Python (``jax.debug.print``, callbacks), in
    it or in any sub-jaxpr."""
    from ..callbacks import pure_callback_p
    from ..ir import effectful

    for eqn in jaxpr.eqns:
        if eqn.primitive in effectful or eqn.primitive is pure_callback_p:
            return True
        if any(calls_python(sub) for sub in subjaxprs(eqn)):
            return True
    return False


def input_operands(jaxpr: Jaxpr) -> tuple[int, ...]:
    """Positions of the program inputs that a small ``psum``/``pmax``/``pmin`` of ``jaxpr``
    reduces as they are. The host has written every input before a run starts, so each device
    reads the group's copies straight from their memory: no exchange, no barrier. (The device
    checks that the operand really is the input: a vmap in between would change it.)"""
    from ..ir import Literal
    from ..lax.parallel import pmax_p, pmin_p, psum_p

    inputs = {v: i for i, v in enumerate(jaxpr.in_binders)}
    found = set()
    for eqn in jaxpr.eqns:
        if eqn.primitive in (psum_p, pmax_p, pmin_p):
            for x in eqn.inputs:
                if type(x) is not Literal and x in inputs and _small(x.aval):
                    found.add(inputs[x])
    return tuple(sorted(found))


def _small(aval) -> bool:
    from .collectives import BIG_PSUM

    return int(np.prod(aval.shape, dtype=np.int64)) * aval.dtype.itemsize < BIG_PSUM


def device_form(closed: ClosedJaxpr) -> ClosedJaxpr:
    """What each device runs for a pmap body: the program as XLA compiles it for every device,
    simplified and with its multiply-adds contracted, as ``jit`` runs a program (so a pmapped
    function rounds as the same function jitted does)."""
    from .. import fused_rules
    from ..jit_runtime import compiled_form

    return fused_rules.compiled(compiled_form(closed))


def eager_form(closed: ClosedJaxpr) -> ClosedJaxpr:
    """What each device runs for an eager ``shard_map`` equation (a gradient's backward shard_map
    outside ``jit``): JAX runs such a body one primitive at a time, each compiled on its own, so
    nothing fuses across operations, while the body of a remat, loop, cond or call is compiled
    whole (its ``device_form``, inlined here)."""
    jaxpr = closed.jaxpr
    if not any(holds_jaxprs(e.params) for e in jaxpr.eqns):
        return closed
    constvars, consts = list(jaxpr.constvars), list(closed.consts)
    env: dict = {}

    def at(names: dict, x):
        return names.get(x, x) if type(x) is Var else x

    eqns: list = []
    for e in jaxpr.eqns:
        if not holds_jaxprs(e.params):
            eqns.append(e._replace(inputs=[at(env, x) for x in e.inputs]))
            continue
        operands = list(dict.fromkeys(x for x in e.inputs if type(x) is Var))
        binders = {x: Var(x.aval) for x in operands}
        one = Jaxpr(
            [], list(binders.values()), [e._replace(inputs=[at(binders, x) for x in e.inputs])], e.out_binders
        )
        form = device_form(ClosedJaxpr(one, []))
        local = {b: at(env, x) for x, b in zip(operands, form.jaxpr.in_binders)}
        for v, c in zip(form.jaxpr.constvars, form.consts):
            local[v] = Var(v.aval)
            constvars.append(local[v])
            consts.append(c)
        eqns.extend(f._replace(inputs=[at(local, x) for x in f.inputs]) for f in form.jaxpr.eqns)
        env.update((o, at(local, x)) for o, x in zip(e.out_binders, form.jaxpr.outs))
    return ClosedJaxpr(Jaxpr(constvars, jaxpr.in_binders, eqns, [at(env, x) for x in jaxpr.outs]), consts)


class Runner:
    """A program prepared for repeated runs on one device: its equations as direct calls of the
    primitives' implementations on numpy arrays (no ``bind``, no tracing machinery), values in a
    flat list, each dropped after its last use. A ``psum`` whose result is a program output gets
    that output's buffer as a destination (``DeviceContext.dests``), so it is written in place."""

    def __init__(self, closed: ClosedJaxpr):
        from ..ir import Literal
        from ..lax.parallel import pmax_p, pmin_p, psum_p

        reducers = (psum_p, pmax_p, pmin_p)

        jaxpr = closed.jaxpr
        env0: list = []
        where: dict = {}

        def new(value=None):
            env0.append(value)
            return len(env0) - 1

        def ref(x):
            if type(x) is Literal:
                return new(np.asarray(core.to_numpy(x.val)))
            return where[x]

        for v, c in zip(jaxpr.constvars, closed.consts):
            where[v] = new(np.asarray(core.to_numpy(c)))
        self.in_slots = []
        for v in jaxpr.in_binders:
            where[v] = new()
            self.in_slots.append(where[v])
        last_use: dict = {}
        for i, eqn in enumerate(jaxpr.eqns):
            for x in eqn.inputs:
                if type(x) is not Literal:
                    last_use[x] = i
        outs = [x for x in jaxpr.outs if type(x) is not Literal]
        out_pos = {}
        for k, x in enumerate(jaxpr.outs):
            if type(x) is not Literal and outs.count(x) == 1:
                out_pos[x] = k
        keep = set(outs) | set(jaxpr.in_binders) | set(jaxpr.constvars)
        operands = set(input_operands(jaxpr))
        in_index = {v: i for i, v in enumerate(jaxpr.in_binders) if i in operands}
        steps = []
        for i, eqn in enumerate(jaxpr.eqns):
            ins = [ref(x) for x in eqn.inputs]
            outs_i = []
            for v in eqn.out_binders:
                where[v] = new()
                outs_i.append(where[v])
            hints = None  # (psum destinations, input operands): see DeviceContext.dests/sources
            if eqn.primitive is psum_p and any(v in out_pos for v in eqn.out_binders):
                hints = (
                    [(out_pos[v], v not in last_use) if v in out_pos else None for v in eqn.out_binders],
                    [],
                )
            if eqn.primitive in reducers and any(
                type(x) is not Literal and x in in_index for x in eqn.inputs
            ):
                sources = [in_index.get(x) if type(x) is not Literal else None for x in eqn.inputs]
                hints = (hints[0] if hints else [], sources)
            dead = [
                where[x]
                for x in set(eqn.inputs)
                if type(x) is not Literal and last_use.get(x) == i and x not in keep
            ]
            steps.append(
                (
                    narrow_dtypes.impl_for(
                        eqn.primitive,
                        core.impl_rules[eqn.primitive],
                        [x.aval.dtype for x in eqn.inputs],
                        [v.aval.dtype for v in eqn.out_binders],
                        eqn.params,
                    ),
                    ins,
                    outs_i,
                    eqn.params,
                    eqn.primitive.multiple_results,
                    hints,
                    dead,
                )
            )
        self.steps = steps
        self.out_slots = [ref(x) for x in jaxpr.outs]
        self.env0 = env0

    def __call__(self, args, dests=None, ctx=None) -> list:
        env = list(self.env0)
        for s, a in zip(self.in_slots, args):
            env[s] = a
        if ctx is not None:
            ctx.inputs = args
        for impl, ins, outs, params, multiple, hints, dead in self.steps:
            if hints is not None and ctx is not None:
                if dests is not None:
                    ctx.dests = [None if h is None else (dests[h[0]], h[1]) for h in hints[0]]
                ctx.sources = list(hints[1])
            r = impl(*[env[i] for i in ins], **params)
            if hints is not None and ctx is not None:
                ctx.dests, ctx.sources = [], []
            if multiple:
                for s, o in zip(outs, r):
                    env[s] = o if type(o) is np.ndarray else _numpy(o)
            else:
                env[outs[0]] = r if type(r) is np.ndarray else _numpy(r)
            for s in dead:
                env[s] = None
        return [env[s] for s in self.out_slots]


# ---------------------------------------------------------------------------------------------
# Compiled device programs: the jit's numba backend, compiled once in the host (its disk cache, and
# the module itself for devices forked afterwards), loaded by each device.

COMPILE_MIN = 1 << 16  # elements written by elementwise work before a device program is compiled


def wants_compiling(closed: ClosedJaxpr) -> bool:
    """Whether devices should run ``closed`` compiled: asked for (``ENGINE_DEVICE_BACKEND=numba``),
    numba is the jit's backend, the program is flat (no nested pmap, no sub-programs) and does
    enough elementwise work to repay loading kernels in every device.

    Off by default: measured here, per-device programs ran no faster compiled (numpy's ufuncs are
    vectorized, a 36-op fused chain over 5e5 floats took 10 ms compiled vs 9 ms interpreted) while
    the first call cost 2-4 s instead of 0.6 s."""
    import os
    from ..jit import get_backend
    from ..lax.parallel import collective_primitives
    from ..lax.structural import dot_general_p

    if os.environ.get("ENGINE_DEVICE_BACKEND", "interpreter") != "numba":
        return False
    if not hasattr(get_backend(), "lower_source"):
        return False
    work = 0
    for eqn in closed.jaxpr.eqns:
        if next(subjaxprs(eqn), None) is not None:
            return False
        if eqn.primitive in collective_primitives or eqn.primitive is dot_general_p:
            continue
        work += sum(v.aval.size for v in eqn.out_binders)
    return work >= COMPILE_MIN


def compile_in_host(closed: ClosedJaxpr, name: str) -> bool:
    from ..jit import get_backend

    try:
        get_backend().compile(closed, f"pmap_{name}")
        return True
    except Exception:  # the devices interpret it instead
        return False


def _serial(kernel, n, *args):
    return kernel(0, n, *args)


class CompiledRunner:
    """A device program run by the numba backend's host function; kernels run on this device's
    thread only (the devices already share the cores), collectives run as fallbacks."""

    def __init__(self, closed: ClosedJaxpr, name: str):
        from ..jit import get_backend

        self.exe = get_backend().compile(closed, f"pmap_{name}")
        self.exe.module._par = _serial  # (a thread pool inherited through fork has no threads)

    def __call__(self, args, dests=None, ctx=None) -> list:
        return self.exe(*args)


def _numpy(x) -> np.ndarray:
    return x._value if isinstance(x, core.Array) else np.asarray(x)


# ---------------------------------------------------------------------------------------------
# What a program needs from the runtime: the device mesh and the size of an exchange slot.


def _eqns(jaxpr: Jaxpr, pmap_p):
    """Equations of ``jaxpr`` and of its non-pmap sub-jaxprs (jit bodies...)."""
    for eqn in jaxpr.eqns:
        yield eqn
        if eqn.primitive is not pmap_p:
            for sub in subjaxprs(eqn):
                yield from _eqns(sub, pmap_p)


def mesh_for(closed: ClosedJaxpr, axis_size: int, device_count: int) -> tuple[int, ...]:
    """Outer axis first; a nested pmap gets its own mesh dimension when all pmaps at that depth
    agree on the size and the devices suffice (else it runs as a vmap on each device)."""
    from .pmap_primitive import pmap_p

    mesh = [axis_size]
    level = [closed.jaxpr]
    while True:
        inner = [e for j in level for e in _eqns(j, pmap_p) if e.primitive is pmap_p]
        sizes = {e.params["axis_size"] for e in inner}
        if len(sizes) != 1:
            break
        s = sizes.pop()
        if math.prod(mesh) * s > device_count:
            break
        mesh.append(s)
        level = [e.params["jaxpr"].jaxpr for e in inner]
    return tuple(mesh)


def slot_bytes_for(closed: ClosedJaxpr, mesh) -> int:
    """The largest operand any collective of the program exchanges (batched sizes included for
    nested pmaps that run as vmaps), and the outputs gathered by nested pmaps."""
    from ..lax.parallel import collective_primitives
    from .collectives import gathered_bytes
    from .pmap_primitive import pmap_p

    def nbytes(aval, factor):
        return int(np.prod(aval.shape, dtype=np.int64)) * aval.dtype.itemsize * factor

    def walk(jaxpr, depth, factor):
        best = 0
        for eqn in _eqns(jaxpr, pmap_p):
            if eqn.primitive in collective_primitives:
                for x in eqn.inputs:
                    best = max(best, nbytes(x.aval, factor))
            elif eqn.primitive is pmap_p:
                body = eqn.params["jaxpr"].jaxpr
                if depth < len(mesh) and mesh[depth] == eqn.params["axis_size"]:
                    # its outputs are gathered through one slot, one after another
                    best = max(best, sum(gathered_bytes(nbytes(v.aval, factor)) for v in body.outs))
                    best = max(best, walk(body, depth + 1, factor))
                else:
                    best = max(best, walk(body, depth + 1, factor * eqn.params["axis_size"]))
        return best

    return max(64, (walk(closed.jaxpr, 1, 1) + 63) // 64 * 64)
