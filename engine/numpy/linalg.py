"""``jnp.linalg``: norms and the products that live here in the array API."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import lax
from ..core import Array
from ..lax import linalg as lax_linalg
from ..lax.api import _const_like
from ._contract import matmul, outer, tensordot, vecdot  # noqa: F401
from ._diagonal import diagonal  # noqa: F401
from ._diagonal import trace as _trace
from ._promote import as_operand, canonicalize_axis, check_arraylike, promote_dtypes_inexact
from ._shape import matrix_transpose  # noqa: F401
from ._staged import staged_as_jit


def _abs(x):
    return lax.abs(x)


def _abs_squared(x):
    """|x|**2, real for complex x (x * x would be the complex square)."""
    if x.dtype.kind == "c":
        return lax.add(lax.integer_pow(lax.real(x), 2), lax.integer_pow(lax.imag(x), 2))
    return lax.mul(x, x)


def _vector_norm(x, axis, ord, keepdims):
    from ._reductions import max, min, sum

    a = _abs(x)
    if ord is None or ord == 2:
        return lax.sqrt(sum(_abs_squared(x), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return sum(
            lax.convert_element_type(lax.ne(x, lax.full_like(x, 0)), a.dtype), axis=axis, keepdims=keepdims
        )
    if ord == 1:
        return sum(a, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    p = lax.full((), ord, a.dtype)
    from ._ufuncs import power

    s = sum(power(a, p), axis=axis, keepdims=keepdims)
    return power(s, lax.div(lax.full((), 1, a.dtype), p))


@staged_as_jit(static_argnames=("ord", "axis", "keepdims"))
def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Vector or matrix norm: ``ord`` in None/2/1/inf/-inf/0/p for vectors, None/'fro'/1/-1/inf/-inf
    (and 2/-2/'nuc' on concrete inputs) for matrices.

    >>> jnp.linalg.norm(jnp.array([3.0, 4.0]))
    Array(5., dtype=float32)
    """
    check_arraylike("jnp.linalg.norm", x)
    (x,) = promote_dtypes_inexact(as_operand(x))
    if axis is None:
        if ord is None:
            from ._reductions import sum

            out = lax.sqrt(sum(_abs_squared(x)))
            return lax.reshape(out, (1,) * x.ndim) if keepdims else out
        if x.ndim == 1:
            axis = (0,)
        elif x.ndim == 2:
            axis = (0, 1)
        else:
            raise ValueError("Improper number of dimensions to norm: pass axis for ord with ndim > 2.")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(canonicalize_axis(a, x.ndim) for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, axes, ord, keepdims)
    if len(axes) != 2:
        raise ValueError(f"Improper number of axes for norm: {axis}")
    return _matrix_norm(x, axes, ord, keepdims)


