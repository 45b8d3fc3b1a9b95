"""Vectorizable float32 transcendentals for generated kernels (``rt.exp_f32(x)``, ...).

numba lowers ``np.exp``/``np.tanh``/``np.sin`` on scalars to libm calls, which LLVM cannot
vectorize (and SVML is not available), so a fused loop spends ~100 ns per element in them. These
are branch-free range reductions and polynomials (Cephes' single-precision minimax coefficients)
in plain float32/int32 arithmetic; LLVM inlines them into the kernel loop and emits 8-wide AVX
code. Accuracy against float64 numpy, over the whole float32 range: exp, log <= 1 ulp; tanh,
sin, cos <= 1.6 ulp; expm1, log1p, logistic <= 3 ulp; inf/nan/overflow/underflow/denormals as
numpy. sin/cos reduce exactly for |x| < ``TRIG_FAST_MAX``; a loop nest that meets a larger
argument is rerun with the libm versions (``trig_huge`` guards; see ``numba_jit``).

Functions are ``cache=True`` (compiled once, then loaded from numba's cache), not numba-inlined:
LLVM inlines them at link time, which costs far less compile time than inlining numba IR.
"""

import numba as nb
import numpy as np
from llvmlite import ir
from numba.extending import intrinsic

_K = dict(cache=True, error_model="numpy")
f32, f64, i32 = np.float32, np.float64, np.int32


@intrinsic
def _bits(typingctx, x):
    """The int32 bit pattern of a float32 (a bitcast: one vector instruction, or none)."""
    return nb.int32(nb.float32), lambda context, builder, sig, args: builder.bitcast(args[0], ir.IntType(32))


@intrinsic
def _from_bits(typingctx, i):
    return nb.float32(nb.int32), lambda context, builder, sig, args: builder.bitcast(args[0], ir.FloatType())


@nb.njit(**_K)
def _pow2(k):
    """2**k for int32 k in [-126, 127], built from its exponent bits."""
    return _from_bits((k + i32(127)) << i32(23))


@nb.njit(**_K)
def exp_f32(x):
    # x = k*ln2 + r, |r| <= ln2/2 (ln2 in two parts so k*ln2_hi is exact); exp(r) by a degree-7
    # polynomial; 2**k applied in two halves so results down to the denormals and up to
    # overflow come out right without branches.
    xc = min(max(x, f32(-104.0)), f32(89.0))
    kf = np.floor(xc * f32(1.44269504088896341) + f32(0.5))
    r = xc - kf * f32(0.693359375)
    r = r - kf * f32(-2.12194440e-4)
    p = f32(1.9875691500e-4)
    p = p * r + f32(1.3981999507e-3)
    p = p * r + f32(8.3334519073e-3)
    p = p * r + f32(4.1665795894e-2)
    p = p * r + f32(1.6666665459e-1)
    p = p * r + f32(5.0000001201e-1)
    p = p * (r * r) + r + f32(1.0)
    k = i32(kf)
    k1 = k >> i32(1)
    y = p * _pow2(k1) * _pow2(k - k1)
    return y if x == x else x


@nb.njit(**_K)
def log_f32(x):
    # x = m * 2**e with m in [sqrt(1/2), sqrt(2)); log(x) = e*ln2 + log(m) by a polynomial in m-1.
    tiny = x < f32(1.17549435e-38)
    xs = x * f32(8388608.0) if tiny else x  # denormals: scale into the normal range
    b = _bits(xs)
    e = ((b >> i32(23)) & i32(255)) - i32(127) - (i32(23) if tiny else i32(0))
    m = _from_bits((b & i32(0x7FFFFF)) | i32(0x3F800000))
    big = m > f32(1.41421356237)
    m = m * f32(0.5) if big else m
    e = e + (i32(1) if big else i32(0))
    f = m - f32(1.0)
    z = f * f
    p = f32(7.0376836292e-2)
    p = p * f + f32(-1.1514610310e-1)
    p = p * f + f32(1.1676998740e-1)
    p = p * f + f32(-1.2420140846e-1)
    p = p * f + f32(1.4249322787e-1)
    p = p * f + f32(-1.6668057665e-1)
    p = p * f + f32(2.0000714765e-1)
    p = p * f + f32(-2.4999993993e-1)
    p = p * f + f32(3.3333331174e-1)
    fe = f32(e)
    y = p * f * z + fe * f32(-2.12194440e-4) - f32(0.5) * z
    y = f + y + fe * f32(0.693359375)
    if x == f32(0.0):
        return f32(-np.inf)
    if not (x >= f32(0.0)):
        return f32(np.nan)
    return x if x == f32(np.inf) else y


