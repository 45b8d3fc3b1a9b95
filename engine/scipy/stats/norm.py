"""The normal distribution (JAX's formulas, so jaxprs and float32 rounding match)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...lax.elementwise import _const
from ...numpy._promote import promote_args_inexact
from .. import special


def logpdf(x, loc=0, scale=1):
    """log of the normal density with mean ``loc`` and standard deviation ``scale``."""
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    var = lax.square(scale)
    log_normalizer = lax.log(lax.mul(_const(x, 2 * np.pi), var))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), var)
    return lax.div(lax.add(log_normalizer, quadratic), _const(x, -2))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return special.ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return special.log_ndtr(lax.div(lax.sub(x, loc), scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
    return jnp.asarray(special.ndtri(q) * scale + loc, float)


def isf(q, loc=0, scale=1):
    return ppf(lax.sub(_const(q, 1), q), loc, scale)
