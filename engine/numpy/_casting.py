"""``jnp.astype``: a conversion with JAX's words for complex inputs (a deprecation warning towards
real dtypes, ``x != 0`` towards bool)."""

from __future__ import annotations

import warnings

import numpy as np

from .. import core
from ..canonical_dtypes import user_dtype
from ..lax.elementwise import _const
from ..narrow_dtypes import kind as dtype_kind
from ._dtypes import to_dtype
from ._promote import as_operand


def astype(x, dtype, /, *, copy: bool = False, device=None):
    """``x`` converted to ``dtype``, committed to ``device`` when given.

    >>> jnp.astype(jnp.array([0.5, 1.5]), jnp.int32)
    Array([0, 1], dtype=int32)
    """
    dtype = core.default_dtype(float) if dtype is None else user_dtype(to_dtype(dtype), "astype")
    x = as_operand(x)
    if dtype_kind(x.dtype) == "c" and dtype_kind(dtype) in "iuf":
        warnings.warn(
            "Casting from complex to real dtypes will soon raise a ValueError. Please first use "
            "jnp.real or jnp.imag to take the real/imaginary component of your input.",
            DeprecationWarning,
            stacklevel=2,
        )
    elif dtype_kind(x.dtype) == "c" and dtype_kind(dtype) == "b":
        x = x != _const(x, 0)  # (as JAX's: a conversion would test the real part only)
    from ._creation import asarray  # (which converts, warning through this module)

    if dtype_kind(x.dtype) != "c":
        return asarray(x, dtype=dtype, device=device)
    with warnings.catch_warnings():  # (astype gave its own warning above, not asarray's)
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return asarray(x, dtype=dtype, device=device)


def warn_complex_to_real(src, dtype) -> None:
    """numpy's ComplexWarning where a complex value becomes a real one, as JAX's conversions give."""
    if dtype is not None and dtype_kind(src) == "c" and dtype_kind(dtype) != "c":
        warnings.warn(
            "Casting complex values to real discards the imaginary part",
            np.exceptions.ComplexWarning,
            stacklevel=4,
        )
