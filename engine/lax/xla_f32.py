"""float32 ``exp``, ``log``, ``tanh``, ``expm1``, ``log1p``, ``logistic``, ``exp2``, ``sinh``,
``cosh``, ``asinh``, ``acosh``, ``atanh``, ``erf``, ``erfc``, ``erf_inv``, ``lgamma`` and
``digamma`` as XLA's CPU backend computes them, bit for bit.

XLA does not call libm for these: it inlines Cephes' range reductions and polynomials (a rational
function for tanh and erf), JAX lowers the others to those (CHLO's decompositions: asinh from log1p,
lgamma and digamma from Lanczos' sum, whose reflection calls the C library's ``sinf``/``cosf``),
LLVM contracts each multiply-add into one fused multiply-add (where the product has one use: in
``atanh``'s two log1p the shared ``-x**2/2`` is rounded), and XLA runs with denormals flushed to
zero (inputs read as zero, results written as zero). numpy's float32 ``exp``/``log`` are other
algorithms whose last bits depend on the CPU (on AVX-512 machines 39% of ``np.exp`` results are
1-2 ulp from the correctly rounded value), so a learner comparing printed values with JAX's saw
different last digits. These functions give JAX's float32 results on every machine (checked
against JAX 0.10.2 on ~1e6 inputs per function, over all float32 bit patterns and the function's
domain: identical); the numba kernels (``backends/numba_math.py``) evaluate the same operations in
the same order, so eager and jitted programs agree too. ``log2``/``log10`` are made of ``log``
(JAX's log2 divides by log(2), which XLA does as a multiply by its reciprocal: see
``elementwise.float_divide``). ``rsqrt`` is not here: XLA computes it with the CPU's approximate
``vrsqrtss`` and a Newton step, whose bits depend on the CPU model.

One shape dependence of JAX's own: XLA's scalar code (arrays of under 16 elements, the remainder of
a vectorized loop, some odd sizes) fuses the other product of ``log``'s last multiply-add in the
log1p of ``asinh`` and ``acosh``, so there JAX's results differ by an ulp on ~1e-4 of inputs from
its vectorized loop's; these functions follow the vectorized loop.

A fused multiply-add is a float64 ``a*b + c`` rounded once to float32: the float32 product is
exact in float64, so only the sum rounds (double rounding differs from a true fma on about one
input in 2**29).
"""

from __future__ import annotations

import numpy as np


f32, f64, i32 = np.float32, np.float64, np.int32
TINY = f32(1.17549435e-38)  # the smallest normal float32: below it XLA reads and writes zero
# The NaN XLA's vectorized log writes for a negative or NaN input: it ORs an all-ones mask of the
# invalid lanes into the result (its scalar code, for some short arrays, passes NaNs through: this
# module follows the vectorized loop). Functions made of log (log1p, acosh, lgamma...) inherit it.
MASK_NAN = np.uint32(0xFFFFFFFF).view(f32)

_LOG2E, _LN2_HI, _LN2_LO = f32(1.44269504088896341), f32(0.693359375), f32(-2.12194440e-4)
_EXP_P = tuple(
    f32(c)
    for c in (
        1.9875691500e-4,
        1.3981999507e-3,
        8.3334519073e-3,
        4.1665795894e-2,
        1.6666665459e-1,
        5.0000001201e-1,
    )
)
_LOG_P = tuple(
    f32(c)
    for c in (
        7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
        -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
    )
)  # fmt: skip
_SQRTHF = f32(0.707106781186547524)
_TANH_P = tuple(
    f32(c)
    for c in (
        -2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
        1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03,
    )
)  # fmt: skip
_TANH_Q = tuple(
    f32(c) for c in (1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03)
)
_TANH_CLAMP = f32(7.99881172180175781)  # where the rational function reaches 1


def fma(a, b, c) -> np.ndarray:
    """``a*b + c`` rounded once to float32 (see the module docstring)."""
    return (np.asarray(a, f64) * np.asarray(b, f64) + np.asarray(c, f64)).astype(f32)


_numba_math = None  # the numba kernels once loaded; False without numba


