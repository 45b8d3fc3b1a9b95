"""lgamma and digamma for generated kernels (``rt.lgamma(x)``, ``rt.digamma(x)``), in float64 and
bit for bit the interpreter's (``engine/lax/special.py``): digamma is its series, compiled;
lgamma is the Lanczos sum CPython's ``math.lgamma`` evaluates (numba's ``math.lgamma`` calls the
C library's, which differs in the last bits), with its reflection for negative arguments. The
callers round to float32 as the interpreter does. Compiled, a loop body using them (the derivative
of ``random.gamma``) needs no call back into numpy per iteration.
"""

import math

import numba as nb
import numpy as np

from ..lax.special import digamma_series

_K = dict(cache=True, error_model="numpy")

# The Lanczos approximation CPython uses (g = 6.024680040776729583740234375, 13 terms): the
# numerator's coefficients and the denominator's (x (x + 1) ... (x + 11) expanded).
_LANCZOS_G = 6.024680040776729583740234375
_NUM = (
    23531376880.410759688572007674451636754734846804940,
    42919803642.649098768957899047001988850926355848959,
    35711959237.355668049440185451547166705960488635843,
    17921034426.037209699919755754458931112671403265390,
    6039542586.3520280050642916443072979210699388420708,
    1439720407.3117216736632230727949123939715485786772,
    248874557.86205415651146038641322942321632125127801,
    31426415.585400194380614231628318205362874684987640,
    2876370.6289353724412254090516208496135991145378768,
    186056.26539522349504029498971604569928220784236328,
    8071.6720023658162106380029022722506138218516325024,
    210.82427775157934587250973392071336271166969580291,
    2.5066282746310002701649081771338373386264310793408,
)
_DEN = (0.0, 39916800.0, 120543840.0, 150917976.0, 105258076.0, 45995730.0, 13339535.0, 2637558.0)
_DEN += (357423.0, 32670.0, 1925.0, 66.0, 1.0)
_LOG_PI = 1.144729885849400174143427351353058711647


@nb.njit(**_K)
def _lanczos_sum(x):
    num = 0.0
    den = 0.0
    if x < 5.0:  # (Horner in x, from the highest term)
        for i in range(12, -1, -1):
            num = num * x + _NUM[i]
            den = den * x + _DEN[i]
    else:  # (in 1/x, from the lowest: no overflow for large x)
        for i in range(13):
            num = num / x + _NUM[i]
            den = den / x + _DEN[i]
    return num / den


@nb.njit(**_K)
def _sinpi(x):
    """sin(pi x) with its argument reduced first, exact at integers and half-integers."""
    y = np.fmod(abs(x), 2.0)  # (exact)
    n = int(math.floor(2.0 * y + 0.5))
    if n == 0:
        r = math.sin(math.pi * y)
    elif n == 1:
        r = math.cos(math.pi * (y - 0.5))
    elif n == 2:
        r = math.sin(math.pi * (1.0 - y))
    elif n == 3:
        r = -math.cos(math.pi * (y - 1.5))
    else:
        r = math.sin(math.pi * (y - 2.0))
    return math.copysign(1.0, x) * r


@nb.njit(**_K)
def lgamma(x):
    if x != x:
        return x
    if math.isinf(x):
        return math.inf
    if x == math.floor(x) and x <= 2.0:
        return math.inf if x <= 0.0 else 0.0
    a = abs(x)
    if a < 1e-20:
        return -math.log(a)
    r = math.log(_lanczos_sum(a)) - _LANCZOS_G
    r += (a - 0.5) * (math.log(a + _LANCZOS_G - 0.5) - 1)
    if x < 0.0:
        r = _LOG_PI - math.log(abs(_sinpi(a))) - math.log(a) - r
    return r


_digamma_from = nb.njit(**_K)(digamma_series)  # (the interpreter's series, compiled)


@nb.njit(**_K)
def digamma(x):
    if x != x:
        return x
    if x <= 0 and x == math.floor(x):
        return math.nan
    if x < 0:  # reflection: psi(1 - x) - psi(x) = pi / tan(pi x)
        return _digamma_from(1 - x) - math.pi / math.tan(math.pi * x)
    return _digamma_from(x)
