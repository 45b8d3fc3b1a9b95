"""The logistic distribution."""

from __future__ import annotations

from ... import numpy as jnp
from .. import special
from ._common import promote


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.logpdf", x, loc, scale)
    half_x = (x - loc) / scale / 2
    return -2 * jnp.logaddexp(half_x, -half_x) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.cdf", x, loc, scale)
    return special.expit((x - loc) / scale)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote("logistic.sf", x, loc, scale)
    return special.expit(-(x - loc) / scale)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote("logistic.ppf", q, loc, scale)
    return special.logit(q) * scale + loc


def isf(q, loc=0, scale=1):
    q, loc, scale = promote("logistic.isf", q, loc, scale)
    return -special.logit(q) * scale + loc
