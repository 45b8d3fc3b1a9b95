"""Where the time of a Run goes: the sandbox's runner on the page's programs, in CPU milliseconds
per phase, each Run a fresh fork of a warmed parent (as a run is a fork of a zygote).

    python -m bench.bench_run_path [--runs 7] [--only default,loss]

The parent imports what a zygote preloads (``server.settings``' default ``preload``) and runs the
gallery's warm-up (``server.warmup``), as every sandbox zygote does before it forks. Each program
then runs once (its kernels land in a disk cache of this benchmark's own), and every timed Run is
a fork calling the runner (``engine.inspect.run_request``) and serializing its report: the case of
a second Run, whose kernels the compile service holds and the run loads before its first call
(``ENGINE_JIT_TIERED=0`` here: nothing runs interpreted while they load). No sandbox isolation:
``bench_server`` times that (its overhead row), and ``bench_interactive`` a second Run end to end.

CPU time of the run's process (``time.process_time``), because the machine is shared: other
processes delay a Run's wall time far more than its CPU time. Phases are the report's steps,
timed by wrapping them (a phase inside another is counted in both: "kernel load" is part of
"call"). Programs: the page's default (``grad`` of the composite ``tanh``), the
``jit(vmap(grad(loss)))`` and ``jit(while_loop)`` of ``bench_interactive``, and the gallery's
non-pmap examples.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import statistics
import sys
import tempfile
import time

PHASES = {  # label -> (module, attribute path) wrapped in the forked run
    "call (trace, compile or load, execute)": ("engine.inspect.record", "Transformed.call_real"),
    "  kernel load (numba cache)": ("engine.backends.numba_jit", "NumbaBackend._load"),
    "stage tracing (each layer)": ("engine.inspect.record", "stage_jaxpr"),
    "IR text": ("engine.inspect.record", "jaxpr_text_and_names"),
    "IR graph": ("engine.inspect.record", "jaxpr_graph"),
    "cost estimate": ("engine.inspect.record", "stage_cost"),
    "StableHLO + kernel source": ("engine.inspect.record", "Recorder._jit_source"),
    "debugger steps": ("engine.inspect.record", "debug_trace"),
    "report JSON": ("engine.inspect.schema", "RunReport.model_dump_json"),
}


# A script run whole (no function picked): an RK4 ODE (a 500-step fori_loop eagerly, under
# jit(grad) and vmap) and a jit(while_loop) Newton solve. Its small-array loops compile whole
# (engine/backends/numba_unrolled.py); before, its first Run on a fresh cache hit the 10 s limit.
ODE_SCRIPT = """import jax, jax.numpy as jnp
def f(y, t, k): return jnp.array([y[1], -k * y[0] - 0.1 * y[1]])
def rk4(y0, k, dt=0.01, n=500):
    def body(i, y):
        t = i * dt
        k1 = f(y, t, k); k2 = f(y + dt / 2 * k1, t + dt / 2, k)
        k3 = f(y + dt / 2 * k2, t + dt / 2, k); k4 = f(y + dt * k3, t + dt, k)
        return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return jax.lax.fori_loop(0, n, body, y0)
y0 = jnp.array([1.0, 0.0])
print(rk4(y0, 2.0))
print(jax.jit(jax.grad(lambda k: rk4(y0, k)[0]))(2.0))
print(jax.vmap(lambda k: rk4(y0, k))(jnp.linspace(1., 3., 5)))
def newton(x0):
    def cond(s): return jnp.abs(s[0] ** 3 - 2.0) > 1e-6
    def body(s): return (s[0] - (s[0] ** 3 - 2.0) / (3 * s[0] ** 2), s[1] + 1)
    return jax.lax.while_loop(cond, body, (x0, 0))
