"""Vectorizable float32 transcendentals for generated kernels (``rt.exp_f32(x)``, ...).

numba lowers ``np.exp``/``np.tanh``/``np.sin`` on scalars to libm calls, which LLVM cannot
vectorize (and SVML is not available), so a fused loop spends ~100 ns per element in them. These
are branch-free range reductions and polynomials in plain float32/int32 arithmetic; LLVM inlines
them into the kernel loop and emits 8-wide AVX code. exp, exp2, log, tanh, expm1, log1p,
logistic, sinh, cosh, asinh, acosh, atanh, erf, erfc, erf_inv, lgamma and digamma are XLA's kernels,
operation for operation as ``lax/xla_f32.py`` evaluates them with numpy (JAX's bits, denormals
flushed as XLA does; ``apply`` runs them for eager evaluation; lgamma's and digamma's reflection
calls the C library's sinf/cosf, as XLA's code does, so those two do not vectorize). sin and cos
are glibc's, in ``numba_libm``.

Functions are ``cache=True`` (compiled once, then loaded from numba's cache), not numba-inlined:
LLVM inlines them at link time, which costs far less compile time than inlining numba IR.
"""

import math

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


@intrinsic
def _fma(typingctx, a, b, c):
    """a*b + c rounded once, float32: LLVM's fma (one vfmadd instruction with FMA3/AVX-512; a libm
    call elsewhere), which is what XLA's contracted multiply-adds compute."""

    def codegen(context, builder, sig, args):
        f = ir.FloatType()
        return builder.call(
            builder.module.declare_intrinsic("llvm.fma", [f], ir.FunctionType(f, [f, f, f])), args
        )

    return nb.float32(nb.float32, nb.float32, nb.float32), codegen


@intrinsic
def _fma64(typingctx, a, b, c):
    """``_fma`` in float64 (what GCC contracts glibc's multiply-adds into: ``numba_libm``)."""

    def codegen(context, builder, sig, args):
        d = ir.DoubleType()
        return builder.call(
            builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d])), args
        )

    return nb.float64(nb.float64, nb.float64, nb.float64), codegen


_TINY = f32(1.17549435e-38)


@nb.njit(**_K)
def exp_f32(x):
    # XLA's CPU kernel, operation for operation (engine/lax/xla_f32.py.exp): Cephes' reduction
    # and polynomial with fused multiply-adds; results below the normal range flushed to zero.
    # Branch-free (selects, no early returns), so LLVM vectorizes the loops it is inlined in.
    xc = f32(-87.8) if x < f32(-87.8) else x
    xc = f32(88.8) if xc > f32(88.8) else xc
    xc = f32(0.0) if x != x else xc
    n = np.floor(_fma(xc, f32(1.44269504088896341), f32(0.5)))
    n = f32(-127.0) if n < f32(-127.0) else (f32(127.0) if n > f32(127.0) else n)
    a = _fma(f32(-0.693359375), n, xc)
    a = _fma(f32(2.12194440e-4), n, a)
    z = _fma(a, f32(1.9875691500e-4), f32(1.3981999507e-3))
    z = _fma(z, a, f32(8.3334519073e-3))
    z = _fma(z, a, f32(4.1665795894e-2))
    z = _fma(z, a, f32(1.6666665459e-1))
    z = _fma(z, a, f32(5.0000001201e-1))
    z = f32(1.0) + _fma(z, a * a, a)
    y = z * _from_bits((i32(n) + i32(127)) << i32(23))
    y = f32(0.0) if abs(y) < _TINY else y
    return y if x == x else x


