"""``jaxlib._jax`` (``engine.compat`` maps ``jaxlib`` to ``jax._src.lib``): where the engine's array
class claims to live, as JAX's C++ ``ArrayImpl`` does (``core.jax_class_path``)."""

from ...core import Array as ArrayImpl  # noqa: F401
