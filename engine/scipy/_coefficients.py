"""Coefficient tables of the rational and polynomial approximations behind jax.scipy.special
(Cephes, Cody et al., Weideman), and typed constants for the expressions that evaluate them.

>>> table("1.0 -0.5  0.25")
array([ 1.  , -0.5 ,  0.25])
"""

from __future__ import annotations

import numpy as np


def table(text: str) -> np.ndarray:
    """A float64 coefficient table written as whitespace-separated numbers (highest degree first,
    as ``jnp.polyval`` takes them); each use casts it to the operand's dtype."""
    return np.array(text.split(), dtype=np.float64)


def const(x, value):
    """``value`` as a constant for an expression in ``x`` (JAX's ``lax._const``): a Python scalar
    next to a weakly typed scalar, which keeps the result weak as in JAX, else an array of ``x``'s
    dtype."""
    from ..lax.elementwise import _const

    return _const(x, value)


def dtype_of(x) -> np.dtype:
    """The dtype of an array, tracer or Python scalar (a custom rule may see the last)."""
    from ..core import get_aval

    return get_aval(x).dtype
