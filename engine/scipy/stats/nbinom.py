"""The negative binomial distribution (failures before the ``n``-th success)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_args_inexact
from .._coefficients import const
from ..special import gammaln, xlogy


def logpmf(k, n, p, loc=0):
    """``log C(k + n - 1, k) + n log p + k log(1 - p)`` (``-inf`` below ``loc``)."""
    k, n, p, loc = promote_args_inexact("nbinom.logpmf", k, n, p, loc)
    one = const(k, 1)
    y = lax.sub(k, loc)
    log_comb = lax.sub(lax.sub(gammaln(lax.add(y, n)), gammaln(n)), gammaln(lax.add(y, one)))
    log_probs = lax.add(log_comb, lax.add(xlogy(n, p), xlogy(y, lax.sub(one, p))))
    return jnp.where(lax.lt(k, loc), -np.inf, log_probs)


def pmf(k, n, p, loc=0):
    """P(k) of the negative binomial distribution."""
    return lax.exp(logpmf(k, n, p, loc))