@nb.njit(**_K)
def log_f32(x):
    # XLA's CPU kernel (engine/lax/xla_f32.py.log): denormal inputs read as zero. Branch-free.
    b = _bits(max(x, _TINY))
    e = f32(1.0) + f32((b >> i32(23)) - i32(127))
    t = _from_bits((b & i32(~0x7F800000)) | i32(0x3F000000))
    small = t < f32(0.707106781186547524)
    e = e - (f32(1.0) if small else f32(0.0))
    t = (t - f32(1.0)) + (t if small else f32(0.0))
    x2 = t * t
    x3 = x2 * t
    y = _fma(t, f32(7.0376836292e-2), f32(-1.1514610310e-1))
    y1 = _fma(t, f32(-1.2420140846e-1), f32(1.4249322787e-1))
    y2 = _fma(t, f32(2.0000714765e-1), f32(-2.4999993993e-1))
    y = _fma(y, t, f32(1.1676998740e-1))
    y1 = _fma(y1, t, f32(-1.6668057665e-1))
    y2 = _fma(y2, t, f32(3.3333331174e-1))
    y = _fma(_fma(y, x3, y1), x3, y2)
    y = _fma(y, x3, f32(-2.12194440e-4) * e)
    t = _fma(f32(-0.5), x2, t) + y
    r = _fma(f32(0.693359375), e, t)
    r = r if x > f32(0.0) else _from_bits(i32(-1))  # (negative or nan: XLA's all-ones NaN)
    r = f32(-np.inf) if abs(x) < _TINY else r
    return x if x == f32(np.inf) else r


@nb.njit(**_K)
def tanh_f32(x):
    # XLA's CPU kernel (engine/lax/xla_f32.py.tanh): a rational function of the clamped x.
    c = f32(7.99881172180175781)
    xc = -c if x < -c else (c if x > c else x)
    x2 = xc * xc
    p = _fma(x2, f32(-2.76076847742355e-16), f32(2.00018790482477e-13))
    p = _fma(x2, p, f32(-8.60467152213735e-11))
    p = _fma(x2, p, f32(5.12229709037114e-08))
    p = _fma(x2, p, f32(1.48572235717979e-05))
    p = _fma(x2, p, f32(6.37261928875436e-04))
    p = _fma(x2, p, f32(4.89352455891786e-03))
    q = _fma(x2, f32(1.19825839466702e-06), f32(1.18534705686654e-04))
    q = _fma(x2, q, f32(2.26843463243900e-03))
    q = _fma(x2, q, f32(4.89352518554385e-03))
    r = (xc * p) / q
    return x if (abs(x) < f32(0.0004) or x != x) else r


@nb.njit(**_K)
def _ftz(a):
    return f32(0.0) * a if abs(a) < _TINY else a  # (keeps the sign)


@nb.njit(**_K)
def expm1_f32(x):
    # XLA's (engine/lax/xla_f32.py.expm1)
    # (every value computed before the selects: a call inside a conditional expression is a branch,
    # and a loop with branches does not vectorize)
    half = _ftz(x * f32(0.5))
    e = exp_f32(x)
    small = tanh_f32(half) * (e + f32(1.0))
    large = e - f32(1.0)
    y = large if abs(x) > f32(0.5) else small
    return x if half == f32(0.0) else y


@nb.njit(**_K)
def _log1p(x, fused):
    # XLA's (engine/lax/xla_f32.py._log1p; ``fused`` is a constant where it is inlined)
    x = _ftz(x)
    x2 = _ftz(x * x)
    p = _fma(f32(4.5270000862445199635215e-5), x, f32(4.9854102823193375972212e-1))
    p = _fma(p, x, f32(6.5787325942061044846969e0))
    p = _fma(p, x, f32(2.9911919328553073277375e1))
    p = _fma(p, x, f32(6.0949667980987787057556e1))
    p = _fma(p, x, f32(5.7112963590585538103336e1))
    p = _fma(p, x, f32(2.0039553499201281259648e1))
    q = _fma(f32(1.0), x, f32(1.5062909083469192043167e1))
    q = _fma(q, x, f32(8.3047565967967209469434e1))
    q = _fma(q, x, f32(2.2176239823732856465394e2))
    q = _fma(q, x, f32(3.0909872225312059774938e2))
    q = _fma(q, x, f32(2.1642788614495947685003e2))
    q = _fma(q, x, f32(6.0118660497603843919306e1))
    r = p / q
    half = _fma(f32(-0.5), x2, (x * x2) * r) if fused else _fma(x * x2, r, _ftz(f32(-0.5) * x2))
    small = x + half
    large = log_f32(x + f32(1.0))
    return small if abs(x) < f32(0.41421356237309504880) else large


