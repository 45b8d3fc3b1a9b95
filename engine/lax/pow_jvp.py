"""pow's JVP rule, JAX's: in the base, ``y * x**(y - 1)`` (where an integer exponent is 0, 0; the
operands broadcast to one shape first, as JAX's ``_maybe_broadcast``); in the exponent,
``log(x) * x**y`` with a zero base's log taken at 1."""

from __future__ import annotations

import numpy as np

from .. import ad, core
from ..ad import Zero
from ..narrow_dtypes import kind as dtype_kind
from .elementwise import _const, _lax, _one, full_like, log, mul, pow_p, select, sub


def _pow_jvp_x(g, x, y):
    # JAX's rule: y * x**(y-1), at the operands made strong, so a float exponent gives nan at
    # x == y == 0 as in JAX; an integer exponent 0 gives 0 there (JAX selects it).
    lax = _lax()
    dtype = core.get_aval(x).dtype
    integer_y = dtype_kind(core.get_aval(y).dtype) in "iu"
    x, y = lax.convert_element_type(x, dtype), lax.convert_element_type(y, dtype)
    if not integer_y:
        return mul(g, mul(y, lax.pow(x, sub(y, _one(y)))))
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))  # (JAX's _maybe_broadcast of both)
    x, y = _broadcast_to(x, shape), _broadcast_to(y, shape)
    y_is_zero = lax.eq(y, _const(y, 0))
    zeros = full_like(y, 0)
    y_or_one = select(lax.eq(y, _const(y, 0)), full_like(y, 1), y)  # (JAX's _replace_zero)
    return mul(g, select(y_is_zero, zeros, mul(y_or_one, lax.pow(x, sub(y, _one(y))))))


def _broadcast_to(x, shape):
    """JAX's ``_maybe_broadcast``: ``x`` broadcast to ``shape`` along its dimensions that agree."""
    x_shape = np.shape(x)
    if x_shape == shape:
        return x
    dims = [i for i, (a, b) in enumerate(zip(x_shape, shape)) if a == b]
    if len(dims) != len(x_shape):
        x = _lax().reshape(x, [x_shape[i] for i in dims])
    return _lax().broadcast_in_dim(x, shape, dims)


def _pow_jvp_y(g, ans, x, y):
    # log(x), with x == 0 replaced by 1 (JAX's _replace_zero), times x**y.
    one_if_zero = select(_lax().eq(x, _const(x, 0)), full_like(x, 1), x)
    return mul(g, mul(log(one_if_zero), ans))


def _pow_jvp(primals, tangents):
    x, y = primals
    gx, gy = tangents
    ans = pow_p.bind(x, y)
    acc = Zero(ad.tangent_aval(core.get_aval(ans)))
    if type(gx) is not Zero:
        acc = ad.add_tangents(acc, _pow_jvp_x(gx, x, y))
    if type(gy) is not Zero:
        acc = ad.add_tangents(acc, _pow_jvp_y(gy, ans, x, y))
    return ans, acc


ad.jvp_rules[pow_p] = _pow_jvp
