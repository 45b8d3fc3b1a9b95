"""The logistic distribution."""

from __future__ import annotations

from ... import lax
from ... import numpy as jnp
from ...lax.elementwise import _const
from ...numpy._promote import promote_args_inexact
from .. import special


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.logpdf", x, loc, scale)
    z = lax.div(lax.sub(x, loc), scale)
    two = _const(z, 2)
    half_z = lax.div(z, two)
    return lax.sub(lax.mul(lax.neg(two), jnp.logaddexp(half_z, lax.neg(half_z))), lax.log(scale))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def ppf(x, loc=0, scale=1):
    # (JAX names the probability ``x`` here and in isf, so it is the keyword that works)
    x, loc, scale = promote_args_inexact("logistic.ppf", x, loc, scale)
    return lax.add(lax.mul(special.logit(x), scale), loc)


def sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.sf", x, loc, scale)
    return special.expit(lax.neg(lax.div(lax.sub(x, loc), scale)))


def isf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.isf", x, loc, scale)
    return lax.add(lax.mul(lax.neg(special.logit(x)), scale), loc)


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("logistic.cdf", x, loc, scale)
    return special.expit(lax.div(lax.sub(x, loc), scale))
