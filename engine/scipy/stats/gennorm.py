"""The generalized normal distribution with shape ``beta`` (2: normal up to scale, 1: Laplace)."""

from __future__ import annotations

from ... import lax
from ...lax import special as ls
from ...numpy._promote import promote_args_inexact


def logpdf(x, beta):
    """``log(beta / 2) - lgamma(1 / beta) - |x|**beta``."""
    x, beta = promote_args_inexact("gennorm.logpdf", x, beta)
    return lax.log(0.5 * beta) - ls.lgamma(1 / beta) - lax.abs(x) ** beta


def cdf(x, beta):
    """``(1 + sign(x) P(1 / beta, |x|**beta)) / 2``."""
    x, beta = promote_args_inexact("gennorm.cdf", x, beta)
    return 0.5 * (1 + lax.sign(x) * ls.igamma(1 / beta, lax.abs(x) ** beta))


def pdf(x, beta):
    """The generalized normal density."""
    return lax.exp(logpdf(x, beta))
