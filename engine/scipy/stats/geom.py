"""The geometric distribution (trials up to the first success, support k >= 1)."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_args_inexact
from .._coefficients import const
from ..special import xlog1py


def logpmf(k, p, loc=0):
    """``(k - 1) log(1 - p) + log p`` (``-inf`` for ``k - loc <= 0``)."""
    k, p, loc = promote_args_inexact("geom.logpmf", k, p, loc)
    x = lax.sub(k, loc)
    log_probs = xlog1py(lax.sub(x, const(k, 1)), -p) + lax.log(p)
    return jnp.where(lax.le(x, const(k, 0)), -np.inf, log_probs)


def pmf(k, p, loc=0):
    """``(1 - p)**(k - 1) p``."""
    return jnp.exp(logpmf(k, p, loc))
