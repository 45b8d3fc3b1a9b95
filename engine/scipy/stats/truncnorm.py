"""The normal distribution truncated to ``[a, b]`` (in standard units: ``loc + scale * [a, b]``)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...api import jit
from ...nn import logsumexp
from ...numpy._promote import promote_args_inexact
from ..special import log_ndtr, ndtr
from . import norm


def _log_diff(x, y):
    """``log(exp(x) - exp(y))``."""
    return logsumexp(jnp.array([x, y]), b=jnp.array([jnp.ones_like(x), -jnp.ones_like(y)]), axis=0)


def _log_gauss_mass(a, b):
    """``log(Phi(b) - Phi(a))``, in the left tail (right-tail intervals are mirrored there, where
    the CDF has no cancellation), or as ``log1p(-Phi(a) - Phi(-b))`` for intervals around 0."""
    a, b = jnp.broadcast_arrays(jnp.array(a), jnp.array(b))
    left, right = b <= 0, a > 0
    central = ~(left | right)
    a_tail, b_tail = jnp.where(right, -b, a), jnp.where(right, -a, b)
    mass_tail = _log_diff(log_ndtr(b_tail), log_ndtr(a_tail))
    mass_central = jnp.log1p(-ndtr(a) - ndtr(-b))
    return jnp.where(central, mass_central, mass_tail)


@jit
def logpdf(x, a, b, loc=0, scale=1):
    """The normal log-density renormalised on ``[a, b]`` (``-inf`` outside, NaN for ``a >= b``)."""
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logpdf", x, a, b, loc, scale)
    value = lax.sub(norm.logpdf(x, loc, scale), _log_gauss_mass(a, b))
    z = lax.div(lax.sub(x, loc), scale)
    value = jnp.where((z < a) | (z > b), -np.inf, value)
    return jnp.where(a >= b, np.nan, value)


def pdf(x, a, b, loc=0, scale=1):
    return lax.exp(logpdf(x, a, b, loc, scale))


@jit
def logcdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logcdf", x, a, b, loc, scale)
    x, a, b = jnp.broadcast_arrays(x, a, b)
    x = lax.div(lax.sub(x, loc), scale)
    mass = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, x) - mass
    log_sf = _log_gauss_mass(x, b) - mass
    # Near 1, 1 - sf is the accurate form (as SciPy).
    log_cdf = jnp.select(
        [x >= b, x <= a, log_cdf > -0.1, x > a], [0, -np.inf, jnp.log1p(-jnp.exp(log_sf)), log_cdf]
    )
    return jnp.where(a >= b, np.nan, log_cdf)


@jit
def cdf(x, a, b, loc=0, scale=1):
    return lax.exp(logcdf(x, a, b, loc, scale))


@jit
def logsf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("truncnorm.logsf", x, a, b, loc, scale)
    return logcdf(-x, -b, -a, -loc, scale)


@jit
def sf(x, a, b, loc=0, scale=1):
    return lax.exp(logsf(x, a, b, loc, scale))
