"""``jit`` and ``make_jaxpr``: stage a function to a jaxpr once per input signature and run the
jaxpr with a backend (numba where available, else the numpy interpreter).

``jit_p`` is a call primitive whose param is the closed jaxpr; its rules transform the inner jaxpr,
so ``grad(jit(f))`` and ``vmap(jit(f))`` stay staged.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect as _pyinspect
import sys
import math
import os
import threading
import time
import weakref
from typing import TYPE_CHECKING, Callable

import numpy as np

from . import ad, batching, core, ir, monitoring
from .config import config as _config
from .core import Array, ShapedArray, Tracer
from .ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr, eval_jaxpr, subjaxprs
from .staging import trace_to_jaxpr
from .backends.rows import Special, lowerings
from .tree_util import tree_flatten, tree_unflatten

if TYPE_CHECKING:
    from .backends import numba_jit

jit_p = core.Primitive("jit", multiple_results=True)
# JAX prints name= first (easier to scan), then the rest by name.
ir.pp_params_rules[jit_p] = lambda eqn: [
    ("name", eqn.params["name"]),
    *sorted((k, v) for k, v in eqn.params.items() if k != "name"),
]


# ---------------------------------------------------------------------------------------------
# Backends: a backend compiles a closed jaxpr to ``callable(*numpy_args) -> list[numpy]``.


class Interpreter:
    name = "interpreter"

    def compile(self, closed: ClosedJaxpr, name: str):
        def run(*args):
            outs = eval_jaxpr(
                closed.jaxpr, [Array(a) if isinstance(a, np.ndarray) else a for a in args], closed.consts
            )
            return [core.to_numpy(o) for o in outs]

        run.source = None  # type: ignore[attr-defined]
        run.fallbacks = []  # type: ignore[attr-defined]
        return run


_backend: Interpreter | numba_jit.NumbaBackend | None = None
_executables: "weakref.WeakKeyDictionary[ClosedJaxpr, Callable]" = weakref.WeakKeyDictionary()


def get_backend():
    """The numba backend when numba imports, else the interpreter (e.g. under Pyodide)."""
    global _backend
    if _backend is None:
        try:
            from .backends import numba_jit

            _backend = numba_jit.NumbaBackend()
        except ImportError:
            _backend = Interpreter()
    return _backend


def set_backend(backend) -> None:
    global _backend
    _backend = backend
    _executables.clear()


def executable(closed: ClosedJaxpr, name: str):
    exe = _executables.get(closed)
    if exe is None:
        job = _jobs.get(closed)
        if job is not None and job.done.wait() and job.exe is not None:
            return job.exe
        t0 = time.perf_counter()
        exe = get_backend().compile(closed, name)
        exe.compile_time = time.perf_counter() - t0
        _executables[closed] = exe
    return exe


# ---------------------------------------------------------------------------------------------
# Tiers. The first call of a program that the interpreter runs quickly does not wait for numba:
# it is interpreted while the kernels compile on a background thread, and calls switch to them
# once they are ready. (An edit of a jitted function otherwise waits 0.2-0.5 s per function.)

TIERED = os.environ.get("ENGINE_JIT_TIERED", "1") != "0"
INTERPRET_MAX_SECONDS = 0.02  # estimated interpreter time per call up to which calls run interpreted
_EQN_SECONDS, _ELEMENT_SECONDS = 5e-6, 2e-9  # the interpreter: per equation, per output element


def interpret_seconds(jaxpr: Jaxpr) -> float:
    """A rough estimate of one interpreted call's time; inf where the interpreter's time cannot be
    bounded (while loops) or where a compiled form matters more (pmap)."""
    total = 0.0
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        subs = list(subjaxprs(eqn))
        if name == "while" or "pmap" in name:
            return math.inf
        if name == "scan":
            total += eqn.params["length"] * sum(interpret_seconds(j) for j in subs)
        elif name == "cond":
            total += max(interpret_seconds(j) for j in subs)
        elif subs:
            total += sum(interpret_seconds(j) for j in subs)
        else:
            total += _EQN_SECONDS + _ELEMENT_SECONDS * sum(v.aval.size for v in eqn.out_binders)
    return total


class CompileJob:
    """One program compiling on the background thread: timestamps (``time.perf_counter``) of
    when it was queued, started and ready, and its executable (or error) once ``done``."""

    def __init__(self, closed: ClosedJaxpr, name: str, args):
        self.closed: ClosedJaxpr | None = closed
        self.name = name
        self.layout_args: tuple | None = args  # a call's arguments: specialise on their layouts too
        self.queued = time.perf_counter()
        self.started: float = 0.0
        self.ready: float = 0.0
        self.exe: Callable | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()

    def run(self):
        self.started = time.perf_counter()
        closed = self.closed
        assert closed is not None
        try:
            with monitoring.quiet():
                backend = get_backend()
                exe = backend.compile(closed, self.name)
                exe.compile_time = time.perf_counter() - self.started
                specialise = getattr(backend, "specialise", None)
                if specialise is not None:
                    specialise(exe, closed, self.name, self.layout_args)
            _executables[closed] = exe
            self.exe = exe
        except BaseException as e:  # noqa: BLE001 - the next call compiles in the foreground and raises it
            self.error = e
        finally:
            self.ready = time.perf_counter()
            self.closed = self.layout_args = None  # (the job must not keep its program alive)
            self.done.set()


_jobs: "weakref.WeakKeyDictionary[ClosedJaxpr, CompileJob]" = weakref.WeakKeyDictionary()
_queue: collections.deque = collections.deque()
_queue_lock = threading.Lock()
_worker: list[threading.Thread | None] = [None]  # the compile thread while it has work (it ends
#                                                   when the queue is empty)


# Held while a job compiles. A fork made while it is held would leave the child numba's compiler
# lock held by a thread that is not there: forks of processes that go on compiling (pmap's
# devices) happen inside ``compiles_paused()``. Children drop the queue (the thread did not come
# along) and forget unfinished jobs, so their own calls start new ones.
_compile_lock = threading.Lock()


def _compile_loop():
    while True:
        with _queue_lock:
            if not _queue:
                _worker[0] = None
                return
            job = _queue.popleft()
        with _compile_lock:
            job.run()


@contextlib.contextmanager
def compiles_paused():
    """No background compile runs in the block (it waits for the one in progress to finish)."""
    with _compile_lock:
        yield


def _after_fork_in_child():
    global _compile_lock, _queue_lock
    _compile_lock, _queue_lock = threading.Lock(), threading.Lock()
    _queue.clear()
    _worker[0] = None
    for closed, job in list(_jobs.items()):
        if not job.done.is_set():
            del _jobs[closed]


os.register_at_fork(after_in_child=_after_fork_in_child)


def _submit(job: CompileJob) -> None:
    with _queue_lock:
        _queue.append(job)
        if _worker[0] is None:
            worker = _worker[0] = threading.Thread(target=_compile_loop, name="engine-compile", daemon=True)
            worker.start()


def wait_for_compiles() -> None:
    """Block until every background compile has finished (before a fork, in benchmarks)."""
    while True:
        with _queue_lock:
            worker = _worker[0]
        if worker is None:
            return
        worker.join()


_tier = threading.local()  # .interpreting: interpreted programs running in this thread; .last


def _interpreted(closed: ClosedJaxpr, job):
    run = Interpreter().compile(closed, "")

    def interpreted(*args):
        _tier.interpreting = getattr(_tier, "interpreting", 0) + 1
        try:
            return run(*args)
        finally:
            _tier.interpreting -= 1

    interpreted.job = job  # type: ignore[attr-defined]
    return interpreted


def _first_tier(closed: ClosedJaxpr, name: str, args):
    """The executable of a call of a program that has none yet: the interpreter while a
    background compile is on its way (inside an interpreted program, nested programs are
    interpreted too), else a compile here."""
    if getattr(_tier, "interpreting", 0):
        return _interpreted(closed, None)
    job = _jobs.get(closed)
    if job is None:
        backend = get_backend()
        if not (
            TIERED
            and hasattr(backend, "lower_source")
            and interpret_seconds(closed.jaxpr) <= INTERPRET_MAX_SECONDS
        ):
            return executable(closed, name)
        job = _jobs[closed] = CompileJob(closed, name, args)
        _submit(job)
    elif job.done.is_set():
        return job.exe if job.exe is not None else executable(closed, name)
    return _interpreted(closed, job)


def _names_a_mesh(jaxpr: ClosedJaxpr) -> bool:
    spmd = sys.modules.get("engine.parallel.spmd")  # not imported: no reshard was ever traced
    return spmd is not None and spmd.mesh_of_jaxpr(jaxpr) is not None


@jit_p.def_impl
def _jit_impl(*args, jaxpr: ClosedJaxpr, name: str, **_):
    # Arguments sharded over a mesh run as one program per device, where their shards are.
    if any(type(a) is not Array and isinstance(a, Array) for a in args) or _names_a_mesh(jaxpr):
        from .parallel.spmd import run_sharded

        outs = run_sharded(args, jaxpr, name)
        if outs is not None:
            return outs
    values = [a._value if isinstance(a, Array) else a for a in args]
    exe = _executables.get(jaxpr)
    if exe is None:
        exe = _first_tier(jaxpr, name, values)
    outs = exe(*values)
    job = getattr(exe, "job", False)
    _tier.last = ("compiled", None) if job is False else ("interpreter", job)
    weak = [a.weak_type for a in jaxpr.out_avals]
    return [Array(o, w) for o, w in zip(outs, weak)]


jit_p.def_abstract_eval(lambda *avals, jaxpr, **_: list(jaxpr.out_avals))
jit_p.takes_arrays = True  # device-resident (sharded) arguments reach the impl as they are


def _hoist_tracer_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """Consts that are tracers of an outer transformation become explicit arguments."""
    jaxpr = closed.jaxpr
    if not any(isinstance(c, Tracer) for c in closed.consts):
        return closed, []
    keep_v, keep_c, hoist_v, hoist_c = [], [], [], []
    for v, c in zip(jaxpr.constvars, closed.consts):
        if isinstance(c, Tracer):
            hoist_v.append(v)
            hoist_c.append(c)
        else:
            keep_v.append(v)
            keep_c.append(c)
    new = Jaxpr(keep_v, hoist_v + jaxpr.in_binders, jaxpr.eqns, jaxpr.outs)
    return ClosedJaxpr(new, keep_c), hoist_c


def _closed_from(fun, avals) -> ClosedJaxpr:
    closed = trace_to_jaxpr(fun, avals)
    return closed


# --- rules of jit_p ---------------------------------------------------------------------------


def _jit_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, name, **params):
    nonzero = [type(t) is not ad.Zero for t in tangents]
    in_avals = jaxpr.in_avals
    n = len(primals)
    out_nonzero: list[bool] = []

    def f(*args):
        ps = args[:n]
        ts_it = iter(args[n:])
        ts = [next(ts_it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(nonzero, in_avals)]
        pout, tout = ad.jvp_flat(lambda *xs: eval_jaxpr(jaxpr.jaxpr, xs, jaxpr.consts), ps, ts, False)
        # Symbolically zero output tangents stay outside the call (JAX's jvp_jaxpr, instantiate=False).
        out_nonzero[:] = [type(t) is not ad.Zero for t in tout]
        return [*pout, *[t for t in tout if type(t) is not ad.Zero]]

    t_avals = [ad.tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
    closed, hoisted = _hoist_tracer_consts(trace_to_jaxpr(f, [*in_avals, *t_avals]))
    tvals = [t for t in tangents if type(t) is not ad.Zero]
    outs = jit_p.bind(*hoisted, *primals, *tvals, jaxpr=closed, name=name, **params)  # JAX keeps the name
    m = len(jaxpr.out_avals)
    t_it = iter(outs[m:])
    tout = [next(t_it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(out_nonzero, jaxpr.out_avals)]
    return outs[:m], tout


def _jit_transpose(cts, *args, jaxpr: ClosedJaxpr, name, **params):
    undef = [ad.is_undefined(a) for a in args]
    defined_avals = [core.get_aval(a) for a, u in zip(args, undef) if not u]
    cts = [ad.instantiate_zeros(c) for c in cts]
    ct_avals = [core.get_aval(c) for c in cts]
    nd = len(defined_avals)

    def f(*xs):
        defined, ct = xs[:nd], xs[nd:]
        it = iter(defined)
        full = [ad.UndefPrimal(a.aval) if u else next(it) for a, u in zip(args, undef)]
        outs = ad.backward_pass(jaxpr.jaxpr, [*jaxpr.consts, *full], list(ct))
        return [ad.instantiate_zeros(o) for o in outs]

    closed, hoisted = _hoist_tracer_consts(trace_to_jaxpr(f, [*defined_avals, *ct_avals]))
    defined_vals = [a for a, u in zip(args, undef) if not u]
    outs = jit_p.bind(*hoisted, *defined_vals, *cts, jaxpr=closed, name=name, **params)
    it = iter(outs)
    return [next(it) if u else None for u in undef]


def _jit_batch(axis_size, vals, dims, *, jaxpr: ClosedJaxpr, name, **params):
    # Keep the vmap's axis name, so collectives over it inside the jit reduce the batch axis.
    axis_name = getattr(batching.current_batch_trace(), "axis_name", None)
    batched, out_dims = batching.batch_jaxpr(jaxpr, axis_size, dims, axis_name)
    closed, hoisted = _hoist_tracer_consts(batched)
    outs = jit_p.bind(*hoisted, *vals, jaxpr=closed, name=name, **params)
    return outs, out_dims


def _jit_partial_eval(trace: ad.PartialEvalTrace, tracers, *, jaxpr: ClosedJaxpr, name, **params):
    in_unknowns = [not t.pval.is_known for t in tracers]
    j1, j2, out_unknowns, num_res = ad.partial_eval_jaxpr(jaxpr.jaxpr, in_unknowns)
    j1, j2, num_res = _prune_residuals(j1, j2, num_res)
    known_vals = [t.pval.const for t, u in zip(tracers, in_unknowns) if not u]
    j1 = dce_jaxpr(j1)
    # Residuals that are known inputs are passed on directly, not returned (JAX's forwarding).
    n_known_out = len(j1.outs) - num_res
    forwarded = {}
    if len(j1.in_binders) == len(known_vals):
        position = {v: i for i, v in enumerate(j1.in_binders)}
        forwarded = {k: position[r] for k, r in enumerate(j1.outs[n_known_out:]) if r in position}
    if forwarded:
        kept = [r for k, r in enumerate(j1.outs[n_known_out:]) if k not in forwarded]
        j1 = Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*j1.outs[:n_known_out], *kept])
    known_closed, hoisted = _hoist_tracer_consts(ClosedJaxpr(j1, jaxpr.consts))
    outs1_res = jit_p.bind(*hoisted, *known_vals, jaxpr=known_closed, name=name, **params)
    outs1, res_it = outs1_res[:n_known_out], iter(outs1_res[n_known_out:])
    res = [known_vals[forwarded[k]] if k in forwarded else next(res_it) for k in range(num_res)]
    res_tracers = [trace.instantiate_const(trace.full_raise(r)) for r in res]
    unknown_tracers = [trace.instantiate_const(t) for t, u in zip(tracers, in_unknowns) if u]
    closed2 = ClosedJaxpr(j2, [])
    outs2 = [ad.PartialEvalTracer(trace, ad.PartialVal.unknown(v.aval), None) for v in j2.outs]
    recipe = ad.JaxprEqnRecipe(
        jit_p,
        res_tracers + unknown_tracers,
        dict(jaxpr=closed2, name=name, **params),
        [v.aval for v in j2.outs],
        outs2,
        core.current_source_info(),
    )
    for t in outs2:
        t.recipe = recipe
    it1, it2 = iter(outs1), iter(outs2)
    return [next(it2) if u else next(it1) for u in out_unknowns]


def _prune_residuals(j1, j2, num_res):
    """Drop residuals the unknown side never reads (JAX DCEs the unknown jaxpr's inputs)."""
    used = {x for e in j2.eqns for x in e.inputs if type(x) is Var} | {x for x in j2.outs if type(x) is Var}
    keep = [k for k, v in enumerate(j2.in_binders[:num_res]) if v in used]
    if len(keep) == num_res:
        return j1, j2, num_res
    n_known = len(j1.outs) - num_res
    res = j1.outs[n_known:]
    j1 = Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*j1.outs[:n_known], *[res[k] for k in keep]])
    j2 = Jaxpr(j2.constvars, [*[j2.in_binders[k] for k in keep], *j2.in_binders[num_res:]], j2.eqns, j2.outs)
    return j1, j2, len(keep)


