"""Window functions for spectral analysis: ``bartlett``, ``blackman``, ``hamming``, ``hanning``
(numpy's definitions, in the default float dtype)."""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ._ufuncs import abs, cos  # noqa: A004


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
