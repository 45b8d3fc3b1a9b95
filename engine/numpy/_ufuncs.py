"""Elementwise arithmetic, rounding and transcendental functions: promote dtypes (JAX's lattice),
broadcast like numpy, then call lax (binary ones through the eager fast path of _ufunc_dispatch).

Comparisons, logic and bits are in _logic, maximum/clip/where in _selection, complex parts in
_complex_parts.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .. import core, lax
from ..core import Array, Tracer
from ._logic import isinf, isposinf
from ._selection import _where, maximum, minimum
from ._staged import staged_as_jit
from ._promote import (
    as_operand,
    check_arraylike,
    convert,
    promote_args,
    promote_args_inexact,
    promote_elementwise,
    promote_elementwise_inexact,
    promote_shapes,
)
from ._ufunc_dispatch import _binary, _is_bool, _is_int, _quiet, _unary_inexact
from ..narrow_dtypes import kind as dtype_kind


# --- arithmetic --------------------------------------------------------------------------------


def _add(x1, x2):
    x1, x2 = promote_elementwise("add", x1, x2)
    return lax.bitwise_or(x1, x2) if _is_bool(x1) else lax.add(x1, x2)


def _subtract(x1, x2):
    x1, x2 = promote_elementwise("subtract", x1, x2)
    if _is_bool(x1):
        raise TypeError("jnp.subtract does not support bool inputs; use jnp.logical_xor instead.")
    return lax.sub(x1, x2)


def _multiply(x1, x2):
    x1, x2 = promote_elementwise("multiply", x1, x2)
    return lax.bitwise_and(x1, x2) if _is_bool(x1) else lax.mul(x1, x2)


def _true_divide(x1, x2):
    x1, x2 = promote_elementwise_inexact("true_divide", x1, x2)
    return lax.div(x1, x2)


def _int_floor_divide(x1, x2):
    zero = lax.full_like(x1, 0)
    if dtype_kind(x1.dtype) == "u":
        return lax.div(x1, x2)
    q = lax.div(x1, x2)
    needs_fix = lax.bitwise_and(lax.ne(lax.lt(x1, zero), lax.lt(x2, zero)), lax.ne(lax.rem(x1, x2), zero))
    return lax.select(needs_fix, lax.sub(q, lax.full_like(q, 1)), q)


def _float_divmod(x1, x2):
    mod = lax.rem(x1, x2)
    div = lax.div(lax.sub(x1, mod), x2)
    zero = lax.full_like(mod, 0)
    fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.lt(x2, zero), lax.lt(mod, zero)))
    mod = lax.select(fix, lax.add(mod, x2), mod)
    div = lax.select(fix, lax.sub(div, lax.full_like(div, 1)), div)
    return lax.round(div, 1), mod


def _floor_divide(x1, x2):
    x1, x2 = promote_args("floor_divide", x1, x2)
    if _is_bool(x1):
        x1, x2 = convert(x1, np.dtype("int32")), convert(x2, np.dtype("int32"))
        return lax.convert_element_type(_int_floor_divide(x1, x2), np.bool_)
    if _is_int(x1):
        return _int_floor_divide(x1, x2)
    return _float_divmod(x1, x2)[0]


@staged_as_jit(name="remainder")
def _remainder(x1, x2):
    x1, x2 = promote_elementwise("remainder", x1, x2)
    if _is_bool(x1):
        raise TypeError("jnp.remainder does not support bool inputs")
    if _is_int(x2):  # integer x % 0 is 0, as in JAX (XLA leaves rem by 0 undefined)
        x2 = _where(lax.eq(x2, np.zeros((), x2.dtype)), lax.full_like(x2, 1), x2)
    trunc = lax.rem(x1, x2)
    zero = np.zeros((), trunc.dtype)
    nonzero = lax.ne(trunc, zero)
    fix = lax.bitwise_and(lax.ne(lax.lt(trunc, zero), lax.lt(x2, zero)), nonzero)
    return lax.select(fix, lax.add(trunc, x2), trunc)


def _np_floor_divide(a, b):
    with np.errstate(all="ignore"):
        return np.floor_divide(a, b)


def _np_mod(a, b):
    with np.errstate(all="ignore"):
        return np.mod(a, b)


add = _binary("add", _add, np.add)
subtract = _binary("subtract", _subtract, np.subtract)
multiply = _binary("multiply", _multiply, np.multiply)
true_divide = _binary("true_divide", _true_divide, _quiet(np.true_divide), "f")
divide = _binary("divide", _true_divide, _quiet(np.true_divide), "f")  # (JAX's own function, named so)
floor_divide = _binary("floor_divide", _floor_divide, _np_floor_divide, "iu")
remainder = _binary("remainder", _remainder, _np_mod, "iu")
mod = remainder


def fmod(x1, x2, /):
    """C-style remainder (sign of ``x1``)."""
    x1, x2 = promote_args("fmod", x1, x2)
    return lax.rem(x1, x2)


def divmod(x1, x2, /):
    return floor_divide(x1, x2), remainder(x1, x2)


def _integer_scalar(x):
    """A static Python int for concrete integer scalars (Python ints, 0-d integer arrays), else None."""
    if type(x) is int:
        return x
    if isinstance(x, Tracer) or type(x) is bool:
        return None
    if isinstance(x, (np.integer,)) or (
        type(x) in (np.ndarray, Array) and x.ndim == 0 and dtype_kind(x.dtype) in "iu"
    ):
        return operator.index(x.item() if type(x) is not int else x)
    return None


def _int_pow(x, y):
    """Integer base to an integer array exponent by repeated squaring (as JAX does)."""
    acc = lax.full_like(x, 1)
    zero = lax.full_like(y, 0)
    one = lax.full_like(y, 1)
    for _ in range(8 * x.dtype.itemsize):
        acc = lax.select(lax.ne(lax.bitwise_and(y, one), zero), lax.mul(acc, x), acc)
        x = lax.mul(x, x)
        y = lax.shift_right_logical(y, one)
    return acc


def power(x1, x2, /):
    """``x1 ** x2``; a static integer exponent uses ``lax.integer_pow`` (exact, cheap derivative).

    >>> jnp.power(jnp.arange(3.0), 2)
    Array([0., 1., 4.], dtype=float32)
    """
    check_arraylike("power", x1, x2)
    n = _integer_scalar(x2)
    if n is not None:
        (x1,) = promote_args("power", x1)
        if _is_int(x1) and n < 0:
            raise ValueError("Integers to negative integer powers are not allowed.")
        return lax.integer_pow(x1, n)
    if _is_float_operands(x1, x2):
        return lax.pow(*promote_elementwise("power", x1, x2))
    x1, x2 = promote_args("power", x1, x2)
    if _is_int(x1):
        return _int_pow(x1, x2)
    if _is_bool(x1):
        return lax.bitwise_or(x1, lax.bitwise_not(x2))
    return lax.pow(x1, x2)


def _is_float_operands(*args):
    from ._dtypes import dtype_and_weak, promote_types_weak

    return dtype_kind(promote_types_weak(dtype_and_weak(a) for a in args)[0]) == "f"


pow = power


def float_power(x1, x2, /):
    x1, x2 = promote_args_inexact("float_power", x1, x2)
    return lax.pow(x1, x2)


def negative(x, /):
    (x,) = promote_args("negative", x)
    if _is_bool(x):
        raise TypeError("jnp.negative does not support bool inputs; use jnp.logical_not instead.")
    return lax.neg(x)


def positive(x, /):
    (x,) = promote_args("positive", x)
    return x


def reciprocal(x, /):
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def square(x, /):
    (x,) = promote_args("square", x)
    if _is_bool(x):  # squared as the default int, as JAX's promote_dtypes_numeric
        x = lax.convert_element_type(x, core.default_dtype(int))
    return lax.square(x)


def absolute(x, /):
    (x,) = promote_args("absolute", x)
    if dtype_kind(x.dtype) in "ub":
        return x
    return lax.abs(x)


def abs(x, /):
    """Alias of :func:`engine.numpy.absolute` (a function of its own, named ``abs``, as in JAX)."""
    return absolute(x)


def fabs(x, /):
    (x,) = promote_args_inexact("fabs", x)
    return lax.abs(x)


def sign(x, /):
    (x,) = promote_args("sign", x)
    if dtype_kind(x.dtype) == "u":
        return lax.convert_element_type(lax.ne(x, lax.full_like(x, 0)), x.dtype, x.weak_type)
    if _is_bool(x):
        raise TypeError(
            "sign does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, "
            "complexfloating."
        )
    return lax.sign(x)


def _integral_identity(name, lax_fn):
    def f(x, /):
        (x,) = promote_args(name, x)
        if dtype_kind(x.dtype) in "iub":
            return x
        return lax_fn(x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}``; integers are returned unchanged."
    return f


floor = _integral_identity("floor", lax.floor)
ceil = _integral_identity("ceil", lax.ceil)


@staged_as_jit
def rint(x, /):
    """Round to the nearest integer, half to even; integers and bools become the default float.

    >>> jnp.rint(jnp.array([0.5, 1.5, 2.7]))
    Array([0., 2., 3.], dtype=float32)
    """
    (x,) = promote_args("rint", x)
    if dtype_kind(x.dtype) in "iub":
        return lax.convert_element_type(x, core.default_dtype(float))
    if dtype_kind(x.dtype) == "c":
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, 1)


def _trunc(x):
    return lax.select(lax.lt(x, lax.full_like(x, 0)), lax.ceil(x), lax.floor(x))


trunc = _integral_identity("trunc", _trunc)
fix = trunc


@staged_as_jit(static_argnames=("decimals", "out"))
def round(a, decimals: int = 0, out=None):
    """Round half to even, to ``decimals`` places (negative decimals round integers too).

    >>> jnp.round(jnp.array([0.5, 1.5, 2.25]), 1)
    Array([0.5, 1.5, 2.2], dtype=float32)
    """
    (a,) = promote_args("round", a)
    decimals = int(decimals)
    if dtype_kind(a.dtype) == "c":  # each part on its own
        return lax.complex(round(lax.real(a), decimals), round(lax.imag(a), decimals))
    if _is_bool(a):  # JAX's error class and words
        raise ValueError(f"jnp.round does not accept dtype bool: data type {np.bool_} not inexact")
    if dtype_kind(a.dtype) in "iu":
        if decimals >= 0:
            return a
        f = lax.full_like(a, 10**-decimals)
        return lax.mul(
            _float_to_int_round(
                lax.div(convert(a, np.dtype("float32")), convert(f, np.dtype("float32"))), a.dtype
            ),
            f,
        )
    if decimals == 0:
        return lax.round(a, 1)
    factor = np.array(10.0**decimals, a.dtype)  # (a scalar constant, as JAX's lax._const)
    return lax.div(lax.round(lax.mul(a, factor), 1), factor)


def _float_to_int_round(x, dtype):
    return lax.convert_element_type(lax.round(x, 1), dtype)


around = round_ = round

# --- transcendental ----------------------------------------------------------------------------

exp = _unary_inexact("exp", lax.exp)
exp2 = _unary_inexact("exp2", lax.exp2)
expm1 = _unary_inexact("expm1", lax.expm1)
log = _unary_inexact("log", lax.log)
log1p = _unary_inexact("log1p", lax.log1p)
sin = _unary_inexact("sin", lax.sin)
cos = _unary_inexact("cos", lax.cos)
tan = _unary_inexact("tan", lax.tan)
arcsin = asin = _unary_inexact("arcsin", lax.asin)
arccos = acos = _unary_inexact("arccos", lax.acos)
arctan = atan = _unary_inexact("arctan", lax.atan)
sinh = _unary_inexact("sinh", lax.sinh)
cosh = _unary_inexact("cosh", lax.cosh)
tanh = _unary_inexact("tanh", lax.tanh)
arcsinh = asinh = _unary_inexact("arcsinh", lax.asinh)
arccosh = acosh = _unary_inexact("arccosh", lax.acosh)
arctanh = atanh = _unary_inexact("arctanh", lax.atanh)
sqrt = _unary_inexact("sqrt", lax.sqrt)
cbrt = _unary_inexact("cbrt", lax.cbrt)


def _log_base(base):
    def f(x):
        # A scalar log of the base, as JAX's log2 (lax.div broadcasts it).
        return lax.div(lax.log(x), lax.log(np.array(base, core.get_aval(x).dtype)))

    return f


log2 = _unary_inexact("log2", _log_base(2))
# As JAX: times the float32 of 1/log(10) (log2 divides by a log of 2, as JAX's does).
log10 = _unary_inexact("log10", lambda x: lax.mul(lax.log(x), np.array(0.4342944819032518, x.dtype)))
deg2rad = radians = _unary_inexact("deg2rad", lambda x: lax.mul(x, np.array(np.pi / 180, x.dtype)))
rad2deg = degrees = _unary_inexact("rad2deg", lambda x: lax.mul(x, np.array(180 / np.pi, x.dtype)))


def arctan2(x1, x2, /):
    """Elementwise ``atan2(x1, x2)``, the angle of the point ``(x2, x1)``."""
    x1, x2 = promote_args_inexact("arctan2", x1, x2)
    return lax.atan2(x1, x2)


atan2 = arctan2


@staged_as_jit
def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)`` without overflow for large inputs."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if dtype_kind(x1.dtype) == "c":
        raise ValueError(
            "jnp.hypot is not well defined for complex-valued inputs. "
            "Please convert to real values first, such as by using abs(x)"
        )
    x1, x2 = lax.abs(x1), lax.abs(x2)
    inf = lax.bitwise_or(isposinf(x1), isposinf(x2))
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    # (one expression, as JAX writes it: the outer test is traced before the inner one)
    x = _where(
        x1 == 0, x1, x1 * lax.sqrt(1 + lax.square(lax.div(x2, _where(x1 == 0, lax.full_like(x1, 1), x1))))
    )
    return _where(inf, np.array(np.inf, x.dtype), x)


def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` computed stably."""
    x1, x2 = promote_elementwise_inexact("logaddexp", x1, x2)
    if isinstance(x1, Tracer) or isinstance(x2, Tracer):  # JAX's custom_jvp (its derivative at ties)
        return _logaddexp_custom_jvp()(x1, x2)
    x1, x2 = promote_shapes(x1, x2)
    return _logaddexp(x1, x2)