def numba_kernels():
    """``backends/numba_math`` once loaded, or None without numba."""
    global _numba_math
    if _numba_math is None:
        try:
            from ..backends import numba_math
        except ImportError:
            _numba_math = False
        else:
            _numba_math = numba_math
    return _numba_math or None


def kernel(name: str, x: np.ndarray) -> np.ndarray:
    """XLA's float32 ``name`` (a key of ``_STEPS``) of ``x``: by the numba kernels where numba is
    installed (~1 ns an element and ~3 us a call; loading them costs a process ~0.5 s once, and the
    sandbox's zygote has them loaded), else by the numpy steps (~50 ns an element, ~40 us a call)."""
    kernels = numba_kernels()
    if kernels:  # (compiled code reports no floating-point errors: numpy's error state is not read)
        return kernels.apply(name, x)
    with np.errstate(all="ignore"):
        return _STEPS[name](x)


def exp(x) -> np.ndarray:
    """``exp`` of a float32 array as XLA's CPU kernel computes it.

    Example:

      >>> float(exp(np.float32(1.0)))
      2.7182817459106445
    """
    x = np.clip(np.asarray(x, f32), f32(-87.8), f32(88.8))  # (nan stays nan)
    n = np.clip(np.floor(fma(x, _LOG2E, f32(0.5))), f32(-127), f32(127))
    a = fma(-_LN2_HI, n, x)
    a = fma(-_LN2_LO, n, a)
    z = fma(a, _EXP_P[0], _EXP_P[1])
    for c in _EXP_P[2:]:
        z = fma(z, a, c)
    z = f32(1) + fma(z, a * a, a)
    pow2 = ((np.nan_to_num(n).astype(i32) + i32(127)) << i32(23)).view(f32)  # 2**n; 0 for n = -127
    with np.errstate(over="ignore"):
        y = np.asarray(z * pow2, f32)
    return np.where(np.abs(y) < TINY, f32(0), y)


def log(x) -> np.ndarray:
    """``log`` of a float32 array as XLA's CPU kernel computes it (``log(denormal) = -inf``).

    Example:

      >>> float(log(np.float32(10.0)))
      2.3025851249694824
    """
    x = np.asarray(x, f32)
    x = np.where(np.abs(x) < TINY, f32(0), x)
    invalid, zero, pos_inf = ~(x > 0), x == 0, x == np.inf
    bits = np.maximum(x, TINY).view(i32)  # (nan: the mask below answers for it)
    e = f32(1) + ((bits >> i32(23)) - i32(127)).astype(f32)
    t = ((bits & i32(~0x7F800000)) | i32(0x3F000000)).view(f32)  # the mantissa in [0.5, 1)
    small = t < _SQRTHF
    e = e - small.astype(f32)
    t = (t - f32(1)) + np.where(small, t, f32(0))
    x2 = t * t
    x3 = x2 * t
    p = _LOG_P
    y, y1, y2 = fma(t, p[0], p[1]), fma(t, p[3], p[4]), fma(t, p[6], p[7])
    y, y1, y2 = fma(y, t, p[2]), fma(y1, t, p[5]), fma(y2, t, p[8])
    y = fma(fma(y, x3, y1), x3, y2)
    y = fma(y, x3, _LN2_LO * e)
    t = fma(f32(-0.5), x2, t) + y
    t = fma(_LN2_HI, e, t)
    out = np.where(invalid, MASK_NAN, t)
    out = np.where(zero, f32(-np.inf), out)
    return np.asarray(np.where(pos_inf, f32(np.inf), out), f32)


def tanh(x) -> np.ndarray:
    """``tanh`` of a float32 array as XLA's CPU kernel computes it (``x`` itself for |x| < 4e-4).

    Example:

      >>> float(tanh(np.float32(0.5)))
      0.46211716532707214
    """
    x = np.asarray(x, f32)
    xc = np.clip(x, -_TANH_CLAMP, _TANH_CLAMP)
    x2 = xc * xc
    p = np.full(x.shape, _TANH_P[0])
    for c in _TANH_P[1:]:
        p = fma(x2, p, c)
    q = np.full(x.shape, _TANH_Q[0])
    for c in _TANH_Q[1:]:
        q = fma(x2, q, c)
    with np.errstate(invalid="ignore"):
        return np.asarray(np.where(np.abs(x) < f32(0.0004), x, (xc * p) / q), f32)


