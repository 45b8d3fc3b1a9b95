"""``jnp.linalg.det`` and ``slogdet`` as JAX 0.10.2 formulates them.

Past 3x3 the determinant is ``sign * exp(logabsdet)`` under a custom JVP whose tangent is
``trace(adjugate(a) @ da)``, computed from the LU factors so it stays finite (and right) for
singular matrices: the adjugate of a rank n-1 matrix is not zero although ``det(a) * inv(a)`` is
undefined. ``slogdet``'s JVP is ``trace(solve(a, da))``, its sign's is zero.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import lax
from ..lax import linalg as lax_linalg


@functools.cache
def _jnp():
    from .. import numpy as jnp

    return jnp


def _slogdet_formula(a, n):
    """sign and log|det| of 1x1 and 2x2 matrices from the closed-form determinant."""
    jnp = _jnp()
    if n == 1:
        det = a[..., 0, 0]
    else:
        a00, a01, a10, a11 = a[..., 0, 0], a[..., 0, 1], a[..., 1, 0], a[..., 1, 1]
        det = (a00 * a11) - (a01 * a10)
    abs_det = jnp.abs(det)
    return jnp.sign(det), jnp.real(jnp.log(abs_det))


def _slogdet_small_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    n = x.shape[-1]
    sign, ans = _slogdet_small(x)
    if n == 1:
        ans_dot = g[..., 0, 0] / x[..., 0, 0]
    else:
        x00, x01, x10, x11 = x[..., 0, 0], x[..., 0, 1], x[..., 1, 0], x[..., 1, 1]
        det = (x00 * x11) - (x01 * x10)
        ans_dot = (g[..., 0, 0] * x11 - g[..., 0, 1] * x10 - g[..., 1, 0] * x01 + g[..., 1, 1] * x00) / det
    return (sign, ans), (_jnp().zeros_like(sign), ans_dot)


def _slogdet_lu_fn(a):
    jnp = _jnp()
    dtype = a.dtype
    lu, pivot, _ = lax_linalg.lu(a)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    is_zero = jnp.any(diag == jnp.array(0, dtype=dtype), axis=-1)
    iota = lax.expand_dims(jnp.arange(a.shape[-1], dtype=pivot.dtype), range(pivot.ndim - 1))
    parity = jnp.count_nonzero(pivot != iota, axis=-1)
    if jnp.iscomplexobj(a):  # the sign is the phase: the product of the pivots' phases
        sign = jnp.prod(diag / jnp.abs(diag).astype(diag.dtype), axis=-1)
    else:
        sign = jnp.array(1, dtype=dtype)
        parity = parity + jnp.count_nonzero(diag < 0, axis=-1)
    sign = jnp.where(is_zero, jnp.array(0, dtype=dtype), sign * jnp.array(-2 * (parity % 2) + 1, dtype=dtype))
    logdet = jnp.where(
        is_zero, jnp.array(-np.inf, dtype=dtype), jnp.sum(jnp.log(jnp.abs(diag)).astype(dtype), axis=-1)
    )
    return sign, jnp.real(logdet)


def _slogdet_qr_fn(a):
    """sign and log|det| from the QR factorization (no row pivoting): |det| is the product of R's
    diagonal; each Householder reflector actually applied (tau != 0) flips the sign."""
    jnp = _jnp()
    if jnp.iscomplexobj(a):
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    n = a.shape[-1]
    r, taus = lax_linalg.geqrf(a)
    diag = jnp.diagonal(r, axis1=-2, axis2=-1)
    log_abs_det = jnp.sum(jnp.log(jnp.abs(diag)), axis=-1)
    sign_diag = jnp.prod(jnp.sign(diag), axis=-1)
    sign_taus = jnp.prod(jnp.where(taus[..., : n - 1] != 0, -1, 1), axis=-1).astype(sign_diag.dtype)
    return sign_diag * sign_taus, log_abs_det


def _slogdet_jvp(primals, tangents):
    jnp = _jnp()
    (x,), (g,) = primals, tangents
    sign, ans = jnp.linalg.slogdet(x)
    ans_dot = jnp.trace(jnp.linalg.solve(x, g), axis1=-1, axis2=-2)
    if jnp.iscomplexobj(x):  # the imaginary part of trace(x^-1 g) turns the phase
        sign_dot = (ans_dot - jnp.real(ans_dot).astype(ans_dot.dtype)) * sign
        return (sign, ans), (sign_dot, jnp.real(ans_dot))
    return (sign, ans), (jnp.zeros_like(sign), ans_dot)


def _cofactor_solve(a, b):
    """``(det(a), adjugate(a) @ b)``, finite for singular ``a`` (see the module docstring).

    With ``a = P L U``, ``det(a) * solve(a, b) = prod(diag(U)) * U^-1 L^-1 P^-1 b``. Replacing
    U's last diagonal entry by ``1 / (its other entries' product, signed)`` keeps that last
    triangular solve finite when ``a`` has rank n-1; rows other than the last are scaled by
    ``det(a)`` (zero then). Matrices of lower rank, whose solves overflow, get zero (their
    adjugate is zero)."""
    jnp = _jnp()
    n = a.shape[-1]
    if n == 1:
        return a[..., 0, 0], b
    lu, pivots, permutation = lax_linalg.lu(a)
    batch = tuple(np.broadcast_shapes(lu.shape[:-2], b.shape[:-2]))
    x = jnp.broadcast_to(b, batch + b.shape[-2:])
    lu = jnp.broadcast_to(lu, batch + lu.shape[-2:])
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    iota = lax.expand_dims(jnp.arange(n, dtype=pivots.dtype), range(pivots.ndim - 1))
    parity = jnp.count_nonzero(pivots != iota, axis=-1)
    sign = jnp.asarray(-2 * (parity % 2) + 1, dtype=a.dtype)
    partial_det = jnp.cumprod(diag, axis=-1) * sign[..., None]  # [..., -1] is det(a)
    lu = lu.at[..., -1, -1].set(1.0 / partial_det[..., -2])
    permutation = jnp.broadcast_to(permutation, (*batch, n))
    iotas = jnp.ix_(*(lax.iota(np.int32, s) for s in (*batch, 1)))
    d = jnp.ones(x.shape[:-1], x.dtype)
    d = lax_linalg.triangular_solve(lu, d, left_side=True, lower=False)
    d = jnp.any(jnp.logical_or(jnp.isnan(d), jnp.isinf(d)), axis=-1)
    d = jnp.tile(d[..., None, None], d.ndim * (1,) + x.shape[-2:])
    x = jnp.where(d, jnp.zeros_like(x), x)
    x = x[iotas[:-1] + (permutation, slice(None))]
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    x = jnp.concatenate((x[..., :-1, :] * partial_det[..., -1, None, None], x[..., -1:, :]), axis=-2)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    x = jnp.where(d, jnp.zeros_like(x), x)
    return partial_det[..., -1], x


def _det_fn(a):
    sign, logdet = _jnp().linalg.slogdet(a)
    return sign * _jnp().exp(logdet).astype(sign.dtype)


def _det_jvp(primals, tangents):
    (x,), (g,) = primals, tangents
    y, z = _cofactor_solve(x, g)
    return y, _jnp().trace(z, axis1=-1, axis2=-2)


@functools.cache
def _custom(name):
    from ..custom_derivatives import custom_jvp

    fn, rule = {
        "_slogdet_small": (_slogdet_small_fn, _slogdet_small_jvp),
        "_slogdet_lu": (_slogdet_lu_fn, _slogdet_jvp),
        "_slogdet_qr": (_slogdet_qr_fn, _slogdet_jvp),
        "_det": (_det_fn, _det_jvp),
    }[name]
    fn.__name__ = name
    f = custom_jvp(fn)
    f.defjvp(rule)
    return f


def _slogdet_small_fn(a):
    return _slogdet_formula(a, a.shape[-1])


def _slogdet_small(a):
    return _custom("_slogdet_small")(a)


def det_by_lu(a):
    """The determinant of a square matrix past 3x3 (JAX's ``_det``)."""
    return _custom("_det")(a)


def slogdet(a, method=None):
    """(sign, log|det|) by JAX's method: closed forms up to 2x2, else LU; or QR (``method='qr'``)."""
    if method == "qr":
        return _custom("_slogdet_qr")(a)
    if method not in (None, "lu"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), and 'qr'.")
    if a.shape[-1] in (1, 2):  # (a 0x0 matrix goes through LU, as in JAX: det 1)
        return _slogdet_small(a)
    return _custom("_slogdet_lu")(a)