def _logaddexp(x1, x2):
    amax = lax.max(x1, x2)
    delta = lax.sub(x1, x2)
    isnan = lax.ne(delta, delta)
    both = lax.add(x1, x2)
    return lax.select(isnan, both, lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))


@functools.lru_cache(maxsize=None)
def _logaddexp_custom_jvp():
    """JAX's logaddexp: a custom_jvp whose rule stays finite at infinities (values as the formula)."""
    from ..custom_derivatives import custom_jvp

    def logaddexp(x1, x2):
        return _logaddexp(x1, x2)

    f = custom_jvp(logaddexp)

    def replace_inf(x):
        x = as_operand(x)  # (a weak Python scalar reaches the rule as it was passed)
        return lax.select(lax.eq(x, np.asarray(np.inf, x.dtype)), lax.full_like(x, 0), x)

    def _logaddexp_jvp(primals, tangents):
        x1, x2 = primals
        t1, t2 = tangents
        out = f(x1, x2)
        tangent = lax.add(
            multiply(t1, lax.exp(subtract(replace_inf(x1), replace_inf(out)))),
            multiply(t2, lax.exp(subtract(replace_inf(x2), replace_inf(out)))),
        )
        return out, tangent

    f.defjvp(_logaddexp_jvp)
    return f


def logaddexp2(x1, x2, /):
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    ln2 = lax.full_like(x1, np.log(2))
    return lax.div(logaddexp(lax.mul(x1, ln2), lax.mul(x2, ln2)), ln2)


