"""XLA's constant folding: what a jitted program computes from constants alone (arrays it closes
over, literals), XLA computes while compiling, and the program runs with the result as a constant.

Two evaluators do it, and neither computes as the compiled kernels the engine otherwise models:
XLA's canonicalizer, converting StableHLO to HLO, folds elementwise operations of constants
(``canonicalized``: exact IEEE arithmetic, a division as a division, ``exp``/``log``/``tanh``/...
in double rounded once); then in the HLO pipeline algsimp (``algebraic_simplifier``: ``x / b`` for
a broadcast ``b`` becomes ``x * (1/b)``), the tree-reduction rewriter (each reduced dimension
longer than 32 cut into windows of 32, padded, the odd zero high; once, as folding follows in the
same pass) and the HloEvaluator, which folds the rest: a window summed in index order in the
element type, a reduce's float sum in double, rounded once, ``expf``/``logf``/... of the C library.
So ``jit(lambda: jax.nn.softmax(x))`` for a closed-over ``x`` differs in the last bit from the
same softmax of an argument, in JAX and here. Measured against JAX 0.10.2 by md5 of the outputs:
2310 of 2310 closed-over programs (softmax, layernorm, var, mean, sums of squares, exp/log/tanh
chains, dots, sigmoid sums, ``jnp.sum(W**2) * a``; rows of 1..70 columns), 1236 before.

``fold`` runs after the engine's simplifications and before its multiply-add contraction (LLVM's,
after XLA's). ``rules`` has a row per primitive: the evaluators' arithmetic where it differs from
the engine's implementation, ``_same`` where the engine's already computes their bits (exact IEEE
operations, data movement). A primitive without a row, a dtype or size a row does not handle
(returns None or raises) leaves the equation as it was, and what reads it: the engine's kernels
compute them, as before this pass. As XLA, broadcasts are not folded (what reads them folds with
their value), nor is an exact operation of broadcasts alone, nor anything of an ``iota``; nested
jits fold whole (XLA inlines them first), and the top-level program only.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import weakref
from typing import Any, Callable

import numpy as np

from . import core, denormal_flags, narrow_dtypes
from .lax import libm_f32
from .ir import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, dce_jaxpr, subjaxprs

f32, f64 = np.float32, np.float64
MAX_ELEMENTS = 45 * 1000 * 1000  # hlo_constant_folding.cc's kMaximumConstantSizeElements
WINDOW = 32  # the CPU pipeline's tree_reduction_rewriter window

Row = Callable[[list[np.ndarray], dict[str, Any], JaxprEqn, bool], np.ndarray | None]
rules: dict[str, Row] = {}


def _same(values, params, eqn, early=False):
    """The engine's implementation: exact operations, which every evaluator computes alike."""
    with np.errstate(all="ignore"):
        return np.asarray(core.impl_rules[eqn.primitive](*values, **params))


def _divide(values, params, eqn, early=False):
    """A division left in the program divides (the simplifier has taken the reciprocals XLA's
    algsimp takes before folding): the engine's float division multiplies by the reciprocal of a
    divisor the operation broadcasts, which here is one XLA folds as it is (``_folded_first``)."""
    x, y = values
    if x.dtype.kind != "f" or y.dtype.kind != "f":
        return _same(values, params, eqn)
    with np.errstate(all="ignore"):
        return np.true_divide(x, y)


rules["div"] = _divide


def _read_as_zero(x: np.ndarray) -> np.ndarray:
    """``x`` (float32 or float64) with subnormals as zeros of their sign: how the folder compares."""
    tiny = np.finfo(x.dtype).tiny
    return np.where(np.abs(x) < tiny, x * x.dtype.type(0), x)


