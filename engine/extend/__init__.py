"""``jax.extend``: the engine's IR types under JAX's names, for code that walks jaxprs."""

from . import core  # noqa: F401
