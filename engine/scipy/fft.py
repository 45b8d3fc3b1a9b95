"""``jax.scipy.fft``: the type-2 discrete cosine transform and its inverse, 1-d and N-d, computed
with FFTs (Makhoul's reordering), so they trace, differentiate and batch.

>>> from engine.scipy.fft import dct, idct
>>> dct(jnp.array([1.0, 2.0, 3.0])).round(4)
Array([12.    , -3.4641,  0.    ], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..numpy._promote import as_operand, canonicalize_axis, promote_dtypes_inexact

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name, type, norm):  # noqa: A002
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("backward", "ortho"):
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")


def _along(values, axis, ndim):
    return lax.expand_dims(values, [a for a in range(ndim) if a != axis])


def _twiddle(n, k):
    """``exp(-i pi k / (2 n))``."""
    return jnp.exp(-0.5j * np.pi * k / n)


def _pad_to(x, n, axis):
    if n is None:
        return x
    return lax.pad(
        x, np.zeros((), x.dtype), [(0, n - x.shape[axis] if a == axis else 0, 0) for a in range(x.ndim)]
    )


def _ortho(out, axis):
    n = out.shape[axis]
    factor = lax.concatenate([lax.full((1,), 4, out.dtype), lax.full((n - 1,), 2, out.dtype)], 0)
    return out / lax.sqrt(_along(factor, axis, out.ndim) * n)


def dct(x, type: int = 2, n=None, axis: int = -1, norm=None):  # noqa: A002
    """The type-2 DCT along ``axis`` (scipy's ``dct``; ``norm`` None/'backward' or 'ortho').

    Args:
      x: the input (a complex input transforms its real and imaginary parts).
      n: zero-pad ``axis`` to this length first.
    """
    _check("dct", type, norm)
    x = as_operand(x)
    if x.dtype.kind == "c":
        return lax.complex(dct(x.real, type, n, axis, norm), dct(x.imag, type, n, axis, norm))
    (x,) = promote_dtypes_inexact(x)
    axis = canonicalize_axis(axis, x.ndim)
    x = _pad_to(x, n, axis)
    size = x.shape[axis]
    # Makhoul: even samples in order, then odd ones reversed; one FFT; a quarter-sample twiddle.
    v = lax.concatenate(
        [lax.slice_in_dim(x, None, None, 2, axis), lax.rev(lax.slice_in_dim(x, 1, None, 2, axis), (axis,))],
        axis,
    )
    spectrum = jnp.fft.fft(v, axis=axis)
    k = _along(jnp.arange(size, dtype=spectrum.real.dtype), axis, x.ndim)
    out = 2 * (spectrum * _twiddle(size, k)).real
    return _ortho(out, axis) if norm == "ortho" else out


def idct(x, type: int = 2, n=None, axis: int = -1, norm=None):  # noqa: A002
    """The inverse of :func:`dct` along ``axis`` (a type-3 DCT, scaled to invert it).

    >>> idct(dct(jnp.array([1.0, 2.0, 3.0]))).round(4)
    Array([1., 2., 3.], dtype=float32)
    """
    _check("idct", type, norm)
    x = as_operand(x)
    if x.dtype.kind == "c":
        return lax.complex(idct(x.real, type, n, axis, norm), idct(x.imag, type, n, axis, norm))
    (x,) = promote_dtypes_inexact(x)
    axis = canonicalize_axis(axis, x.ndim)
    x = _pad_to(x, n, axis)
    size = x.shape[axis]
    if norm is None or norm == "backward":
        x = _ortho(x, axis)
    x = _ortho(x, axis)
    k = _along(jnp.arange(size, dtype=x.dtype), axis, x.ndim)
    w = _twiddle(size, k)
    v = jnp.fft.ifft(x.astype(w.dtype) / w * (2 * size), axis=axis).real
    # Undo the reordering: the first half back to the even positions, the reversed rest to the odd.
    half = math.ceil(size / 2)
    evens = lax.slice_in_dim(v, 0, half, axis=axis)
    odds = lax.rev(lax.slice_in_dim(v, half, size, axis=axis), (axis,))
    out = jnp.zeros(v.shape, v.dtype)
    index_even = tuple(slice(None, None, 2) if a == axis else slice(None) for a in range(v.ndim))
    index_odd = tuple(slice(1, None, 2) if a == axis else slice(None) for a in range(v.ndim))
    return out.at[index_even].set(evens).at[index_odd].set(odds)


def _nd_axes(x, s, axes):
    if s is not None:
        s = [int(v) for v in (s if np.ndim(s) else [s])]
        if len(s) > x.ndim:
            raise ValueError(f"s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim)) if s is not None else tuple(range(x.ndim))
    else:
        axes = tuple(canonicalize_axis(a, x.ndim) for a in axes)
    return s, axes


def dctn(x, type: int = 2, s=None, axes=None, norm=None):  # noqa: A002
    """The type-2 DCT over several axes (one axis after another; ``s`` zero-pads them first).

    >>> dctn(jnp.ones((2, 2)))
    Array([[16.,  0.],
           [ 0.,  0.]], dtype=float32)
    """
    _check("dctn", type, norm)
    x = as_operand(x)
    s, axes = _nd_axes(x, s, axes)
    for i, ax in enumerate(axes):
        x = dct(x, type, None if s is None else s[i], ax, norm)
    return x


def idctn(x, type: int = 2, s=None, axes=None, norm=None):  # noqa: A002
    """The inverse of :func:`dctn`."""
    _check("idctn", type, norm)
    x = as_operand(x)
    s, axes = _nd_axes(x, s, axes)
    for i, ax in enumerate(axes):
        x = idct(x, type, None if s is None else s[i], ax, norm)
    return x
