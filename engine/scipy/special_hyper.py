"""Hypergeometric functions and Bernoulli numbers of jax.scipy.special: ``hyp1f1``, ``hyp2f1`` and
``bernoulli``, composed of lax operations as JAX composes them (the series, asymptotic expansions
and transformations of Pearson, Olver and Porter (2014), arXiv:1407.7786, and AMS55 15.3.10-12),
with JAX's custom JVP rules (series in the parameters, contiguous relations in ``x``).

>>> hyp1f1(1.0, 2.0, jnp.array([0.0, 1.0]))
Array([1.       , 1.7182816], dtype=float32)
"""

from __future__ import annotations

import operator

import numpy as np

from .. import core, lax
from .. import numpy as jnp
from ..api import jit
from ..custom_derivatives import custom_jvp
from ..numpy._promote import promote_args_inexact
from ._coefficients import dtype_of
from .special import digamma, gamma

_MAX_TERMS = 250


def _eps(x):
    return float(np.finfo(dtype_of(x)).eps)


def _sum_series(first_term, ratio, weight=None, start=1):
    """``sum_k w_k t_k`` with ``t_{k+1} = t_k * ratio(k)``, from ``start`` (the k = 0 term, t_0 = 1,
    included when start is 1 and there is no weight) until a term is below epsilon relative to
    the sum or 250 terms."""

    def body(state):
        total, k, term = state
        total += term if weight is None else term * weight(k)
        term *= ratio(k)
        return total, k + 1, term

    def cond(state):
        total, k, term = state
        return (k < _MAX_TERMS) & (lax.abs(term) / lax.abs(total) > _eps(term))

    # (a Python int, as JAX's series start: the loop promotes it to the terms' type, strongly)
    return lax.while_loop(cond, body, (1 if start else 0, 1, first_term))[0]


# ---------------------------------------------------------------------------------------------
# 1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!: the Taylor series for |x| < 100, the asymptotic
# expansion Gamma(b) / Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k / k! x^-k beyond.


def _hyp1f1_series(a, b, x):
    return _sum_series(a / b * x, lambda k: (a + k) / (b + k) * x / (k + 1))


def _hyp1f1_asymptotic(a, b, x):
    total = _sum_series((b - a) * (1 - a) / x, lambda k: (b - a + k) * (1 - a + k) / (k + 1) / x)
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * total


@jit
@jnp.vectorize
def _hyp1f1_a_derivative(a, b, x):
    ratio = lambda k: (a + k) / (b + k) * x / (k + 1)  # noqa: E731
    return _sum_series(a / b * x, ratio, lambda k: digamma(a + k) - digamma(a), start=0)


@jit
@jnp.vectorize
def _hyp1f1_b_derivative(a, b, x):
    ratio = lambda k: (a + k) / (b + k) * x / (k + 1)  # noqa: E731
    return _sum_series(a / b * x, ratio, lambda k: digamma(b) - digamma(b + k), start=0)


@jit
def _hyp1f1_x_derivative(a, b, x):
    return a / b * hyp1f1(a + 1, b + 1, x)


@custom_jvp
@jit
@jnp.vectorize
def hyp1f1(a, b, x):
    """The confluent hypergeometric function ``1F1(a; b; x) = sum_k (a)_k / (b)_k x**k / k!`` of real
    arguments (``1`` at ``a = b = 0``, unlike SciPy)."""
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    if jnp.iscomplexobj(x):
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    result = lax.cond(lax.abs(x) < 100, _hyp1f1_series, _hyp1f1_asymptotic, a, b, x)
    index = (a == 0) * 1 + ((a == b) & (a != 0)) * 2 + ((b == 0) & (a != 0)) * 3
    return lax.select_n(
        index, result, jnp.array(1, dtype=x.dtype), jnp.exp(x), jnp.array(np.inf, dtype=x.dtype)
    )


hyp1f1.defjvps(
    lambda a_dot, y, a, b, x: _hyp1f1_a_derivative(a, b, x) * a_dot,
    lambda b_dot, y, a, b, x: _hyp1f1_b_derivative(a, b, x) * b_dot,
    lambda x_dot, y, a, b, x: _hyp1f1_x_derivative(a, b, x) * x_dot,
)


# ---------------------------------------------------------------------------------------------
# 2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k!.


