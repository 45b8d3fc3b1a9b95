"""``jax.scipy.linalg.eigh_tridiagonal``: eigenvalues of a symmetric (Hermitian) tridiagonal matrix by
parallel bisection on Sturm counts, as JAX computes them (its Gershgorin starting interval, pivot
floor and stopping rule, so the values are JAX's).

Eigenvectors: JAX runs inverse iteration from random starts (``key``, default ``random.key(42)``)
with a tridiagonal solver the engine does not have. The engine takes the eigenvectors of the dense
matrix (``eigh``) and gives each the sign that the same inverse iteration (dense solves, JAX's start
vectors and stopping rule) ends with, so for distinct eigenvalues they are JAX's; for clustered
eigenvalues the basis of the cluster's subspace may differ.
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """How many eigenvalues lie below each ``x``: negative pivots of the LDL^T of ``T - x I``."""
    n = alpha.shape[0]
    q = alpha[0] - x
    count = jnp.where(q < 0, 1, 0).astype(np.int32)
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)

    def step(i, carry):
        q, count = carry
        q = alpha[i] - beta_sq[i - 1] / q - x
        count = jnp.where(q <= pivmin, count + 1, count)
        return jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q), count

    return lax.fori_loop(1, n, step, (q, count))[1]


def _bisect(alpha, beta_abs, beta_sq, target_counts, tol):
    finfo = np.finfo(alpha.dtype)
    n = alpha.shape[0]
    row_sums = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], axis=0)
    lam_max = jnp.max(alpha + row_sums)  # Gershgorin bounds on the spectrum
    lam_min = jnp.min(alpha - row_sums)
    t_norm = jnp.maximum(jnp.abs(lam_min), jnp.abs(lam_max))
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.max(beta_sq))
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    slack = jnp.array(n, alpha.dtype) * 2.1 * finfo.eps * t_norm
    shape = np.shape(target_counts)
    lower = jnp.broadcast_to(lam_min - slack - 2 * 2.1 * pivmin, shape)
    upper = jnp.broadcast_to(lam_max + slack + 2.1 * pivmin, shape)
    pivmin = jnp.broadcast_to(pivmin, shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

    def halve(carry):
        i, lower, mid, upper = carry
        counts = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = jnp.where(counts <= target_counts, mid, lower)
        upper = jnp.where(counts > target_counts, mid, upper)
        return i + 1, lower, 0.5 * (lower + upper), upper

    def unfinished(carry):
        i, lower, _, upper = carry
        return (i < finfo.nmant + 1) & (abs_tol < jnp.max(upper - lower))

    return lax.while_loop(unfinished, halve, (0, lower, 0.5 * (upper + lower), upper))[2]


def _eigenvectors(alpha, beta, eigvals, select_cols, key):
    from .. import random

    n, k = alpha.shape[0], eigvals.shape[0]
    dtype = jnp.result_type(alpha, beta)
    dense = jnp.diag(alpha.astype(dtype)) + jnp.diag(beta, 1) + jnp.diag(jnp.conj(beta), -1)
    _, vectors = jnp.linalg.eigh(dense)
    vectors = vectors[:, select_cols]  # (n, k), ascending as eigvals
    real_dtype = np.finfo(dtype).dtype
    v = random.normal(key, (k, n), dtype=real_dtype).astype(dtype)
    v = v / jnp.linalg.norm(v, axis=-1, keepdims=True).astype(dtype)
    shifted = dense[None] - eigvals[:, None, None].astype(dtype) * jnp.eye(n, dtype=dtype)

    def iterate(state):
        i, v, norm, _ = state
        w = jnp.linalg.solve(shifted, v[..., None])[..., 0]
        new_norm = jnp.linalg.norm(w, axis=-1)
        return i + 1, w / new_norm[:, None].astype(dtype), new_norm, norm

    def growing(state):  # LAPACK's stein: at most 5 steps, while a norm still grows by 10%
        i, _, norm, old = state
        return (i < 5) & jnp.any(norm >= 1.1 * old)

    ones, zeros = jnp.ones(k, eigvals.dtype), jnp.zeros(k, eigvals.dtype)
    _, v, _, _ = lax.while_loop(growing, iterate, (0, v, ones, zeros))
    overlap = jnp.sum(jnp.conj(vectors.T) * v, axis=-1)
    sign = jnp.where(jnp.real(overlap) < 0, -1, 1).astype(dtype)
    return vectors * sign[None, :]


def eigh_tridiagonal(
    d, e, *, eigvals_only: bool = False, select: str = "a", select_range=None, tol=None, key=None
):
    """Eigenvalues (ascending), and unless ``eigvals_only`` eigenvectors (columns), of the symmetric
    tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``; ``select='i'`` takes the
    eigenvalues with indices in ``select_range``.

    >>> eigh_tridiagonal(jnp.array([1.0, 2.0, 3.0, 4.0]), jnp.array([1.0, 1.0, 1.0]), eigvals_only=True)
    Array([0.2547188, 1.8227171, 3.1772828, 4.745281 ], dtype=float32)
    """
    from .. import random

    if not eigvals_only and key is None:
        key = random.key(42)
    alpha, beta = jnp.asarray(d), jnp.asarray(e)
    if alpha.dtype != beta.dtype:
        raise TypeError(
            f"diagonal and off-diagonal values must have same dtype, got {alpha.dtype} and {beta.dtype}"
        )
    if alpha.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise TypeError(
            "Only float32 and float64 inputs are supported as inputs to jax.scipy.linalg.eigh_tridiagonal, "
            f"got {alpha.dtype} and {beta.dtype}"
        )
    n = alpha.shape[0]
    if n <= 1:
        return jnp.real(alpha) if eigvals_only else (jnp.real(alpha), jnp.eye(n, dtype=alpha.dtype))
    if jnp.iscomplexobj(alpha):
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)
    if select == "a":
        target_counts = jnp.arange(n, dtype=np.int32)
        cols = np.arange(n)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        target_counts = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
        cols = np.arange(select_range[0], select_range[1] + 1)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    eigvals = _bisect(jnp.real(alpha), beta_abs, beta_sq, target_counts, tol)
    if eigvals_only:
        return eigvals
    return eigvals, _eigenvectors(jnp.real(alpha), beta, eigvals, cols, key)
