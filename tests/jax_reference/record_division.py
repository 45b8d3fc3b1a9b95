"""Record how JAX 0.10.2 divides float32 (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_division.py

XLA rewrites a division by a constant or by a broadcast divisor into a multiplication by the
rounded reciprocal (its algebraic simplifier), eagerly (jnp functions are compiled) and under jit.
``tests/test_division.py`` checks the engine gives these bits.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from record_xla_f32 import pack


def operands():
    rng = np.random.default_rng(11)
    x = rng.uniform(-10, 10, (64, 7)).astype(np.float32)
    y = rng.uniform(0.5, 10, (64, 7)).astype(np.float32)
    return x, y


def cases(jnp, lax):
    """name -> f(x, y): the forms whose rounding differs (and true divisions that stay)."""
    return {
        "x / 3.0": lambda x, y: x / 3.0,
        "x / column": lambda x, y: x / y[:, :1],
        "x / row": lambda x, y: x / y[:1],
        "x / scalar array": lambda x, y: x / y[0, 0],
        "lax.div(x, 7.0)": lambda x, y: lax.div(x, jnp.float32(7.0)),
        "x / y": lambda x, y: x / y,
        "row means of 7": lambda x, y: jnp.mean(x, axis=1),
        "mean of each row": lambda x, y: jnp.stack([jnp.mean(r) for r in x]),
        "scalar / scalar": lambda x, y: jnp.stack([x[i, 0] / y[i, 0] for i in range(x.shape[0])]),
        # float16 too (a float16 reciprocal, a float16 product); bfloat16 is divided in float32
        "float16 x / 3.0": lambda x, y: x.astype(jnp.float16) / 3.0,
        "float16 x / column": lambda x, y: x.astype(jnp.float16) / y[:, :1].astype(jnp.float16),
        "bfloat16 x / 3.0": lambda x, y: x.astype(jnp.bfloat16) / 3.0,
    }


def main() -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax

    assert jax.__version__ == "0.10.2", jax.__version__
    x, y = operands()
    out = {"jax_version": jax.__version__}
    for name, f in cases(jnp, lax).items():
        xa, ya = jnp.asarray(x), jnp.asarray(y)
        out[f"eager {name}"] = pack(np.asarray(f(xa, ya)).ravel())
        out[f"jit {name}"] = pack(np.asarray(jax.jit(f)(x, y)).ravel())
    path = pathlib.Path(__file__).resolve().parent / "division.json"
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out) - 1} results recorded to {path}")


if __name__ == "__main__":
    main()