def _hyp2f1_terminating(a, b, c, x):
    """The finite sum when a or b is a non-positive integer (looping over the larger of them in
    magnitude, unless c is a non-positive integer between them)."""
    eps = _eps(x) * 50
    ib = jnp.round(b)
    swap = (b < a) & ((jnp.abs(b - ib) < eps) & ~((c % 1 == 0) & ((c <= 0) & (c > b))))
    a, b = jnp.where(swap, b, a), jnp.where(swap, a, b)
    a = jnp.abs(a)

    def body(i, state):
        total, term = state
        term *= -(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x
        return total + term, term

    one = jnp.array(1, dtype=x.dtype)
    return lax.fori_loop(jnp.array(1, dtype=a.dtype), a + 1, body, (one, one))[0]


def _hyp2f1_series(a, b, c, x):
    def body(state):
        total, k, term = state
        total += term
        term *= (a + k - 1) * (b + k - 1) / (c + k - 1) / k * x
        return total, k + 1, term

    def cond(state):
        total, k, term = state
        return (k < _MAX_TERMS) & (lax.abs(term) > _eps(x) * lax.abs(total))

    init = (jnp.array(0, dtype=x.dtype), jnp.array(1, dtype=x.dtype), jnp.array(1, dtype=x.dtype))
    return lax.while_loop(cond, body, init)[0]


def _hyp2f1_digamma_transform(a, b, c, x):
    """2F1 near x = 1 with c - a - b close to an integer m (AMS55 15.3.10-12): digamma sums in
    1 - x, plus m terms of a finite sum."""
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    zero = jnp.array(0, dtype=d.dtype)
    e = jnp.where(rd >= 0, d, -d)
    d1 = jnp.where(rd >= 0, d, zero)
    d2 = jnp.where(rd >= 0, zero, d)
    m = jnp.where(rd >= 0, rd, -rd).astype("int32")
    log_s = jnp.log(s)
    y = digamma(1.0) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - log_s
    y /= gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def cond(state):
        q, t, y = state[6], state[9], state[10]
        return (t < _MAX_TERMS) & (jnp.abs(q) >= _eps(x) * jnp.abs(y))

    def body(state):
        a, log_s, b, d1, e, p, q, r, s, t, y = state
        r = digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1) - digamma(b + t + d1) - log_s
        q = p * r
        y += q
        p *= s * (a + t + d1) / (t + 1.0)
        p *= (b + t + d1) / (t + 1.0 + e)
        return a, log_s, b, d1, e, p, q, r, s, t + 1.0, y

    init = (a, log_s, b, d1, e, p, y, jnp.array(0, dtype=x.dtype), s, jnp.array(1, dtype=x.dtype), y)
    y = lax.while_loop(cond, body, init)[10]

    def with_finite_sum(y):
        def term(i, state):
            a, b, d2, e, p, s, t, y1 = state
            r = 1.0 - e + t
            p *= s * (a + t + d2) * (b + t + d2) / r
            t += 1.0
            p /= t
            return a, b, d2, e, p, s, t, y1 + p

        one, zero_x = jnp.array(1, dtype=x.dtype), jnp.array(0, dtype=x.dtype)
        y1 = lax.fori_loop(1, m, term, (a, b, d2, e, one, s, zero_x, one))[-1]
        gc = gamma(c)
        y1 *= gamma(e) * gc / (gamma(a + d1) * gamma(b + d1))
        y *= gc / (gamma(a + d2) * gamma(b + d2))
        y = jnp.where((m & 1) != 0, -y, y)
        q = s**rd
        return jnp.where(rd > 0, y * q + y1, y + y1 * q)

    return jnp.where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)), with_finite_sum(y))


def _hyp2f1_terminating_or_series(a, b, c, x):
    eps = _eps(x) * 50
    d = c - a - b
    round_a, round_b, round_d = jnp.round(a), jnp.round(b), jnp.round(d)
    neg_int_a = (a <= 0) & (jnp.abs(a - round_a) < eps)
    neg_int_b = (b <= 0) & (jnp.abs(b - round_b) < eps)
    terminating = neg_int_a | neg_int_b
    not_terminating = ~terminating
    index = jnp.where(
        (x > 0.9) & not_terminating,
        jnp.where(jnp.abs(d - round_d) >= eps, 0, 1),
        jnp.where(terminating, 2, 0),
    )
    return lax.select_n(
        index,
        _hyp2f1_series(a, b, c, x),
        _hyp2f1_digamma_transform(a, b, c, x),
        _hyp2f1_terminating(a, b, c, x),
    )