@nb.njit(**_K)
def log1p_f32(x):
    return _log1p(x, True)


@nb.njit(**_K)
def logistic_f32(x):
    # XLA's: 1 / (1 + exp(-x)), denormal results flushed
    return _ftz(f32(1.0) / (f32(1.0) + exp_f32(-x)))


@nb.njit(**_K)
def exp2_f32(x):
    return exp_f32(f32(0.6931471805599453) * x)


@nb.njit(**_K)
def sinh_f32(x):
    # JAX's lowering (engine/lax/xla_f32.py.sinh)
    m = _ftz(expm1_f32(x))
    small = _ftz(f32(0.5) * (m + m / (m + f32(1.0))))
    large = exp_f32(x + f32(-0.6931471805599453)) - exp_f32(f32(-0.6931471805599453) - x)
    return small if abs(x) < f32(1.0) else large


@nb.njit(**_K)
def cosh_f32(x):
    return exp_f32(x + f32(-0.6931471805599453)) + exp_f32(f32(-0.6931471805599453) - x)


@nb.njit(**_K)
def asinh_f32(x):
    # JAX's lowering (engine/lax/xla_f32.py.asinh)
    x = _ftz(x)
    a = abs(x)
    sq = _ftz(x * x)
    small = log1p_f32(a + _ftz(sq / (np.sqrt(sq + f32(1.0)) + f32(1.0))))
    large = log_f32(a) + f32(0.693147182)
    y = large if a >= f32(2.0**64) else small
    sign = np.copysign(f32(0.0) if x == f32(0.0) else f32(1.0), x)
    return x if x != x else _ftz(sign * y)


@nb.njit(**_K)
def acosh_f32(x):
    # JAX's lowering (engine/lax/xla_f32.py.acosh)
    x = _ftz(x)
    s = np.sqrt(x - f32(1.0))
    small = log1p_f32(s * (np.sqrt(x + f32(1.0)) + s))
    large = log_f32(x) + f32(0.693147182)
    return large if x >= f32(2.0**127) else small


@nb.njit(**_K)
def atanh_f32(x):
    # JAX's lowering (engine/lax/xla_f32.py.atanh)
    x = _ftz(x)
    y = _ftz((_log1p(x, False) - _log1p(-x, False)) * f32(0.5))
    return f32(np.nan) if abs(x) > f32(1.0) else y


@nb.njit(**_K)
def erf_f32(x):
    # XLA's CPU kernel (engine/lax/xla_f32.py.erf)
    x = _ftz(x)
    x2 = x * x
    p = _fma(x2, f32(0.00022905065861350646), f32(0.0034082910107109506))
    p = _fma(x2, p, f32(0.050955695062380861))
    p = _fma(x2, p, f32(0.18520832239976145))
    p = _fma(x2, p, f32(1.128379143519084))
    q = _fma(x2, f32(-1.1791602954361697e-7), f32(0.000023547966471313185))
    q = _fma(x2, q, f32(0.0010179625278914885))
    q = _fma(x2, q, f32(0.014070470171167667))
    q = _fma(x2, q, f32(0.11098505178285362))
    q = _fma(x2, q, f32(0.49746925110067538))
    q = _fma(x2, q, f32(1.0))
    y = _ftz((x * p) / q)
    return np.copysign(f32(1.0), x) if abs(x) >= f32(3.832506856900711) else y


