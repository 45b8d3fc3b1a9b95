"""The right-skewed Gumbel distribution (the law of maxima): ``cdf = exp(-exp(-z))``."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...nn import log1mexp
from ...numpy._promote import promote_args_inexact
from .._coefficients import const
from ..special import xlogy


def _standardize(name, x, loc, scale):
    x, loc, scale = promote_args_inexact(name, x, loc, scale)
    return x, loc, scale, lax.gt(scale, const(scale, 0))


def logpdf(x, loc=0, scale=1):
    """``-log(scale) - (z + exp(-z))`` (NaN for ``scale <= 0``)."""
    x, loc, scale, ok = _standardize("gumbel_r.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_pdf = lax.add(xlogy(-1, scale), lax.neg(lax.add(z, lax.exp(lax.neg(z)))))
    return jnp.where(ok, log_pdf, np.nan)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """``-exp(-z)``."""
    x, loc, scale, ok = _standardize("gumbel_r.logcdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(ok, lax.neg(lax.exp(lax.neg(z))), np.nan)


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """``loc - scale log(-log p)`` for ``0 < p < 1`` (NaN otherwise)."""
    p, loc, scale = promote_args_inexact("gumbel_r.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, const(p, 0)), lax.lt(p, const(p, 1)))
    quantile = lax.sub(loc, lax.mul(scale, lax.log(xlogy(-1, p))))
    return jnp.where(ok, quantile, np.nan)


def sf(x, loc=0, scale=1):
    """``1 - exp(-exp(-z))``."""
    x, loc, scale, ok = _standardize("gumbel_r.sf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(ok, lax.sub(const(x, 1), lax.exp(lax.neg(lax.exp(neg_z)))), np.nan)


def logsf(x, loc=0, scale=1):
    """``log(1 - exp(-exp(-z)))``, through ``log1mexp``."""
    x, loc, scale, ok = _standardize("gumbel_r.logsf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(ok, log1mexp(lax.exp(neg_z)), np.nan)
