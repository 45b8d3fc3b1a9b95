"""Compile the gallery's kernels before serving, so runs forked from a zygote find them ready.

A run is a fresh fork of a zygote, so kernels compiled in one run are lost with it. The zygote runs
each gallery example once before it forks anything: the numba backend keeps the loaded kernel
modules in memory (keyed by their source), every run inherits them, and a run of an example (or of
code that lowers to the same kernels) skips compilation. The kernels also land in the engine's
disk cache, so the next start (and `make install`, which calls this module) loads instead of
compiling. pmap examples are skipped: they would start device processes in the zygote (those an
example starts anyway, sharding over a mesh, are stopped afterwards).

    python -m server.warmup      # fills the disk cache; prints what it did
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from .sandbox.child import Runner

log = logging.getLogger("jaxplay.warmup")


def warm(runner: Optional[Runner] = None) -> list[tuple[str, float, bool]]:
    """Run every non-pmap gallery example once, and compile the eager array kernels; returns
    (id, seconds, ok) per step."""
    if runner is None:
        from engine.inspect.run import run_request

        runner = run_request
    from engine import jit_runtime

    done: list[tuple[str, float, bool]] = []
    jit_runtime.compile_dead_programs = True
    try:
        _warm_each(runner, done)
        _warm_array_kernels(done)
    finally:
        jit_runtime.compile_dead_programs = False
    _stop_kernel_threads()
    _stop_device_processes()
    return done


def _warm_each(runner: Runner, done: list[tuple[str, float, bool]]) -> None:
    from engine.inspect.schema import RunRequest

    from .examples import EXAMPLES

    for ex in EXAMPLES:
        if "pmap" in ex.code:
            continue
        request = RunRequest(code=ex.code, function=ex.function, stack=ex.stack, args=ex.args)
        t0 = time.perf_counter()
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                report = runner(request)
            ok = bool(getattr(report, "ok", False))
        except Exception as e:  # noqa: BLE001 - warming is best effort; runs still work cold
            log.warning("warm-up of %s failed: %s", ex.id, e)
            ok = False
        done.append((ex.id, time.perf_counter() - t0, ok))


def _warm_array_kernels(done: list[tuple[str, float, bool]]) -> None:
    """Compile the numba loops eager float32 exp/log/tanh/sin/... run in (``engine/lax/xla_f32.py``,
    ``libm_f32.py``, ``xla_rsqrt.py``) and float32 dots in (``lax/dot_order.py``): a run's first ``jnp.exp`` or
    matmul would otherwise compile them, seconds in a fresh cache."""
    try:
        import numpy as np

        from engine.backends import numba_libm, numba_math
    except ImportError:  # (no numba: eager evaluation takes the numpy steps)
        return
    t0 = time.perf_counter()
    one = np.zeros(1, np.float32)
    for name in numba_math.ARRAY_KERNELS:
        numba_math.apply(name, one)
    numba_libm.apply(numba_libm.UNARY[0], one)
    numba_libm.apply(numba_libm.BINARY[0], one, one)
    from engine.lax.dot_order import xla_dot  # (its numba loops: matmul, GEMV, the vector dot)

    for m, k, n in ((9, 9, 9), (9, 9, 1), (1, 40, 1)):
        xla_dot(np.ones((1, m, k), np.float32), np.ones((1, k, n), np.float32))
    from engine.lax import conv_order  # (the GEMV of convolutions with one output feature)

    conv_order.contract(np.ones((1, 9, 9), np.float32), np.ones((1, 9, 1), np.float32), 1)
    from engine.backends import numba_rsqrt  # (rsqrt's estimate and Newton steps, both widths)

    numba_rsqrt.rsqrt_array(one)
    numba_rsqrt.rsqrt_array(one.astype(np.float64))
    from engine.backends import numba_sum  # (the in-order sums of products: jnp.var, layer norms)

    numba_sum.fma_in_order(np.ones((2, 9), np.float32), np.ones((2, 9), np.float32), None, True)
    done.append(("eager float32 kernels", time.perf_counter() - t0, True))


def _stop_device_processes() -> None:
    """mesh-shard-map starts pmap's device pool. A run cannot use its zygote's (it forks its own),
    so the pool's processes would only sit idle beside the zygote for its lifetime (8 a zygote),
    and its arenas would be inherited by every run. (No BLAS threads given back: that could start
    a thread pool, and a zygote forks single-threaded.)"""
    runtime: Any = sys.modules.get("engine.parallel.runtime")
    if runtime is not None:
        runtime.shutdown(restore_blas=False)


def _stop_kernel_threads() -> None:
    """Large kernels run on a thread pool, and first calls compile on a background thread; a
    zygote must be single-threaded when it forks (and its runs inherit the finished kernels)."""
    jit_mod: Any = sys.modules.get("engine.jit")
    if jit_mod is not None and hasattr(jit_mod, "wait_for_compiles"):
        jit_mod.wait_for_compiles()
    runtime: Any = sys.modules.get("engine.backends.numba_runtime")
    pool = getattr(runtime, "_pool", None)
    if runtime is not None and pool is not None:
        pool.shutdown(wait=True)
        runtime._pool = None
    for t in threading.enumerate():
        if t is not threading.main_thread() and t.name.startswith("engine-kernel"):
            t.join(timeout=1.0)


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    results = warm()
    from .sandbox import kernel_cache

    from engine.backends.numba_cache import cache_dir

    # Vouch for what was just compiled here (the image build): zygotes load nothing else.
    paths = [cache_dir()]
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir and not os.path.realpath(numba_dir).startswith(os.path.realpath(paths[0]) + os.sep):
        paths.append(numba_dir)
    for path in paths:
        print(f"kernel cache {path}: sealed {kernel_cache.seal(path)} files")
    for example_id, seconds, ok in results:
        print(f"warm-up {example_id:24s} {seconds * 1000:8.0f} ms {'ok' if ok else 'FAILED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
