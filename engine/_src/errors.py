"""``jax._src.errors``: where the base of JAX's worded errors claims to live (``core.jax_class_path``)."""

from ..errors import _JAXErrorMixin  # noqa: F401
