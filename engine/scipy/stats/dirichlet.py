"""The Dirichlet distribution (the simplex axis is axis 0 of ``x``)."""

from __future__ import annotations

from ... import numpy as jnp
from ...numpy._promote import check_arraylike, promote_dtypes_inexact
from .. import special


def _inexact(name, *args):
    """One inexact dtype for all arguments (no broadcasting: these are matrix functions)."""
    check_arraylike(name, *args)
    return promote_dtypes_inexact(*args)


def _is_simplex(x):
    x_sum = jnp.sum(x, axis=0)
    return jnp.all(x > 0, axis=0) & (jnp.abs(x_sum - 1) < 1e-6)


def logpdf(x, alpha):
    x, alpha = _inexact("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x.shape}, alpha.shape={alpha.shape}"
        )
    if x.shape[0] != alpha.shape[0]:
        x = jnp.concatenate([x, 1 - jnp.sum(x, 0, keepdims=True)], axis=0)
    normalize_term = jnp.sum(special.gammaln(alpha)) - special.gammaln(jnp.sum(alpha))
    if x.ndim > 1:
        alpha = jnp.reshape(alpha, alpha.shape + (1,) * (x.ndim - 1))
    log_probs = jnp.sum(special.xlogy(alpha - 1, x), axis=0) - normalize_term
    return jnp.where(_is_simplex(x), log_probs, -jnp.inf)


def pdf(x, alpha):
    return jnp.exp(logpdf(x, alpha))
