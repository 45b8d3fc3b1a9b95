"""The standard normal CDF family of jax.scipy.special: ``ndtr``, ``ndtri`` and ``log_ndtr``,
composed of lax operations in JAX's order (so ``make_jaxpr`` prints what JAX prints and float32
results round as JAX's do).

>>> ndtri(jnp.array([0.5, 0.8, 0.01]))
Array([ 0.       ,  0.8416212, -2.3263478], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..custom_derivatives import custom_jvp
from ..lax.elementwise import _const
from ._coefficients import dtype_of, table

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _float_dtype(x) -> type:
    dtype = np.dtype(dtype_of(x))
    if dtype not in _FLOATS:
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported types.")
    return dtype.type


def ndtr(x):
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2`` (float32 or float64 input).

    >>> ndtr(0.0)
    Array(0.5, dtype=float32)
    """
    x = jnp.asarray(x)
    _float_dtype(x)
    return _ndtr(x)


def _ndtr(x):
    # erf near 0 and erfc in the tails, so neither side loses digits to cancellation.
    dtype = _float_dtype(x)
    half_sqrt_2 = dtype(0.5) * np.sqrt(2.0, dtype=dtype)
    w = x * half_sqrt_2
    z = lax.abs(w)
    y = lax.select(
        lax.lt(z, half_sqrt_2),
        dtype(1.0) + lax.erf(w),
        lax.select(lax.gt(w, dtype(0.0)), dtype(2.0) - lax.erfc(z), lax.erfc(z)),
    )
    return dtype(0.5) * y


# Cephes' piecewise rational approximations of the normal quantile (ndtri.c): P0/Q0 for
# exp(-2) < p < 1 - exp(-2), P1/Q1 for z = sqrt(-2 log p) < 8, P2/Q2 beyond.
_P0 = table("-5.99633501014107895267E1 9.80010754185999661536E1 -5.66762857469070293439E1 "
            "1.39312609387279679503E1 -1.23916583867381258016E0")  # fmt: skip
_Q0 = table("1.0 1.95448858338141759834E0 4.67627912898881538453E0 8.63602421390890590575E1 "
            "-2.25462687854119370527E2 2.00260212380060660359E2 -8.20372256168333339912E1 "
            "1.59056225126211695515E1 -1.18331621121330003142E0")  # fmt: skip
_P1 = table("4.05544892305962419923E0 3.15251094599893866154E1 5.71628192246421288162E1 "
            "4.40805073893200834700E1 1.46849561928858024014E1 2.18663306850790267539E0 "
            "-1.40256079171354495875E-1 -3.50424626827848203418E-2 -8.57456785154685413611E-4")  # fmt: skip
_Q1 = table("1.0 1.57799883256466749731E1 4.53907635128879210584E1 4.13172038254672030440E1 "
            "1.50425385692907503408E1 2.50464946208309415979E0 -1.42182922854787788574E-1 "
            "-3.80806407691578277194E-2 -9.33259480895457427372E-4")  # fmt: skip
_P2 = table("3.23774891776946035970E0 6.91522889068984211695E0 3.93881025292474443415E0 "
            "1.33303460815807542389E0 2.01485389549179081538E-1 1.23716634817820021358E-2 "
            "3.01581553508235416007E-4 2.65806974686737550832E-6 6.23974539184983293730E-9")  # fmt: skip
_Q2 = table("1.0 6.02427039364742014255E0 3.67983563856160859403E0 1.37702099489081330271E0 "
            "2.16236993594496635890E-1 1.34204006088543189037E-2 3.28014464682127739104E-4 "
            "2.89247864745380683936E-6 6.79019408009981274425E-9")  # fmt: skip