@nb.njit(**_K)
def erfc_f32(x):
    # CHLO's decomposition (engine/lax/xla_f32.py.erfc)
    x = _ftz(x)
    xsq = _ftz(x * x)
    a = abs(x)
    w = _ftz(f32(1.0) / xsq)
    p = _fma(f32(2.326819970068386e-2), w, f32(-1.387039388740657e-1))
    p = _fma(p, w, f32(3.687424674597105e-1))
    p = _fma(p, w, f32(-5.824733027278666e-1))
    p = _fma(p, w, f32(6.210004621745983e-1))
    p = _fma(p, w, f32(-4.944515323274145e-1))
    p = _fma(p, w, f32(3.404879937665872e-1))
    p = _fma(p, w, f32(-2.741127028184656e-1))
    p = _ftz(_fma(p, w, f32(5.638259427386472e-1)))
    r = _fma(f32(-1.047766399936249e1), w, f32(1.297719955372516e1))
    r = _fma(r, w, f32(-7.495518717768503e0))
    r = _fma(r, w, f32(2.921019019210786e0))
    r = _fma(r, w, f32(-1.015265279202700e0))
    r = _fma(r, w, f32(4.218463358204948e-1))
    r = _fma(r, w, f32(-2.820767439740514e-1))
    r = _ftz(_fma(r, w, f32(5.641895067754075e-1)))
    e = _ftz(exp_f32(-xsq) * _ftz(f32(1.0) / a))
    big = _ftz(e * (p if a < f32(2.0) else r))
    big = f32(0.0) if -xsq < f32(-88.72283905206835) else big
    big = f32(2.0) - big if x < f32(0.0) else big
    t = _fma(f32(7.853861353153693e-5), xsq, f32(-8.010193625184903e-4))
    t = _fma(t, xsq, f32(5.188327685732524e-3))
    t = _fma(t, xsq, f32(-2.685381193529856e-2))
    t = _fma(t, xsq, f32(1.128358514861418e-1))
    t = _fma(t, xsq, f32(-3.761262582423300e-1))
    t = _ftz(_fma(t, xsq, f32(1.128379165726710e0)))
    y = _fma(-x, t, f32(1.0)) if a < f32(1.0) else big
    return -x if x != x else y


@nb.njit(**_K)
def erf_inv_f32(x):
    # JAX's lowering (engine/lax/xla_f32.py.erf_inv): both polynomials' coefficients selected,
    # one Horner loop, as XLA evaluates it (and branch-free)
    x = _ftz(x)
    w = -log1p_f32(_ftz(x * -x))
    lt = w < f32(5.0)
    w_lt, w_ge = w - f32(2.5), np.sqrt(w) - f32(3.0)
    w = w_lt if lt else w_ge
    p = f32(2.81022636e-08) if lt else f32(-0.000200214257)
    p = _fma(p, w, f32(3.43273939e-07) if lt else f32(0.000100950558))
    p = _fma(p, w, f32(-3.5233877e-06) if lt else f32(0.00134934322))
    p = _fma(p, w, f32(-4.39150654e-06) if lt else f32(-0.00367342844))
    p = _fma(p, w, f32(0.00021858087) if lt else f32(0.00573950773))
    p = _fma(p, w, f32(-0.00125372503) if lt else f32(-0.0076224613))
    p = _fma(p, w, f32(-0.00417768164) if lt else f32(0.00943887047))
    p = _fma(p, w, f32(0.246640727) if lt else f32(1.00167406))
    p = _fma(p, w, f32(1.50140941) if lt else f32(2.83297682))
    y = _ftz(p * x)
    return x * f32(np.inf) if abs(x) == f32(1.0) else y


@nb.njit(**_K)
def _lanczos_z(x):
    return -x if x < f32(0.5) else x + f32(-1.0)


@nb.njit(**_K)
def lgamma_f32(x):
    # JAX's lowering (engine/lax/xla_f32.py.lgamma); np.sin of a float32 is the C library's sinf,
    # which XLA calls too
    x = _ftz(x)
    z = _lanczos_z(x)
    s = f32(1.0) + f32(676.520386) / (z + f32(1.0))
    s = s + f32(-1259.13916) / (z + f32(2.0))
    s = s + f32(771.323425) / (z + f32(3.0))
    s = s + f32(-176.615036) / (z + f32(4.0))
    s = s + f32(12.5073433) / (z + f32(5.0))
    s = s + f32(-0.138571098) / (z + f32(6.0))
    s = s + f32(9.98436917e-06) / (z + f32(7.0))
    s = s + f32(1.50563267e-07) / (z + f32(8.0))
    log_t = log1p_f32(z * f32(1 / 7.5)) + f32(2.01490307)
    y = _fma((z + f32(0.5)) - (z + f32(7.5)) / log_t, log_t, f32(0.918938518)) + log_f32(s)
    a = abs(x)
    frac = a - np.floor(a)
    r = f32(1.0) - frac if f32(0.5) < frac else frac
    log_sin = log_f32(np.sin(_ftz(r * f32(np.pi))))
    reflected = (f32(1.14472985) - log_sin) - y if abs(log_sin) < f32(np.inf) else -log_sin
    y = reflected if x < f32(0.5) else y
    return f32(np.inf) if a == f32(np.inf) else y


