"""Record JAX 0.10.2's jitted float32 multiply-adds (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_multiply_add.py

XLA's CPU compiler fuses a product whose only use is a sum into one fused multiply-add (one
rounding); ``tests/test_multiply_add.py`` checks the engine's jit gives these bits.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from record_xla_f32 import pack


def operands():
    rng = np.random.default_rng(21)
    return tuple(rng.standard_normal(4096).astype(np.float32) for _ in range(3))


def cases(jnp):
    """name -> f(a, b, c), each returning one float32 array."""

    def sgd(p, g, c):
        for _ in range(3):
            p = p - 0.1 * (g * p + c)
        return p

    return {
        "p - 0.1 * g": lambda a, b, c: a - 0.1 * b,
        "a * b + c": lambda a, b, c: a * b + c,
        "c - a * b": lambda a, b, c: c - a * b,
        "a * b - c": lambda a, b, c: a * b - c,
        "a * b shared": lambda a, b, c: (a * b + c) * (a * b),
        "a * a + b * b": lambda a, b, c: a * a + b * b,
        "x * x + x * 2": lambda a, b, c: a * a + a * 2,
        "polynomial": lambda a, b, c: ((0.5 * a + 1.5) * a - 2.0) * a + 0.25,
        "three sgd steps": sgd,
        "x / 3 + c": lambda a, b, c: a / 3.0 + c,
        # negations LLVM folds before it fuses: out of products, into the sum (b - a for -a + b)
        "-(a * b) + c * a": lambda a, b, c: -(a * b) + c * a,
        "(-a) * b + c * a": lambda a, b, c: (-a) * b + c * a,
        "c - (-(a * b))": lambda a, b, c: c - (-(a * b)),
        "(a * -1) * b + c": lambda a, b, c: (a * -1.0) * b + c,
        "-(a * b) - c * b": lambda a, b, c: -(a * b) - c * b,
    }


def main() -> None:
    import jax
    import jax.numpy as jnp

    assert jax.__version__ == "0.10.2", jax.__version__
    a, b, c = operands()
    out = {"jax_version": jax.__version__}
    for name, f in cases(jnp).items():
        out[name] = pack(np.asarray(jax.jit(f)(a, b, c)).ravel())
    path = pathlib.Path(__file__).resolve().parent / "multiply_add.json"
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out) - 1} programs recorded to {path}")


if __name__ == "__main__":
    main()
