"""Elementwise primitives: one table row per operation (numpy impl, derivative, batching)."""

from __future__ import annotations

import operator

import numpy as np

from .. import ad, batching, core, ir, narrow_dtypes
from . import complex_numbers, libm_f32
from . import complex64_xla
from .complex64_xla import complex64_or
from .float32_impls import (
    erf,
    erf_inv,
    exp2_rounding_steps,
    inverse_trig_rounding_steps,
    libm_or,
    logistic,
    negative_nan_past_one,
    xla_kernel_or,
)
from .float32_impls import rsqrt as rsqrt_impl
from . import elementwise_numerics as numerics
from .accuracy import OPS as ACCURACY_OPS
from .accuracy import primal_only, taking_accuracy
from ..core import Primitive, ShapedArray
from .reduce_precision import reduce_precision_bits
from ..ad import defjvp, defjvp2, defzero, Zero
from ..narrow_dtypes import kind as dtype_kind
from .implicit_broadcasts import to_shape as _to_shape, unbroadcast as _unbroadcast

_FLOAT = "floating"
_COMPLEX = "complex"
_INT = "integer"
_SIGNED = "signedinteger"
_BOOL = "bool"
_ANY = "any"


def _kind_ok(aval, kinds):
    kind = dtype_kind(aval.dtype)
    return (
        (_FLOAT in kinds and kind == "f")
        or (_COMPLEX in kinds and kind == "c")
        or (_INT in kinds and kind in "iu")
        or (_SIGNED in kinds and kind == "i")
        or (_BOOL in kinds and kind == "b")
        or _ANY in kinds
    )


def _check_kind(name, aval, kinds):
    if not _kind_ok(aval, kinds):
        raise TypeError(
            f"{name} does not accept dtype {aval.dtype.name}. Accepted dtypes are subtypes of "
            f"{', '.join(_JAX_TYPE_NAMES.get(k, k) for k in kinds)}."
        )


# (numpy's abstract types JAX names: np.complexfloating's name is "complexfloating")
_JAX_TYPE_NAMES = {
    _INT: "integer",
    _FLOAT: "floating",
    _COMPLEX: "complexfloating",
    _BOOL: "bool",
    _SIGNED: "signedinteger",
}


def _check_operand_kind(name, aval, kinds, position):
    """A binary operation's operand check, with JAX's message (the position, JAX's type names)."""
    if not _kind_ok(aval, kinds):
        names = ", ".join(v for k, v in _JAX_TYPE_NAMES.items() if k in kinds)
        raise TypeError(
            f"{name} does not accept dtype {aval.dtype.name} at position {position}. Accepted dtypes at "
            f"position {position} are subtypes of {names}."
        )


def _checking_kinds(name, impl, kinds, binary=False, kinds_at_1=None):
    """Eager evaluation skips abstract evaluation: refuse operands of a kind the operation does not
    take here too (complex for a real op, floats for a shift or popcount), so it raises as JAX does
    instead of returning numpy's answer for a different op (a float's bits shifted)."""
    if _ANY in kinds:
        return impl

    accepted: set = set()  # (dtype, position) pairs found fine: every eager call checks again

    def checked(x, *rest, **params):
        operands = (x, *rest[:1]) if binary else (x,)
        for i, a in enumerate(operands):
            dtype = getattr(a, "dtype", None)
            if dtype is None or (dtype, i) in accepted:
                continue
            if _kind_ok(ShapedArray((), dtype), kinds if i == 0 else kinds_at_1):
                accepted.add((dtype, i))
            else:
                aval = ShapedArray((), core.extended_dtype_of(dtype) or dtype)  # (keys: their storage)
                if binary:
                    _check_operand_kind(name, aval, kinds if i == 0 else kinds_at_1, i)
                _check_kind(name, aval, kinds)
        return impl(x, *rest, **params)

    checked.__name__ = getattr(impl, "__name__", name)
    return checked


def unop(name, impl, kinds=(_FLOAT,), result_dtype=None):
    p = Primitive(name)
    checked = _checking_kinds(name, impl, kinds)
    p.def_impl(taking_accuracy(checked) if name in ACCURACY_OPS else checked)

    def abstract(x, **params):
        _check_kind(name, x, kinds)
        if result_dtype is not None:  # (is_finite: weak in, weak out, as in JAX)
            return ShapedArray(x.shape, result_dtype, x.weak_type)
        return x

    p.def_abstract_eval(abstract)
    p.keeps_weak_type = result_dtype is not None
    batching.vectorized_batcher(p)
    return p


