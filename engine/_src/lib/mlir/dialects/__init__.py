"""``jax._src.lib.mlir.dialects``: ``hlo`` is StableHLO, as in JAX."""

from .....extend.mlir.dialects import func  # noqa: F401
from .....extend.mlir.dialects import stablehlo  # noqa: F401
from .....extend.mlir.dialects import stablehlo as hlo  # noqa: F401
