"""Polynomials: vander and polyval."""

from __future__ import annotations

import numpy as np

from .. import lax
from ..core import Array
from ._promote import as_operand


def vander(x, N: int | None = None, increasing: bool = False):
    from ._ufuncs import power

    x = as_operand(x)
    N = x.shape[0] if N is None else int(N)
    p = np.arange(N)
    if not increasing:
        p = p[::-1]
    return power(lax.reshape(x, (x.shape[0], 1)), Array(p.astype(np.int32).reshape(1, N)))


def polyval(p, x):
    """Evaluate the polynomial with coefficients ``p`` (highest power first) at ``x`` (Horner)."""
    from ._ufuncs import add, multiply

    p = as_operand(p)
    from ._creation import zeros_like

    out = zeros_like(as_operand(x)) if p.shape[0] == 0 else None
    for i in range(p.shape[0]):
        out = p[i] if out is None else add(multiply(out, x), p[i])
    return out