@nb.njit(**_K)
def _tanh_poly(x):
    """tanh on |x| < 0.625 (odd minimax polynomial)."""
    z = x * x
    p = f32(-5.70498872745e-3)
    p = p * z + f32(2.06390887954e-2)
    p = p * z + f32(-5.37397155531e-2)
    p = p * z + f32(1.33314422036e-1)
    p = p * z + f32(-3.33332819422e-1)
    return p * z * x + x


@nb.njit(**_K)
def tanh_f32(x):
    a = abs(x)
    t = f32(1.0) - f32(2.0) / (exp_f32(a + a) + f32(1.0))  # exp overflow -> 1, as it should
    t = -t if x < f32(0.0) else t
    return _tanh_poly(x) if a < f32(0.625) else t


@nb.njit(**_K)
def expm1_f32(x):
    # Near 0, expm1(x) = 2t / (1 - t) with t = tanh(x/2) (no cancellation); elsewhere exp(x) - 1.
    t = _tanh_poly(x * f32(0.5))
    return (t + t) / (f32(1.0) - t) if abs(x) < f32(1.25) else exp_f32(x) - f32(1.0)


@nb.njit(**_K)
def log1p_f32(x):
    # Goldberg: log(u) * x / (u - 1) with u = 1 + x cancels the rounding error of 1 + x.
    u = f32(1.0) + x
    um1 = u - f32(1.0)
    lu = log_f32(u)
    k = lu * (x / um1)
    k = x if um1 == f32(0.0) else k
    return lu if (u == f32(np.inf) or u == f32(0.0)) else k


@nb.njit(**_K)
def logistic_f32(x):
    e = exp_f32(-abs(x))  # never overflows; for x < 0, e/(1+e) keeps tiny results
    r = f32(1.0) / (f32(1.0) + e)
    return r if x >= f32(0.0) else e * r


# pi/2 as four float64s of 24 significant bits (from a 300-bit pi): j * part is exact for
# |j| < 2**29, so the reduction is exact for |x| < TRIG_FAST_MAX.
_P1, _P2, _P3, _P4 = (
    1.5707963705062866,
    -4.371138828673793e-08,
    -1.7151245100058819e-15,
    1.056299898220315e-23,
)
TRIG_FAST_MAX = 2.0**28


@nb.njit(**_K)
def _reduce(x):
    """(x - j*pi/2 as float32, j mod 4); non-finite x gives nan."""
    xd = f64(x)
    jf = np.floor(xd * 0.63661977236758134308 + 0.5)
    jf = jf if abs(xd) < TRIG_FAST_MAX else 0.0  # keeps the int conversion defined
    r = xd - jf * _P1
    r = r - jf * _P2
    r = r - jf * _P3
    r = r - jf * _P4
    return f32(r), i32(jf) & i32(3)


@nb.njit(**_K)
def _sin_poly(r, z):
    p = f32(-1.9515295891e-4)
    p = p * z + f32(8.3321608736e-3)
    p = p * z + f32(-1.6666654611e-1)
    return p * z * r + r


@nb.njit(**_K)
def _cos_poly(z):
    p = f32(2.443315711809948e-005)
    p = p * z + f32(-1.388731625493765e-003)
    p = p * z + f32(4.166664568298827e-002)
    return p * z * z - f32(0.5) * z + f32(1.0)


@nb.njit(**_K)
def sin_f32(x):
    r, q = _reduce(x)
    z = r * r
    y = _cos_poly(z) if (q & i32(1)) else _sin_poly(r, z)
    return -y if (q & i32(2)) else y


@nb.njit(**_K)
def cos_f32(x):
    r, q = _reduce(x)
    z = r * r
    y = _sin_poly(r, z) if (q & i32(1)) else _cos_poly(z)
    return -y if ((q + i32(1)) & i32(2)) else y


@nb.njit(**_K)
def trig_huge(x):
    """1 where sin_f32/cos_f32 cannot reduce ``x`` exactly (OR-reduced over a loop: vectorizes)."""
    return i32(abs(x) >= f32(TRIG_FAST_MAX))


@nb.njit(**_K)
def sin_f32_libm(x):
    return f32(np.sin(f64(x)))


@nb.njit(**_K)
def cos_f32_libm(x):
    return f32(np.cos(f64(x)))
