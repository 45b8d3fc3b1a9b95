"""The Poisson distribution."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...lax.elementwise import _const
from ...numpy._promote import promote_args_inexact
from .. import special


def logpmf(k, mu, loc=0):
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    log_probs = special.xlogy(x, mu) - special.gammaln(x + 1) - mu
    return jnp.where(jnp.logical_or(lax.lt(x, zero), lax.ne(jnp.round(k), k)), -np.inf, log_probs)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    k, mu, loc = promote_args_inexact("poisson.cdf", k, mu, loc)
    zero = _const(k, 0)
    x = lax.sub(k, loc)
    p = special.gammaincc(jnp.floor(1 + x), mu)
    return jnp.where(lax.lt(x, zero), zero, p)


def entropy(mu, loc=0):
    """Shannon entropy of the Poisson distribution (``loc`` shifts it and changes nothing).

    As JAX, by regime: for ``mu < 10`` and ``mu < 100`` the sum of ``entr(pmf(k))`` over the ``k``
    below ``mu + 20`` (resp. ``mu + 10 sqrt(mu) + 20``, the mass beyond is negligible), a fixed
    number of terms so that it traces; from 100 on the asymptotic ``log(2 pi e mu) / 2 - 1 / (12 mu)``.
    ``mu == 0`` gives 0, ``mu < 0`` NaN.

    >>> entropy(jnp.array([1.0, 10.0, 100.0]))
    Array([1.3048419, 2.5614073, 3.7206903], dtype=float32)
    """
    mu, loc = promote_args_inexact("poisson.entropy", mu, loc)
    shape = jnp.broadcast_shapes(mu.shape, loc.shape)
    flat = jnp.ravel(mu)
    small = _truncated_entropy(flat, 35, flat + 20)
    medium = _truncated_entropy(flat, 250, flat + 10 * jnp.sqrt(flat) + 20)
    large = 0.5 * jnp.log(2 * np.pi * np.e * flat) - 1.0 / (12 * flat)
    h = jnp.where(
        flat == 0, jnp.zeros_like(flat), jnp.where(flat < 10, small, jnp.where(flat < 100, medium, large))
    )
    return jnp.broadcast_to(jnp.reshape(h, mu.shape), shape)


def _truncated_entropy(mu, terms, bound):
    """``sum(entr(pmf(k, mu)))`` over ``k < ceil(bound)``, for ``k`` among the first ``terms``."""
    k = jnp.arange(terms, dtype=mu.dtype)[:, None]
    p = jnp.where(k < jnp.ceil(bound)[None, :], pmf(k, mu), 0.0)
    return jnp.sum(special.entr(p), axis=0)
