"""The multivariate normal distribution."""

from __future__ import annotations

import functools

import numpy as np

from ... import numpy as jnp
from ...numpy._promote import check_arraylike, promote_dtypes_inexact
from ...lax import linalg as lax_linalg


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
    # y L^T = x - mean (L y = x - mean), vectorized over the batch axes as JAX solves it
    solve = functools.partial(lax_linalg.triangular_solve, lower=True, transpose_a=True)
    y = jnp.vectorize(solve, signature="(n,n),(n)->(n)")(L, x - mean)
    return (
        -1 / 2 * jnp.einsum("...i,...i->...", y, y)
        - n / 2 * jnp.log(2 * np.pi)
        - jnp.log(L.diagonal(axis1=-1, axis2=-2)).sum(-1)  # log det(cov) / 2
    )


def pdf(x, mean, cov):
    return jnp.exp(logpdf(x, mean, cov))
