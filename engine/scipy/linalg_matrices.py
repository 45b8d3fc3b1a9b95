"""``jax.scipy.linalg``'s special matrices (toeplitz, hankel, circulant, companion, pascal, ...),
built from jnp operations as JAX builds them, so they trace under jit, grad and vmap.

Toeplitz and Hankel matrices are the windows of their diagonals, extracted with a convolution as
JAX does.

>>> toeplitz(jnp.array([1, 2, 3]))
Array([[1, 2, 3],
       [2, 1, 2],
       [3, 2, 1]], dtype=int32)
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import core, lax
from ..api import vmap
from .. import numpy as jnp
from ..numpy._promote import check_arraylike, promote_args_inexact, promote_dtypes
from ..numpy._staged import staged_as_jit
from .special import comb


def _vectorize(fn):
    """``fn`` over vectors, mapped over the (broadcast) leading axes of its vector arguments
    (JAX: ``jnp.vectorize`` with a signature)."""

    def mapped(*vs):
        batch = np.broadcast_shapes(*(v.shape[:-1] for v in vs))
        if not batch:
            return fn(*vs)
        flat = [
            jnp.broadcast_to(v, batch + v.shape[-1:]).reshape((math.prod(batch), v.shape[-1])) for v in vs
        ]
        out = vmap(fn)(*flat)
        return out.reshape(batch + out.shape[1:])

    return mapped


def _windows(v, ncols: int):
    """The length-``ncols`` windows of vector ``v``, one a row: ``W[i, j] = v[i + j]``, extracted by a
    convolution with the identity (``conv_general_dilated_patches``), as JAX builds Toeplitz and
    Hankel matrices."""
    return lax.conv_general_dilated_patches(
        v.reshape((1, v.shape[0], 1)),
        (ncols,),
        (1,),
        "VALID",
        dimension_numbers=("NTC", "IOT", "NTC"),
        precision=lax.Precision.HIGHEST,
    )[0]


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (``r[0]`` ignored);
    ``r`` defaults to ``conj(c)``. Leading axes are batch axes."""
    if r is None:
        check_arraylike("toeplitz", c)
        r = jnp.conjugate(jnp.asarray(c))
    else:
        check_arraylike("toeplitz", c, r)
    return _toeplitz(jnp.atleast_1d(jnp.asarray(c)), jnp.atleast_1d(jnp.asarray(r)))


def _toeplitz_2d(c, r):
    (m,), (n,) = c.shape, r.shape
    if m == 0 or n == 0:
        return jnp.empty((m, n), dtype=jnp.promote_types(c.dtype, r.dtype))
    # the windows of the reversed column then the row are the matrix's rows, bottom up
    return jnp.flip(_windows(jnp.concatenate((c[::-1], r[1:])), n), axis=0)


_toeplitz = _vectorize(_toeplitz_2d)


def hankel(c, r=None):
    """The Hankel matrix with first column ``c`` and last row ``r`` (``r[0]`` ignored); ``r``
    defaults to zeros. Leading axes are batch axes."""
    if r is None:
        check_arraylike("hankel", c)
        c = jnp.asarray(c)
        r = jnp.zeros_like(c)
    else:
        check_arraylike("hankel", c, r)
        c, r = jnp.asarray(c), jnp.asarray(r)
    for name, v in (("c", c), ("r", r)):
        if v.ndim == 0:
            raise ValueError(f"hankel: {name} must be at least 1-dimensional, got a scalar.")
    if c.ndim < r.ndim:
        c = lax.expand_dims(c, range(r.ndim - c.ndim))
    elif r.ndim < c.ndim:
        r = lax.expand_dims(r, range(c.ndim - r.ndim))
    return _hankel(c, r)


def _hankel_2d(c, r):
    (m,), (n,) = c.shape, r.shape
    if m == 0 or n == 0:
        return jnp.empty((m, n), dtype=jnp.result_type(c, r))
    return _windows(jnp.concatenate((c, r[1:])), n)


