"""The numba backend: lower a closed jaxpr to Python source, compile its loop nests with numba.

The generated module has one *host* function (plain Python on numpy arrays: allocates every
output, calls kernels, runs matmuls through numpy's BLAS, calls the interpreter for primitives
without a lowering) and one numba *kernel* per fused loop nest. Fusion: consecutive elementwise
equations over the same shape and reductions of them (as the loop's tail) share one loop nest
that reads each input once and writes each escaping value once. Re-indexing and indexing ops
(broadcast, transpose, outer product, slice, gather, pad, concatenate, iota, ...) are deferred:
each consumer composes them into its own loads as index expressions, so they are never written
out on their own (a per-example gradient's transposed outer product is written once).
Kernels take a ``[lo, hi)`` range of their outer axis; large ones are split over a thread pool
(``nogil`` kernels), small ones run serially: a pool launch costs tens of microseconds, and
serial compiles are 2x faster than numba's ``parallel=True``. Identical loop nests compile once.

Kernels never allocate (outputs are numpy allocations passed in; large ones come from a per-site
pool and are reused once nothing references them, which saves the page faults of a fresh mmap),
compile with ``error_model='numpy'`` (so loops vectorize) and for C-contiguous arrays with
explicit signatures, eagerly, so compile time is measured where it happens. Loops (``while``,
``scan``, ``fori_loop``) whose bodies are scalar code, or elementwise over equal-shaped arrays,
compile whole into one kernel (the array case blocked: every iteration runs on a block of
elements in L1), and so do scans over small arrays (``numba_unrolled``: every element a scalar);
other loops run compiled bodies from a host loop. The module is written to the
disk cache directory (``ENGINE_CACHE_DIR``, else ``$XDG_CACHE_HOME/jaxplay-engine``) under a hash
of its source and the numba/numpy versions, atomically, and imported from there so that numba's
``cache=True`` works and a fresh process loads instead of compiling.

This module is the backend (loading generated modules through the disk cache, programs specialised
on input layouts); beside it: ``numba_codegen`` (the code generator), ``numba_runtime`` (what
generated code calls: argument types, thread pool, buffer pool), ``numba_loops`` (control flow),
``numba_scatter``, ``numba_cache`` (the disk cache), ``numba_shared`` (kernels compiled once for
every program whose loop nests have their text).
"""

from __future__ import annotations

import hashlib
import pathlib
import importlib.util
import os
import sys
import threading
import time
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numba as nb
import numpy as np

from .. import denormal_flags, monitoring
from ..ir import ClosedJaxpr
from . import lowering as L
from .host_lines import build_run
from .flat_program import FlatProgram
from .numba_codegen import Codegen
from . import jaxpr_wire, kernel_client, numba_libm, numba_math, numba_rt, numba_special
from .numba_cache import _write_atomic, cache_dir  # noqa: F401  (the backend and its tests use both)
from .numba_runtime import _c
from .numba_shared import SharedKernels

if TYPE_CHECKING:
    from ..jit_runtime import Executable

_RUNTIME_HASH = hashlib.sha256(
    b"".join(
        pathlib.Path(m.__file__).read_bytes() for m in (numba_rt, numba_math, numba_libm, numba_special, L)
    )
).hexdigest()[:16]


def module_key(source: str) -> str:
    """The disk cache's key of a generated module: its source and what compiles it."""
    return hashlib.sha256(
        "\n".join([source, nb.__version__, np.__version__, _RUNTIME_HASH, sys.version]).encode()
    ).hexdigest()[:32]


def _safe_name(name) -> str:
    s = str(name)
    return s if len(s) < 200 else s[:200]


def _holds_text(path: str, text: str) -> bool:
    try:
        with open(path) as f:
            return f.read() == text
    except OSError:
        return False


