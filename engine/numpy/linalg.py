"""``jnp.linalg``: norms and the products that live here in the array API."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import lax
from ..core import Array
from ..lax import linalg as lax_linalg
from . import _det
from ._contract import matmul as _jnp_matmul, vecdot  # noqa: F401
from ._diagonal import diagonal as _diagonal
from ._diagonal import trace as _trace
from ._promote import as_operand, canonicalize_axis, check_arraylike, promote_dtypes_inexact
from ._shape import matrix_transpose  # noqa: F401
from ._staged import staged_as_jit
from ..narrow_dtypes import kind as dtype_kind


def _abs(x):
    # jnp.abs, as JAX's norms take it: a bool (or unsigned) operand is its own absolute value
    from ._ufuncs import abs

    return abs(x)


def _root_sum_squares(x, axis, keepdims):
    """JAX's 2-norm: ``sqrt(sum(real(x * conj(x))))``."""
    from ._complex_parts import conj, real
    from ._reductions import squares_summed, sum
    from ._ufuncs import multiply, sqrt

    axes = tuple(range(np.ndim(x))) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    fused = squares_summed(x, tuple(a % np.ndim(x) for a in axes), keepdims, "load_square")
    if fused is not None:
        return sqrt(fused)
    return sqrt(sum(real(multiply(x, conj(x))), axis=axis, keepdims=keepdims))