def ndtri(p):
    """The inverse of ``ndtr``: the ``x`` with ``ndtr(x) == p`` (float32 or float64 input).

    >>> ndtri(0.5)
    Array(0., dtype=float32)
    """
    dtype = _float_dtype(p)
    shape = np.shape(p)
    coeffs = [c.astype(dtype) for c in (_P0, _Q0, _P1, _Q1, _P2, _Q2)]
    p0, q0, p1, q1, p2, q2 = coeffs
    # Work with the smaller of p and 1 - p; 0 is replaced so the unused branches stay finite.
    small_p = jnp.where(p > dtype(-np.expm1(-2.0)), dtype(1.0) - p, p)
    small_p = jnp.where(small_p == dtype(0.0), jnp.full(shape, dtype(0.5)), small_p)

    w = small_p - dtype(0.5)
    ww = lax.square(w)
    x_central = w + w * ww * (jnp.polyval(p0, ww) / jnp.polyval(q0, ww))
    x_central *= -dtype(np.sqrt(2.0 * np.pi))

    z = lax.sqrt(dtype(-2.0) * lax.log(small_p))
    leading = z - lax.log(z) / z
    far_tail = jnp.polyval(p2, 1 / z) / jnp.polyval(q2, 1 / z) / z
    near_tail = jnp.polyval(p1, 1 / z) / jnp.polyval(q1, 1 / z) / z
    x_far, x_near = leading - far_tail, leading - near_tail

    x = jnp.where(small_p > dtype(np.exp(-2.0)), x_central, jnp.where(z >= dtype(8.0), x_far, x_near))
    x = jnp.where(p > dtype(1.0 - np.exp(-2.0)), x, -x)
    infinity = jnp.full(shape, dtype(np.inf))
    return jnp.where(p == dtype(0.0), -infinity, jnp.where(p == dtype(1.0), infinity, x))


# Past these bounds log(ndtr(x)) switches to -ndtr(-x) (upper) or the asymptotic series (lower).
_LOG_NDTR_BOUNDS = {
    np.dtype(np.float32): (np.float32(-10), np.float32(5)),
    np.dtype(np.float64): (np.float64(-20), np.float64(8)),
}


@functools.partial(custom_jvp, nondiff_argnums=(1,))
def log_ndtr(x, series_order: int = 3):
    """``log(ndtr(x))``, accurate far into both tails (float32 or float64 input).

    >>> log_ndtr(jnp.array([-20.0, 0.0]))
    Array([-203.91716  ,   -0.6931472], dtype=float32)
    """
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if not 0 <= series_order <= 30:
        raise ValueError(f"series_order must be in [0, 30], got {series_order}.")
    x = jnp.asarray(x)
    dtype = np.dtype(dtype_of(x))
    if dtype not in _LOG_NDTR_BOUNDS:
        raise TypeError(f"x.dtype={dtype} is not supported.")
    lower, upper = _LOG_NDTR_BOUNDS[dtype]
    above = lax.gt(x, upper)
    # One ndtr serves both the upper tail (at -x) and the middle; clamping at `lower` keeps the
    # unselected branch finite, whose NaN would otherwise leak into gradients through select.
    ndtr_res = _ndtr(jnp.where(above, -x, lax.max(x, lower)))
    upper_tail = -ndtr_res  # log(1 - t) ~ -t for small t
    middle_or_lower = jnp.where(
        lax.gt(x, lower), lax.log(ndtr_res), _log_ndtr_lower(lax.min(x, lower), series_order)
    )
    return jnp.where(above, upper_tail, middle_or_lower)


def _log_ndtr_jvp(series_order, primals, tangents):
    (x,), (t,) = primals, tangents
    ans = log_ndtr(x, series_order=series_order)
    # d/dx log ndtr(x) = pdf(x) / ndtr(x) = exp(log pdf(x) - log ndtr(x))
    log_pdf = lax.sub(lax.mul(_const(x, -0.5), lax.square(x)), _const(x, np.log(np.sqrt(2 * np.pi))))
    return ans, lax.mul(t, lax.exp(lax.sub(log_pdf, ans)))


log_ndtr.defjvp(_log_ndtr_jvp)


def _log_ndtr_lower(x, series_order):
    # log ndtr(x) = log(exp(-x^2/2) / (-x sqrt(2 pi))) + log(1 + sum_n (-1)^n (2n-1)!! / x^2n)
    dtype = dtype_of(x).type
    x_2 = lax.square(x)
    log_scale = -dtype(0.5) * x_2 - lax.log(-x) - dtype(0.5 * np.log(2.0 * np.pi))
    return log_scale + lax.log(_asymptotic_series(x, series_order))


def _asymptotic_series(x, series_order):
    dtype = dtype_of(x).type
    if series_order <= 0:
        return np.array(1, dtype)
    x_2 = lax.square(x)
    even_sum, odd_sum = jnp.zeros_like(x), jnp.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        term = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), dtype) / x_2n
        if n % 2:
            odd_sum += term
        else:
            even_sum += term
        x_2n *= x_2
    return dtype(1.0) + even_sum - odd_sum
