"""Record JAX 0.10.2's ``jax.experimental.jet`` results (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_jet.py

Taylor series of elementwise functions, a small network, ``jit`` and ``custom_jvp`` calls, for a
third-order series; ``tests/test_jet.py`` compares the engine's (to a few ulps: XLA fuses a
jitted body's series arithmetic in its own way) and the docstring's example exactly.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np


def cases(jax):
    """name -> (function, primals, series)."""
    jnp = jax.numpy
    x = jnp.array([0.3, 0.7, 1.2])
    v = (jnp.ones(3), jnp.array([0.5, -0.2, 0.1]), jnp.array([0.1, 0.2, -0.3]))
    unary = {
        "sin": jnp.sin, "cos": jnp.cos, "exp": jnp.exp, "log": jnp.log, "tanh": jnp.tanh,
        "sigmoid": jax.nn.sigmoid, "sqrt": jnp.sqrt, "rsqrt": jax.lax.rsqrt, "sinh": jnp.sinh,
        "cosh": jnp.cosh, "expm1": jnp.expm1, "log1p": jnp.log1p, "square": jnp.square,
        "cube": lambda x: x**3, "power": lambda x: x**2.5, "reciprocal": lambda x: 1 / x,
        "erf": jax.scipy.special.erf, "arcsinh": jnp.arcsinh, "arctanh": lambda x: jnp.arctanh(x / 2),
        "abs": lambda x: jnp.abs(x - 0.5), "layer": lambda x: jnp.tanh(x @ jnp.ones((3, 2)) * 0.5).sum(),
        "max": jnp.max, "maximum": lambda x: jnp.maximum(x, 0.5), "where": lambda x: jnp.where(x > 0.5, x, x**2),
        "sum": lambda x: (x * x).sum(), "cumsum": jnp.cumsum, "logsumexp": jax.nn.logsumexp,
        "softmax": jax.nn.softmax, "jit": jax.jit(lambda x: jnp.sin(x) * x), "slices": lambda x: x[1:] * x[:-1],
        "concatenate": lambda x: jnp.concatenate([x, x**2]), "gelu": jax.nn.gelu, "norm": jnp.linalg.norm,
        "quotient": lambda x: x / (1 + x), "arctan2": lambda x: jnp.arctan2(x, 1.5), "silu": jax.nn.silu,
    }  # fmt: skip
    out = {name: (f, (x,), (v,)) for name, f in unary.items()}
    out["two_arguments"] = (lambda a, b: a * jnp.sin(b), (x, x), (v, v))
    out["python_scalar"] = (lambda a: a**2, (2.0,), ((1.0, 0.0),))
    return out


if __name__ == "__main__":
    import jax
    from jax.experimental import jet

    recorded = {}
    for name, (f, primals, series) in cases(jax).items():
        p, s = jet.jet(f, primals, series)
        recorded[name] = {
            "primal": np.asarray(p).tolist(),
            "series": [np.asarray(t).tolist() for t in s],
            "weak": [bool(getattr(t, "weak_type", False)) for t in [p, *s]],
        }
    out = pathlib.Path(__file__).with_name("jet.json")
    out.write_text(json.dumps(recorded, indent=1) + "\n")
