"""``jax._src.interpreters.batching``: where ``vmap``'s tracer claims to live (``core.jax_class_path``)."""

from ...batching import BatchTracer  # noqa: F401