def _vector_norm(x, axis, ord, keepdims):
    from ._reductions import max, min, sum

    if ord is None or ord == 2:
        return _root_sum_squares(x, axis, keepdims)
    if ord == 0:
        from ._logic import not_equal

        real_dtype = np.finfo(x.dtype).dtype
        return sum(not_equal(x, 0), axis=axis, keepdims=keepdims, dtype=real_dtype)
    a = _abs(x)
    if ord == np.inf:
        return max(a, axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return min(a, axis=axis, keepdims=keepdims)
    if ord == 1:
        return sum(a, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    from ._ufuncs import power

    p = np.asarray(ord, a.dtype)  # (the exponents are constants, 1/p computed on the host, as JAX's)
    s = sum(power(a, p), axis=axis, keepdims=keepdims)
    return power(s, np.asarray(1.0 / p, a.dtype))


def diagonal(x, /, *, offset: int = 0):
    """The diagonals of the matrices in ``x`` (over its last two axes).

    >>> jnp.linalg.diagonal(jnp.arange(8.0).reshape(2, 2, 2))
    Array([[0., 3.],
           [4., 7.]], dtype=float32)
    """
    return _diagonal(x, offset=offset, axis1=-2, axis2=-1)


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
            return _root_sum_squares(x, None, keepdims)
        axis = tuple(range(x.ndim))  # (JAX's: any rank, then rejected below unless 1 or 2 axes)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(canonicalize_axis(a, x.ndim) for a in axes)
    if len(axes) == 1:
        return vector_norm(x, axis=axes, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2:
        raise ValueError(
            f"Improper number of axes for norm: {axis=}. Pass one axis to compute a vector-norm, or two "
            "axes to compute a matrix-norm."
        )
    return _matrix_norm(x, axes, ord, keepdims)


def _matrix_norm(x, axes, ord, keepdims):
    from ._reductions import max, min, sum

    r, c = axes
    if ord is None or ord in ("f", "fro"):
        return _root_sum_squares(x, axes, keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        # JAX's: the column (row) sums of |x|, then their max (from 0) or min
        inner, outer_ = (r, c) if ord in (1, -1) else (c, r)
        if not keepdims and outer_ > inner:
            outer_ -= 1
        s = sum(_abs(x), axis=inner, keepdims=keepdims)
        if ord in (1, np.inf):
            return max(s, axis=outer_, keepdims=keepdims, initial=0)
        return min(s, axis=outer_, keepdims=keepdims)
    if ord in (2, -2, "nuc"):
        from ._shape import moveaxis

        sv = svd(moveaxis(x, axes, (-2, -1)), compute_uv=False)
        if ord == "nuc":
            out = sum(sv, axis=-1)
        elif ord == 2:
            out = max(sv, axis=-1, initial=0)
        else:
            out = min(sv, axis=-1)
        if keepdims:
            out = lax.expand_dims(out, tuple(sorted(axes)))
        return out
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """The ``ord``-norm of ``x`` over ``axis`` (all of it by default); like JAX's, no promotion
    up front (an integer ``x`` becomes inexact in the square root)."""
    check_arraylike("jnp.linalg.vector_norm", x)
    x = as_operand(x)
    if axis is not None:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
        axis = tuple(canonicalize_axis(a, x.ndim) for a in axes)
    return _vector_norm(x, axis, ord, keepdims)


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    check_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


def trace(x, /, *, offset: int = 0, dtype=None):
    return _trace(x, offset, -2, -1, dtype)


# --- factorizations and solves (traceable: lax.linalg primitives and compositions of them) ------


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class EigResult(NamedTuple):
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


# JAX's words for a matrix that is not square, function by function
_NOT_SQUARE = {
    "inv": "Argument to inv must have shape [..., n, n], got {}.",
    "det": "Argument to _det() must have shape [..., n, n], got {}",
    "slogdet": "Argument to slogdet() must have shape [..., n, n], got {}",
}


def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        if name == "matrix_power":  # (its TypeErrors, as numpy's own function words them)
            if a.ndim < 2:
                raise TypeError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
            raise TypeError("Last 2 dimensions of the array must be square")
        raise ValueError(_NOT_SQUARE[name].format(a.shape))


@staged_as_jit(static_argnames=("upper", "symmetrize_input"))
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
    return lax.conj(matrix_transpose(L)) if dtype_kind(L.dtype) == "c" else matrix_transpose(L)


def _lu_solve(lu_, perm, b, vector: bool):
    """Solve ``a x = b`` from ``a``'s packed LU factors (``b`` has a trailing column axis)."""

    pb = _jnp_matmul(lax_linalg.permutation_matrix(perm, b.dtype), b)
    y = lax_linalg.triangular_solve(lu_, pb, left_side=True, lower=True, unit_diagonal=True)
    x = lax_linalg.triangular_solve(lu_, y, left_side=True, lower=False)
    return lax.squeeze(x, (x.ndim - 1,)) if vector else x


def _lu_solve_core(lu_, perm, b, trans: int):
    """One unbatched solve from packed LU factors: ``a x = b`` (``trans=0``) or ``a^T x = b``
    (``trans=1``; ``2``: conjugate transpose), with ``b`` of shape ``(m, k)``."""
    from ._shape import reshape

    m = lu_.shape[0]
    x = reshape(b, (m, int(np.prod(b.shape[1:]))))
    if trans == 0:
        x = x[perm, :]
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
        x = lax_linalg.triangular_solve(lu_, x, left_side=True, lower=False)
    elif trans in (1, 2):
        conj = trans == 2
        x = lax_linalg.triangular_solve(
            lu_, x, left_side=True, lower=False, transpose_a=True, conjugate_a=conj
        )
        x = lax_linalg.triangular_solve(
            lu_, x, left_side=True, lower=True, unit_diagonal=True, transpose_a=True, conjugate_a=conj
        )
        _, inverse = lax.sort_key_val(perm, lax.iota(np.dtype("int32"), perm.shape[0]))
        x = x[inverse, :]
    else:
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return reshape(x, b.shape)


@staged_as_jit(name="_lu_solve", static_argnames=("trans",))
def _lu_solve_staged(lu_, perm, b, trans: int):
    """``lax.linalg.lu_solve`` as JAX stages it: a vector ``b`` gets a column axis, batch axes
    broadcast and are vmapped over."""
    from ..api import vmap
    from ._shape import broadcast_to

    vector = lu_.ndim == b.ndim + 1
    if vector:
        b = b[..., None]
    batch = tuple(np.broadcast_shapes(lu_.shape[:-2], perm.shape[:-1], b.shape[:-2]))
    lu_ = broadcast_to(lu_, (*batch, *lu_.shape[-2:]))
    perm = broadcast_to(perm, (*batch, perm.shape[-1]))
    b = broadcast_to(b, (*batch, *b.shape[-2:]))
    fn = _lu_solve_core
    for _ in batch:
        fn = vmap(fn, in_axes=(0, 0, 0, None))
    x = fn(lu_, perm, b, trans)
    return x[..., 0] if vector else x


def _broadcast_leading(x, shape):
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - x.ndim, len(shape))))


def _broadcasted_matvec(a, x):
    batch = tuple(np.broadcast_shapes(a.shape[:-2], x.shape[:-1]))
    a = _broadcast_leading(a, (*batch, *a.shape[-2:]))
    x = _broadcast_leading(x, (*batch, x.shape[-1]))
    n = len(batch)
    dn = (((a.ndim - 1,), (x.ndim - 1,)), (tuple(range(n)), tuple(range(n))))
    return lax.dot_general(a, x, dn, precision=lax.Precision.HIGHEST)


def _solve(a, b):
    """``a x = b`` by LU, as a ``custom_linear_solve`` (JAX's formulation): derivatives solve
    again with the same factors instead of differentiating through the factorization."""
    from ..api import vmap
    from ..lax.solves import custom_linear_solve

    if not (
        a.ndim >= 2 and b.ndim in (a.ndim, a.ndim - 1) and a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]
    ):
        raise ValueError(
            "The arguments to solve must have shapes a=[..., m, m] and "
            f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}"
        )
    out_shape = tuple(da if db == 1 else db for da, db in zip(a.shape[:-1] + (1,), b.shape))
    if out_shape != b.shape:
        b = lax.broadcast_in_dim(b, out_shape, tuple(range(b.ndim)))
    lu_, _, perm = lax_linalg.lu(lax.stop_gradient(a))

    def custom_solve(b):
        return custom_linear_solve(
            lambda x: _broadcasted_matvec(a, x),
            b,
            solve=lambda _, x: _lu_solve_staged(lu_, perm, x, trans=0),
            transpose_solve=lambda _, x: _lu_solve_staged(lu_, perm, x, trans=1),
        )

    if a.ndim == b.ndim + 1:
        return custom_solve(b)
    return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)


