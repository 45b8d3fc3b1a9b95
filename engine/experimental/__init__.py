"""``jax.experimental``: what the engine has of it."""

from ..callbacks import io_callback  # noqa: F401
from . import compilation_cache  # noqa: F401  (imported with the package, as JAX's is)


def __getattr__(name):
    from ..compat import missing_experimental

    raise missing_experimental(name)