@nb.njit(**_K)
def digamma_f32(x):
    # JAX's lowering (engine/lax/xla_f32.py.digamma); np.sin/np.cos of a float32: sinf/cosf
    x = _ftz(x)
    z = _lanczos_z(x)
    num, den = f32(0.0), f32(1.0)
    for k, c in (
        (f32(1.0), f32(676.520386)), (f32(2.0), f32(-1259.13916)), (f32(3.0), f32(771.323425)),
        (f32(4.0), f32(-176.615036)), (f32(5.0), f32(12.5073433)), (f32(6.0), f32(-0.138571098)),
        (f32(7.0), f32(9.98436917e-06)), (f32(8.0), f32(1.50563267e-07)),
    ):  # fmt: skip
        zk = z + k
        num = num - c / _ftz(zk * zk)
        den = den + c / zk
    log_t = log1p_f32(z * f32(1 / 7.5)) + f32(2.01490307)
    y = (log_t + num / den) - f32(7.0) / (z + f32(7.5))
    v = _ftz((x + abs(np.floor(x + f32(0.5)))) * f32(np.pi))
    y = y - _ftz(np.cos(v) * f32(np.pi)) / np.sin(v) if x < f32(0.5) else y
    y = _from_bits(i32(-1)) if x != x else y  # (XLA's log1p of a nan: all ones)
    return f32(np.nan) if (x <= f32(0.0) and x == np.floor(x)) else y


# float64: XLA's own exp (engine/lax/xla_f64.py), and JAX's cosh, CHLO's erfc over it.
@nb.njit(**_K)
def exp_f64(x):
    xc = min(x, 709.782712893384) if x == x else x
    xc = max(xc, -708.3964185322641) if xc == xc else xc
    n = np.floor(_fma64(xc, 1.4426950408889634073599, 0.5))
    g = _fma64(-n, 0.693145751953125, xc)
    g = _fma64(-n, 1.42860682030941723212e-6, g)
    g2 = g * g
    p = _fma64(
        _fma64(1.26177193074810590878e-4, g2, 3.02994407707441961300e-2), g2, 9.99999999999999999910e-1
    )
    p = p * g
    q = _fma64(3.00198505138664455042e-6, g2, 2.52448340349684104192e-3)
    q = _fma64(_fma64(q, g2, 2.27265548208155028766e-1), g2, 2.00000000000000000009e0)
    r = math.ldexp(_fma64(p / (q - p), 2.0, 1.0), int(n)) if n == n else n
    r = 0.0 if x < -708.3964185322641 else r
    return np.inf if x > 709.782712893384 else r


@nb.njit(**_K)
def cosh_f64(x):
    # JAX's lowering, as in float32: exp(x + log(1/2)) + exp(log(1/2) - x)
    return exp_f64(x + -0.6931471805599453) + exp_f64(-0.6931471805599453 - x)


@nb.njit(**_K)
def _horner64(x, cs):
    p = 0.0
    for c in cs:
        p = _fma64(p, x, c)
    return p


@nb.njit(**_K)
def erfc_f64(x):
    # CHLO's float64 decomposition (engine/lax/xla_f64.py): Cephes' rational functions
    tiny = 2.2250738585072014e-308
    x = 0.0 * x if abs(x) < tiny else x
    xsq = x * x
    a = abs(x)
    ez = exp_f64(-xsq)
    mid = ez * _horner64(a, _ERFC64_P) / _horner64(a, _ERFC64_Q)
    far = ez * _horner64(a, _ERFC64_R) / _horner64(a, _ERFC64_S)
    big = mid if a < 8.0 else far
    big = 0.0 if -xsq < -7.09782712893383996843e2 else big
    big = 2.0 - big if x < 0.0 else big
    small = 1.0 - x * _horner64(xsq, _ERFC64_T) / _horner64(xsq, _ERFC64_U)
    y = small if a < 1.0 else big
    return 0.0 * y if abs(y) < tiny else y