def _jit_partial_eval_jaxpr(unks_in, eqn):
    # A jit inside a jaxpr being split (the jvp of an outer jit): split its body the same way,
    # into a known jit returning residuals and an unknown jit consuming them.
    closed, params = eqn.params["jaxpr"], {k: v for k, v in eqn.params.items() if k != "jaxpr"}
    j1, j2, out_uk, num_res = ad.partial_eval_jaxpr(closed.jaxpr, list(unks_in))
    j1, j2, num_res = _prune_residuals(j1, j2, num_res)
    j1 = dce_jaxpr(j1)
    n_known_out = len(j1.outs) - num_res
    known_ins = [x for x, u in zip(eqn.inputs, unks_in) if not u]
    position = {v: i for i, v in enumerate(j1.in_binders)} if len(j1.in_binders) == len(known_ins) else {}
    res_atoms, kept = [], []
    for r in j1.outs[n_known_out:]:
        if r in position:  # a known input: passed on directly (JAX's forwarding)
            res_atoms.append(known_ins[position[r]])
        else:
            res_atoms.append(Var(r.aval))
            kept.append(r)
    j1 = Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*j1.outs[:n_known_out], *kept])
    known_outs = [v for v, u in zip(eqn.out_binders, out_uk) if not u]
    new_res = [a for a in res_atoms if type(a) is Var and a not in known_ins]
    eqn1 = JaxprEqn(
        jit_p,
        known_ins,
        dict(params, jaxpr=ClosedJaxpr(j1, closed.consts)),
        [*known_outs, *new_res],
        eqn.source_info,
    )
    eqn2 = JaxprEqn(
        jit_p,
        [*res_atoms, *[x for x, u in zip(eqn.inputs, unks_in) if u]],
        dict(params, jaxpr=ClosedJaxpr(j2, [])),
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
        eqn.source_info,
    )
    return eqn1, eqn2, out_uk, res_atoms