def _folded_minmax(greater: bool) -> Row:
    """max/min as XLA folds them (measured, JAX 0.10.2): ``x`` if it is a NaN, else ``y`` if it is
    one (its sign kept), else ``y`` only if it is larger (smaller). The canonicalizer orders -0
    below +0 and compares subnormals as they are; the evaluator compares a subnormal as zero and
    keeps ``x`` (its bits) against an equal ``y``, -0 against +0 included."""

    def row(values, params, eqn, early=False):
        x, y = values
        if narrow_dtypes.kind(x.dtype) != "f":
            return _same(values, params, eqn, early)
        wide = np.float64 if x.dtype == np.float64 else np.float32  # (narrow types compare in float32)
        with np.errstate(all="ignore"):
            a, b = np.asarray(x, wide), np.asarray(y, wide)
            if early:  # (IEEE maximum/minimum)
                sa, sb = np.signbit(a), np.signbit(b)
                tie = (a == b) & ((sa & ~sb) if greater else (~sa & sb))
                pick_y = ((b > a) if greater else (b < a)) | tie
            else:
                a, b = _read_as_zero(a), _read_as_zero(b)
                pick_y = (a < b) if greater else (b < a)
            out = np.where(pick_y, y, x)
            out = np.where(np.isnan(b), y, out)
            return np.asarray(np.where(np.isnan(a), x, out), x.dtype)

    return row


def _folded_rem(values, params, eqn, early=False):
    """rem as XLA folds it (measured, JAX 0.10.2): the canonicalizer's fmod of the values as they
    are (subnormals too), a NaN operand the result (x's first), and a NaN it makes positive
    (APFloat's, not x86's); the evaluator's (``jnp.fmod``'s, inside its jit) is the C library's
    under the host's DAZ, as the kernels compute it."""
    x, y = values
    if narrow_dtypes.kind(x.dtype) != "f":
        return _same(values, params, eqn, early)
    if not early:  # (the evaluator's, under DAZ: see _walk)
        return _same(values, params, eqn, early)
    with np.errstate(all="ignore"):
        r = np.fmod(x, y)
        nan_x, nan_y = np.isnan(x), np.isnan(y)
        r = np.where(np.isnan(r) & ~nan_x & ~nan_y, np.abs(r), r)
        return np.asarray(np.where(nan_x, x, np.where(nan_y, y, r)), x.dtype)


rules["rem"] = _folded_rem
rules["max"] = _folded_minmax(True)
rules["min"] = _folded_minmax(False)

for _name in (
    "add sub mul neg abs sign sqrt floor ceil select_n eq ne lt le gt ge and or not is_finite"
    " integer_pow square stop_gradient copy reshape transpose squeeze expand_dims slice concatenate"
    " pad rev reduce_max reduce_min broadcast_in_dim"
).split():
    rules[_name] = _same


# ---------------------------------------------------------------------------------------------
# Functions of each element. Two evaluators fold them, measured against JAX 0.10.2 (20000 float32
# inputs each): XLA's canonicalizer, converting StableHLO to HLO, folds an elementwise operation
# of constants (``early``: operands that are constants in the module as JAX emits it, see
# ``canonicalized``) computing exp, log, sin, cos, tan, tanh, logistic and rsqrt in double and
# rounding once (as ``stablehlo/xla_folds.py``); what only becomes constant later (after a
# reduce, inside a nested jit) the HloEvaluator folds with the C library's float function
# (std::exp of a float: expf, ...; the other way round differs on 0.06-14% of inputs). log1p,
# expm1, atan2, pow and cbrt the canonicalizer leaves, so they are always the float function.
# float64 is the double function.

_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_cfuncs: dict[tuple[str, bool], Callable[..., float]] = {}


def _cfunc(name: str, single: bool, arity: int) -> Callable[..., float]:
    key = (name, single)
    if key not in _cfuncs:
        fn = getattr(_libm, name + ("f" if single else ""))
        ctype = ctypes.c_float if single else ctypes.c_double
        fn.restype, fn.argtypes = ctype, [ctype] * arity
        _cfuncs[key] = fn
    return _cfuncs[key]