def _checking_shapes(name, impl):
    """Eager evaluation skips abstract evaluation: operands whose shapes do not broadcast as lax's
    do raise its TypeError here too (numpy would broadcast ranks, or raise a ValueError)."""

    def checked(x, y, **params):
        if x.shape != y.shape and x.ndim and y.ndim:
            _broadcast_size_one(name, x.shape, y.shape)
        return impl(x, y, **params)

    checked.__name__ = getattr(impl, "__name__", name)
    return checked


def binop(name, impl, kinds=(_FLOAT, _INT), result_dtype=None, kinds_at_1=None):
    """``kinds_at_1``: the second operand's, where it differs (pow takes an integer exponent; its
    abstract evaluation is its own)."""
    p = Primitive(name)
    p.def_impl(_checking_shapes(name, _checking_kinds(name, impl, kinds, True, kinds_at_1 or kinds)))

    def abstract(x, y, **params):
        _check_operand_kind(name, x, kinds, 0)
        _check_operand_kind(name, y, kinds, 1)
        if x.dtype != y.dtype:
            raise TypeError(
                f"lax.{name} requires arguments to have the same dtypes, got "
                f"{x.dtype.name}, {y.dtype.name}. Cast one with .astype() "
                f"(jnp functions promote dtypes for you)."
            )
        dtype = result_dtype or x.dtype
        shape = _broadcast_size_one(name, x.shape, y.shape)
        return ShapedArray(shape, dtype, x.weak_type and y.weak_type)

    p.def_abstract_eval(abstract)
    p.keeps_weak_type = result_dtype is not None
    batching.broadcast_batcher(p, size_one=True)
    implicitly_broadcasting.add(p)
    operand_kinds[name] = (kinds, kinds_at_1 or kinds)
    return p


# Binary op name -> the dtype kinds each operand takes: JAX checks them before it checks that the
# dtypes agree, so ``lax.add(int32, bool)`` names the bool, not the mismatch.
operand_kinds: dict[str, tuple] = {}


def check_operand_kinds(name: str, *dtypes) -> None:
    """Raise JAX's TypeError if an operand of the binary op ``name`` has a dtype kind it refuses."""
    for position, (dtype, kinds) in enumerate(zip(dtypes, operand_kinds.get(name, ()))):
        try:
            aval = ShapedArray((), np.dtype(dtype))
        except TypeError:  # (a PRNG key's dtype: not a numpy one)
            continue
        _check_operand_kind(name, aval, kinds, position)


# Binary ops that broadcast as JAX's lax does: a scalar with anything, and size-1 axes of
# operands of equal rank (``add x:f32[4,2] b:f32[1,2]``). Backends make these broadcasts explicit.
implicitly_broadcasting: set = set()


def _broadcast_size_one(name, xs, ys):
    """The result shape of a binary lax op (JAX's ``broadcasting_shape_rule``, its TypeErrors)."""
    if xs == ys or not ys:
        return xs
    if not xs:
        return ys
    if len(xs) != len(ys):
        raise TypeError(
            f"{name}: arrays must have the same number of dimensions, got { ({len(xs), len(ys)}) }"  # (a set, as JAX's)
        )
    if all(a == b or a == 1 or b == 1 for a, b in zip(xs, ys)):
        return tuple(b if a == 1 else a for a, b in zip(xs, ys))
    raise TypeError(f"{name} got incompatible shapes for broadcasting: {tuple(xs)}, {tuple(ys)}.")


def _errs(f):
    def g(*args, **kw):
        with np.errstate(all="ignore"):
            return f(*args, **kw)

    g.__name__ = getattr(f, "__name__", "impl")
    return g


# (the kinds in the order JAX's messages list them)
neg_p = unop("neg", np.negative, (_INT, _FLOAT, _COMPLEX))


