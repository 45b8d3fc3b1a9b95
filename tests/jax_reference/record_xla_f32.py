"""Record JAX 0.10.2's float32 ``exp``, ``log``, ``tanh``, ``expm1``, ``log1p``, ``logistic``,
``exp2``, ``sinh``, ``cosh``, ``asinh``, ``acosh``, ``atanh``, ``erf``, ``erf_inv``, ``lgamma`` and
``digamma`` (the kernels of ``engine/lax/xla_f32.py``), ``log2`` and ``log10`` (made of them), on
inputs spread over every float32 bit pattern, dense grids where values are ordinary, and the
special values (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_xla_f32.py

``tests/test_xla_f32.py`` checks the engine's kernels give these bits (``engine/lax/xla_f32.py``).
"""

from __future__ import annotations

import base64
import json
import pathlib

import numpy as np

FUNCTIONS = (
    "exp", "log", "tanh", "expm1", "log1p", "logistic", "exp2", "sinh", "cosh", "asinh", "acosh", "atanh",
    "erf", "erf_inv", "lgamma", "digamma",
)  # fmt: skip
LAX = ("logistic", "erf", "erf_inv", "lgamma", "digamma")  # (no jnp function of that name)
COMPOSED = ("log2", "log10")  # jnp functions of the kernels, checked eager and jitted


def inputs() -> np.ndarray:
    spread = np.arange(0, 2**32, 2**32 // 6000 + 7, dtype=np.uint64).astype(np.uint32).view(np.float32)
    grid = np.linspace(-12, 12, 2001, dtype=np.float32)
    unit = np.linspace(-1, 1, 2001, dtype=np.float32)
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 1.17549435e-38, 3.4028235e38, 88.72, 88.7228394,
         88.73, -87.33, -87.34, -87.5, -103.9, 7.99881172, 7.998812, 0.0004, 0.00039999, 1.0, -1.0,
         0.99999994, -0.99999994, 1.0000001, 0.5, 0.49999997, -0.5, -1.0, -2.0, -1e-30, 1e-30, 0.41421357,
         -0.41421354, 1.8446743e19, 1.8446742e19, 1.7014118e38, 1.7014116e38, 3.8325069, 3.8325067, 1e-20],
        np.float32,
    )  # fmt: skip
    x = np.concatenate([spread, grid, unit, special])
    # a multiple of 64 elements: XLA then runs its vectorized loop on all of them (its scalar code,
    # for small arrays and loop remainders, rounds asinh and acosh differently on ~1e-4 of inputs)
    return np.concatenate([x, np.linspace(0.5, 30, -x.size % 64, dtype=np.float32)])


def pack(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a, np.float32).tobytes()).decode()


def unpack(s: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(s), np.float32)


def main() -> None:
    import jax
    import jax.numpy as jnp

    assert jax.__version__ == "0.10.2", jax.__version__
    x = inputs()
    out = {"jax_version": jax.__version__, "x": pack(x)}
    for name in FUNCTIONS + COMPOSED:
        f = getattr(jax.lax, name) if name in LAX else getattr(jnp, name)
        out[name] = pack(np.asarray(jax.jit(f)(x)))
    path = pathlib.Path(__file__).resolve().parent / "xla_f32.json"
    path.write_text(json.dumps(out) + "\n")
    print(f"{len(x)} inputs recorded to {path}")


if __name__ == "__main__":
    main()
