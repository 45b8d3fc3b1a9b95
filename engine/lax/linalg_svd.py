"""The singular value decomposition primitive (``lax.linalg.svd``): LAPACK's gesdd through numpy's
gufuncs in the matrix's own precision, its JVP (JAX's formula) and batching."""

from __future__ import annotations

import numpy as np
from numpy.linalg import _umath_linalg

from .. import ad, core
from ..core import Primitive, ShapedArray
from ..narrow_dtypes import kind as dtype_kind
from .dot_general import Precision
from .linalg import (
    _EIGH_SVD_DEFAULTS,
    _H,
    _T,
    _batch_leading,
    _check_matrix,
    _checked,
    _extract_diagonal,
    _eye,
    _in_precision,
    _jnp,
    _lax,
    _nan_where_failed,
    _real_dtype,
)


# svd: singular values (descending) and, with compute_uv, U and V^T (thin when not full_matrices).


svd_p = Primitive("svd", multiple_results=True)


def _svd_impl(x, *, full_matrices, compute_uv, subset_by_index=None, algorithm=None):
    if not compute_uv:
        res = _in_precision(_umath_linalg.svd, x, "r")
        if res is not None:
            return list(res)
    else:
        res = _in_precision(_umath_linalg.svd_f if full_matrices else _umath_linalg.svd_s, x, "xrx")
        if res is not None:
            return [res[1], res[0], res[2]]
    wide = x.astype(np.complex128 if dtype_kind(x.dtype) == "c" else np.float64)
    real = _real_dtype(x.dtype)  # (the singular values are real, for complex x too)
    if not compute_uv:
        (s,) = _nan_where_failed(lambda m: (np.linalg.svd(m, compute_uv=False),), wide)
        return [s.astype(real)]
    u, s, vt = _nan_where_failed(lambda m: np.linalg.svd(m, full_matrices=full_matrices), wide)
    return [s.astype(real), u.astype(x.dtype), vt.astype(x.dtype)]


svd_p.def_impl(_checked("svd", _svd_impl))


@svd_p.def_abstract_eval
def _svd_abstract(x, *, full_matrices, compute_uv, subset_by_index=None, algorithm=None):
    _check_matrix("svd", x, square=False)
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    s = ShapedArray((*batch, k), _real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    um, vn = (m, n) if full_matrices else (k, k)
    return [s, ShapedArray((*batch, m, um), x.dtype), ShapedArray((*batch, vn, n), x.dtype)]


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index=None, algorithm=None):
    # JAX's rule in JAX's equations (its products at float32 precision print as HIGHEST).
    (A,), (dA,) = primals, tangents
    s, U, Vt = svd_p.bind(A, full_matrices=False, compute_uv=True, **_EIGH_SVD_DEFAULTS)
    m, n = core.get_aval(A).shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError("Singular value decomposition JVP not implemented for full matrices")
    jnp = _jnp()
    dtype = core.get_aval(A).dtype

    def mm(x, y):
        return jnp.matmul(x, y, precision=Precision.HIGHEST)

    Ut, V = _H(U), _H(Vt)
    s_dim = s[..., None, :]
    dS = mm(mm(Ut, dA), V)
    ds = _extract_diagonal(jnp.real(dS))
    if not compute_uv:
        return [s], [ds]
    k = core.get_aval(s).shape[-1]
    s_diffs = (s_dim + _T(s_dim)) * (s_dim - _T(s_dim))
    s_diffs_zeros = _eye(core.get_aval(s).dtype, (k, k))  # ones where s_diffs is 0 (the diagonal)
    s_diffs_zeros = _lax().expand_dims(s_diffs_zeros, tuple(range(s_diffs.ndim - 2)))
    F = 1 / (s_diffs + s_diffs_zeros) - s_diffs_zeros
    dSS = s_dim.astype(dtype) * dS  # dS @ diag(s)
    SdS = _T(s_dim.astype(dtype)) * dS  # diag(s) @ dS
    s_zeros = (s == 0).astype(s.dtype)
    s_inv = 1 / (s + s_zeros) - s_zeros
    s_inv_mat = _construct_diagonal(s_inv)
    # JAX's Python 0.5 is converted by an operation inside the rule: a residual of the linearized
    # jit (a scalar lax.full is such a value in the engine), not a literal of the tangent work
    half = _lax().full((), 0.5, dtype, weak_type=True)
    dUdV_diag = _lax().mul(half, dS - _H(dS)) * s_inv_mat.astype(dtype)
    dU = mm(U, F.astype(dtype) * (dSS + _H(dSS)) + dUdV_diag)
    dV = mm(V, F.astype(dtype) * (SdS + _H(SdS)))
    if m > n:
        dAV = mm(dA, V)
        dU = dU + (dAV - mm(U, mm(Ut, dAV))) / s_dim.astype(dtype)
    if n > m:
        dAHU = mm(_H(dA), U)
        dV = dV + (dAHU - mm(V, mm(Vt, dAHU))) / s_dim.astype(dtype)
    return [s, U, Vt], [ds, dU, _H(dV)]


def _construct_diagonal(s):
    """The (batched) diagonal matrix of ``s``, as JAX's linalg builds it: zeros ``.at[..., i, i].set(s)``."""
    aval = core.get_aval(s)
    i = _lax().iota(np.int32, aval.shape[-1])
    return _lax().full((*aval.shape, aval.shape[-1]), 0, aval.dtype).at[..., i, i].set(s)


ad.jvp_rules[svd_p] = _svd_jvp
_batch_leading(svd_p)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True):
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` (or just ``s`` when not ``compute_uv``)."""
    outs = svd_p.bind(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv), **_EIGH_SVD_DEFAULTS)
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt
