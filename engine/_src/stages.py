"""``jax._src.stages``: where ``jit``'s lowered and compiled stages claim to live (``type()`` shows
JAX's path, ``core.jax_class_path``), so the path imports and names them."""

from ..jit import Compiled, Lowered  # noqa: F401
