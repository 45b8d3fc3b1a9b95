"""``jax._src.lax``: ``lax`` is ``jax.lax`` (JAX keeps its primitives in ``jax._src.lax.lax``)."""

from ... import lax  # noqa: F401
