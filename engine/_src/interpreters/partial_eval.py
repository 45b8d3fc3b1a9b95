"""``jax._src.interpreters.partial_eval``: where the engine's staging tracers claim to live (their
``type()`` shows JAX's path, ``core.jax_class_path``), so the path imports and names them."""

from ...ad import PartialEvalTracer as JaxprTracer  # noqa: F401  (grad's staged tangents)
from ...staging import JaxprTracer as DynamicJaxprTracer  # noqa: F401  (jit, make_jaxpr, eval_shape)
