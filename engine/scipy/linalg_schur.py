"""``jax.scipy.linalg``'s Schur and Householder family: ``schur``, ``rsf2csf``, ``hessenberg``,
``sqrtm``, ``funm``, ``solve_sylvester``, ``qr_multiply`` and ``expm_frechet``, composed
as JAX composes them (on the ``schur``/``hessenberg``/``geqrf``/``ormqr`` primitives, with
``fori_loop``/``scan``/``cond`` for the triangular recurrences, so they stage under ``jit``/``vmap``).

>>> T, Z = schur(jnp.array([[1.0, 2.0], [0.0, 3.0]]))
>>> T
Array([[1., 2.],
       [0., 3.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..lax import linalg as lax_linalg
from ..lax.linalg_eig import complex_dtype
from ..numpy._promote import check_arraylike, promote_args_inexact, promote_dtypes_inexact
from ..numpy._staged import staged_as_jit


def _map_batch(fn, core_ndims, *args):
    """``fn`` on core arrays of ``core_ndims`` trailing axes, vmapped over the broadcast leading axes
    (``jnp.vectorize`` with a signature)."""
    from ..api import vmap

    batch = tuple(np.broadcast_shapes(*(a.shape[: a.ndim - k] for a, k in zip(args, core_ndims))))
    args = [jnp.broadcast_to(a, (*batch, *a.shape[a.ndim - k :])) for a, k in zip(args, core_ndims)]
    for _ in batch:
        fn = vmap(fn)
    return fn(*args)


def _H(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


@staged_as_jit(name="_schur", static_argnames=("output",))
def _schur(a, output):
    if output == "complex":
        a = a.astype(complex_dtype(a.dtype))
    return lax_linalg.schur(a)


def schur(a, output: str = "real"):
    """The Schur decomposition ``a = Z T Z^H``: ``[T, Z]``, ``T`` quasi-upper-triangular (2x2 blocks
    for complex pairs) when ``output='real'``, upper triangular when ``'complex'``."""
    if output not in ("real", "complex"):
        raise ValueError(f"Expected 'output' to be either 'real' or 'complex', got {output=}.")
    check_arraylike("schur", a)
    return _schur(jnp.asarray(a), output)  # (no promotion: integer matrices raise, as in JAX)


@staged_as_jit
def _rsf2csf_2d(T, Z):
    dtype = complex_dtype(jnp.result_type(T, Z))
    T, Z = T.astype(dtype), Z.astype(dtype)
    eps = float(np.finfo(dtype).eps)
    N = T.shape[0]
    if N == 1:
        return T, Z

    def rotate(m, T, Z):
        # The unitary rotation of rows/columns m-1, m that zeroes T[m, m-1] of a 2x2 block.
        mu = jnp.linalg.eigvals(lax.dynamic_slice(T, (m - 1, m - 1), (2, 2))) - T[m, m]
        r = jnp.linalg.norm(jnp.array([mu[0], T[m, m - 1]])).astype(dtype)
        c, s = mu[0] / r, T[m, m - 1] / r
        G = jnp.array([[jnp.conj(c), s], [-s, c]], dtype=dtype)
        rows = lax.dynamic_slice_in_dim(T, m - 1, 2, axis=0)
        right = jnp.arange(N) >= m - 1
        rotated = G @ jnp.where(right, rows, 0)
        T = lax.dynamic_update_slice_in_dim(T, jnp.where(~right, rows, rotated), m - 1, axis=0)
        cols = lax.dynamic_slice_in_dim(T, m - 1, 2, axis=1)
        upper = jnp.arange(N)[:, np.newaxis] < m + 1
        rotated = jnp.where(upper, cols, 0) @ G.conj().T
        T = lax.dynamic_update_slice_in_dim(T, jnp.where(~upper, cols, rotated), m - 1, axis=1)
        Zc = lax.dynamic_slice_in_dim(Z, m - 1, 2, axis=1)
        return T, lax.dynamic_update_slice_in_dim(Z, Zc @ G.conj().T, m - 1, axis=1)

    def step(i, TZ):
        m = N - i
        T, Z = TZ
        T, Z = lax.cond(
            jnp.abs(T[m, m - 1]) > eps * (jnp.abs(T[m - 1, m - 1]) + jnp.abs(T[m, m])),
            rotate,
            lambda m, T, Z: (T, Z),
            m,
            T,
            Z,
        )
        return T.at[m, m - 1].set(0.0), Z

    return lax.fori_loop(1, N, step, (T, Z))


@staged_as_jit(name="rsf2csf", static_argnames=("check_finite",))
def _rsf2csf(T, Z, check_finite=True):
    return _map_batch(_rsf2csf_2d, (2, 2), T, Z)


def rsf2csf(T, Z, check_finite: bool = True):
    """The complex Schur form ``(T, Z)`` (upper triangular) of a real one, each 2x2 block of a
    complex pair rotated to triangular."""
    check_arraylike("rsf2csf", T, Z)
    T, Z = jnp.asarray(T), jnp.asarray(Z)
    if T.ndim < 2 or T.shape[-1] != T.shape[-2]:
        raise ValueError(f"Input 'T' must be a (batched) square matrix. Got {T.shape=}")
    if Z.ndim < 2 or Z.shape[-1] != Z.shape[-2]:
        raise ValueError(f"Input 'Z' must be a (batched) square matrix. Got {Z.shape=}")
    if T.shape[-1] != Z.shape[-1]:
        raise ValueError(f"Input array shapes must match: Z: {Z.shape} vs. T: {T.shape}")
    return _rsf2csf(T, Z)


@staged_as_jit(name="hessenberg", static_argnames=("calc_q", "overwrite_a", "check_finite"))
def _hessenberg(a, calc_q=False, overwrite_a=False, check_finite=True):
    n = a.shape[-1]
    if n == 0:
        return (jnp.zeros_like(a), jnp.zeros_like(a)) if calc_q else jnp.zeros_like(a)
    a_out, taus = lax_linalg.hessenberg(a)
    h = jnp.triu(a_out, -1)
    if not calc_q:
        return h
    q = lax_linalg.householder_product(a_out[..., 1:, :-1], taus)
    batch = a_out.shape[:-2]
    q = jnp.block(
        [
            [jnp.ones((*batch, 1, 1), a_out.dtype), jnp.zeros((*batch, 1, n - 1), a_out.dtype)],
            [jnp.zeros((*batch, n - 1, 1), a_out.dtype), q],
        ]
    )
    return h, q


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Hessenberg form ``H`` of ``a`` (``a = Q H Q^H``, ``H`` zero below its first subdiagonal),
    and ``Q`` with ``calc_q``."""
    check_arraylike("hessenberg", a)
    a = jnp.asarray(a)  # (not promoted: JAX's lax.linalg.hessenberg refuses an integer matrix)
    return _hessenberg(a, calc_q=calc_q, overwrite_a=overwrite_a, check_finite=check_finite)


