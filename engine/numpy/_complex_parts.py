"""Complex parts (real, imag, conjugate, angle) and the type predicates (iscomplexobj, isscalar, ...)."""

from __future__ import annotations

import numpy as np

from .. import lax
from ..core import Array, Tracer
from ._promote import as_operand, promote_args, promote_args_inexact
from ..narrow_dtypes import kind as dtype_kind


def real(val, /):
    """The real part; real inputs are returned unchanged.

    >>> jnp.real(1 + 2j)
    Array(1., dtype=float32, weak_type=True)
    """
    (val,) = promote_args("real", val)
    return lax.real(val) if dtype_kind(val.dtype) == "c" else val


def imag(val, /):
    """The imaginary part; zeros for real inputs."""
    (val,) = promote_args("imag", val)
    return lax.imag(val) if dtype_kind(val.dtype) == "c" else lax.full_like(val, 0)


def conjugate(x, /):
    """The complex conjugate; real inputs are returned unchanged."""
    (x,) = promote_args("conjugate", x)
    return lax.conj(x) if dtype_kind(x.dtype) == "c" else x


conj = conjugate


def iscomplexobj(x) -> bool:
    return dtype_kind(np.dtype(getattr(x, "dtype", np.result_type(x)))) == "c"


def isrealobj(x) -> bool:
    return not iscomplexobj(x)


def isscalar(element) -> bool:
    if isinstance(element, (Array, Tracer, np.ndarray, np.generic)):
        return element.ndim == 0 if not isinstance(element, np.generic) else True
    return isinstance(element, (bool, int, float, complex))


def angle(z, deg: bool = False):
    """The counterclockwise angle from the positive real axis, ``atan2(imag(z), real(z))``."""
    (z,) = promote_args_inexact("angle", z)
    out = lax.atan2(imag(z), real(z))
    if not deg:
        return out
    from ._ufuncs import rad2deg  # (_ufuncs builds on this module)

    return rad2deg(out)


def iscomplex(x, /):
    """True where the imaginary part is nonzero."""
    x = as_operand(x)
    if dtype_kind(x.dtype) != "c":
        return lax.full(x.shape, False, np.bool_)
    return lax.ne(lax.imag(x), lax.full((), 0, lax.imag(x).dtype))


def isreal(x, /):
    """True where the imaginary part is zero."""
    x = as_operand(x)
    if dtype_kind(x.dtype) != "c":
        return lax.full(x.shape, True, np.bool_)
    return lax.eq(lax.imag(x), lax.full((), 0, lax.imag(x).dtype))