_hankel = _vectorize(_hankel_2d)


def circulant(c):
    """The circulant matrix whose first column is ``c``."""
    check_arraylike("circulant", c)
    return _circulant(jnp.atleast_1d(jnp.asarray(c)))


def _circulant_2d(c):
    (n,) = c.shape
    return c[(jnp.arange(n)[:, None] - jnp.arange(n)[None, :]) % n]


_circulant = _vectorize(_circulant_2d)


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` on the first row, survivals ``s`` below the diagonal."""
    check_arraylike("leslie", f, s)
    f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if f.shape[-1] < 2:
        raise ValueError(f"The length of f along the last axis must be at least 2; got shape {f.shape}.")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(
            "Incorrect lengths for f and s. The length of s along the last axis must be one less than "
            f"the length of f; got f shape {f.shape} and s shape {s.shape}."
        )
    return _leslie(f, s)


def _leslie_2d(f, s):
    f, s = promote_dtypes(f, s)
    return jnp.diag(s, k=-1).at[0].set(f)


_leslie = _vectorize(_leslie_2d)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest degree first)."""
    (a,) = promote_args_inexact("companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] < 2:
        raise ValueError(f"The length of `a` along the last axis must be at least 2; got shape {a.shape}.")
    return _companion(a)


def _companion_2d(a):
    first_row = -a[1:] / a[0]
    m = a.shape[0] - 1
    return jnp.eye(m, m, k=-1, dtype=first_row.dtype).at[0].set(first_row)


_companion = _vectorize(_companion_2d)


def fiedler(a):
    """The symmetric Fiedler matrix ``|a[i] - a[j]|``."""
    check_arraylike("fiedler", a)
    a = jnp.atleast_1d(a)
    return jnp.abs(a[..., None] - a[..., None, :])


def fiedler_companion(a):
    """The pentadiagonal Fiedler companion matrix of the polynomial ``a`` (its eigenvalues are the
    polynomial's roots)."""
    (a,) = promote_args_inexact("fiedler_companion", a)
    a = jnp.atleast_1d(a)
    if a.shape[-1] == 0:
        raise ValueError(
            "fiedler_companion requires the last axis of 'a' to have nonzero length, but got an array "
            f"of shape {a.shape}."
        )
    return _fiedler_companion(a)


def _fiedler_companion_2d(a):
    n = a.shape[0] - 1
    if n == 0:
        return jnp.empty_like(a, shape=(0, 0))
    a = a / a[0]
    if n == 1:
        return -a[1:].reshape(1, 1)
    i, j = jnp.arange(n)[:, None], jnp.arange(n)[None, :]
    even, odd = i % 2 == 0, i % 2 == 1
    one, zero = jnp.array(1, dtype=a.dtype), jnp.array(0, dtype=a.dtype)
    conditions = [
        (i == 0) & (j == 0),
        (i == 1) & (j == 0),
        (j == i + 1) & even,
        (j == i + 2) & even,
        (j == i - 1) & even & (i >= 2),
        (j == i - 2) & odd & (i >= 3),
    ]
    choices = [-a[1], one, -a[jnp.minimum(i + 2, n)], one, -a[jnp.minimum(i + 1, n)], one]
    return jnp.select(conditions, choices, default=zero)


_fiedler_companion = _vectorize(_fiedler_companion_2d)


@staged_as_jit(static_argnames=("n", "mode"))
def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix ``A`` with ``A @ v == jnp.convolve(a, v, mode)`` for ``v`` of length ``n``."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    check_arraylike("convolution_matrix", a)
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {a.shape}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pad = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    az, raz = jnp.pad(a, pad), jnp.pad(jnp.flip(a, axis=-1), pad)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb, te = trim // 2, trim - trim // 2
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    col0 = lax.slice_in_dim(az, tb, length - te, axis=-1)
    row0 = lax.slice_in_dim(raz, length - n - tb, length - tb, axis=-1)
    return toeplitz(col0, row0)


@staged_as_jit(static_argnames=("n",))
def hilbert(n: int):
    """The Hilbert matrix ``1 / (i + j + 1)``."""
    a = lax.broadcasted_iota(core.default_dtype(float), (n, 1), 0)
    return 1 / (a + a.T + 1)


@staged_as_jit(static_argnames=("n",))
def invhilbert(n: int):
    """The inverse of the ``n x n`` Hilbert matrix (closed form, in floating point)."""
    a = jnp.arange(n, dtype=core.default_dtype(float))
    i, j = a[:, None], a[None, :]
    s = i + j
    return (-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1) * comb(s, i) ** 2


def _kind(kind):
    kind = "symmetric" if kind is None else kind
    valid = ["symmetric", "lower", "upper"]
    if kind not in valid:
        raise ValueError(f"Expected kind to be one of: {valid}; got {kind}")
    return kind


@staged_as_jit
def _binom(n, k):
    a, b, c = lax.lgamma(n + 1.0), lax.lgamma(n - k + 1.0), lax.lgamma(k + 1.0)
    return lax.exp(a - b - c)


@staged_as_jit(static_argnames=("n", "kind"))
def pascal(n: int, kind: str | None = None):
    """The Pascal matrix of binomial coefficients (``kind``: symmetric, lower or upper)."""
    kind = _kind(kind)
    a = jnp.arange(n, dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return jnp.dot(lower, lower.T)


@staged_as_jit(static_argnames=("n", "kind"))
def invpascal(n: int, kind: str | None = None):
    """The inverse of the Pascal matrix (closed form, in floating point)."""
    kind = _kind(kind)
    a = jnp.arange(n, dtype=core.default_dtype(float))
    i, j = a[:, None], a[None, :]
    lower_inv = ((-1.0) ** (i - j)) * _binom(i, j)
    if kind == "lower":
        return lower_inv
    if kind == "upper":
        return lower_inv.T
    return jnp.dot(lower_inv.T, lower_inv)


@staged_as_jit(static_argnames=("n", "full"))
def helmert(n: int, full: bool = False):
    """The Helmert matrix (rows of orthonormal contrasts; with ``full``, a first row 1/sqrt(n))."""
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i, j = jnp.arange(n - 1)[:, None], jnp.arange(n)[None, :]
    k = i + 1
    k_f = k.astype(core.default_dtype(float))
    denom = jnp.sqrt(k_f * (k_f + 1))
    H = jnp.where(j <= i, 1.0 / denom, jnp.where(j == k, -k_f / denom, jnp.zeros_like(denom)))
    if full:
        H = jnp.concatenate([jnp.full((1, n), 1.0 / jnp.sqrt(n), dtype=H.dtype), H], axis=0)
    return H


@staged_as_jit(static_argnames=("n", "dtype"))
def hadamard(n: int, dtype=int):
    """The Sylvester-construction Hadamard matrix for ``n`` a power of 2."""
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    H = jnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        H = jnp.block([[H, H], [H, -H]])
    return H


@staged_as_jit(static_argnames=("n", "scale", "dtype"))
def dft(n: int, scale: str | None = None, *, dtype=None):
    """The DFT matrix ``exp(-2 pi i jk / n)`` (``scale``: None, 'sqrtn' or 'n')."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    dtype = core.default_dtype(complex) if dtype is None else core.canonical_dtype(dtype)
    if np.dtype(dtype).kind != "c":
        raise ValueError(f"dtype must be a complex floating-point type; got {dtype}.")
    a = lax.iota(dtype, n)  # (what JAX's jnp.arange(n, dtype) stages)
    omegas = jnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        omegas = omegas / jnp.sqrt(n)
    elif scale == "n":
        omegas = omegas / n
    return omegas
