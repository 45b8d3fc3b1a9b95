"""Record the jaxprs JAX 0.10.2 prints for gradients on an explicit mesh (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_explicit_grads.py

A cotangent is typed as its primal: the transpose rules lay their results out so (a reduction's
broadcast, a reshape's, a contraction's ``out_sharding``), and JVP rules type their ``1`` on the
mesh (``reshard 1.0``). ``tests/test_sharding.py`` checks the engine prints the same texts.
"""

from __future__ import annotations

import json
import os
import pathlib

import numpy as np


def programs(jax):
    """name -> (function, arguments), on a (2, 4) mesh of Explicit axes set as the context."""
    jnp = jax.numpy
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
    jax.set_mesh(mesh)
    values = np.linspace(0.1, 0.9, 32, dtype=np.float32).reshape(8, 4)
    a = jax.device_put(values, NamedSharding(mesh, P("x", "y")))
    c = jax.device_put(values, NamedSharding(mesh, P("x", None)))
    v = jax.device_put(np.ones(4, np.float32), NamedSharding(mesh, P("y")))
    w = jax.device_put(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3), NamedSharding(mesh, P()))

    def scanned(w, c):  # (a loop body's values, its transpose's, typed from the loop's operands)
        def body(h, row):
            return h + jnp.sum(jnp.sin(row @ w)), None

        return jax.lax.scan(body, jnp.sum(c), jnp.stack([c, 2 * c]))[0]

    def branched(w, c):  # (a branch's residuals, the other branch's fill, typed alike)
        return jax.lax.cond(jnp.sum(c) > 0, lambda: jnp.sum(jnp.sin(c @ w)), lambda: jnp.sum(c @ w))

    return {
        "tanh": (jax.grad(lambda a: jnp.tanh(a).sum()), (a,)),
        "reshape": (jax.grad(lambda a: (a.reshape(32) ** 2).sum()), (a,)),
        "broadcast": (jax.grad(lambda v, a: (a * v).sum(), argnums=(0, 1)), (v, a)),
        "mul": (jax.grad(lambda a, c: (a * c).sum()), (a, c)),
        "transpose": (jax.grad(lambda a: (a.T @ jnp.ones((8,))).sum()), (c,)),
        "where": (jax.grad(lambda a: jnp.where(a > 0.5, a, 2 * a).sum()), (a,)),
        "scan": (jax.grad(scanned), (w, c)),
        "cond": (jax.grad(branched), (w, c)),
        "jacrev": (jax.jacrev(lambda w, c: jnp.tanh(c @ w).sum(0)), (w, c)),
    }


if __name__ == "__main__":
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
    import jax

    texts = {name: str(jax.make_jaxpr(f)(*args)) for name, (f, args) in programs(jax).items()}
    out = pathlib.Path(__file__).with_name("explicit_grad_jaxprs.json")
    out.write_text(json.dumps(texts, indent=1) + "\n")
