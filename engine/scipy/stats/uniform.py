"""The uniform distribution on [loc, loc + scale]."""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ._common import promote


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("uniform.logpdf", x, loc, scale)
    log_probs = -jnp.log(scale)
    return jnp.where(jnp.logical_or(x > loc + scale, x < loc), -jnp.inf, log_probs)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("uniform.cdf", x, loc, scale)
    zero, one = np.zeros((), x.dtype), np.ones((), x.dtype)  # strong constants: a strong result, as JAX
    return jnp.select([x < loc, x >= loc + scale], [zero, one], (x - loc) / scale)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("uniform.ppf", q, loc, scale)
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), jnp.nan, loc + q * scale)
