"""``jax._src.random.prng``: where typed key arrays claim to live (``core.jax_class_path``)."""

from ...random_keys import PRNGKeyArray  # noqa: F401
