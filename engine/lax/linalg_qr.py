"""``jax.lax.linalg.qr``: ``x = q @ r`` with orthonormal ``q`` and upper-triangular ``r`` (reduced
unless ``full_matrices``), and with ``pivoting`` LAPACK's column-pivoted factorization
``x[..., p] = q @ r`` (geqp3's greedy choice of the largest remaining column). The JVP is JAX's
(the pivoted one on the tangent's permuted columns); it maps over leading batch axes.
"""

from __future__ import annotations

import numpy as np

from .. import ad, core
from . import householder_numpy as hh
from ..core import Primitive, ShapedArray
from .linalg import (
    _H,
    _batch_leading,
    _check_matrix,
    _checked,
    _eye,
    _jnp,
    _lax,
    _mm,
    _tril,
    lu,
    triangular_solve,
)

qr_p = Primitive("qr", multiple_results=True)


def _nrm2(x):
    """BLAS ``nrm2`` as OpenBLAS's x86-64 kernels compute it: squares summed in a wider type
    (double for single precision, x87 extended for double), rounded once at the end."""
    rt = np.finfo(x.dtype).dtype
    wide = np.float64 if rt == np.float32 else np.longdouble
    return rt.type(np.sqrt(np.sum(x.real.astype(wide) ** 2 + x.imag.astype(wide) ** 2)))


def _lapy2(x, y):
    w, z = max(x, y), min(x, y)
    return w if z == 0 else w * np.sqrt(1 + (z / w) ** 2)


def _larfg(alpha, x):
    """LAPACK's ``larfg``/``clarfg`` in the matrix's own precision: ``(beta, tau)``, scaling ``x``
    in place into the reflector below its leading 1."""
    xnorm = _nrm2(x) if x.size else np.finfo(x.dtype).dtype.type(0)
    if xnorm == 0 and alpha.imag == 0:
        return alpha, x.dtype.type(0)
    beta = -np.copysign(_lapy2(abs(alpha.real), _lapy2(abs(alpha.imag), xnorm)), alpha.real)
    tau = x.dtype.type(
        (beta - alpha.real) / beta - 1j * (alpha.imag / beta)
        if x.dtype.kind == "c"
        else (beta - alpha) / beta
    )
    x *= x.dtype.type(1) / (alpha - beta)
    return beta, tau


def _larf_left(c, v, tau):
    """LAPACK's ``larf('L')`` with ``H^H``: ``w = C^H v`` (gemv), then ``C -= conj(tau) v w^H`` (ger),
    each entry updated with one rounding (OpenBLAS's fused multiply-adds)."""
    if tau == 0:
        return
    lastv = hh._last_nonzero(v != 0)  # (larf's span: see householder_numpy._apply_left)
    lastc = hh._last_nonzero(np.any(c[:lastv] != 0, axis=0))
    c, v = c[:lastv, :lastc], v[:lastv]
    wide = {"f": np.longdouble, "c": np.clongdouble}[c.dtype.kind]
    w = (np.conj(c.astype(wide)).T @ v.astype(wide)).astype(c.dtype)
    t = (-np.conj(tau) * np.conj(w)).astype(c.dtype)  # (ger's alpha * y[j], then an axpy down column j)
    c[...] = (c.astype(wide) + np.outer(v.astype(wide), t.astype(wide))).astype(c.dtype)


def _pivot_order(a):
    """The column order of LAPACK's ``geqp3`` (its unblocked ``laqp2``) in the matrix's precision:
    at each step the first remaining column of largest partial norm, a Householder step, and
    the partial norms downdated (recomputed when cancellation leaves too few digits). Columns
    whose norms tie exactly in exact arithmetic are then ordered by the same roundings as JAX's."""
    a = a.copy()
    m, n = a.shape
    rt = np.finfo(a.dtype).dtype.type
    vn1 = np.array([_nrm2(a[:, j]) for j in range(n)], rt)
    vn2 = vn1.copy()
    tol3z = np.sqrt(rt(np.finfo(rt).eps) / 2)  # (sqrt of slamch('E'), half of numpy's eps)
    order = np.arange(n)
    for i in range(min(m, n)):
        p = i + int(np.argmax(vn1[i:]))
        if p != i:
            a[:, [i, p]], order[[i, p]] = a[:, [p, i]], order[[p, i]]
            vn1[p], vn2[p] = vn1[i], vn2[i]
        beta, tau = _larfg(a[i, i], a[i + 1 :, i])
        if i + 1 < n:
            _larf_left(a[i:, i + 1 :], np.concatenate([[1], a[i + 1 :, i]]).astype(a.dtype), tau)
        a[i, i] = beta
        for j in range(i + 1, n):
            if vn1[j] == 0:
                continue
            temp = max(rt(1) - (rt(abs(a[i, j])) / vn1[j]) ** 2, rt(0))
            if temp * (vn1[j] / vn2[j]) ** 2 <= tol3z:
                vn1[j] = _nrm2(a[i + 1 :, j]) if i + 1 < m else rt(0)
                vn2[j] = vn1[j]
            else:
                vn1[j] *= np.sqrt(temp)
    return order


def _qr_one(a, full_matrices, pivoting):
    with np.errstate(all="ignore"):
        order = _pivot_order(a) if pivoting else None
    a = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    q, r = np.linalg.qr(a if order is None else a[:, order], mode="complete" if full_matrices else "reduced")
    return q, r, order


