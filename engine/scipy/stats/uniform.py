"""The uniform distribution on ``[loc, loc + scale]``."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_args_inexact


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("uniform.logpdf", x, loc, scale)
    log_density = lax.neg(lax.log(scale))
    outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    return jnp.where(outside, -np.inf, log_density)


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("uniform.cdf", x, loc, scale)
    zero, one = jnp.array(0, x.dtype), jnp.array(1, x.dtype)
    # the conditions in JAX's staging order, each bound computed where it is used
    below = lax.lt(x, loc)
    above = lax.gt(x, lax.add(loc, scale))
    inside = lax.ge(x, loc) & lax.le(x, lax.add(loc, scale))
    return jnp.select([below, above, inside], [zero, one, lax.div(lax.sub(x, loc), scale)])


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("uniform.ppf", q, loc, scale)
    invalid = jnp.isnan(q) | (q < 0) | (q > 1)
    return jnp.where(invalid, np.nan, lax.add(loc, lax.mul(scale, q)))
