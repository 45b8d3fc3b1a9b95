"""The Cauchy distribution."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...lax.elementwise import _const
from ...numpy._promote import promote_args_inexact


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    pi = _const(x, np.pi)
    z = lax.div(lax.sub(x, loc), scale)
    log_normalizer = lax.log(lax.mul(pi, scale))
    return lax.neg(lax.add(log_normalizer, lax.log1p(lax.mul(z, z))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    pi = _const(x, np.pi)
    z = lax.div(lax.sub(x, loc), scale)
    return lax.add(_const(x, 0.5), lax.mul(lax.div(_const(x, 1.0), pi), jnp.arctan(z)))


def logcdf(x, loc=0, scale=1):
    return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    unit = lax.tan(lax.sub(_const(q, np.pi / 2), lax.mul(_const(q, np.pi), q)))
    return lax.add(lax.mul(unit, scale), loc)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    unit = lax.tan(lax.sub(lax.mul(_const(q, np.pi), q), _const(q, np.pi / 2)))
    return lax.add(lax.mul(unit, scale), loc)
