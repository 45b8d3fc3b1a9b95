"""The Laplace distribution."""

from __future__ import annotations

from ... import numpy as jnp
from ._common import promote


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("laplace.logpdf", x, loc, scale)
    return -jnp.log(2 * scale) - jnp.abs(x - loc) / scale


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("laplace.cdf", x, loc, scale)
    z = (x - loc) / scale
    return jnp.where(x < loc, 0.5 * jnp.exp(z), 1 - 0.5 * jnp.exp(-z))
