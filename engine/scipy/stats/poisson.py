"""The Poisson distribution."""

from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._common import promote


def logpmf(k, mu, loc=0):
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    x = k - loc
    log_probs = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(x < 0, x != jnp.round(x)), -jnp.inf, log_probs)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    k, mu, loc = promote("poisson.cdf", k, mu, loc)
    x = k - loc
    p = special.gammaincc(jnp.floor(1 + x), mu)
    return jnp.where(x < 0, 0, p)
