"""The beta-binomial distribution."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...api import jit
from ...numpy._promote import promote_args_inexact
from .._coefficients import const
from ..special import betaln


@jit
def logpmf(k, n, a, b, loc=0):
    """log P(k) of the beta-binomial distribution with ``n`` trials and shape parameters ``a``, ``b``
    (``-inf`` outside ``0..n``, NaN for ``n < 0`` or non-positive shapes)."""
    k, n, a, b, loc = promote_args_inexact("betabinom.logpmf", k, n, a, b, loc)
    y = lax.sub(lax.floor(k), loc)
    one, zero = const(y, 1), const(y, 0)
    log_comb = lax.neg(lax.add(lax.log1p(n), betaln(lax.add(lax.sub(n, y), one), lax.add(y, one))))
    log_beta_ratio = lax.sub(betaln(lax.add(y, a), lax.add(lax.sub(n, y), b)), betaln(a, b))
    log_probs = lax.add(log_comb, log_beta_ratio)
    log_probs = jnp.where(jnp.logical_and(lax.eq(y, zero), lax.eq(n, zero)), 0.0, log_probs)
    outside = jnp.logical_or(
        jnp.logical_or(lax.lt(y, lax.neg(loc)), lax.gt(y, n)), lax.le(lax.add(y, a), zero)
    )
    log_probs = jnp.where(outside, -np.inf, log_probs)
    invalid = jnp.logical_or(jnp.logical_or(lax.lt(n, zero), lax.le(a, zero)), lax.le(b, zero))
    return jnp.where(invalid, np.nan, log_probs)


def pmf(k, n, a, b, loc=0):
    """P(k) of the beta-binomial distribution."""
    return lax.exp(logpmf(k, n, a, b, loc))