def ftz(a) -> np.ndarray:
    """``a`` with its denormals flushed to (signed) zero, as XLA's arithmetic reads and writes them."""
    a = np.asarray(a, f32)
    return np.where(np.abs(a) < TINY, np.copysign(f32(0), a), a)


def expm1(x) -> np.ndarray:
    """``expm1`` as XLA computes it: ``tanh(x/2) * (exp(x) + 1)`` for |x| <= 1/2, else
    ``exp(x) - 1`` (``x`` itself where x/2 flushes to zero).

    Example:

      >>> float(expm1(np.float32(1e-3)))
      0.001000500051304698
    """
    x = np.asarray(x, f32)
    half = ftz(x * f32(0.5))
    e = exp(x)
    y = np.where(np.abs(x) > f32(0.5), e - f32(1), tanh(half) * (e + f32(1)))
    return np.asarray(np.where(half == 0, x, y), f32)


_LOG1P_Q = tuple(
    f32(c)
    for c in (
        1.0, 1.5062909083469192043167e1, 8.3047565967967209469434e1, 2.2176239823732856465394e2,
        3.0909872225312059774938e2, 2.1642788614495947685003e2, 6.0118660497603843919306e1,
    )
)  # fmt: skip
_LOG1P_P = tuple(
    f32(c)
    for c in (
        4.5270000862445199635215e-5, 4.9854102823193375972212e-1, 6.5787325942061044846969e0,
        2.9911919328553073277375e1, 6.0949667980987787057556e1, 5.7112963590585538103336e1,
        2.0039553499201281259648e1,
    )
)  # fmt: skip


def log1p(x) -> np.ndarray:
    """``log1p`` as XLA computes it: Cephes' rational function for |x| < sqrt(2) - 1, else
    ``log(1 + x)``.

    Example:

      >>> float(log1p(np.float32(1e-3)))
      0.00099950039293617
    """
    return _log1p(x, fused=True)


def _log1p(x, fused: bool) -> np.ndarray:
    # fused=False: ``-x**2/2`` rounded, the other product fused instead (LLVM fuses a product into
    # an add only where the product has one use: atanh's log1p(x) and log1p(-x) share -x**2/2)
    x = ftz(x)
    x2 = ftz(x * x)
    p, q = np.zeros_like(x), np.zeros_like(x)
    for c in _LOG1P_P:
        p = fma(p, x, c)
    for c in _LOG1P_Q:
        q = fma(q, x, c)
    small = x + (fma(f32(-0.5), x2, (x * x2) * (p / q)) if fused else fma(x * x2, p / q, ftz(f32(-0.5) * x2)))
    return np.asarray(np.where(np.abs(x) < f32(0.41421356237309504880), small, log(x + f32(1))), f32)


def logistic(x) -> np.ndarray:
    """``1 / (1 + exp(-x))`` with XLA's exp, denormal results flushed.

    Example:

      >>> float(logistic(np.float32(2.0)))
      0.8807970285415649
    """
    x = np.asarray(x, f32)
    return ftz(f32(1) / (f32(1) + exp(-x)))


def exp2(x) -> np.ndarray:
    """``exp(log(2) * x)``: JAX lowers exp2 so.

    Example:

      >>> float(exp2(np.float32(0.5)))
      1.4142135381698608
    """
    return exp(f32(np.log(2)) * np.asarray(x, f32))


_LOG_HALF = f32(np.log(0.5))


def sinh(x) -> np.ndarray:
    """``sinh`` as JAX's lowering (CHLO's decomposition) computes it: from ``expm1`` for |x| < 1,
    else ``exp(x + log(1/2)) - exp(log(1/2) - x)``.

    Example:

      >>> float(sinh(np.float32(2.0)))
      3.6268603801727295
    """
    x = np.asarray(x, f32)
    m = ftz(expm1(x))  # (expm1 passes a denormal x through; the arithmetic reads it as zero)
    small = ftz(f32(0.5) * (m + m / (m + f32(1))))
    return np.asarray(np.where(np.abs(x) < f32(1), small, exp(x + _LOG_HALF) - exp(_LOG_HALF - x)), f32)


