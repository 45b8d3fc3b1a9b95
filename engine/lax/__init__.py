"""``engine.lax`` (``jax.lax``): primitives' public wrappers."""

from .api import *  # noqa: F401,F403
from .api import round, abs, max, min, pow  # noqa: F401  (shadow builtins on purpose, like JAX)
from .control_flow import *  # noqa: F401,F403
from .convolution import *  # noqa: F401,F403
from .parallel import *  # noqa: F401,F403
from .complex_numbers import real, imag, conj, complex  # noqa: F401
from . import linalg  # noqa: F401,E402  (jax.lax.linalg)
from .special import lgamma, digamma, erfc, igamma, igammac, igamma_grad_a, polygamma, zeta, betainc  # noqa: F401,E402
from .windowed import (  # noqa: F401,E402
    ConvDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_general_shape_tuple,
    conv_with_general_padding,
    padtype_to_pads,
    reduce_window,
    reduce_window_shape_tuple,
)
from ..sharding import with_sharding_constraint  # noqa: F401,E402
