"""pmap on simulated devices (forked processes): warm dispatch with a collective, an all-reduce of
1e6 floats, a per-device matmul, and host<->device transfer throughput. JAX with 8 host devices is
the reference when it is installed (it is run in a subprocess, so its XLA_FLAGS stay its own).
Without it, the matmul's reference is what JAX would take on this machine: the same 8 matmuls in
one process (numpy, all cores), measured in the same run. Cases are timed in interleaved rounds
(medians of single calls, each case warmed up in each round), so a burst of load from elsewhere
hits every case alike; the load average is printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from bench.timing import interleaved, timeit

TARGETS = {"normalize (psum) 8 floats": 1.1, "psum 1e6 f32 x 8": 15.0}  # ms, from the issue
MATMUL = "x @ x.T, 8 x (1000x1200) f32"
REF = "8 matmuls, one process (numpy)"
ROUNDTRIP = "host->device->host 100 MB (2 copies)"


def _ms(fn) -> float:
    """Median milliseconds per call (the JAX reference's timing, in its own process)."""
    return timeit(fn, repeat=7, budget=0.5) * 1e3


def cases(jax, jnp, lax):
    n = jax.device_count()
    normalize = jax.pmap(lambda x: x / lax.psum(x, "i"), axis_name="i")
    allreduce = jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i")
    gram = jax.pmap(lambda x: x @ x.T)
    small = jnp.arange(float(n))
    big = jnp.asarray(np.random.default_rng(0).standard_normal((n, 1_000_000)).astype(np.float32))
    mats = jnp.asarray(np.random.default_rng(1).standard_normal((n, 1000, 1200)).astype(np.float32))

    def on_devices(x):
        try:
            return jax.device_put_sharded(list(x), jax.devices()[:n])
        except AttributeError:  # (JAX 0.10 dropped it: a pmap's output stays on the devices)
            return jax.pmap(lambda v: v)(x)

    big_on = on_devices(big)
    mats_on = on_devices(mats)
    host = np.random.default_rng(2).standard_normal(25_000_000).astype(np.float32)  # 100 MB

    def block(x):
        return x.block_until_ready() if hasattr(x, "block_until_ready") else x

    def roundtrip():
        # np.array copies back into host memory: np.asarray alone would return a zero-copy view of
        # the device's shared memory, and only the way there would be measured.
        np.array(jax.device_put(host, jax.devices()[1]))

    return {
        "normalize (psum) 8 floats": lambda: block(normalize(small)),
        "psum 1e6 f32 x 8": lambda: block(allreduce(big_on)),
        MATMUL: lambda: block(gram(mats_on)),
        ROUNDTRIP: roundtrip,
    }


def _numpy_matmuls():
    mats = np.random.default_rng(1).standard_normal((8, 1000, 1200)).astype(np.float32)
    return lambda: [m @ m.T for m in mats]


def measure() -> tuple[dict, dict]:
    import engine as jax
    import engine.numpy as jnp
    from engine import lax

    fns = {}
    for k, fn in cases(jax, jnp, lax).items():
        fns[k] = fn
        if k == MATMUL:
            # right after the devices' matmuls, and not before the dispatch case: the host's BLAS
            # threads spin for a while after their work, taking cores from the devices
            fns[REF] = _numpy_matmuls()
    ours = {k: t * 1e3 for k, t in interleaved(fns).items()}
    ref = {MATMUL: ours.pop(REF)}
    return ours, ref


def _jax_reference() -> dict | None:
    code = (
        "import os; os.environ['XLA_FLAGS']='--xla_force_host_platform_device_count=8'\n"
        "import jax, jax.numpy as jnp, json, sys\nfrom jax import lax\n"
        f"sys.path.insert(0, {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))!r})\n"
        "import bench.bench_pmap as b\n"
        "print('JSON', json.dumps({k: b._ms(f) for k, f in b.cases(jax, jnp, lax).items()}))\n"
    )
    try:
        import importlib.util

        from bench.jaxref import JAX_PYTHON

        # JAX from the side venv (.jax-venv), else from this one if it has it
        python = str(JAX_PYTHON) if JAX_PYTHON.exists() else sys.executable
        if python == sys.executable and importlib.util.find_spec("jax") is None:
            return None
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=600)
        line = [ln for ln in out.stdout.splitlines() if ln.startswith("JSON ")]
        return json.loads(line[0][5:]) if line else None
    except Exception:
        return None


def main(argv=None) -> int:
    load0 = os.getloadavg()[0]
    ours, numpy_ref = measure()
    jax_ref = _jax_reference()
    ref = jax_ref or numpy_ref
    col = "jax ms" if jax_ref else "ref ms"
    print(f"{'case':34} {'engine ms':>10} {col:>9} {'ratio':>7} {'target':>8}")
    for k, v in ours.items():
        r = ref.get(k)
        ratio = f"{v / r:7.2f}" if r else "    n/a"
        target = f"{TARGETS[k]:8.1f}" if k in TARGETS else ("  <=1.3x" if k == MATMUL else "        ")
        print(f"{k:34} {v:10.3f} {(f'{r:9.3f}' if r else '      n/a')} {ratio} {target}")
    mb = 100.0
    print(f"host->device->host throughput: {2 * mb / (ours[ROUNDTRIP] / 1e3):.0f} MB/s (each way copied)")
    if not jax_ref:
        print(f"(JAX not installed: the matmul reference is {REF!r}, run alongside; targets are the issue's)")
    print(
        f"load average (1 min) {load0:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
