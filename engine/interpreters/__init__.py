"""``jax.interpreters``: the rule tables of the engine's transformations under JAX's names
(``ad.primitive_jvps``, ``ad.primitive_transposes``, ``batching.primitive_batchers``) and
``mlir.register_lowering``."""
