"""``jax.experimental.compilation_cache.compilation_cache``: where compiled programs persist.

JAX persists XLA executables there; the engine records the directory as the option
``jax_compilation_cache_dir`` (its numba kernels persist in ``ENGINE_CACHE_DIR``, see
``engine/backends/numba_cache.py``).
"""

from __future__ import annotations

from ...config import config


def set_cache_dir(path: str) -> None:
    """Set the persistent compilation cache's directory (``jax_compilation_cache_dir``)."""
    config.update("jax_compilation_cache_dir", str(path))


def reset_cache() -> None:
    """Forget the cache's directory (for tests, as in JAX)."""
    config.values.pop("jax_compilation_cache_dir", None)