_ERFC64_P = (
    2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0, 4.86371970985681366614e1,
    1.96520832956077098242e2, 5.26445194995477358631e2, 9.34528527171957607540e2, 1.02755188689515710272e3,
    5.57535335369399327526e2,
)  # fmt: skip
_ERFC64_Q = (
    1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2, 9.75708501743205489753e2,
    1.82390916687909736289e3, 2.24633760818710981792e3, 1.65666309194161350182e3, 5.57535340817727675546e2,
)  # fmt: skip
_ERFC64_R = (
    5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0, 6.16021097993053585195e0,
    7.40974269950448939160e0, 2.97886665372100240670e0,
)  # fmt: skip
_ERFC64_S = (
    1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1, 1.70814450747565897222e1,
    9.60896809063285878198e0, 3.36907645100081516050e0,
)  # fmt: skip
_ERFC64_T = (
    9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3, 7.00332514112805075473e3,
    5.55923013010394962768e4,
)  # fmt: skip
_ERFC64_U = (
    1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3, 2.26290000613890934246e4,
    4.92673942608635921086e4,
)  # fmt: skip


@nb.njit(**_K)
def _apply64(which, x, out):
    if which == 0:  # (the choice outside the loops, as _apply's)
        for i in range(x.size):
            out[i] = exp_f64(x[i])
    elif which == 1:
        for i in range(x.size):
            out[i] = erfc_f64(x[i])
    else:
        for i in range(x.size):
            out[i] = cosh_f64(x[i])


