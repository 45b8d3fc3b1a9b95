"""The beta distribution."""

from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._common import promote


def logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("beta.logpdf", x, a, b, loc, scale)
    shape_term = -special.betaln(a, b)
    y = (x - loc) / scale
    log_linear_term = special.xlogy(a - 1, y) + special.xlog1py(b - 1, -y)
    log_probs = shape_term + log_linear_term - jnp.log(scale)
    result = jnp.where(jnp.logical_or(x > loc + scale, x < loc), -jnp.inf, log_probs)
    return jnp.where((a <= 0) | (b <= 0) | (scale <= 0), jnp.nan, result)


def pdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("beta.cdf", x, a, b, loc, scale)
    return special.betainc(a, b, jnp.clip((x - loc) / scale, 0, 1))


def logcdf(x, a, b, loc=0, scale=1):
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote("beta.sf", x, a, b, loc, scale)
    return special.betainc(b, a, 1 - jnp.clip((x - loc) / scale, 0, 1))


def logsf(x, a, b, loc=0, scale=1):
    return jnp.log(sf(x, a, b, loc, scale))