@staged_as_jit
def solve(a, b):
    """Solve ``a @ x = b`` for ``x``; a 1-d ``b`` is one right-hand side.

    >>> jnp.linalg.solve(jnp.array([[2.0, 0.0], [0.0, 4.0]]), jnp.array([2.0, 2.0]))
    Array([1. , 0.5], dtype=float32)
    """
    from ..api import vmap
    from ._shape import broadcast_to

    a, b = _inexact("solve", a, b)
    if a.ndim < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got a.shape={a.shape}")
    if b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1] and a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX v0.5.0, this would have been "
            "treated as a batched 1-dimensional solve. To recover this behavior, use "
            "solve(a, b[..., None]).squeeze(-1)."
        )
    # jnp.vectorize over the signature (m,m),(m)->(m) or (m,m),(m,n)->(m,n): batch axes broadcast.
    core_b = 1 if b.ndim == 1 else 2
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[: b.ndim - core_b]))
    if not batch:
        return _solve(a, b)
    a = broadcast_to(a, (*batch, *a.shape[-2:]))
    b = broadcast_to(b, (*batch, *b.shape[b.ndim - core_b :]))
    fn = _solve
    for _ in batch:
        fn = vmap(fn)
    return fn(a, b)


@staged_as_jit
def inv(a):
    """The matrix inverse (NaN or inf entries for a singular matrix, as in JAX).

    >>> jnp.linalg.inv(jnp.array([[2.0, 0.0], [0.0, 4.0]]))
    Array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    from ._creation import eye

    (a,) = _inexact("inv", a)
    _square("inv", a)
    return solve(a, lax.broadcast(eye(a.shape[-1], dtype=a.dtype), a.shape[:-2]))


def _det_2x2(a):
    return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a):
    # The rule of Sarrus, term by term as JAX writes it (so its jaxpr and rounding are JAX's).
    return (
        a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2]
        + a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0]
        + a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1]
        - a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0]
        - a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1]
        - a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2]
    )


@staged_as_jit
def det(a):
    """The determinant: closed forms for 2x2 and 3x3 matrices, else ``sign * exp(logabsdet)``
    with a JVP from the adjugate (finite for singular matrices), as JAX computes it.

    >>> jnp.linalg.det(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array(-2., dtype=float32)
    """
    (a,) = _inexact("det", a)
    _square("det", a)
    if a.shape[-2:] == (2, 2):
        return _det_2x2(a)
    if a.shape[-2:] == (3, 3):
        return _det_3x3(a)
    return _det.det_by_lu(a)


@staged_as_jit(static_argnames=("method",))
def slogdet(a, *, method=None):
    """``(sign, logabsdet)`` of the determinant: ``det = sign * exp(logabsdet)``.

    >>> jnp.linalg.slogdet(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    SlogdetResult(sign=Array(-1., dtype=float32), logabsdet=Array(0.6931472, dtype=float32))
    """
    (a,) = _inexact("slogdet", a)
    _square("slogdet", a)
    return SlogdetResult(*_det.slogdet(a, method))


@staged_as_jit(static_argnames=("UPLO", "symmetrize_input"))
def eigh(a, UPLO=None, symmetrize_input: bool = True):
    """Eigenvalues (ascending) and eigenvectors (columns) of a symmetric matrix."""
    (a,) = _inexact("eigh", a)
    v, w = lax_linalg.eigh(a, lower=UPLO in (None, "L"), symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eig(a):
    """Eigenvalues and right eigenvectors (columns) of a general square matrix, always complex.

    >>> jnp.linalg.eig(jnp.array([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
    Array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    (a,) = _inexact("eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@staged_as_jit
def eigvals(a):
    """The (complex) eigenvalues of a general square matrix.

    >>> jnp.linalg.eigvals(jnp.array([[0.0, -1.0], [1.0, 0.0]]))
    Array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    (a,) = _inexact("eigvals", a)
    return lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


@staged_as_jit(static_argnames=("UPLO", "symmetrize_input"))
def eigvalsh(a, UPLO="L", *, symmetrize_input: bool = True):
    """The eigenvalues (ascending) of a symmetric matrix."""
    (a,) = _inexact("eigvalsh", a)
    return eigh(a, UPLO, symmetrize_input=symmetrize_input).eigenvalues


@staged_as_jit(static_argnames=("full_matrices", "compute_uv", "hermitian", "subset_by_index"))
def svd(
    a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False, subset_by_index=None
):
    """``(U, S, Vh)`` with ``a = U @ diag(S) @ Vh``; just ``S`` when not ``compute_uv``; a
    ``hermitian`` ``a`` goes through eigh, as JAX's (singular values are the eigenvalues' sizes)."""
    (a,) = _inexact("svd", a)
    if hermitian:
        return _hermitian_svd(a, compute_uv)
    if not compute_uv:
        return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False)
    return SVDResult(*lax_linalg.svd(a, full_matrices=full_matrices))


def _hermitian_svd(a, compute_uv):
    """JAX's: eigh, then the eigenvalues' absolute values sorted descending carry the eigenvectors
    (reordered by the sort's index) and their signs (into ``Vh``)."""
    from ._take import take_along_axis

    w, v = lax_linalg.eigh(a)
    s = lax.abs(v)
    last = s.ndim - 1
    if not compute_uv:
        return lax.rev(lax.sort(s, dimension=-1), (last,))
    sign = lax.sign(v)
    idxs = lax.broadcasted_iota(np.dtype("uint32"), s.shape, last)
    s, idxs, sign = lax.sort((s, idxs, sign), dimension=-1, num_keys=1)
    s, idxs, sign = (lax.rev(t, (last,)) for t in (s, idxs, sign))
    u = take_along_axis(w, lax.expand_dims(idxs, (idxs.ndim - 1,)), axis=-1)
    vh = _H(u * lax.expand_dims(sign, (sign.ndim - 1,)).astype(u.dtype))
    return SVDResult(u, s, vh)


def svdvals(x, /):
    return svd(x, compute_uv=False)


@staged_as_jit(static_argnames=("mode",))
def qr(a, mode: str = "reduced"):
    """``(Q, R)`` with ``a = Q @ R``; ``mode`` is 'reduced', 'complete', 'r' (R only) or 'raw'
    (LAPACK's packed reflectors, transposed, and their scalar factors)."""
    (a,) = _inexact("qr", a)
    if mode == "raw":
        h, taus = lax_linalg.geqrf(a)
        return QRResult(matrix_transpose(h), taus)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(a, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def _default_rtol(a):
    return 10.0 * max(a.shape[-2:]) * float(np.finfo(a.dtype).eps)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse, from the SVD (singular values at most ``rtol`` times the
    largest count as zero); its derivative is Golub and Pereyra's formula, as JAX's.

    >>> jnp.linalg.pinv(jnp.array([[2.0, 0.0], [0.0, 0.0]]))
    Array([[0.5, 0. ],
           [0. , 0. ]], dtype=float32)
    """
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv_custom_jvp()(a, rtol, hermitian)


@staged_as_jit(name="_pinv", static_argnames=("hermitian",))
def _pinv(a, rtol=None, hermitian=False):
    from ._creation import empty
    from ._complex_parts import conj
    from ._selection import where
    from ._ufuncs import divide

    (arr,) = _inexact("pinv", a)
    m, n = arr.shape[-2:]
    if m == 0 or n == 0:
        return empty(arr.shape[:-2] + (n, m), arr.dtype)
    arr = conj(arr)
    if rtol is None:
        rtol = 10.0 * max(m, n) * Array(np.asarray(np.finfo(arr.dtype).eps))
    rtol = as_operand(rtol)
    u, s, vh = svd(arr, full_matrices=False, hermitian=hermitian)
    rtol = lax.expand_dims(rtol[..., np.newaxis], tuple(range(s.ndim - rtol.ndim - 1)))
    cutoff = rtol * s[..., 0:1]
    s = where(s > cutoff, s, np.inf).astype(u.dtype)
    res = _jnp_matmul(
        matrix_transpose(vh), divide(matrix_transpose(u), s[..., np.newaxis]), precision=lax.Precision.HIGHEST
    )
    return lax.convert_element_type(res, arr.dtype)


_PINV: list = []


def _pinv_custom_jvp():
    if not _PINV:
        from ..custom_derivatives import custom_jvp

        f = custom_jvp(_pinv, nondiff_argnums=(1, 2))

        def _pinv_jvp(rtol, hermitian, primals, tangents):
            # Golub and Pereyra (1973): the derivative of the pseudo-inverse p of a.
            (a,), (a_dot,) = primals, tangents
            p = pinv(a, rtol=rtol, hermitian=hermitian)
            if hermitian:
                a, a_dot = lax_linalg._symmetrize(a), lax_linalg._symmetrize(a_dot)
            m, n = a.shape[-2:]

            def mm(x, y):  # (JAX's rule runs at default_matmul_precision("float32"): HIGHEST)
                return _jnp_matmul(x, y, precision=lax.Precision.HIGHEST)

            if m >= n:
                s = mm(mm(p, _H(p)), _H(a_dot))
                t = mm(mm(_H(a_dot), _H(p)), p)
                p_dot = mm(-mm(p, a_dot), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
            else:
                s = mm(p, mm(_H(p), _H(a_dot)))
                t = mm(_H(a_dot), mm(_H(p), p))
                p_dot = mm(-p, mm(a_dot, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t))
            return p, p_dot

        f.defjvp(_pinv_jvp)
        _PINV.append(f)
    return _PINV[0]


def _H(x):
    return _conj(matrix_transpose(x))


def _conj(x):
    from ._complex_parts import conj

    return conj(x)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """Least-squares solution of ``a @ x = b``: ``(x, residuals, rank, s)`` as ``numpy.linalg.lstsq``
    (JAX's: under its jit ``_lstsq`` unless ``numpy_resid``)."""
    check_arraylike("jnp.linalg.lstsq", a, b)
    if numpy_resid:
        return _lstsq(a, b, rcond, numpy_resid=True)
    return _jitted_lstsq(a, b, rcond)


def _lstsq(a, b, rcond, *, numpy_resid: bool = False):
    from ._creation import array, asarray, zeros
    from ._selection import where
    from ._shape import ravel

    a, b = _inexact("lstsq", a, b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim != 2:
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or two-dimensional")
    m, n = a.shape
    eps = np.finfo(a.dtype).eps
    if a.size == 0:
        s = zeros((0,), a.dtype)
        rank = asarray(0)
        x = zeros((n, *b.shape[1:]), a.dtype)
    else:
        rcond = float(eps) * max(n, m) if rcond is None else where(rcond < 0, eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = (s > 0) & (s >= array(rcond, dtype=s.dtype) * s[0])
        rank = mask.sum()
        safe_s = where(mask, s, 1).astype(a.dtype)
        s_inv = where(mask, 1 / safe_s, 0)[:, np.newaxis]
        # (JAX's u.conj().T: the conj before the transpose, unlike _H, as its jaxpr shows)
        u_t_b = _jnp_matmul(_conj(u).T, b, precision=lax.Precision.HIGHEST)
        x = _jnp_matmul(_conj(vt).T, s_inv * u_t_b, precision=lax.Precision.HIGHEST)
    if numpy_resid and (int(rank) < n or m <= n):
        resid = asarray([], a.dtype)
    else:
        resid = norm(b - _jnp_matmul(a, x, precision=lax.Precision.HIGHEST), axis=0) ** 2
    if vector:
        x = ravel(x)
    return x, resid, rank, s


@staged_as_jit(name="_lstsq")
def _jitted_lstsq(a, b, rcond):
    return _lstsq(a, b, rcond)


@staged_as_jit(static_argnames=("n",))
def matrix_power(a, n: int):
    """``a`` multiplied by itself ``n`` times (by repeated squaring, in JAX's order of products: its
    jaxpr is JAX's); negative ``n`` inverts first."""
    from ._shape import broadcast_to

    (a,) = (
        _inexact("matrix_power", a)
        if dtype_kind(np.dtype(getattr(a, "dtype", np.float32))) in "fc"
        else (as_operand(a),)
    )
    _square("matrix_power", a)
    try:
        n = int(n)
    except TypeError as e:
        raise TypeError(f"exponent must be an integer, got {n}") from e
    if n == 0:
        from ._creation import eye

        return broadcast_to(eye(a.shape[-2], dtype=a.dtype), a.shape)
    if n < 0:
        a, n = inv(a), -n
    if n == 3:  # JAX special-cases the cube as (a @ a) @ a
        return _jnp_matmul(_jnp_matmul(a, a), a)
    result, z = None, None
    while n:
        z = a if z is None else _jnp_matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _jnp_matmul(result, z)
    return result


@staged_as_jit(static_argnames=("hermitian",))
def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """The number of singular values above a tolerance: ``rtol`` (or ``tol``) as given, by default
    the largest singular value times ``max(M.shape[-2:]) * eps`` (as JAX 0.10.2).

    >>> jnp.linalg.matrix_rank(jnp.array([[1.0, 2.0], [2.0, 4.0]]))
    Array(1, dtype=int32)
    """
    from ._reductions import any as any_
    from ._reductions import sum
    from ._shape import expand_dims

    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    (M,) = _inexact("matrix_rank", M)
    if M.ndim < 2:
        return any_(M != 0).astype(np.int32)
    S = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        rtol = S.max(-1) * np.asarray(max(M.shape[-2:]), S.dtype) * np.finfo(S.dtype).eps
    rtol = expand_dims(rtol, np.ndim(rtol))
    return sum(S > rtol, axis=-1)


from ._linalg_more import cond, cross, multi_dot, tensorinv, tensorsolve  # noqa: E402,F401
from ._linalg_more import matmul, outer, tensordot  # noqa: E402,F401