sign_p = unop("sign", complex64_or("sign", numerics.sign), (_INT, _FLOAT, _COMPLEX))
square_p = unop("square", complex64_or("square", np.square), (_INT, _FLOAT, _COMPLEX))
floor_p = unop("floor", np.floor)
ceil_p = unop("ceil", np.ceil)
round_p = unop("round", numerics.round_)
is_finite_p = unop("is_finite", np.isfinite, (_FLOAT,), np.dtype("bool"))
exp_p = unop("exp", complex64_or("exp", xla_kernel_or("exp", np.exp, quiet=True)), (_FLOAT, _COMPLEX))
exp2_p = unop(
    "exp2",
    complex64_or("exp2", exp2_rounding_steps(xla_kernel_or("exp2", np.exp2, quiet=True))),
    (_FLOAT, _COMPLEX),
)
narrow_dtypes.keeps_narrow.add(exp2_p)  # (it rounds each step itself)
log_p = unop("log", complex64_or("log", xla_kernel_or("log", np.log, quiet=True)), (_FLOAT, _COMPLEX))
log1p_p = unop(
    "log1p", complex64_or("log1p", xla_kernel_or("log1p", np.log1p, quiet=True)), (_FLOAT, _COMPLEX)
)
expm1_p = unop(
    "expm1", complex64_or("expm1", xla_kernel_or("expm1", np.expm1, quiet=True)), (_FLOAT, _COMPLEX)
)
tanh_p = unop("tanh", complex64_or("tanh", xla_kernel_or("tanh", np.tanh)), (_FLOAT, _COMPLEX))
logistic_p = unop("logistic", logistic, (_FLOAT, _COMPLEX))
narrow_dtypes.keeps_narrow.add(logistic_p)  # (it rounds each step itself)
sin_p = unop("sin", complex64_or("sin", libm_or("sin", np.sin)), (_FLOAT, _COMPLEX))
cos_p = unop("cos", complex64_or("cos", libm_or("cos", np.cos)), (_FLOAT, _COMPLEX))
tan_p = unop("tan", complex64_or("tan", libm_or("tan", np.tan)), (_FLOAT, _COMPLEX))


asin_p, acos_p = (
    unop(name, complex64_or(name, inverse_trig_rounding_steps(name, libm_or(name, negative_nan_past_one(f)))),
         (_FLOAT, _COMPLEX))
    for name, f in (("asin", np.arcsin), ("acos", np.arccos))
)  # fmt: skip
narrow_dtypes.keeps_narrow.update((asin_p, acos_p))  # (they round each step themselves)
atan_p = unop("atan", complex64_or("atan", libm_or("atan", np.arctan)), (_FLOAT, _COMPLEX))
sinh_p = unop("sinh", complex64_or("sinh", xla_kernel_or("sinh", _errs(np.sinh))), (_FLOAT, _COMPLEX))
cosh_p = unop("cosh", complex64_or("cosh", xla_kernel_or("cosh", _errs(np.cosh))), (_FLOAT, _COMPLEX))
asinh_p = unop("asinh", complex64_or("asinh", xla_kernel_or("asinh", _errs(np.arcsinh))), (_FLOAT, _COMPLEX))
acosh_p = unop("acosh", complex64_or("acosh", xla_kernel_or("acosh", _errs(np.arccosh))), (_FLOAT, _COMPLEX))
atanh_p = unop("atanh", complex64_or("atanh", xla_kernel_or("atanh", _errs(np.arctanh))), (_FLOAT, _COMPLEX))
sqrt_p = unop("sqrt", complex64_or("sqrt", _errs(np.sqrt)), (_FLOAT, _COMPLEX))
rsqrt_p = unop("rsqrt", complex64_or("rsqrt", rsqrt_impl), (_FLOAT, _COMPLEX))
cbrt_p = unop("cbrt", libm_or("cbrt", np.cbrt))
abs_p = unop("abs", complex64_or("abs", np.abs), (_FLOAT, _COMPLEX, _SIGNED))


@abs_p.def_abstract_eval
def _abs_abstract(x):
    _check_kind("abs", x, (_FLOAT, _COMPLEX, _SIGNED))
    if x.dtype.name in narrow_dtypes.INT_NAMES:  # (|-8| is no int4: JAX refuses them)
        raise TypeError(
            f"abs does not accept dtype {x.dtype.name}. Support for narrow-width integers is "
            "platform-dependent and limited to a few specific operations, e.g. basic arithmetic and type casting."
        )
    if dtype_kind(x.dtype) == "c":  # |z| is real
        return ShapedArray(x.shape, np.dtype(x.dtype.char.lower()), x.weak_type)
    return x


erf_p = unop("erf", erf)
erf_inv_p = unop("erf_inv", erf_inv)
not_p = unop("not", np.invert, (_INT, _BOOL))
# (counted in the unsigned view: numpy counts a negative integer's magnitude, XLA its two's complement)
population_count_p = unop(
    "population_count", lambda x: np.bitwise_count(numerics.unsigned(x)).astype(x.dtype), (_INT,)
)

add_p = binop("add", np.add, (_FLOAT, _INT, _COMPLEX))
sub_p = binop("sub", np.subtract, (_FLOAT, _INT, _COMPLEX))


