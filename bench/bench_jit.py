"""jit benchmarks from issue 3: fused elementwise, transcendental chain, per-example MLP
gradients, warm-call overhead, cold and cached first calls. ``main()`` prints one table.

Each row: the engine's time, numpy eager's (or the floor named in the row), JAX jit's when jax is
importable, and the ratios. Run with ``python -m bench.bench_jit`` (or ``make bench``).
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from functools import partial

os.environ.setdefault("NUMBA_THREADING_LAYER", "workqueue")

import numpy as np  # noqa: E402

from bench.timing import Timing, interleaved, timeit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _jax():
    try:
        import jax  # noqa: F401
        import jax.numpy as jjnp  # noqa: F401

        return jax
    except ImportError:
        return None


_REF = None  # JAX in the side venv (bench.jaxref.JaxRef) when it is not importable here


def _remote(factory: str, *, seconds: float = 1.0, number: int = 1, **kwargs):
    """Median seconds per call of ``bench.cases.<factory>`` run by the side venv's JAX, or None."""
    if _REF is None:
        return None
    key = f"{factory}{sorted(kwargs.items())}"
    _REF.build(key, "bench.cases", factory, **kwargs)
    return float(np.median(_REF.time(key, seconds, number)))


def _kept(fn, n=1):
    """``fn`` with its last ``n`` results kept alive until the next call returns. ``n=1`` is
    ``y = f(x)`` in a loop: the result of two calls back is free, and the engine's buffer pool
    (like XLA's allocator) hands its buffer back. ``n=3`` defeats that: every call writes a
    fresh allocation, as numpy always pays."""
    last: list = []

    def call():
        last.append(fn())
        del last[:-n]

    return call


def fusion_rows(jax_ref):
    """Each workload three ways, engine and numpy timed in alternating rounds: its result dropped
    at once (the engine's pool hands the same output buffer back: the best case), kept as
    ``y = f(x)`` keeps it, and with every output fresh (page-faulted on first touch)."""
    import engine as ej
    import engine.numpy as jnp

    x_np = np.random.default_rng(0).normal(size=(5000, 5000)).astype(np.float32)
    x = jnp.asarray(x_np)
    out = np.empty_like(x_np)
    floor = timeit(lambda: np.copyto(out, x_np))
    jn = jax_ref.numpy if jax_ref is not None else None
    xj = jn.asarray(x_np) if jn is not None else None
    workloads = [
        (
            "x*x + x*2.0  f32[5000,5000]",
            lambda m: lambda x: x * x + x * 2.0,
            lambda: x_np * x_np + x_np * np.float32(2.0),
            dict(factory="fusion", layout="contiguous"),
        ),
        (
            "tanh(x)*exp(-x*x)+sin(x)/2",
            lambda m: lambda x: m.tanh(x) * m.exp(-x * x) + m.sin(x) / 2,
            lambda: np.tanh(x_np) * np.exp(-x_np * x_np) + np.sin(x_np) / np.float32(2),
            dict(factory="jit_chain"),
        ),
    ]
    hows = (("result dropped", lambda fn: fn), ("result kept", _kept), ("fresh output", partial(_kept, n=3)))
    rows = []
    for name, make, np_fn, remote in workloads:
        f = ej.jit(make(jnp))
        f(x)
        jf = jax_ref.jit(make(jn)) if jax_ref is not None else None
        fns = {"numpy": np_fn}
        for how, wrap in hows:
            fns[f"engine {how}"] = wrap(lambda f=f: f(x))
            if jf is not None:
                fns[f"jax {how}"] = wrap(lambda jf=jf: jf(xj).block_until_ready())
        t = interleaved(fns, rounds=5, budget=0.3)
        for how, _ in hows:
            t_jax = t.get(f"jax {how}")
            if t_jax is None and how == "result dropped":  # the side venv's JAX drops its results
                t_jax = _remote(**remote)
            rows.append((f"{name} ({how})", t[f"engine {how}"], t["numpy"], t_jax, floor))
    return rows