def cosh(x) -> np.ndarray:
    """``exp(x + log(1/2)) + exp(log(1/2) - x)``, as JAX's lowering computes ``cosh``.

    Example:

      >>> float(cosh(np.float32(2.0)))
      3.7621958255767822
    """
    x = np.asarray(x, f32)
    return np.asarray(exp(x + _LOG_HALF) + exp(_LOG_HALF - x), f32)


_LN2 = f32(0.693147182)


def asinh(x) -> np.ndarray:
    """``asinh`` as JAX's lowering (CHLO's decomposition) computes it: ``sign(x)`` times
    ``log1p(|x| + x**2 / (sqrt(x**2 + 1) + 1))``, or ``log(|x|) + log(2)`` for |x| >= 2**64 (XLA
    does not fuse ``x*x + 1``: the product has two uses).

    Example:

      >>> float(asinh(np.float32(2.0)))
      1.4436354637145996
    """
    x = ftz(x)
    a = np.abs(x)
    sq = ftz(x * x)
    small = log1p(a + ftz(sq / (np.sqrt(sq + f32(1)) + f32(1))))
    y = np.where(a >= f32(2.0**64), log(a) + _LN2, small)
    sign = np.copysign(np.where(x == 0, f32(0), f32(1)), x)  # (-0 for a negative denormal)
    return np.asarray(ftz(np.where(np.isnan(x), x, sign * y)), f32)


def acosh(x) -> np.ndarray:
    """``log1p(sqrt(x - 1) * (sqrt(x + 1) + sqrt(x - 1)))``, or ``log(x) + log(2)`` for x >= 2**127,
    as JAX's lowering computes ``acosh``.

    Example:

      >>> float(acosh(np.float32(2.0)))
      1.316957950592041
    """
    x = ftz(x)
    s = np.sqrt(x - f32(1))
    y = log1p(s * (np.sqrt(x + f32(1)) + s))
    return np.asarray(np.where(x >= f32(2.0**127), log(x) + _LN2, y), f32)


def atanh(x) -> np.ndarray:
    """``(log1p(x) - log1p(-x)) / 2`` (nan for |x| > 1), as JAX's lowering computes ``atanh``.

    Example:

      >>> float(atanh(np.float32(0.5)))
      0.5493061542510986
    """
    x = ftz(x)
    y = ftz((_log1p(x, False) - _log1p(-x, False)) * f32(0.5))
    return np.asarray(np.where(np.abs(x) > f32(1), f32(np.nan), y), f32)


# erf: the rational function Eigen uses (odd numerator, even denominator in x**2), each Horner step
# a fused multiply-add; erf(5/sqrt(2)) is 0.99999946 there, one ulp above the correctly rounded value.
_ERF_NUM = tuple(
    f32(c)
    for c in (
        0.00022905065861350646,
        0.0034082910107109506,
        0.050955695062380861,
        0.18520832239976145,
        1.128379143519084,
    )
)
_ERF_DEN = tuple(
    f32(c)
    for c in (
        -1.1791602954361697e-7, 0.000023547966471313185, 0.0010179625278914885, 0.014070470171167667,
        0.11098505178285362, 0.49746925110067538, 1.0,
    )
)  # fmt: skip
ERF_ONE_AT = f32(3.832506856900711)  # |x| from here on is +-1 (erfinv(1 - 2**-24))


def erf(x) -> np.ndarray:
    """``erf`` as XLA's CPU kernel computes it (``x * p(x**2) / q(x**2)``, +-1 from ``ERF_ONE_AT``).

    Example:

      >>> float(erf(np.float32(5 / np.sqrt(2))))
      0.999999463558197
    """
    x = ftz(x)
    x2 = x * x
    p, q = np.full(x.shape, _ERF_NUM[0]), np.full(x.shape, _ERF_DEN[0])
    for c in _ERF_NUM[1:]:
        p = fma(x2, p, c)
    for c in _ERF_DEN[1:]:
        q = fma(x2, q, c)
    y = ftz((x * p) / q)
    return np.asarray(np.where(np.abs(x) >= ERF_ONE_AT, np.copysign(f32(1), x), y), f32)