@staged_as_jit
def _sqrtm_triu(T):
    """The square root of an upper-triangular matrix, column by column (Bjorck & Hammarling 1983)."""
    diag = jnp.sqrt(jnp.diag(T))
    n = diag.size
    U = jnp.diag(diag)

    def entry(l, carry):
        j, U = carry
        i = j - 1 - l
        s = lax.fori_loop(i + 1, j, lambda k, acc: acc + U[i, k] * U[k, j], 0.0)
        return j, U.at[i, j].set(jnp.where(T[i, j] == s, 0.0, (T[i, j] - s) / (diag[i] + diag[j])))

    return lax.fori_loop(0, n, lambda j, U: lax.fori_loop(0, j, entry, (j, U))[1], U)


@staged_as_jit
def _sqrtm(A):
    T, Z = schur(A, output="complex")
    hi = lax.Precision.HIGHEST
    return jnp.matmul(jnp.matmul(Z, _sqrtm_triu(T), precision=hi), jnp.conj(Z.T), precision=hi)


def sqrtm(A, blocksize: int = 1):
    """The principal matrix square root (complex), by the complex Schur form.

    >>> sqrtm(jnp.array([[4.0, 0.0], [0.0, 9.0]]))
    Array([[2.+0.j, 0.+0.j],
           [0.+0.j, 3.+0.j]], dtype=complex64)
    """
    if blocksize > 1:
        raise NotImplementedError("Blocked version is not implemented yet.")
    check_arraylike("sqrtm", A)
    return _sqrtm(jnp.asarray(A))


