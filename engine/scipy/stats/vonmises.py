"""The von Mises distribution on the circle."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_args_inexact
from .._coefficients import const


def logpdf(x, kappa):
    """``kappa (cos x - 1) - log(2 pi i0e(kappa))`` (NaN for ``kappa <= 0``)."""
    x, kappa = promote_args_inexact("vonmises.logpdf", x, kappa)
    valid = lax.gt(kappa, const(kappa, 0))  # (tested first, as JAX's program does)
    log_density = kappa * (jnp.cos(x) - 1) - jnp.log(2 * np.pi * lax.bessel_i0e(kappa))
    return jnp.where(valid, log_density, np.nan)


def pdf(x, kappa):
    """``exp(kappa cos x) / (2 pi I0(kappa))``."""
    return lax.exp(logpdf(x, kappa))