def apply64(name: str, x: np.ndarray) -> np.ndarray:
    """XLA's float64 ``name`` (exp, erfc, cosh) of every element of the float64 array ``x``."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    _apply64(("exp", "erfc", "cosh").index(name), flat, out)
    return out.reshape(x.shape)


# YNNPACK's float32 functions (engine/lax/ynn_unary.py, operation for operation): what XLA's YNN
# fusions compute for the elementwise ops feeding a large sum. Branch-free, as the ones above.
@nb.njit(**_K)
def _ynn_exp(x, m):
    xc = f32(-88.02969360351562) if x < f32(-88.02969360351562) else x
    xc = f32(88.72283935546875) if xc > f32(88.72283935546875) else xc
    xc = f32(0.0) if x != x else xc
    b = (f32(12582912.0) + xc * f32(1.4426950408889634)) - f32(12582912.0)
    r = _fma(b, f32(-6.9314575195e-01), xc)
    r = _fma(b, f32(-1.4286067653e-06), r)
    pow2 = _from_bits((i32(b) + i32(127)) << i32(23))
    pow2 = x if x != x else pow2
    r2 = _ftz(r * r)
    y0 = _fma(r2, f32(-4.9866619520e-05), f32(1.4132461511e-03))
    y1 = _fma(r2, f32(2.2773783712e-04), f32(8.3242934197e-03))
    y0 = _fma(r2, y0, f32(4.1665628552e-02))
    y1 = _fma(r2, y1, f32(1.6666725278e-01))
    y0 = _fma(r2, y0, f32(4.9999994040e-01))
    y = _fma(pow2, _fma(r2, _fma(r, y1, y0), r), pow2 - m)
    return pow2 if abs(pow2) == f32(np.inf) else y


@nb.njit(**_K)
def ynn_exp_f32(x):
    return _ftz(_ynn_exp(_ftz(x), f32(0.0)))


@nb.njit(**_K)
def ynn_expm1_f32(x):
    return _ftz(_ynn_exp(_ftz(x), f32(1.0)))


@nb.njit(**_K)
def ynn_tanh_f32(x):
    t = _ftz(x) * f32(2.0)
    e = _ynn_exp(t if t < f32(80.0) or t != t else f32(80.0), f32(1.0))
    return _ftz(e / (e + f32(2.0)))


@nb.njit(**_K)
def ynn_logistic_f32(x):
    # XLA expands logistic to 1 / (1 + exp(-x)) before it forms the fusion
    return _ftz(f32(1.0) / (f32(1.0) + ynn_exp_f32(-x)))


@nb.njit(**_K)
def _ynn_log(x, y, plus_one):
    b = _bits(y)
    e = f32(((b >> i32(23)) & i32(0xFF)) - i32(127))  # vgetexpps of a normal y
    e = f32(-np.inf) if y == f32(0.0) else (f32(np.inf) if y == f32(np.inf) else e)
    e = f32(np.nan) if (y < f32(0.0) or y != y) else e
    m = _from_bits((b & i32(0x007FFFFF)) | i32(0x3F800000))
    large = m > f32(1.41421356237309504880)
    e = e + f32(1.0) if large else e
    m = m * f32(0.5) if large else m
    r = m - f32(1.0)
    r = x if (plus_one and e == f32(0.0)) else r
    r2 = _ftz(r * r)
    p = _fma(r, f32(-3.3127889037e-01), _fma(r2, f32(-5.2293352783e-03), f32(-4.9999964237e-01)))
    q = _fma(r, f32(1.3292170763e00), _fma(r2, f32(3.9658042789e-01), f32(1.0)))
    return _ftz(_fma(e, f32(6.93147180559945309e-01), _fma(r2, p / q, r)))


@nb.njit(**_K)
def ynn_log_f32(x):
    x = _ftz(x)
    return _ynn_log(x, x, False)


@nb.njit(**_K)
def ynn_log1p_f32(x):
    x = _ftz(x)
    return _ynn_log(x, _ftz(x + f32(1.0)), True)


# The kernels eager evaluation runs (``lax/xla_f32.kernel``), by index into one cached loop: one
# compile for all of them, and no ufunc machinery to load (a numba ufunc takes seconds to build even
# from the cache).
ARRAY_KERNELS = (
    "exp",
    "exp2",
    "log",
    "tanh",
    "expm1",
    "log1p",
    "logistic",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erf_inv",
    "lgamma",
    "digamma",
    "erfc",
)


@nb.njit(**_K)
def _apply(which, x, out):
    # (one loop per function, the choice made once outside them: a loop that branches on `which`
    # in its body is not vectorized, and ran 5-8x slower)
    if which == 0:
        for i in range(x.size):
            out[i] = exp_f32(x[i])
    elif which == 1:
        for i in range(x.size):
            out[i] = exp2_f32(x[i])
    elif which == 2:
        for i in range(x.size):
            out[i] = log_f32(x[i])
    elif which == 3:
        for i in range(x.size):
            out[i] = tanh_f32(x[i])
    elif which == 4:
        for i in range(x.size):
            out[i] = expm1_f32(x[i])
    elif which == 5:
        for i in range(x.size):
            out[i] = log1p_f32(x[i])
    elif which == 6:
        for i in range(x.size):
            out[i] = logistic_f32(x[i])
    elif which == 7:
        for i in range(x.size):
            out[i] = sinh_f32(x[i])
    elif which == 8:
        for i in range(x.size):
            out[i] = cosh_f32(x[i])
    elif which == 9:
        for i in range(x.size):
            out[i] = asinh_f32(x[i])
    elif which == 10:
        for i in range(x.size):
            out[i] = acosh_f32(x[i])
    elif which == 11:
        for i in range(x.size):
            out[i] = atanh_f32(x[i])
    elif which == 12:
        for i in range(x.size):
            out[i] = erf_f32(x[i])
    elif which == 13:
        for i in range(x.size):
            out[i] = erf_inv_f32(x[i])
    elif which == 14:
        for i in range(x.size):
            out[i] = lgamma_f32(x[i])
    elif which == 15:
        for i in range(x.size):
            out[i] = digamma_f32(x[i])
    else:
        for i in range(x.size):
            out[i] = erfc_f32(x[i])


def apply(name: str, x: np.ndarray) -> np.ndarray:
    """``<name>_f32`` of every element of the float32 array ``x`` (the same bits as the numpy steps
    of ``lax/xla_f32.py``, ~50x faster)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    _apply(ARRAY_KERNELS.index(name), flat, out)
    return out.reshape(x.shape)
