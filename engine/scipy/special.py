"""``jax.scipy.special``: special functions (elementwise, differentiable, batchable).

Each promotes its arguments to a float dtype as JAX does, broadcasts them, and calls lax
primitives (``engine.lax.special`` holds the ones with no simpler expression).

>>> gammaln(jnp.array([1.0, 5.0]))
Array([4.7683716e-07, 3.1780548e+00], dtype=float32)
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import api, core, lax
from .. import numpy as jnp
from ..custom_derivatives import custom_jvp
from ..jit import jit
from ..lax import special as ls
from ..lax.elementwise import _const
from .. import nn
from ..nn import logsumexp  # noqa: F401  (jax.scipy.special re-exports)
from ..numpy._promote import promote_args_inexact


def softmax(x, /, *, axis=None):
    """scipy.special.softmax: ``exp(x) / sum(exp(x))`` over ``axis``, all axes by default (unlike
    jax.nn.softmax's last axis, so a scalar is fine: its softmax is 1)."""
    return nn.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """scipy.special.log_softmax: ``x - logsumexp(x)`` over ``axis``, all axes by default."""
    return nn.log_softmax(x, axis=axis)


def _unary(name, lax_fn, doc):
    def f(x):
        (x,) = promote_args_inexact(name, x)
        return lax_fn(x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _binary(name, lax_fn, doc):
    def f(a, x):  # (JAX's parameter names: gammainc(a, x), gammaincc(a, x))
        a, x = promote_args_inexact(name, a, x)
        return lax_fn(a, x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


erf = _unary("erf", lax.erf, "The error function.")
erfc = _unary("erfc", ls.erfc, "The complementary error function ``1 - erf(x)``.")
erfinv = _unary("erfinv", lax.erf_inv, "The inverse of the error function.")
gammaln = _unary("gammaln", ls.lgamma, "``log |Gamma(x)|``.")


def loggamma(x):
    """The principal branch of ``log Gamma(x)``: for real ``x``, ``lgamma`` where ``x > 0`` and NaN
    elsewhere (where Gamma is negative or has its poles); for complex ``x``, scipy's branch
    (``special_loggamma``).

    >>> loggamma(jnp.array([0.5, 3.0, -1.5]))
    Array([0.5723648, 0.6931474,       nan], dtype=float32)
    """
    (x,) = promote_args_inexact("loggamma", x)
    if jnp.issubdtype(x.dtype, np.complexfloating):
        return complex_loggamma(x)
    res = ls.lgamma(x)
    return jnp.where(x > 0, res, np.nan)


digamma = _unary("digamma", ls.digamma, "The digamma function, ``d/dx log Gamma(x)``.")
expit = _unary("expit", lax.logistic, "The logistic sigmoid ``1 / (1 + exp(-x))``.")
gammainc = _binary("gammainc", ls.igamma, "The regularized lower incomplete gamma function P(a, x).")
gammaincc = _binary("gammaincc", ls.igammac, "The regularized upper incomplete gamma function Q(a, x).")


@custom_jvp
def zeta(x, q=None):
    """The Hurwitz zeta function ``sum_k (k + q) ** -x`` (``q`` is required: JAX has no Riemann zeta).

    >>> zeta(2.0, 1.0)
    Array(1.644934, dtype=float32, weak_type=True)
    """
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the Hurwitz Zeta function."
        )
    x, q = promote_args_inexact("zeta", x, q)
    return ls.zeta(x, q)


def _bernoulli_ratios(count):
    """``(2k)! / B_2k`` for k = 1 .. count, the Euler-Maclaurin denominators (B_2k exactly, by the
    recurrence sum_j C(n + 1, j) B_j = 0)."""
    from fractions import Fraction
    from math import comb as choose, factorial

    b = [Fraction(1)]
    for n in range(1, 2 * count + 1):
        b.append(-sum(choose(n + 1, j) * b[j] for j in range(n)) / (n + 1))
    return [float(factorial(2 * k) / b[2 * k]) for k in range(1, count + 1)]


_ZETA_DENOMINATORS = _bernoulli_ratios(16)


def _zeta_euler_maclaurin(s, a):
    """Hurwitz zeta by Euler-Maclaurin summation with N = M = 8 terms (16 in float64), Johansson
    (2015), arXiv:1309.2877, eq. 5: sum_{k<N} (a + k)^-s + (a + N)^(1-s) / (s - 1) + (a + N)^-s
    (1/2 + sum_{j<M} B_2j / (2j)! (s)_(2j-1) / (a + N)^(2j-1)). Written in differentiable
    operations, so its JVP is zeta's derivative in both arguments (JAX's rule)."""
    s, a = promote_args_inexact("zeta", s, a)
    typ = np.dtype(a.dtype).type
    n = typ(8) if a.dtype == np.float32 else typ(16)
    s_col, a_col = jnp.expand_dims(s, -1), jnp.expand_dims(a, -1)
    k = jnp.expand_dims(np.arange(n, dtype=n.dtype), tuple(range(a.ndim)))
    head = jnp.sum((a_col + k) ** -s_col, -1)
    integral = lax.div((a + n) ** (typ(1) - s), s - typ(1))
    first = (a + n) ** -s
    j = jnp.expand_dims(np.arange(2 * n, dtype=n.dtype), tuple(range(s.ndim)))
    # the rising factorials (s)_(2j-1) over (a + N)^(2j-1), as the odd-indexed running products
    rising = jnp.cumprod((s_col + j) / (a_col + n), -1)[..., ::2]
    rising = jnp.clip(rising, max=np.finfo(typ).max)
    denominators = np.array(_ZETA_DENOMINATORS[: rising.shape[-1]], dtype=typ)
    rising = rising / np.expand_dims(denominators, tuple(range(a.ndim)))
    tail = first * (typ(0.5) + rising.sum(-1))
    return head + integral + tail


# No closed form: the derivative is the JVP of the series (an argument-complete expression).
zeta.defjvp(functools.partial(api.jvp, _zeta_euler_maclaurin))


@custom_jvp
def logit(x):
    """``log(x / (1 - x))``, the inverse of ``expit`` (a custom_jvp, as JAX's).

    >>> logit(0.75)
    Array(1.0986123, dtype=float32, weak_type=True)
    """
    (x,) = promote_args_inexact("logit", x)
    return lax.log(lax.div(x, lax.sub(_const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax.div(g, lax.mul(x, lax.sub(_const(x, 1), x))))


def polygamma(n, x):
    """The ``n``-th derivative of the digamma function (``n`` a non-negative integer)."""
    from ..numpy._dtypes import dtype_and_weak

    # (JAX 0.10.2 checks these before promoting: a float n, or a complex x, is a ValueError)
    if dtype_and_weak(n)[0].kind not in "iu":
        raise ValueError(
            f"Argument `n` to polygamma must be of integer type. Got dtype {dtype_and_weak(n)[0]}."
        )
    n, x = promote_args_inexact("polygamma", n, x)
    if x.dtype.kind == "c":
        raise ValueError("polygamma does not support complex-valued inputs.")
    return ls.polygamma(n, x)


# The coefficients of del(x) = lgamma(x) - ((x - 0.5) log x - x + log(2 pi) / 2), whose Stirling series is
# sum_k B_2k / (2k (2k - 1) x^(2k - 1)) (as fitted in CDFLIB's algdiv, which SciPy's betaln uses).
_ALGDIV_COEFFS = (
    0.833333333333333e-01,
    -0.277777777760991e-02,
    0.793650666825390e-03,
    -0.595202931351870e-03,
    0.837308034031215e-03,
    -0.165322962780713e-02,
)


def _lgamma_ratio_large_b(a, b):
    """``lgamma(b) - lgamma(a + b)`` for ``a <= b`` and ``b >= 8`` (CDFLIB's algdiv): the difference
    of the two Stirling expansions, which keeps its accuracy where the two lgammas nearly cancel."""
    h = a / b
    ratio = h / (1 + h)
    x = h / (1 + h)
    shifted = b + (a - 0.5)
    # partial geometric sums s_n = (1 - x^n) / (1 - x), n = 3, 5, ..., 11
    x2 = x * x
    s = [1.0 + (x + x2)]
    for _ in range(4):
        s.append(1.0 + (x + x2 * s[-1]))
    c0, c1, c2, c3, c4, c5 = _ALGDIV_COEFFS
    t = (1.0 / b) ** 2
    w = c5 * s[4] * t + c4 * s[3]
    for coeff, s_n in ((c3, s[2]), (c2, s[1]), (c1, s[0])):
        w = w * t + coeff * s_n
    w = (w * t + c0) * (ratio / b)
    u = shifted * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """``log |B(a, b)|``: ``lgamma(a) + lgamma(b) - lgamma(a + b)`` for ``max(a, b) < 8``, else with
    ``lgamma(b) - lgamma(a + b)`` from its asymptotic expansion (exact where large arguments make
    the lgammas cancel), as SciPy's betaln and JAX's."""
    a, b = promote_args_inexact("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = ls.lgamma(a) + (ls.lgamma(b) - ls.lgamma(a + b))
    large_b = ls.lgamma(a) + _lgamma_ratio_large_b(a, b)
    return jnp.where(b < 8, small_b, large_b)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    return ls.betainc(a, b, x)  # (the primitive broadcasts scalars and size-1 axes itself)


@jit
def gammasgn(x):
    """The sign of Gamma(x): -1 on the negative intervals (-2k-1, -2k) and at -0.0, NaN at the
    poles (non-positive integers) and at NaN, else 1."""
    (x,) = promote_args_inexact("gammasgn", x)
    typ = np.dtype(x.dtype).type
    floor_x = lax.floor(x)
    negative = x < 0
    pole = (negative & (x == floor_x)) | jnp.isnan(x)
    minus = (negative & (floor_x % 2 != 0)) | ((x == 0) & jnp.signbit(x))
    return jnp.select([pole, minus], [typ(np.nan), typ(-1.0)], typ(1.0))


def gamma(x):
    """The gamma function (of complex ``x`` too, ``special_loggamma``)."""
    (x,) = promote_args_inexact("gamma", x)
    if jnp.issubdtype(x.dtype, np.complexfloating):
        return complex_gamma(x)
    return gammasgn(x) * lax.exp(ls.lgamma(x))


def beta(a, b):
    """The beta function ``Gamma(a) Gamma(b) / Gamma(a + b)``."""
    a, b = promote_args_inexact("beta", a, b)
    if jnp.issubdtype(a.dtype, np.complexfloating):
        raise ValueError("beta does not support complex-valued inputs.")
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def factorial(n, exact: bool = False):
    """``n!`` as ``gamma(n + 1)`` (0 for negative ``n``)."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact("factorial", n)
    return jnp.where(n < 0, 0, jnp.exp(ls.lgamma(n + 1)))


def i0e(x):
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)``."""
    (x,) = promote_args_inexact("i0e", x)
    return lax.bessel_i0e(x)


def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    (x,) = promote_args_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i0e(x))


def i1e(x):
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) I1(x)``."""
    (x,) = promote_args_inexact("i1e", x)
    return lax.bessel_i1e(x)


def i1(x):
    """The modified Bessel function of the first kind, order 1."""
    (x,) = promote_args_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), lax.bessel_i1e(x))


def _boxcox(name, x, lmbda, log_fn):
    x, lmbda = promote_args_inexact(name, x, lmbda)
    lmbda_is_zero = lmbda == 0
    safe_lmbda = jnp.where(lmbda_is_zero, jnp.ones_like(lmbda), lmbda)
    log_x = log_fn(x)
    return jnp.where(lmbda_is_zero, log_x, jnp.expm1(safe_lmbda * log_x) / safe_lmbda)


def boxcox(x, lmbda):
    """The Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log(x)`` at ``lmbda == 0``)."""
    return _boxcox("boxcox", x, lmbda, jnp.log)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of ``1 + x``, accurate for small ``x``."""
    return _boxcox("boxcox1p", x, lmbda, jnp.log1p)


def comb(N, k, *, repetition: bool = False):
    """The binomial coefficient ``N choose k`` through ``gammaln`` (0 outside ``0 <= k <= N``).

    >>> comb(5.0, 2.0)
    Array(9.999995, dtype=float32, weak_type=True)
    """
    N, k = promote_args_inexact("comb", N, k)
    if repetition:
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    valid = (k <= N) & (N >= 0) & (k >= 0)
    safe_N, safe_k = jnp.where(valid, N, 0.0), jnp.where(valid, k, 0.0)
    out = lax.exp(ls.lgamma(safe_N + 1) - ls.lgamma(safe_k + 1) - ls.lgamma(safe_N + 1 - safe_k))
    return jnp.where(valid, out, 0.0)


@custom_jvp
def poch(z, m):
    """The Pochhammer symbol ``Gamma(z + m) / Gamma(z)`` (1 at ``m == 0``).

    >>> poch(3.0, 2.0)
    Array(12.000009, dtype=float32)
    """
    z, m = promote_args_inexact("poch", z, m)
    if jnp.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return jnp.where(m == 0.0, jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


# d/dz (z)_m = (psi(z + m) - psi(z)) (z)_m and d/dm (z)_m = psi(z + m) (z)_m.
poch.defjvps(
    lambda z_dot, out, z, m: (digamma(z + m) - digamma(z)) * poch(z, m) * z_dot,
    lambda m_dot, out, z, m: digamma(z + m) * poch(z, m) * m_dot,
)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension ``d`` (a concrete int):
    ``d (d - 1) / 4 log(pi) + sum_{j<d} gammaln(a - j / 2)``.

    >>> multigammaln(jnp.array([2.5, 4.0]), 2)
    Array([0.8570479, 3.5650988], dtype=float32)
    """
    d = int(core.concrete_or_error(d, "d argument of multigammaln"))
    a, d_ = promote_args_inexact("multigammaln", a, d)
    const = functools.partial(_const, a)
    constant = lax.mul(lax.mul(lax.mul(const(0.25), d_), lax.sub(d_, const(1))), lax.log(const(np.pi)))
    halves = lax.div(jnp.arange(d, dtype=d_.dtype), const(2))
    terms = ls.lgamma(jnp.expand_dims(a, axis=-1) - jnp.expand_dims(halves, axis=tuple(range(a.ndim))))
    return jnp.sum(terms, axis=-1) + constant


@custom_jvp
def xlogy(x, y):
    """``x * log(y)``, with 0 where ``x == 0`` (even where ``y == 0``; NaN in ``y`` propagates).

    >>> xlogy(0.0, 0.0)
    Array(0., dtype=float32, weak_type=True)
    """
    x, y = promote_args_inexact("xlogy", x, y)
    keep = (x != 0.0) | jnp.isnan(y)
    return jnp.where(keep, lax.mul(x, lax.log(y)), jnp.zeros_like(x))


def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = xlogy(x, y)
    return out, (x_dot * lax.log(y) + y_dot * x / y).astype(out.dtype)


xlogy.defjvp(_xlogy_jvp)


@custom_jvp
def xlog1py(x, y):
    """``x * log1p(y)``, with 0 where ``x == 0`` (NaN in ``y`` propagates)."""
    x, y = promote_args_inexact("xlog1py", x, y)
    keep = (x != 0.0) | jnp.isnan(y)
    return jnp.where(keep, lax.mul(x, lax.log1p(y)), jnp.zeros_like(x))


def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    out = xlog1py(x, y)
    return out, (x_dot * lax.log1p(y) + y_dot * x / (1 + y)).astype(out.dtype)


xlog1py.defjvp(_xlog1py_jvp)


@custom_jvp
def _xlogx(x):
    # x log x with the derivative log(x) + 1 (xlogy's rule would add the two partials at (x, x)).
    return xlogy(x, x)


def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (lax.log(x) + 1)


_xlogx.defjvp(_xlogx_jvp)


def entr(x):
    """``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` for ``x < 0``."""
    (x,) = promote_args_inexact("entr", x)
    if jnp.issubdtype(x.dtype, np.complexfloating):
        raise ValueError("entr does not support complex-valued inputs.")
    return lax.select(lax.lt(x, _const(x, 0)), lax.full_like(x, -np.inf), lax.neg(_xlogx(x)))


def rel_entr(p, q):
    """``p log(p / q)`` for positive p, q; 0 at p == 0 (q >= 0); inf otherwise."""
    p, q = promote_args_inexact("rel_entr", p, q)
    zero = _const(p, 0.0)
    both_positive = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    p_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    safe_p = jnp.where(both_positive, p, 1)
    safe_q = jnp.where(both_positive, q, 1)
    log_val = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return jnp.where(both_positive, log_val, jnp.where(p_zero, zero, np.inf))


def kl_div(p, q):
    """``p log(p / q) - p + q`` (the elementwise Kullback-Leibler divergence)."""
    p, q = promote_args_inexact("kl_div", p, q)
    return rel_entr(p, q) - p + q


from .special_normal import log_ndtr, ndtr, ndtri  # noqa: E402,F401
from .special_erf import dawsn, erfcx, owens_t, wofz  # noqa: E402,F401  (the erf family)
from .special_expint import exp1, expi, expn, sici, spence  # noqa: E402,F401  (exponential integrals)
from .special_fresnel import fresnel  # noqa: E402,F401
from .special_hyper import bernoulli, hyp1f1, hyp2f1  # noqa: E402,F401
from .special_spherical import bessel_jn, sph_harm_y  # noqa: E402,F401
from .special_spherical import lpmn as _lpmn, lpmn_values as _lpmn_values  # noqa: E402

# JAX 0.10.2's deprecated names (a DeprecationWarning on access) and removed ones (its AttributeError).
_DEPRECATED = {
    "lpmn": ("jax.scipy.special.lpmn is deprecated; no replacement is planned.", _lpmn),
    "lpmn_values": ("jax.scipy.special.lpmn_values is deprecated; no replacement is planned.", _lpmn_values),
    "sph_harm": (
        "jax.scipy.special.sph_harm was deprecated in v0.7.0 and removed in v0.10.0. "
        "Use jax.scipy.special.sph_harm_y instead.",
        None,
    ),
}


def __getattr__(name):
    if name in _DEPRECATED:
        message, value = _DEPRECATED[name]
        if value is None:
            raise AttributeError(message)
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        return value
    raise AttributeError(f"module 'jax.scipy.special' has no attribute {name!r}")


from .special_loggamma import complex_gamma, complex_loggamma  # noqa: E402  (complex arguments)