print(jax.jit(newton)(1.0))
"""
# JAX 0.10.2 running the script whole (``python script.py``: its process, imports included),
# CPU seconds on the 2-core machine these rows were first measured on
JAX_SCRIPT_CPU = {"RK4 ODE script (whole)": 1.7}


def programs() -> dict[str, dict]:
    from bench.bench_interactive import NEWTON, PAGE_LOSS
    from server.examples import EXAMPLES

    default = {
        "code": "import jax\nimport jax.numpy as jnp\n\ndef tanh(x):\n    y = jnp.exp(-2.0 * x)\n"
        "    return (1.0 - y) / (1.0 + y)\n\ndef loss(w, x):\n    return jnp.sum(tanh(w * x) ** 2)\n",
        "function": "tanh",
        "stack": [{"name": "grad"}],
        "args": ["1.0"],
    }
    out = {
        "page default grad(tanh)": default,
        "jit(vmap(grad(loss)))": PAGE_LOSS,
        "jit(while newton)": NEWTON,
    }
    out["RK4 ODE script (whole)"] = {"code": ODE_SCRIPT, "stack": [], "args": []}
    for ex in EXAMPLES:
        if "pmap" not in ex.code:  # (device processes: bench_pmap)
            out[ex.id] = {"code": ex.code, "function": ex.function, "stack": ex.stack, "args": ex.args}
    return out


def _wrap(spent: dict[str, float]) -> None:
    for label, (module, path) in PHASES.items():
        owner = importlib.import_module(module)
        *outer, name = path.split(".")
        for part in outer:
            owner = getattr(owner, part, None)
        orig = getattr(owner, name, None)
        if orig is None:
            continue

        def timed(*args, __orig=orig, __label=label, **kwargs):
            t0 = time.process_time()
            try:
                return __orig(*args, **kwargs)
            finally:
                spent[__label] = spent.get(__label, 0.0) + time.process_time() - t0

        setattr(owner, name, timed)


def forked_run(request: dict, phases: bool) -> dict:
    """CPU seconds of one Run in a fresh fork: total, and per phase when ``phases``."""
    from engine.inspect import run_request
    from engine.inspect.schema import RunRequest

    req = RunRequest(**request)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        spent: dict[str, float] = {}
        try:
            if phases:
                _wrap(spent)
            t0 = time.process_time()
            report = run_request(req)
            report.model_dump_json()
            spent["total"] = time.process_time() - t0
            spent["ok"] = float(report.ok)
        finally:
            os.write(w, json.dumps(spent).encode())
            os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(data or b"{}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="timed Runs per program (and as many with phases)")
    ap.add_argument("--only", default="", help="comma-separated texts: only the programs containing one")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()[0]
    cache = tempfile.TemporaryDirectory()
    os.environ["ENGINE_CACHE_DIR"] = cache.name
    os.environ["ENGINE_JIT_TIERED"] = "0"
    try:
        from server.settings import Settings

        for name in Settings.model_fields["preload"].default_factory():  # type: ignore[misc]
            importlib.import_module(name)
        from server.warmup import warm

        t0 = time.perf_counter()
        warm()
        # Frozen as the zygote freezes its heap (server/sandbox/zygote.py): unfrozen, whichever run
        # the inherited gc counters push over the threshold walks every inherited object (one did,
        # inside the hessian's IR graph: 210 of its 261 ms).
        gc.freeze()
        print(f"parent warmed (gallery) in {time.perf_counter() - t0:.1f} s", flush=True)
        wanted = [w for w in args.only.split(",") if w]
        progs = {k: v for k, v in programs().items() if not wanted or any(w in k for w in wanted)}
        rows = []
        for name, request in progs.items():
            first = forked_run(request, False)  # its kernels compiled, to disk
            totals = [forked_run(request, False).get("total", 0.0) for _ in range(args.runs)]
            split = [forked_run(request, True) for _ in range(args.runs)]
            med = {k: statistics.median(s.get(k, 0.0) for s in split) for k in PHASES}
            rows.append((name, first, totals, med))
    finally:
        os.environ.pop("ENGINE_CACHE_DIR", None)
        os.environ.pop("ENGINE_JIT_TIERED", None)
        cache.cleanup()
    print(f"{'program':28s} {'first':>7s} {'Run':>7s} {'best':>7s}  phases (CPU ms, medians)")
    for name, first, totals, med in rows:
        parts = ", ".join(f"{k.strip()} {v * 1e3:.1f}" for k, v in med.items() if v >= 5e-4)
        print(
            f"{name[:28]:28s} {first.get('total', 0) * 1e3:6.1f}  {statistics.median(totals) * 1e3:6.1f}  "
            f"{min(totals) * 1e3:6.1f}  {parts}"
            + (
                f"  (JAX: {JAX_SCRIPT_CPU[name] * 1e3:.0f} ms, its whole process)"
                if name in JAX_SCRIPT_CPU
                else ""
            )
            + ("" if first.get("ok") else "  (run not ok)")
        )
    print(
        f"(CPU ms of the run process; 'first' compiles its kernels; medians of {args.runs} Runs; "
        f"load average {load0:.2f} before, {os.getloadavg()[0]:.2f} after, {os.cpu_count()} cores)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
