"""Window functions for spectral analysis: ``bartlett``, ``blackman``, ``hamming``, ``hanning``
(numpy's definitions, in the default float dtype)."""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ._ufuncs import abs, cos  # noqa: A004
from ._staged import staged_as_jit


def _positions(M, name):
    v = core.concrete_or_error(M, f"M argument of jnp.{name}")
    M = int(v.item() if isinstance(v, np.ndarray) else v)
    dtype = core.default_dtype(float)
    if M <= 1:
        return M, None, lax.full((max(M, 0),), 1, dtype)
    return M, lax.iota(dtype, M), None


def blackman(M: int):
    """The Blackman window of ``M`` points.

    >>> blackman(5)[2]
    Array(0.99999994, dtype=float32)
    """
    M, n, short = _positions(M, "blackman")
    if short is not None:
        return short
    return 0.42 - 0.5 * cos(2 * np.pi * n / (M - 1)) + 0.08 * cos(4 * np.pi * n / (M - 1))


def bartlett(M: int):
    """The Bartlett (triangular) window of ``M`` points.

    >>> bartlett(5)
    Array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    M, n, short = _positions(M, "bartlett")
    if short is not None:
        return short
    return 1 - abs(2 * n + 1 - M) / (M - 1)


def hamming(M: int):
    """The Hamming window of ``M`` points."""
    M, n, short = _positions(M, "hamming")
    if short is not None:
        return short
    return 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1))


def hanning(M: int):
    """The Hann window of ``M`` points."""
    M, n, short = _positions(M, "hanning")
    if short is not None:
        return short
    return 0.5 * (1 - cos(2 * np.pi * n / (M - 1)))


def _i0_unscaled(x):
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), lax.bessel_i0e(abs_x))


def _i0_with_zero_slope():
    # JAX pins the derivative at 0 to 0 with a custom_jvp (abs's subgradient would give a NaN-free
    # but arbitrary sign there).
    from ..custom_derivatives import custom_jvp
    from ..api import jvp
    from ._selection import where

    def _i0(x):
        return _i0_unscaled(x)

    f = custom_jvp(_i0)

    @f.defjvp
    def _i0_jvp(primals, tangents):
        out, t = jvp(_i0_unscaled, primals, tangents)
        return out, where(primals[0] == 0, 0.0, t)

    return f


_I0 = []


@staged_as_jit
def i0(x):
    """The modified Bessel function of the first kind, order 0.

    >>> i0(0.0)  # (JAX's float32 series: one ulp over 1)
    Array(1.0000001, dtype=float32, weak_type=True)
    """
    from ._promote import promote_args_inexact

    (x,) = promote_args_inexact("i0", x)
    if np.dtype(x.dtype).kind != "f":
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {x.dtype}")
    if not _I0:
        _I0.append(_i0_with_zero_slope())
    return _I0[0](x)


def kaiser(M: int, beta):
    """The Kaiser window of ``M`` points with shape parameter ``beta``."""
    from ._ufuncs import sqrt

    M, n, short = _positions(M, "kaiser")
    if short is not None:
        return short
    alpha = 0.5 * (M - 1)
    return i0(beta * sqrt(1 - ((n - alpha) / alpha) ** 2)) / i0(beta)