def mlp_row(jax_ref):
    import engine as ej
    import engine.numpy as jnp

    rng = np.random.default_rng(0)
    sizes = [784, 512, 256, 10]
    params_np = [
        (rng.normal(size=(m, n)).astype(np.float32) / np.sqrt(m), np.zeros(n, np.float32))
        for m, n in zip(sizes[:-1], sizes[1:])
    ]
    xb = rng.normal(size=(128, 784)).astype(np.float32)
    yb = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 128)]

    def make(np_mod, tanh):
        def loss(params, x, y):
            h = x
            for w, b in params[:-1]:
                h = tanh(np_mod.dot(h, w) + b)
            w, b = params[-1]
            out = np_mod.dot(h, w) + b
            return np_mod.sum((out - y) ** 2)

        return loss

    loss = make(jnp, jnp.tanh)
    params = [(jnp.asarray(w), jnp.asarray(b)) for w, b in params_np]
    f = ej.jit(ej.vmap(ej.grad(loss), in_axes=(None, 0, 0)))
    f(params, jnp.asarray(xb), jnp.asarray(yb))
    xe, ye = jnp.asarray(xb), jnp.asarray(yb)
    t_eng = timeit(lambda: f(params, xe, ye), repeat=3)

    # numpy reference: the same per-example gradients, written by hand with batched einsums.
    def np_grads():
        hs, h = [xb], xb
        for w, b in params_np[:-1]:
            h = np.tanh(h @ w + b)
            hs.append(h)
        w, b = params_np[-1]
        d = 2 * (h @ w + b - yb)
        grads = []
        for i in range(len(params_np) - 1, -1, -1):
            w = params_np[i][0]
            grads.append((np.einsum("bi,bj->bij", hs[i], d), d))
            if i:
                d = (d @ w.T) * (1 - hs[i] ** 2)
        return grads

    t_np = timeit(np_grads, repeat=3)
    t_jax = None
    if jax_ref is not None:
        jn = jax_ref.numpy
        jl = make(jn, jn.tanh)
        jp = [(jn.asarray(w), jn.asarray(b)) for w, b in params_np]
        jf = jax_ref.jit(jax_ref.vmap(jax_ref.grad(jl), in_axes=(None, 0, 0)))
        xj, yj = jn.asarray(xb), jn.asarray(yb)
        t_jax = timeit(lambda: jax_ref.block_until_ready(jf(jp, xj, yj)), repeat=3)
    else:
        t_jax = _remote("mlp_grads", seconds=2.0)
    return ("per-example grads MLP 784-512-256-10 b128", t_eng, t_np, t_jax, None)


def warm_row(jax_ref):
    import engine as ej
    import engine.numpy as jnp

    x = jnp.ones(10)
    f = ej.jit(lambda x: x * x + x * 2.0)
    f(x)
    importlib.import_module("engine.jit").wait_for_compiles()  # (the first call ran interpreted)
    t_eng = timeit(lambda: f(x), repeat=5, number=2000)
    x_np = np.ones(10, np.float32)
    t_np = timeit(lambda: x_np * x_np + x_np * np.float32(2.0), repeat=5, number=2000)
    t_jax = None
    if jax_ref is not None:
        jf = jax_ref.jit(lambda x: x * x + x * 2.0)
        xj = jax_ref.numpy.ones(10)
        t_jax = timeit(lambda: jf(xj).block_until_ready(), repeat=5, number=2000)
    else:
        t_jax = _remote("warm_call", number=2000)
    return ("warm call, 10 floats", t_eng, t_np, t_jax, None)


# A materialized input (jnp.ones is a lazy broadcast whose first use copies 100 MB).
COLD = textwrap.dedent("""
    import os, time
    t0 = time.perf_counter()
    import numpy as np, engine as jax, engine.numpy as jnp
    x = jnp.asarray(np.ones((5000, 5000), np.float32))
    f = jax.jit(lambda x: x * x + x * 2.0)
    t1 = time.perf_counter()
    f(x)
    t2 = time.perf_counter()
    print(t2 - t1, t2 - t0)
""")