# erf_inv: M. Giles' float32 polynomials ("Approximating the erfinv function", GPU Computing Gems,
# 2011) in w = -log1p(-x**2), below w = 5 and above.
_ERFINV_LT5 = tuple(
    f32(c)
    for c in (
        2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
        -0.00417768164, 0.246640727, 1.50140941,
    )
)  # fmt: skip
_ERFINV_GE5 = tuple(
    f32(c)
    for c in (
        -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
        0.00943887047, 1.00167406, 2.83297682,
    )
)  # fmt: skip


def erf_inv(x) -> np.ndarray:
    """``erf_inv`` as JAX's lowering computes it: Giles' polynomial in ``-log1p(-x*x)`` (XLA's
    log1p), each Horner step a fused multiply-add; +-inf at +-1.

    Example:

      >>> float(erf_inv(np.float32(0.5)))
      0.4769362807273865
    """
    x = ftz(x)
    w = -log1p(ftz(x * -x))
    lt = w < f32(5)
    w = np.where(lt, w - f32(2.5), np.sqrt(w) - f32(3))
    p = np.where(lt, _ERFINV_LT5[0], _ERFINV_GE5[0])
    for a, b in zip(_ERFINV_LT5[1:], _ERFINV_GE5[1:]):
        p = fma(p, w, np.where(lt, a, b))
    y = ftz(p * x)
    return np.asarray(np.where(np.abs(x) == f32(1), x * f32(np.inf), y), f32)


# erfc: CHLO's float32 decomposition (Cephes): for |x| >= 1, exp(-x**2) / |x| times a polynomial in
# 1/x**2 (P below |x| = 2, R from there; 0 once -x**2 < -88.72...; 2 minus it for negative x); for
# |x| < 1, 1 - x*T(x**2), which LLVM contracts into one fused multiply-add.
_ERFC_P = tuple(
    f32(c)
    for c in (
        2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1, -5.824733027278666e-1,
        6.210004621745983e-1, -4.944515323274145e-1, 3.404879937665872e-1, -2.741127028184656e-1,
        5.638259427386472e-1,
    )
)  # fmt: skip
_ERFC_R = tuple(
    f32(c)
    for c in (
        -1.047766399936249e1, 1.297719955372516e1, -7.495518717768503e0, 2.921019019210786e0,
        -1.015265279202700e0, 4.218463358204948e-1, -2.820767439740514e-1, 5.641895067754075e-1,
    )
)  # fmt: skip
_ERFC_T = tuple(
    f32(c)
    for c in (
        7.853861353153693e-5, -8.010193625184903e-4, 5.188327685732524e-3, -2.685381193529856e-2,
        1.128358514861418e-1, -3.761262582423300e-1, 1.128379165726710e0,
    )
)  # fmt: skip


def _horner(cs, x):
    p = np.full(x.shape, cs[0])
    for c in cs[1:]:
        p = fma(p, x, c)
    return ftz(p)


def erfc(x) -> np.ndarray:
    """``erfc`` as JAX's lowering (CHLO's decomposition) computes it on XLA's CPU (a NaN comes out
    negated: ``-x*x`` carries it). Checked against JAX 0.10.2 on 6e5 inputs: identical.

    Example:

      >>> float(erfc(np.float32(0.5)))
      0.4795001745223999
    """
    x = ftz(x)
    xsq = ftz(x * x)
    a = np.abs(x)
    big = ftz(
        ftz(exp(-xsq) * ftz(f32(1) / a))
        * np.where(a < f32(2), _horner(_ERFC_P, ftz(f32(1) / xsq)), _horner(_ERFC_R, ftz(f32(1) / xsq)))
    )
    big = np.where(-xsq < f32(-88.72283905206835), f32(0), big)
    big = np.where(x < f32(0), f32(2) - big, big)
    small = fma(-x, _horner(_ERFC_T, xsq), f32(1))
    return np.asarray(np.where(np.isnan(x), -x, np.where(a < f32(1), small, big)), f32)