class NumbaBackend:
    name = "numba"
    share_kernels = True  # (``numba_shared``; the server's compile service compiles whole modules)

    def __init__(self) -> None:
        self._modules: dict[str, object] = {}
        self._lock = threading.Lock()
        self._shared = SharedKernels(module_key, _write_atomic)

    def shared_kernels(self, closed: ClosedJaxpr, name: str) -> bool:
        """Whether the server's compile service holds this program's kernels, compiled for an
        earlier run (only inside the server's sandbox; elsewhere False)."""
        from ..random_lowering import has_keys

        if has_keys(closed.jaxpr):  # (its physical program is what compiles, and is looked up then)
            return False
        return kernel_client.connected() and kernel_client.lookup(partial(jaxpr_wire.encode, closed, name))

    def lower_source(self, closed: ClosedJaxpr, name: str) -> str:
        from .. import random_lowering

        if random_lowering.has_keys(closed.jaxpr):
            try:
                closed = random_lowering.physical_program(closed)
            except NotImplementedError as e:
                return f"# runs with the interpreter: {e}\n"
            return Codegen(self, closed, _safe_name(name)).generate()
        program = self.lower_program(closed, name)
        return program.source if program is not None else ""

    def lower_program(self, closed: ClosedJaxpr, name: str, compiled: Any = None) -> Any:
        """The code generator after lowering ``closed``: its ``source``, kernel ``launches`` and
        ``flat`` equations (what ``compile`` builds, without compiling it). None for a program
        with typed keys: it is lowered as its physical program, whose equations are not these.
        ``compiled``, an executable ``compile`` made of this very program under this name for
        C-order inputs, already holds all three: it is returned instead of lowering again."""
        from .. import random_lowering

        if random_lowering.has_keys(closed.jaxpr):
            return None
        made_of = getattr(compiled, "made_of", None)
        if made_of is not None and made_of[0] is closed and made_of[1] == _safe_name(name):
            return compiled
        gen = Codegen(self, closed, _safe_name(name))
        gen.source = gen.generate()
        return gen

    def _compile_keys(self, closed: ClosedJaxpr, name: str):
        """A program with typed keys: compiled on the keys' uint32 data (``engine.random_lowering``),
        or interpreted where an operation on keys has no rule there."""
        from .. import random_lowering
        from .. import random_keys as rk
        from ..jit_runtime import Interpreter, interpreted_because

        try:
            physical = random_lowering.physical_program(closed)
        except NotImplementedError as e:
            return interpreted_because(Interpreter().compile(closed, name), str(e))
        inner = self.compile(physical, name)
        key_in = [rk.is_key_aval(a) for a in closed.in_avals]
        key_out = [rk.is_key_aval(a) for a in closed.out_avals]

        def run(*args):
            args = [rk.data_from_storage(a) if k else a for a, k in zip(args, key_in)]
            outs = inner(*args)
            return [rk.storage_from_data(o) if k else o for o, k in zip(outs, key_out)]

        run.__dict__.update(inner.__dict__)
        return run

    def _load(self, source: str, program: Callable[[], dict] | None = None):
        """The module of ``source``, and how it was found: "hit" (in memory), "disk" (numba's
        cache) or "miss" (compiled). ``program()`` describes it for the server's compile service."""
        key = module_key(source)
        mod = self._modules.get(key)
        if mod is not None:
            return mod, "hit"
        path = os.path.join(cache_dir(), f"engine_{key}.py")
        fetched, asked = None, False
        if program is not None and kernel_client.connected() and not _holds_text(path, source):
            # Asked outside the lock: the service may take seconds to compile, and a background
            # compile waiting for it with the lock held kept a call's own compile waiting too.
            _write_atomic(path, source)
            fetched, asked = kernel_client.fetch(key, path, program), True
        with self._lock:
            mod = self._modules.get(key)
            if mod is not None:
                return mod, "hit"
            # (the module as written and imported: its shareable kernels bound to shared modules)
            linked, texts, compiled = source, {}, []
            if self.share_kernels and not kernel_client.connected():
                linked, texts = self._shared.link(source)
            existed = fetched is not None if asked else _holds_text(path, linked)
            if not existed and not asked:
                _write_atomic(path, linked)
            spec = importlib.util.spec_from_file_location(f"engine_kernels_{key}", path)
            mod = importlib.util.module_from_spec(spec)
            if texts:
                mod._kernel = self._shared.loader(texts, cache_dir(), compiled)  # type: ignore[attr-defined]
            # Registered first: numba's cache records (and on load re-imports) the module by name.
            sys.modules[spec.name] = mod
            spec.loader.exec_module(mod)  # compiles (or loads from numba's cache) every kernel
            shared = self._shared.ids()
            kernels = [
                v
                for v in vars(mod).values()
                if isinstance(v, nb.core.registry.CPUDispatcher) and id(v) not in shared
            ]
            # (kernels the compile service compiled for this very request were compiled, not found;
            # shared kernels count as compiled when this load compiled them)
            loaded = (
                existed
                and fetched != "compiled"
                and not compiled
                and all(sum(k.stats.cache_hits.values()) > 0 for k in kernels)
            )
            self._modules[key] = mod
            return mod, ("disk" if loaded else "miss")

    def compile(
        self, closed: ClosedJaxpr, name: str, layouts: tuple[object, ...] | None = None
    ) -> Executable:
        from ..random_lowering import has_keys

        if has_keys(closed.jaxpr):
            return self._compile_keys(closed, name)
        t0 = time.perf_counter()
        gen = Codegen(self, closed, _safe_name(name), layouts)
        source = gen.generate()
        t1 = time.perf_counter()
        listening = monitoring.listening()
        if listening:  # now, so listeners see when lowering ended (compiling starts)
            monitoring.emit(
                "jit_lower", name=name, seconds=t1 - t0, source=source, fallbacks=list(gen.fallbacks)
            )
        t1 = time.perf_counter()
        mod, status = self._load(source, partial(jaxpr_wire.encode, closed, name, layouts))
        t2 = time.perf_counter()
        if "_relayout" in gen.env:
            variants = {}
            gen.env["_relayout"] = partial(self._relayout, closed, name, variants)
        profiled = monitoring.kernel_profiling() and bool(gen.launches or gen.host_steps)
        run = (
            _timed_build(mod, gen)
            if profiled
            else (build_run(vars(mod), gen, gen.env, False) or mod.build(gen.env))
        )
        run = _in_xla_mode(run)
        if "_relayout" in gen.env:
            variants[None] = run
            run.variants = variants
        run.source = source
        # (what ``lower_program`` would lower again: the same source, launches and equations)
        run.made_of = (closed, _safe_name(name)) if layouts is None else None
        run.fallbacks = gen.fallbacks
        # what each kernel launch computes (flat equations, and where they sit in ``closed``)
        run.launches, run.flat = gen.launches, gen.flat
        run.launch_seconds = gen.env.get("_launch_seconds") if profiled else None
        run.launch_counts = gen.env.get("_launch_counts") if profiled else None
        run.launch_min = gen.env.get("_launch_min") if profiled else None
        run.host_steps = gen.host_steps
        run.host_seconds = gen.env.get("_host_seconds") if profiled else None
        run.host_counts = gen.env.get("_host_counts") if profiled else None
        run.host_min = gen.env.get("_host_min") if profiled else None
        run.cache = status
        run.lower_time, run.backend_compile_time = t1 - t0, t2 - t1
        run.compiled_text = partial(_compiled_text, mod)
        run.module = mod
        if listening:
            monitoring.emit("jit_compile", name=name, seconds=t2 - t1, cache=status)
        return run

    def _relayout(self, closed: ClosedJaxpr, name: str, variants: dict, *args):
        """Run a program on inputs that are not all C-contiguous: through the contiguous program
        when that is exact (an elementwise program on inputs transposed alike: the outputs come
        back transposed alike), else through a program compiled for the inputs' layouts."""
        # (the program fixes shapes and dtypes: strides tell the layouts, and are cheap to key on)
        strides = tuple([getattr(x, "strides", None) for x in args])
        run = variants.get(strides)
        if run is None:
            layouts = tuple(layout_of(x, a) for x, a in zip(args, closed.in_avals))
            run = variants.get(layouts)
            if run is None:
                run = variants[layouts] = self._variant(closed, name, variants, layouts)
            variants[strides] = run
        return run(*args)

    def _variant(self, closed: ClosedJaxpr, name: str, variants: dict, layouts: tuple):
        if all(lay is None for lay in layouts):
            return partial(_contiguous_call, variants[None])
        perm = _common_transpose(layouts, closed.in_avals)
        if perm is not None and _elementwise_shape(closed):
            return partial(_transposed_call, variants[None], perm)
        return self.compile(closed, name, layouts)

    def specialise(
        self, run: Executable, closed: ClosedJaxpr, name: str, args: Sequence[object] | None
    ) -> None:
        """Compile ahead the program for the layouts of ``args`` (a call's arguments), if they are
        not all C-contiguous (a background compile does, so the next call finds it ready)."""
        variants = getattr(run, "variants", None)
        if variants is None or all(type(x) is not np.ndarray or x.flags.c_contiguous for x in args):
            return
        layouts = tuple(layout_of(x, a) for x, a in zip(args, closed.in_avals))
        if layouts not in variants:
            variants[layouts] = self._variant(closed, name, variants, layouts)