def _multiply(x, y, out_dtype=None):  # (out_dtype: JAX's param, None: the operands' dtype)
    if x.dtype == np.complex64 and y.dtype == np.complex64:  # (XLA's fused multiply-adds)
        with np.errstate(all="ignore"):
            return complex64_xla.multiply(x, y)
    return np.multiply(x, y)


mul_p = binop("mul", _multiply, (_FLOAT, _INT, _COMPLEX))


def _minmax(np_fn, greater: bool):
    def impl(x, y):
        if x.dtype.kind == "c":
            return np.where(complex_numbers.complex_picks_x(x, y, greater), x, y)
        out = np_fn(x, y)
        return numerics.xla_float_minmax(out, x, y, greater) if out.dtype.kind == "f" else out

    return impl


max_p = binop("max", _minmax(np.maximum, True), (_FLOAT, _INT, _BOOL, _COMPLEX))
min_p = binop("min", _minmax(np.minimum, False), (_FLOAT, _INT, _BOOL, _COMPLEX))


def _complex_atan2(y, x):  # (complex128, which numpy's arctan2 refuses: XLA's formula)
    return -1j * np.log((x + 1j * y) / np.sqrt(x * x + y * y))


atan2_p = binop(
    "atan2",
    complex64_or(
        "atan2", libm_or("atan2", lambda y, x: (_complex_atan2 if y.dtype.kind == "c" else np.arctan2)(y, x))
    ),
    (_FLOAT, _COMPLEX),
)
nextafter_p = binop("nextafter", np.nextafter, (_FLOAT,))
and_p = binop("and", np.bitwise_and, (_INT, _BOOL))
or_p = binop("or", np.bitwise_or, (_INT, _BOOL))
xor_p = binop("xor", np.bitwise_xor, (_INT, _BOOL))


shift_left_p = binop("shift_left", numerics.shift_left, (_INT,))
shift_right_logical_p = binop("shift_right_logical", numerics.shift_right_logical, (_INT,))
shift_right_arithmetic_p = binop("shift_right_arithmetic", numerics.shift_right_arithmetic, (_INT,))

# nextafter steps in the narrow type itself (numpy's on ml_dtypes' types): widened, it would step
# by a float32 ulp and round back to where it started.
narrow_dtypes.keeps_narrow.add(nextafter_p)


def _refusing_narrow_ints(p):
    """Operations whose result depends on the bit width: computed widened to 8 bits they would be
    wrong for int4 and the like, so they are refused (XLA's CPU answers are platform-dependent)."""
    rule = core.abstract_eval_rules[p]

    def checked(*avals, **params):
        for a in avals:
            if a.dtype.name in narrow_dtypes.INT_NAMES:
                raise TypeError(
                    f"{p.name} does not accept dtype {a.dtype.name} on the engine: it computes 2- and "
                    "4-bit integers in 8 bits, which changes the bits this operation sees. Convert with "
                    "x.astype('int8') (or 'uint8') first."
                )
        return rule(*avals, **params)

    p.def_abstract_eval(checked)


for _p in (population_count_p, shift_left_p, shift_right_logical_p, shift_right_arithmetic_p):
    _refusing_narrow_ints(_p)


# float16 too (a float16 reciprocal times x, rounded to float16: JAX's bits); bfloat16 is divided in
# float32, as XLA's CPU backend widens it first
RECIPROCAL_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def float_divide(x, y):
    """``x / y`` of float arrays as XLA computes it: a divisor broadcast against the dividend (a
    scalar, size-1 axes) is inverted once and multiplied, as XLA's algebraic simplifier rewrites
    A / broadcast(B) (``algebraic_simplifier._reciprocal``); JAX's eager ``x / 3.0`` is a compiled
    computation too."""
    with np.errstate(all="ignore"):
        y = np.asarray(y)
        if y.dtype in RECIPROCAL_DTYPES and np.shape(x) != y.shape:
            if np.broadcast_shapes(np.shape(x), y.shape) != y.shape:
                return np.multiply(x, np.true_divide(y.dtype.type(1), y))
        return np.true_divide(x, y)


