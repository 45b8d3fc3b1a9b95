"""The gamma distribution (shape ``a``)."""

from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._common import promote


def logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    y = (x - loc) / scale
    log_linear_term = special.xlogy(a - 1, y) - y
    shape_term = special.gammaln(a) + jnp.log(scale)
    log_probs = log_linear_term - shape_term
    return jnp.where(y < 0, -jnp.inf, log_probs)


def pdf(x, a, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.cdf", x, a, loc, scale)
    return special.gammainc(a, jnp.clip((x - loc) / scale, 0, jnp.inf))


def logcdf(x, a, loc=0, scale=1):
    return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote("gamma.sf", x, a, loc, scale)
    return special.gammaincc(a, jnp.clip((x - loc) / scale, 0, jnp.inf))


def logsf(x, a, loc=0, scale=1):
    return jnp.log(sf(x, a, loc, scale))
