"""Record JAX 0.10.2's complex64 elementwise functions (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_complex64.py

XLA computes a complex function from float32 pieces (its own exp/log/sin kernels, the C library's
sinf/cosf, hypot-like scalings), so the last bits differ from numpy's complex64 functions.
``tests/test_complex64_bits.py`` checks the engine gives these bits, eagerly and under jit.
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

_SPECIAL = (0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-30, -1e-30, 1e30, -1e30, 3e38, -3e38,
            np.inf, -np.inf, np.nan, 1e-40)  # fmt: skip


def operands(n: int = 4096, seed: int = 5):
    """complex64 z and w: random parts over magnitudes 1e-8..1e8 (and a band in [-4, 4]), then
    every pair of special parts (zeros, infinities, nan, huge, subnormal) and a few hard cases."""
    rng = np.random.default_rng(seed)

    def parts(k):
        mag = 10.0 ** rng.uniform(-8, 8, k)
        v = np.where(rng.random(k) < 0.3, rng.uniform(-4, 4, k), mag * rng.choice([-1, 1], k))
        return v

    sp = np.array(_SPECIAL)
    re, im = np.meshgrid(sp, sp)
    z = (parts(n) + 1j * parts(n)).astype(np.complex64)
    grid = np.empty(re.size, np.complex64)
    grid.real, grid.imag = re.ravel(), im.ravel()  # (1j * inf would make a nan real part)
    # (atan's (1 - 9189377)² + y² is a float32 tie only a true fused multiply-add rounds up)
    hard = np.array([2.3678172e-07 - 9.189377e06j, 3 + 4j], np.complex64)
    z = np.concatenate([z, grid, hard])
    w = (parts(z.size) + 1j * parts(z.size)).astype(np.complex64)
    return z, w


def cases(jnp, lax):
    """name -> f(z, w)."""
    return {
        "exp": lambda z, w: jnp.exp(z),
        "log": lambda z, w: jnp.log(z),
        "log1p": lambda z, w: jnp.log1p(z),
        "expm1": lambda z, w: jnp.expm1(z),
        "sqrt": lambda z, w: jnp.sqrt(z),
        "rsqrt": lambda z, w: lax.rsqrt(z),
        "sin": lambda z, w: jnp.sin(z),
        "cos": lambda z, w: jnp.cos(z),
        "tan": lambda z, w: jnp.tan(z),
        "sinh": lambda z, w: jnp.sinh(z),
        "cosh": lambda z, w: jnp.cosh(z),
        "tanh": lambda z, w: jnp.tanh(z),
        "arcsin": lambda z, w: jnp.arcsin(z),
        "arccos": lambda z, w: jnp.arccos(z),
        "arctan": lambda z, w: jnp.arctan(z),
        "arcsinh": lambda z, w: jnp.arcsinh(z),
        "arccosh": lambda z, w: jnp.arccosh(z),
        "arctanh": lambda z, w: jnp.arctanh(z),
        "abs": lambda z, w: jnp.abs(z),
        "angle": lambda z, w: jnp.angle(z),
        "sign": lambda z, w: jnp.sign(z),
        "reciprocal": lambda z, w: jnp.reciprocal(z),
        "1/z": lambda z, w: 1 / z,
        "z/w": lambda z, w: z / w,
        "z/(1+2j)": lambda z, w: z / (1 + 2j),  # (under jit XLA multiplies by 0.2-0.4j)
        "z/2": lambda z, w: z / 2,
        "z*conj(z)": lambda z, w: z * jnp.conj(z),
        "z*w+z": lambda z, w: z * w + z,
        "z*w": lambda z, w: z * w,
        "z**w": lambda z, w: z**w,
        "z**2": lambda z, w: z**2,
        "z**3": lambda z, w: z**3,
        "z**0.5": lambda z, w: z**0.5,
        "integer_pow -3": lambda z, w: lax.integer_pow(z, -3),
        "square": lambda z, w: jnp.square(z),
        "exp2": lambda z, w: jnp.exp2(z),
        "log10": lambda z, w: jnp.log10(z),
    }


def pack(a: np.ndarray) -> str:
    import base64

    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def unpack(s: str, dtype) -> np.ndarray:
    import base64

    return np.frombuffer(base64.b64decode(s), dtype)


def record(n: int, path: pathlib.Path) -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax

    assert jax.__version__ == "0.10.2", jax.__version__
    z, w = operands(n)
    out = {"jax_version": jax.__version__, "n": n}
    for name, f in cases(jnp, lax).items():
        za, wa = jnp.asarray(z), jnp.asarray(w)
        out[f"eager {name}"] = pack(np.asarray(f(za, wa)).ravel())
        out[f"jit {name}"] = pack(np.asarray(jax.jit(f)(z, w)).ravel())
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out) - 2} results recorded to {path}")


if __name__ == "__main__":
    if len(sys.argv) > 1:  # a bigger sample elsewhere (to measure, not to commit)
        record(int(sys.argv[1]), pathlib.Path(sys.argv[2]))
    else:
        record(1024, pathlib.Path(__file__).resolve().parent / "complex64_bits.json")
