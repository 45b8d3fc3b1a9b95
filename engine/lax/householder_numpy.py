"""LAPACK's Householder and QR-iteration algorithms on single numpy matrices, in their own precision
(float32 matrices iterate in float32, with its rounding and deflation thresholds, as LAPACK's
single-precision routines that JAX calls do).

These are the implementations behind ``hessenberg``, ``householder_product``, ``geqrf``, ``ormqr``
and ``schur`` (engine/lax/linalg_schur.py), written after LAPACK's unblocked routines so the
factors have LAPACK's conventions (JAX calls LAPACK on CPU): reflectors ``H = I - tau v v^H`` with
``v[0] = 1`` and ``beta = -sign(Re alpha) * norm`` (``larfg``), Hessenberg reduction column by
column (``gehd2``), QR (``geqr2``), and the small-matrix Schur iterations: Francis double shifts with
LAPACK's deflation test and standardized 2x2 blocks for real matrices (``lahqr``, ``lanv2``),
single Wilkinson shifts for complex ones. LAPACK's balancing permutation is not applied, so a
matrix with isolated eigenvalues may get a different (equally valid) Schur form.
"""

from __future__ import annotations

import functools

import numpy as np


def _quiet(fn):
    """LAPACK runs non-finite entries through silently (JAX warns of nothing): so do these."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)

    return run


def larfg(alpha, x):
    """``(beta, tau, v)``: the reflector with ``H^H [alpha; x] = [beta; 0]``, ``v`` below its 1."""
    xnorm = float(np.linalg.norm(x)) if x.size else 0.0
    if xnorm == 0.0 and np.imag(alpha) == 0:
        # (LAPACK's tau = 0, not alpha * 0: an infinite or NaN alpha with nothing below stays put)
        return alpha, np.zeros((), np.result_type(alpha)).item(), np.zeros_like(x)
    beta = -np.copysign(np.sqrt(abs(alpha) ** 2 + xnorm**2), np.real(alpha))
    if np.iscomplexobj(x) or np.iscomplexobj(alpha):
        tau = complex((beta - np.real(alpha)) / beta, -np.imag(alpha) / beta)
    else:
        tau = (beta - alpha) / beta
    return beta, tau, x / (alpha - beta)


def _last_nonzero(flags):
    nz = np.flatnonzero(flags)
    return int(nz[-1]) + 1 if nz.size else 0


def _apply_left(a, v, tau):
    """``a <- (I - tau v v^H)^H a``... as LAPACK's ``larf('L')`` with ``conj(tau)`` gives ``H^H a``.

    As ``larf``, only up to ``v``'s last nonzero row and ``a``'s last nonzero column there are
    touched: a non-finite ``tau`` (``larfg`` of an infinite column) leaves the rest as it was,
    where a full outer product would spread ``nan * 0`` over it."""
    if tau == 0:
        return
    lastv = _last_nonzero(v != 0)
    lastc = _last_nonzero(np.any(a[:lastv] != 0, axis=0))
    c = a[:lastv, :lastc]
    c -= np.conj(tau) * np.outer(v[:lastv], np.conj(v[:lastv]) @ c)


def _apply_right(a, v, tau):
    """``a <- a (I - tau v v^H)``, over ``larf('R')``'s rows and columns (see ``_apply_left``)."""
    if tau == 0:
        return
    lastv = _last_nonzero(v != 0)
    lastc = _last_nonzero(np.any(a[:, :lastv] != 0, axis=1))
    c = a[:lastc, :lastv]
    c -= tau * np.outer(c @ v[:lastv], np.conj(v[:lastv]))


@_quiet
def gehd2(a):
    """Hessenberg reduction: ``(packed, taus)``, reflectors below the first subdiagonal."""
    a = a.copy()
    n = a.shape[0]
    taus = np.zeros(max(n - 1, 0), a.dtype)
    for i in range(n - 1):
        beta, tau, v = larfg(a[i + 1, i], a[i + 2 :, i])
        a[i + 1, i] = 1
        a[i + 2 :, i] = v
        w = a[i + 1 :, i].copy()
        _apply_right(a[:, i + 1 :], w, tau)
        _apply_left(a[i + 1 :, i + 1 :], w, tau)
        a[i + 1, i] = beta
        taus[i] = tau
    return a, taus


