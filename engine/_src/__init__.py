"""``jax._src``: the few private JAX helpers that JAX's own documentation imports."""