def _div_impl(x, y):
    with np.errstate(all="ignore"):
        if dtype_kind(x.dtype) in "iu":
            # C-style truncation toward zero, like XLA; x / 0 is -1 (all bits set), and
            # INT_MIN / -1 wraps to INT_MIN.
            safe_y = np.where(y == 0, 1, y)
            q = x // safe_y
            q = q + ((q * safe_y != x) & ((x < 0) != (safe_y < 0))).astype(x.dtype)
            return np.where(y == 0, np.array(-1).astype(x.dtype), q).astype(x.dtype)
        if x.dtype == np.complex64:  # (XLA's Smith's algorithm)
            return complex64_xla.divide(*np.broadcast_arrays(x, y))
        return float_divide(x, y)


def _rem_impl(x, y):
    with np.errstate(all="ignore"):
        if dtype_kind(x.dtype) in "iu":  # sign of the dividend; x % 0 is x, as in XLA
            return np.where(y == 0, x, np.fmod(x, np.where(y == 0, 1, y))).astype(x.dtype)
        return np.fmod(x, y)


div_p = binop("div", _div_impl, (_FLOAT, _INT, _COMPLEX))
rem_p = binop("rem", _rem_impl)


def _pow_impl(x, y):
    _check_operand_kind("pow", x, (_FLOAT, _COMPLEX), 0)  # (eager evaluation may skip abstract evaluation)
    # An integer exponent is converted to the base's dtype first, as JAX lowers it (numpy would
    # compute float32 ** int32 in float64).
    y = np.asarray(y).astype(x.dtype, copy=False)
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:  # XLA's CPU pow is the C library's powf
            return libm_f32.kernel("pow", x, y)
        if x.dtype == np.complex64:
            return complex64_xla.power(*np.broadcast_arrays(x, y))
        return np.power(x, y)


def _pow_abstract(x, y):
    # As JAX's pow_p: an inexact base, and an exponent of the same dtype or of any integer dtype.
    _check_operand_kind("pow", x, (_FLOAT, _COMPLEX), 0)
    _check_operand_kind("pow", y, (_FLOAT, _COMPLEX, _INT), 1)
    if x.dtype != y.dtype and dtype_kind(y.dtype) not in "iu":
        raise TypeError(
            "the first argument to pow must have an inexact dtype (float or complex), and the second "
            "argument must have an inexact or integer dtype, and two inexact dtypes must match, but got "
            f"{x.dtype} and {y.dtype} respectively."
        )
    return ShapedArray(_broadcast_size_one("pow", x.shape, y.shape), x.dtype, x.weak_type and y.weak_type)


pow_p = binop("pow", _pow_impl, (_FLOAT, _COMPLEX), kinds_at_1=(_FLOAT, _COMPLEX, _INT))
pow_p.def_abstract_eval(_pow_abstract)


def _equality(np_fn, op):
    """numpy's ufunc, or for typed keys (structured storage, which the ufunc refuses) the
    operator, which compares every word of each key."""
    return lambda x, y: np.asarray(op(x, y)) if x.dtype.kind == "V" else np_fn(x, y)


_cmp = dict(
    eq=_equality(np.equal, operator.eq),
    ne=_equality(np.not_equal, operator.ne),
    lt=np.less,
    le=np.less_equal,
    gt=np.greater,
    ge=np.greater_equal,
)
eq_p, ne_p, lt_p, le_p, gt_p, ge_p = (
    binop(n, f, (_ANY,) if n in ("eq", "ne") else (_FLOAT, _INT, _BOOL), np.dtype("bool"))
    for n, f in _cmp.items()
)


# integer_pow keeps its exponent static so the jaxpr shows `integer_pow[y=2]`.
integer_pow_p = Primitive("integer_pow")


def _integer_pow_abstract(x, *, y):
    _check_kind("integer_pow", x, (_INT, _FLOAT, _COMPLEX))  # (bools refused, as JAX's)
    if y < 0 and dtype_kind(x.dtype) in "iu":
        raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow({x}, {y})")
    return x


@integer_pow_p.def_impl
def _integer_pow_impl(x, *, y):
    _integer_pow_abstract(ShapedArray(x.shape, x.dtype), y=y)
    if narrow_dtypes.is_narrow(x.dtype):
        return _narrow_integer_pow(x, y)
    with np.errstate(all="ignore"):
        if x.dtype == np.complex64:
            return complex64_xla.integer_pow(x, y)
        if dtype_kind(x.dtype) != "f" or y == 0:
            return np.power(x, x.dtype.type(y)) if y >= 0 else (1 / np.power(x, -y)).astype(x.dtype)
        # (JAX's lowering, compiled kernels' too: products by repeated squaring, each rounded, then
        # a reciprocal; numpy's power rounds x**3 once)
        acc = complex64_xla.by_squaring(np.asarray(x), abs(y), np.multiply)
        return acc if y > 0 else np.divide(x.dtype.type(1), acc)


