"""The error-function family of jax.scipy.special: ``erfcx``, ``wofz`` (Faddeeva), ``dawsn`` and
Owen's ``owens_t``, composed of lax operations as JAX composes them (so they jit, vmap and
differentiate through their custom JVP rules).

>>> erfcx(jnp.array([0.0, 30.0]))
Array([1.        , 0.01879589], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..custom_derivatives import custom_jvp
from ..numpy._promote import promote_args_complex, promote_args_inexact
from ._coefficients import const, dtype_of, table as _table

_SQRT_PI = float(np.sqrt(np.pi))

# ---------------------------------------------------------------------------------------------
# The Faddeeva function w(z) = exp(-z^2) erfc(-iz), by Weideman's (1994) N=32 rational
# approximation in the upper half plane: w(z) = 2 p(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)),
# Z = (L + iz) / (L - iz); the lower half plane follows from w(-z) = 2 exp(-z^2) - w(z).

_WOFZ_L = 4.7568284600108841
_WOFZ_C = _table(
    """
    -1.3034426067909105e-12 3.741183837373847e-12 8.030427700497756e-12 -2.154359355749088e-11
    -5.544244996323793e-11 1.165824698850374e-10 4.1537441121999766e-10 -5.231020211492061e-10
    -3.2080151339721323e-09 8.124886421653591e-10 2.3797556530014025e-08 2.2930438438915445e-08
    -1.4813078929137642e-07 -4.1840763750512053e-07 4.2558331397138446e-07 4.401531731283225e-06
    6.821031944357515e-06 -2.1409619201999998e-05 -0.0001307544925457942 -0.00024532980270038237
    0.00039259136070109705 0.004519541105349309 0.0190061557848455 0.05730440352983728
    0.14060716226893755 0.2954445107150874 0.5460139720639338 0.9019254893648001
    1.345544169234545 1.8256696296324815 2.2635372999002676 2.5722534081245696
    """
)


def _wofz_upper_half(z):
    re = lax.real(z)
    big_l = lax.complex(const(re, _WOFZ_L), const(re, 0.0))
    iz = lax.complex(lax.neg(lax.imag(z)), re)
    denominator = big_l - iz
    p = jnp.polyval(jnp.asarray(_WOFZ_C, dtype=dtype_of(z)), (big_l + iz) / denominator)
    inv_sqrt_pi = lax.complex(const(re, 1 / _SQRT_PI), const(re, 0.0))
    return 2 * p / (denominator * denominator) + inv_sqrt_pi / denominator


@custom_jvp
def _wofz(z):
    upper = lax.ge(lax.imag(z), const(lax.real(z), 0.0))
    w_reflected = _wofz_upper_half(lax.select(upper, z, lax.neg(z)))
    return lax.select(upper, w_reflected, 2 * lax.exp(lax.neg(z * z)) - w_reflected)


# w'(z) = -2 z w(z) + 2i / sqrt(pi)
_wofz.defjvps(
    lambda g, w, z: (
        g * (lax.neg(2 * z * w) + lax.complex(const(lax.real(z), 0.0), const(lax.real(z), 2 / _SQRT_PI)))
    )
)


def wofz(z):
    """The Faddeeva function ``exp(-z**2) * erfc(-1j * z)`` (complex; real input is promoted).

    >>> wofz(1.0)
    Array(0.3678795+0.60715777j, dtype=complex64)
    """
    (z,) = promote_args_complex("wofz", z)
    return _wofz(z)


# ---------------------------------------------------------------------------------------------
# erfcx(x) = exp(x^2) erfc(x): direct where exp(x^2) is finite, else the asymptotic series
# (1 / (sqrt(pi) x)) sum_k c_k x^(-2k), c_k = (-1)^k (2k - 1)!! / 2^k, truncated where the first
# omitted term is far below the dtype's epsilon at the switch point.


def _erfcx_series_coefficients(nterms):
    c, coefficients = 1.0, [1.0]
    for k in range(1, nterms):
        c *= -(2 * k - 1) / 2
        coefficients.append(c)
    return coefficients[::-1]  # highest degree first, for polyval


def _erfcx_of(x, nterms):
    threshold = float(np.sqrt(np.log(np.finfo(x.dtype).max)))
    large = x > const(x, threshold)
    safe_x = lax.select(large, lax.full_like(x, 1.0), x)
    direct = lax.exp(lax.square(safe_x)) * lax.erfc(safe_x)
    t = const(x, 1.0) / lax.square(x)
    series = jnp.polyval(np.array(_erfcx_series_coefficients(nterms), dtype=x.dtype), t)
    asymptotic = series / (x * const(x, _SQRT_PI))
    return lax.select(large, asymptotic, direct)


@custom_jvp
def _erfcx(x):
    x = jnp.asarray(x)
    if x.dtype == np.float64:
        return _erfcx_of(x, 9)
    if x.dtype == np.float32:
        return _erfcx_of(x, 5)
    return _erfcx_of(x.astype(np.float32), 5).astype(x.dtype)  # half precisions, through float32


_erfcx.defjvps(lambda g, y, x: g * (2 * x * y - const(x, 2 / _SQRT_PI)))


def erfcx(x):
    """The scaled complementary error function ``exp(x**2) * erfc(x)``, finite for large ``x``
    (complex ``x`` goes through ``wofz(1j * x)``)."""
    (x,) = promote_args_inexact("erfcx", x)
    if jnp.iscomplexobj(x):
        return _wofz(lax.complex(lax.neg(lax.imag(x)), lax.real(x)))
    return _erfcx(x)


# ---------------------------------------------------------------------------------------------
# Dawson's integral exp(-x^2) int_0^x exp(t^2) dt: Cody, Paciorek and Thacher's (1970) rational
# approximations on |x| in [0, 3.25), [3.25, 6.25) and beyond, odd in x.

_DAWSN_AN = _table(
    """
    1.1368149897175597e-11 8.492622676674738e-10 1.9443420417555306e-08 9.531517412544844e-07
    3.078283098749132e-06 0.00035251336852028877 -0.0008501498467244109 0.04226182230055466
    -0.09174803717734524 1.0
    """
)
_DAWSN_AD = _table(
    """
    2.403720730667626e-11 1.488646813684934e-09 5.212652810105416e-08 1.2725847827318697e-06
    2.324902498207895e-05 0.00032552474182605793 0.003488058146571626 0.027944853119882897
    0.15887424196012057 0.5749186294893204 1.0
    """
)
_DAWSN_BN = _table(
    """
    0.5089551564179009 -0.24475441814269785 0.09415123353035344 -0.021871125514203903
    0.003662076123295692 -0.0004232091144603888 3.5964130479389666e-05 -2.1464035171996896e-06
    9.100107800763914e-08 -2.4027452082825098e-09 3.592333854409284e-11
    """
)
_DAWSN_BD = _table(
    """
    1.0 -0.6318398698733682 0.2367067882282487 -0.053180636700322324
    0.008480417185862954 -0.0009479967684866654 7.810255929445524e-05 -4.558751532524426e-06
    1.8910035811142186e-07 -4.913246913319206e-09 7.184664032357345e-11
    """
)
_DAWSN_CN = _table(
    """
    -0.5905928605347732 0.6292352427243688 -0.17285897538038814 0.016483704782518965
    -0.0004868276130204627
    """
)
_DAWSN_CD = _table(
    """
    1.0 -2.698200571975449 1.7327079904594784 -0.3937085822819395
    0.03442789240412334 -0.0009736552260409412
    """
)


def _dawsn_of(x):
    # Each comparison is made where it is used (as JAX does, so the programs print alike).
    sign, ax = jnp.sign(x), lax.abs(x)
    t = const(x, 1.0) / lax.square(ax)

    def c(v):
        return const(x, v)

    # Each region on inputs replaced by 1 outside it, so no unused branch overflows into NaN.
    a1 = lax.select(ax < c(3.25), ax, lax.full_like(ax, 1.0))
    a1_sq = lax.square(a1)
    near_value = (
        a1 * jnp.polyval(_DAWSN_AN.astype(x.dtype), a1_sq) / jnp.polyval(_DAWSN_AD.astype(x.dtype), a1_sq)
    )

    def tail(in_region, num, den):
        t_r = lax.select(in_region(), t, lax.full_like(t, 1.0))
        a_r = lax.select(in_region(), ax, lax.full_like(ax, 1.0))
        return (c(0.5) / a_r) * (
            c(1.0) + t_r * jnp.polyval(num.astype(x.dtype), t_r) / jnp.polyval(den.astype(x.dtype), t_r)
        )

    middle_value = tail(lambda: (ax >= c(3.25)) & (ax < c(6.25)), _DAWSN_BN, _DAWSN_BD)
    far_value = tail(lambda: ax >= c(6.25), _DAWSN_CN, _DAWSN_CD)
    return sign * lax.select(ax < c(3.25), near_value, lax.select(ax < c(6.25), middle_value, far_value))


@custom_jvp
def _dawsn(x):
    x = jnp.asarray(x)
    if x.dtype in (np.float32, np.float64):
        return _dawsn_of(x)
    return _dawsn_of(x.astype(np.float32)).astype(x.dtype)


_dawsn.defjvps(lambda g, y, x: g * (const(x, 1.0) - const(x, 2.0) * x * y))


def dawsn(x):
    """Dawson's integral ``exp(-x**2) * integral_0^x exp(t**2) dt`` (real ``x``).

    >>> dawsn(1.0)
    Array(0.5380795, dtype=float32)
    """
    (x,) = promote_args_inexact("dawsn", x)
    if jnp.iscomplexobj(x):
        raise ValueError("dawsn does not support complex-valued inputs.")
    return _dawsn(x)


# ---------------------------------------------------------------------------------------------
# Owen's T(h, a) = (1 / 2 pi) int_0^a exp(-h^2 (1 + u^2) / 2) / (1 + u^2) du: Patefield and
# Tandy's (2000) 13-point quadrature (method T5) on |a| <= 1, with the exact values at h = 0 and
# a = 1, and T(h, a) = (Phi(h) + Phi(ah)) / 2 - Phi(h) Phi(ah) - T(ah, 1/a) for |a| > 1.

_OWENS_T_QUAD_PTS = _table(
    """
    0.0035082039676451716 0.031279042338030756 0.08526682628321945 0.16245071730812277
    0.25851196049125436 0.3680755384069753 0.485010929056047 0.6027751415261857
    0.7147788421775323 0.814755109887601 0.8971102975594897 0.9572380808594426
    0.991788329746297
    """
)
_OWENS_T_QUAD_WTS = _table(
    """
    0.018831438115323503 0.01856708624397765 0.018042093461223385 0.017263829606398752
    0.016243219975989858 0.014994592034116705 0.013535474469662087 0.011886351605820165
    0.010070377242777432 0.008113054574229958 0.006041900952847024 0.0038862217010742057
    0.001679303108454609
    """
)


def _owens_t_quadrature(h, a):
    points = jnp.expand_dims(_OWENS_T_QUAD_PTS, tuple(range(a.ndim)))
    r = jnp.square(a)[..., None] * points
    integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1.0 + r)) / (1.0 + r)
    return a * (integrand @ _OWENS_T_QUAD_WTS)


@custom_jvp
def _owens_t_impl(h, a):
    h, abs_a = jnp.abs(h), jnp.abs(a)
    root_2 = const(h, np.sqrt(2))
    h_scaled = h / root_2
    # T(h, a) for |a| > 1 follows from T(|a| h, 1 / |a|); each operand tests |a| <= 1 itself (as JAX).
    a_r = jnp.where(abs_a <= 1.0, abs_a, jnp.reciprocal(abs_a))
    h_r = jnp.where(abs_a <= 1.0, h, abs_a * h)
    t = _owens_t_quadrature(h_r, a_r)
    t = jnp.where(h_r == 0.0, jnp.arctan(a_r) / (2 * np.pi), t)
    t = jnp.where(a_r == 1.0, 0.125 * lax.erfc(-h_r / root_2) * lax.erfc(h_r / root_2), t)
    q_h, q_ah = lax.erfc(h_scaled), lax.erfc(abs_a * h_scaled)
    t = jnp.where(
        abs_a > 1.0,
        jnp.where(
            abs_a * h <= 0.67,
            0.25 - 0.25 * lax.erf(h_scaled) * lax.erf(abs_a * h_scaled) - t,
            0.25 * (q_h + q_ah - q_h * q_ah) - t,
        ),
        t,
    )
    t = lax.sign(a) * t
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(t, jnp.nan), t)


def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    t = _owens_t_impl(h, a)
    root_2 = const(h, np.sqrt(2))
    dt_dh = -lax.exp(-0.5 * lax.square(h)) * lax.erf(a * h / root_2) / (2.0 * const(h, np.sqrt(2 * np.pi)))
    dt_da = lax.exp(-0.5 * (lax.square(a) + 1.0) * lax.square(h)) / (2.0 * np.pi * (lax.square(a) + 1.0))
    return t, (dt_dh * dh + dt_da * da).astype(t.dtype)


_owens_t_impl.defjvp(_owens_t_jvp)


def owens_t(h, a):
    """Owen's T function ``(1/2pi) integral_0^a exp(-h**2 (1 + x**2) / 2) / (1 + x**2) dx``.

    >>> owens_t(0.5, 2.0)
    Array(0.14158061, dtype=float32)
    """
    h, a = promote_args_inexact("owens_t", h, a)
    return _owens_t_impl(h, a)
