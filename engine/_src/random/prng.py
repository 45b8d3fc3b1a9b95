"""``jax._src.random.prng``: where typed key arrays and their dtypes claim to live (``core.jax_class_path``)."""

from ...random_keys import KeyTy, PRNGKeyArray  # noqa: F401
