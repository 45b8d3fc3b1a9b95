"""The exponential distribution."""

from __future__ import annotations

from ... import numpy as jnp
from ._common import promote


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.logpdf", x, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, -jnp.inf, -jnp.log(scale) - y)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.cdf", x, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, 0, -jnp.expm1(-y))


def logcdf(x, loc=0, scale=1):
    return jnp.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.sf", x, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, 1, jnp.exp(-y))


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("expon.logsf", x, loc, scale)
    y = (x - loc) / scale
    return jnp.where(y < 0, 0, -y)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("expon.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), jnp.nan, loc - scale * jnp.log1p(-q))