@staged_as_jit(name="_algorithm_11_1_1")
def _parlett(F, T):
    """Parlett's recurrence (Golub & Van Loan, Algorithm 11.1.1): the strict upper triangle of
    ``f(T)`` from its diagonal, superdiagonal by superdiagonal; also the smallest gap between
    diagonal entries. (Staged as JAX's jit of that name, in its order of operations.)"""
    N = T.shape[0]

    def entry(i, carry):
        p, F, minden = carry
        j = i + p
        s = T[i - 1, j - 1] * (F[j - 1, j - 1] - F[i - 1, i - 1])
        T_row, T_col = T[i - 1], T[:, j - 1]
        F_row, F_col = F[i - 1], F[:, j - 1]
        inner = (jnp.arange(N) >= i) & (jnp.arange(N) < j - 1)
        s = s + (
            jnp.where(inner, T_row, 0) @ jnp.where(inner, F_col, 0)
            - jnp.where(inner, F_row, 0) @ jnp.where(inner, T_col, 0)
        )
        den = T[j - 1, j - 1] - T[i - 1, i - 1]
        s = jnp.where(den != 0, s / den, s)
        return p, F.at[i - 1, j - 1].set(s), jnp.minimum(minden, jnp.abs(den))

    def superdiagonal(p, carry):
        _, F, minden = lax.fori_loop(1, N - p + 1, entry, (p, *carry))
        return F, minden

    return lax.fori_loop(1, N, superdiagonal, (F, jnp.abs(T[0, 0])))


def funm(A, func, disp: bool = True):
    """``func`` applied to the square matrix ``A`` (complex result), by Schur-Parlett: ``func`` maps
    the complex Schur form's diagonal; with ``disp=False`` also an error estimate.

    >>> funm(jnp.array([[1.0, 0.0], [0.0, 2.0]]), jnp.exp)
    Array([[2.7182817+0.j, 0.       +0.j],
           [0.       +0.j, 7.389056 +0.j]], dtype=complex64)
    """
    A = jnp.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("expected square array_like input")
    T, Z = schur(A)
    T, Z = rsf2csf(T, Z)
    F = jnp.diag(func(jnp.diag(T))).astype(T.dtype)
    F, minden = _parlett(F, T)
    F = Z @ F @ Z.conj().T
    if disp:
        return F
    tol = float(np.finfo(np.float32 if F.dtype == np.complex64 else np.float64).eps)
    minden = jnp.where(minden == 0.0, tol, minden)
    err = jnp.where(
        jnp.any(jnp.isinf(F)),
        np.inf,
        jnp.minimum(1, jnp.maximum(tol, (tol / minden) * jnp.linalg.norm(jnp.triu(T, 1), 1))),
    )
    return F, err


def _sylvester_triangular(R, S, F):
    """``R Y + Y S = F`` for upper-triangular ``R``, ``S``: entries from the bottom-right corner back,
    row-major (Bartels-Stewart's back substitution), as one ``scan`` (in JAX's order of operations)."""
    R, S, F = promote_args_inexact("_solve_sylvester_triangular_scan", R, S, F)
    m, n = F.shape
    order = jnp.arange(m * n - 1, -1, -1)
    Y0 = jnp.zeros((m * n,), dtype=F.dtype)

    def solve_entry(Y_flat, idx):
        i, j = idx // n, idx % n
        Y = Y_flat.reshape((m, n))
        rhs = F[i, j]
        below = jnp.sum(jnp.where(jnp.arange(m) > i, R[i, :] * Y[:, j], 0.0))
        right = jnp.sum(jnp.where(jnp.arange(n) > j, Y[i, :] * S[:, j], 0.0))
        rhs -= below + right
        val = rhs / (R[i, i] + S[j, j])
        return Y_flat.at[i * n + j].set(val), None

    Y_flat, _ = lax.scan(solve_entry, Y0, order)
    return Y_flat.reshape((m, n))


@staged_as_jit(static_argnames=("method",))
def _solve_sylvester_2d(A, B, C, *, method, tol):
    m, n = C.shape[-2:]
    if method == "schur":
        R, U = schur(A, output="complex")
        S, V = schur(B.conj().T, output="complex")
        F = U.conj().T @ C.astype(R.dtype) @ V
        Y = _sylvester_triangular(R, S.conj().T, F)
        X = U @ Y @ V.conj().T
    elif method == "eigen":
        from .linalg import solve

        RA, UA = jnp.linalg.eig(A)
        RB, UB = jnp.linalg.eig(B)
        F = solve(UA, C.astype(RA.dtype) @ UB)
        Y = F / (RA[:, None] + RB[None, :])
        X = UA[:m, :m] @ Y[:m, :n] @ jnp.linalg.inv(UB)[:n, :n]
    else:
        raise ValueError(
            f'Unrecognized method {method}. The two valid methods are either "schur" or "eigen".'
        )
    if not jnp.iscomplexobj(C):
        X = X.real
    near_singular = jnp.any(jnp.abs(jnp.linalg.eigvals(A)[:, None] + jnp.linalg.eigvals(B)[None, :]) < tol)
    return lax.cond(near_singular, lambda: jnp.zeros_like(X) * np.nan, lambda: X)


