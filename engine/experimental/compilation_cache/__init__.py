"""``jax.experimental.compilation_cache``."""
