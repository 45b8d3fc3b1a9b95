"""The chi-squared distribution: gamma(df / 2, scale 2)."""

from __future__ import annotations

from ... import numpy as jnp

from ...numpy._promote import promote_args_inexact

from ...lax.elementwise import _const

from ... import lax

import numpy as np

from .. import special


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    one, two = _const(x, 1), _const(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    half_df = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(half_df, one), lax.log(y)), lax.div(y, two))
    log_normalizer = lax.neg(lax.add(lax.lgamma(half_df), lax.div(lax.mul(lax.log(two), df), two)))
    log_probs = lax.add(lax.sub(log_normalizer, lax.log(scale)), kernel)
    return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x, df, loc=0, scale=1):
    # exp of chi2's own logpdf, as JAX (so x = 0 with df = 2 is NaN there: 0 * log 0, not xlogy)
    return lax.exp(logpdf(x, df, loc, scale))


def cdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("chi2.cdf", x, df, loc, scale)
    return special.gammainc(lax.div(df, _const(scale, 2)), _standardized(x, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    # log of chi2.cdf (whose x is clamped to [0, inf]), not gamma's
    return lax.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("chi2.sf", x, df, loc, scale)
    return special.gammaincc(lax.div(df, _const(scale, 2)), _standardized(x, loc, scale))


def _standardized(x, loc, scale):
    """``(x - loc) / (2 scale)`` clamped to [0, inf], as JAX's chi2.cdf / sf compute it."""
    two = _const(scale, 2)
    return lax.clamp(_const(x, 0), lax.div(lax.sub(x, loc), lax.mul(scale, two)), _const(x, np.inf))


def logsf(x, df, loc=0, scale=1):
    return lax.log(sf(x, df, loc, scale))