def _narrow_integer_pow(x, y):
    """XLA's integer_pow on bfloat16 and the like: JAX lowers it to multiplications by repeated
    squaring, and each product rounds to the narrow dtype."""
    wide = narrow_dtypes.WIDE[x.dtype]

    def mul(a, b):
        return (a.astype(wide) * b.astype(wide)).astype(x.dtype)

    acc = complex64_xla.by_squaring(x, abs(y), mul) if y else np.ones_like(x)
    return acc if y >= 0 else (1 / acc.astype(wide)).astype(acc.dtype)


narrow_dtypes.keeps_narrow.add(integer_pow_p)  # (it rounds each product itself)
integer_pow_p.def_abstract_eval(_integer_pow_abstract)
batching.vectorized_batcher(integer_pow_p)


# ---------------------------------------------------------------------------------------------
# Derivatives. Written with the public lax wrappers so they compose with every transformation.


def _lax():
    global _api
    if _api is None:
        from . import api as _loaded

        _api = _loaded
    return _api


_api = None


def _L(name):
    return lambda *a, **k: getattr(_lax(), name)(*a, **k)


def _L2(name):
    """A binary lax op for the rules below, whose constants are Python scalars: public lax never
    promotes, so a scalar becomes a constant of the other operand's dtype (JAX's rules write
    ``_const(x, c)``); two scalars of different kinds (an int exponent and a complex primal) both
    take the wider kind's dtype."""

    def f(x, y):
        if type(x) in _PY and type(y) in _PY and type(x) is not type(y):
            dtype = core.python_scalar_dtype(complex() if complex in (type(x), type(y)) else 0.0)
            x, y = core.Array(np.asarray(x, dtype), True), core.Array(np.asarray(y, dtype), True)
        lax = _lax()
        px, py = lax._is_python_scalar(x), lax._is_python_scalar(y)
        if px != py:
            x, y = (lax._const_like(y, x), y) if px else (x, lax._const_like(x, y))
        return getattr(lax, name)(x, y)

    return f


_PY = (int, float, complex)
mul, add, sub, div = _L2("mul"), _L2("add"), _L2("sub"), _L2("div")
neg = _L("neg")
sin, cos, exp, log, sqrt, rsqrt, select, square, sign, integer_pow, full_like = (
    _L("sin"),
    _L("cos"),
    _L("exp"),
    _L("log"),
    _L("sqrt"),
    _L("rsqrt"),
    _L("select"),
    _L("square"),
    _L("sign"),
    _L("integer_pow"),
    _L("full_like"),
)


def _one(x):
    return full_like(x, 1)


def _scalar(x, value: float):
    """JAX's ``_one(x)`` / ``_zero(x)`` in a JVP rule: the Python scalar (a literal in the jaxpr),
    except on a mesh ``x`` is typed on under ``jit``, where JAX's is a ``reshard`` of it there."""
    if isinstance(x, core.Tracer):
        from ..parallel.value_mesh import scalar_on_mesh  # (a cycle if imported at the top)

        on_mesh = scalar_on_mesh(x, value)
        if on_mesh is not None:
            return on_mesh
    return value


# Constants in the rules below are Python scalars: lax's binary wrappers give them the other
# operand's dtype, and the primitives broadcast scalars, so derivative jaxprs stay lean.

ad.deflinear(neg_p, lambda ct, x: [neg(ct)])


def _additive_jvp(p, negate_y: bool):
    # A constant operand has a symbolic-zero tangent: pass the other through, no zeros built.
    def rule(primals, tangents):
        out = p.bind(*primals)
        tx, ty = tangents
        shape = core.get_aval(out).shape
        x, y = primals
        if type(ty) is Zero:
            return out, _to_shape(tx, shape, x, out)
        if type(tx) is Zero:
            return out, _to_shape(neg(ty) if negate_y else ty, shape, y, out)
        return out, p.bind(tx, ty)

    return rule


ad.jvp_rules[add_p] = _additive_jvp(add_p, negate_y=False)
ad.jvp_rules[sub_p] = _additive_jvp(sub_p, negate_y=True)
ad.transpose_rules[add_p] = lambda ct, x, y: [_unbroadcast(ct, x), _unbroadcast(ct, y)]
ad.transpose_rules[sub_p] = lambda ct, x, y: [_unbroadcast(ct, x), _unbroadcast(neg(ct), y)]
for _p in (
    sign_p,
    floor_p,
    ceil_p,
    round_p,
    is_finite_p,
    not_p,
    population_count_p,
    and_p,
    or_p,
    xor_p,
    shift_left_p,
    shift_right_logical_p,
    shift_right_arithmetic_p,
    eq_p,
    ne_p,
    lt_p,
    le_p,
    gt_p,
    ge_p,
):
    defzero(_p)

