"""Polynomial arithmetic on coefficient vectors (highest power first), as numpy's ``poly*``
functions: sums, products (convolutions), quotients, derivatives, integrals, fits."""

from __future__ import annotations

import operator

import numpy as np

from .. import core, lax
from ..lax.linalg_eig import complex_dtype
from ._contract import convolve, dot, outer
from ._creation import arange, array, full, ones, zeros
from ._promote import as_operand, check_arraylike, promote_dtypes, promote_dtypes_inexact
from ._selection import maximum
from ._shape import atleast_1d, concatenate
from ._staged import staged_as_jit


def _static_int(value, what):
    v = core.concrete_or_error(value, what)
    return operator.index(v.item() if isinstance(v, np.ndarray) else v)


@staged_as_jit
def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with the given roots.

    >>> poly(jnp.array([1.0, 2.0]))
    Array([ 1., -3.,  2.], dtype=float32)
    """
    check_arraylike("poly", seq_of_zeros)
    (z,) = promote_dtypes_inexact(as_operand(seq_of_zeros))
    z = atleast_1d(z)
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        from .linalg import eigvals

        z = eigvals(z)  # the characteristic polynomial of the matrix
    if z.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if len(z) == 0:
        return ones((), dtype=z.dtype)
    a = ones((1,), dtype=z.dtype)
    for k in range(len(z)):
        a = convolve(a, array([1, -z[k]], dtype=z.dtype), mode="full")
    return a


@staged_as_jit
def polyadd(a1, a2):
    """The sum of two polynomials.

    >>> polyadd(jnp.array([1, 2]), jnp.array([1, 0, 0]))
    Array([1, 1, 2], dtype=int32)
    """
    check_arraylike("polyadd", a1, a2)
    a1, a2 = promote_dtypes(as_operand(a1), as_operand(a2))
    if a2.shape[0] <= a1.shape[0]:
        return a1.at[-a2.shape[0] :].add(a2)
    return a2.at[-a1.shape[0] :].add(a1)


@staged_as_jit
def polysub(a1, a2):
    """The difference of two polynomials."""
    check_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes(as_operand(a1), as_operand(a2))
    return polyadd(a1, -a2)


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """The product of two polynomials (a full convolution of their coefficients).

    >>> polymul(jnp.array([1.0, 1.0]), jnp.array([1.0, -1.0]))
    Array([ 1.,  0., -1.], dtype=float32)
    """
    check_arraylike("polymul", a1, a2)
    a1, a2 = promote_dtypes_inexact(as_operand(a1), as_operand(a2))
    if trim_leading_zeros and (len(a1) > 1 or len(a2) > 1):
        from ._array_edits import trim_zeros

        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if len(a1) == 0:
        a1 = zeros(1, dtype=a2.dtype)
    if len(a2) == 0:
        a2 = zeros(1, dtype=a1.dtype)
    return convolve(a1, a2, mode="full")


def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """Quotient and remainder of ``u / v`` (the remainder keeps ``u``'s length unless trimmed).

    >>> polydiv(jnp.array([1.0, -3.0, 2.0]), jnp.array([1.0, -1.0]))
    (Array([ 1., -2.], dtype=float32), Array([0., 0., 0.], dtype=float32))
    """
    check_arraylike("polydiv", u, v)
    u, v = promote_dtypes_inexact(as_operand(u), as_operand(v))
    m, n = len(u) - 1, len(v) - 1
    scale = 1.0 / v[0]
    q = zeros(max(m - n + 1, 1), dtype=u.dtype)
    for k in range(m - n + 1):  # long division, one leading coefficient at a time
        d = scale * u[k]
        q = q.at[k].set(d)
        u = u.at[k : k + n + 1].add(-d * v)
    if trim_leading_zeros:
        tol = float(np.sqrt(np.finfo(u.dtype).eps))
        w = np.asarray(core.concrete_or_error(u, "polydiv(trim_leading_zeros=True)"))
        nz = np.abs(w) >= tol
        u = u[int(np.argmax(nz)) :] if nz.any() else zeros(0, dtype=u.dtype)
    return q, u


@staged_as_jit(static_argnames=("m",))
def polyder(p, m: int = 1):
    """The ``m``-th derivative of a polynomial.

    >>> polyder(jnp.array([1.0, 1.0, 1.0, 1.0]))
    Array([3., 2., 1.], dtype=float32)
    """
    check_arraylike("polyder", p)
    m = _static_int(m, "'m' argument of jnp.polyder")
    (p,) = promote_dtypes_inexact(as_operand(p))
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    coeff = (arange(m, len(p), dtype=p.dtype)[None] - arange(m, dtype=p.dtype)[:, None]).prod(0)
    return p[:-m] * coeff[::-1]


@staged_as_jit(static_argnames=("m",))
def polyint(p, m: int = 1, k=None):
    """The ``m``-th antiderivative of a polynomial, with integration constants ``k``.

    >>> polyint(jnp.array([3.0, 2.0, 1.0]))
    Array([1., 1., 1., 0.], dtype=float32)
    """
    m = _static_int(m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    p, k = promote_dtypes_inexact(as_operand(p), as_operand(k))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = atleast_1d(k)
    if len(k) == 1:
        k = full((m,), k[0])
    if k.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    grid = arange(len(p) + m, dtype=p.dtype)[None] - arange(m, dtype=p.dtype)[:, None]
    coeff = maximum(1, grid).prod(0)[::-1]
    return concatenate((p, k)) / coeff


@staged_as_jit(static_argnames=("deg", "rcond", "full", "cov"))
def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):  # noqa: A002
    """Least-squares polynomial fit of degree ``deg`` (numpy's ``polyfit``).

    >>> polyfit(jnp.array([0.0, 1.0, 2.0]), jnp.array([1.0, 3.0, 5.0]), 1).round(4)
    Array([2., 1.], dtype=float32)
    """
    from . import linalg
    from ._polynomial import vander

    check_arraylike("polyfit", x, y, *(() if w is None else (w,)))
    x, y = as_operand(x), as_operand(y)
    deg = _static_int(deg, "deg must be int")
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x) * float(np.finfo(promote_dtypes_inexact(x)[0].dtype).eps)
    rcond = float(rcond)  # (static, as JAX's)
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = promote_dtypes_inexact(as_operand(w))
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    from ._ufuncs import sqrt

    scale = sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale[None, :]
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale[None, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, as_operand(rcond)
    if not cov:
        return c
    base = linalg.inv(dot(lhs.T, lhs)) / outer(scale, scale)
    if cov == "unscaled":
        fac = array(1.0)
    else:
        if len(x) <= order:
            raise ValueError("the number of data points must exceed order to scale the covariance matrix")
        fac = resids / (len(x) - order)
    if y.ndim == 1:
        return c, base * atleast_1d(fac)[None]
    return c, base[:, :, None] * atleast_1d(fac)[None, None, :]


@staged_as_jit
def _roots_no_zeros(p):
    """The eigenvalues of ``p``'s companion matrix (``p[0]`` nonzero)."""
    from ._diagonal import diag
    from .linalg import eigvals

    if p.size < 2:
        return array([], dtype=complex_dtype(p.dtype))
    A = diag(ones((p.size - 2,), p.dtype), -1)
    A = A.at[0, :].set(-p[1:] / p[0])
    return eigvals(A)


@staged_as_jit
def _roots_with_zeros(p, num_leading_zeros):
    from ._selection import where
    from ._shape import roll

    p = where(len(p) == num_leading_zeros, 1.0, p)  # (an all-zero p would not factor)
    roots = _roots_no_zeros(roll(p, -num_leading_zeros))
    roots = lax.sort_key_val(roots == 0, roots)[1]  # zero roots last
    return where(arange(roots.size) < roots.size - num_leading_zeros, roots, complex(np.nan, np.nan))


def roots(p, *, strip_zeros: bool = True):
    """The roots of the polynomial with coefficients ``p`` (highest power first), as the eigenvalues
    of its companion matrix; leading zeros are stripped (``strip_zeros=False``, for ``jit``: their
    roots are NaN).

    >>> jnp.roots(jnp.array([1.0, -3.0, 2.0]))
    Array([2.+0.j, 1.+0.j], dtype=complex64)
    """
    from ._reductions import all as all_
    from ._reductions import argmin
    from ._selection import where

    check_arraylike("roots", p)
    (p,) = promote_dtypes_inexact(as_operand(p))
    p = atleast_1d(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p.size < 2:
        return array([], dtype=complex_dtype(p.dtype))
    num_leading_zeros = where(all_(p == 0), len(p), argmin(p == 0))
    if strip_zeros:
        num_leading_zeros = _static_int(
            num_leading_zeros,
            "The error occurred in the jnp.roots() function. To use this within a JIT-compiled "
            "context, pass strip_zeros=False, but be aware that leading zeros will result in some "
            "returned roots being set to NaN.",
        )
        return _roots_no_zeros(p[num_leading_zeros:])
    return _roots_with_zeros(p, num_leading_zeros)
