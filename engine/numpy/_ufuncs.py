"""Elementwise arithmetic, rounding and transcendental functions: promote dtypes (JAX's lattice),
broadcast like numpy, then call lax (binary ones through the eager fast path of _ufunc_dispatch).

Comparisons, logic and bits are in _logic, maximum/clip/where in _selection, complex parts in
_complex_parts.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from .. import core, lax, narrow_dtypes
from ..core import Array, Tracer
from ._logic import equal, isinf, isposinf, logical_and, not_equal
from ._selection import _where, maximum, minimum
from ._reductions import no_out
from ._staged import jitted_inline, staged_as_jit
from ._promote import (
    as_operand,
    check_arraylike,
    convert,
    promote_args_numeric,
    promote_dtypes,
    promote_dtypes_numeric,
    promote_args,
    promote_args_inexact,
    promote_dtypes_inexact,
    promote_elementwise,
    promote_elementwise_inexact,
    promote_shapes,
    promote_shapes_keep_scalars,
)
from ._ufunc_dispatch import _binary, _is_bool, _is_int, _unary_inexact, check_devices
from ..narrow_dtypes import kind as dtype_kind
from ..lax.elementwise import _const, float_divide


# --- arithmetic --------------------------------------------------------------------------------


def _add(x1, x2):
    x1, x2 = promote_elementwise("add", x1, x2)
    return lax.bitwise_or(x1, x2) if _is_bool(x1) else lax.add(x1, x2)


def _subtract(x1, x2):
    x1, x2 = promote_elementwise("subtract", x1, x2)
    return lax.sub(x1, x2)


def _multiply(x1, x2):
    x1, x2 = promote_elementwise("multiply", x1, x2)
    return lax.bitwise_and(x1, x2) if _is_bool(x1) else lax.mul(x1, x2)


def _true_divide(x1, x2):
    x1, x2 = promote_elementwise_inexact("true_divide", x1, x2)
    return lax.div(x1, x2)


def _int_floor_divide(x1, x2):
    if dtype_kind(x1.dtype) == "u":
        return lax.div(x1, x2)
    # (jnp's comparisons and logical_and, as JAX's: weak operands give weak bools, converted by
    # logical_and; ``q - 1`` keeps q's weak type)
    q = lax.div(x1, x2)
    needs_fix = logical_and(not_equal(lax.sign(x1), lax.sign(x2)), not_equal(lax.rem(x1, x2), 0))
    return _where(needs_fix, subtract(q, 1), q)


def _float_divmod(x1, x2):
    # CPython's float_divmod: the quotient of x1 - mod (exact), moved down by one where the signs
    # of mod and x2 differ; rounded (away from zero) to an integral value.
    # (jnp's comparisons and arithmetic where JAX's are: weak operands stay weak)
    mod = lax.rem(x1, x2)
    x1_exact = _where(equal(x2, 0), x1, lax.sub(x1, mod))
    div = lax.div(x1_exact, x2)
    fix = lax.bitwise_and(not_equal(mod, 0), not_equal(lax.sign(x2), lax.sign(mod)))
    mod = lax.select(fix, add(mod, x2), mod)
    div = lax.select(fix, subtract(div, 1.0), div)
    return lax.round(div, 0), mod


@staged_as_jit(name="floor_divide")
def _floor_divide(x1, x2):
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    if _is_int(x1):
        return _int_floor_divide(x1, x2)
    if dtype_kind(x1.dtype) == "c":
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


@staged_as_jit(name="remainder")
def _remainder(x1, x2):
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    if _is_int(x2):  # integer x % 0 is 0, as in JAX (XLA leaves rem by 0 undefined)
        x2 = _where(lax.eq(x2, np.zeros((), x2.dtype)), lax.full_like(x2, 1), x2)
    trunc = lax.rem(x1, x2)
    zero = np.zeros((), trunc.dtype)
    nonzero = lax.ne(trunc, zero)
    fix = lax.bitwise_and(lax.ne(lax.lt(trunc, zero), lax.lt(x2, zero)), nonzero)
    return lax.select(fix, lax.add(trunc, x2), trunc)


def _np_floor_divide(a, b):
    with np.errstate(all="ignore"):
        q = np.floor_divide(a, b)
    if q.dtype.kind in "iu" and np.any(zero := b == 0):
        # XLA's x / 0 is -1 (all ones) and its x % 0 is x, so JAX's floor fix-up gives -2 for a
        # signed x != 0, -1 for 0, and the largest value unsigned (numpy's 0 would be silently wrong)
        by_zero = np.iinfo(q.dtype).max if q.dtype.kind == "u" else np.where(a == 0, -1, -2)
        q = np.where(zero, by_zero, q).astype(q.dtype)
    return q


def _np_mod(a, b):
    with np.errstate(all="ignore"):
        return np.mod(a, b)


add = _binary("add", _add, np.add)
subtract = _binary("subtract", _subtract, np.subtract)
multiply = _binary("multiply", _multiply, np.multiply)
true_divide = _binary("true_divide", _true_divide, float_divide, "f")
divide = _binary("divide", _true_divide, float_divide, "f")  # (JAX's own function, named so)
floor_divide = _binary("floor_divide", _floor_divide, _np_floor_divide, "iu")
remainder = _binary("remainder", _remainder, _np_mod, "iu")
mod = remainder


@staged_as_jit
def fmod(x1, x2, /):
    """C-style remainder (sign of ``x1``); an integer ``x % 0`` is 0, as in JAX.

    >>> jnp.fmod(jnp.array([-3.0, 3.0]), 2.0)
    Array([-1.,  1.], dtype=float32)
    """
    check_arraylike("fmod", x1, x2)
    x1, x2 = as_operand(x1), as_operand(x2)
    if _is_int(x1) and _is_int(x2):
        x2 = _where(x2 == 0, lax.full_like(x2, 1), x2)
    x1, x2 = promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, x2)


@staged_as_jit
def divmod(x1, x2, /):
    """``(floor_divide(x1, x2), remainder(x1, x2))``, computed together for floats.

    >>> jnp.divmod(jnp.array([7.0, -7.0]), 2.0)
    (Array([ 3., -4.], dtype=float32), Array([1., 1.], dtype=float32))
    """
    x1, x2 = promote_args_numeric("divmod", x1, x2)
    if _is_int(x1):
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


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
    """Integer base to an integer array exponent by repeated squaring, as JAX: six steps (a larger
    exponent overflows for any base other than 0 and +-1)."""
    zero, one = np.zeros((), y.dtype), np.ones((), y.dtype)
    acc = _where(lax.bitwise_and(lax.eq(x, zero), lax.ne(y, zero)), zero, one)  # 0 ** y is 0, y != 0
    for _ in range(6):
        acc = _where(lax.bitwise_and(y, one), lax.mul(acc, x), acc)
        x = lax.mul(x, x)
        y = lax.shift_right_logical(y, one)
    return acc


def power(x1, x2, /):
    """``x1 ** x2``; a static integer exponent uses ``lax.integer_pow`` (exact, cheap derivative).

    >>> jnp.power(jnp.arange(3.0), 2)
    Array([0., 1., 4.], dtype=float32)
    """
    check_arraylike("power", x1, x2)
    check_devices("power", x1, x2)
    n = _integer_scalar(x2)
    if n is not None:
        (x1,) = promote_dtypes_numeric(x1)
        if _is_int(x1) and n < 0:
            aval = core.get_aval(x1)
            raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow({aval}, {n})")
        return lax.integer_pow(x1, n)
    x1, x2 = promote_shapes_keep_scalars(x1, x2)  # (ranks only: not dtypes)
    p1, p2 = promote_args_numeric("power", x1, x2)
    if _is_int(p1):
        return _int_pow(p1, p2)
    if dtype_kind(x1.dtype) in "fc" and _is_int(x2):  # (differentiable in x1 at 0)
        return lax.pow(x1, x2)
    return lax.pow(p1, p2)


pow = power


def float_power(x, y, /):
    x, y = promote_args_inexact("float_power", x, y)
    return lax.pow(x, y)


def negative(x, /):
    (x,) = promote_args("negative", x)
    return lax.neg(x)


def positive(x, /):
    (x,) = promote_args("positive", x)
    return x


def reciprocal(x, /):
    (x,) = promote_args_inexact("reciprocal", x)
    return lax.integer_pow(x, -1)


def square(x, /):
    (x,) = promote_args("square", x)
    if _is_bool(x):  # squared as int32, as JAX's promote_dtypes_numeric
        x = lax.convert_element_type(x, np.int32)
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
    return _where(lax.lt(x, _const(x, 0)), lax.ceil(x), lax.floor(x))


_trunc_positional = _integral_identity("trunc", _trunc)


@staged_as_jit
def trunc(x):  # (JAX's trunc takes ``x`` by keyword too)
    """Elementwise ``trunc``; integers are returned unchanged."""
    return _trunc_positional(x)


@staged_as_jit(static_argnames=("decimals",))
def round(a, decimals: int = 0, out=None):
    """Round half to even, to ``decimals`` places (integers are left as they are; JAX refuses
    negative ``decimals`` for them).

    >>> jnp.round(jnp.array([0.5, 1.5, 2.25]), 1)
    Array([0.5, 1.5, 2.2], dtype=float32)
    """
    no_out("round", out)
    (a,) = promote_args("round", a)
    decimals = int(decimals)
    if dtype_kind(a.dtype) == "c":  # each part on its own, inside this one jit (as JAX)
        return lax.complex(_round(lax.real(a), decimals), _round(lax.imag(a), decimals))
    return _round(a, decimals)


def _round(a, decimals):
    if _is_bool(a):  # JAX's error class and words
        raise ValueError(f"data type {np.bool_} not inexact")
    if dtype_kind(a.dtype) in "iu":
        if decimals >= 0:
            return a
        raise NotImplementedError("integer np.round not implemented for decimals < 0")  # (as JAX)
    if decimals == 0:
        return lax.round(a, 1)
    dtype = a.dtype
    if decimals > np.log10(float(narrow_dtypes.finfo(dtype).max)):  # beyond the precision: a no-op, as JAX
        return a
    if dtype == np.float16:  # (JAX scales in float32: 10**decimals * x would round in float16)
        a = lax.convert_element_type(a, np.dtype(np.float32))
    factor = np.array(10.0**decimals, a.dtype)  # (a scalar constant, as JAX's lax._const)
    out = lax.div(lax.round(lax.mul(a, factor), 1), factor)
    return lax.convert_element_type(out, dtype) if dtype == np.float16 else out


@staged_as_jit(static_argnames=("decimals",))
def around(a, decimals: int = 0, out=None):
    """``round`` (JAX's own jit around the jitted ``round``).

    >>> jnp.around(jnp.array([0.25, 1.5]), 1)
    Array([0.2, 1.5], dtype=float32)
    """
    return round(a, decimals, out)


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
arccosh = acosh = staged_as_jit(_unary_inexact("arccosh", lax.acosh))
arctanh = atanh = _unary_inexact("arctanh", lax.atanh)
sqrt = _unary_inexact("sqrt", lax.sqrt)
cbrt = _unary_inexact("cbrt", lax.cbrt)


def _log_base(base):
    def f(x):
        # A scalar log of the base, as JAX's log2 (lax.div broadcasts it; so XLA, and the engine,
        # multiply by its reciprocal).
        return lax.div(lax.log(x), lax.log(np.array(base, core.get_aval(x).dtype)))

    return f


log2 = _unary_inexact("log2", _log_base(2))


# As JAX: times the float32 of 1/log(10) (log2 divides by a log of 2, as JAX's does).
def _log10(x):
    c = np.array(0.4342944819032518, narrow_dtypes.finfo(x.dtype).dtype)
    if np.dtype(x.dtype).kind == "c":  # each part times the real constant (no complex multiply)
        r = lax.log(x)
        return lax.complex(lax.mul(lax.real(r), c), lax.mul(lax.imag(r), c))
    return lax.mul(lax.log(x), c)


log10 = _unary_inexact("log10", _log10)
deg2rad = radians = _unary_inexact("deg2rad", lambda x: lax.mul(x, _const(x, np.pi / 180)))
rad2deg = degrees = _unary_inexact("rad2deg", lambda x: lax.mul(x, _const(x, 180 / np.pi)))


@jitted_inline  # (JAX's jit(inline=True): eagerly differentiated, its JVP one compiled program)
def arctan2(x1, x2, /):
    """Elementwise ``atan2(x1, x2)``, the angle of the point ``(x2, x1)``."""
    check_devices("arctan2", x1, x2)
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
    return _where(inf, _const(x, np.inf), x)


def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` computed stably."""
    x1, x2 = promote_elementwise_inexact("logaddexp", x1, x2)
    if isinstance(x1, Tracer) or isinstance(x2, Tracer):  # JAX's custom_jvp (its derivative at ties)
        return _logaddexp_custom_jvp(shared_traces=True)(x1, x2)
    x1, x2 = promote_shapes(x1, x2)
    return _logaddexp(x1, x2)


def _wrap_between(x, a):
    """``x`` wrapped into ``[-a, a]`` (the phase of a complex logaddexp, as JAX's)."""
    a, two_a, zero = _const(x, a), _const(x, 2 * a), _const(x, 0)
    rem = lax.rem(lax.add(x, a), two_a)
    rem = lax.select(lax.lt(rem, zero), lax.add(rem, two_a), rem)
    return lax.sub(rem, a)


def _complex_logaddexp(x1, x2, amax, exp, log_base, period):
    delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _const(amax, 2)))
    out = lax.add(amax, log_base(lax.log1p(exp(delta))))
    return lax.complex(lax.real(out), _wrap_between(lax.imag(out), period))