def _hyp2f1_param_derivative(weight):
    @jit
    @jnp.vectorize
    def derivative(a, b, c, x):
        ratio = lambda k: (a + k) * (b + k) / (c + k) / (k + 1) * x  # noqa: E731
        return _sum_series(a * b / c * x, ratio, lambda k: weight(a, b, c, k), start=0)

    return derivative


_hyp2f1_da = _hyp2f1_param_derivative(lambda a, b, c, k: digamma(a + k) - digamma(a))
_hyp2f1_db = _hyp2f1_param_derivative(lambda a, b, c, k: digamma(b + k) - digamma(b))
_hyp2f1_dc = _hyp2f1_param_derivative(lambda a, b, c, k: digamma(c) - digamma(c + k))


@jit
def _hyp2f1_dx(a, b, c, x):
    return a * b / c * hyp2f1(a + 1, b + 1, c + 1, x)


@custom_jvp
@jit
@jnp.vectorize
def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function ``2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x**k / k!``
    of real arguments (``inf`` for ``x > 1``).

    >>> hyp2f1(1.0, 1.0, 2.0, 0.5)
    Array(1.3862945, dtype=float32)
    """
    a, b, c, x = promote_args_inexact("hyp2f1", a, b, c, x)
    eps = _eps(x) * 50
    d = c - a - b
    s = 1 - x
    ca, cb = c - a, c - b
    round_d = jnp.round(d)
    cases = [
        ((x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0),
        ((c == 0) | ((c < 0) & (c % 1 == 0)), 1),
        ((d <= -1) & ~((jnp.abs(d - round_d) >= eps) & (s < 0)), 2),
        ((d <= 0) & (x == 1), 1),
        ((x < 1) & (b == c), 3),
        ((x < 1) & (a == c), 4),
        (x > 1, 1),
        (x == 1, 5),
    ]
    index = 6  # the first case that holds picks the expression
    for case, i in reversed(cases):
        index = jnp.where(case, i, index)
    return lax.select_n(
        index,
        jnp.array(1, dtype=x.dtype),
        jnp.array(np.inf, dtype=x.dtype),
        s**d * _hyp2f1_terminating_or_series(ca, cb, c, x),
        s ** (-a),
        s ** (-b),
        gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)),
        _hyp2f1_terminating_or_series(a, b, c, x),
    )


hyp2f1.defjvps(
    lambda a_dot, y, a, b, c, x: _hyp2f1_da(a, b, c, x) * a_dot,
    lambda b_dot, y, a, b, c, x: _hyp2f1_db(a, b, c, x) * b_dot,
    lambda c_dot, y, a, b, c, x: _hyp2f1_dc(a, b, c, x) * c_dot,
    lambda x_dot, y, a, b, c, x: _hyp2f1_dx(a, b, c, x) * x_dot,
)


# ---------------------------------------------------------------------------------------------


def bernoulli(n: int):
    """The Bernoulli numbers ``B_0 .. B_n`` (with ``B_1 = -1/2``), by the Chowla-Hartung formula
    ``B_2k = (-1)^(k+1) 2 (2k)! / (2 pi)^(2k) zeta(2k)``.

    >>> bernoulli(4)
    Array([ 1.        , -0.5       ,  0.16666667,  0.        , -0.03333325],      dtype=float32)
    """
    n = operator.index(core.concrete_or_error(n, "Argument n of bernoulli").item())
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    first = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return first[: n + 1]
    b = jnp.zeros(n + 1).at[:3].set(first)
    m = jnp.arange(4, n + 1, 2, dtype=b.dtype)
    # (2k)! / (2 pi)^(2k) with alternating sign, as a running product; zeta(2k) - 1 by 48 terms
    # (2^-50 is below double precision).
    factor = (1.0 / np.pi**2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi**2)
    k = jnp.arange(2, 50, dtype=b.dtype)
    zeta_minus_one = jnp.sum(k[:, None] ** -m[None, :], axis=0)
    return b.at[4::2].set(factor * (1 + zeta_minus_one))
