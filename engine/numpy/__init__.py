"""``engine.numpy``: JAX's ``jax.numpy`` on the engine (``import engine.numpy as jnp``).

Functions promote dtypes with JAX's lattice and weak types (x64 off), broadcast like numpy, and
lower to ``engine.lax``, so everything here can be traced, differentiated and batched.

>>> import engine.numpy as jnp
>>> x = jnp.arange(3.0)
>>> (x * 2).sum()
Array(6., dtype=float32)
"""
from __future__ import annotations

import numpy as _np

from ..core import Array, Tracer
from . import linalg  # noqa: F401
from ._contract import (cross, dot, einsum, einsum_path, inner, kron, matmul, outer, tensordot,  # noqa: F401
                        vdot, vecdot)
from ._creation import (arange, array, asarray, copy, diag_indices, empty, empty_like, eye,  # noqa: F401
                        frombuffer, fromfunction, full, full_like, geomspace, identity, indices,
                        linspace, logspace, meshgrid, ones, ones_like, tri, tril, tril_indices, triu,
                        triu_indices, zeros, zeros_like)
from ._dtypes import (bool_, can_cast, canonicalize_dtype, complex64, complex128, complex_,  # noqa: F401
                      complexfloating, double, dtype, finfo, float16, float32, float64, float_,
                      floating, generic, iinfo, inexact, int8, int16, int32, int64, int_, integer,
                      isdtype, issubdtype, number, promote_types, result_type, signedinteger, single,
                      uint, uint8, uint16, uint32, uint64, unsignedinteger)
from ._indexing import take, take_along_axis  # noqa: F401
from ._reductions import (all, allclose, amax, amin, any, argmax, argmin, array_equal,  # noqa: F401
                          array_equiv, average, count_nonzero, cummax, cummin, cumprod, cumsum,
                          cumulative_prod, cumulative_sum, isclose, max, mean, min, nancumprod,
                          nancumsum, nanmax, nanmean, nanmin, nanprod, nansum, prod, ptp, std, sum,
                          var)
from ._shape import (append, argsort, argwhere, array_split, atleast_1d, atleast_2d,  # noqa: F401
                     atleast_3d, broadcast_arrays, broadcast_to, column_stack, concat, concatenate,
                     diag, diagflat, diagonal, dsplit, dstack, expand_dims, flatnonzero, flip, fliplr,
                     flipud, hsplit, hstack, matrix_transpose, moveaxis, ndim, nonzero, pad,
                     permute_dims, ravel, repeat, reshape, roll, rot90, row_stack, searchsorted,
                     shape, size, sort, split, squeeze, stack, swapaxes, tile, trace, transpose,
                     unique, vsplit, vstack)
from ._shape import broadcast_shapes_ as broadcast_shapes  # noqa: F401
from ._ufuncs import (abs, absolute, add, acos, acosh, arccos, arccosh, arcsin, arcsinh, arctan,  # noqa: F401
                      arctan2, arctanh, around, asin, asinh, atan, atan2, atanh, bitwise_and,
                      bitwise_count, bitwise_invert, bitwise_left_shift, bitwise_not, bitwise_or,
                      bitwise_right_shift, bitwise_xor, cbrt, ceil, clip, conj, conjugate, copysign,
                      cos, cosh, deg2rad, degrees, divide, divmod, equal, exp, exp2, expm1, fabs, fix,
                      float_power, floor, floor_divide, fmax, fmin, fmod, greater, greater_equal,
                      heaviside, hypot, imag, invert, iscomplexobj, isfinite, isinf, isnan,
                      isneginf, isposinf, isrealobj, isscalar, ldexp, left_shift, less, less_equal,
                      log, log1p, log2, log10, logaddexp, logaddexp2, logical_and, logical_not,
                      logical_or, logical_xor, maximum, minimum, mod, multiply, nan_to_num, negative,
                      not_equal, piecewise, positive, pow, power, rad2deg, radians, real, reciprocal,
                      remainder, right_shift, rint, round, round_, select, sign, signbit, sin, sinc,
                      sinh, sqrt, square, subtract, tan, tanh, true_divide, trunc, where)
from ._shape import (apply_along_axis, argpartition, block, compress, delete,  # noqa: F401
                     diag_indices_from, fill_diagonal, insert, isin, ix_, partition, polyval,
                     ravel_multi_index, resize, rollaxis, tril_indices_from, triu_indices_from,
                     unravel_index, unstack, vander)
from ._statistics import (bincount, corrcoef, cov, diff, ediff1d, interp, median,  # noqa: F401
                          nanargmax, nanargmin, nanmedian, nanpercentile, nanquantile, nanstd,
                          nanvar, percentile, quantile, trapezoid)
from ._ufuncs import angle, gcd, iscomplex, isreal, lcm, modf, nextafter  # noqa: F401
from ._creation import asanyarray, ascontiguousarray, asfortranarray, astype, vectorize  # noqa: F401
from ._methods import install_array_methods

bool = bool_  # noqa: A001  (jnp.bool, as in numpy 2)
pi, e, inf, nan, euler_gamma = _np.pi, _np.e, _np.inf, _np.nan, _np.euler_gamma
newaxis = None


class _ArrayMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, (Array, Tracer))


class ndarray(metaclass=_ArrayMeta):
    """``isinstance(x, jnp.ndarray)`` holds for concrete arrays and for traced values, as in JAX."""


install_array_methods()
