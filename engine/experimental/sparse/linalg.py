"""``jax.experimental.sparse.linalg``: ``spsolve`` (a direct solve of a CSR system, a primitive with
JAX's parameters, checks, JVP and transpose rules) and ``lobpcg_standard`` (the top eigenpairs of a
symmetric matrix or linear operator by LOBPCG, as JAX 0.10.2 iterates it).

On a CPU JAX's ``spsolve`` calls scipy's sparse solver; the engine solves the same system densely
(numpy's LU), which gives the same answer for a nonsingular matrix (and NaNs for a singular one,
as scipy's does).
"""

from __future__ import annotations

import functools
import warnings
from typing import Callable

import numpy as np

from ... import ad, api, core, lax
from ... import numpy as jnp
from ...core import Primitive, ShapedArray
from .csr import csr_matvec_p

# --- spsolve ---------------------------------------------------------------------------------------

spsolve_p = Primitive("spsolve")


def spsolve(data, indices, indptr, b, tol=1e-6, reorder=1):
    """Solve ``A x = b`` for the square CSR matrix ``A`` of buffers ``data``, ``indices``, ``indptr``.

    ``tol`` (the singularity threshold of JAX's GPU QR solver) and ``reorder`` (its fill-reducing
    ordering: 0 none, 1 symrcm, 2 symamd, 3 csrmetisnd) are checked and carried, as on JAX's CPU.

    >>> from engine.experimental import sparse
    >>> M = sparse.CSR.fromdense(jnp.array([[2., 0.], [1., 4.]]))
    >>> sparse.linalg.spsolve(M.data, M.indices, M.indptr, jnp.array([2., 9.]))
    Array([1., 2.], dtype=float32)
    """
    return spsolve_p.bind(data, indices, indptr, b, tol=tol, reorder=reorder)


@spsolve_p.def_abstract_eval
def _spsolve_abstract(data, indices, indptr, b, *, tol, reorder):
    if data.dtype != b.dtype:
        raise ValueError(f"data types do not match: {data.dtype=} {b.dtype=}")
    if not (np.issubdtype(indices.dtype, np.integer) and np.issubdtype(indptr.dtype, np.integer)):
        raise ValueError(f"index arrays must be integer typed; got {indices.dtype=} {indptr.dtype=}")
    if not data.ndim == indices.ndim == indptr.ndim == b.ndim == 1:
        raise ValueError(
            f"Arrays must be one-dimensional. Got {data.shape=} {indices.shape=} {indptr.shape=} {b.shape=}"
        )
    if indptr.shape[0] != b.shape[0] + 1 or data.shape != indices.shape:
        raise ValueError(f"Invalid CSR buffer sizes: {data.shape=} {indices.shape=} {indptr.shape=}")
    if reorder not in (0, 1, 2, 3):
        raise ValueError(f"{reorder=} not valid, must be one of [1, 2, 3, 4]")
    float(tol)  # (a traced tol is refused here, as in JAX)
    return ShapedArray(b.shape, b.dtype, b.weak_type)


@spsolve_p.def_impl
def _spsolve_impl(data, indices, indptr, b, *, tol, reorder):
    _spsolve_abstract(*(core.get_aval(x) for x in (data, indices, indptr, b)), tol=tol, reorder=reorder)
    data, indices, indptr, b = (np.asarray(x) for x in (data, indices, indptr, b))
    n = b.shape[0]
    rows = np.repeat(np.arange(n), np.diff(indptr))
    dense = np.zeros((n, n), np.result_type(data.dtype, np.float64))
    np.add.at(dense, (rows, indices), data)  # (repeated entries add up, as in scipy's CSR)
    try:
        x = np.linalg.solve(dense, b)
    except np.linalg.LinAlgError:
        warnings.warn("Matrix is exactly singular", RuntimeWarning, stacklevel=2)
        x = np.full(n, np.nan)
    return x.astype(b.dtype)


def _spsolve_jvp_data(data_dot, data, indices, indptr, b, **params):
    # d(A^-1 b) = -A^-1 dA A^-1 b
    x = spsolve(data, indices, indptr, b, **params)
    n = indptr.shape[0] - 1
    dA_x = csr_matvec_p.bind(data_dot, indices, indptr, x, shape=(n, b.shape[0]), transpose=False)
    return -spsolve(data, indices, indptr, dA_x, **params)


def _spsolve_jvp_b(b_dot, data, indices, indptr, b, **params):
    return spsolve(data, indices, indptr, b_dot, **params)


