"""Record JAX 0.10.2's eager derivatives of jnp functions (run with JAX's venv):

    /work/main/.jax-venv/bin/python tests/jax_reference/record_fused_rules.py

JAX jits its jnp functions, so a derivative of one runs its rule compiled (fused multiply-adds
round once) where the same rule applied to a lax function runs operation by operation;
``tests/test_fused_rules.py`` checks the engine gives these bits.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np

from record_xla_f32 import pack


def operands():
    rng = np.random.default_rng(39)
    x = (rng.standard_normal(2000) * 2).astype(np.float32)
    t = rng.standard_normal(2000).astype(np.float32)
    return x, t


def cases(jax, jnp, lax):
    """name -> f(x, t), each returning one float32 array (x, t: float32[2000])."""

    def each(f, x, n=150):  # eager calls, one element at a time (the eager tape's path)
        return jnp.stack([f(x[i]) for i in range(n)])

    def layer(x, t):  # the autodiff cookbook's jacobian of a sigmoid layer
        inputs = x[:12].reshape(4, 3)
        return jax.jacfwd(lambda w: 0.5 * (jnp.tanh(jnp.dot(inputs, w) / 2) + 1))(t[:3]).ravel()

    def layer_hessian(x, t):  # eagerly: jacrev's known part (tanh, 1 - tanh) is a jit jacfwd transforms
        inputs = x[:300].reshape(100, 3)
        f = lambda w: 0.5 * (jnp.tanh((jnp.dot(inputs, w) + t[3]) / 2) + 1)
        return jax.jacfwd(jax.jacrev(f))(t[:3]).ravel()

    def jvp(f):
        return lambda x, t: jax.jvp(f, (x,), (t,))[1]

    return {
        "jvp jnp.tanh": jvp(jnp.tanh),
        "jvp lax.tanh": jvp(lax.tanh),  # (not jitted: each operation on its own)
        "jvp x * (x + 1)": jvp(lambda v: v * (v + 1)),
        "jvp x / (x * x + 1)": jvp(lambda v: v / (v * v + 1)),
        "jvp jnp.arctan": jvp(jnp.arctan),
        "jvp jnp.arctan, lax.exp": jvp(lambda v: lax.exp(jnp.arctan(v))),
        "jacfwd of a sigmoid layer": layer,
        "grad jnp.arctan": lambda x, t: each(jax.grad(jnp.arctan), x),
        "grad jnp.tanh": lambda x, t: each(jax.grad(jnp.tanh), x),
        "vmap grad jnp.arctan": lambda x, t: jax.vmap(jax.grad(jnp.arctan))(x),
        "vmap grad jnp.tanh": lambda x, t: jax.vmap(jax.grad(jnp.tanh))(x),
        "vmap grad x * jnp.sin(x)": lambda x, t: jax.vmap(jax.grad(lambda v: v * jnp.sin(v)))(x),
        "jvp jax.nn.gelu": jvp(jax.nn.gelu),
        "eager hessian of a sigmoid layer (jacfwd of jacrev)": layer_hessian,
        "jvp of vmap grad jnp.tanh": jvp(jax.vmap(jax.grad(jnp.tanh))),
        "vmap hessian 1 / x": lambda x, t: jax.vmap(jax.grad(jax.grad(lambda v: 1 / v)))(x),
        "hessian x / (x * x + 1)": lambda x, t: each(jax.grad(jax.grad(lambda v: v / (v * v + 1))), x),
        "jit grad jit grad logistic": lambda x, t: jax.vmap(
            jax.jit(jax.grad(jax.jit(jax.grad(lambda v: jnp.sum(1.0 / (1.0 + jnp.exp(-v)))))))
        )(x),
        "jit third derivative of the logistic": lambda x, t: jax.vmap(
            jax.jit(jax.grad(jax.grad(jax.grad(lambda v: jnp.sum(1.0 / (1.0 + jnp.exp(-v)))))))
        )(x),
        "jit third derivative": lambda x, t: jax.vmap(jax.jit(jax.grad(jax.grad(jax.grad(jnp.tanh)))))(x),
        "grad of a jitted grad": lambda x, t: each(
            jax.grad(jax.jit(jax.grad(lambda v: jnp.sum(1.0 / (1.0 + jnp.exp(-v)))))), x, 60
        ),
        "jit hessian through broadcasts (thinking-in-jax)": lambda x, t: jax.vmap(
            jax.jit(jax.jacfwd(jax.jacrev(lambda v: jnp.sum(1.0 / (1.0 + jnp.exp(-v))))))
        )(x[:120].reshape(40, 3)),
        # not modelled (see the test)
        "vmap hessian jax.nn.softplus": lambda x, t: jax.vmap(jax.grad(jax.grad(jax.nn.softplus)))(x),
    }


def main() -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax

    assert jax.__version__ == "0.10.2", jax.__version__
    x, t = operands()
    out = {"jax_version": jax.__version__}
    for name, f in cases(jax, jnp, lax).items():
        out[name] = pack(np.asarray(f(x, t), np.float32).ravel())
    path = pathlib.Path(__file__).resolve().parent / "fused_rules.json"
    path.write_text(json.dumps(out, indent=0) + "\n")
    print(f"{len(out) - 1} cases recorded to {path}")


if __name__ == "__main__":
    main()
