"""``lax.random_gamma_grad``: the derivative of a Gamma(a, 1) sample in ``a``, as JAX 0.10.2 composes it
from lax operations (no primitive of its own there): ``-(dP/da) / (dP/dx)`` of the regularized lower
incomplete gamma ``P(a, x)``, from a power series where ``x`` is small or below ``a`` and from the
continued fraction of ``Q = 1 - P`` elsewhere, each iterated in a ``while_loop`` until the
derivative's terms stop changing at ``eps``. The equations are JAX's, in its order, so that
``make_jaxpr`` (and grad of ``random.gamma``) print alike.
"""

from __future__ import annotations

import numpy as np

from .. import core, lax
from .elementwise import _const
from .special import digamma, lgamma


def _any(pred):
    return lax.reduce_or(pred, tuple(range(core.get_aval(pred).ndim)))


def _series(x, a, enabled, eps):
    """``-(dP/da) x / a`` from ``P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))``."""

    def step(vals):
        on, r, c, ans, x, dc_da, dans_da = vals
        r = r + _const(r, 1.0)
        dc_da = dc_da * (x / r) - (c * x) / (r * r)
        dans_da = dans_da + dc_da
        c = c * (x / r)
        ans = ans + c
        more = lax.bitwise_and(on, abs(dc_da / dans_da) > eps)
        new = (r, c, ans, x, dc_da, dans_da)
        return (more, *(lax.select(on, n, o) for n, o in zip(new, vals[1:])))

    init = (enabled, a, lax.full_like(a, 1), lax.full_like(a, 1), x, lax.full_like(a, 0), lax.full_like(a, 0))
    vals = lax.while_loop(lambda vals: _any(vals[0]), step, init)
    ans, dans_da = vals[3], vals[6]
    dlogax_da = lax.log(x) - digamma(a + _const(a, 1))
    return -(dans_da + ans * dlogax_da) * x / a


def _continued_fraction(x, a, enabled, eps):
    """``(dQ/da) x`` from the continued fraction of ``Q`` (its convergents ``p_k / q_k`` and their
    derivatives in ``a``, rescaled by ``eps`` when they grow past ``1 / eps``)."""

    def step(vals):
        on, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans = vals
        c = c + _const(c, 1)
        y = y + _const(y, 1)
        z = z + _const(z, 2)
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nonzero = lax.ne(qk, _const(qk, 0))
        r = pk / qk
        t = lax.select(nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
        ans = lax.select(nonzero, r, ans)
        dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c
        dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c
        dans_new = lax.select(nonzero, lax.div(dpk - ans * dqk, qk), dans)
        change = lax.select(nonzero, lax.abs(dans_new - dans), lax.full_like(dans, 1))
        # shift the convergents along, then rescale them all where p_k has grown large
        shifted = [pkm1, pk, qkm1, qk, dpkm1, dqkm1, dpk, dqk]
        big = lax.gt(lax.abs(pk), lax.reciprocal(_const(pk, eps)))
        pkm2, pkm1, qkm2, qkm1, dpkm2, dqkm2, dpkm1, dqkm1 = (
            lax.select(big, lax.mul(v, _const(v, eps)), v) for v in shifted
        )
        more = lax.bitwise_and(on, change > _const(change, eps))
        new = (ans, t, y, z)
        kept = (pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans_new)
        return (
            more,
            *(lax.select(on, n, o) for n, o in zip(new, vals[1:5])),
            c,
            *(lax.select(on, n, o) for n, o in zip(kept, vals[6:])),
        )

    y = _const(a, 1) - a
    z = x + y + _const(x, 1)
    pkm2, qkm2 = lax.full_like(x, 1), x  # (the convergent before the first)
    pkm1 = x + _const(x, 1)
    qkm1 = z * x
    ans = pkm1 / qkm1
    t = lax.full_like(x, 1)
    dpkm2, dqkm2, dpkm1 = lax.full_like(x, 0), lax.full_like(x, 0), lax.full_like(x, 0)
    dqkm1 = -x
    dans = (dpkm1 - ans * dqkm1) / qkm1
    init = (enabled, ans, t, y, z, _const(x, 0), pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans)

    def going(vals):
        return lax.bitwise_and(vals[5] < _const(vals[5], 2000), _any(vals[0]))

    vals = lax.while_loop(going, step, init)
    ans, dans = vals[1], vals[14]
    dlogax_da = lax.log(x) - digamma(a)
    return lax.neg(lax.add(dans, lax.mul(ans, dlogax_da)) * x)


def random_gamma_grad_impl(a, x, dtype):
    """The derivative, for ``a`` and ``x`` of one shape and float ``dtype``: 0 at ``x == 0``, NaN for
    ``x < 0``, ``a <= 0`` or NaN inputs."""
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    domain_error = lax.bitwise_or(lax.lt(x, lax.full_like(x, 0)), lax.le(a, lax.full_like(a, 0)))
    use_fraction = lax.bitwise_and(lax.gt(x, lax.full_like(x, 1)), lax.gt(x, a))
    log_ax = a * lax.log(x) - x - lgamma(a)
    underflow = lax.lt(log_ax, -lax.log(np.array(np.finfo(dtype).max, dtype)))
    lax.exp(log_ax)  # (JAX computes x^a e^-x / Gamma(a) too, which this derivative does not use)
    off = lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(x_is_zero, domain_error), underflow), is_nan)
    enabled = lax.bitwise_not(off)
    eps = np.finfo(dtype).eps
    from_fraction = -_continued_fraction(x, a, lax.bitwise_and(enabled, use_fraction), eps)
    from_series = _series(x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_fraction)), eps)
    out = lax.select(use_fraction, from_fraction, from_series)
    out = lax.select(x_is_zero, lax.full_like(out, 0), out)
    return lax.select(lax.bitwise_or(domain_error, is_nan), lax.full_like(a, float("nan")), out)
