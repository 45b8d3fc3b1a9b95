"""The binomial distribution."""

from __future__ import annotations

from ...numpy._promote import promote_args_inexact

from ...lax.elementwise import _const

from ... import lax

import numpy as np

from ... import numpy as jnp
from .. import special


def logpmf(k, n, p, loc=0):
    k, n, p, loc = promote_args_inexact("binom.logpmf", k, n, p, loc)
    y = lax.sub(k, loc)
    zero = _const(y, 0)
    comb_term = lax.sub(special.gammaln(n + 1), lax.add(special.gammaln(y + 1), special.gammaln(n - y + 1)))
    log_linear_term = lax.add(special.xlogy(y, p), special.xlog1py(lax.sub(n, y), lax.neg(p)))
    log_probs = lax.add(comb_term, log_linear_term)
    # 0 * log(0) terms: probability 1 at k == n == 0, and wherever the linear term vanishes.
    certain = jnp.logical_or(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)), lax.eq(log_linear_term, zero))
    log_probs = jnp.where(certain, 0.0, log_probs)
    return jnp.where(lax.ge(k, loc) & lax.lt(k, loc + n + 1), log_probs, -np.inf)


def pmf(k, n, p, loc=0):
    return jnp.exp(logpmf(k, n, p, loc))
