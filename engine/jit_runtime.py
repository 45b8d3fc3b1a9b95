"""How staged programs run: the backends (numba where it imports, else the numpy interpreter), one
executable per closed jaxpr, and tiers (a first call is interpreted while numba compiles in the
background).

A backend compiles a closed jaxpr to ``callable(*numpy_args) -> list[numpy]``. ``engine.jit`` is
the public module (it re-exports ``get_backend``, ``set_backend``, ``wait_for_compiles``, ...).
"""

from __future__ import annotations

import collections
import contextlib
import math
import os
import sys
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np

from . import (
    algebraic_simplifier,
    compile_log,
    constant_folding,
    core,
    denormal_flags,
    effect_schedule,
    fused_rules,
    monitoring,
    narrow_dtypes,
)
from .ir import ClosedJaxpr, Jaxpr, check_lowerable, eval_jaxpr, has_ref_effects, subjaxprs

if TYPE_CHECKING:
    from .backends import numba_jit

# A compiled program: exe(*numpy args) -> list of numpy results. Backends note facts on the
# function object itself (compile_time, source, fallbacks; a tier's job), read with getattr.
Executable = Callable[..., list[np.ndarray]]


class Interpreter:
    name = "interpreter"

    def compile(self, closed: ClosedJaxpr, name: str) -> Executable:
        # Unused pure work is dropped, as XLA drops it (an unused jax.pure_callback never runs), and
        # the multiply-adds its compiler fuses are fused, as in compiled kernels.
        program = fused_rules.compiled(closed)

        def run(*args: Any) -> list[np.ndarray]:
            # (in XLA's DAZ/FTZ mode, as the compiled kernels run: see denormal_flags)
            outs = denormal_flags.call(
                eval_jaxpr,
                (
                    program.jaxpr,
                    [core.array_of(core.host_copy(a)) if isinstance(a, np.ndarray) else a for a in args],
                    program.consts,
                ),
            )
            return [core.to_numpy(o) for o in outs]

        run.source = None  # type: ignore[attr-defined]  # notes on the function (see Executable)
        run.fallbacks = []  # type: ignore[attr-defined]
        return run


_backend: Interpreter | numba_jit.NumbaBackend | None = None
_executables: "weakref.WeakKeyDictionary[ClosedJaxpr, Executable]" = weakref.WeakKeyDictionary()


def get_backend() -> Interpreter | numba_jit.NumbaBackend:
    """The numba backend when numba imports, else the interpreter (e.g. under Pyodide)."""
    global _backend
    if _backend is None:
        try:
            from .backends import numba_jit

            _backend = numba_jit.NumbaBackend()
        except ImportError:
            _backend = Interpreter()
    return _backend


def set_backend(backend: Interpreter | numba_jit.NumbaBackend | None) -> None:
    global _backend
    _backend = backend
    _executables.clear()


