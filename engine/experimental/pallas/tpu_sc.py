"""``jax.experimental.pallas.tpu_sc``: TPU SparseCore kernels. Importable, as in JAX; a CPU has no
SparseCore (``pallas.tpu.get_tpu_info()`` raises), so nothing here runs."""


def __getattr__(name: str):
    raise AttributeError(
        f"module 'jax.experimental.pallas.tpu_sc' has no attribute {name!r} (SparseCore kernels need a TPU)"
    )
