"""Scalar helpers that generated kernels call (``rt.name(...)``): compiled once per signature
(and cached on disk), then inlined into each kernel by LLVM at link time, which is much cheaper
than numba-level ``inline='always'`` (that re-typed and re-lowered them in every kernel).

Each one pins down a semantic where numba's scalar operators differ from XLA's: NaN-propagating
max/min, C-style integer division, shifts past the bit width, float->int saturation.
Changing this file (or numba_math, numba_libm, numba_special) changes the disk-cache key of every kernel (see ``numba_jit._RUNTIME_HASH``).
"""

import math

import numba as nb
import numpy as np

from .numba_libm import (  # noqa: F401
    acos_f32,
    asin_f32,
    atan2_f32,
    atan_f32,
    atan_xla_f32,
    cbrt_f32,
    cos_f32,
    cos_f32_libm,
    pow_f32,
    sin_f32,
    sin_f32_libm,
    tan_f32,
    trig_huge,
)
from .numba_math import (
    acosh_f32,
    asinh_f32,
    atanh_f32,
    cosh_f32,
    cosh_f64,
    digamma_f32,
    erf_f32,
    erf_inv_f32,
    exp2_f32,
    exp_f32,
    exp_f64,
    expm1_f32,
    lgamma_f32,
    log1p_f32,
    log_f32,  # noqa: F401
    logistic_f32,
    sinh_f32,
    tanh_f32,
    ynn_exp_f32,
    ynn_expm1_f32,
    ynn_log1p_f32,
    ynn_log_f32,
    ynn_logistic_f32,
    ynn_tanh_f32,
)

from .numba_math import _fma as _fma32, _fma64
from .numba_rsqrt import rsqrt_f32, rsqrt_f64  # noqa: F401
from .numba_special import digamma, lgamma  # noqa: F401

_inline = dict(cache=True, error_model="numpy")


@nb.njit(**_inline)
def fma_f32(a, b, c):
    # a multiply-add XLA's compiler contracted (backends/multiply_add.py): one rounding
    return _fma32(np.float32(a), np.float32(b), np.float32(c))


@nb.njit(**_inline)
def fma_f64(a, b, c):
    return _fma64(np.float64(a), np.float64(b), np.float64(c))


@nb.njit(**_inline)
def _negative(x):
    return math.copysign(1.0, x) < 0.0


@nb.njit(**_inline)
def _read_as_xla(r):
    # what XLA's max/min instruction writes for a picked operand: under DAZ (denormal_flags) a
    # subnormal compares equal to zero and comes out as a zero of its sign
    # (tested on magnitudes, not as r == 0, which LLVM would take to mean r is a zero already)
    tiny = 2.0**-1022 if type(r)(2.0**-1022) != 0 else 2.0**-126  # (the type's smallest normal)
    return type(r)(math.copysign(0.0, r)) if abs(np.float64(r)) < tiny else r


@nb.njit(**_inline)
def frem(x, y):
    # XLA's float remainder is the C library's fmod, whose test of y for zero runs under DAZ (so
    # fmod(x, 1e-40) is NaN) while x, remaindered in integers, keeps its subnormal bits; a NaN
    # operand is the result (x's first, as x86 arithmetic propagates it)
    if x != x:
        return x
    if y != y:
        return y
    return np.fmod(x, _read_as_xla(y))


@nb.njit(**_inline)
def fmax(x, y):
    # XLA's CPU max: x if it is a NaN; y's NaN with the and of the signs; +0 above -0
    if x != x:
        return x
    if y != y:
        return y if _negative(x) else abs(y)
    if x == y:
        return _read_as_xla(x if _negative(y) else y)
    return _read_as_xla(x if x > y else y)


@nb.njit(**_inline)
def fmin(x, y):
    # XLA's CPU min: x if it is a NaN; y's NaN with the or of the signs; -0 below +0
    if x != x:
        return x
    if y != y:
        return -abs(y) if _negative(x) else y
    if x == y:
        return _read_as_xla(y if _negative(y) else x)
    return _read_as_xla(x if x < y else y)


@nb.njit(**_inline)
def fsign(x):
    if x != x:
        return x
    return _read_as_xla(x) if x == 0 else (1.0 if x > 0 else -1.0)


@nb.njit(**_inline)
def isign(x):
    return (x > 0) - (x < 0)


@nb.njit(**_inline)
def round_away(x):
    # as the interpreter's rule: exact, and the sign kept (-0.4 -> -0.0)
    t = np.abs(np.trunc(x))
    if np.abs(x) - t >= 0.5:
        t = t + 1
    return np.copysign(t, x)


@nb.njit(**_inline)
def idiv(x, y):
    # Truncating division; x / 0 is -1 (XLA's CPU result, mirrored by the interpreter).
    if y == 0:
        return -1
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