@staged_as_jit(name="solve_sylvester", static_argnames=("method",))
def _solve_sylvester(A, B, C, *, method="schur", tol=1e-8):
    A, B, C = promote_dtypes_inexact(A, B, C)
    m, n = C.shape[-2:]
    if A.shape[-2:] != (m, m) or B.shape[-2:] != (n, n):
        raise ValueError(
            f"Incompatible shapes for Sylvester equation:\nA: {A.shape}\nB: {B.shape}\nC: {C.shape}"
        )
    return _map_batch(
        lambda a, b, c: _solve_sylvester_2d(a, b, c, method=method, tol=tol), (2, 2, 2), A, B, C
    )


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """``X`` with ``A X + X B = C``, by Bartels-Stewart on complex Schur forms (``'schur'``) or by
    eigendecompositions (``'eigen'``); NaNs when an eigenvalue of ``A`` plus one of ``B`` is within
    ``tol`` of zero.

    >>> solve_sylvester(jnp.eye(2), jnp.eye(2), 2 * jnp.eye(2))
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    check_arraylike("solve_sylvester", A, B, C)
    # (a tol left at its default stays a constant of JAX's jit, not an argument)
    kwargs = {} if tol == 1e-8 and type(tol) is float else {"tol": tol}
    return _solve_sylvester(jnp.asarray(A), jnp.asarray(B), jnp.asarray(C), method=method, **kwargs)


def qr_multiply(
    a,
    c,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a=False,
    overwrite_c=False,
):
    """``(Q @ c, R)`` (``mode='left'``) or ``(c @ Q, R)`` (``'right'``) for ``a = Q R``, applying
    ``geqrf``'s reflectors to ``c`` without forming ``Q`` (``conj(Q)`` when ``conjugate``)."""
    check_arraylike("qr_multiply", a, c)
    a, c = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}")
    if pivoting:
        raise NotImplementedError(
            "qr_multiply(pivoting=True) needs column-pivoted QR (LAPACK's geqp3), which the engine "
            "does not have; use pivoting=False."
        )
    onedim = c.ndim == 1
    if onedim:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(
            f"Array shapes are not compatible for Q @ c operation: a has shape {tuple(a.shape)} so Q "
            f"has {k} columns, but c has {c.shape[-2]} rows (expected {k})."
        )
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(
            f"Array shapes are not compatible for c @ Q operation: a has shape {tuple(a.shape)} so Q "
            f"has {m} rows, but c has {c.shape[-1]} columns (expected {m})."
        )
    batch = tuple(np.broadcast_shapes(a.shape[:-2], c.shape[:-2]))
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    c = jnp.broadcast_to(c, batch + c.shape[-2:])
    r, taus = lax_linalg.geqrf(a)
    if m > n and mode == "left":
        c = jnp.concatenate([c, jnp.zeros((*c.shape[:-2], m - k, c.shape[-1]), c.dtype)], axis=-2)
    if conjugate:  # conj(Q) c = (c^T Q^H)^T: transposing swaps the side
        c = jnp.swapaxes(c, -1, -2)
    cQ = lax_linalg.ormqr(r, taus, c, left=(mode == "left") != conjugate, transpose=conjugate)
    if conjugate:
        cQ = jnp.swapaxes(cQ, -1, -2)
    if mode == "right":
        cQ = cQ[..., :k]
    if onedim:
        cQ = cQ.ravel()
    return cQ, jnp.triu(r[..., :k, :])


@staged_as_jit(name="expm_frechet", static_argnames=("method", "compute_expm"))
def _expm_frechet(A, E, method=None, compute_expm=True):
    from ..api import jvp
    from .linalg import expm

    expm_A, frechet = jvp(expm, (A,), (E,))
    return (expm_A, frechet) if compute_expm else frechet


def expm_frechet(A, E, *, method=None, compute_expm: bool = True):
    """The Frechet derivative of ``expm`` at ``A`` in the direction ``E`` (with ``expm(A)`` first
    when ``compute_expm``): ``expm``'s JVP."""
    A, E = jnp.asarray(A), jnp.asarray(E)
    if A.ndim < 2 or A.shape[-2] != A.shape[-1]:
        raise ValueError(f"expected A to be a (batched) square matrix, got A.shape={A.shape}")
    if E.ndim < 2 or E.shape[-2] != E.shape[-1]:
        raise ValueError(f"expected E to be a (batched) square matrix, got E.shape={E.shape}")
    if A.shape != E.shape:
        raise ValueError(f"expected A and E to be the same shape, got A.shape={A.shape} E.shape={E.shape}")
    return _expm_frechet(A, E, method=method, compute_expm=compute_expm)
