"""``jax.extend.mlir``: a StableHLO builder with MLIR's Python API (``ir``, ``dialects``) whose
modules the engine executes by translating each operation to its own primitives
(``execute``), so custom lowering rules (``jax.interpreters.mlir.register_lowering``) and
hand-built modules (``jax._src.lib.xla_client``) run without XLA."""

from . import ir  # noqa: F401