ad.jvp_rules[jit_p] = _jit_jvp
ad.partial_eval_jaxpr_rules[jit_p] = _jit_partial_eval_jaxpr
ad.transpose_rules[jit_p] = _jit_transpose
batching.batch_rules[jit_p] = _jit_batch
ad.partial_eval_rules[jit_p] = _jit_partial_eval
lowerings[jit_p] = Special("inline")  # its body is inlined into the caller's program


# ---------------------------------------------------------------------------------------------
# The public API.


def _abstractify(x) -> ShapedArray:
    return core.get_aval(x)


class Lowered:
    """``jit(f).lower(*args)``: the staged program before compilation."""

    def __init__(self, closed: ClosedJaxpr, name: str, out_tree):
        self.jaxpr = closed
        self.name = name
        self.out_tree = out_tree

    def as_text(self) -> str:
        """The engine's own lowered program, labelled as such (JAX returns StableHLO text here)."""
        backend = getattr(get_backend(), "name", "?")
        return (
            f"# jaxplay engine: the jaxpr jit({self.name}) compiles with its {backend} backend (not "
            f"StableHLO); .source() shows the generated code\n{self.jaxpr}"
        )

    def source(self) -> str | None:
        backend = get_backend()
        if hasattr(backend, "lower_source"):
            return backend.lower_source(self.jaxpr, self.name)
        return None

    def compile(self) -> "Compiled":
        return Compiled(executable(self.jaxpr, self.name), self)


