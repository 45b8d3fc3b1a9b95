"""Functions of a float's bit layout: ``frexp`` (mantissa and exponent) and ``spacing`` (the gap to
the next representable value), written with ``bitcast_convert_type`` and ``nextafter``."""

from __future__ import annotations

import numpy as np

from .. import lax
from ..custom_derivatives import custom_jvp
from ..lax.elementwise import _const
from ._logic import isinf, isnan
from ._promote import as_operand, check_arraylike, promote_args_inexact, promote_dtypes_inexact
from ._selection import where
from ._staged import staged_as_jit
from ._ufuncs import copysign, exp2

_INT_OF_WIDTH = {16: np.int16, 32: np.int32, 64: np.int64}


@staged_as_jit
def frexp(x, /):
    """``(m, e)`` with ``x == m * 2**e`` and ``0.5 <= |m| < 1`` (``m = x, e = 0`` for 0, inf, nan).

    >>> frexp(jnp.array([8.0, 0.3]))
    (Array([0.5, 0.6], dtype=float32), Array([ 4, -1], dtype=int32))
    """
    check_arraylike("frexp", x)
    (x,) = promote_dtypes_inexact(as_operand(x))
    if x.dtype.kind == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@custom_jvp
def _frexp(x):
    info = np.finfo(x.dtype)
    int_t = _INT_OF_WIDTH[info.bits]
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    # Subnormals: scale into the normal range first, and remember the scaling in the exponent.
    tiny = lax.abs(x) < info.tiny
    scaled = where(tiny, x * _const(x, 1 << info.nmant), x)
    exponent = where(tiny, int_t(-info.nmant), int_t(0))
    bits = lax.bitcast_convert_type(scaled, int_t)
    exponent = exponent + (((bits >> info.nmant) & mask) - bias + 1)
    bits = (bits & int_t(~(mask << info.nmant))) | int_t((bias - 1) << info.nmant)
    mantissa = lax.bitcast_convert_type(bits, x.dtype)
    special = isinf(x) | isnan(x) | (x == 0)
    exponent = where(special, lax.full_like(exponent, 0), exponent)
    return where(special, x, mantissa), lax.convert_element_type(exponent, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    m, e = frexp(x)
    from .. import ad
    from ..core import ShapedArray, float0

    return (m, e), (t * exp2(-e.astype(t.dtype)), ad.zeros_like_aval(ShapedArray(e.shape, float0)))


def spacing(x, /):
    """The distance from ``x`` to the next representable value away from zero.

    >>> spacing(jnp.float32(1.0))
    Array(1.1920929e-07, dtype=float32)
    """
    (arr,) = promote_args_inexact("spacing", x)
    if arr.dtype.kind == "c":
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = _const(arr, np.inf)
    if arr.dtype == np.float16:
        return lax.nextafter(arr, inf) - arr
    result = lax.nextafter(arr, copysign(inf, arr)) - arr
    return where(result == 0, copysign(np.finfo(arr.dtype).smallest_subnormal, arr), result)