defjvp2(exp_p, primal_only(lambda g, ans, x: mul(g, ans)))
# JAX's form: a scalar log 2 (weak where x is, as JAX's _const) times the product.
defjvp2(exp2_p, primal_only(lambda g, ans, x: mul(log(full_like(x, 2, shape=())), mul(g, ans))))
defjvp(log_p, primal_only(lambda g, x: div(g, x)))
defjvp(log1p_p, primal_only(lambda g, x: div(g, add(x, _scalar(x, 1.0)))))
defjvp2(expm1_p, primal_only(lambda g, ans, x: mul(g, add(ans, _scalar(ans, 1.0)))))


def _tanh_jvp(g, ans, x):
    # JAX's formulation, eagerly too: g * (1 - ans**2) has one operation fewer but rounds
    # differently where ans is near 1 (tens of ulps on a sigmoid layer's jacobian).
    return mul(add(g, mul(g, ans)), sub(_scalar(x, 1.0), ans))


defjvp2(tanh_p, primal_only(_tanh_jvp))
defjvp2(logistic_p, primal_only(lambda g, ans, x: mul(g, mul(ans, sub(_scalar(ans, 1.0), ans)))))
defjvp(sin_p, primal_only(lambda g, x: mul(g, cos(x))))
defjvp(cos_p, primal_only(lambda g, x: neg(mul(g, sin(x)))))
defjvp2(tan_p, primal_only(lambda g, ans, x: mul(g, add(1.0, square(ans)))))
defjvp(asin_p, lambda g, x: mul(g, rsqrt(sub(1.0, square(x)))))
defjvp(acos_p, lambda g, x: mul(g, neg(rsqrt(sub(1.0, square(x))))))
defjvp(atan_p, lambda g, x: div(g, add(1.0, square(x))))
defjvp(sinh_p, lambda g, x: mul(g, _lax().cosh(x)))
defjvp(cosh_p, lambda g, x: mul(g, _lax().sinh(x)))
defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(square(x), _scalar(x, 1.0)))))
defjvp(acosh_p, lambda g, x: mul(g, rsqrt(sub(square(x), _scalar(x, 1.0)))))
defjvp(atanh_p, lambda g, x: mul(integer_pow(add(_scalar(x, 1.0), x), -1), div(g, sub(_scalar(x, 1.0), x))))


def _const(example, val):
    """``val`` as a constant for ``example``'s computation, as JAX's ``_const``: a Python scalar
    when ``example`` is a weakly typed scalar, else an array of its dtype (which prints rounded)."""
    aval = core.get_aval(example)
    if aval.weak_type and not aval.shape:
        return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[dtype_kind(aval.dtype)](val)
    return np.array(val, aval.dtype)


defjvp2(sqrt_p, primal_only(lambda g, ans, x: mul(g, div(_const(x, 0.5), ans))))
defjvp2(rsqrt_p, primal_only(lambda g, ans, x: mul(g, mul(_const(x, -0.5), div(ans, x)))))
defjvp2(cbrt_p, primal_only(lambda g, ans, x: mul(g, mul(_const(x, 1 / 3), integer_pow(ans, -2)))))


def _abs_jvp(g, ans, x):
    if dtype_kind(core.get_aval(x).dtype) != "c":  # JAX's formulation: select(x >= 0, g, -g)
        return select(_lax().ge(x, _scalar(x, np.zeros((), core.get_aval(x).dtype))), g, neg(g))
    # d|z| = Re(conj(z) dz) / |z|, with |z| = 0 replaced by 1 (JAX's convention).
    from .complex_numbers import conj, real

    lax, dtype = _lax(), core.get_aval(x).dtype
    conj_x = conj(x)  # (first, as JAX stages it)
    denom = lax.convert_element_type(ans, dtype)
    denom = select(lax.eq(denom, np.zeros((), dtype)), full_like(denom, 1), denom)
    return real(mul(g, div(conj_x, denom)))