@_quiet
def geqr2(a):
    """QR: ``(packed, taus)``, ``r`` in the upper triangle, reflectors below the diagonal."""
    a = a.copy()
    m, n = a.shape
    k = min(m, n)
    taus = np.zeros(k, a.dtype)
    for i in range(k):
        beta, tau, v = larfg(a[i, i], a[i + 1 :, i])
        a[i + 1 :, i] = v
        w = np.concatenate([[1], v]).astype(a.dtype)
        _apply_left(a[i:, i + 1 :], w, tau)
        a[i, i] = beta
        taus[i] = tau
    return a, taus


def _reflector(a, i):
    return np.concatenate([[1], a[i + 1 :, i]]).astype(a.dtype)


@_quiet
def orgqr(a, taus):
    """``Q = H_0 H_1 ... H_{k-1}``: the first ``a.shape[1]`` columns (``householder_product``)."""
    m, n = a.shape
    q = np.eye(m, n, dtype=a.dtype)
    for i in reversed(range(len(taus))):
        v = _reflector(a, i)
        q[i:, i:] -= taus[i] * np.outer(v, np.conj(v) @ q[i:, i:])
    return q


@_quiet
def ormqr(a, taus, c, left: bool, transpose: bool):
    """``Q c``, ``Q^H c``, ``c Q`` or ``c Q^H`` for ``Q`` of ``geqrf``'s reflectors (``ormqr``/``unmqr``)."""
    c = c.copy()
    k = len(taus)
    # Q = H_0 ... H_{k-1}; Q^H = H_{k-1}^H ... H_0^H; a reflector's H^H has tau conjugated.
    order = range(k) if left == transpose else reversed(range(k))
    for i in order:
        v = _reflector(a, i)
        tau = np.conj(taus[i]) if transpose else taus[i]
        if left:
            c[i:, :] -= tau * np.outer(v, np.conj(v) @ c[i:, :])
        else:
            c[:, i:] -= tau * np.outer(c[:, i:] @ v, np.conj(v))
    return c


def lanv2(a, b, c, d, eps):
    """LAPACK's ``lanv2``: the standardized real 2x2 block ``[[a, b], [c, d]]`` and its rotation.

    Returns ``(a, b, c, d, cs, sn)`` with ``c == 0`` (real eigenvalues) or ``a == d`` and
    ``b * c < 0`` (a complex pair)."""
    cs, sn = 1.0, 0.0
    if c == 0:
        pass
    elif b == 0:
        cs, sn = 0.0, 1.0
        a, d, b, c = d, a, -c, 0.0
    elif a - d == 0 and np.sign(b) != np.sign(c):
        pass
    else:
        temp = a - d
        p = 0.5 * temp
        bcmax = max(abs(b), abs(c))
        bcmis = min(abs(b), abs(c)) * np.copysign(1.0, b) * np.copysign(1.0, c)
        scale = max(abs(p), bcmax)
        z = p / scale * p + bcmax / scale * bcmis
        if z >= 4.0 * eps:  # real eigenvalues: the rotation makes the block upper triangular
            z = p + np.copysign(np.sqrt(scale) * np.sqrt(z), p)
            a = d + z
            d = d - bcmax / z * bcmis
            tau = np.hypot(c, z)
            cs, sn = z / tau, c / tau
            b, c = b - c, 0.0
        else:  # complex (or nearly equal real) eigenvalues: equal diagonal entries
            sigma = b + c
            tau = np.hypot(sigma, temp)
            cs = np.sqrt(0.5 * (1.0 + abs(sigma) / tau))
            sn = -(p / (tau * cs)) * np.copysign(1.0, sigma)
            aa, bb = a * cs + b * sn, -a * sn + b * cs
            cc, dd = c * cs + d * sn, -c * sn + d * cs
            a, b = aa * cs + cc * sn, bb * cs + dd * sn
            c, d = -aa * sn + cc * cs, -bb * sn + dd * cs
            temp = 0.5 * (a + d)
            a = d = temp
            if c != 0:
                if b != 0:
                    if np.sign(b) == np.sign(c):  # real after all: split the block
                        sab, sac = np.sqrt(abs(b)), np.sqrt(abs(c))
                        p = np.copysign(sab * sac, c)
                        tau = 1.0 / np.sqrt(abs(b + c))
                        a, d = temp + p, temp - p
                        b, c = b - c, 0.0
                        cs1, sn1 = sab * tau, sac * tau
                        cs, sn = cs * cs1 - sn * sn1, cs * sn1 + sn * cs1
                else:
                    b, c = -c, 0.0
                    cs, sn = -sn, cs
    return a, b, c, d, cs, sn