def _logaddexp(x1, x2):
    amax = lax.max(x1, x2)
    if dtype_kind(amax.dtype) == "c":
        return _complex_logaddexp(x1, x2, amax, lax.exp, lambda v: v, np.pi)
    delta = lax.sub(x1, x2)
    isnan = lax.ne(delta, delta)
    both = lax.add(x1, x2)
    return lax.select(isnan, both, lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))))


@functools.lru_cache(maxsize=None)
def _logaddexp_custom_jvp(shared_traces: bool = False):
    """JAX's logaddexp: a custom_jvp whose rule stays finite at infinities (values as the formula).
    ``shared_traces``: jnp.logaddexp's, which JAX calls inside a jit(inline=True)."""
    from ..custom_derivatives import custom_jvp

    def logaddexp(x1, x2):
        return _logaddexp(x1, x2)

    f = custom_jvp(logaddexp)
    f.shares_traces = shared_traces

    def _logaddexp_jvp(primals, tangents):
        x1, x2 = primals
        t1, t2 = tangents
        out = f(x1, x2)
        tangent = lax.add(
            multiply(t1, lax.exp(subtract(_replace_inf(x1), _replace_inf(out)))),
            multiply(t2, lax.exp(subtract(_replace_inf(x2), _replace_inf(out)))),
        )
        return out, tangent

    f.defjvp(_logaddexp_jvp)
    return f