def sinc(x, /):
    """``sin(pi x) / (pi x)``, 1 at 0 (with a finite derivative there)."""
    (x,) = promote_args_inexact("sinc", x)
    zero = lax.eq(x, lax.full_like(x, 0))
    safe = lax.select(zero, lax.full_like(x, 1), x)
    pix = lax.mul(safe, lax.full_like(x, np.pi))
    # Near 0 use the Taylor series 1 - (pi x)^2 / 6, so the derivative at 0 is 0, not NaN.
    taylor = lax.sub(
        lax.full_like(x, 1), lax.div(lax.square(lax.mul(x, lax.full_like(x, np.pi))), lax.full_like(x, 6))
    )
    return lax.select(zero, taylor, lax.div(lax.sin(pix), pix))


def signbit(x, /):
    (x,) = promote_args("signbit", x)
    if dtype_kind(x.dtype) in "ub":
        return lax.full_like(x, False, np.bool_)
    if dtype_kind(x.dtype) in "i":
        return lax.lt(x, lax.full_like(x, 0))
    zero = lax.full_like(x, 0)
    with np.errstate(all="ignore"):
        neg_zero = lax.bitwise_and(lax.eq(x, zero), lax.lt(lax.div(lax.full_like(x, 1), x), zero))
    return lax.bitwise_or(lax.lt(x, zero), neg_zero)