def _rot_rows(h, i, j, cols, cs, sn):
    x, y = h[i, cols].copy(), h[j, cols].copy()
    h[i, cols], h[j, cols] = cs * x + sn * y, cs * y - sn * x


def _rot_cols(h, i, j, rows, cs, sn):
    x, y = h[rows, i].copy(), h[rows, j].copy()
    h[rows, i], h[rows, j] = cs * x + sn * y, cs * y - sn * x


def _small_subdiagonal(h, l, i, cabs):
    """The row ``k`` in ``(l, i]`` whose subdiagonal entry is negligible (LAPACK's test), else ``l``."""
    ulp = np.finfo(h.dtype).eps
    smlnum = np.finfo(h.dtype).tiny * (i - l + 1) / ulp
    for k in range(i, l, -1):
        sub = cabs(h[k, k - 1])
        if sub <= smlnum:
            return k
        tst = cabs(h[k - 1, k - 1]) + cabs(h[k, k])
        if tst == 0:
            if k - 2 >= l:
                tst += abs(np.real(h[k - 1, k - 2]))
            if k + 1 <= i:
                tst += abs(np.real(h[k + 1, k]))
        if abs(np.real(h[k, k - 1])) <= ulp * tst:
            ab = max(sub, cabs(h[k - 1, k]))
            ba = min(sub, cabs(h[k - 1, k]))
            aa = max(cabs(h[k, k]), cabs(h[k - 1, k - 1] - h[k, k]))
            bb = min(cabs(h[k, k]), cabs(h[k - 1, k - 1] - h[k, k]))
            s = aa + ab
            if ba * (ab / s) <= max(smlnum, ulp * (bb * (aa / s))):
                return k
    return l


def _real_shifts(h, l, i, its):
    if its == 10:
        s = abs(h[l + 1, l]) + abs(h[l + 2, l + 1])
        h11 = 0.75 * s + h[l, l]
        h12, h21, h22 = -0.4375 * s, s, h11
    elif its == 20:
        s = abs(h[i, i - 1]) + abs(h[i - 1, i - 2])
        h11 = 0.75 * s + h[i, i]
        h12, h21, h22 = -0.4375 * s, s, h11
    else:
        h11, h21, h12, h22 = h[i - 1, i - 1], h[i, i - 1], h[i - 1, i], h[i, i]
    s = abs(h11) + abs(h12) + abs(h21) + abs(h22)
    if s == 0:
        return 0.0, 0.0, 0.0, 0.0
    h11, h21, h12, h22 = h11 / s, h21 / s, h12 / s, h22 / s
    tr = (h11 + h22) / 2
    det = (h11 - tr) * (h22 - tr) - h12 * h21
    rtdisc = np.sqrt(abs(det))
    if det >= 0:
        return tr * s, rtdisc * s, tr * s, -rtdisc * s
    rt1, rt2 = tr + rtdisc, tr - rtdisc
    rt = rt1 if abs(rt1 - h22) <= abs(rt2 - h22) else rt2
    return rt * s, 0.0, rt * s, 0.0


