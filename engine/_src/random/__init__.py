"""``jax._src.random``: only its ``prng`` module, where typed key arrays claim to live."""
