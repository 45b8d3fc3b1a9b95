"""The Bernoulli distribution."""

from __future__ import annotations

from ...numpy._promote import promote_args_inexact

from ...lax.elementwise import _const

from ... import lax

import numpy as np

from ... import numpy as jnp
from .. import special
from ._common import promote


def logpmf(k, p, loc=0):
    k, p, loc = promote_args_inexact("bernoulli.logpmf", k, p, loc)
    zero, one = _const(k, 0), _const(k, 1)
    x = lax.sub(k, loc)
    log_probs = special.xlogy(x, p) + special.xlog1py(lax.sub(one, x), -p)
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.gt(x, one)), -np.inf, log_probs)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))


def cdf(k, p):
    k, p = promote("bernoulli.cdf", k, p)
    zero, one = jnp.zeros_like(k), jnp.ones_like(k)
    conds = [jnp.isnan(k) | jnp.isnan(p) | (p < 0) | (p > 1), k < 0, jnp.logical_and(k >= 0, k < 1), k >= 1]
    vals = [jnp.full_like(k, jnp.nan), zero, one - p, one]
    return jnp.select(conds, vals)


def ppf(q, p):
    q, p = promote("bernoulli.ppf", q, p)
    return jnp.where(
        jnp.isnan(q) | jnp.isnan(p) | (p < 0) | (p > 1) | (q < 0) | (q > 1),
        jnp.nan,
        jnp.where(q <= 1 - p, 0, 1).astype(q.dtype),
    )
