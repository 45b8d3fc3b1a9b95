"""The left-skewed Gumbel distribution (the law of minima): ``sf = exp(-exp(z))``."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_args_inexact
from .._coefficients import const
from ..special import xlog1py, xlogy
from .gumbel_r import _standardize


def logpdf(x, loc=0, scale=1):
    """``-log(scale) + z - exp(z)`` (NaN for ``scale <= 0``)."""
    x, loc, scale, ok = _standardize("gumbel_l.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(ok, lax.add(xlogy(-1, scale), lax.sub(z, lax.exp(z))), np.nan)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def logcdf(x, loc=0, scale=1):
    """``log(1 - exp(-exp(z)))``, as ``log(-expm1(-exp(z)))`` (stable in both tails)."""
    x, loc, scale, ok = _standardize("gumbel_l.logcdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(ok, lax.log(-lax.expm1(lax.neg(lax.exp(z)))), np.nan)


def cdf(x, loc=0, scale=1):
    return lax.exp(logcdf(x, loc, scale))


def ppf(p, loc=0, scale=1):
    """``loc + scale log(-log(1 - p))`` for ``0 < p < 1`` (NaN otherwise)."""
    p, loc, scale = promote_args_inexact("gumbel_l.ppf", p, loc, scale)
    ok = lax.bitwise_and(lax.gt(p, const(p, 0)), lax.lt(p, const(p, 1)))
    quantile = lax.add(loc, lax.mul(scale, lax.log(xlog1py(-1, lax.neg(p)))))
    return jnp.where(ok, quantile, np.nan)


def logsf(x, loc=0, scale=1):
    """``-exp(z)``."""
    x, loc, scale, ok = _standardize("gumbel_l.logsf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(ok, lax.neg(lax.exp(z)), np.nan)


def sf(x, loc=0, scale=1):
    return jnp.exp(logsf(x, loc, scale))