# numpy's double functions: the C library's bits once rounded to float32 (1e6 inputs each), faster
_NUMPY64 = {"exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh}
MAX_CALLS = 1 << 20  # elements a row calls the C library for (~0.3 s); more are left to the kernels


def _apply(name: str, single: bool, values: list[np.ndarray], dtype: np.dtype) -> np.ndarray:
    if not single and dtype == np.dtype(f32) and name in _NUMPY64:
        with np.errstate(all="ignore"):
            return _NUMPY64[name](np.asarray(values[0], f64))
    if max(np.size(v) for v in values) > MAX_CALLS:
        raise OverflowError(f"{name} of more than {MAX_CALLS} elements")  # (caught: not folded)
    fn = _cfunc(name, single, len(values))
    xs = np.broadcast_arrays(*(np.asarray(v, dtype) for v in values))
    flat = [x.ravel().tolist() for x in xs]
    out = np.array([fn(*a) for a in zip(*flat)], f32 if single else f64)
    return out.reshape(xs[0].shape)


def _float_type(eqn: JaxprEqn) -> np.dtype | None:
    dtype = eqn.out_binders[0].aval.dtype
    return dtype if dtype in (np.dtype(f32), np.dtype(f64)) else None


def _libm_row(name: str) -> Row:
    def row(values, params, eqn, early=False):
        dtype = _float_type(eqn)
        if dtype is None:
            narrow = eqn.out_binders[0].aval.dtype
            if name not in _NARROW or narrow.kind != "f" and not narrow_dtypes.is_narrow(narrow):
                return None
            # float16, bfloat16: the C library's float function, rounded to the type
            xs = [np.asarray(v).astype(f32) for v in values]
            return _apply(name, True, xs, np.dtype(f32)).astype(narrow)
        single = dtype == np.dtype(f32) and not (early and name in CANONICALIZED)
        return _apply(name, single, values, dtype).astype(dtype)

    return row


# (measured: log, cbrt, atan2 and pow of narrow constants fold otherwise; the kernels compute them)
_NARROW = frozenset({"exp", "tanh", "log1p", "expm1"})
for _name in ("exp", "log", "tanh", "sin", "cos", "tan", "log1p", "expm1", "atan2", "pow", "cbrt"):
    rules[_name] = _libm_row(_name)


def _atan(values, params, eqn, early=False):
    """The evaluator's atan is atanf at every size (a kernel's is XLA's own function for small
    arrays: lax/libm_f32), called as XLA's kernels call the C library (denormals kept)."""
    if _float_type(eqn) != np.dtype(f32):
        return None
    return libm_f32.kernel("atanf", values[0])


def _logistic(values, params, eqn, early=False):
    """``1 / (1 + exp(-x))``, each step rounded to the type (HandleLogistic; the canonicalizer's
    too, with its exp in double, rounded)."""
    dtype = _float_type(eqn)
    if dtype is None:
        return None
    x = np.negative(np.asarray(values[0], dtype))
    t = dtype.type
    with np.errstate(all="ignore"):
        return t(1) / (t(1) + _apply("exp", dtype == np.dtype(f32) and not early, [x], dtype).astype(dtype))


def _rsqrt(values, params, eqn, early=False):
    """The canonicalizer's ``1 / sqrt(x)`` in double; the evaluator's ``1 / sqrt(x)`` in float32
    (measured: 0 of 15000 differ) and float64: not the kernels' estimate and Newton steps
    (lax/xla_rsqrt.py)."""
    dtype = _float_type(eqn)
    if dtype is None or not early and dtype not in (np.dtype(f32), np.dtype(f64)):
        return None
    with np.errstate(all="ignore"):
        if not early:
            return dtype.type(1) / np.sqrt(np.asarray(values[0], dtype))
        return (1.0 / np.sqrt(np.asarray(values[0], f64))).astype(dtype)


def _erfc(values, params, eqn, early=False):
    """erfc as XLA folds CHLO's float32 decomposition of it (``lax/xla_f32.erfc``'s steps): each
    operation rounded on its own (no fused multiply-adds), exp in double rounded once, a subnormal
    result written as zero; float16 and bfloat16 in float32 (measured: 2e5 float32 inputs, JAX
    0.10.2's bits). float64 is left to the kernels."""
    from .lax import xla_f32

    dtype = eqn.out_binders[0].aval.dtype
    if dtype != np.dtype(f32) and dtype != np.dtype(np.float16) and not narrow_dtypes.is_narrow(dtype):
        return None

    def horner(cs, x):
        p = np.full(x.shape, cs[0])
        for c in cs[1:]:
            p = (p * x + c).astype(f32)
        return p

    x = np.asarray(values[0]).astype(f32)
    with np.errstate(all="ignore"):
        xsq, a = x * x, np.abs(x)
        w = f32(1) / xsq
        poly = np.where(a < f32(2), horner(xla_f32._ERFC_P, w), horner(xla_f32._ERFC_R, w))
        big = (np.exp(np.negative(xsq, dtype=f64)).astype(f32) * (f32(1) / a)) * poly
        big = np.where(-xsq < f32(-88.72283905206835), f32(0), big)
        big = np.where(x < f32(0), f32(2) - big, big)
        small = f32(1) - x * horner(xla_f32._ERFC_T, xsq)
        y = np.where(a < f32(1), small, big).astype(f32)
    return np.where(np.isnan(x), x, xla_f32.ftz(y)).astype(dtype)  # (a NaN folds as it is)


def _lgamma(values, params, eqn, early=False):
    """float32 lgamma as the HloEvaluator folds CHLO's decomposition of it (``lax/xla_f32.lgamma``'s
    steps): each operation rounded on its own (no fused multiply-adds), the division by 7.5 a
    division, ``logf``/``log1pf``/``sinf`` of the C library; inputs read with denormals as zero.
    Measured against JAX 0.10.2 on 5000 float32 constants: 2 reflected (x < 0.5) values differ by
    an ulp. Other dtypes are left to the kernels."""
    from .lax import xla_f32

    if eqn.out_binders[0].aval.dtype != np.dtype(f32):
        return None

    def c(name, v):
        return _apply(name, True, [v], np.dtype(f32)).astype(f32)

    x = xla_f32.ftz(np.asarray(values[0], f32))
    coeffs = xla_f32._LANCZOS
    with np.errstate(all="ignore"):
        z = np.where(x < f32(0.5), -x, x + f32(-1))
        s = f32(1) + coeffs[0] / (z + f32(1))
        for k, coeff in enumerate(coeffs[1:], 2):
            s = s + coeff / (z + f32(k))
        log_t = c("log1p", z / f32(7.5)) + xla_f32._LOG_LANCZOS_T
        y = (((z + f32(0.5)) - (z + f32(7.5)) / log_t) * log_t + f32(0.918938518)) + c("log", s)
        a = np.abs(x)
        frac = a - np.floor(a)
        log_sin = c("log", c("sin", np.where(f32(0.5) < frac, f32(1) - frac, frac) * xla_f32._PI))
        reflected = np.where(np.isfinite(log_sin), (f32(1.14472985) - log_sin) - y, -log_sin)
        y = np.where(x < f32(0.5), reflected, y)
        return np.asarray(np.where(a == np.inf, f32(np.inf), y), f32)


rules["logistic"] = _logistic
rules["atan"] = _atan
rules["erfc"] = _erfc
rules["lgamma"] = _lgamma
rules["rsqrt"] = _rsqrt

# What XLA's canonicalizer folds (``stablehlo/xla_folds.py``): elementwise operations (integer_pow
# and square are multiplications in StableHLO) and reshapes of constants, and broadcasts of a
# one-element constant (a splat).
CANONICALIZED = frozenset(
    "add sub mul div rem max min neg abs sign sqrt rsqrt exp log sin cos tan tanh logistic"
    " convert_element_type eq ne lt le gt ge integer_pow square".split()
)
_RESHAPES = frozenset({"broadcast_in_dim", "reshape", "squeeze", "expand_dims"})


# Operands outside a function's domain, for which the canonicalizer refuses to fold the whole
# operation (measured, float32: one such element among 3000 and the others are the evaluator's
# float functions, as are what is computed from them; NaN operands fold, sqrt(0) folds, exp's
# overflow and sin(inf) fold): the HloEvaluator folds it later.
_DOMAIN: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "log": lambda x: x <= 0,
    "rsqrt": lambda x: x <= 0,
    "sqrt": lambda x: x < 0,
}


