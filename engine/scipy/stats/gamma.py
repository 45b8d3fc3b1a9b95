"""The gamma distribution (shape ``a``)."""

from __future__ import annotations

from ...numpy._promote import promote_args_inexact

from ...lax.elementwise import _const

from ... import lax

import numpy as np

from ... import numpy as jnp
from .. import special


def logpdf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.logpdf", x, a, loc, scale)
    ok = lax.ge(x, loc)
    one = _const(x, 1)
    y = jnp.where(ok, lax.div(lax.sub(x, loc), scale), one)
    log_linear_term = lax.sub(special.xlogy(lax.sub(a, one), y), y)
    shape_terms = lax.add(special.gammaln(a), lax.log(scale))
    return jnp.where(ok, lax.sub(log_linear_term, shape_terms), -np.inf)


def pdf(x, a, loc=0, scale=1):
    return jnp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0, scale=1):
    # JAX's: promoted, not broadcast; the standardized x clamped to [0, inf]
    x, a, loc, scale = promote_args_inexact("gamma.cdf", x, a, loc, scale)
    return special.gammainc(a, lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), scale), _const(x, np.inf)))


def logcdf(x, a, loc=0, scale=1):
    return jnp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0, scale=1):
    x, a, loc, scale = promote_args_inexact("gamma.sf", x, a, loc, scale)
    y = lax.div(lax.sub(x, loc), scale)
    return jnp.where(lax.lt(y, _const(y, 0)), 1, special.gammaincc(a, y))


def logsf(x, a, loc=0, scale=1):
    return jnp.log(sf(x, a, loc, scale))
