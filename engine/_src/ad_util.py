"""``jax._src.ad_util``: where the symbolic zero cotangent claims to live (JAX's own error for a
``Zero`` reaching an array operation names its class, ``core.jax_class_path``)."""

from ..ad import Zero  # noqa: F401