@jitted_inline  # (JAX's binary_ufunc: eagerly one compiled program, its multiply-add fused)
def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` computed stably.

    >>> jnp.logaddexp2(jnp.array([1.0, 3.0]), 1.0)
    Array([2.      , 3.321928], dtype=float32)
    """
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    return _logaddexp2_custom_jvp()(x1, x2)


def _logaddexp2(x1, x2):
    amax = lax.max(x1, x2)
    inv_ln2 = _const(amax, 1 / np.log(2))
    if dtype_kind(amax.dtype) == "c":
        base2 = lambda v: lax.mul(inv_ln2, v)  # noqa: E731
        return _complex_logaddexp(x1, x2, amax, lax.exp2, base2, np.pi / np.log(2))
    delta = lax.sub(x1, x2)
    isnan = lax.ne(delta, delta)
    both = lax.add(x1, x2)
    return lax.select(
        isnan, both, lax.add(amax, lax.mul(inv_ln2, lax.log1p(lax.exp2(lax.neg(lax.abs(delta))))))
    )


@functools.lru_cache(maxsize=None)
def _logaddexp2_custom_jvp():
    """JAX's logaddexp2: a custom_jvp whose rule stays finite at infinities."""
    from ..custom_derivatives import custom_jvp

    def logaddexp2(x1, x2):
        return _logaddexp2(x1, x2)

    f = custom_jvp(logaddexp2)

    def _logaddexp2_jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = f(x1, x2)
        return out, lax.add(
            lax.mul(t1, lax.exp2(lax.sub(_replace_inf(x1), _replace_inf(out)))),
            lax.mul(t2, lax.exp2(lax.sub(_replace_inf(x2), _replace_inf(out)))),
        )

    f.defjvp(_logaddexp2_jvp)
    return f


def _replace_inf(x):
    x = as_operand(x)  # (a weak Python scalar reaches the rule as it was passed)
    re_x = lax.real(x) if dtype_kind(x.dtype) == "c" else x
    return lax.select(lax.eq(re_x, _const(re_x, np.inf)), lax.full_like(x, 0), x)


@staged_as_jit
def sinc(x, /):
    """``sin(pi x) / (pi x)``, 1 at 0 (with the series' derivatives there, not NaN).

    >>> jnp.sinc(jnp.array([0.0, 0.5]))
    Array([1.        , 0.63661975], dtype=float32)
    """
    check_arraylike("sinc", x)
    (x,) = promote_dtypes_inexact(as_operand(x))
    at_zero = lax.eq(x, _const(x, 0))
    pi_x = lax.mul(_const(x, np.pi), x)
    safe_pi_x = _where(at_zero, _const(x, 1), pi_x)
    return _where(at_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe_pi_x), safe_pi_x))


@functools.lru_cache(maxsize=None)
def _sinc_maclaurin_fn():
    """The k-th derivative of ``sin(x)/x`` at 0 (as a function of ``x``, for its tangent): the
    series' terms, one custom_jvp level per derivative, as JAX's ``_sinc_maclaurin``."""
    from ..custom_derivatives import custom_jvp

    def _sinc_maclaurin(k, x):
        if k % 2:
            return x * 0
        return x * 0 + _const(x, (-1) ** (k // 2) / (k + 1))

    f = custom_jvp(_sinc_maclaurin, nondiff_argnums=(0,))

    def _sinc_maclaurin_jvp(k, primals, tangents):
        (x,), (t,) = primals, tangents
        return f(k, x), f(k + 1, x) * t

    f.defjvp(_sinc_maclaurin_jvp)
    return f


def _sinc_maclaurin(k, x):
    return _sinc_maclaurin_fn()(k, x)


_INT_OF_BITS = {16: np.int16, 32: np.int32, 64: np.int64}


@staged_as_jit
def signbit(x, /):
    """Whether the sign bit is set (``-0.0`` and ``-nan`` included).

    >>> jnp.signbit(jnp.array([-1.0, -0.0, 0.0]))
    Array([ True,  True, False], dtype=bool)
    """
    (x,) = promote_args("signbit", x)
    if dtype_kind(x.dtype) in "iu":
        return lax.lt(x, _const(x, 0))
    if _is_bool(x):
        return lax.full_like(x, False, np.bool_)
    if dtype_kind(x.dtype) != "f":
        raise ValueError(f"jax.numpy.signbit is not well defined for {x.dtype}")
    info = np.finfo(x.dtype)
    if info.bits not in _INT_OF_BITS:
        raise NotImplementedError("jax.numpy.signbit only supports 16, 32, and 64-bit types.")
    bits = lax.bitcast_convert_type(x, _INT_OF_BITS[info.bits])
    return lax.convert_element_type(bits >> (info.nexp + info.nmant), np.bool_)


@staged_as_jit
def copysign(x1, x2, /):
    """``x1``'s magnitude with ``x2``'s sign bit.

    >>> jnp.copysign(jnp.array([1.0, 2.0]), -0.0)
    Array([-1., -2.], dtype=float32)
    """
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    if dtype_kind(x1.dtype) == "c":
        raise TypeError("copysign does not support complex-valued inputs")
    return _where(signbit(x2).astype(np.bool_), lax.neg(lax.abs(x1)), lax.abs(x1))


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


@staged_as_jit
def heaviside(x1, x2, /):
    """0 for negative ``x1``, 1 for positive, ``x2`` where ``x1 == 0`` (NaN stays NaN).

    >>> jnp.heaviside(jnp.array([-1.0, 0.0, 2.0]), 0.5)
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    check_arraylike("heaviside", x1, x2)
    x1, x2 = promote_dtypes_inexact(as_operand(x1), as_operand(x2))
    zero = _const(x1, 0)
    return _where(
        lax.lt(x1, zero), zero, _where(lax.gt(x1, zero), _const(x1, 1), _where(lax.ne(x1, x1), x1, x2))
    )


# --- floating-point and integer helpers -------------------------------------------------------


def nextafter(x, y, /):
    x, y = promote_args_inexact("nextafter", x, y)
    return lax.nextafter(x, y)


@staged_as_jit
def modf(x, /, out=None):
    """Fractional and integral parts, both with the sign of ``x``.

    >>> jnp.modf(jnp.array([-1.5, 2.25]))
    (Array([-0.5 ,  0.25], dtype=float32), Array([-1.,  2.], dtype=float32))
    """
    check_arraylike("modf", x)
    no_out("modf", out)
    (x,) = promote_dtypes_inexact(as_operand(x))
    whole = _where(lax.ge(x, np.zeros((), x.dtype)), lax.floor(x), lax.ceil(x))
    return lax.sub(x, whole), whole


@staged_as_jit
def gcd(x1, x2):
    """Greatest common divisor of integers (Euclid's algorithm in a while_loop, as JAX).

    >>> jnp.gcd(jnp.array([12, -18, 0]), 8)
    Array([4, 2, 8], dtype=int32)
    """
    from ._shape import broadcast_arrays

    check_arraylike("gcd", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    if not _is_int(x1):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = broadcast_arrays(x1, x2)
    out, _ = lax.while_loop(_gcd_cond, _gcd_body, (absolute(x1), absolute(x2)))
    return out


def _gcd_cond(xs):
    from ._reductions import any as any_

    return any_(xs[1] != 0)


def _gcd_body(xs):
    x1, x2 = xs
    x1, x2 = _where(x2 != 0, x2, x1), _where(x2 != 0, lax.rem(x1, x2), _const(x2, 0))
    return _where(x1 < x2, x2, x1), _where(x1 < x2, x1, x2)


@staged_as_jit
def lcm(x1, x2):
    """Least common multiple of integers.

    >>> jnp.lcm(jnp.array([4, 6]), 6)
    Array([12,  6], dtype=int32)
    """
    check_arraylike("lcm", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    x1, x2 = absolute(x1), absolute(x2)
    if not _is_int(x1):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return _where(d == 0, _const(d, 0), multiply(x1, floor_divide(x2, d)))
