"""``jaxlib._jax.pytree``: where the engine's treedef class claims to live, as JAX's C++ ``PyTreeDef``
does (``core.jax_class_path``)."""

from ....pytree.treedef import PyTreeDef  # noqa: F401