class Compiled:
    def __init__(self, exe, lowered: Lowered):
        self.exe = exe
        self.lowered = lowered

    def as_text(self) -> str:
        text = getattr(self.exe, "compiled_text", None)
        return text() if callable(text) else (text or self.lowered.as_text())

    def __call__(self, *args):
        leaves = tree_flatten(args)[0]
        outs = jit_p.bind(*leaves, jaxpr=self.lowered.jaxpr, name=self.lowered.name)
        return tree_unflatten(self.lowered.out_tree, outs)


_FAST_SCALAR = {float: np.float32, int: np.int32}
_LEAF_TREE = tree_flatten(0)[1]


# function -> {static configuration: (staged cache, fast-path cache)}; weak, so a function's
# caches go when it does.
_caches_by_function: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _shared_caches(fun, config) -> tuple[dict, dict]:
    try:
        per_fun = _caches_by_function.setdefault(fun, {})
    except TypeError:  # not weakly referenceable: a cache of its own
        return {}, {}
    if config not in per_fun:
        # fast: signature -> (executable, out tree, weak types, single)
        per_fun[config] = ({}, {})
    return per_fun[config]


class JitFunction:
    """The callable that ``jit`` returns; caches one staged jaxpr per input signature."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), donate_argnums=(), name=None):
        self.fun = fun
        self.__wrapped__ = fun
        functools.update_wrapper(self, fun, updated=())
        sig = None
        try:
            sig = _pyinspect.signature(fun)
        except (TypeError, ValueError):
            pass
        static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums or ())
        static_argnames = (
            (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames or ())
        )
        if sig is not None:
            params = list(sig.parameters)
            # JAX infers names from numbers and numbers from names.
            static_argnames = tuple(static_argnames) + tuple(
                params[i] for i in static_argnums if 0 <= i < len(params) and params[i] not in static_argnames
            )
            static_argnums = tuple(static_argnums) + tuple(
                params.index(n)
                for n in static_argnames
                if n in params and params.index(n) not in static_argnums
            )
        self.static_argnums = tuple(sorted(set(static_argnums)))
        self.static_argnames = tuple(static_argnames)
        self.name = name or getattr(fun, "__name__", "fun")
        # One cache per function and static configuration, shared by every jit of it (as JAX keys
        # its trace cache by the function): jit(f) twice traces f once.
        self._cache, self._fast = _shared_caches(fun, (self.static_argnums, self.static_argnames))
        self.timings: dict = {}  # seconds of the last call's stages: trace, lower, compile, execute
        self._last_key = None

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def _split(self, args, kwargs):
        nargs = len(args)
        static_nums = tuple(i % nargs for i in self.static_argnums if -nargs <= i < nargs) if nargs else ()
        statics, dyn_args = [], []
        for i, a in enumerate(args):
            if i in static_nums:
                statics.append(("pos", i, a))
            else:
                dyn_args.append(a)
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in self.static_argnames:
                statics.append(("kw", k, v))
            else:
                dyn_kwargs[k] = v
        for _, _, v in statics:
            try:
                hash(v)
            except TypeError as e:
                raise ValueError(
                    f"Non-hashable static arguments are not supported. An error occurred "
                    f"while trying to hash an object of type {type(v).__name__}, {v!r}. "
                    f"The error was: {e}. Pass it as a regular (traced) argument, or make "
                    f"it a tuple."
                ) from None
        return tuple(statics), static_nums, dyn_args, dyn_kwargs

    def _stage(self, statics, static_nums, nargs, in_tree, avals):
        """Trace once; returns the closed jaxpr and output tree."""
        out_store: list = []

        def flat(*leaves):
            dyn_args, dyn_kwargs = tree_unflatten(in_tree, leaves)
            it = iter(dyn_args)
            args = []
            static_pos = {k: v for kind, k, v in statics if kind == "pos"}
            for i in range(nargs):
                args.append(static_pos[i] if i in static_pos else next(it))
            kwargs = dict(dyn_kwargs)
            kwargs.update({k: v for kind, k, v in statics if kind == "kw"})
            out = self.fun(*args, **kwargs)
            out_leaves, out_tree = tree_flatten(out)
            out_store[:] = [out_tree]
            for leaf in out_leaves:
                if not core.is_array_like(leaf):
                    raise TypeError(
                        f"jit-compiled function {self.name} returned a value of type "
                        f"{type(leaf).__name__} ({leaf!r}); outputs must be arrays, "
                        f"numbers, or pytrees of them."
                    )
            return out_leaves

        closed = trace_to_jaxpr(flat, avals)
        return closed, out_store[0]

    def _explain_miss(self, key) -> str | None:
        if not self._cache:
            return None
        prev = self._last_key
        if prev is None:
            return None
        (ps, pt, pa), (s, t, a) = prev, key
        if pt != t:
            return f"the argument structure changed: {pt} -> {t}"
        if ps != s:
            return "a static argument changed"
        diffs = [
            f"argument {i}: {x.str_short()}{'(weak)' if x.weak_type else ''} -> "
            f"{y.str_short()}{'(weak)' if y.weak_type else ''}"
            for i, (x, y) in enumerate(zip(pa, a))
            if x != y
        ]
        return "; ".join(diffs) if diffs else "new signature"

    def _fast_key(self, args):
        """Signature of positional array/number arguments in canonical dtypes, or None."""
        key: list = []
        for a in args:
            t = type(a)
            if t is Array:
                v = a._value
                key.append((v.shape, v.dtype, a.weak_type))
            elif t is np.ndarray and a.dtype not in core._CANONICAL:
                key.append((a.shape, a.dtype, False))
            elif t is float or t is int:
                key.append(t)
            else:
                return None
        return tuple(key)

    def __call__(self, *args, **kwargs):
        # Fast path (the warm-call budget): no trace active, nobody listening, positional
        # array arguments of a signature seen before -> call the compiled executable directly.
        fast = self._fast
        if (
            fast
            and not kwargs
            and len(core._state.stack) == 1
            and core._state.dynamic is None
            and not monitoring._listeners
            and not _config.values["jax_disable_jit"]
        ):
            entry = fast.get(self._fast_key(args))
            if entry is not None and entry[4] is _backend:  # (set_backend invalidates)
                exe, out_tree, weak, single, _ = entry
                t0 = time.perf_counter()
                outs = exe(
                    *[
                        a._value
                        if type(a) is Array
                        else a
                        if type(a) is np.ndarray
                        else np.asarray(a, _FAST_SCALAR[type(a)])
                        for a in args
                    ]
                )
                self.timings["execute"] = time.perf_counter() - t0
                if single:
                    return Array(outs[0], weak[0])
                return tree_unflatten(out_tree, [Array(o, w) for o, w in zip(outs, weak)])
        return self._call_slow(args, kwargs)

    def _call_slow(self, args, kwargs):
        if _config.values["jax_disable_jit"]:
            return self.fun(*args, **kwargs)
        statics, static_nums, dyn_args, dyn_kwargs = self._split(args, kwargs)
        leaves, in_tree = tree_flatten((tuple(dyn_args), dyn_kwargs))
        try:
            avals = tuple(map(_abstractify, leaves))
        except TypeError as e:
            raise TypeError(
                f"{e} (in a call to jit-compiled function {self.name}; mark non-array "
                f"arguments static with static_argnums)"
            ) from None
        key = (statics, in_tree, avals)
        entry = self._cache.get(key)
        listening = monitoring.listening()
        if entry is None:
            reason = self._explain_miss(key) if listening else None
            t0 = time.perf_counter()
            closed, out_tree = self._stage(statics, static_nums, len(args), in_tree, list(avals))
            closed, hoisted = _hoist_tracer_consts(closed)
            t_trace = time.perf_counter() - t0
            entry = (closed, out_tree, hoisted)
            if not hoisted:
                self._cache[key] = entry
            if listening:
                monitoring.emit(
                    "jit_trace",
                    name=self.name,
                    jaxpr=closed,
                    seconds=t_trace,
                    cache="miss",
                    reason=reason,
                    fun=self.fun,
                )
        elif listening:
            monitoring.emit(
                "jit_trace",
                name=self.name,
                jaxpr=entry[0],
                seconds=0.0,
                cache="hit",
                reason=None,
                fun=self.fun,
            )
        self._last_key = key
        closed, out_tree, hoisted = entry
        self.timings["trace"] = t_trace if "t_trace" in locals() else 0.0
        t0 = time.perf_counter()
        _tier.last = (None, None)  # (a staged call runs nothing: no tier)
        outs = jit_p.bind(*hoisted, *leaves, jaxpr=closed, name=self.name)
        self.timings["execute"] = time.perf_counter() - t0
        if listening:
            tier, job = _tier.last
            monitoring.emit(
                "jit_execute",
                name=self.name,
                jaxpr=closed,
                seconds=self.timings["execute"],
                tier=tier,
                job=job,
                fun=self.fun,
            )
        if not hoisted and not statics and not dyn_kwargs and not core.tracing_active():
            fkey = self._fast_key(args)
            if fkey is not None and (fkey not in self._fast or self._fast[fkey][4] is not _backend):
                exe = _executables.get(closed)
                if exe is not None:  # compiled by the call above
                    self.timings.update(
                        lower=getattr(exe, "lower_time", 0.0), compile=getattr(exe, "compile_time", 0.0)
                    )
                    single = out_tree == _LEAF_TREE
                    self._fast[fkey] = (
                        exe,
                        out_tree,
                        [a.weak_type for a in closed.out_avals],
                        single,
                        _backend,
                    )
        return tree_unflatten(out_tree, outs)

    def lower(self, *args, **kwargs) -> Lowered:
        statics, static_nums, dyn_args, dyn_kwargs = self._split(args, kwargs)
        leaves, in_tree = tree_flatten((tuple(dyn_args), dyn_kwargs))
        avals = [_abstractify(x) for x in leaves]
        closed, out_tree = self._stage(statics, static_nums, len(args), in_tree, avals)
        return Lowered(closed, self.name, out_tree)

    def trace(self, *args, **kwargs) -> Lowered:
        return self.lower(*args, **kwargs)

    def clear_cache(self):
        self._cache.clear()
        self._fast.clear()

    def __repr__(self):
        return f"<jit({self.name})>"


def jit(
    fun: Callable | None = None,
    *,
    static_argnums=(),
    static_argnames=(),
    donate_argnums=(),
    donate_argnames=(),
    keep_unused=False,
    device=None,
    backend=None,
    inline=False,
    in_shardings=None,
    out_shardings=None,
):
    """Compile ``fun``: trace it once per input signature to a jaxpr, then run that.

    >>> fast_f = jit(lambda x: x * x + x * 2.0)
    >>> fast_f(jnp.ones(3))
    Array([3., 3., 3.], dtype=float32)
    """
    if fun is None:
        return lambda f: jit(
            f,
            static_argnums=static_argnums,
            static_argnames=static_argnames,
            donate_argnums=donate_argnums,
            in_shardings=in_shardings,
            out_shardings=out_shardings,
        )
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    jitted = JitFunction(fun, static_argnums, static_argnames, donate_argnums)
    if in_shardings is not None or out_shardings is not None:
        from .parallel.spmd import with_shardings

        return with_shardings(jitted, in_shardings, out_shardings)
    return jitted


def make_jaxpr(fun: Callable, static_argnums=(), return_shape: bool = False):
    """A function that returns the jaxpr of ``fun`` at the given example arguments.

    >>> print(make_jaxpr(lambda x, y: jnp.sin(x) * 2.0 + jnp.cos(y) / 3.0 - x * y)(1.0, 2.0))
    { lambda ; a:f32[] b:f32[]. let
        c:f32[] = sin a
        d:f32[] = mul c 2.0:f32[]
        e:f32[] = cos b
        f:f32[] = div e 3.0:f32[]
        g:f32[] = add d f
        h:f32[] = mul a b
        i:f32[] = sub g h
      in (i,) }
    """
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    @functools.wraps(fun)
    def make_jaxpr_f(*args, **kwargs):
        statics = {i: a for i, a in enumerate(args) if i in static_argnums}
        dyn = [a for i, a in enumerate(args) if i not in static_argnums]
        leaves, in_tree = tree_flatten((tuple(dyn), kwargs))
        out_store: list = []

        def flat(*xs):
            d, kw = tree_unflatten(in_tree, xs)
            it = iter(d)
            full = [statics[i] if i in statics else next(it) for i in range(len(args))]
            out = fun(*full, **kw)
            out_leaves, out_tree = tree_flatten(out)
            out_store[:] = [(out_tree, out_leaves)]
            return out_leaves

        closed = trace_to_jaxpr(flat, [core.get_aval(x) for x in leaves])
        closed = ir.ClosedJaxpr(ir.drop_unused_binders(closed.jaxpr), closed.consts)
        if return_shape:
            out_tree, out_leaves = out_store[0]
            from .tree_util import tree_unflatten as unf

            shapes = unf(out_tree, [ShapeDtypeStruct(a.shape, a.dtype) for a in closed.out_avals])
            return closed, shapes
        return closed

    return make_jaxpr_f


class ShapeDtypeStruct:
    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape, self.dtype, self.weak_type = tuple(shape), np.dtype(dtype), weak_type

    def __repr__(self):
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"
