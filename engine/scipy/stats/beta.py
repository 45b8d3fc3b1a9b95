"""The beta distribution."""

from __future__ import annotations

from ...numpy._promote import promote_args_inexact

from ...lax.elementwise import _const

from ... import lax

import numpy as np

from ... import numpy as jnp
from .. import special


def logpdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.logpdf", x, a, b, loc, scale)
    one, zero = _const(x, 1), _const(a, 0)
    shape_term = lax.neg(special.betaln(a, b))
    y = lax.div(lax.sub(x, loc), scale)
    log_linear_term = lax.add(special.xlogy(lax.sub(a, one), y), special.xlog1py(lax.sub(b, one), lax.neg(y)))
    log_probs = lax.sub(lax.add(shape_term, log_linear_term), lax.log(scale))
    outside = jnp.logical_or(lax.gt(x, lax.add(loc, scale)), lax.lt(x, loc))
    result = jnp.where(outside, -np.inf, log_probs)
    bad_params = jnp.logical_or(jnp.logical_or(lax.le(a, zero), lax.le(b, zero)), lax.le(scale, zero))
    return jnp.where(bad_params, np.nan, result)


def pdf(x, a, b, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, b, loc, scale))


def cdf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.cdf", x, a, b, loc, scale)
    return special.betainc(a, b, lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, 1)))


def logcdf(x, a, b, loc=0, scale=1):
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0, scale=1):
    x, a, b, loc, scale = promote_args_inexact("beta.sf", x, a, b, loc, scale)
    return special.betainc(b, a, 1 - lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, 1)))


def logsf(x, a, b, loc=0, scale=1):
    return jnp.log(sf(x, a, b, loc, scale))
