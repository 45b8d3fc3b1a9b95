"""float32 ``exp``, ``log``, ``tanh``, ``expm1``, ``log1p``, ``logistic``, ``exp2``, ``sinh`` and ``cosh``
as XLA's CPU backend computes them, bit for bit.

XLA does not call libm for these: it inlines Cephes' range reductions and polynomials (a rational function for tanh), lets LLVM
contract each multiply-add into one fused multiply-add, and runs with denormals flushed to zero
(inputs read as zero, results written as zero). numpy's float32 ``exp``/``log`` are other
algorithms whose last bits depend on the CPU (on AVX-512 machines 39% of ``np.exp`` results are
1-2 ulp from the correctly rounded value), so a learner comparing printed values with JAX's saw
different last digits. These functions give JAX's float32 results on every machine (checked
against JAX 0.10.2 on ~1e6 inputs spread over all float32 bit patterns: identical); the numba
kernels (``backends/numba_math.py``) evaluate the same operations in the same order, so eager and
jitted programs agree too.

A fused multiply-add is a float64 ``a*b + c`` rounded once to float32: the float32 product is
exact in float64, so only the sum rounds (double rounding differs from a true fma on about one
input in 2**29).
"""

from __future__ import annotations

import numpy as np


f32, f64, i32 = np.float32, np.float64, np.int32
TINY = f32(1.17549435e-38)  # the smallest normal float32: below it XLA reads and writes zero

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


def kernel(name: str, x: np.ndarray) -> np.ndarray:
    """XLA's float32 ``name`` (a key of ``_STEPS``) of ``x``: by the numba kernels where numba is
    installed (~1 ns an element and ~3 us a call; loading them costs a process ~0.5 s once, and the
    sandbox's zygote has them loaded), else by the numpy steps (~50 ns an element, ~40 us a call)."""
    global _numba_math
    if _numba_math is None:
        try:
            from ..backends import numba_math
        except ImportError:
            _numba_math = False
        else:
            _numba_math = numba_math
    with np.errstate(all="ignore"):
        if _numba_math:
            return _numba_math.apply(name, x)
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
    out = np.where(invalid, f32(np.nan), t)
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
    x = ftz(x)
    x2 = x * x
    p, q = np.zeros_like(x), np.zeros_like(x)
    for c in _LOG1P_P:
        p = fma(p, x, c)
    for c in _LOG1P_Q:
        q = fma(q, x, c)
    small = x + fma(f32(-0.5), x2, (x * x2) * (p / q))
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


_STEPS = {
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
