"""The Laplace (double exponential) distribution."""

from __future__ import annotations

from ... import lax
from ...lax.elementwise import _const
from ...numpy._promote import promote_args_inexact


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    linear_term = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear_term, lax.log(lax.mul(_const(x, 2), scale))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    half, one, zero = _const(x, 0.5), _const(x, 1), _const(x, 0)
    z = lax.div(lax.sub(x, loc), scale)
    below = lax.le(z, zero)  # staged before both branches, as JAX does
    lower = lax.mul(half, lax.exp(z))
    upper = lax.sub(one, lax.mul(half, lax.exp(lax.neg(z))))
    return lax.select(below, lower, upper)
