"""``jax._src.interpreters.mlir``: the same lowering API as ``jax.interpreters.mlir``."""

from ...interpreters.mlir import *  # noqa: F401,F403
from ...interpreters.mlir import custom_call, register_lowering  # noqa: F401
