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
from ..numpy._staged import staged_as_jit


def _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, x):
    """How many eigenvalues lie below each ``x``: negative pivots of the LDL^T of ``T - x I``. As
    JAX stages it: the first (n - 1) % 16 steps unrolled, then a loop of 16 unrolled steps."""
    n = alpha.shape[0]
    zeros = jnp.zeros(x.shape, dtype=np.int32)
    ones = jnp.ones(x.shape, dtype=np.int32)

    def step(i, q, count):
        q = alpha[i] - beta_sq[i - 1] / q - x
        count = jnp.where(q <= pivmin, count + 1, count)
        q = jnp.where(q <= pivmin, jnp.minimum(q, -pivmin), q)
        return q, count

    q = alpha[0] - x
    count = jnp.where(q < 0, ones, zeros)
    q = jnp.where(alpha[0] == x, alpha0_perturbation, q)
    blocksize = 16

    def steps(unrolled):
        def run(carry):
            start, q, count = carry
            for j in range(unrolled):
                q, count = step(start + j, q, count)
            return start + unrolled, q, count

        return run

    i, q, count = steps((n - 1) % blocksize)((1, q, count))
    return lax.while_loop(lambda c: jnp.less(c[0], n), steps(blocksize), (i, q, count))[2]


def _bisect(alpha, beta_abs, beta_sq, select, select_range, tol):
    """The eigenvalues (those ``select`` / ``select_range`` pick) by parallel bisection from the
    widened Gershgorin interval, in JAX's order of operations."""
    n = alpha.shape[0]
    row_sums = jnp.concatenate([beta_abs[:1], beta_abs[:-1] + beta_abs[1:], beta_abs[-1:]], axis=0)
    lam_max = jnp.amax(alpha + row_sums)
    lam_min = jnp.amin(alpha - row_sums)
    t_norm = jnp.maximum(jnp.abs(lam_min), jnp.abs(lam_max))
    finfo = np.finfo(alpha.dtype)
    one = np.ones([], dtype=alpha.dtype)
    safemin = np.maximum(one / finfo.max, (one + finfo.eps) * finfo.tiny)
    pivmin = safemin * jnp.maximum(1, jnp.amax(beta_sq))
    alpha0_perturbation = jnp.square(finfo.eps * beta_abs[0])
    abs_tol = finfo.eps * t_norm
    if tol is not None:
        abs_tol = jnp.maximum(tol, abs_tol)
    max_it = finfo.nmant + 1
    if select == "a":
        target_counts = jnp.arange(n, dtype=np.int32)
    elif select == "i":
        if select_range is None:
            raise ValueError("for select='i', select_range must be specified.")
        if select_range[0] > select_range[1]:
            raise ValueError("Got empty index range in select_range.")
        target_counts = jnp.arange(select_range[0], select_range[1] + 1, dtype=np.int32)
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    fudge = 2.1  # (the Gershgorin interval widened a little)
    slack = jnp.array(n, alpha.dtype) * fudge * finfo.eps * t_norm
    lower = lam_min - slack - 2 * fudge * pivmin
    upper = lam_max + slack + fudge * pivmin
    shape = np.shape(target_counts)
    lower = jnp.broadcast_to(lower, shape=shape)
    upper = jnp.broadcast_to(upper, shape=shape)
    mid = 0.5 * (upper + lower)
    pivmin = jnp.broadcast_to(pivmin, shape)
    alpha0_perturbation = jnp.broadcast_to(alpha0_perturbation, shape)

    def unfinished(carry):
        i, lower, _, upper = carry
        return jnp.logical_and(jnp.less(i, max_it), jnp.less(abs_tol, jnp.amax(upper - lower)))

    def halve(carry):
        i, lower, mid, upper = carry
        counts = _sturm_counts(alpha, beta_sq, pivmin, alpha0_perturbation, mid)
        lower = jnp.where(counts <= target_counts, mid, lower)
        upper = jnp.where(counts > target_counts, mid, upper)
        mid = 0.5 * (lower + upper)
        return i + 1, lower, mid, upper

    return lax.while_loop(unfinished, halve, (0, lower, mid, upper))[2]


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
    eigenvalues with indices in ``select_range`` (JAX's jit ``eigh_tridiagonal``).

    >>> eigh_tridiagonal(jnp.array([1.0, 2.0, 3.0, 4.0]), jnp.array([1.0, 1.0, 1.0]), eigvals_only=True)
    Array([0.2547188, 1.8227171, 3.1772828, 4.745281 ], dtype=float32)
    """
    if select_range is not None:
        select_range = tuple(select_range)
    return _eigh_tridiagonal(
        d, e, eigvals_only=eigvals_only, select=select, select_range=select_range, tol=tol, key=key
    )


@staged_as_jit(name="eigh_tridiagonal", static_argnames=("eigvals_only", "select", "select_range"))
def _eigh_tridiagonal(d, e, *, eigvals_only, select, select_range, tol, key):
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
        alpha = jnp.real(alpha)
        beta_sq = jnp.real(beta * jnp.conj(beta))
        beta_abs = jnp.sqrt(beta_sq)
    else:
        beta_abs, beta_sq = jnp.abs(beta), jnp.square(beta)
    eigvals = _bisect(alpha, beta_abs, beta_sq, select, select_range, tol)
    if eigvals_only:
        return eigvals
    cols = np.arange(n) if select == "a" else np.arange(select_range[0], select_range[1] + 1)
    return eigvals, _eigenvectors(alpha, beta, eigvals, cols, key)
