"""``engine.lax`` (``jax.lax``): primitives' public wrappers."""

from .api import *  # noqa: F401,F403
from .api import round, abs, max, min, pow  # noqa: F401  (shadow builtins on purpose, like JAX)
from .control_flow import *  # noqa: F401,F403
from .parallel import *  # noqa: F401,F403
from .complex_numbers import real, imag, conj, complex  # noqa: F401
