"""``jax._src.numpy``: where jnp's private classes claim to live (``core.jax_class_path``)."""
