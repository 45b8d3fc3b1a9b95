"""Snippets for the fuzz cases whose jaxpr texts came to match JAX's (tests/fidelity/sweep_fuzz.py):
the values the changed rules give eagerly, under jit, vmap and grad, and the errors JAX raises where
the engine once computed. Registered in snippets.py."""

_A = "x = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1)\n"

FUZZ_TEXTS = [
    # reductions keep the axes in the order given (reduce_sum[axes=(1, 0)])
    ("sum_axes_unsorted", _A + "out = (jnp.sum(x, (-1, 0)), jax.jit(lambda x: jnp.sum(x, (2, 0)))(x))"),
    ("max_prod_axes_unsorted", _A + "out = (jnp.max(x, (-1, 0), keepdims=True), jnp.prod(x, (2, 1)))"),
    (
        "lax_reduce_unsorted",
        _A + "out = (lax.reduce_sum(x, (2, 0)), jax.jit(lambda x: lax.reduce_max(x, (2, 0)))(x))",
    ),
    ("vmap_sum_axes_unsorted", _A + "out = jax.vmap(lambda x: jnp.sum(x, (-1, 0)), in_axes=1)(x)"),
    (
        "grad_max_axes_unsorted",
        _A + "f = lambda x: jnp.sum(jnp.max(x, (-1, 0)) ** 2 + jnp.prod(x, (2, 0)))\n"
        "out = (jax.grad(f)(x), jax.jit(jax.grad(f))(x))",
    ),
    ("var_mean_axes_unsorted", _A + "out = (jnp.var(x, (-1, 0)), jnp.mean(x, (2, 0), keepdims=True))"),
]
