"""``jax._src.numpy.scalar_types``: where the class of jnp's scalar types (``jnp.float32``) claims
to live (``core.jax_class_path``)."""

from ...numpy._dtypes import _ScalarMeta  # noqa: F401
