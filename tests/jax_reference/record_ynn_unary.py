"""Record what YNNPACK's exp, expm1, tanh, log, log1p give inside JAX 0.10.2's fused sums (run
with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_ynn_unary.py

XLA:CPU hands a float32 sum of >= 4096 elements to YNNPACK with the elementwise ops feeding it,
and YNNPACK computes those functions itself (engine/lax/ynn_unary.py). Each function's values
are read out of such a fusion: ``sum(f(stack([x, neutral], 1)), axis=1)`` with ``f(neutral) =
±0`` adds 0 to each ``f(x)``, so the sum is ``f(x)`` (+0 turning -0 into 0). Stored: a sha256 of
those values (nan as one) and the first 2000. Then whole programs (``PROGRAMS``), each output packed.
``tests/test_ynn_unary.py`` checks the model and the engine's jit give these bits. Shapes stay
under 32768 elements: the order of a larger YNN sum depends on the number of XLA threads.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

import numpy as np

from record_xla_f32 import pack

PATH = pathlib.Path(__file__).resolve().parent / "ynn_unary.json"
NEUTRAL = {"exp": -np.inf, "expm1": 0.0, "tanh": 0.0, "log": 1.0, "log1p": 0.0}
SAMPLE = 2000


def inputs() -> np.ndarray:
    """float32 bit patterns of every kind, values where the functions bend, and edge cases
    (inf, nan, -0, denormals, the clamps of exp)."""
    rng = np.random.default_rng(11)
    parts = [
        rng.integers(0, 2**32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32),
        (3 * rng.standard_normal(50000)).astype(np.float32),
        rng.uniform(-100, 100, 30000).astype(np.float32),
        rng.uniform(-1e-3, 1e-3, 10000).astype(np.float32),
        rng.uniform(-0.5, 2, 10000).astype(np.float32),
        np.float32(
            [0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1.1754942e-38, 88.72283935546875,
             88.7229, -88.02969360351562, -88.03, -87.5, 89, -104, 40, -40, 9, -9, 1, -1, 1e-30,
             -0.99999994, -1, -2]
        ),
    ]  # fmt: skip
    return np.concatenate(parts)


def digest(a: np.ndarray) -> str:
    """A sha256 of the values, every nan made one (its sign and payload are not modelled)."""
    a = np.asarray(a, np.float32)
    return hashlib.sha256(np.where(np.isnan(a), np.float32(np.nan), a).tobytes()).hexdigest()


def operand(shape) -> np.ndarray:
    rng = np.random.default_rng(sum(shape) * 31 + len(shape))
    return (3 * rng.standard_normal(shape)).astype(np.float32)


def programs(jax, jnp):
    """name -> (shape, f): a float32 program of one operand, its outputs float32 arrays."""

    def also_out(v):  # tanh's value has another use: XLA computes it itself, not YNNPACK
        t = jnp.tanh(v)
        return t.sum(1), t

    return {
        "sum(tanh(x), 1) 128x100": ((128, 100), lambda v: jnp.tanh(v).sum(1)),
        "sum(exp(x), 1) 128x100": ((128, 100), lambda v: jnp.exp(v).sum(1)),
        "sum(expm1(x), 1) 128x100": ((128, 100), lambda v: jnp.expm1(v).sum(1)),
        "sum(log(|x|), 1) 128x100": ((128, 100), lambda v: jnp.log(jnp.abs(v)).sum(1)),
        "sum(log1p(|x|), 1) 128x100": ((128, 100), lambda v: jnp.log1p(jnp.abs(v)).sum(1)),
        "softplus sum 128x100": ((128, 100), lambda v: jnp.log(1 + jnp.exp(v)).sum(1)),
        "sigmoid sum 128x100": ((128, 100), lambda v: jax.nn.sigmoid(v).sum(1)),
        "sum(tanh(x)) 5000": ((5000,), lambda v: jnp.tanh(v).sum()),
        "sum(exp(x / 4)) 5000": ((5000,), lambda v: jnp.exp(v / 4).sum()),
        "mean(log(1 + tanh(x)**2)) 3x5000": ((3, 5000), lambda v: jnp.log(1 + jnp.tanh(v) ** 2).mean(1)),
        "sum(exp(x) * tanh(x), 0) 100x300": ((100, 300), lambda v: (jnp.exp(v) * jnp.tanh(v)).sum(0)),
        "sum(tanh(x), (0, 2)) 20x30x40": ((20, 30, 40), lambda v: jnp.tanh(v).sum((0, 2))),
        "sum(tanh(x[:, None] + y)) broadcast": ((64, 100), lambda v: jnp.tanh(v[:, None, :50] + v[None, :, 50:]).sum(2)),
        "tanh also an output": ((128, 100), also_out),
        "sum(x * 1.7 + 1, 1) 128x100: no fma": ((128, 100), lambda v: (v * 1.7 + 1).sum(1)),
        "sum(exp(x * x - x), 0) 128x100": ((128, 100), lambda v: jnp.exp(v * v - v).sum(0) / 9),
        "small sum of tanh (XLA's)": ((40, 100), lambda v: jnp.tanh(v).sum(1)),
    }  # fmt: skip


def main() -> None:
    import jax
    import jax.numpy as jnp

    assert jax.__version__ == "0.10.2", jax.__version__
    x = inputs()
    out: dict = {"jax_version": jax.__version__, "functions": {}, "programs": {}}
    for name, neutral in NEUTRAL.items():
        f = getattr(jnp, name)
        pairs = np.stack([x, np.full(x.size, neutral, np.float32)], 1)
        y = np.asarray(jax.jit(lambda a, f=f: jnp.sum(f(a), axis=1))(pairs))
        out["functions"][name] = {"sha256": digest(y), "sample": pack(y[:SAMPLE])}
    for name, (shape, f) in programs(jax, jnp).items():
        res = jax.jit(f)(operand(shape))
        res = res if isinstance(res, tuple) else (res,)
        out["programs"][name] = [pack(np.asarray(r, np.float32).ravel()) for r in res]
    PATH.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out['functions'])} functions, {len(out['programs'])} programs recorded to {PATH}")


if __name__ == "__main__":
    main()