# Lanczos' approximation with g = 7 (JAX's lowering of lgamma and digamma, as Boost's and
# Numerical Recipes' with its nine coefficients): the first, then (c_k, k) for k = 1..8.
_LANCZOS = (
    f32(676.520386), f32(-1259.13916), f32(771.323425), f32(-176.615036), f32(12.5073433),
    f32(-0.138571098), f32(9.98436917e-06), f32(1.50563267e-07),
)  # fmt: skip
_LOG_LANCZOS_T = f32(2.01490307)  # log(7.5): log(t) = log1p(z / 7.5) + log(7.5)
_PI = f32(np.pi)


def _libm(name: str, x) -> np.ndarray:
    """The C library's ``sinf``/``cosf`` (``name``: sin, cos), which XLA's code calls where JAX's
    lgamma and digamma reflect (``libm_f32.py``, which imports this module)."""
    from . import libm_f32

    return libm_f32.kernel(name, x)


def _lanczos_z(x):
    return np.where(x < f32(0.5), -x, x + f32(-1))


def lgamma(x) -> np.ndarray:
    """``lgamma`` as JAX's lowering computes it: Lanczos' sum for x >= 1/2, else the reflection
    ``log(pi) - log(sin(pi * r)) - lgamma(1 - x)`` with ``sinf`` from the C library.

    Example:

      >>> float(lgamma(np.float32(0.5)))
      0.5723648071289062
    """
    x = ftz(x)
    z = _lanczos_z(x)
    s = f32(1) + _LANCZOS[0] / (z + f32(1))
    for k, c in enumerate(_LANCZOS[1:], 2):
        s = s + c / (z + f32(k))
    log_t = log1p(z * f32(1 / 7.5)) + _LOG_LANCZOS_T
    y = fma((z + f32(0.5)) - (z + f32(7.5)) / log_t, log_t, f32(0.918938518)) + log(s)
    a = np.abs(x)
    frac = a - np.floor(a)
    log_sin = log(_libm("sin", ftz(np.where(f32(0.5) < frac, f32(1) - frac, frac) * _PI)))
    reflected = np.where(np.isfinite(log_sin), (f32(1.14472985) - log_sin) - y, -log_sin)
    y = np.where(x < f32(0.5), reflected, y)
    return np.asarray(np.where(a == np.inf, f32(np.inf), y), f32)


def digamma(x) -> np.ndarray:
    """``digamma`` as JAX's lowering computes it: the derivative of Lanczos' sum for x >= 1/2, else
    the reflection ``digamma(1 - x) - pi * cos(pi * x) / sin(pi * x)`` (``sinf``/``cosf`` from the C
    library); nan at the poles.

    Example:

      >>> float(digamma(np.float32(1.0)))
      -0.5772153735160828
    """
    x = ftz(x)
    z = _lanczos_z(x)
    num, den = np.zeros_like(x), np.ones_like(x)
    for k, c in enumerate(_LANCZOS, 1):
        zk = z + f32(k)
        num = num - c / ftz(zk * zk)
    for k, c in enumerate(_LANCZOS, 1):
        den = den + c / (z + f32(k))
    log_t = log1p(z * f32(1 / 7.5)) + _LOG_LANCZOS_T
    y = (log_t + num / den) - f32(7) / (z + f32(7.5))
    v = ftz((x + np.abs(np.floor(x + f32(0.5)))) * _PI)
    y = np.where(x < f32(0.5), y - ftz(_libm("cos", v) * _PI) / _libm("sin", v), y)
    y = np.where(np.isnan(x), MASK_NAN, y)  # (log1p's nan)
    return np.asarray(np.where((x <= 0) & (x == np.floor(x)), f32(np.nan), y), f32)


_STEPS = {
    "lgamma": lgamma,
    "digamma": digamma,
    "erf": erf,
    "erf_inv": erf_inv,
    "erfc": erfc,
    "asinh": asinh,
    "acosh": acosh,
    "atanh": atanh,
    "sinh": sinh,
    "cosh": cosh,
    "exp": exp,
    "log": log,
    "tanh": tanh,
    "expm1": expm1,
    "log1p": log1p,
    "logistic": logistic,
    "exp2": exp2,
}
