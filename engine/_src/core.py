"""``jax._src.core``: the primitives and jaxpr types JAX's documentation imports privately (the
same objects as ``jax.extend.core``)."""

from ..extend.core import (  # noqa: F401
    ClosedJaxpr,
    DropVar,
    Jaxpr,
    JaxprEqn,
    Literal,
    Primitive,
    Var,
    jaxpr_as_fun,
)
from ..core import ShapedArray, Tracer  # noqa: F401  (where the engine's classes claim to live)
