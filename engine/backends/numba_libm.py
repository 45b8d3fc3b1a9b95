"""float32 sin, cos, tan, arctan, arctan2, pow, cbrt, arcsin and arccos as XLA's CPU kernels compute
them: calls to the C library's float functions (see ``lax/libm_f32.py``).

``sin_f32``/``cos_f32`` are glibc's sinf/cosf (glibc >= 2.28, ARM's optimized routines, the
FMA build x86-64 machines select) for |x| < 120: one double-precision reduction by pi/2 and two
short polynomials, the same operations in the same order (identical to glibc on every 7th float32
below 120, 3.2e8 inputs). Branch-free, so LLVM vectorizes the loops they are inlined in, where a
call per element costs ~9 ns. A loop nest that meets |x| >= 120 (or inf/nan) is rerun with the
library calls themselves (``trig_huge`` guards; see ``numba_jit``).

The other functions are the library's own, declared by name, as LLVM resolves XLA's calls, and
called with the FTZ/DAZ flags XLA's threads run with (on x86; see ``_c_function``).
"""

import platform

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic

from ..lax import libm_f32
from .numba_math import _bits, _fma, _fma64

_K = dict(cache=True, error_model="numpy")
f32, f64, i32 = np.float32, np.float64, np.int32


_X86 = platform.machine().lower() in ("x86_64", "amd64")
_FTZ_DAZ = 0x8040  # MXCSR's flush-to-zero and denormals-are-zero bits


def _c_function(cname: str, arity: int):
    """An intrinsic calling the C library's float32 function ``cname`` (resolved by LLVM from the
    process's libm, as XLA's JIT resolves its calls), on x86 with the FTZ/DAZ flags set for the call
    as XLA's threads run: a denormal operand is then zero to the library's float arithmetic (but
    not to its bit manipulations: glibc's cbrtf of any denormal is -5.6e-16 in JAX), and a denormal
    result is zero."""

    def typer(typingctx, *args):
        def codegen(context, builder, sig, args):
            f = ir.FloatType()
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(f, [f] * arity), cname)
            if not _X86:
                return builder.call(fn, args)
            ptr = ir.PointerType(ir.IntType(8))
            csr = {
                op: cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [ptr]), op)
                for op in ("llvm.x86.sse.stmxcsr", "llvm.x86.sse.ldmxcsr")
            }
            slot = cgutils.alloca_once(builder, ir.IntType(32))
            builder.call(csr["llvm.x86.sse.stmxcsr"], [builder.bitcast(slot, ptr)])
            saved = builder.load(slot)
            builder.store(builder.or_(saved, ir.Constant(ir.IntType(32), _FTZ_DAZ)), slot)
            builder.call(csr["llvm.x86.sse.ldmxcsr"], [builder.bitcast(slot, ptr)])
            out = builder.call(fn, args)
            builder.store(saved, slot)
            builder.call(csr["llvm.x86.sse.ldmxcsr"], [builder.bitcast(slot, ptr)])
            return out

        return nb.float32(*([nb.float32] * arity)), codegen

    if arity == 1:

        def call1(typingctx, x):
            return typer(typingctx, x)

        call1.__name__ = f"_{cname}"
        return intrinsic(call1)

    def call2(typingctx, x, y):
        return typer(typingctx, x, y)

    call2.__name__ = f"_{cname}"
    return intrinsic(call2)


_sinf, _cosf, _tanf, _atanf, _cbrtf = (_c_function(n, 1) for n in ("sinf", "cosf", "tanf", "atanf", "cbrtf"))
_atan2f, _powf = (_c_function(n, 2) for n in ("atan2f", "powf"))
# (XLA's own polynomials otherwise: the library's only in the short kernels ``lax/libm_f32.TAILS``)
_expf, _logf = _c_function("expf", 1), _c_function("logf", 1)


# glibc's table (sincosf_data.c), shared with the numpy steps (``lax/libm_f32.py``)
HPI_INV, HPI, (_, C1, C2, C3, C4), (S1, S2, S3) = libm_f32._HPI_INV, libm_f32._HPI, libm_f32._C, libm_f32._S
TRIG_FAST_TOP = 0x42F00000  # 120.0f: from here glibc reduces with its 192-bit 4/pi table
_TINY_TOP = 0x39800000  # 2**-12: below it sinf returns x and cosf 1


@nb.njit(**_K)
def _sincos(y, odd_shift):
    """sin(y) (odd_shift 0) or cos(y) (1) for |y| < 120, as glibc's sinf/cosf."""
    x = f64(y)
    n = (i32(x * HPI_INV) + i32(0x800000)) >> 24  # round(x * 2/pi), as glibc's reduce_fast
    r = _fma64(-f64(n), HPI, x)
    r = r * (1.0 - f64((n + 1) & 2))  # glibc's sign table {1, -1, -1, 1}
    r2 = r * r
    r3 = r * r2
    s = _fma64(r3 * r2, _fma64(r2, S3, S2), _fma64(r3, S1, r))
    r4 = r2 * r2
    c = _fma64(r4 * r2, _fma64(r2, C4, C3), _fma64(r4, C2, _fma64(r2, C1, 1.0)))
    c = c * (1.0 - f64(n & 2))  # glibc's second table: -cos
    return f32(c) if (n + odd_shift) & 1 else f32(s)