def _in_xla_mode(host: Callable) -> Callable:
    """The program's host function run with XLA's floating-point mode (denormals read and written as
    zero: ``denormal_flags``), in this thread; the kernel pool's threads have it for good."""

    def run(*args):
        return denormal_flags.call(host, args)

    return run


def _timed_build(mod, gen: Codegen):
    """The module's host function, timing each kernel launch and host step (the kernels are the
    module's own, already compiled): the host code is plain Python, so only it is built again."""
    n = len(gen.launches)
    env = {
        **gen.env,
        "_launch_seconds": [0.0] * n,
        "_launch_counts": [0] * n,
        "_launch_min": [float("inf")] * n,
        "_host_seconds": [0.0] * len(gen.host_steps),
        "_host_counts": [0] * len(gen.host_steps),
        "_host_min": [float("inf")] * len(gen.host_steps),
    }
    gen.env.update(env)
    namespace = {**vars(mod), "_pc": time.perf_counter}
    run = build_run(namespace, gen, env, True)
    if run is not None:
        return run
    exec("\n".join(gen.build_lines(timed=True)), namespace)  # noqa: S102 - our own generated code
    return namespace["build"](env)


def layout_of(x, aval) -> tuple | None:
    """How a non-C-contiguous input is laid out, for a program specialised on it, or None (the
    input is copied to C order): ``("b", kept axes)`` a broadcast (stride 0 on the other axes),
    ``("t", perm)`` a transpose of a C-contiguous array, ``("s", strides)`` positive strides (in
    elements), ``("a",)`` other strides."""
    if type(x) is not np.ndarray or x.flags.c_contiguous or x.size == 0:
        return None
    if x.dtype != aval.dtype or x.shape != aval.shape or not L.supported(x.dtype) or x.ndim == 0:
        return None
    st, sh = x.strides, x.shape
    if 0 in st:
        return ("b", tuple(d for d in range(x.ndim) if st[d] != 0 and sh[d] != 1))
    perm = tuple(sorted(range(x.ndim), key=lambda d: (-abs(st[d]), d)))
    if np.transpose(x, perm).flags.c_contiguous:
        return ("t", perm)
    size = x.itemsize
    if all(st > 0 and st % size == 0 for st in x.strides):
        return ("s", tuple(st // size for st in x.strides))
    return ("a",)


def _elementwise_shape(closed: ClosedJaxpr):
    """The one shape of an elementwise program (every equation a scalar lowering, every value of
    that shape or 0-d), else None. Such a program computes the same elements whatever order they
    are laid out in, so a transposed input can run through the contiguous program as it is."""
    flat = FlatProgram(closed)
    shapes = {v.aval.shape for v in flat.inputs} | {x.aval.shape for x in flat.outs}
    for eqn in flat.eqns:
        rule = L.lowerings.get(eqn.primitive)
        if getattr(rule, "kind", None) != "scalar" or eqn.primitive.multiple_results:
            return None
        shapes |= {x.aval.shape for x in [*eqn.inputs, *eqn.out_binders]}
    shapes.discard(())
    return shapes.pop() if len(shapes) == 1 and not flat.consts else None


def _contiguous_call(run, *args):
    return run(*[_c(x) for x in args])


def _common_transpose(layouts, avals):
    """The permutation every array input is transposed by, if they share one (0-d ones aside)."""
    perms = {
        lay[1] if lay is not None and lay[0] == "t" else None for lay, a in zip(layouts, avals) if a.ndim
    }
    return perms.pop() if len(perms) == 1 and None not in perms else None


def _transposed_call(run, perm, *args):
    # Each input's C-contiguous base, reinterpreted in the program's shape (no copy); the
    # outputs, reinterpreted back and transposed, are views laid out as the inputs were.
    inv = tuple(np.argsort(perm))
    ins = [np.transpose(x, perm).reshape(x.shape) if x.ndim else x for x in args]
    outs = run(*ins)
    return [np.transpose(o.reshape(tuple(o.shape[p] for p in perm)), inv) if o.ndim else o for o in outs]


def _compiled_text(mod, kind="llvm") -> str:
    parts = []
    for name, k in vars(mod).items():
        if not isinstance(k, nb.core.registry.CPUDispatcher):
            continue
        for sig in k.signatures:
            try:
                text = k.inspect_llvm(sig) if kind == "llvm" else k.inspect_asm(sig)
            except Exception:  # cached libraries may not keep their IR
                try:
                    text = k.inspect_asm(sig)
                except Exception as e:
                    text = f"; {type(e).__name__}: compiled code not available ({e})"
            parts.append(f"; ---- kernel {name}{sig}\n{text}")
    return "\n".join(parts) if parts else "; no kernels: the program is host calls only"