def _csr_transpose(data, indices, indptr):
    """The CSR buffers of a square CSR matrix's transpose: entries re-sorted by (column, row)."""
    n = indptr.shape[0] - 1
    row = jnp.cumsum(jnp.zeros_like(indices).at[indptr].add(1)) - 1
    row_t, indices_t, data_t = lax.sort((indices, row, data), num_keys=2)
    counts = jnp.bincount(row_t, length=n)
    indptr_t = jnp.zeros_like(indptr).at[1:].set(jnp.cumsum(counts).astype(indptr.dtype))
    return data_t, indices_t, indptr_t


def _spsolve_transpose(ct, data, indices, indptr, b, **params):
    if ad.is_undefined(data):  # (the JVP is linear in b only: data's tangent goes through csr_matvec)
        raise NotImplementedError("spsolve transpose with respect to data")
    data_t, indices_t, indptr_t = _csr_transpose(data, indices, indptr)
    return [None, None, None, spsolve(data_t, indices_t, indptr_t, ad.instantiate_zeros(ct), **params)]


ad.defjvp(spsolve_p, _spsolve_jvp_data, None, None, _spsolve_jvp_b)
ad.transpose_rules[spsolve_p] = _spsolve_transpose


# --- lobpcg_standard -------------------------------------------------------------------------------


def lobpcg_standard(A, X, m: int = 100, tol=None):
    """The ``k`` largest eigenvalues and their eigenvectors of the symmetric ``(n, n)`` matrix ``A``
    (or of the linear operator ``A``, a function of ``(n, j)`` blocks), by LOBPCG from the ``(n, k)``
    starting block ``X`` (needs ``0 < 5 k < n``), in at most ``m`` iterations.

    Returns ``(theta, U, i)``: the eigenvalues (descending), the ``(n, k)`` eigenvectors and the
    number of iterations. An eigenpair has converged when its residual norm is below ``tol * 10 * n
    * (|A u| + theta)`` (``tol`` defaults to the dtype's epsilon); the loop stops when all have.

    >>> from engine.experimental import sparse
    >>> A = jnp.diag(jnp.arange(1., 11.))
    >>> theta, U, i = sparse.linalg.lobpcg_standard(A, jnp.ones((10, 1)))
    >>> jnp.round(theta, 4), i  # (float32 LAPACK: the last bit depends on its build)
    (Array([10.], dtype=float32), Array(13, dtype=int32, weak_type=True))
    """
    if isinstance(A, (np.ndarray, core.Array)) or hasattr(A, "aval"):
        return _lobpcg_matrix(A, X, m, tol)
    return _lobpcg_operator(A, X, m, tol)


def _matmul(a, b):
    return lax.dot(a, b, precision=(lax.Precision.HIGHEST, lax.Precision.HIGHEST))


@functools.partial(api.jit, static_argnames=("m",))
def _lobpcg_matrix(A, X, m, tol):
    return _lobpcg_operator(functools.partial(_matmul, A), X, m, tol)


@functools.partial(api.jit, static_argnames=("A", "m"))
def _lobpcg_operator(A: Callable, X, m, tol):
    n, k = X.shape
    _check_inputs(A, X)
    if tol is None:
        tol = float(jnp.finfo(X.dtype).eps)
    X = _orthonormalize(X)
    P = _complement(X, k)
    AX = A(X)
    theta = jnp.sum(X * AX, axis=0, keepdims=True)
    R = AX - theta * X

    def unconverged(state):
        i, _, _, _, converged, _ = state
        return jnp.logical_and(i < m, converged < k)

    def step(state):
        i, X, P, R, _, _ = state
        # X, P and R stay orthonormal blocks (P's and R's columns may be zero, X's never)
        R = _project_out(jnp.concatenate((X, P), axis=1), R)
        S = jnp.concatenate((X, P, R), axis=1)
        theta, Q = _rayleigh_ritz(A, S)
        # the new eigenvector estimates: the top k Ritz vectors
        B = Q[:, :k]
        B = B / jnp.linalg.norm(B, ord=2, axis=0, keepdims=True)
        X = _matmul(S, B)
        X = X / jnp.linalg.norm(X, ord=2, axis=0, keepdims=True)
        # the new search directions: the rest of the Ritz basis orthogonalized against the top
        # block's rows, mapped through S (orthonormal, so the result is too)
        q, _ = jnp.linalg.qr(Q[:k, k:].T)
        P = _matmul(S, _matmul(Q[:, k:], q))
        p_norm = jnp.linalg.norm(P, ord=2, axis=0, keepdims=True)
        P = P / jnp.where(p_norm == 0, 1.0, p_norm)
        AX = A(X)
        R = AX - theta[jnp.newaxis, :k] * X
        residual = jnp.linalg.norm(R, ord=2, axis=0)
        # converged: the residual within the rounding expected of computing it (a few ulps of
        # |A x| + theta per entry, times n)
        bound = (jnp.linalg.norm(AX, ord=2, axis=0) + theta[:k]) * n * 10
        converged = jnp.sum(residual < tol * bound)
        return i + 1, X, P, R, converged, theta[jnp.newaxis, :k]

    i, X, _, _, _, theta = lax.while_loop(unconverged, step, (0, X, P, R, 0, theta))
    return theta[0, :], X, i


