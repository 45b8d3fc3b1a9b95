"""The binomial distribution."""

from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._common import promote


def logpmf(k, n, p, loc=0):
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    comb_term = special.gammaln(n + 1) - special.gammaln(y + 1) - special.gammaln(n - y + 1)
    log_linear_term = special.xlogy(y, p) + special.xlog1py(n - y, -p)
    log_probs = comb_term + log_linear_term
    return jnp.where(jnp.logical_and(y >= 0, y <= n), log_probs, -jnp.inf)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
