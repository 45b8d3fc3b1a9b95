"""``engine.lax`` (``jax.lax``): primitives' public wrappers."""

import typing as _typing

from .api import *  # noqa: F401,F403
from .api import round, abs, max, min, pow  # noqa: F401  (shadow builtins on purpose, like JAX)
from .control_flow import *  # noqa: F401,F403
from .convolution import *  # noqa: F401,F403
from .parallel import *  # noqa: F401,F403
from .varying import pcast  # noqa: F401
from .solves import custom_linear_solve  # noqa: F401
from .dot_general import Precision, PrecisionLike  # noqa: F401
from .dot_algorithms import DotAlgorithm, DotAlgorithmPreset, DotDimensionNumbers  # noqa: F401
from .complex_numbers import real, imag, conj, complex  # noqa: F401
from . import linalg  # noqa: F401,E402  (jax.lax.linalg)
from . import lapack_kernels  # noqa: F401,E402  (their float16/bfloat16 refusal)
from .special import (
    lgamma,
    digamma,
    erfc,
    igamma,
    igammac,
    igamma_grad_a,
    polygamma,
    zeta,
    betainc,
    random_gamma_grad,
)  # noqa: F401,E402
from .windowed import (  # noqa: F401,E402
    reduce_window,
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_p,
    reduce_window_shape_tuple,
    reduce_window_sum_p,
)
from .window_select import select_and_gather_add_p, select_and_scatter_add_p  # noqa: F401,E402
from .bit_generator import rng_bit_generator, rng_bit_generator_p, rng_uniform, rng_uniform_p, RandomAlgorithm  # noqa: F401,E402
from ..sharding import with_sharding_constraint  # noqa: F401,E402
from .associative_scan import associative_scan  # noqa: F401,E402
from .bessel import bessel_i0e, bessel_i0e_p, bessel_i1e, bessel_i1e_p  # noqa: F401,E402
from .barrier import dce_sink, dce_sink_p, optimization_barrier, optimization_barrier_p  # noqa: F401,E402
from .custom_root import custom_root  # noqa: F401,E402
from .integer_bits import clz, clz_p, mulhi, mulhi_p  # noqa: F401,E402
from .composites import (
    approx_max_k,
    approx_min_k,
    approx_top_k_p,
    batch_matmul,
    broadcast_shapes,
    conv_general_dilated_local,
    conv_general_dilated_patches,
    index_take,
    reduce,
)  # noqa: F401,E402
from .composite_call import composite  # noqa: F401,E402

# (annotations: what conv_general_dilated's dimension_numbers takes)
from . import convolution as _cv  # noqa: E402

ConvGeneralDilatedDimensionNumbers = _typing.Union[tuple[str, str, str], _cv.ConvDimensionNumbers, None]
from .scaled_dot import scaled_dot, scaled_dot_p  # noqa: F401,E402
from .accuracy import AccuracyMode, Tolerance  # noqa: F401,E402
from .ragged_dot import (  # noqa: F401,E402
    RaggedDotDimensionNumbers,
    ragged_dot,
    ragged_dot_general,
    ragged_dot_general_p,
)
from .general_reduce import reduce_p  # noqa: F401,E402
from .array_creation import dtype, empty, shape_as_value  # noqa: F401,E402
from .tokens import after_all, after_all_p, create_token, create_token_p  # noqa: F401,E402

# The primitives themselves, as jax.lax exports them (``lax.exp_p``), for custom interpreters.
from . import (  # noqa: E402
    complex_numbers as _cn,
    control_flow as _cf,
    convolution as _cv,
    elementwise as _ew,
    fft as _fft,
    parallel as _par,
    reductions as _red,
    slicing as _sl,
    solves as _sv,
    sorting as _so,
    special as _sp,
    structural as _st,
)
from ..core import Primitive as _Primitive  # noqa: E402

for _mod in (_cn, _cf, _cv, _ew, _fft, _par, _red, _sl, _so, _sp, _st, _sv):
    for _name, _val in vars(_mod).items():
        if _name.endswith("_p") and isinstance(_val, _Primitive) and _name not in globals():
            globals()[_name] = _val
del _mod, _name, _val
from .fft import fft, FftType  # noqa: E402,F811  (jax.lax.fft is the function, as JAX's)


def __getattr__(name):
    if name == "pvary":  # (removed from JAX's lax: its deprecation message)
        raise AttributeError(
            "jax.lax.pvary was deprecated in JAX v0.8.2 and removed in JAX v0.10.0; use `jax.lax.pcast(..., to='varying')"
        )
    raise AttributeError(f"module 'jax.lax' has no attribute {name!r}")
