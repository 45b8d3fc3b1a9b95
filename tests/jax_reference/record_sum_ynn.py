"""Record JAX 0.10.2's large float sums (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_sum_ynn.py

XLA:CPU hands a float32/float64 ``reduce`` of >= 4096 elements to YNNPACK (``__ynn_fusion``),
whose order of additions engine/lax/sum_order_ynn.py reproduces. That order depends on the
number of XLA's threads (slinky keeps the tiles of a reduction only where they run in
parallel), so the cases are recorded with every CPU of this machine and again, in a
subprocess, pinned to one CPU. Outputs are stored as a sha256 of their bytes and a sample.
``tests/test_sum_ynn.py`` checks the model gives these bits.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pathlib
import subprocess
import sys

import numpy as np

PATH = pathlib.Path(__file__).resolve().parent / "sum_ynn.json"

_2D = [(100, 100), (1000, 10), (10, 1000), (64, 4096), (3, 5000), (1000, 1000)]
_3D = [(16, 16, 32), (64, 64, 64), (3, 8, 20000)]
_ALL3 = [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]
# (shape, axes, kind): kind "sum", "keepdims" (jnp.sum(keepdims=True)) or "mean"
CASES = (
    [((n,), (0,), "sum") for n in (4096, 4097, 5000, 8192, 10000, 65536, 65537, 100000, 262144, 10**6)]
    + [(s, a, "sum") for s in _2D for a in ((0,), (1,), (0, 1))]
    + [(s, a, "sum") for s in _3D for a in _ALL3]
    + [
        ((5000, 3), (0,), "sum"),
        ((5000, 3), (1,), "sum"),
        ((300, 300), (0,), "sum"),
        ((4096, 17), (0,), "sum"),
        ((2000, 33), (0,), "sum"),
        ((10000, 8), (0,), "sum"),
        ((70000, 8), (1,), "sum"),
        ((40000, 2), (0,), "sum"),
        ((2, 40000), (1,), "sum"),
        ((3, 70000), (1,), "sum"),
        ((4, 70000), (1,), "sum"),
        ((8, 70000), (1,), "sum"),
        ((3, 70000), (0,), "sum"),
        ((8, 70000), (0,), "sum"),
        ((200, 40000), (0,), "sum"),
        ((500, 20, 30), (0, 2), "sum"),
        ((500, 20, 30), (1,), "sum"),
        ((40, 3, 50000), (0,), "sum"),
        ((40, 3, 50000), (1,), "sum"),
        ((5, 10000, 3), (0, 1), "sum"),
        ((8, 9, 10, 11), (0, 2), "sum"),
        ((8, 9, 10, 11), (1, 3), "sum"),
        ((8, 9, 10, 11), (0, 1, 2, 3), "sum"),
        ((100000,), (0,), "keepdims"),
        ((64, 4096), (0,), "keepdims"),
        ((3, 5000), (1,), "keepdims"),
        ((16, 16, 32), (0, 2), "keepdims"),
        ((100000,), (0,), "mean"),
        ((64, 4096), (0,), "mean"),
        ((1000, 1000), (0, 1), "mean"),
        ((10, 1000), (1,), "mean"),
        ((3, 70000), (1,), "mean"),
    ]
)
SPECIAL = ["-0.0 x 5000", "one inf in 10000", "inf and -inf in 70000", "float16 (64, 4096) axis 0"]
FLOAT64 = [((10000,), (0,)), ((100000,), (0,)), ((64, 4096), (0,)), ((3, 40000), (1,)), ((1000, 100), (1,))]


def name(shape, axes, kind="sum"):
    return f"{kind} {'x'.join(map(str, shape))} axes {','.join(map(str, axes))}"


def operand(shape, dtype=np.float32):
    """Values over a wide range of magnitudes, so that any change of order shows."""
    rng = np.random.default_rng(sum(shape) * 7919 + len(shape))
    return (rng.standard_normal(shape) * np.exp2(rng.integers(-12, 12, shape))).astype(dtype)


def special(label):
    if label.startswith("-0.0"):
        return np.full(5000, -0.0, np.float32)
    if label.startswith("float16"):
        return operand((64, 4096)).astype(np.float16)
    x = operand((10000,) if "10000" in label else (70000,))
    x[1234] = np.inf
    if "-inf" in label:
        x[54321] = -np.inf
    return x


def digest(a: np.ndarray) -> dict:
    a = np.ascontiguousarray(a)
    flat = a.ravel()
    sample = flat[:: max(1, flat.size // 64)]
    return {
        "sha256": hashlib.sha256(a.tobytes()).hexdigest(),
        "sample": base64.b64encode(sample.tobytes()).decode(),
    }


def record() -> dict:
    import jax
    import jax.numpy as jnp

    assert jax.__version__ == "0.10.2", jax.__version__
    out = {}
    for shape, axes, kind in CASES:
        x = jnp.asarray(operand(shape))
        if kind == "mean":
            y = jnp.mean(x, axis=axes)
        else:
            y = jnp.sum(x, axis=axes, keepdims=kind == "keepdims")
        out[name(shape, axes, kind)] = digest(np.asarray(y))
    for label in SPECIAL:
        x = special(label)
        out[label] = digest(np.asarray(jnp.sum(x, axis=0)))
    jax.config.update("jax_enable_x64", True)
    for shape, axes in FLOAT64:
        out[name(shape, axes, "float64")] = digest(np.asarray(jnp.sum(operand(shape, np.float64), axis=axes)))
    return out


def main() -> None:
    if sys.argv[1:] == ["--one-cpu"]:
        print(json.dumps(record()))
        return
    import jax

    threads = len(os.sched_getaffinity(0))
    one = subprocess.run(
        [sys.executable, __file__, "--one-cpu"],
        check=True,
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}),
    )
    results = {str(threads): record(), "1": json.loads(one.stdout)}
    PATH.write_text(json.dumps({"jax_version": jax.__version__, "threads": results}, indent=0) + "\n")
    print(f"{sum(len(r) for r in results.values())} results for threads {list(results)} recorded to {PATH}")


if __name__ == "__main__":
    main()