def real_schur(h, z):
    """Francis double-shift QR on the Hessenberg ``h`` (``lahqr``), accumulating into ``z``.
    Returns ``(t, z)``, or ``None`` when the iteration does not converge."""
    n = h.shape[0]
    ulp = np.finfo(h.dtype).eps
    i = n - 1
    while i >= 0:
        l = 0
        for its in range(30 * max(10, n) + 1):
            l = _small_subdiagonal(h, l, i, abs)
            if l > 0:
                h[l, l - 1] = 0.0
            if l >= i - 1:
                break
            rt1r, rt1i, rt2r, rt2i = _real_shifts(h, l, i, its)
            m = l
            for m in range(i - 2, l - 1, -1):  # two consecutive small subdiagonals?
                h21s = h[m + 1, m]
                s = abs(h[m, m] - rt2r) + abs(rt2i) + abs(h21s)
                h21s = h[m + 1, m] / s
                v = np.array(
                    [
                        h21s * h[m, m + 1] + (h[m, m] - rt1r) * ((h[m, m] - rt2r) / s) - rt1i * (rt2i / s),
                        h21s * (h[m, m] + h[m + 1, m + 1] - rt1r - rt2r),
                        h21s * h[m + 2, m + 1],
                    ]
                )
                v /= np.abs(v).sum()
                if m == l:
                    break
                h00 = abs(h[m, m - 1]) * (abs(v[1]) + abs(v[2]))
                h01 = abs(v[0]) * (abs(h[m - 1, m - 1]) + abs(h[m, m]) + abs(h[m + 1, m + 1]))
                if h00 <= ulp * h01:
                    break
            for k in range(m, i):  # the double-shift sweep, a bulge of 3x3 reflectors
                nr = min(3, i - k + 1)
                if k > m:
                    v = h[k : k + nr, k - 1].copy()
                beta, tau, rest = larfg(v[0], v[1:nr])
                if k > m:
                    h[k, k - 1] = beta
                    h[k + 1 : k + nr, k - 1] = 0.0
                elif m > l:
                    h[k, k - 1] *= 1.0 - tau
                w = np.concatenate([[1.0], rest])
                h[k : k + nr, k:] -= tau * np.outer(w, w @ h[k : k + nr, k:])
                rows = slice(0, min(k + 3, i) + 1)
                h[rows, k : k + nr] -= tau * np.outer(h[rows, k : k + nr] @ w, w)
                z[:, k : k + nr] -= tau * np.outer(z[:, k : k + nr] @ w, w)
        else:
            return None
        if l == i - 1:  # a converged 2x2 block: standardize it
            a, b, c, d, cs, sn = lanv2(h[i - 1, i - 1], h[i - 1, i], h[i, i - 1], h[i, i], ulp)
            h[i - 1, i - 1], h[i - 1, i], h[i, i - 1], h[i, i] = a, b, c, d
            _rot_rows(h, i - 1, i, slice(i + 1, n), cs, sn)
            _rot_cols(h, i - 1, i, slice(0, i - 1), cs, sn)
            _rot_cols(z, i - 1, i, slice(None), cs, sn)
        i = l - 1
    return h, z


def _cabs1(x):
    return abs(np.real(x)) + abs(np.imag(x))


def _complex_shift(h, l, i, its):
    if its == 10:
        return 0.75 * abs(np.real(h[l + 1, l])) + h[l, l]
    if its == 20:
        return 0.75 * abs(np.real(h[i, i - 1])) + h[i, i]
    t = h[i, i]
    u = np.sqrt(h[i - 1, i]) * np.sqrt(h[i, i - 1])
    s = _cabs1(u)
    if s == 0:
        return t
    x = 0.5 * (h[i - 1, i - 1] - t)
    sx = _cabs1(x)
    s = max(s, sx)
    y = s * np.sqrt((x / s) ** 2 + (u / s) ** 2)
    if sx > 0 and np.real(x / sx) * np.real(y) + np.imag(x / sx) * np.imag(y) < 0:
        y = -y
    return t - u * (u / (x + y))


