"""The normal distribution."""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from .. import special
from ._common import promote


def logpdf(x, loc=0, scale=1):
    """log of the normal density with mean ``loc`` and standard deviation ``scale``."""
    x, loc, scale = promote("norm.logpdf", x, loc, scale)
    z = (x - loc) / scale
    return (
        -0.5 * z * z - float(0.5 * np.log(2 * np.pi)) - jnp.log(scale)
    )  # a Python float keeps x weak, as in JAX


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.cdf", x, loc, scale)
    return special.ndtr((x - loc) / scale)


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.logcdf", x, loc, scale)
    return special.log_ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote("norm.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("norm.ppf", q, loc, scale)
    return special.ndtri(q) * scale + loc


def isf(q, loc=0, scale=1):
    q, loc, scale = promote("norm.isf", q, loc, scale)
    return ppf(1 - q, loc, scale)