@nb.njit(**_inline)
def udiv(x, y):
    return x // y if y != 0 else -1


@nb.njit(**_inline)
def irem(x, y):
    if y == 0:  # x rem 0 is x, as the interpreter (and XLA on CPU) give
        return x
    r = abs(x) % abs(y)
    return r if x >= 0 else -r


@nb.njit(**_inline)
def urem(x, y):
    return x % y if y != 0 else x


@nb.njit(**_inline)
def shl(x, y, bits):
    return 0 if (y < 0 or y >= bits) else x << y


@nb.njit(**_inline)
def shr_arith(x, y, bits):
    if y < 0 or y >= bits:
        return -1 if x < 0 else 0
    return x >> y


@nb.njit(**_inline)
def shr_logical(ux, y, bits):
    # ux is the operand reinterpreted as unsigned of the same width.
    return 0 if (y < 0 or y >= bits) else ux >> y


@nb.njit(**_inline)
def f2i(x, lo, hi):
    if x != x:
        return 0.0
    t = np.trunc(x)
    return lo if t < lo else (hi if t > hi else t)


@nb.njit(**_inline)
def logistic(x):
    return 1 / (1 + np.exp(-x))


@nb.njit(**_inline)
def erf(x):
    return math.erf(x)


@nb.njit(**_inline)
def rotl32(v, r):
    return np.uint32((v << np.uint32(r)) | (v >> np.uint32(32 - r)))


@nb.njit(**_inline)
def threefry2x32(k0, k1, x0, x1):
    # The 20-round threefry2x32 hash (Salmon et al.), as engine.prng computes it.
    k2 = np.uint32(k0 ^ k1 ^ np.uint32(0x1BD11BDA))
    ks0, ks1, ks2 = np.uint32(k0), np.uint32(k1), k2
    a = np.uint32(x0 + ks0)
    b = np.uint32(x1 + ks1)
    for i in range(5):
        if i % 2 == 0:
            r0, r1, r2, r3 = 13, 15, 26, 6
        else:
            r0, r1, r2, r3 = 17, 29, 16, 24
        a = np.uint32(a + b)
        b = rotl32(b, r0)
        b = np.uint32(b ^ a)
        a = np.uint32(a + b)
        b = rotl32(b, r1)
        b = np.uint32(b ^ a)
        a = np.uint32(a + b)
        b = rotl32(b, r2)
        b = np.uint32(b ^ a)
        a = np.uint32(a + b)
        b = rotl32(b, r3)
        b = np.uint32(b ^ a)
        j = i + 1
        if j % 3 == 0:
            a = np.uint32(a + ks0)
            b = np.uint32(b + ks1 + np.uint32(j))
        elif j % 3 == 1:
            a = np.uint32(a + ks1)
            b = np.uint32(b + ks2 + np.uint32(j))
        else:
            a = np.uint32(a + ks2)
            b = np.uint32(b + ks0 + np.uint32(j))
    return a, b


def _bitcast_to(target):
    """``bitcast_<dtype>(x)``: the bits of scalar ``x`` read as ``target`` (of the same width),
    an LLVM bitcast (numba has no scalar ``view``)."""

    @nb.extending.intrinsic
    def bitcast(typingctx, x):
        if not isinstance(x, (nb.types.Integer, nb.types.Float)) or x.bitwidth != target.bitwidth:
            return None

        def codegen(context, builder, sig, args):
            return builder.bitcast(args[0], context.get_value_type(target))

        return target(x), codegen

    return bitcast


bitcast_float32 = _bitcast_to(nb.types.float32)
bitcast_float64 = _bitcast_to(nb.types.float64)
bitcast_int8 = _bitcast_to(nb.types.int8)
bitcast_int16 = _bitcast_to(nb.types.int16)
bitcast_int32 = _bitcast_to(nb.types.int32)
bitcast_int64 = _bitcast_to(nb.types.int64)
bitcast_uint8 = _bitcast_to(nb.types.uint8)
bitcast_uint16 = _bitcast_to(nb.types.uint16)
bitcast_uint32 = _bitcast_to(nb.types.uint32)
bitcast_uint64 = _bitcast_to(nb.types.uint64)


@nb.njit(**_inline)
def total_order_32(x):
    # XLA's TOTALORDER key of a float32 (lt_to, le_to, eq_to): the negative ones' non-sign bits flipped.
    b = bitcast_int32(x)
    return b ^ np.int32(0x7FFFFFFF) if b < 0 else b


@nb.njit(**_inline)
def total_order_64(x):
    b = bitcast_int64(x)
    return b ^ np.int64(0x7FFFFFFFFFFFFFFF) if b < 0 else b
