"""Polynomials: vander and polyval."""

from __future__ import annotations

import numpy as np

from .. import lax
from ._promote import as_operand, broadcast_shapes, check_arraylike, promote_dtypes
from ._staged import staged_as_jit


@staged_as_jit(static_argnames=("N", "increasing"))
def vander(x, N: int | None = None, increasing: bool = False):
    """Columns of powers of ``x``: an iota of ``x``'s dtype (reversed by subtracting it from
    ``N - 1`` unless ``increasing``) as exponents, as JAX stages it.

    >>> jnp.vander(jnp.array([1, 2, 3]), 3)
    Array([[1, 1, 1],
           [4, 2, 1],
           [9, 3, 1]], dtype=int32)
    """
    from ._ufuncs import power

    check_arraylike("vander", x)
    x = as_operand(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else int(N)
    if N < 0:
        raise ValueError("N must be nonnegative")
    iota = lax.iota(x.dtype, N)
    if not increasing:
        iota = lax.sub(np.array(N - 1, x.dtype), iota)
    return power(lax.expand_dims(x, (1,)), lax.expand_dims(iota, (0,)))


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
