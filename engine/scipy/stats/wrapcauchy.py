"""The wrapped Cauchy distribution on [0, 2 pi]."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_args_inexact
from .._coefficients import const


def logpdf(x, c):
    """``log((1 - c^2) / (2 pi (1 + c^2 - 2 c cos x)))`` for ``0 < c < 1`` (NaN otherwise), ``-inf``
    outside [0, 2 pi]."""
    x, c = promote_args_inexact("wrapcauchy.logpdf", x, c)
    valid = lax.gt(c, const(c, 0)) & lax.lt(c, const(c, 1))  # (in JAX's order)
    inside = lax.ge(x, const(x, 0)) & lax.le(x, const(x, np.pi * 2))
    log_density = jnp.log(1 - c * c) - jnp.log(2 * np.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    return jnp.where(valid, jnp.where(inside, log_density, -np.inf), np.nan)


def pdf(x, c):
    """The wrapped Cauchy density."""
    return lax.exp(logpdf(x, c))
