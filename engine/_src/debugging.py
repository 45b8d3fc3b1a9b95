"""``jax._src.debugging``: where the effect of ordered debug callbacks claims to live (JAX's refusal
of them on several devices prints it, ``core.jax_class_path``)."""

from ..debug import OrderedDebugEffect  # noqa: F401
