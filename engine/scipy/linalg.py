"""``jax.scipy.linalg``: factorizations and solves with scipy's signatures.

>>> c, low = cho_factor(jnp.array([[4.0, 2.0], [2.0, 3.0]]))
>>> cho_solve((c, low), jnp.array([2.0, 1.0]))
Array([0.5, 0. ], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..lax import linalg as lax_linalg
from ..numpy._promote import check_arraylike, promote_dtypes_inexact
from ..numpy._staged import staged_as_jit
from ..numpy import linalg as _np_linalg
from ..numpy.linalg import pinv  # noqa: F401  (the same function as numpy's)
from .linalg_expm import expm  # noqa: F401


# (``overwrite_a`` and ``check_finite`` are scipy's keywords: accepted and unused, as in JAX, which
# never overwrites its input and does not check it for infinities or NaNs)
def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """The determinant of ``a`` (``jnp.linalg.det``)."""
    return _np_linalg.det(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    """The inverse of ``a`` (``jnp.linalg.inv``)."""
    return _np_linalg.inv(a)


def _inexact(name, *args):
    """One inexact dtype for all arguments (no broadcasting: these are matrix functions)."""
    check_arraylike(name, *args)
    return promote_dtypes_inexact(*args)


def _matrix_rhs(b):
    """``b`` with a trailing column axis, and whether it was a vector."""
    return (b[..., None], True) if b.ndim == 1 else (b, False)


@staged_as_jit(static_argnames=("lower",))
def _cholesky(a, lower: bool):
    (a,) = _inexact("cholesky", a)
    L = lax_linalg.cholesky(a if lower else jnp.conj(jnp.swapaxes(a, -1, -2)), symmetrize_input=False)
    return L if lower else jnp.conj(jnp.swapaxes(L, -1, -2))


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """The Cholesky factor: upper (``a = U^H U``) unless ``lower`` (a jit named ``_cholesky``, as
    JAX's)."""
    return _cholesky(a, lower)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(c, lower)`` for ``cho_solve``."""
    return cholesky(a, lower=lower), lower


def _rhs_signature(name, a, b):
    """The gufunc signature JAX solves ``b`` with: a vector, a stack of vectors (deprecated by JAX,
    with a FutureWarning) or a stack of matrices."""
    if b.ndim == 1:
        return "(n,n),(n)->(n)"
    if a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]:
        import warnings

        warnings.warn(
            f"jax.scipy.linalg.{name}: a b of ndim > 1 matching a's batch is solved as a batch of "
            f"vectors, which is deprecated (it will become a batched matrix solve); pass b[..., None] "
            f"and squeeze the result's last axis instead.",
            category=FutureWarning,
            stacklevel=4,
        )
        return "(n,n),(n)->(n)"
    return "(n,n),(n,k)->(n,k)"


def _solve_with(signature, **params):
    return jnp.vectorize(
        functools.partial(lax_linalg.triangular_solve, left_side=True, **params), signature=signature
    )


@staged_as_jit(static_argnames=("lower",))
def _cho_solve(c, b, lower: bool):
    c, b = _inexact("cho_solve", c, b)
    signature = _rhs_signature("cho_solve", c, b)
    # a = L L^H: solve L y = b, then L^H x = y (L = c^H when c is upper)
    y = _solve_with(signature, lower=lower, transpose_a=not lower, conjugate_a=not lower)(c, b)
    return _solve_with(signature, lower=lower, transpose_a=lower, conjugate_a=lower)(c, y)


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """Solve ``a x = b`` given ``cho_factor(a)`` (a jit named ``_cho_solve``, as JAX's)."""
    c, lower = c_and_lower
    return _cho_solve(c, b, lower)


@staged_as_jit(static_argnames=("trans", "lower", "unit_diagonal"))
def _solve_triangular(a, b, trans, lower: bool, unit_diagonal: bool):
    if trans in (0, "N"):
        transpose_a, conjugate_a = False, False
    elif trans in (1, "T"):
        transpose_a, conjugate_a = True, False
    elif trans in (2, "C"):
        transpose_a, conjugate_a = True, True
    else:
        raise ValueError(f"Invalid 'trans' value {trans}")
    a, b = _inexact("solve_triangular", a, b)
    signature = _rhs_signature("solve_triangular", a, b)
    return _solve_with(
        signature, lower=lower, transpose_a=transpose_a, conjugate_a=conjugate_a, unit_diagonal=unit_diagonal
    )(a, b)


def solve_triangular(
    a,
    b,
    trans=0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug=None,
    check_finite: bool = True,
):
    """Solve ``op(a) x = b`` for triangular ``a``; ``trans`` is 0/'N', 1/'T' or 2/'C' (a jit named
    ``_solve_triangular``, as JAX's)."""
    return _solve_triangular(a, b, trans, lower, unit_diagonal)


@staged_as_jit(static_argnames=("overwrite_a", "check_finite"))
def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """``(lu, piv)``: packed LU factors and LAPACK's pivot indices (a ``jit`` named ``lu_factor``,
    as JAX's)."""
    (a,) = _inexact("lu_factor", a)
    lu_, pivots, _ = lax_linalg.lu(a)
    return lu_, pivots


@staged_as_jit(static_argnames=("trans", "overwrite_b", "check_finite"))
def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True):
    """Solve ``a x = b`` (``trans=0``), ``a^T x = b`` (1) or ``a^H x = b`` (2) given
    ``lu_factor(a)``: the pivots made a permutation, then JAX's ``lax.linalg.lu_solve`` per matrix."""
    from ..numpy.linalg import _lu_solve_staged

    lu_, pivots = lu_and_piv
    lu_, b = promote_dtypes_inexact(jnp.asarray(lu_), jnp.asarray(b))
    m = lu_.shape[-2]
    perm = lax_linalg.lu_pivots_to_permutation(pivots, m)
    vector = b.ndim == 1 or (lu_.ndim == b.ndim + 1 and lu_.shape[-1] == b.shape[-1])
    signature = "(n,n),(n),(n)->(n)" if vector else "(n,n),(n),(n,k)->(n,k)"
    solve = functools.partial(_lu_solve_staged, trans=trans)
    return jnp.vectorize(solve, signature=signature)(lu_, perm, b)


@staged_as_jit(static_argnames=("permute_l", "overwrite_a", "check_finite"))
def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(p, l, u)`` with ``a = p @ l @ u`` (or ``(p @ l, u)`` when ``permute_l``): a jit ``lu``
    calling the jit ``_lu``, as JAX's."""
    return _lu(a, permute_l)


@staged_as_jit(static_argnames=("permute_l",))
def _lu(a, permute_l: bool):
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    lu_, _, perm = lax_linalg.lu(a)
    m, n = a.shape  # (a matrix only, as JAX's: a batch of them raises ValueError here; vmap maps it)
    # p[i, j] = (perm[j] == i), as JAX builds it (compared, copied into an array, converted)
    p = jnp.real(jnp.array(perm[..., None, :] == jnp.arange(m, dtype=perm.dtype)[:, None], dtype=a.dtype))
    k = min(m, n)
    l_ = jnp.tril(lu_, -1)[..., :, :k] + jnp.eye(m, k, dtype=a.dtype)
    u = jnp.triu(lu_)[..., :k, :]
    return (jnp.matmul(p, l_, precision=lax.Precision.HIGHEST), u) if permute_l else (p, l_, u)


def solve(
    a,
    b,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
):
    """Solve ``a x = b``; ``assume_a='pos'`` uses the Cholesky factorization (a jit named
    ``_solve``, as JAX's)."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"Expected assume_a to be one of ['gen', 'sym', 'her', 'pos']; got {assume_a!r}")
    return _solve(a, b, assume_a, lower)


@staged_as_jit(static_argnames=("assume_a", "lower"))
def _solve(a, b, assume_a, lower):
    if assume_a != "pos":
        return jnp.linalg.solve(a, b)
    from ..api import vmap
    from ..lax.solves import custom_linear_solve
    from ..numpy.linalg import _broadcasted_matvec

    a, b = promote_dtypes_inexact(jnp.asarray(a), jnp.asarray(b))
    if not (
        a.ndim >= 2 and b.ndim in (a.ndim, a.ndim - 1) and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]
    ):
        raise ValueError(
            "The arguments to solve must have shapes a=[..., m, m] and "
            f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}"
        )
    # the factors are reused by the derivatives' solves (custom_linear_solve), as in JAX
    factors = cho_factor(lax.stop_gradient(a), lower=lower)

    def custom_solve(b):
        return custom_linear_solve(
            lambda x: _broadcasted_matvec(a, x), b, solve=lambda _, x: cho_solve(factors, x), symmetric=True
        )

    if a.ndim == b.ndim + 1:
        return custom_solve(b)
    return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


def eigh(
    a,
    b=None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals=None,
    type: int = 1,
    check_finite: bool = True,
):
    """Eigenvalues ``w`` (and eigenvectors ``v``) of a symmetric matrix: ``(w, v)`` (the jit
    ``_eigh``, as JAX's)."""
    return _eigh(a, b, lower, eigvals_only, eigvals, type)


@staged_as_jit(static_argnames=("lower", "eigvals_only", "eigvals", "type"))
def _eigh(a, b, lower, eigvals_only, eigvals, type):  # noqa: A002
    if b is not None:
        raise NotImplementedError("Only the b=None case of eigh is implemented")
    if type != 1:
        raise NotImplementedError("Only the type=1 case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("Only the eigvals=None case of eigh is implemented.")
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def qr(
    a,
    overwrite_a: bool = False,
    lwork=None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
):
    """``(q, r)`` with scipy's modes: 'full', 'economic' or 'r' (just ``(r,)``); through the jit
    ``_qr``, as JAX's."""
    return _qr(a, mode, pivoting)


@staged_as_jit(static_argnames=("mode", "pivoting"))
def _qr(a, mode, pivoting):
    if mode in ("full", "r"):
        full_matrices = True
    elif mode == "economic":
        full_matrices = False
    else:
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    q, r, *p = lax_linalg.qr(a, pivoting=pivoting, full_matrices=full_matrices)
    if mode == "r":
        return (r, *p)
    return (q, r, *p)


@staged_as_jit
def block_diag(*arrs):
    """A block-diagonal matrix from 2-d (or smaller) blocks: each padded with zero columns, the
    rows concatenated (JAX's jit)."""
    from ..numpy._promote import promote_dtypes

    if not arrs:
        arrs = (jnp.zeros((1, 0)),)
    arrs = tuple(promote_dtypes(*arrs))
    bad = [i for i, a in enumerate(arrs) if np.ndim(a) > 2]
    if bad:
        raise ValueError(
            "Arguments to jax.scipy.linalg.block_diag must have at most 2 dimensions, "
            f"got {arrs[bad[0]]} at argument {bad[0]}."
        )
    blocks = [jnp.atleast_2d(a) for a in arrs]
    zero = np.zeros((), blocks[0].dtype)
    total = sum(a.shape[1] for a in blocks)
    padded, left = [], 0
    for a in blocks:
        padded.append(lax.pad(a, zero, ((0, 0, 0), (left, total - a.shape[1] - left, 0))))
        left += a.shape[1]
    return jnp.concatenate(padded, axis=0)


from .linalg_matrices import (  # noqa: E402,F401  (jax.scipy.linalg's special matrices)
    circulant,
    companion,
    convolution_matrix,
    dft,
    fiedler,
    fiedler_companion,
    hadamard,
    hankel,
    helmert,
    hilbert,
    invhilbert,
    invpascal,
    leslie,
    pascal,
    toeplitz,
)
from .linalg_schur import (  # noqa: E402,F401  (the Schur and Householder family)
    expm_frechet,
    funm,
    hessenberg,
    qr_multiply,
    rsf2csf,
    schur,
    solve_sylvester,
    sqrtm,
)
from .linalg_polar import polar  # noqa: E402,F401
from .linalg_tridiagonal import eigh_tridiagonal  # noqa: E402,F401


def svd(
    a,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a=False,
    check_finite=True,
    lapack_driver="gesdd",
):
    """``(U, S, Vh)`` (a plain tuple), or ``S`` alone without ``compute_uv``: JAX's jitted ``_svd``."""
    del overwrite_a, check_finite, lapack_driver  # (no effect in JAX either)
    return _svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


@staged_as_jit(static_argnames=("full_matrices", "compute_uv"))
def _svd(a, *, full_matrices, compute_uv):
    (a,) = promote_dtypes_inexact(jnp.asarray(a))
    return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