def _check_inputs(A, X):
    n, k = X.shape
    if k == 0:
        raise ValueError(f"must have search dim > 0, got {k}")
    if k * 5 >= n:
        raise ValueError(f"expected search dim * 5 < matrix dim (got {k * 5}, {n})")
    probe = A(jnp.zeros((n, 1), dtype=X.dtype))
    if probe.dtype != X.dtype:
        raise ValueError(f"A, X must have same dtypes (were {probe.dtype}, {X.dtype})")
    if probe.shape != (n, 1):
        raise ValueError(f"A must be ({n}, {n}) matrix A, got output {probe.shape}")


def _eigh_descending(a):
    w, v = jnp.linalg.eigh(a)
    return w[::-1], v[:, ::-1]


def _svqb(X):
    """An orthonormal basis of X's columns by the eigendecomposition of its Gram matrix (SVQB);
    directions of a numerically deficient rank become zero columns."""
    col_norm = jnp.linalg.norm(X, ord=2, axis=0, keepdims=True)
    X = X / jnp.where(col_norm == 0, 1.0, col_norm)
    gram = _matmul(X.T, X)
    w, V = _eigh_descending(gram)
    floor = jnp.finfo(X.dtype).eps * w[0]  # eigenvalues below it: degenerate directions
    scale = jnp.where(floor > 0, jnp.maximum(w, floor), 1.0) ** (-0.5)
    Y = _matmul(X, V * scale[jnp.newaxis, :])
    keep = ((w > floor) * (jnp.diag(gram) > 0.0))[jnp.newaxis, :]
    Y = Y * keep.astype(Y.dtype)
    y_norm = jnp.linalg.norm(Y, ord=2, axis=0, keepdims=True)
    keep = keep * (y_norm > 0.0)
    return Y / jnp.where(keep, y_norm, 1.0)


def _orthonormalize(X):
    for _ in range(2):  # once more for what rounding left
        X = _svqb(X)
    return X


def _project_out(basis, U):
    """U's part orthogonal to the orthonormal (zero columns allowed) ``basis``, orthonormalized;
    columns that may have come back into the basis's span are zeroed."""
    for _ in range(2):
        U = U - _matmul(basis, _matmul(basis.T, U))
        U = _orthonormalize(U)
    for _ in range(2):  # ending on a subtraction keeps [basis, U] orthogonal near convergence
        U = U - _matmul(basis, _matmul(basis.T, U))
    u_norm = jnp.linalg.norm(U, ord=2, axis=0, keepdims=True)
    return U * (u_norm >= 0.99).astype(U.dtype)


def _rayleigh_ritz(A, S):
    """The eigenpairs (descending) of A restricted to the orthonormal block S."""
    return _eigh_descending(_matmul(S.T, A(S)))


def _complement(X, j):
    """``j`` orthonormal columns orthogonal to the orthonormal ``(n, k)`` block X, deterministic: a
    block Householder reflection that maps X to (a rotation of) the first k unit vectors maps the
    next j unit vectors onto them."""
    n, k = X.shape
    top, bottom = X[:k], X[k:]
    u, s, vt = jnp.linalg.svd(top)
    y = jnp.concatenate([top + _matmul(u, vt), bottom], axis=0)
    e = jnp.concatenate([jnp.eye(j, dtype=X.dtype), jnp.zeros((n - k - j, j), dtype=X.dtype)], axis=0)
    w = _matmul(y, vt.T * ((2 * (1 + s)) ** (-1 / 2))[jnp.newaxis, :])
    h = -2 * jnp.linalg.multi_dot([w, w[k:, :].T, e], precision=lax.Precision.HIGHEST)
    return h.at[k:].add(e)
