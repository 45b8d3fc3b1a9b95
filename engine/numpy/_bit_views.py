"""``x.view(dtype)`` and ``x.byteswap()``: an array's bits reinterpreted, written with
``lax.bitcast_convert_type`` (which adds or drops a last axis when the widths differ)."""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ..dtypes import itemsize_bits
from ._dtypes import to_dtype
from ._promote import as_operand


def view(x, dtype=None, type=None):
    """The array's bits viewed as ``dtype``; a different width rescales the last axis.

    >>> jnp.zeros([1, 2, 3], dtype=jnp.int16).view(jnp.int8).shape
    (1, 2, 6)
    """
    if type is not None:
        raise NotImplementedError("`type` argument of array.view() is not supported.")
    x = as_operand(x)
    if dtype is None:
        return x
    dtype = core.canonical_dtype(to_dtype(dtype))
    bits_in, bits_out = itemsize_bits(x.dtype), itemsize_bits(dtype)
    if x.ndim == 0:
        if bits_in != bits_out:
            raise ValueError("view() of a 0d array is only supported if the itemsize is unchanged.")
        return lax.reshape(view(lax.reshape(x, (1,)), dtype), ())
    if (x.shape[-1] * bits_in) % bits_out:
        raise ValueError(
            "When changing to a larger dtype, its size must be a divisor of the total size in bytes "
            "of the last axis of the array."
        )
    if x.dtype == dtype:
        return x
    # bitcast_convert_type takes neither bool nor complex: go through uint8 / the real parts
    if x.dtype == np.bool_:
        return view(lax.convert_element_type(x, np.uint8), dtype)
    if x.dtype.kind == "c":
        parts = lax.concatenate(
            [lax.expand_dims(lax.real(x), (-1,)), lax.expand_dims(lax.imag(x), (-1,))], -1
        )
        return view(lax.reshape(parts, (*x.shape[:-1], 2 * x.shape[-1])), dtype)
    if dtype == np.bool_:
        return lax.convert_element_type(view(x, np.uint8), np.bool_)  # nonzero bytes: True
    if dtype.kind == "c":
        real = np.finfo(dtype).dtype
        pairs = view(x, real)
        pairs = lax.reshape(pairs, (*pairs.shape[:-1], pairs.shape[-1] // 2, 2))
        return lax.complex(pairs[..., 0], pairs[..., 1])
    if bits_in < bits_out:
        factor = bits_out // bits_in
        return lax.bitcast_convert_type(lax.reshape(x, (*x.shape[:-1], x.shape[-1] // factor, factor)), dtype)
    out = lax.bitcast_convert_type(x, dtype)
    if bits_in > bits_out:
        out = lax.reshape(out, (*x.shape[:-1], out.shape[-2] * out.shape[-1]))
    return out


def byteswap(x):
    """Each element's bytes in reverse order (little- to big-endian and back).

    >>> jnp.arange(3, dtype='int32').byteswap()
    Array([       0, 16777216, 33554432], dtype=int32)
    """
    x = as_operand(x)
    if x.dtype.kind == "c":
        return lax.complex(byteswap(lax.real(x)), byteswap(lax.imag(x)))
    if x.dtype.itemsize == 1:
        return x
    as_bytes = lax.bitcast_convert_type(x, np.dtype(np.uint8))
    return lax.bitcast_convert_type(lax.rev(as_bytes, (x.ndim,)), x.dtype)