def refused(eqn: JaxprEqn, values: list[np.ndarray]) -> bool:
    """Whether the canonicalizer leaves ``eqn`` of constants ``values`` to the evaluator."""
    outside = _DOMAIN.get(eqn.primitive.name)
    if outside is None or not values or np.asarray(values[0]).dtype.kind != "f":
        return False
    with np.errstate(all="ignore"):
        return bool(np.any(outside(np.asarray(values[0]))))


def canonicalized(eqn: JaxprEqn, inputs: list, early: set) -> bool:
    """Whether XLA's canonicalizer folds ``eqn`` (its operands ``inputs``, ``early`` the values it
    has as constants: a module's closed-over arrays and what it folded from them)."""
    if not inputs or not eqn.out_binders or not all(type(x) is Literal or x in early for x in inputs):
        return False
    name, out = eqn.primitive.name, eqn.out_binders[0].aval
    if name in _RESHAPES:
        return inputs[0].aval.size in (1, out.size)
    # (an operand the operation broadcasts is a broadcast in StableHLO: a constant if a splat)
    return name in CANONICALIZED and all(x.aval.shape == out.shape or x.aval.size == 1 for x in inputs)


# ---------------------------------------------------------------------------------------------
# Reductions: the tree rewriter's one pass of windows, then the evaluator's loop, each output's
# elements in row-major order from the init value.


