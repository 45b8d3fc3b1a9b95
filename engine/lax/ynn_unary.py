"""float32 ``exp``, ``expm1``, ``tanh``, ``log`` and ``log1p`` as YNNPACK computes them, bit for bit.

XLA:CPU hands a float32 ``reduce`` of >= 4096 elements to YNNPACK together with the elementwise
ops that feed only it (``__ynn_fusion``; see ``sum_order_ynn``), and YNNPACK evaluates those ops
with its own polynomials, not XLA's (``xla_f32``): jit(sum(tanh(x), axis=1)) of a (128, 100)
array differed from jit(tanh) then jit(sum) in 78% of its outputs, exp in 2.3%. Read from
google/XNNPACK's ``ynnpack/base/simd/target_independent.inc`` (the float32 ``exp_impl``,
``log_impl`` and ``tanh``) and ``x86_vec512.h`` (``exp2_round``, ``floor_log2`` = vgetexpps):

* exp/expm1: ``b = round(clamp(x) * log2(e))``, ``r = x - b*ln2`` in two fused steps (ln2 split
  hi/lo), ``expm1(r) ~= r + r**2 * P(r)`` (P of degree 6 evaluated in even/odd halves in r**2),
  then ``2**b * expm1(r) + (2**b - m)`` in one fused multiply-add (m = 0 for exp, 1 for expm1).
* tanh: ``e / (e + 2)`` with ``e = expm1(min(2x, 80))``.
* log/log1p: the mantissa of ``y`` (= x, or x + 1) scaled into [sqrt(2)/2, sqrt(2)), ``r = m - 1``
  (log1p: x itself where the exponent is 0), ``log(1 + r) ~= r + r**2 * P(r)/Q(r)`` (degree 2
  each), plus ``exponent * ln2`` fused.

Every multiply-add is fused (AVX-512 and AVX2+FMA3 both have FMA), and, as in the rest of XLA's
code, denormal inputs read as zero and denormal results are written as zero. Checked against JAX
0.10.2 on 1e6 inputs per function (random bit patterns, normals, uniform ranges, inf/nan/-0,
denormals; 2e5 of them in tests/test_ynn_unary.py): identical but for the sign and payload of
nans. The numba kernels ``ynn_*_f32`` in ``backends/numba_math.py`` do the same operations;
``backends/ynn_fusion.py`` finds the ops XLA hands to YNNPACK and makes them these.
"""

from __future__ import annotations

import numpy as np

from .xla_f32 import fma, ftz

f32, i32 = np.float32, np.int32

_EXP_P = tuple(
    f32(c)
    for c in (
        -4.9866619520e-05, 2.2773783712e-04, 1.4132461511e-03, 8.3242934197e-03,
        4.1665628552e-02, 1.6666725278e-01, 4.9999994040e-01,
    )
)  # fmt: skip
_LOG2E, _LN2_HI, _LN2_LO = f32(1.4426950408889634), f32(6.9314575195e-01), f32(1.4286067653e-06)
_MIN_X, _MAX_X = f32(-88.02969360351562), f32(88.72283935546875)
_LOG_P = (f32(-5.2293352783e-03), f32(-3.3127889037e-01), f32(-4.9999964237e-01))
_LOG_Q = (f32(3.9658042789e-01), f32(1.3292170763e00), f32(1.0))
_LN2 = f32(6.93147180559945309e-01)
_SQRT2 = f32(1.41421356237309504880)


def _poly(p, x, x2):
    """YNNPACK's eval_polynomial(p, x, x2): the even and odd coefficients in x**2, then joined."""
    y0, y1 = p[0], p[1]
    for i in range(2, len(p), 2):
        y0 = fma(x2, y0, p[i])
        if i + 1 < len(p):
            y1 = fma(x2, y1, p[i + 1])
    return fma(x, y1, y0) if len(p) % 2 else fma(x, y0, y1)


def _exp(x, m):
    xc = np.minimum(np.maximum(x, _MIN_X), _MAX_X)
    xc = np.where(np.isnan(x), f32(0), xc)
    magic = f32(1.5 * 2**23)
    b = (magic + xc * _LOG2E) - magic  # round to the nearest integer
    r = fma(b, -_LN2_HI, xc)
    r = fma(b, -_LN2_LO, r)
    pow2 = ((b.astype(i32) + i32(127)) << i32(23)).view(f32)  # 2**b; 0 for b = -127, inf for 128
    pow2 = np.where(np.isnan(x), x, pow2)
    r2 = ftz(r * r)
    y = fma(pow2, fma(r2, _poly(_EXP_P, r, r2), r), pow2 - f32(m))
    return np.where(np.isinf(pow2), pow2, y)


def exp(x) -> np.ndarray:
    """YNNPACK's float32 ``exp``.

    Example:

      >>> float(exp(np.float32(1.0)))
      2.7182817459106445
    """
    with np.errstate(all="ignore"):
        return ftz(_exp(ftz(x), 0))


def expm1(x) -> np.ndarray:
    """YNNPACK's float32 ``expm1``.

    Example:

      >>> float(expm1(np.float32(1e-3)))
      0.0010005001677200198
    """
    with np.errstate(all="ignore"):
        return ftz(_exp(ftz(x), 1))


def tanh(x) -> np.ndarray:
    """YNNPACK's float32 ``tanh``: ``expm1(2x) / (expm1(2x) + 2)``.

    Example:

      >>> float(tanh(np.float32(0.5)))
      0.46211713552474976
    """
    with np.errstate(all="ignore"):
        e = _exp(np.minimum(ftz(x) * f32(2), f32(80)), 1)
        return ftz(e / (e + f32(2)))


def _log(x, plus_one):
    y = ftz(x + f32(1)) if plus_one else x
    bits = y.view(i32)
    e = (((bits >> i32(23)) & i32(0xFF)) - i32(127)).astype(f32)  # vgetexpps of a normal y
    e = np.where(y == 0, f32(-np.inf), np.where(y == np.inf, f32(np.inf), e))
    e = np.where((y < 0) | np.isnan(y), f32(np.nan), e)
    m = ((bits & i32(0x007FFFFF)) | i32(0x3F800000)).view(f32)  # the mantissa in [1, 2)
    large = m > _SQRT2
    e = np.where(large, e + f32(1), e)
    m = np.where(large, m * f32(0.5), m)
    r = m - f32(1)
    if plus_one:
        r = np.where(e == 0, x, r)
    r2 = ftz(r * r)
    return fma(e, _LN2, fma(r2, _poly(_LOG_P, r, r2) / _poly(_LOG_Q, r, r2), r))


def log(x) -> np.ndarray:
    """YNNPACK's float32 ``log``.

    Example:

      >>> float(log(np.float32(10.0)))
      2.3025851249694824
    """
    with np.errstate(all="ignore"):
        return ftz(_log(ftz(x), False))


def log1p(x) -> np.ndarray:
    """YNNPACK's float32 ``log1p``.

    Example:

      >>> float(log1p(np.float32(1e-3)))
      0.00099950039293617
    """
    with np.errstate(all="ignore"):
        return ftz(_log(ftz(x), True))
