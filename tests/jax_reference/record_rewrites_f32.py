"""Record float32 results whose rounding depends on how XLA rewrites a program (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_rewrites_f32.py

Under jit XLA's algebraic simplifier folds and moves constant factors ((x * 5) * 3 is x * 15,
s * (x * 3) is x * (s * 3) for a broadcast s), turns ln(sqrt(x)) into 0.5 * ln(x) and a quotient
of quotients into one division ((a / b) / c is a / (b * c)) and a sum of sums into one sum; eagerly,
jnp.linspace is a compiled program whose kernel LLVM unrolls or vectorizes. ``tests/test_rewrites_f32.py``
checks the engine gives these bits.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from record_xla_f32 import pack


def operands():
    rng = np.random.default_rng(17)
    x = rng.normal(0, 3, (64, 9)).astype(np.float32)
    y = rng.uniform(0.1, 10, (64, 9)).astype(np.float32)
    return x, y


def jit_cases(jnp, lax):
    """name -> f(x, y), compiled with jit."""
    return {
        "(x * 5) * 3": lambda x, y: (x * 5.0) * 3.0,
        "0.1 * (0.3 * x)": lambda x, y: 0.1 * (0.3 * x),
        "s * (x * 0.1)": lambda x, y: y[0, 0] * (x * 0.1),
        "(0.7 * x) * s": lambda x, y: (0.7 * x) * y[0, 0],
        "(x * 0.3) * column": lambda x, y: (x * 0.3) * y[:, :1],
        "row * (x * 0.3)": lambda x, y: y[:1] * (x * 0.3),
        "(x * 0.3) * broadcast_to(row)": lambda x, y: (x * 0.3) * jnp.broadcast_to(y[0], x.shape),
        "(x * 0.3) * y stays": lambda x, y: (x * 0.3) * y,
        "(x * s) * 0.3 stays": lambda x, y: (x * y[0, 0]) * 0.3,
        "p - lr * (g * 0.5)": lambda x, y: y - y[0, 0] * (x * 0.5),
        "log(sqrt(y))": lambda x, y: jnp.log(jnp.sqrt(y)),
        "log(rsqrt(y))": lambda x, y: jnp.log(lax.rsqrt(y)),
        "log(sqrt(y)), sqrt used": lambda x, y: jnp.log(jnp.sqrt(y)) + jnp.sqrt(y),
        "(x / y) / (y + 1)": lambda x, y: (x / y) / (y + 1.0),
        "x / (y / (x + 1))": lambda x, y: x / (y / (x + 1.0)),
        "(x / y) / ((x + 1) / y)": lambda x, y: (x / y) / ((x + 1.0) / y),
        "(x / y) / 3 (reciprocal first)": lambda x, y: (x / y) / 3.0,
        "(1 / y) / x, as lax.integer_pow": lambda x, y: lax.integer_pow(y, -1) / x,
        "x ** -3 / y": lambda x, y: lax.integer_pow(x, -3) / y,
        "scalar (x * 0.1) * (y * 0.3)": lambda x, y: (x[0, 0] * 0.1) * (y[0, 0] * 0.3),
        "array (x * 0.1) * (y * 0.3) stays": lambda x, y: (x * 0.1) * (y * 0.3),
        "mean of row sums of squares": lambda x, y: jnp.mean(jnp.sum((x - y) ** 2, axis=-1)),
        "sum of column sums": lambda x, y: jnp.sum(jnp.sum(x, axis=0)),
        "row sums, also summed": lambda x, y: (lambda r: r * jnp.sum(r))(jnp.sum(x * y, axis=1)),
    }


def linspace_cases():
    """(start, stop, num, endpoint) of float32 scalars: sizes unrolled and vectorized by LLVM."""
    rng = np.random.default_rng(23)
    out = [(-3.0, 3.0, 13, True), (0.1, 10.0, 7, True), (0.0, 1.0, 5, True), (-1.0, 1.0, 50, True)]
    for n in (2, 3, 8, 33, 34, 35, 50, 100, 101, 351, 352, 353, 400, 1000, 2047):
        for endpoint in (True, False):
            a, b = (rng.normal(size=2) * 10.0 ** rng.integers(-3, 4)).astype(np.float32)
            out.append((float(a), float(b), n, endpoint))
    return out


def main() -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax

    assert jax.__version__ == "0.10.2", jax.__version__
    x, y = operands()
    out: dict = {"jax_version": jax.__version__}
    for name, f in jit_cases(jnp, lax).items():
        out[f"jit {name}"] = pack(np.asarray(jax.jit(f)(x, y)).ravel())
    for a, b, n, endpoint in linspace_cases():
        values, step = jnp.linspace(np.float32(a), np.float32(b), n, endpoint=endpoint, retstep=True)
        out[f"linspace {a!r} {b!r} {n} {endpoint}"] = pack(np.append(np.asarray(values), step))
    path = pathlib.Path(__file__).resolve().parent / "rewrites_f32.json"
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out) - 1} results recorded to {path}")


if __name__ == "__main__":
    main()
