"""The multivariate normal distribution."""

from __future__ import annotations

import numpy as np

from ... import numpy as jnp
from ...numpy._promote import check_arraylike, promote_dtypes_inexact
from ...lax import linalg as lax_linalg
from .. import linalg


def _inexact(name, *args):
    """One inexact dtype for all arguments (no broadcasting: these are matrix functions)."""
    check_arraylike(name, *args)
    return promote_dtypes_inexact(*args)


def logpdf(x, mean, cov, allow_singular=None):
    """log density of N(mean, cov) at ``x`` (trailing axis: the dimension; leading axes batch)."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = _inexact("multivariate_normal.logpdf", x, mean, cov)
    if not mean.shape:
        return -1 / 2 * jnp.square(x - mean) / cov - 1 / 2 * (jnp.log(2 * np.pi) + jnp.log(cov))
    n = mean.shape[-1]
    if not np.shape(cov):
        y = x - mean
        return -1 / 2 * jnp.einsum("...i,...i->...", y, y) / cov - n / 2 * (jnp.log(2 * np.pi) + jnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    L = lax_linalg.cholesky(cov)  # symmetrizes cov, as JAX does
    diff = x - mean
    batch = np.broadcast_shapes(diff.shape[:-1], L.shape[:-2])
    diff = jnp.broadcast_to(diff, (*batch, n))
    L_b = jnp.broadcast_to(L, (*batch, n, n))
    y = linalg.solve_triangular(L_b, diff[..., None], lower=True)[..., 0]
    half_log_det = jnp.sum(jnp.log(jnp.diagonal(L, axis1=-1, axis2=-2)), axis=-1)
    return -1 / 2 * jnp.einsum("...i,...i->...", y, y) - n / 2 * jnp.log(2 * np.pi) - half_log_det


def pdf(x, mean, cov):
    return jnp.exp(logpdf(x, mean, cov))
