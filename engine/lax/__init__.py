"""``engine.lax`` (``jax.lax``): primitives' public wrappers."""

from .api import *  # noqa: F401,F403
from .api import round, abs, max, min, pow  # noqa: F401  (shadow builtins on purpose, like JAX)
from .control_flow import *  # noqa: F401,F403
from .convolution import *  # noqa: F401,F403
from .parallel import *  # noqa: F401,F403
from .complex_numbers import real, imag, conj, complex  # noqa: F401
from . import linalg  # noqa: F401,E402  (jax.lax.linalg)
from .special import lgamma, digamma, erfc, igamma, igammac, igamma_grad_a, polygamma, zeta, betainc  # noqa: F401,E402
from .windowed import reduce_window, reduce_window_shape_tuple  # noqa: F401,E402
from ..sharding import with_sharding_constraint  # noqa: F401,E402
