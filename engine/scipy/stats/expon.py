"""The exponential distribution starting at ``loc`` with mean ``loc + scale``."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_args_inexact


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.logpdf", x, loc, scale)
    log_scale = lax.log(scale)
    linear_term = lax.div(lax.sub(x, loc), scale)
    log_density = lax.neg(lax.add(linear_term, log_scale))
    return jnp.where(lax.lt(x, loc), -np.inf, log_density)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.cdf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_z), lax.neg(lax.expm1(neg_z)))


def logcdf(x, loc=0, scale=1):
    return lax.log1p(lax.neg(sf(x, loc, scale)))


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("expon.sf", x, loc, scale)
    neg_z = lax.div(lax.sub(loc, x), scale)
    return jnp.where(lax.lt(x, loc), jnp.zeros_like(neg_z), neg_z)


def sf(x, loc=0, scale=1):
    return lax.exp(logsf(x, loc, scale))


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("expon.ppf", q, loc, scale)
    invalid = jnp.isnan(q) | (q < 0) | (q > 1)
    return jnp.where(invalid, np.nan, lax.sub(loc, lax.mul(scale, lax.log1p(lax.neg(q)))))
