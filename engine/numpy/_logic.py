"""Comparisons, logical and bitwise functions, and the float tests (isnan, isinf, isfinite, ...)."""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ._promote import as_operand, check_arraylike, promote_args, promote_args_numeric, promote_elementwise
from ._staged import staged_as_jit
from ._ufunc_dispatch import _binary
from ..narrow_dtypes import kind as dtype_kind


def _to_bool(x):
    x = as_operand(x)
    if x.dtype == np.bool_:
        return x
    # a scalar literal, unbroadcast, as JAX writes it; as weak as x, so a weak x gives a weak bool
    return lax.ne(x, core.Array(np.zeros((), x.dtype), core.get_aval(x).weak_type))


def logical_and(x1, x2, /):
    return lax.bitwise_and(*map(_to_bool, promote_args("logical_and", x1, x2)))


def logical_or(x1, x2, /):
    return lax.bitwise_or(*map(_to_bool, promote_args("logical_or", x1, x2)))


def logical_xor(x1, x2, /):
    return lax.bitwise_xor(*map(_to_bool, promote_args("logical_xor", x1, x2)))


def logical_not(x, /):
    check_arraylike("logical_not", x)
    return lax.bitwise_not(_to_bool(x))


def _bitwise(name, lax_fn, np_fn):
    def general(x1, x2):
        x1, x2 = promote_args(name, x1, x2)
        return lax_fn(x1, x2)

    return _binary(name, general, np_fn, "iub")


bitwise_and = _bitwise("bitwise_and", lax.bitwise_and, np.bitwise_and)


bitwise_or = _bitwise("bitwise_or", lax.bitwise_or, np.bitwise_or)


bitwise_xor = _bitwise("bitwise_xor", lax.bitwise_xor, np.bitwise_xor)


def bitwise_not(x, /):
    (x,) = promote_args("bitwise_not", x)
    return lax.bitwise_not(x)


invert = bitwise_invert = bitwise_not


def left_shift(x, y, /):
    # numeric promotion, as JAX's: bools shift as int32 (True << True is 2)
    x, y = promote_args_numeric("left_shift", x, y)
    return lax.shift_left(x, y)


def right_shift(x1, x2, /):
    x1, x2 = promote_args_numeric("right_shift", x1, x2)
    if dtype_kind(x1.dtype) == "u":
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


@staged_as_jit
def bitwise_count(x, /):
    # As numpy (and JAX): the bits of the magnitude, so -1 counts 1, not 32.
    (x,) = promote_args_numeric("bitwise_count", x)
    if dtype_kind(x.dtype) == "i":
        x = lax.abs(x)
    return lax.population_count(x).astype(np.uint8)


def _comparison(name, lax_fn, np_fn):
    def general(x1, x2):
        x1, x2 = promote_elementwise(name, x1, x2)
        if dtype_kind(x1.dtype) == "c" and lax_fn not in (lax.eq, lax.ne):
            # numpy's (and JAX's) order on complex numbers: by real part, then imaginary part
            # (each part taken again where JAX's expression does, so the jaxpr reads as JAX's)
            tie = lax.eq(lax.real(x1), lax.real(x2))
            by_imag = lax_fn(lax.imag(x1), lax.imag(x2))
            return lax.select(tie, by_imag, lax_fn(lax.real(x1), lax.real(x2)))
        return lax_fn(x1, x2)

    return _binary(name, general, np_fn, "fiub", bool_out=True)


equal = _comparison("equal", lax.eq, np.equal)


not_equal = _comparison("not_equal", lax.ne, np.not_equal)


less = _comparison("less", lax.lt, np.less)


less_equal = _comparison("less_equal", lax.le, np.less_equal)


greater = _comparison("greater", lax.gt, np.greater)


greater_equal = _comparison("greater_equal", lax.ge, np.greater_equal)


def isnan(x, /):
    check_arraylike("isnan", x)
    x = as_operand(x)
    return lax.ne(x, x)


@staged_as_jit
def isinf(x, /):
    """Whether each element is ``inf`` or ``-inf`` (for complex: either part).

    >>> jnp.isinf(jnp.array([1.0, jnp.inf, -jnp.inf]))
    Array([False,  True,  True], dtype=bool)
    """
    (x,) = promote_args("isinf", x)
    if dtype_kind(x.dtype) == "f":
        return lax.eq(lax.abs(x), np.array(np.inf, x.dtype))
    if dtype_kind(x.dtype) == "c":
        re, im = lax.real(x), lax.imag(x)
        inf = np.array(np.inf, re.dtype)
        return lax.bitwise_or(lax.eq(lax.abs(re), inf), lax.eq(lax.abs(im), inf))
    return lax.full_like(x, False, np.bool_)


def _no_out_posneginf(out) -> None:
    if out is not None:
        raise NotImplementedError("The 'out' argument to isneginf/isposinf is not supported.")


def isposinf(x, /, out=None):
    _no_out_posneginf(out)
    (x,) = promote_args("isposinf", x)
    if dtype_kind(x.dtype) not in "fc":
        return lax.full_like(x, False, np.bool_)
    return lax.eq(x, np.array(np.inf, x.dtype))


def isneginf(x, /, out=None):
    _no_out_posneginf(out)
    (x,) = promote_args("isneginf", x)
    if dtype_kind(x.dtype) not in "fc":
        return lax.full_like(x, False, np.bool_)
    return lax.eq(x, np.array(-np.inf, x.dtype))


def isfinite(x, /):
    (x,) = promote_args("isfinite", x)
    if dtype_kind(x.dtype) not in "fc":
        return lax.full_like(x, True, np.bool_)
    if dtype_kind(x.dtype) == "c":  # both parts finite
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x)
