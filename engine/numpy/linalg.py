"""``jnp.linalg``: norms and the products that live here in the array API."""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ..core import Array, Tracer
from ._contract import matmul, outer, tensordot, vecdot  # noqa: F401
from ._promote import as_operand, canonicalize_axis, check_arraylike, promote_dtypes_inexact
from ._shape import diagonal, matrix_transpose  # noqa: F401
from ._shape import trace as _trace


def _abs(x):
    return lax.abs(x)


def _abs_squared(x):
    """|x|**2, real for complex x (x * x would be the complex square)."""
    if x.dtype.kind == "c":
        return lax.add(lax.integer_pow(lax.real(x), 2), lax.integer_pow(lax.imag(x), 2))
    return lax.mul(x, x)


def _vector_norm(x, axis, ord, keepdims):
    from ._reductions import max, min, sum

    a = _abs(x)
    if ord is None or ord == 2:
        return lax.sqrt(sum(_abs_squared(x), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return sum(
            lax.convert_element_type(lax.ne(x, lax.full_like(x, 0)), a.dtype), axis=axis, keepdims=keepdims
        )
    if ord == 1:
        return sum(a, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    p = lax.full((), ord, a.dtype)
    from ._ufuncs import power

    s = sum(power(a, p), axis=axis, keepdims=keepdims)
    return power(s, lax.div(lax.full((), 1, a.dtype), p))


def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Vector or matrix norm: ``ord`` in None/2/1/inf/-inf/0/p for vectors, None/'fro'/1/-1/inf/-inf
    (and 2/-2/'nuc' on concrete inputs) for matrices.

    >>> jnp.linalg.norm(jnp.array([3.0, 4.0]))
    Array(5., dtype=float32)
    """
    check_arraylike("jnp.linalg.norm", x)
    (x,) = promote_dtypes_inexact(as_operand(x))
    if axis is None:
        if ord is None:
            from ._reductions import sum

            out = lax.sqrt(sum(_abs_squared(x)))
            return lax.reshape(out, (1,) * x.ndim) if keepdims else out
        if x.ndim == 1:
            axis = (0,)
        elif x.ndim == 2:
            axis = (0, 1)
        else:
            raise ValueError("Improper number of dimensions to norm: pass axis for ord with ndim > 2.")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    axes = tuple(canonicalize_axis(a, x.ndim) for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, axes, ord, keepdims)
    if len(axes) != 2:
        raise ValueError(f"Improper number of axes for norm: {axis}")
    return _matrix_norm(x, axes, ord, keepdims)


def _matrix_norm(x, axes, ord, keepdims):
    from ._reductions import max, min, sum

    r, c = axes
    if ord is None or ord == "fro":
        return lax.sqrt(sum(_abs_squared(x), axis=axes, keepdims=keepdims))
    if ord in (1, -1, np.inf, -np.inf):
        inner, outer_ = (r, c) if ord in (1, -1) else (c, r)
        s = sum(_abs(x), axis=inner, keepdims=True)
        out = (max if ord in (1, np.inf) else min)(s, axis=outer_, keepdims=True)
        if not keepdims:
            out = lax.reshape(out, [d for i, d in enumerate(out.shape) if i not in axes])
        return out
    if ord in (2, -2, "nuc"):
        v = None if isinstance(x, Tracer) else core.to_numpy(x)
        if v is None:
            raise NotImplementedError(
                f"matrix norm ord={ord!r} needs singular values, which are not "
                f"traceable yet; use ord='fro' or compute outside jit/grad."
            )
        s = np.linalg.svd(np.moveaxis(v, axes, (-2, -1)), compute_uv=False)
        out = s.max(-1) if ord == 2 else (s.min(-1) if ord == -2 else s.sum(-1))
        if keepdims:
            out = np.expand_dims(out, axes)
        return Array(out.astype(x.dtype))
    raise ValueError(f"Invalid norm order {ord!r} for matrices.")


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    (x,) = promote_dtypes_inexact(as_operand(x))
    if axis is None:
        from ._shape import ravel

        out = _vector_norm(ravel(x), (0,), ord, False)
        return lax.reshape(out, (1,) * x.ndim) if keepdims else out
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return _vector_norm(x, tuple(canonicalize_axis(a, x.ndim) for a in axes), ord, keepdims)


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    (x,) = promote_dtypes_inexact(as_operand(x))
    return _matrix_norm(x, (x.ndim - 2, x.ndim - 1), ord, keepdims)


def trace(x, /, *, offset: int = 0, dtype=None):
    return _trace(x, offset, -2, -1, dtype)


def _concrete(x, name):
    v = None if isinstance(x, Tracer) else core.to_numpy(x)
    if v is None:
        raise NotImplementedError(
            f"jnp.linalg.{name} has no traceable implementation yet; call it on "
            f"concrete arrays (outside jit/grad/vmap)."
        )
    return v


def det(a):
    """Determinant (concrete inputs only for now)."""
    (a,) = promote_dtypes_inexact(as_operand(a))
    return Array(np.linalg.det(_concrete(a, "det")).astype(a.dtype))


def inv(a):
    """Matrix inverse (concrete inputs only for now)."""
    (a,) = promote_dtypes_inexact(as_operand(a))
    return Array(np.linalg.inv(_concrete(a, "inv")).astype(a.dtype))


def solve(a, b):
    """Solve ``a x = b`` (concrete inputs only for now)."""
    a, b = promote_dtypes_inexact(as_operand(a), as_operand(b))
    return Array(np.linalg.solve(_concrete(a, "solve"), _concrete(b, "solve")).astype(a.dtype))
