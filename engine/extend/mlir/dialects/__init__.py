"""``jax.extend.mlir.dialects``: the ``stablehlo`` and ``func`` dialects (see their modules)."""