def _qr_impl(x, *, full_matrices, pivoting, use_magma=None):  # (use_magma: a GPU choice, JAX's param)
    if not pivoting:
        q, r, _ = _qr_one(x, full_matrices, False)
        return [q.astype(x.dtype), r.astype(x.dtype)]
    m, n = x.shape[-2:]
    flat = x.reshape(-1, m, n)
    outs = [_qr_one(a, full_matrices, True) for a in flat]
    k = m if full_matrices else min(m, n)
    batch = x.shape[:-2]

    def stacked(i, shape, dtype):
        parts = [o[i] for o in outs]
        return (np.stack(parts) if parts else np.zeros((0, *shape))).reshape(*batch, *shape).astype(dtype)

    return [stacked(0, (m, k), x.dtype), stacked(1, (k, n), x.dtype), stacked(2, (n,), np.int32)]


qr_p.def_impl(_checked("qr", _qr_impl))


@qr_p.def_abstract_eval
def _qr_abstract(x, *, full_matrices, pivoting, use_magma=None):
    _check_matrix("qr", x, square=False)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    batch = x.shape[:-2]
    q_r = [ShapedArray((*batch, m, k), x.dtype), ShapedArray((*batch, k, n), x.dtype)]
    return q_r + ([ShapedArray((*batch, n), np.dtype(np.int32))] if pivoting else [])


def _thin_qr_jvp(q, r, dx):
    """JAX's JVP of a QR factorization with m >= n (j-towns.github.io/papers/qr-derivative.pdf)."""
    lax = _lax()
    dx_rinv = triangular_solve(r, dx)  # dx r^-1 (a right-side solve)
    qt_dx_rinv = _mm(_H(q), dx_rinv)
    qt_dx_rinv_lower = _tril(qt_dx_rinv, -1)
    do = qt_dx_rinv_lower - _H(qt_dx_rinv_lower)  # skew-symmetric
    # (the imaginary part of the diagonal, for complex inputs; nothing for real ones)
    n = core.get_aval(r).shape[-1]
    eye = lax.expand_dims(_eye(core.get_aval(do).dtype, (n, n)), tuple(range(qt_dx_rinv.ndim - 2)))
    do = do + eye * (qt_dx_rinv - _jnp().real(qt_dx_rinv).astype(qt_dx_rinv.dtype))
    dq = _mm(q, do - qt_dx_rinv) + dx_rinv
    dr = _mm(qt_dx_rinv - do, r)
    return dq, dr


def _qr_jvp(primals, tangents, *, full_matrices, pivoting, use_magma=None):
    # JAX's rule: the thin JVP, on the leading square block of a wide matrix (the rest of R is
    # Q^H times the rest of x); the complement columns of a complete tall Q as in
    # arxiv.org/abs/2409.13374 (eqs. 32-33, a solve against Q_nn - I instead of an inverse).
    (x,), (dx,) = primals, tangents
    q, r, *pivots = qr_p.bind(x, full_matrices=full_matrices, pivoting=pivoting, use_magma=use_magma)
    m, n = core.get_aval(x).shape[-2:]
    no_tangent = []
    if pivoting:  # (JAX's: the tangent's columns in the pivot order; the order itself has none)
        (p,) = pivots
        dx = (
            dx[..., p] if core.get_aval(p).ndim == 1 else _jnp().take_along_axis(dx, p[..., None, :], axis=-1)
        )
        no_tangent = [ad.Zero(ad.tangent_aval(core.get_aval(p)))]
    lax = _lax()
    if m < n:
        x2, dx1, dx2, r1 = x[..., :, m:], dx[..., :, :m], dx[..., :, m:], r[..., :, :m]
        dq, dr1 = _thin_qr_jvp(q, r1, dx1)
        dr2 = _mm(_H(dq), x2) + _mm(_H(q), dx2)
        return [q, r, *pivots], [dq, lax.concatenate((dr1, dr2), dr1.ndim - 1), *no_tangent]
    q_mn = q[..., :, :n] if full_matrices else q
    r_nn = r[..., :n, :n] if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return [q, r, *pivots], [dq_mn, dr_nn, *no_tangent]
    from ..numpy.linalg import _lu_solve_staged

    q_nn, q_pn, q_mp = q_mn[..., :n, :], q_mn[..., n:, :], q[..., :, n:]
    dq_nn, dq_pn = dq_mn[..., :n, :], dq_mn[..., n:, :]
    eye = lax.expand_dims(_eye(core.get_aval(q_nn).dtype, (n, n)), tuple(range(q_nn.ndim - 2)))
    lu_factor, _, perm = lu(q_nn - eye)
    z_pn_H = _lu_solve_staged(lu_factor, perm, _H(q_pn), 2)  # (Q_nn - I)^H Z^H = Q_pn^H
    z_pn = _H(z_pn_H)
    dq_mp = _mm(dq_mn, z_pn_H) - _mm(q_mn + _mm(q_mp, z_pn), _H(dq_pn - _mm(z_pn, dq_nn)))
    dq = lax.concatenate((dq_mn, dq_mp), dq_mn.ndim - 1)
    zeros = lax.full((*core.get_aval(dr_nn).shape[:-2], m - n, n), 0, core.get_aval(dr_nn).dtype)
    return [q, r, *pivots], [dq, lax.concatenate((dr_nn, zeros), dr_nn.ndim - 2), *no_tangent]


ad.jvp_rules[qr_p] = _qr_jvp
_batch_leading(qr_p)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True):
    """``(q, r)`` with ``x = q @ r``; with ``pivoting``, ``(q, r, p)`` with ``x[..., p] = q @ r``
    (LAPACK's column pivoting: ``r``'s diagonal non-increasing in size)."""
    return tuple(qr_p.bind(x, full_matrices=bool(full_matrices), pivoting=bool(pivoting), use_magma=None))