def copysign(x1, x2, /):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    a = lax.abs(x1)
    return lax.select(signbit(x2), lax.neg(a), a)


@staged_as_jit
def ldexp(x1, x2, /):
    """``x1 * 2 ** x2`` for integer exponents ``x2``, finite wherever the result is.

    >>> jnp.ldexp(jnp.float32(1e-30), 120)
    Array(1.329228e+06, dtype=float32)
    """
    from ._float_bits import frexp

    x1, x2 = as_operand(x1), as_operand(x2)
    if dtype_kind(x1.dtype) == "c" or dtype_kind(x2.dtype) in "fc":
        raise ValueError(f"ldexp not supported for input types {(x1.dtype, x2.dtype)}")
    (x1,) = promote_args_inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, x1.dtype)
    # The mantissa and exponent apart, so that a small x1 times a large power of two stays finite.
    m, e = frexp(x1)
    e = convert(e, x1.dtype) + x2
    m = _where(e > 0, m * 2, m)  # the exponent may overflow by one and the result still be finite
    e = _where(e > 0, e - 1, e)
    x = m * (2**e)
    return _where(isinf(x1) | (x1 == 0), x1, x)


def heaviside(x1, x2, /):
    """0 for negative ``x1``, 1 for positive, ``x2`` where ``x1 == 0``."""
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero = lax.full_like(x1, 0)
    return lax.select(lax.lt(x1, zero), zero, lax.select(lax.gt(x1, zero), lax.full_like(x1, 1), x2))


# --- floating-point and integer helpers -------------------------------------------------------


def nextafter(x1, x2, /):
    x1, x2 = promote_args_inexact("nextafter", x1, x2)
    return lax.nextafter(x1, x2)


def modf(x, /):
    """Fractional and integral parts, both with the sign of ``x``."""
    (x,) = promote_args_inexact("modf", x)
    whole = _trunc(x)
    return lax.sub(x, whole), whole


def gcd(x1, x2, /):
    """Greatest common divisor of integers (Euclid's algorithm, unrolled for the dtype's width)."""
    x1, x2 = promote_args("gcd", x1, x2)
    if dtype_kind(x1.dtype) not in "iu":
        raise TypeError("jnp.gcd requires integer arguments")
    a, b = absolute(x1), absolute(x2)
    zero = lax.full_like(a, 0)
    for _ in range(8 * x1.dtype.itemsize * 2):
        nz = lax.ne(b, zero)
        safe = lax.select(nz, b, lax.full_like(b, 1))
        a, b = lax.select(nz, b, a), lax.select(nz, lax.rem(a, safe), zero)
    return a


def lcm(x1, x2, /):
    x1, x2 = promote_args("lcm", x1, x2)
    g = gcd(x1, x2)
    zero = lax.full_like(g, 0)
    safe = lax.select(lax.eq(g, zero), lax.full_like(g, 1), g)
    return lax.select(lax.eq(g, zero), zero, absolute(lax.mul(x1, lax.div(x2, safe))))