def complex_schur(h, z):
    """Single-shift complex QR on the Hessenberg ``h`` (after LAPACK's ``zlahqr``), into ``z``."""
    n = h.shape[0]
    for i in range(1, n):  # real subdiagonal entries, by a diagonal unitary similarity
        if np.imag(h[i, i - 1]) != 0:
            sc = h[i, i - 1] / _cabs1(h[i, i - 1])
            sc = np.conj(sc) / abs(sc)
            h[i, i - 1] = abs(h[i, i - 1])
            h[i, i:] *= sc
            h[: min(n, i + 2), i] *= np.conj(sc)
            z[:, i] *= np.conj(sc)
    i = n - 1
    while i >= 0:
        l = 0
        for its in range(30 * max(10, n) + 1):
            l = _small_subdiagonal(h, l, i, _cabs1)
            if l > 0:
                h[l, l - 1] = 0.0
            if l >= i:
                break
            t = _complex_shift(h, l, i, its)
            ulp = np.finfo(h.dtype).eps
            for m in range(i - 1, l - 1, -1):  # the bulge starts below two small subdiagonals
                h11, h22 = h[m, m], h[m + 1, m + 1]
                h11s, h21 = h11 - t, np.real(h[m + 1, m])
                s = _cabs1(h11s) + abs(h21)
                x = np.array([h11s / s, h21 / s], dtype=h.dtype)
                if m == l:
                    break
                if abs(np.real(h[m, m - 1])) * abs(h21 / s) <= ulp * (
                    _cabs1(x[0]) * (_cabs1(h11) + _cabs1(h22))
                ):
                    break
            for k in range(m, i):
                if k > m:
                    x = h[k : k + 2, k - 1].copy()
                beta, tau, rest = larfg(x[0], x[1:2])
                if k > m:
                    h[k, k - 1] = beta
                    h[k + 1, k - 1] = 0.0
                w = np.array([1.0, rest[0]], dtype=h.dtype)
                _apply_left(h[k : k + 2, k:], w, tau)
                rows = slice(0, min(k + 2, i) + 1)
                _apply_right(h[rows, k : k + 2], w, tau)
                _apply_right(z[:, k : k + 2], w, tau)
                if k == m and m > l:  # a diagonal unitary keeps the subdiagonal real
                    temp = (1.0 - tau) / abs(1.0 - tau)
                    h[m + 1, m] *= np.conj(temp)
                    if m + 2 <= i:
                        h[m + 2, m + 1] *= temp
                    for j in range(m, i + 1):
                        if j != m + 1:
                            h[j, j + 1 :] *= temp
                            h[:j, j] *= np.conj(temp)
                            z[:, j] *= np.conj(temp)
            if np.imag(h[i, i - 1]) != 0:  # keep the last subdiagonal entry real
                temp = h[i, i - 1] / abs(h[i, i - 1])
                h[i, i - 1] = abs(h[i, i - 1])
                h[i, i + 1 :] *= np.conj(temp)
                h[:i, i] *= temp
                z[:, i] *= temp
        else:
            return None
        i = l - 1
    return h, z


def schur(a):
    """``(t, z)`` with ``a = z t z^H``; ``None`` if the QR iteration does not converge."""
    n = a.shape[0]
    if n == 0:
        return a.copy(), a.copy()
    packed, taus = gehd2(a)
    z = np.eye(n, dtype=a.dtype)
    if n > 1:
        z[1:, 1:] = orgqr(packed[1:, :-1], taus)
    h = np.triu(packed, -1)
    out = complex_schur(h, z) if np.iscomplexobj(a) else real_schur(h, z)
    if out is None:
        return None
    t, z = out
    return (np.triu(t) if np.iscomplexobj(a) else np.triu(t, -1)), z
