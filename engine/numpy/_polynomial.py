"""Polynomials: vander and polyval."""

from __future__ import annotations

import numpy as np

from .. import lax
from ..core import Array
from ._promote import as_operand, broadcast_shapes, check_arraylike, promote_dtypes
from ._staged import staged_as_jit


def vander(x, N: int | None = None, increasing: bool = False):
    from ._ufuncs import power

    x = as_operand(x)
    N = x.shape[0] if N is None else int(N)
    p = np.arange(N)
    if not increasing:
        p = p[::-1]
    return power(lax.reshape(x, (x.shape[0], 1)), Array(p.astype(np.int32).reshape(1, N)))


def polyval(p, x, *, unroll: int = 16):
    """Evaluate the polynomial with coefficients ``p`` (highest power first) at ``x``: Horner's rule
    as a ``lax.scan`` over ``p`` (``unroll`` steps per iteration), as JAX stages it.

    >>> jnp.polyval(jnp.array([1.0, 0.0, -1.0]), jnp.array([2.0, 3.0]))
    Array([3., 8.], dtype=float32)
    """
    check_arraylike("polyval", p, x)
    return _polyval(as_operand(p), as_operand(x), unroll=unroll)


@staged_as_jit(name="polyval", static_argnames=("unroll",))
def _polyval(p, x, unroll=16):
    p, x = promote_dtypes(p, x)
    shape = broadcast_shapes(p.shape[1:], x.shape)
    y = lax.full_like(x, 0, shape=shape, dtype=x.dtype)
    y, _ = lax.scan(lambda y, p_i: (y * x + p_i, None), y, p, unroll=unroll)
    return y