def _matrix_norm(x, axes, ord, keepdims):
    from ._reductions import max, min, sum

    r, c = axes
    if ord is None or ord == "fro":
        return lax.sqrt(sum(_abs_squared(x), axis=axes, keepdims=keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        inner, outer_ = (r, c) if ord in (1, -1) else (c, r)
        s = sum(_abs(x), axis=inner, keepdims=True)
        out = (max if ord in (1, np.inf) else min)(s, axis=outer_, keepdims=True)
        if not keepdims:
            out = lax.reshape(out, [d for i, d in enumerate(out.shape) if i not in axes])
        return out
    if ord in (2, -2, "nuc"):
        from ._shape import moveaxis

        sv = svd(moveaxis(x, axes, (-2, -1)), compute_uv=False)
        if ord == "nuc":
            out = sum(sv, axis=-1)
        else:
            out = (max if ord == 2 else min)(sv, axis=-1)
        if keepdims:
            out = lax.expand_dims(out, tuple(sorted(axes)))
        return out
    raise ValueError(f"Invalid norm order {ord!r} for matrices.")


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    (x,) = promote_dtypes_inexact(as_operand(x))
    if axis is None:
        from ._shape import ravel

        out = _vector_norm(ravel(x), (0,), ord, False)
        return lax.reshape(out, (1,) * x.ndim) if keepdims else out
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return _vector_norm(x, tuple(canonicalize_axis(a, x.ndim) for a in axes), ord, keepdims)


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    (x,) = promote_dtypes_inexact(as_operand(x))
    return _matrix_norm(x, (x.ndim - 2, x.ndim - 1), ord, keepdims)


def trace(x, /, *, offset: int = 0, dtype=None):
    return _trace(x, offset, -2, -1, dtype)


# --- factorizations and solves (traceable: lax.linalg primitives and compositions of them) ------


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


class QRResult(NamedTuple):
    Q: Any
    R: Any


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


def _inexact(name, *xs):
    check_arraylike(f"jnp.linalg.{name}", *xs)
    return promote_dtypes_inexact(*[as_operand(x) for x in xs])


def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(
            f"jnp.linalg.{name} requires square matrices in the last two axes, got shape {a.shape}."
        )


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """The lower (or ``upper``) Cholesky factor of a symmetric positive-definite matrix.

    >>> jnp.linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 3.0]]))
    Array([[2.       , 0.       ],
           [1.       , 1.4142135]], dtype=float32)
    """
    (a,) = _inexact("cholesky", a)
    L = lax_linalg.cholesky(a, symmetrize_input=symmetrize_input)
    if not upper:
        return L
    return lax.conj(matrix_transpose(L)) if L.dtype.kind == "c" else matrix_transpose(L)


def _lu_solve(lu_, perm, b, vector: bool):
    """Solve ``a x = b`` from ``a``'s packed LU factors (``b`` has a trailing column axis)."""

    pb = matmul(lax_linalg.permutation_matrix(perm, b.dtype), b)
    y = lax_linalg.triangular_solve(lu_, pb, left_side=True, lower=True, unit_diagonal=True)
    x = lax_linalg.triangular_solve(lu_, y, left_side=True, lower=False)
    return lax.squeeze(x, (x.ndim - 1,)) if vector else x


def solve(a, b):
    """Solve ``a @ x = b`` for ``x``; a 1-d ``b`` is one right-hand side.

    >>> jnp.linalg.solve(jnp.array([[2.0, 0.0], [0.0, 4.0]]), jnp.array([2.0, 2.0]))
    Array([1. , 0.5], dtype=float32)
    """
    from ._shape import broadcast_to, expand_dims

    a, b = _inexact("solve", a, b)
    _square("solve", a)
    vector = b.ndim == 1
    if vector:
        b = expand_dims(b, -1)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = broadcast_to(a, (*batch, *a.shape[-2:]))
    b = broadcast_to(b, (*batch, *b.shape[-2:]))
    lu_, _, perm = lax_linalg.lu(a)
    return _lu_solve(lu_, perm, b, vector)


def inv(a):
    """The matrix inverse (NaN or inf entries for a singular matrix, as in JAX).

    >>> jnp.linalg.inv(jnp.array([[2.0, 0.0], [0.0, 4.0]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    from ._shape import broadcast_to

    (a,) = _inexact("inv", a)
    _square("inv", a)
    eye = broadcast_to(Array(np.eye(a.shape[-1], dtype=a.dtype)), a.shape)
    return solve(a, eye)


def _lu_sign_and_diag(a):
    from ._reductions import sum

    lu_, pivots, _ = lax_linalg.lu(a)
    d = diagonal(lu_, axis1=-2, axis2=-1)
    swaps = sum(lax.ne(pivots, Array(np.arange(pivots.shape[-1], dtype=np.int32))), axis=-1)
    parity = lax.convert_element_type(lax.rem(swaps, lax.full_like(swaps, 2)), a.dtype)
    return lax.sub(lax.full_like(parity, 1), lax.mul(parity, _const_like(parity, 2.0))), d


def det(a):
    """The determinant, from the LU factorization (differentiable).

    >>> jnp.linalg.det(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array(-2., dtype=float32)
    """
    from ._reductions import prod

    (a,) = _inexact("det", a)
    _square("det", a)
    sign, d = _lu_sign_and_diag(a)
    return lax.mul(sign, prod(d, axis=-1))


def slogdet(a, *, method=None):
    """``(sign, logabsdet)`` of the determinant: ``det = sign * exp(logabsdet)``."""
    from ._reductions import prod, sum
    from ._ufuncs import sign as _sign

    (a,) = _inexact("slogdet", a)
    _square("slogdet", a)
    s, d = _lu_sign_and_diag(a)
    sign = lax.mul(s, prod(_sign(d), axis=-1))
    return SlogdetResult(sign, sum(lax.log(lax.abs(d)), axis=-1))


def eigh(a, UPLO=None, symmetrize_input: bool = True):
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix."""
    (a,) = _inexact("eigh", a)
    _square("eigh", a)
    v, w = lax_linalg.eigh(a, lower=UPLO in (None, "L"), symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L", *, symmetrize_input: bool = True):
    """The eigenvalues (ascending) of a symmetric matrix."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def svd(
    a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False, subset_by_index=None
):
    """``(U, S, Vh)`` with ``a = U @ diag(S) @ Vh``; just ``S`` when not ``compute_uv``."""
    (a,) = _inexact("svd", a)
    if not compute_uv:
        return lax_linalg.svd(a, full_matrices=False, compute_uv=False)
    return SVDResult(*lax_linalg.svd(a, full_matrices=full_matrices))


def svdvals(x, /):
    return svd(x, compute_uv=False)


def qr(a, mode: str = "reduced"):
    """``(Q, R)`` with ``a = Q @ R``; ``mode`` is 'reduced', 'complete' or 'r' (R only)."""
    (a,) = _inexact("qr", a)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def _default_rtol(a):
    return 10.0 * max(a.shape[-2:]) * float(np.finfo(a.dtype).eps)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse, from the SVD (singular values below
    ``rtol * largest`` count as zero)."""
    from ._reductions import max as amax
    from ._selection import where

    (a,) = _inexact("pinv", a)
    rtol = rcond if rtol is None else rtol
    u, s, vh = lax_linalg.svd(a, full_matrices=False)
    rtol = _default_rtol(a) if rtol is None else rtol
    cutoff = lax.mul(amax(s, axis=-1, keepdims=True), lax.full((), rtol, s.dtype))
    keep = lax.gt(s, lax.broadcast_in_dim(cutoff, s.shape, tuple(range(s.ndim))))
    s_inv = where(keep, lax.div(lax.full_like(s, 1), where(keep, s, lax.full_like(s, 1))), 0)
    from ._ufuncs import multiply

    return matmul(matrix_transpose(vh), multiply(lax.expand_dims(s_inv, (s.ndim,)), matrix_transpose(u)))


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """Least-squares solution of ``a @ x = b``: ``(x, residuals, rank, s)`` as ``numpy.linalg.lstsq``."""
    from ._reductions import sum
    from ._shape import ravel
    from ._ufuncs import multiply
    from ._selection import where

    a, b = _inexact("lstsq", a, b)
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    vector = b.ndim == 1
    if vector:
        b = lax.expand_dims(b, (1,))
    m, n = a.shape
    rcond = float(np.finfo(a.dtype).eps) * max(n, m) if rcond is None else rcond
    u, s, vt = lax_linalg.svd(a, full_matrices=False)
    mask = lax.ge(s, lax.mul(lax.full_like(s, rcond), lax.broadcast_in_dim(s[0], s.shape, ())))
    rank = sum(lax.convert_element_type(mask, np.int32))
    safe_s = where(mask, s, 1)
    s_inv = lax.expand_dims(where(mask, lax.div(lax.full_like(s, 1), safe_s), 0), (1,))
    x = matmul(matrix_transpose(vt), multiply(s_inv, matmul(matrix_transpose(u), b)))
    if numpy_resid and (int(rank) < n or m <= n):
        resid = Array(np.zeros((0,), a.dtype))
    else:
        r = lax.sub(b, matmul(a, x))
        resid = sum(lax.mul(r, r), axis=0)
    if vector:
        x = ravel(x)
    return x, resid, rank, s


def matrix_power(a, n: int):
    """``a`` multiplied by itself ``n`` times (by repeated squaring); negative ``n`` inverts first."""
    from ._shape import broadcast_to

    (a,) = (
        _inexact("matrix_power", a)
        if np.dtype(getattr(a, "dtype", np.float32)).kind in "fc"
        else (as_operand(a),)
    )
    _square("matrix_power", a)
    try:
        n = int(n)
    except TypeError as e:
        raise TypeError(f"exponent must be an integer, got {n}") from e
    if n == 0:
        return broadcast_to(Array(np.eye(a.shape[-1], dtype=a.dtype)), a.shape)
    if n < 0:
        a, n = inv(a), -n
    result, z = None, a
    while n:
        if n & 1:
            result = z if result is None else matmul(result, z)
        n >>= 1
        if n:
            z = matmul(z, z)
    return result


def matrix_rank(M, rtol=None, *, tol=None):
    """The number of singular values above ``rtol * largest`` (numpy's default tolerance)."""
    from ._reductions import max as amax
    from ._reductions import sum

    (M,) = _inexact("matrix_rank", M)
    if M.ndim < 2:
        return lax.convert_element_type(lax.ne(M, lax.full_like(M, 0)), np.int32).sum() > 0
    s = svd(M, compute_uv=False)
    if tol is None:
        rtol = _default_rtol(M) / 10.0 if rtol is None else rtol
        cutoff = lax.mul(amax(s, axis=-1, keepdims=True), lax.full((), rtol, s.dtype))
    else:
        cutoff = lax.full(s.shape[:-1] + (1,), tol, s.dtype)
    return sum(
        lax.convert_element_type(
            lax.gt(s, lax.broadcast_in_dim(cutoff, s.shape, tuple(range(s.ndim)))), np.int32
        ),
        axis=-1,
    )