def with_lowerings(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with each equation that has a registered lowering rule (``jax.interpreters.mlir``)
    replaced by its lowering; the same object while no rule or extension primitive exists."""
    lowering = sys.modules.get("engine.extend.mlir.lowering")
    return closed if lowering is None else lowering.expand(closed)


def compiled_form(closed: ClosedJaxpr) -> ClosedJaxpr:
    """The program a backend runs for ``closed``: its lowering rules expanded, then XLA's algebraic
    simplifications that show in values (``engine.algebraic_simplifier``), then what XLA computes
    from constants while compiling (``engine.constant_folding``), as JAX's jit runs them."""
    old = denormal_flags.enter_plain()  # (XLA's compiler folds without its kernels' DAZ/FTZ)
    try:
        form = with_lowerings(closed)
        for _ in range(3):  # (to a fixed point, as XLA's passes: dropping dead work can give a
            # value one use, which a rewrite wants; so the executable of a compiled form is its own)
            simplified = effect_schedule.schedule(constant_folding.fold(algebraic_simplifier.simplify(form)))
            if simplified is form:
                break
            form = simplified
        return form
    finally:
        denormal_flags.leave_plain(old)


def direct_executable(closed: ClosedJaxpr) -> Executable | None:
    """What a warm call of ``closed`` may run directly (jit's fast path): the executable of its
    compiled form (kept by that program, which the simplifier may have rewritten); None while there
    is none, and for a program naming a mesh (it runs one program per device: ``run_sharded``)."""
    compiled = compiled_form(closed)
    part = sys.modules.get("engine.parallel.partition")  # (not imported: no mesh was ever traced)
    if part is not None and part.mesh_of_jaxpr(compiled) is not None:
        return None
    return _executables.get(compiled)


def interpreted_only(closed: ClosedJaxpr) -> bool:
    """Programs with effects on mutable array refs: compiled code is functional and never sees a
    ``Ref``, so they run discharged (``_stateful``) or on the interpreter."""
    j = closed.jaxpr
    return has_ref_effects(j) or any(
        not isinstance(v.aval, core.ShapedArray) for v in (*j.constvars, *j.in_binders)
    )


def uses_narrow_dtypes(jaxpr: Jaxpr) -> bool:
    """Whether a program computes with bfloat16, float8, int4 and the like. numba has none of them,
    so such programs run on the interpreter, which computes them as XLA's CPU backend does
    (``engine/narrow_dtypes.py``: float32 inside each operation, rounded at its end)."""
    for v in (*jaxpr.constvars, *jaxpr.in_binders):
        if narrow_dtypes.is_narrow(v.aval.dtype):
            return True
    for eqn in jaxpr.eqns:
        if any(narrow_dtypes.is_narrow(v.aval.dtype) for v in eqn.out_binders):
            return True
        if any(uses_narrow_dtypes(sub) for sub in subjaxprs(eqn)):
            return True
    return False


def interpreted_because(exe: Executable, reason: str) -> Executable:
    """Note on ``exe`` that the interpreter runs its whole program though a compiler is there, and
    why: as ``why_interpreted`` and as the first of its ``fallbacks``, which the run report lists
    under the jit call (``engine.inspect``) and ``jax.log_compiles`` logs. No program leaves the
    compiler unnoticed (tests/test_jit_fallbacks.py runs the corpora to check it)."""
    exe.why_interpreted = reason  # type: ignore[attr-defined]  # a note (see Executable)
    exe.fallbacks = [f"interpreter: {reason}", *getattr(exe, "fallbacks", [])]  # type: ignore[attr-defined]
    return exe


def not_compiled(exe: Executable) -> list[str]:
    """What of ``exe``'s program does not run as compiled code: the interpreter's reason for the
    whole program, or the equations its host runs through their rules (``fallbacks``). [] for a
    compiled program, and for the interpreter backend's (numba absent: nothing is compiled)."""
    return [str(f) for f in getattr(exe, "fallbacks", None) or []]


def _narrow_interpreted(closed: ClosedJaxpr, name: str) -> Executable:
    from .excess_precision import keep_excess_precision

    exe = _executables[closed] = _interpreted(keep_excess_precision(closed), None)
    interpreted_because(exe, "narrow dtypes (bfloat16, float8, int4...): numba has none")
    compile_log.on_compiled(name, not_compiled(exe))
    return exe


# program with refs -> its discharged form and which arguments are refs (None: interpreted)
_discharged: "weakref.WeakKeyDictionary[ClosedJaxpr, Any]" = weakref.WeakKeyDictionary()


def _stateful(closed: ClosedJaxpr, name: str, args: Sequence[object] | None) -> Executable:
    """A program with refs runs as its discharged (pure) form, compiled and tiered like any other
    program, writing the refs' final values into their buffers in place; where state stays
    (a ref inside a body that is not discharged) the interpreter runs it as it is."""
    from .state import discharge

    if closed not in _discharged:
        _discharged[closed] = discharge.discharge_program(closed)
    found = _discharged[closed]
    # (a program that is not ref-free once discharged, e.g. one taking tokens, is interpreted: its
    # discharged form would come back here)
    if found is None or interpreted_only(found[0]):
        exe = _executables[closed] = interpreted_because(
            Interpreter().compile(closed, name),
            "refs the discharge keeps (state inside a body it does not discharge, or tokens): "
            "compiled code never sees a Ref",
        )
        compile_log.on_compiled(name, not_compiled(exe))
        return exe
    functional, mask = found
    functional = compiled_form(functional)  # (what its executable is kept by: the discharge may simplify)
    inner = _executables.get(functional)
    if inner is None:
        if args is None:
            inner = executable(functional, name)
        else:
            inner = _first_tier(functional, name, discharge.ref_buffers(args, mask))
    exe = discharge.in_place(inner, mask)
    if _executables.get(functional) is inner:
        _executables[closed] = exe
    return exe


def result_weak_types(traced: ClosedJaxpr, compiled: ClosedJaxpr) -> list[bool]:
    """The weak types of a program's results as JAX's jit gives them: the traced program's, but for
    a program with state those of its discharged form (a ref read after a write holds the written,
    strongly typed value, whatever the ref's type says)."""
    weak = [a.weak_type for a in traced.out_avals]
    found = _discharged.get(compiled) if has_ref_effects(traced.jaxpr) else None
    if found is not None:
        weak = [a.weak_type for a in found[0].out_avals[: len(weak)]]
    return weak


def executable(closed: ClosedJaxpr, name: str) -> Executable:
    closed = compiled_form(closed)
    exe = _executables.get(closed)
    if exe is None and uses_narrow_dtypes(closed.jaxpr):
        check_lowerable(closed.jaxpr)
        return _narrow_interpreted(closed, name)
    if exe is None and interpreted_only(closed):
        check_lowerable(closed.jaxpr)
        return _stateful(closed, name, None)
    if exe is None:
        check_lowerable(closed.jaxpr)
        job = _jobs.get(closed)
        if job is not None and job.done.wait() and job.exe is not None:
            return job.exe
        t0 = time.perf_counter()
        exe = get_backend().compile(closed, name)
        exe.compile_time = time.perf_counter() - t0  # type: ignore[attr-defined]  # a note (see Executable)
        _executables[closed] = exe
        compile_log.on_compiled(name, not_compiled(exe))
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
        elif name == "reduce":  # (a general reduce: its computation once per reduced element, on whole rows)
            x = eqn.inputs[0].aval
            count = math.prod(x.shape[d] for d in eqn.params["dimensions"])
            rows = x.size // max(count, 1)
            total += count * (interpret_seconds(subs[0]) + _ELEMENT_SECONDS * rows * len(subs[0].eqns))
        elif subs:
            total += sum(interpret_seconds(j) for j in subs)
        else:
            total += _EQN_SECONDS + _ELEMENT_SECONDS * sum(v.aval.size for v in eqn.out_binders)
    return total


# Set while a server warms its kernel cache: every queued program is compiled, even one whose
# caller is gone (the gallery's ``jit(lambda ...)(x)`` dies at once, yet runs will call its twin).
compile_dead_programs = False


class CompileJob:
    """One program compiling on the background thread: timestamps (``time.perf_counter``) of
    when it was queued, started and ready, and its executable (or error) once ``done``."""

    def __init__(self, closed: ClosedJaxpr, name: str, args: Sequence[object] | None):
        # Held weakly: a program no one can call again by the time its turn comes (its ``jit``
        # function or its caller's trace is gone) is not compiled. A session that calls many
        # programs once (a notebook, the test suite) queued hundreds of compiles nobody awaited
        # but ``wait_for_compiles`` and every call that shared the GIL with them.
        self.closed = weakref.ref(closed)
        self.kept = closed if compile_dead_programs else None  # (held strongly until it ran)
        self.skipped = False  # (its program had died when its turn came: nothing was compiled)
        self.name = name
        self.layout_args = args  # a call's arguments: specialise on their layouts too
        self.queued = time.perf_counter()
        self.started: float = 0.0
        self.ready: float = 0.0
        self.exe: Executable | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()

    def run(self) -> None:
        self.started = time.perf_counter()
        closed = self.closed()
        if closed is None:
            self.skipped = True
            self.ready = self.started
            self.layout_args = self.kept = None
            self.done.set()
            return
        try:
            with monitoring.quiet():
                backend = get_backend()
                exe = backend.compile(closed, self.name)
                exe.compile_time = time.perf_counter() - self.started  # type: ignore[attr-defined]  # a note
                specialise = getattr(backend, "specialise", None)
                if specialise is not None:
                    specialise(exe, closed, self.name, self.layout_args)
            _executables[closed] = exe
            self.exe = exe
            compile_log.on_compiled(self.name, not_compiled(exe))
        except BaseException as e:  # noqa: BLE001 - the next call compiles in the foreground and raises it
            self.error = e
        finally:
            self.ready = time.perf_counter()
            self.layout_args = self.kept = None  # (the job must not keep its program alive)
            self.done.set()


_jobs: "weakref.WeakKeyDictionary[ClosedJaxpr, CompileJob]" = weakref.WeakKeyDictionary()
_queue: collections.deque[CompileJob] = collections.deque()
_queue_lock = threading.Lock()
_worker: list[threading.Thread | None] = [None]  # the compile thread while it has work (it ends
#                                                   when the queue is empty)


# Held while a job compiles. A fork made while it is held would leave the child numba's compiler
# lock held by a thread that is not there: forks of processes that go on compiling (pmap's
# devices) happen inside ``compiles_paused()``. Children drop the queue (the thread did not come
# along) and forget unfinished jobs, so their own calls start new ones.
_compile_lock = threading.Lock()


def _compile_loop() -> None:
    while True:
        with _queue_lock:
            if not _queue:
                _worker[0] = None
                return
            job = _queue.popleft()
        with _compile_lock:
            if "numba" in sys.modules:  # (its warning contexts raced the user's: numba_warnings)
                from .backends import numba_warnings

                numba_warnings.install()
            job.run()


@contextlib.contextmanager
def compiles_paused() -> Iterator[None]:
    """No background compile runs in the block (it waits for the one in progress to finish)."""
    with _compile_lock:
        yield


def _after_fork_in_child() -> None:
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


def _interpreted(closed: ClosedJaxpr, job: CompileJob | None) -> Executable:
    run = Interpreter().compile(closed, "")

    def interpreted(*args: Any) -> list[np.ndarray]:
        _tier.interpreting = getattr(_tier, "interpreting", 0) + 1
        try:
            return run(*args)
        finally:
            _tier.interpreting -= 1

    interpreted.job = job  # type: ignore[attr-defined]  # a note on the function (see Executable)
    return interpreted


def _first_tier(closed: ClosedJaxpr, name: str, args: Sequence[object]) -> Executable:
    """The executable of a call of a program that has none yet: the interpreter while a
    background compile is on its way (inside an interpreted program, nested programs are
    interpreted too), else a compile here."""
    if getattr(_tier, "interpreting", 0):
        return _interpreted(closed, None)
    check_lowerable(closed.jaxpr)
    if uses_narrow_dtypes(closed.jaxpr):
        return _narrow_interpreted(closed, name)
    if interpreted_only(closed):
        return _stateful(closed, name, args)
    job = _jobs.get(closed)
    if job is None:
        backend = get_backend()
        shared = getattr(backend, "shared_kernels", None)
        if shared is not None and shared(closed, name):
            return executable(closed, name)  # compiled for an earlier run: loaded, not compiled
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
