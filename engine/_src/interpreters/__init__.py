"""``jax._src.interpreters``: the interpreter modules JAX's documentation imports privately."""
