"""Exponential, sine and cosine integrals and the dilogarithm of jax.scipy.special: ``expi``,
``exp1``, ``expn``, ``sici`` and ``spence``, composed of lax operations as JAX composes them
(Cephes' algorithms: ei.c, expn.c, sici.c, spence.c), with JAX's custom JVP rules.

>>> [round(float(v), 5) for v in expi(jnp.array([-1.0, 1.0]))]
[-0.21938, 1.89512]
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..api import jit
from ..custom_derivatives import custom_jvp
from ..numpy._promote import promote_args_inexact
from ._coefficients import const, dtype_of, table as _table
from .special import gammaln

# ---------------------------------------------------------------------------------------------
# Cephes' rational approximations of Ei(x) for x > 0, on (0, 2], (2, 4], (4, 8], ..., (32, 64]
# and beyond: Ei(x) = euler_gamma + log x + x R(x) on the first, e^x / x (1 + R(1/x) / x) after.

_EI1_NUM = _table(
    """
    -5.350447357812543 218.50491688166133 -4176.572384826693 55411.76756393557
    -331338.13311781443 1592627.1633849454
    """
)
_EI1_DEN = _table(
    """
    1.0 -52.505479591128626 1259.6161867867906 -17565.495819735348
    149306.2117002726 -729494.9239640528 1592627.1633849454
    """
)
_EI2_NUM = _table(
    """
    0.019818085032596897 -1.2716456259849176 -2.0881603356812284 2.7555445091879367
    -0.44095070487016 0.046656238059358916 -0.0015450426796734852 7.059980605299618e-05
    """
)
_EI2_DEN = _table(
    """
    1.0 1.4764986709149215 0.5629177174822436 0.16990178978793072
    0.02291647179034212 0.0044501504397287525 0.00017274396122065214 3.953167195549672e-05
    """
)
_EI3_NUM = _table(
    """
    -1.3732153758712087 -0.7084559133740839 1.580806855547941 -0.2601500427425623
    0.029946746941137137 -0.001038086040188744 4.371064420753005e-05 2.141783679522603e-06
    """
)
_EI3_DEN = _table(
    """
    1.0 0.8585231423622028 0.4483285822873995 0.07687932158124476
    0.024498682410218877 0.0008832165941927797 0.00045909522995113536 -4.729848351866523e-06
    2.66519553739071e-06
    """
)
_EI4_NUM = _table(
    """
    -2.1069346016919166 1.7327338696646881 -0.2423619178935842 0.02322724180937566
    0.00023728804404931798 -8.343219561192553e-05 1.3634087956052505e-05 -3.655412321999254e-07
    1.4649417339759612e-08 6.17640786371036e-10
    """
)
_EI4_DEN = _table(
    """
    1.0 -0.2298062239901678 0.11050770414740378 -0.015665429666307924
    0.002761106850817353 -0.00020891480122840484 1.7085289388076754e-05 -4.4593117963566865e-07
    1.3946349303538475e-08 6.150865933977338e-10
    """
)
_EI5_NUM = _table(
    """
    -0.24581193676740204 -0.14833822533220778 0.07248291795735552 -0.013483156873809405
    0.001342775069788637 -7.942465637159712e-05 2.644179518984236e-06 -4.239473659313765e-08
    """
)
_EI5_DEN = _table(
    """
    1.0 -0.10442259084438711 -0.26764531281014026 0.09695000254621984
    -0.01601745692712991 0.001496414899205908 -8.462452563778485e-05 2.7289384034767266e-06
    -4.239462431819542e-08
    """
)
_EI6_NUM = _table(
    """
    0.12125611181054567 -0.5823133179043894 0.2348887314557017 -0.030400343181132484
    0.0015100821468651906 -2.5231370954995714e-05
    """
)
_EI6_DEN = _table(
    """
    1.0 -1.002252150365854 0.2928709694872224 -0.03337004338674008
    0.0015605448811273888 -2.5231370936032347e-05
    """
)
_EI7_NUM = _table(
    """
    -0.7657847078286127 0.6886192415566705 -0.2132598113545206 0.033461075523841935
    -0.003076541477344756 0.00017471193164549074 -6.1037116822741705e-06 1.218032765428652e-07
    -1.0860761027932903e-09
    """
)
_EI7_DEN = _table(
    """
    1.0 -1.8888028686623086 1.066691687211409 -0.27519159823063805
    0.039308526882338234 -0.003414684558602365 0.00018668443707035555 -6.345146083130515e-06
    1.239754287483207e-07 -1.0860761027931265e-09
    """
)


def _ei_near_zero(x):
    dtype = dtype_of(x)
    ratio = jnp.polyval(_EI1_NUM.astype(dtype), x) / jnp.polyval(_EI1_DEN.astype(dtype), x)
    return x * ratio + np.euler_gamma + jnp.log(x)


def _ei_asymptotic(num, den):
    def ei(x):
        dtype = dtype_of(x)
        one = const(x, 1.0)
        w = one / x
        f = jnp.polyval(num.astype(dtype), w) / jnp.polyval(den.astype(dtype), w)
        f = w * f + one
        return jnp.exp(x) * w * f

    return ei


_EI_PIECES = [_ei_near_zero] + [
    _ei_asymptotic(num, den)
    for num, den in [
        (_EI2_NUM, _EI2_DEN),
        (_EI3_NUM, _EI3_DEN),
        (_EI4_NUM, _EI4_DEN),
        (_EI5_NUM, _EI5_DEN),
        (_EI6_NUM, _EI6_DEN),
        (_EI7_NUM, _EI7_DEN),
    ]
]


def _expi_positive(x):
    bounds = [(0, 2)] + [(2**i, 2 ** (i + 1)) for i in range(1, 6)]
    conds = [(const(x, lo) < x) & (x <= const(x, hi)) for lo, hi in bounds]
    return jnp.piecewise(x, conds, _EI_PIECES)


def _expi_negative(x):
    return -exp1(-x)


@custom_jvp
@jit
def expi(x):
    """The exponential integral ``Ei(x) = integral_{-inf}^x exp(t) / t dt`` (real ``x``)."""
    (x,) = promote_args_inexact("expi", x)
    if jnp.iscomplexobj(x):
        raise ValueError("expi does not support complex-valued inputs.")
    return jnp.piecewise(x, [x < 0], [_expi_negative, _expi_positive])


@expi.defjvp
@jit
def expi_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expi(x), jnp.exp(x) / x * x_dot


# ---------------------------------------------------------------------------------------------
# E_n(x) = int_1^inf exp(-x t) / t^n dt (Cephes' expn.c): the power series for x <= 1, the
# continued fraction beyond, and the large-n asymptotic expansion for n >= 5000.


def _expn_series(x, n):
    eps = np.finfo(dtype_of(x)).eps  # (a numpy scalar: the weakly typed t is converted to meet it)
    zero, one = const(x, 0.0), const(x, 1.0)
    psi = -np.euler_gamma - jnp.log(x)
    psi = lax.fori_loop(const(n, 1), n, lambda i, psi: psi + one / i, psi)
    n_safe = jnp.where(n == const(n, 1), one + one, n)
    state = dict(
        x=x,
        z=-x,
        xk=zero,
        yk=one,
        pk=one - n,
        ans=jnp.where(n == const(n, 1), zero, one / (one - n_safe)),
        t=np.inf,
    )

    def step(s):
        s["xk"] += one
        s["yk"] *= s["z"] / s["xk"]
        s["pk"] += one
        s["ans"] += jnp.where(s["pk"] != zero, s["yk"] / s["pk"], zero)
        s["t"] = jnp.where(s["ans"] != zero, abs(s["yk"] / s["ans"]), one)
        return s

    s = lax.while_loop(lambda s: (s["x"] > const(s["x"], 0.0)) & (s["t"] > eps), step, state)
    return s["z"] ** (n - const(n, 1)) * psi / jnp.exp(gammaln(n)) - s["ans"]


def _expn_continued_fraction(x, n):
    big = const(x, 1.44115188075855872e17)  # rescale the convergents past 2^57
    eps = np.finfo(dtype_of(x)).eps
    zero, one = const(x, 0.0), const(x, 1.0)
    state = dict(
        k=const(n, 1),
        pkm2=one,
        qkm2=x,
        pkm1=one,
        qkm1=x + n,
        ans=one / (x + n),
        t=const(x, np.inf),
        r=zero,
        x=x,
    )

    def step(s):
        x = s["x"]
        s["k"] += const(s["k"], 1)
        k = s["k"]
        odd = k % const(k, 2) == const(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - const(k, 1)) / const(k, 2), k / const(k, 2))
        pk = s["pkm1"] * yk + s["pkm2"] * xk
        qk = s["qkm1"] * yk + s["qkm2"] * xk
        nonzero = qk != zero
        s["r"] = r = jnp.where(nonzero, pk / qk, s["r"])
        s["t"] = jnp.where(nonzero, abs((s["ans"] - r) / r), one)
        s["ans"] = jnp.where(nonzero, r, s["ans"])
        s["pkm2"], s["pkm1"], s["qkm2"], s["qkm1"] = s["pkm1"], pk, s["qkm1"], qk
        too_big = abs(pk) > big
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            s[key] = jnp.where(too_big, s[key] / big, s[key])
        return s

    s = lax.while_loop(lambda s: (s["x"] > const(s["k"], 0)) & (s["t"] > eps), step, state)
    return s["ans"] * jnp.exp(-x)


def _expn_large_n(x, n):
    one = const(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    ans = yk * n * (const(x, 6) * x * x - const(x, 8) * n * x + n * n)
    ans = yk * (ans + n * (n - const(x, 2) * x))
    ans = yk * (ans + n)
    return (ans + one) * jnp.exp(-x) / xk


def _expn_elementwise(n, x):
    n, x = promote_args_inexact("expn", n, x)
    if jnp.iscomplexobj(x):
        raise ValueError("expn does not support complex-valued inputs.")
    zero, one = const(x, 0), const(x, 1)
    conds = [
        (n < const(n, 0)) | (x < zero),
        (x == zero) & (n < const(n, 2)),
        (x == zero) & (n >= const(n, 2)),
        (n == const(n, 0)) & (x >= zero),
        n >= const(n, 5000),
        x > one,
    ]
    n_safe = jnp.where(n == const(n, 1), n + n, n)  # E_n(0) = 1 / (n - 1); no division by zero
    values = [
        np.nan,
        np.inf,
        one / n_safe,
        jnp.exp(-x) / x,
        _expn_large_n,
        _expn_continued_fraction,
        _expn_series,
    ]
    return jnp.piecewise(x, conds, values, n=n)


_expn_elementwise.__name__ = "expn"  # (the jit's name in jaxprs, as JAX's)
_expn_elementwise = jit(_expn_elementwise)


def _expn_vectorized(n, x):
    return jnp.vectorize(_expn_elementwise)(n, x)


_expn_vectorized.__name__ = "expn"
_expn = custom_jvp(_expn_vectorized, nondiff_argnums=(0,))


@_expn.defjvp
@jit
def expn_jvp(n, primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return expn(n, x), lax.mul(lax.neg(x_dot), expn(lax.sub(n, const(n, 1)), x))


def expn(n, x):
    """The generalized exponential integral ``E_n(x) = x**(n-1) integral_x^inf exp(-t) / t**n dt``
    (differentiable in ``x``)."""
    return _expn(n, x)


def exp1(x):
    """The exponential integral ``E_1(x) = integral_x^inf exp(-t) / t dt`` (real ``x``)."""
    (x,) = promote_args_inexact("exp1", x)
    if jnp.iscomplexobj(x):
        raise ValueError("exp1 does not support complex-valued inputs.")
    return expn(1, x)


# ---------------------------------------------------------------------------------------------
# Si(x) and Ci(x) (Cephes' sici.c): rational series up to |x| = 4, auxiliary functions f, g
# (Si = pi/2 - f cos x - g sin x, Ci = f sin x - g cos x) up to 1e9, their leading terms beyond.

_SICI_SN = _table(
    """
    -8.391678279103039e-11 4.625917144270128e-08 -9.757593038436328e-06 0.0009769454381704354
    -0.04134703162294066 1.0
    """
)
_SICI_SD = _table(
    """
    2.0326926619595193e-12 1.279978911799433e-09 4.418278428012189e-07 9.964121220438756e-05
    0.01420852393261499 1.0
    """
)
_SICI_CN = _table(
    """
    2.0252400238910228e-11 -1.3524950491579076e-08 3.593250514199931e-06 -0.0004740072068734079
    0.028915965260755523 -1.0
    """
)
_SICI_CD = _table(
    """
    4.077460400618806e-12 3.067809975818878e-09 1.2321035568588342e-06 0.00031744202477503275
    0.051002805623644606 4.0
    """
)
_SICI_FN4 = _table(
    """
    4.236128628922166 5.4593771716181285 1.6208328770153833 0.16700661183132304
    0.006810201324725182 0.00010893658065032867 5.489002234213736e-07
    """
)
_SICI_FD4 = _table(
    """
    1.0 8.16496634205391 7.308288225055645 1.867922579501842
    0.1787920529631499 0.007017106683227897 0.00011003435715391573 5.489002527562557e-07
    """
)
_SICI_GN4 = _table(
    """
    0.08710016989731142 0.6113791099522193 0.3971802963923375 0.07485277376284691
    0.005388686814621773 0.00016199979459893403 1.9796387414096365e-06 7.825790407440903e-09
    """
)
_SICI_GD4 = _table(
    """
    1.0 1.6440220241335535 0.666296701268988 0.09887717612776888
    0.006223963454417684 0.0001732210814741771 2.0265918208634397e-06 7.825792189335346e-09
    """
)
_SICI_FN8 = _table(
    """
    0.4558808734704653 0.7137152741001467 0.16030015822231947 0.01160642294081244
    0.00034955644244785906 4.8621543082645475e-06 3.200927900910049e-08 9.41779576128513e-11
    9.70507110881952e-14
    """
)
_SICI_FD8 = _table(
    """
    1.0 0.9174636118736841 0.17868554533207454 0.012225359477197129
    0.00035869648188185157 4.924350643178815e-06 3.21956939101046e-08 9.437205903502767e-11
    9.70507110881952e-14
    """
)
_SICI_GN8 = _table(
    """
    0.6973599534432762 0.33041097930563207 0.03848787676499743 0.001717182390523479
    3.4894116550227946e-05 3.471311670841167e-07 1.7040445278204452e-09 3.859459254302766e-12
    3.1404009894636335e-15
    """
)
_SICI_GD8 = _table(
    """
    1.0 1.6854889881101165 0.48785225869530496 0.04679131942596258
    0.0019028442667439953 3.684755044425611e-05 3.5704322344374083e-07 1.7269374896631615e-09
    3.878301660239547e-12 3.1404009894636335e-15
    """
)


def _sici_series(x):
    dtype = dtype_of(x)

    def si_series():
        t = x * x
        return (x * jnp.polyval(_SICI_SN.astype(dtype), t)) / jnp.polyval(_SICI_SD.astype(dtype), t)

    def ci_series():
        t = x * x
        num, den = _SICI_CN.astype(dtype), _SICI_CD.astype(dtype)
        return np.euler_gamma + jnp.log(x) + t * jnp.polyval(num, t) / jnp.polyval(den, t)

    # Each series traced inside its where, after the x == 0 test (the order of JAX's program).
    return jnp.where(x == 0, 0.0, si_series()), jnp.where(x == 0, -np.inf, ci_series())


def _sici_auxiliary(x):
    dtype = dtype_of(x)
    s, c, z = jnp.sin(x), jnp.cos(x), 1.0 / (x * x)

    def poly(coefficients):
        return jnp.polyval(coefficients.astype(dtype), z)

    f4 = poly(_SICI_FN4) / (x * poly(_SICI_FD4))
    g4 = z * poly(_SICI_GN4) / poly(_SICI_GD4)
    f8 = poly(_SICI_FN8) / (x * poly(_SICI_FD8))
    g8 = z * poly(_SICI_GN8) / poly(_SICI_GD8)
    below_8 = x < 8.0
    f, g = jnp.where(below_8, f4, f8), jnp.where(below_8, g4, g8)
    return (np.pi / 2) - f * c - g * s, f * s - g * c


def _sici_far(x):
    si, ci = (np.pi / 2) - jnp.cos(x) / x, jnp.sin(x) / x
    return jnp.where(jnp.isposinf(x), np.pi / 2, si), jnp.where(jnp.isposinf(x), 0.0, ci)


@custom_jvp
@jit
def sici(x):
    """The sine and cosine integrals ``(Si(x), Ci(x))``: ``integral_0^x sin(t)/t dt`` and
    ``euler_gamma + log(x) + integral_0^x (cos(t) - 1)/t dt`` (real ``x``)."""
    (x,) = promote_args_inexact("sici", x)
    if jnp.iscomplexobj(x):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    ax = jnp.abs(x)
    si_series, ci_series = _sici_series(ax)
    si_aux, ci_aux = _sici_auxiliary(ax)
    si_far, ci_far = _sici_far(ax)
    conds = [ax <= 4, (ax > 4) & (ax <= 1e9)]
    si = jnp.select(conds, [si_series, si_aux], si_far)
    ci = jnp.select(conds, [ci_series, ci_aux], ci_far)
    return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), np.nan, ci)


@sici.defjvp
@jit
def sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)


# ---------------------------------------------------------------------------------------------
# Spence's function int_1^x log(t) / (1 - t) dt for x >= 0 (Cephes' spence.c): a rational
# approximation in w near x = 1, with the reflection and inversion formulas elsewhere.

_SPENCE_A = _table(
    """
    4.6512858607399003e-05 0.007315890452380947 0.13384763957830903 0.8796913117545303
    2.7114985119655346 4.256971560081218 3.297713409852251 1.0
    """
)
_SPENCE_B = _table(
    """
    0.0006909904889125533 0.02540437639325444 0.2829748606025681 1.4117259775183106
    3.6380053334513707 5.03278880143317 3.547713409852251 1.0
    """
)


def _spence_rational(w):
    dtype = dtype_of(w)
    return -w * jnp.polyval(_SPENCE_A.astype(dtype), w) / jnp.polyval(_SPENCE_B.astype(dtype), w)


def _spence_positive(x):
    inverted = x > 2.0
    x = jnp.piecewise(x, [inverted], [lambda x: 1.0 / x, lambda x: x])
    above, below = x > 1.5, x < 0.5
    inverted = inverted | above
    w = jnp.piecewise(x, [above, below], [lambda x: 1.0 / x - 1.0, lambda x: -x, lambda x: x - 1.0])
    y = _spence_rational(w)
    y = jnp.where(below, np.pi**2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
    return jnp.where(inverted, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
    """Spence's function (the real dilogarithm) ``integral_1^x log(t) / (1 - t) dt`` for float32 or
    float64 ``x >= 0`` (NaN below 0).

    >>> spence(jnp.array([0.0, 1.0, 2.0]))
    Array([ 1.644934  ,  0.        , -0.82246685], dtype=float32)
    """
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    return jnp.piecewise(x, [x < 0.0, x == 1.0, x == 0.0], [np.nan, 0, np.pi**2 / 6, _spence_positive])