def _in_order(x: np.ndarray, op: np.ufunc, init) -> np.ndarray:
    """``op`` over the last axis of ``x``, one element after another, starting from ``init``."""
    start = np.full(x.shape[:-1] + (1,), init, x.dtype)
    return op.accumulate(np.concatenate([start, x], axis=-1), axis=-1, dtype=x.dtype)[..., -1]


def _evaluator_reduce(x: np.ndarray, axes: tuple[int, ...], op: np.ufunc, init) -> np.ndarray | None:
    """The evaluator's reduce of ``x`` over ``axes`` after the tree rewriter; None where not
    measured: from 4096 reduced elements JAX's folded sums differ from one pass of windows (as
    from repeated passes) for some inputs."""
    axes = tuple(sorted(a % x.ndim for a in axes)) if x.ndim else ()
    if int(np.prod([x.shape[a] for a in axes])) >= 4096:
        return None
    axes = tuple(sorted(a % x.ndim for a in axes)) if x.ndim else ()
    if any(x.shape[a] > WINDOW for a in axes):
        # reduce-window: windows of min(n, 32) along each reduced axis, padding split as
        # Padding::kSame (the odd element high), each window in row-major order from init, in the
        # operand's type (the reduce-window evaluates its computation element by element)
        shape, inner, outer, pads = [], [], [], []
        for d, n in enumerate(x.shape):
            k = min(n, WINDOW) if d in axes else 1
            extra = -n % k
            pads.append((extra // 2, extra - extra // 2))
            outer.append(len(shape))
            if d in axes:
                inner.append(len(shape) + 1)
                shape += [(n + extra) // k, k]
            else:
                shape.append(n)
        x = np.pad(x, pads, constant_values=init) if any(p != (0, 0) for p in pads) else x
        x = np.transpose(x.reshape(shape), outer + inner)
        x = _in_order(x.reshape(*x.shape[: len(outer)], -1), op, init)
    keep = [d for d in range(x.ndim) if d not in axes]
    xt = np.transpose(x, keep + list(axes))
    xt = xt.reshape(*xt.shape[: len(keep)], -1)
    if op is np.add:  # (the reduce's "fast add": a float sum accumulates in double, rounded once)
        return _in_order(xt.astype(f64), op, f64(init)).astype(x.dtype)
    return _in_order(xt, op, init)


def _reduction(op: np.ufunc, init: float) -> Row:
    def row(values, params, eqn, early=False):
        x = np.asarray(values[0])
        if x.dtype not in (np.dtype(f32), np.dtype(f64)):
            return _same(values, params, eqn) if x.dtype.kind in "iub" else None
        with np.errstate(all="ignore"):
            return _evaluator_reduce(x, tuple(params["axes"]), op, x.dtype.type(init))

    return row


rules["reduce_sum"] = _reduction(np.add, 0.0)
rules["reduce_prod"] = _reduction(np.multiply, 1.0)


def _cumulative(op: np.ufunc, init: float) -> Row:
    """JAX lowers cumsum/cumprod to a reduce-window whose window for each output reaches back to
    the first element (forward to the last, reversed): the evaluator combines each window in index
    order from the init value. Measured up to 16 elements; from 19 JAX's differ (a pass rewrites
    long cumulative windows into a scan of blocks, not modelled): left alone."""

    def row(values, params, eqn, early=False):
        x = np.asarray(values[0])
        if x.dtype not in (np.dtype(f32), np.dtype(f64)):
            return _same(values, params, eqn) if x.dtype.kind in "iu" else None
        x = np.moveaxis(x, params["axis"], -1)
        n, t = x.shape[-1], x.dtype.type(init)
        if n > 16:
            return None
        with np.errstate(all="ignore"):
            if params.get("reverse"):
                out = np.stack([_in_order(x[..., i:], op, t) for i in range(n)], axis=-1) if n else x
            else:
                start = np.full(x.shape[:-1] + (1,), t, x.dtype)
                out = op.accumulate(np.concatenate([start, x], axis=-1), axis=-1, dtype=x.dtype)[..., 1:]
        return np.moveaxis(out, -1, params["axis"])

    return row


rules["cumsum"] = _cumulative(np.add, 0.0)
rules["cumprod"] = _cumulative(np.multiply, 1.0)


def _dot(values, params, eqn, early=False):
    """A dot of two vectors (each operand only contracting dimensions) is algsimp's strength
    reduction: the products, rounded, then a reduce (as ``reduce_sum``). A matrix times a vector
    the evaluator computes itself: each output the products added one by one in the element type,
    in the order of the contracted index (measured on JAX 0.10.2: a closed-over ``X.T @ y``, (3, 30)
    . (30,), (2, 100) . (100,), (8, 200) . (200,), every element). Dots of matrices (that sum for
    some shapes, not for (12, 40) . (40, 12)) and batched dots are left alone (not modelled)."""
    x, y = (np.asarray(v) for v in values)
    dtype = _float_type(eqn)
    if (
        dtype is None
        or x.dtype != dtype
        or y.dtype != dtype
        or params.get("preferred_element_type") not in (None, dtype)
    ):
        return None
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    lf = [d for d in range(x.ndim) if d not in lc and d not in lb]
    rf = [d for d in range(y.ndim) if d not in rc and d not in rb]
    if lb:  # (batched: measured to differ, not modelled)
        return None
    if lf and rf:  # (matrices: the evaluator's sum for some shapes (64 x 64 x 64), not others)
        return None
    if lf or rf:
        return _evaluated_dot(x, y, lc, rc, lf, rf, dtype)
    xt = np.transpose(x, [*lb, *lf, *lc])
    yt = np.transpose(y, [*rb, *rf, *rc])
    nb, nc = len(lb), len(lc)
    xt = xt.reshape(xt.shape[: nb + len(lf)] + (1,) * len(rf) + xt.shape[nb + len(lf) :])
    yt = yt.reshape(yt.shape[:nb] + (1,) * len(lf) + yt.shape[nb:])
    with np.errstate(all="ignore"):
        products = xt * yt
    axes = tuple(range(products.ndim - nc, products.ndim))
    return _evaluator_reduce(products, axes, np.add, dtype.type(0)) if axes else products


def _evaluated_dot(x, y, lc, rc, lf, rf, dtype):
    # (the evaluator's loop: a sum in the element type from 0, one product added at a time)
    k = math.prod(x.shape[d] for d in lc)
    xt = np.transpose(x, [*lf, *lc]).reshape(-1, k)
    yt = np.transpose(y, [*rc, *rf]).reshape(k, -1)
    out = np.zeros((xt.shape[0], yt.shape[1]), dtype)
    with np.errstate(all="ignore"):
        for i in range(k):
            out += xt[:, i : i + 1] * yt[i : i + 1, :]
    return out.reshape([x.shape[d] for d in lf] + [y.shape[d] for d in rf])


rules["dot_general"] = _dot


def _convert(values, params, eqn, early=False):
    """A float to float or integer to float conversion rounds as every evaluator does; float to
    integer (XLA clamps, numpy wraps) is left to the kernels."""
    src, dst = np.asarray(values[0]).dtype, eqn.out_binders[0].aval.dtype
    if dst.kind == "f" and src.kind in "fiub" or src == dst:
        return _same(values, params, eqn)
    return None


rules["convert_element_type"] = _convert


def _laid_out_by(eqn):
    return getattr(eqn.params.get("sharding", eqn.params.get("out_sharding")), "mesh", None)


# XLA does not fold these; their operands stay constants that what reads them folds with
_KEPT = frozenset({"broadcast_in_dim"})


# ---------------------------------------------------------------------------------------------


def _literal(value: np.ndarray, aval: core.ShapedArray) -> Literal:
    return Literal(core.Array(np.asarray(value, aval.dtype), aval.weak_type), aval)


def _value(x: object) -> np.ndarray:
    return np.asarray(core.to_numpy(x))


# XLA inlines them before folding (a custom_jvp's is a call too: jax.nn.relu of a constant)
_CALLS = frozenset({"jit", "pjit", "closed_call", "core_call", "custom_jvp_call"})


def _call(known: dict[Var, np.ndarray], eqn: JaxprEqn) -> list[np.ndarray] | None:
    """A nested jit whose operands are all constants: its outputs if all of its body folds."""
    body = eqn.params.get("jaxpr", eqn.params.get("call_jaxpr"))
    if (
        not isinstance(body, ClosedJaxpr)
        or body.jaxpr.constvars
        and len(body.consts) != len(body.jaxpr.constvars)
    ):
        return None
    inner: dict[Var, np.ndarray] = {v: _value(c) for v, c in zip(body.jaxpr.constvars, body.consts)}
    for v, x in zip(body.jaxpr.in_binders, eqn.inputs):
        inner[v] = _value(x.val) if type(x) is Literal else known[x]
    _walk(body.jaxpr, inner, set(), set())  # (a callee's operands are no constants to it)
    if not all(type(x) is Literal or x in inner for x in body.jaxpr.outs):
        return None
    return [_value(x.val) if type(x) is Literal else inner[x] for x in body.jaxpr.outs]


def _walk(jaxpr: Jaxpr, known: dict[Var, np.ndarray], from_broadcast: set[Var], early: set[Var]):
    """Folds what it can of ``jaxpr``'s equations into ``known``; the equations left (broadcasts
    of constants included) and their indices."""
    eqns, kept, folded = [], [], False
    for index, eqn in enumerate(jaxpr.eqns):
        first = False
        if eqn.primitive.name in _CALLS and all(type(x) is Literal or x in known for x in eqn.inputs):
            outs = _call(known, eqn)
            if outs is not None and all(
                o.shape == tuple(v.aval.shape) for o, v in zip(outs, eqn.out_binders)
            ):
                known.update((v, o.astype(v.aval.dtype, copy=False)) for v, o in zip(eqn.out_binders, outs))
                folded = True
                continue
        row = rules.get(eqn.primitive.name)
        out = None
        if (
            row is not None
            and all(type(x) is Literal or x in known for x in eqn.inputs)
            and len(eqn.out_binders) == 1
            and not any(True for _ in subjaxprs(eqn))
            and isinstance(eqn.out_binders[0].aval, core.ShapedArray)
            and _laid_out_by(eqn) is None  # (its result's layout over a mesh is the program's to make)
        ):
            values = [_value(x.val) if type(x) is Literal else known[x] for x in eqn.inputs]
            aval = eqn.out_binders[0].aval
            size = max(int(np.prod(aval.shape)), sum(v.size for v in values))
            # (XLA's algsimp turns a sum of a broadcast into a product: not modelled, left alone)
            reduces_broadcast = eqn.primitive.name in ("reduce_sum", "reduce_prod") and any(
                type(x) is Var and x in from_broadcast for x in eqn.inputs
            )
            if size <= MAX_ELEMENTS and not reduces_broadcast:
                first = canonicalized(eqn, eqn.inputs, early) and not refused(eqn, values)
                try:
                    # (the canonicalizer folds in APFloat; the evaluator with the host's float
                    # operations, under DAZ/FTZ: measured, a subnormal compares as zero there)
                    args = (values, dict(eqn.params), eqn, first)
                    out = row(*args) if first else denormal_flags.call_evaluated(row, *args)
                except Exception:  # (a row that cannot evaluate: the kernels compute it)
                    out = None
                if out is not None:
                    out = np.asarray(out)
                    if out.shape != tuple(aval.shape):
                        out = None
                    else:
                        out = out.astype(aval.dtype, copy=False)
        if out is None:
            eqns.append(eqn)
            kept.append(index)
            continue
        v = eqn.out_binders[0]
        known[v] = out
        if first:
            early.add(v)
        # (XLA folds no operation of broadcasts alone: algsimp first makes it one on the scalars;
        # one whose value the kernels compute alike stays, as a broadcast would)
        scalar = not v.aval.shape
        constant = any(
            (type(x) is Var and x not in from_broadcast) or (type(x) is Literal and scalar)
            for x in eqn.inputs
        )
        if eqn.primitive.name in _KEPT or (row is _same and not constant):
            from_broadcast.add(v)
            eqns.append(eqn)
            kept.append(index)
        else:
            folded = True
    return eqns, kept, folded


# Operations that move a value's bits (XLA's select, data movement): what reads a folded constant
# otherwise is an arithmetic kernel, which runs with denormals read as zero (MXCSR's DAZ).
_MOVES = frozenset(
    "select_n reshape broadcast_in_dim transpose squeeze expand_dims slice concatenate pad rev copy"
    " gather dynamic_slice dynamic_update_slice scatter".split()
)


def _read_as_kernels_do(value: np.ndarray, v: Var, eqns: list[JaxprEqn], outs: list) -> np.ndarray:
    """A folded float value with its denormals flushed to (signed) zero where only arithmetic
    kernels read it (measured, JAX 0.10.2: ``a * exp(c)`` with an ``exp(c)`` of 8e-40 is 0; the
    folded value returned or selected keeps them), as the kernels computing it would have."""
    if value.dtype not in (np.dtype(f32), np.dtype(f64)) or v in outs:
        return value
    tiny = np.finfo(value.dtype).tiny
    with np.errstate(invalid="ignore"):
        denormal = (value != 0) & (np.abs(value) < tiny)
    if not denormal.any():
        return value
    readers = [e for e in eqns if any(x is v for x in e.inputs)]
    if not readers or any(e.primitive.name in _MOVES or any(True for _ in subjaxprs(e)) for e in readers):
        return value
    return np.where(denormal, np.copysign(value.dtype.type(0), value), value)


def _fold(jaxpr: Jaxpr, consts: list[object]) -> tuple[Jaxpr, list[object], list[int]] | None:
    known: dict[Var, np.ndarray] = {v: _value(c) for v, c in zip(jaxpr.constvars, consts)}
    eqns, kept, folded = _walk(jaxpr, known, set(), set(jaxpr.constvars))
    if not folded:
        return None
    # folded values that what remains reads become constants
    used = {x for e in eqns for x in e.inputs if type(x) is Var}
    used.update(x for x in jaxpr.outs if type(x) is Var)
    produced = {v for e in eqns for v in e.out_binders}
    new_vars = [v for v in known if v in used and v not in produced and v not in jaxpr.constvars]
    new_values = {v: _read_as_kernels_do(known[v], v, eqns, jaxpr.outs) for v in new_vars}
    # (a folded scalar is a literal, as XLA's scalar constants are to what reads them: the
    # multiply-add contraction and negation folding treat literals as constants)
    scalars = {v: _literal(new_values[v], v.aval) for v in new_vars if not v.aval.shape}
    if scalars:
        new_vars = [v for v in new_vars if v not in scalars]
        swap = lambda x: scalars.get(x, x) if type(x) is Var else x  # noqa: E731
        eqns = [e._replace(inputs=[swap(x) for x in e.inputs]) for e in eqns]
        jaxpr = Jaxpr(jaxpr.constvars, jaxpr.in_binders, jaxpr.eqns, [swap(x) for x in jaxpr.outs])
    constvars = [*jaxpr.constvars, *new_vars]
    new_consts = [*consts, *(new_values[v] for v in new_vars)]
    out = dce_jaxpr(Jaxpr(constvars, jaxpr.in_binders, eqns, jaxpr.outs))
    survivors = {id(e) for e in out.eqns}
    positions = [i for e, i in zip(eqns, kept) if id(e) in survivors]
    live = {x for e in out.eqns for x in e.inputs if type(x) is Var} | {x for x in out.outs if type(x) is Var}
    pairs = [(v, c) for v, c in zip(constvars, new_consts) if v in live]
    out = Jaxpr([v for v, _ in pairs], out.in_binders, out.eqns, out.outs)
    return out, [c for _, c in pairs], positions


_folded: "weakref.WeakKeyDictionary[ClosedJaxpr, ClosedJaxpr]" = weakref.WeakKeyDictionary()
_final: "weakref.WeakSet[ClosedJaxpr]" = weakref.WeakSet()
_positions: "weakref.WeakKeyDictionary[ClosedJaxpr, list[int]]" = weakref.WeakKeyDictionary()


def fold(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with its constant subgraphs evaluated as XLA folds them; the same object when
    nothing folds, and the same folded object each time (executables are cached by program)."""
    if closed in _final:
        return closed
    found = _folded.get(closed)
    if found is None:
        result = _fold(closed.jaxpr, closed.consts) if closed.jaxpr.constvars or closed.jaxpr.eqns else None
        found = closed if result is None else ClosedJaxpr(result[0], result[1])
        _final.add(found)
        if found is not closed:
            _folded[closed] = found
            _positions[found] = result[2]  # type: ignore[index]
    return found


def kept_positions(folded: ClosedJaxpr) -> list[int] | None:
    """For a folded program: the index, in the program before folding, of each of its equations
    (None when nothing folded)."""
    return _positions.get(folded)
