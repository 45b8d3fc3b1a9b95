"""Complex parts (real, imag, conjugate, angle) and the type predicates (iscomplexobj, isscalar, ...)."""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ..core import Array, Tracer
from ..lax.elementwise import _const
from ._promote import as_operand, check_arraylike, convert, promote_args
from ._staged import staged_as_jit
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
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.result_type(x)
    return dtype_kind(dtype if isinstance(dtype, core.ExtendedDType) else np.dtype(dtype)) == "c"


def isrealobj(x) -> bool:
    return not iscomplexobj(x)


def isscalar(element) -> bool:
    if isinstance(element, (Array, Tracer, np.ndarray, np.generic)):
        return element.ndim == 0 if not isinstance(element, np.generic) else True
    return isinstance(element, (bool, int, float, complex))


@staged_as_jit(static_argnames=("deg",))
def angle(z, deg: bool = False):
    """The counterclockwise angle from the positive real axis, ``atan2(imag(z), real(z))``.

    >>> jnp.angle(jnp.array([1.0, -1.0]))
    Array([0.       , 3.1415927], dtype=float32)
    """
    check_arraylike("angle", z)
    z = as_operand(z)
    re, im = real(z), imag(z)
    if dtype_kind(re.dtype) not in "fc" or (dtype_kind(z.dtype) == "f" and z.ndim == 0):
        dtype = core.default_dtype(float)
        re, im = convert(re, dtype), convert(im, dtype)  # (a constant part converts in numpy)
    out = lax.atan2(im, re)
    if not deg:
        return out
    from ._ufuncs import rad2deg  # (_ufuncs builds on this module)

    return rad2deg(out)


@staged_as_jit
def iscomplex(x):
    """True where the imaginary part is nonzero.

    >>> jnp.iscomplex(jnp.array([1.0, 1j]))
    Array([False,  True], dtype=bool)
    """
    i = imag(x)
    return lax.ne(i, _const(i, 0))


@staged_as_jit
def isreal(x):
    """True where the imaginary part is zero.

    >>> jnp.isreal(jnp.array([1.0, 1j]))
    Array([ True, False], dtype=bool)
    """
    i = imag(x)
    return lax.eq(i, _const(i, 0))
