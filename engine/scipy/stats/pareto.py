"""The Pareto distribution with shape ``b`` (support ``x >= loc + scale``)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_args_inexact
from .._coefficients import const


def _below_support(x, loc, scale):
    return lax.lt(x, lax.add(loc, scale))


def logpdf(x, b, loc=0, scale=1):
    """``log(b / scale) - (b + 1) log((x - loc) / scale)`` (``-inf`` below the support)."""
    x, b, loc, scale = promote_args_inexact("pareto.logpdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    log_probs = lax.neg(lax.add(lax.log(lax.div(scale, b)), lax.mul(lax.add(b, const(x, 1)), lax.log(z))))
    return jnp.where(_below_support(x, loc, scale), -np.inf, log_probs)


def pdf(x, b, loc=0, scale=1):
    return lax.exp(logpdf(x, b, loc, scale))


def cdf(x, b, loc=0, scale=1):
    """``1 - z**-b`` with ``z = (x - loc) / scale`` (0 below the support)."""
    x, b, loc, scale = promote_args_inexact("pareto.cdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_below_support(x, loc, scale), const(x, 0), lax.sub(const(x, 1), lax.pow(z, lax.neg(b))))


def logcdf(x, b, loc=0, scale=1):
    x, b, loc, scale = promote_args_inexact("pareto.logcdf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_below_support(x, loc, scale), -np.inf, lax.log1p(lax.neg(lax.pow(z, lax.neg(b)))))


def logsf(x, b, loc=0, scale=1):
    """``-b log z`` (0 below the support)."""
    x, b, loc, scale = promote_args_inexact("pareto.logsf", x, b, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    return jnp.where(_below_support(x, loc, scale), const(x, 0), lax.neg(lax.mul(b, lax.log(z))))


def sf(x, b, loc=0, scale=1):
    return lax.exp(logsf(x, b, loc, scale))


def ppf(q, b, loc=0, scale=1):
    """``loc + scale (1 - q)**(-1 / b)`` (NaN outside [0, 1])."""
    q, b, loc, scale = promote_args_inexact("pareto.ppf", q, b, loc, scale)
    one = const(q, 1)
    value = lax.add(loc, lax.mul(scale, lax.pow(lax.sub(one, q), lax.neg(lax.div(one, b)))))
    return jnp.where(jnp.isnan(q) | (q < 0) | (q > 1), np.nan, value)
