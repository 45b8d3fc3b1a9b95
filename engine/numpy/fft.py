"""``jnp.fft``: discrete Fourier transforms (complex64; complex128 with x64), differentiable and batchable.

>>> jnp.fft.fft(jnp.arange(4.0))
Array([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
"""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ..lax import fft as lax_fft
from ._promote import as_operand, check_arraylike
from ..narrow_dtypes import kind as dtype_kind


def _complex(x):
    x = as_operand(x)
    if dtype_kind(x.dtype) == "c":
        return x
    # 64-bit inputs (only with x64) transform in complex128, the rest in complex64, as JAX's
    return lax.convert_element_type(x, np.complex128 if x.dtype.itemsize == 8 else np.complex64)


def _fit(x, axis, n):
    """Crop or zero-pad axis ``axis`` to length ``n`` (numpy's rule)."""
    size = x.shape[axis]
    if n == size:
        return x
    if n < size:
        return lax.slice_in_dim(x, 0, n, axis=axis)
    pads = [(0, 0, 0)] * x.ndim
    pads[axis] = (0, n - size, 0)
    return lax.pad(x, lax.full((), 0, x.dtype), pads)


def _fftn(a, s, axes, norm, inverse, name):
    check_arraylike(name, a)
    x = _complex(a)
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    axes = tuple(int(ax) % x.ndim for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{name} does not support repeated axes. Got axes {axes}.")
    if s is not None:
        for ax, n in zip(axes, s):
            x = _fit(x, ax, int(n))
    # Move the transformed axes last, transform, move them back.
    rest = [d for d in range(x.ndim) if d not in axes]
    perm = rest + list(axes)
    xt = lax.transpose(x, perm)
    lengths = tuple(xt.shape[-len(axes) :])
    out = lax_fft.fft(xt, "IFFT" if inverse else "FFT", lengths)
    out = lax.transpose(out, tuple(np.argsort(perm)))
    n = int(np.prod(lengths))
    if norm in (None, "backward"):
        return out
    if norm == "ortho":
        factor = np.sqrt(n) if inverse else 1 / np.sqrt(n)
    elif norm == "forward":
        factor = n if inverse else 1 / n
    else:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    return lax.mul(out, lax.full((), factor, out.dtype))


def fftn(a, s=None, axes=None, norm=None):
    return _fftn(a, s, axes, norm, False, "fftn")


def ifftn(a, s=None, axes=None, norm=None):
    return _fftn(a, s, axes, norm, True, "ifftn")


def fft(a, n=None, axis: int = -1, norm=None):
    """The 1-d discrete Fourier transform along ``axis``."""
    return _fftn(a, None if n is None else (n,), (axis,), norm, False, "fft")


def ifft(a, n=None, axis: int = -1, norm=None):
    """The 1-d inverse discrete Fourier transform along ``axis``."""
    return _fftn(a, None if n is None else (n,), (axis,), norm, True, "ifft")


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return _fftn(a, s, axes, norm, False, "fft2")


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return _fftn(a, s, axes, norm, True, "ifft2")


def rfft(a, n=None, axis: int = -1, norm=None):
    """The FFT of a real signal: the ``n // 2 + 1`` non-negative frequencies."""
    check_arraylike("rfft", a)
    a = as_operand(a)
    if dtype_kind(a.dtype) == "c":
        raise TypeError(f"jnp.fft.rfft requires real-valued input, got {a.dtype.name}.")
    full = fft(a, n, axis, norm)
    ax = axis % full.ndim
    return lax.slice_in_dim(full, 0, full.shape[ax] // 2 + 1, axis=ax)


def irfft(a, n=None, axis: int = -1, norm=None):
    """The inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``)."""
    check_arraylike("irfft", a)
    x = _complex(a)
    ax = axis % x.ndim
    m = x.shape[ax]
    n = 2 * (m - 1) if n is None else int(n)
    half = n // 2 + 1
    x = _fit(x, ax, half)
    # The Hermitian-symmetric full spectrum: X[n - k] = conj(X[k]).
    tail_len = n - half
    if tail_len > 0:
        tail = lax.slice_in_dim(x, 1, 1 + tail_len, axis=ax)
        tail = lax.rev(lax.conj(tail), (ax,))
        x = lax.concatenate([x, tail], ax)
    return lax.real(ifft(x, n, ax, norm))


def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an ``n``-point FFT with sample spacing ``d``."""
    from . import asarray

    return asarray(np.fft.fftfreq(int(n), float(d)), dtype or core.default_dtype(float))


def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
    from . import asarray

    return asarray(np.fft.rfftfreq(int(n), float(d)), dtype or core.default_dtype(float))


def fftshift(x, axes=None):
    """Move the zero frequency to the center."""
    from ._shape import roll

    x = as_operand(x)
    axes = tuple(range(x.ndim)) if axes is None else ((axes,) if isinstance(axes, int) else tuple(axes))
    return roll(x, [x.shape[ax] // 2 for ax in axes], axes)


def ifftshift(x, axes=None):
    from ._shape import roll

    x = as_operand(x)
    axes = tuple(range(x.ndim)) if axes is None else ((axes,) if isinstance(axes, int) else tuple(axes))
    return roll(x, [-(x.shape[ax] // 2) for ax in axes], axes)


def _real_axes(a, s, axes, name):
    x = as_operand(a)
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    axes = tuple(int(ax) % x.ndim for ax in axes)
    if s is not None and len(s) != len(axes):
        raise ValueError(f"{name}: shape and axes have different lengths.")
    return x, axes


def rfftn(a, s=None, axes=None, norm=None):
    """The N-d FFT of a real array: the last transformed axis keeps its ``n // 2 + 1`` non-negative
    frequencies.

    >>> jnp.fft.rfftn(jnp.ones((2, 4))).shape
    (2, 3)
    """
    check_arraylike("rfftn", a)
    x, axes = _real_axes(a, s, axes, "rfftn")
    if dtype_kind(x.dtype) == "c":
        raise TypeError(f"jnp.fft.rfftn requires real-valued input, got {x.dtype.name}.")
    full = _fftn(x, s, axes, norm, False, "rfftn")
    last = axes[-1]
    return lax.slice_in_dim(full, 0, full.shape[last] // 2 + 1, axis=last)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of ``rfftn``: a real array (the last axis of length ``s[-1]``, default
    ``2 * (m - 1)``)."""
    check_arraylike("irfftn", a)
    x, axes = _real_axes(a, s, axes, "irfftn")
    if len(axes) > 1:
        x = _fftn(x, None if s is None else s[:-1], axes[:-1], norm, True, "irfftn")
    return irfft(x, None if s is None else s[-1], axes[-1], norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-d FFT of a real array (``rfftn`` over two axes)."""
    return rfftn(a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of ``rfft2``."""
    return irfftn(a, s, axes, norm)


def hfft(a, n=None, axis: int = -1, norm=None):
    """The FFT of a signal with Hermitian symmetry (given by its first half): a real spectrum.

    >>> jnp.fft.hfft(jnp.array([1.0, 2.0, 3.0]))
    Array([ 8., -2.,  0., -2.], dtype=float32)
    """
    check_arraylike("hfft", a)
    x = lax.conj(_complex(a))
    nn = (x.shape[axis] - 1) * 2 if n is None else int(n)
    return irfft(x, n, axis) * (_named_norm(nn, norm, inverse=False) * nn)


def ihfft(a, n=None, axis: int = -1, norm=None):
    """The inverse of ``hfft``: the first half of a Hermitian-symmetric signal's spectrum."""
    check_arraylike("ihfft", a)
    x = as_operand(a)
    nn = x.shape[axis] if n is None else int(n)
    return lax.conj(rfft(x, n, axis)) * (_named_norm(nn, norm, inverse=True) / nn)


def _named_norm(n, norm, inverse):
    """JAX scales hfft/ihfft by the norm of a transform named like them ('ihfft' as an inverse
    transform, 'hfft' as a forward one), on top of the unnormalized pair they are built from."""
    if norm in (None, "backward"):
        return 1.0
    if norm == "ortho":
        return float(np.sqrt(n)) if inverse else 1 / float(np.sqrt(n))
    if norm == "forward":
        return float(n) if inverse else 1 / n
    raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
