"""Record JAX 0.10.2's float32 ``sin``, ``cos``, ``tan``, ``arctan``, ``arctan2``, ``pow``, ``cbrt``,
``arcsin`` and ``arccos`` (the functions XLA's CPU kernels compute by calling the C library) on
inputs spread over every float32 bit pattern, dense grids where values are ordinary, arguments near
multiples of pi/2, and special values (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_libm_f32.py

``tests/test_libm_f32.py`` checks the engine gives these bits (``engine/lax/libm_f32.py``).
"""

from __future__ import annotations

import json
import pathlib
import platform

import numpy as np

from record_xla_f32 import pack

UNARY = ("sin", "cos", "tan", "arctan", "cbrt", "arcsin", "arccos")
BINARY = ("arctan2", "pow")


def inputs() -> tuple[np.ndarray, np.ndarray]:
    """(x, y): the first operand of every function, and the second of the binary ones."""
    rng = np.random.default_rng(7)
    spread = np.arange(0, 2**32, 2**32 // 5000 + 7, dtype=np.uint64).astype(np.uint32).view(np.float32)
    k = np.arange(1, 400, dtype=np.float64) * np.pi / 2
    near_pi2 = np.concatenate([np.float32(k), np.nextafter(np.float32(k), np.float32(np.inf))])
    x = np.concatenate(
        [
            spread,
            np.linspace(-12, 12, 1501, dtype=np.float32),
            np.linspace(-1, 1, 801, dtype=np.float32),
            rng.uniform(-200, 200, 1000).astype(np.float32),
            near_pi2.astype(np.float32),
            np.array(
                [
                    0.0,
                    -0.0,
                    np.inf,
                    -np.inf,
                    np.nan,
                    1e-45,
                    -1e-40,
                    1.17549435e-38,
                    3.4028235e38,
                    1.0,
                    -1.0,
                    0.5,
                    2.0,
                    119.99999,
                    120.0,
                    -120.0,
                    0.74999994,
                    0.75,
                    2.0**-12,
                    2.0**-13,
                    1e6,
                    3.14159265,
                ],
                np.float32,
            ),  # fmt: skip
        ]
    )
    y = np.concatenate([rng.uniform(-4, 4, x.size - 200), rng.integers(-3, 4, 200)]).astype(np.float32)
    return x, y


def main() -> None:
    import jax
    import jax.numpy as jnp

    assert jax.__version__ == "0.10.2", jax.__version__
    x, y = inputs()
    out = {"jax_version": jax.__version__, "libc": list(platform.libc_ver()), "x": pack(x), "y": pack(y)}
    for name in UNARY + BINARY:
        f = jax.jit(jax.lax.pow if name == "pow" else getattr(jnp, name))
        args = (x,) if name in UNARY else (x, y)
        if name == "arctan":  # XLA evaluates atan with its own polynomial for some array sizes, atanf
            # for others (a scalar among them): record the scalar's
            got = np.array([f(v) for v in x], np.float32)
        else:
            got = np.asarray(f(*args))
            # the same bits in small arrays (XLA's unrolled kernels) as in one big one
            for i in range(0, x.size, 7):
                small = np.asarray(f(*(a[i : i + 7] for a in args)))
                assert (small.view(np.int32) == got[i : i + 7].view(np.int32)).all() or np.isnan(
                    small
                ).any(), name
        out[name] = pack(got)
    path = pathlib.Path(__file__).resolve().parent / "libm_f32.json"
    path.write_text(json.dumps(out) + "\n")
    print(f"{len(x)} inputs recorded to {path}")


if __name__ == "__main__":
    main()