@nb.njit(**_K)
def sin_f32(x):
    v = _sincos(x, 0)
    return x if (_bits(x) & i32(0x7FFFFFFF)) < _TINY_TOP else v


@nb.njit(**_K)
def cos_f32(x):
    v = _sincos(x, 1)
    return f32(1.0) if (_bits(x) & i32(0x7FFFFFFF)) < _TINY_TOP else v


@nb.njit(**_K)
def trig_huge(x):
    """1 where sin_f32/cos_f32 do not apply: |x| >= 120, inf, nan (OR-reduced over a loop: vectorizes)."""
    return i32((_bits(x) & i32(0x7FFFFFFF)) >= i32(TRIG_FAST_TOP))


@nb.njit(**_K)
def sin_f32_libm(x):
    return _sinf(f32(x))


@nb.njit(**_K)
def cos_f32_libm(x):
    return _cosf(f32(x))


@nb.njit(**_K)
def tan_f32(x):
    return _tanf(x)


@nb.njit(**_K)
def atan_f32(x):
    return _atanf(x)


_AP0, _AP1, _AP2 = libm_f32._ATAN_P
_AQ0, _AQ1 = libm_f32._ATAN_Q
_HALF_PI = libm_f32._HALF_PI


@nb.njit(**_K)
def atan_xla_f32(x):
    # XLA's own arctangent, where its loops stay scalar (lax/libm_f32.xla_atan)
    ax = abs(x)
    big = ax > f32(1.0)
    t = f32(1.0) / ax if big else ax
    s = t * t
    p = _fma(_fma(s, _AP0, _AP1), s, _AP2)
    q = _fma(_fma(_fma(s, _AQ0, _AQ1), s, f32(1.0)), s, _AP2)
    r = t * (p / q)
    r = _HALF_PI - r if big else r
    r = -abs(r) if _bits(x) < i32(0) else abs(r)  # (copysign)
    return x if ax < f32(1e-3) else r


@nb.njit(**_K)
def cbrt_f32(x):
    return _cbrtf(x)


@nb.njit(**_K)
def atan2_f32(y, x):
    return _atan2f(y, x)


@nb.njit(**_K)
def pow_f32(x, y):
    return _powf(f32(x), f32(y))


@nb.njit(**_K)
def asin_f32(x):
    # JAX's lowering: 2 * atan2(x, 1 + sqrt((1 - x)(1 + x))), each step rounded to float32
    t = _atan2f(x, np.sqrt((f32(1.0) - x) * (x + f32(1.0))) + f32(1.0))
    return t + t


@nb.njit(**_K)
def acos_f32(x):
    # JAX's lowering: atan2(sqrt((1 - x)(1 + x)), x)
    return _atan2f(np.sqrt((f32(1.0) - x) * (x + f32(1.0))), x)


# The kernels eager evaluation runs (``lax/libm_f32.kernel``), by index into one cached loop each.
UNARY = ("sin", "cos", "tan", "atan", "cbrt", "asin", "acos", "exp", "log", "atan_xla", "atanf")
BINARY = ("atan2", "pow")


@nb.njit(**_K)
def _apply1(which, x, out):
    for i in range(x.size):
        v = x[i]
        if which == 0:
            out[i] = sin_f32_libm(v) if trig_huge(v) else sin_f32(v)
        elif which == 1:
            out[i] = cos_f32_libm(v) if trig_huge(v) else cos_f32(v)
        elif which == 2:
            out[i] = _tanf(v)
        elif which == 3:
            out[i] = _atanf(v)
        elif which == 4:
            out[i] = _cbrtf(v)
        elif which == 5:
            out[i] = asin_f32(v)
        elif which == 6:
            out[i] = acos_f32(v)
        elif which == 7:
            out[i] = _expf(v)
        elif which == 8:
            out[i] = _logf(v)
        elif which == 9:
            out[i] = atan_xla_f32(v)
        else:
            out[i] = _atanf(v)


@nb.njit(**_K)
def _apply2(which, x, y, out):
    for i in range(x.size):
        out[i] = atan2_f32(x[i], y[i]) if which == 0 else pow_f32(x[i], y[i])


def apply(name: str, *xs: np.ndarray) -> np.ndarray:
    """``<name>_f32`` of every element of float32 arrays of one shape."""
    flat = [np.ascontiguousarray(x, np.float32).reshape(-1) for x in xs]
    out = np.empty_like(flat[0])
    if name == "atan" and libm_f32.xla_atan_elements(xs[0].shape):  # (XLA's own: lax/libm_f32)
        _apply1(UNARY.index("atan_xla"), flat[0], out)
    elif len(flat) == 1:
        _apply1(UNARY.index(name), flat[0], out)
    else:
        _apply2(BINARY.index(name), flat[0], flat[1], out)
    return out.reshape(xs[0].shape)
