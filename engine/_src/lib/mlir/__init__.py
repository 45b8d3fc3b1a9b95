"""``jax._src.lib.mlir``: the engine's StableHLO builder (``engine.extend.mlir``)."""

from ....extend.mlir import ir  # noqa: F401
