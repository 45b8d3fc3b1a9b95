"""``jax._src.lib``: ``xla_client`` (the engine's stand-in for XLA's client) and ``mlir``."""

from . import xla_client  # noqa: F401