# Loading a disk-cached kernel in a process whose numba is already initialised (a server worker):
# warm numba up on another program, then time the first call of the cached one.
CACHED_LOAD = textwrap.dedent("""
    import time
    import numpy as np, engine as jax, engine.numpy as jnp
    y = jnp.asarray(np.ones(8, np.float32))
    jax.jit(lambda x: x - 1.0).lower(y).compile()(y)  # (compiled now, not in the background)
    x = jnp.asarray(np.ones((5000, 5000), np.float32))
    f = jax.jit(lambda x: x * x + x * 2.0)
    t1 = time.perf_counter()
    f.lower(x).compile()
    t2 = time.perf_counter()
    print(t2 - t1, t2 - t1)
""")


def cold_rows(repeat=3):
    """Each row: the median over ``repeat`` fresh processes (empty cache dirs where it says so)."""
    import tempfile

    def run(script, cache):
        env = dict(os.environ, ENGINE_CACHE_DIR=cache)
        out = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )
        return None if out.returncode else tuple(map(float, out.stdout.split()[-2:]))

    rows = []
    with tempfile.TemporaryDirectory() as shared:
        run(COLD, shared)  # fills the shared cache
        run(CACHED_LOAD, shared)
        for label, script, fresh in (
            ("cold first call (fresh process, empty cache)", COLD, True),
            ("first call, kernel cached on disk", COLD, False),
            ("load cached kernel, numba initialised", CACHED_LOAD, False),
        ):
            results = []
            for _ in range(repeat):
                with tempfile.TemporaryDirectory() as own:
                    results.append(run(script, own if fresh else shared))
            if None in results:
                rows.append((label, None, None, None, None))
                continue
            call, total = np.median([r[0] for r in results]), np.median([r[1] for r in results])
            rows.append((label + f" [process {total:.2f}s]", float(call), None, None, None))
    return rows


def fmt(t):
    if t is None:
        return "-"
    return f"{t * 1e3:9.3f} ms" if t >= 1e-3 else f"{t * 1e6:9.2f} us"


def main():
    global _REF
    jax_ref = _jax()
    if jax_ref is None:
        from bench.jaxref import JaxRef

        _REF = JaxRef.start()
    rows = []
    try:
        rows += fusion_rows(jax_ref)
        rows.append(mlp_row(jax_ref))
        rows.append(warm_row(jax_ref))
    finally:
        if _REF is not None:
            _REF.close()
    rows += cold_rows()
    head = (
        f"{'workload':58} {'engine':>12} {'numpy':>12} {'JAX jit':>12} {'eng/np':>7} {'eng/JAX':>8} "
        f"{'eng/copy':>8}  {'best of rounds: eng/np, eng/copy':>32}"
    )
    print(head)
    print("-" * len(head))
    for name, te, tn, tj, floor in rows:
        r_np = f"{te / tn:7.2f}" if te and tn else "      -"
        r_jax = f"{te / tj:8.2f}" if te and tj else "       -"
        r_fl = f"{te / floor:8.2f}" if te and floor else "       -"
        mins = ""
        if isinstance(te, Timing) and isinstance(tn, Timing):
            mins = f"{te.min / tn.min:.2f}"
        if isinstance(te, Timing) and isinstance(floor, Timing):
            mins += f", {te.min / floor.min:.2f}"
        print(f"{name:58} {fmt(te):>12} {fmt(tn):>12} {fmt(tj):>12} {r_np} {r_jax} {r_fl}  {mins:>32}")
    if jax_ref is None and _REF is None:
        print("(jax is not installed: no JAX reference column)")
    elif _REF is not None:
        print(f"(JAX {_REF.version} from .jax-venv, timed in its own process after the engine)")
    print(f"(medians; load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}, {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