defjvp2(abs_p, _abs_jvp)
defjvp(square_p, lambda g, x: mul(g, mul(2.0, x)))
defjvp(erf_p, lambda g, x: mul(_const(x, 2 / np.sqrt(np.pi)), mul(g, exp(neg(square(x))))))
defjvp2(erf_inv_p, lambda g, ans, x: mul(_const(x, np.sqrt(np.pi) / 2), mul(g, exp(square(ans)))))


def _integer_pow_jvp(g, x, *, y):
    if y == 0:
        return full_like(g, 0)
    if y == 1:
        return g
    return mul(g, mul(y, x if y == 2 else integer_pow(x, y - 1)))


defjvp(integer_pow_p, _integer_pow_jvp)


def _hiding_none(name):
    """JAX prints ``accuracy`` and mul's ``out_dtype`` only when set (its pp_eqn_rules)."""
    return lambda eqn: [(k, v) for k, v in sorted(eqn.params.items()) if k != name or v is not None]


for _p in [p for p in list(globals().values()) if isinstance(p, Primitive) and p.name in ACCURACY_OPS]:
    ir.pp_params_rules[_p] = _hiding_none("accuracy")
ir.pp_params_rules[mul_p] = _hiding_none("out_dtype")


def _mul_transpose(ct, x, y, out_dtype=None):
    if ad.is_undefined(x):
        return [_unbroadcast(mul(ct, y), x), None]
    return [None, _unbroadcast(mul(x, ct), y)]


defjvp(mul_p, lambda g, x, y, out_dtype=None: mul(g, y), lambda g, x, y, out_dtype=None: mul(x, g))
ad.transpose_rules[mul_p] = _mul_transpose


def _div_transpose(ct, x, y):
    assert ad.is_undefined(x) and not ad.is_undefined(y)
    return [_unbroadcast(div(ct, y), x), None]


defjvp(div_p, lambda g, x, y: div(g, y), lambda g, x, y: mul(mul(neg(g), x), integer_pow(y, -2)))
ad.transpose_rules[div_p] = _div_transpose

defjvp(
    rem_p,
    lambda g, x, y: _to_shape(g, np.broadcast_shapes(core.get_aval(x).shape, core.get_aval(y).shape)),
    lambda g, x, y: mul(neg(g), mul(sign(div(x, y)), _lax().floor(_lax().abs(div(x, y))))),
)


def _balanced_eq(x, z, y):
    # Where x == y both share the gradient: 1 where x wins, 0.5 on ties, 0 where it loses.
    # JAX's formulation: (x == z ? 1 : 0) / (y == z ? 2 : 1).
    lax = _lax()
    return div(
        select(lax.eq(x, z), full_like(z, 1), full_like(z, 0)),
        select(lax.eq(y, z), full_like(z, 2), full_like(z, 1)),
    )


defjvp2(
    max_p,
    lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
    lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)),
)
defjvp2(
    min_p,
    lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
    lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)),
)


def _atan2_denom(x, y):
    return add(square(x), square(y))


defjvp(
    atan2_p,
    lambda g, x, y: mul(g, div(y, _atan2_denom(x, y))),
    lambda g, x, y: mul(g, div(neg(x), _atan2_denom(x, y))),  # JAX negates the numerator first
)


# ---------------------------------------------------------------------------------------------
# Identity-valued ops: stop_gradient (zero derivative), copy (a real copy; linear),
# reduce_precision (round to fewer exponent/mantissa bits; linear, as in JAX).

stop_gradient_p = unop("stop_gradient", lambda x: x, (_ANY,))
defzero(stop_gradient_p)

copy_p = unop("copy", np.array, (_ANY,))
ad.deflinear(copy_p, lambda ct, x: [copy_p.bind(ct)])


reduce_precision_p = Primitive("reduce_precision")
reduce_precision_p.def_impl(_errs(reduce_precision_bits))
core.eager_checked.add(reduce_precision_p)  # (its numpy impl would fail on an integer operand)


@reduce_precision_p.def_abstract_eval
def _reduce_precision_abstract(x, *, exponent_bits, mantissa_bits):
    _check_kind("reduce_precision", x, (_FLOAT,))
    if exponent_bits < 1 or mantissa_bits < 0:
        raise ValueError(
            f"reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0, got "
            f"{exponent_bits} and {mantissa_bits}."
        )
    return x


ad.deflinear(reduce_precision_p, lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])
batching.vectorized_batcher(reduce_precision_p)


from .clamp import clamp_p as clamp_p  # noqa: E402  (its rules use the derivative helpers above)

from . import pow_jvp  # noqa: E402,F401  (pow's JVP rule, registered there)
