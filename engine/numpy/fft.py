"""``jnp.fft``: discrete Fourier transforms (complex64; complex128 with x64), differentiable and batchable.

>>> jnp.fft.fft(jnp.arange(4.0))
Array([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
"""

from __future__ import annotations

import operator

import numpy as np

from .. import core
from ..lax.fft import FftType, fft as lax_fft
from ._promote import as_operand, check_arraylike, to_inexact_dtype


def _jnp():
    from .. import numpy as jnp

    return jnp


def _fft_norm(s, func_name, norm):
    """The factor a ``norm`` mode multiplies by, from the transform lengths ``s`` (an array of the
    result's dtype): JAX names the direction by the function ('i...' inverse, else forward)."""
    jnp = _jnp()
    if norm == "backward":
        return jnp.array(1)
    if norm == "ortho":
        return jnp.sqrt(jnp.prod(s)) if func_name.startswith("i") else 1 / jnp.sqrt(jnp.prod(s))
    if norm == "forward":
        return jnp.prod(s) if func_name.startswith("i") else 1 / jnp.prod(s)
    raise ValueError(f'Invalid norm value {norm}; should be "backward","ortho" or "forward".')


def _fft_core(func_name, fft_type, a, s, axes, norm):
    """JAX's plan: move the transformed axes last, crop and zero-pad them to ``s``, transform with
    ``lax.fft`` (at most 3 axes at a time), scale for ``norm``, move the axes back."""
    jnp = _jnp()
    full_name = f"jax.numpy.fft.{func_name}"
    check_arraylike(full_name, a)
    arr = as_operand(a)
    if s is not None:
        s = tuple(operator.index(n) for n in s)
        if any(n <= 0 for n in s):
            raise ValueError("Shape should be positive.")
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    orig_axes = axes
    if axes is None:
        axes = range(arr.ndim) if s is None else range(arr.ndim - len(s), arr.ndim)
    if len(axes) != len(set(axes)):
        raise ValueError(f"{full_name} does not support repeated axes. Got axes {axes}.")
    if orig_axes is not None:
        axes = tuple(range(arr.ndim - len(axes), arr.ndim))
        arr = jnp.moveaxis(arr, orig_axes, axes)
    if s is not None:
        in_s = list(arr.shape)
        for axis, n in zip(axes, s):
            in_s[axis] = n
        if fft_type == FftType.IRFFT:
            in_s[-1] = in_s[-1] // 2 + 1
        arr = arr[tuple(slice(n) for n in in_s)]
        arr = jnp.pad(arr, [(0, n - m) for n, m in zip(in_s, arr.shape)])
    elif fft_type == FftType.IRFFT:
        s = [arr.shape[axis] for axis in axes[:-1]]
        if axes:
            s += [max(0, 2 * (arr.shape[axes[-1]] - 1))]
    else:
        s = [arr.shape[axis] for axis in axes]
    out = _fft_core_nd(arr, fft_type, s)
    if norm is not None:
        out = out * _fft_norm(jnp.array(s, dtype=out.dtype), func_name, norm)
    if orig_axes is not None:
        out = jnp.moveaxis(out, axes, orig_axes)
    return out


def _fft_core_nd(arr, fft_type, s):
    """XLA transforms up to 3 axes at once: more go in blocks (two of 2 for 4 axes)."""
    if len(s) <= 3:
        return lax_fft(arr, fft_type, tuple(s))
    jnp = _jnp()
    n = 2 if len(s) == 4 else 3
    src = tuple(range(arr.ndim - len(s), arr.ndim - n))
    dst = tuple(range(arr.ndim - len(s) + n, arr.ndim))
    if fft_type in (FftType.RFFT, FftType.FFT):
        arr = lax_fft(arr, fft_type, tuple(s)[-n:])
        arr = jnp.moveaxis(arr, src, dst)
        arr = _fft_core_nd(arr, FftType.FFT, s[:-n])
        return jnp.moveaxis(arr, dst, src)
    arr = jnp.moveaxis(arr, src, dst)
    arr = _fft_core_nd(arr, FftType.IFFT, s[:-n])
    arr = jnp.moveaxis(arr, dst, src)
    return lax_fft(arr, fft_type, tuple(s)[-n:])


def _axis_check_1d(func_name, axis):
    if isinstance(axis, (list, tuple)):
        raise ValueError(
            f"jax.numpy.fft.{func_name} does not support multiple axes. Please use "
            f"jax.numpy.fft.{func_name}n. Got axis = {axis!r}."
        )


def _fft_core_1d(func_name, fft_type, a, n, axis, norm):
    _axis_check_1d(func_name, axis)
    return _fft_core(
        func_name, fft_type, a, None if n is None else [n], None if axis is None else [axis], norm
    )


def _fft_core_2d(func_name, fft_type, a, s, axes, norm):
    if len(axes) != 2:
        raise ValueError(f"jax.numpy.fft.{func_name} only supports 2 axes. Got axes = {axes!r}.")
    return _fft_core(func_name, fft_type, a, s, axes, norm)


def fftn(a, s=None, axes=None, norm=None):
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm)


def ifftn(a, s=None, axes=None, norm=None):
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm)


def rfftn(a, s=None, axes=None, norm=None):
    """The N-d FFT of a real array: the last transformed axis keeps its ``n // 2 + 1`` non-negative
    frequencies.

    >>> jnp.fft.rfftn(jnp.ones((2, 4))).shape
    (2, 3)
    """
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of ``rfftn``: a real array (the last axis of length ``s[-1]``, default
    ``2 * (m - 1)``)."""
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm)


def fft(a, n=None, axis: int = -1, norm=None):
    """The 1-d discrete Fourier transform along ``axis``."""
    return _fft_core_1d("fft", FftType.FFT, a, n, axis, norm)


def ifft(a, n=None, axis: int = -1, norm=None):
    """The 1-d inverse discrete Fourier transform along ``axis``."""
    return _fft_core_1d("ifft", FftType.IFFT, a, n, axis, norm)


def rfft(a, n=None, axis: int = -1, norm=None):
    """The FFT of a real signal: the ``n // 2 + 1`` non-negative frequencies."""
    return _fft_core_1d("rfft", FftType.RFFT, a, n, axis, norm)


def irfft(a, n=None, axis: int = -1, norm=None):
    """The inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)``)."""
    return _fft_core_1d("irfft", FftType.IRFFT, a, n, axis, norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("fft2", FftType.FFT, a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return _fft_core_2d("ifft2", FftType.IFFT, a, s, axes, norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """The 2-d FFT of a real array (``rfftn`` over two axes)."""
    return _fft_core_2d("rfft2", FftType.RFFT, a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """The inverse of ``rfft2``."""
    return _fft_core_2d("irfft2", FftType.IRFFT, a, s, axes, norm)


def hfft(a, n=None, axis: int = -1, norm=None):
    """The FFT of a signal with Hermitian symmetry (given by its first half): a real spectrum.

    >>> jnp.fft.hfft(jnp.array([1.0, 2.0, 3.0]))
    Array([ 8., -2.,  0., -2.], dtype=float32)
    """
    conj_a = _jnp().conj(a)
    _axis_check_1d("hfft", axis)
    nn = (conj_a.shape[axis] - 1) * 2 if n is None else n
    return _fft_core_1d("hfft", FftType.IRFFT, conj_a, n, axis, norm) * nn


def ihfft(a, n=None, axis: int = -1, norm=None):
    """The inverse of ``hfft``: the first half of a Hermitian-symmetric signal's spectrum."""
    _axis_check_1d("ihfft", axis)
    jnp = _jnp()
    arr = jnp.asarray(a)
    nn = arr.shape[axis] if n is None else n
    return jnp.conj(_fft_core_1d("ihfft", FftType.RFFT, arr, n, axis, norm)) * (1 / nn)


def _check_n_d(name: str, n, d) -> None:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"The n argument of jax.numpy.fft.{name} only takes an int. Got n = {list(n)}.")
    if isinstance(d, (list, tuple)):
        raise ValueError(
            f"The d argument of jax.numpy.fft.{name} only takes a single value. Got d = {list(d)}."
        )


def fftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an ``n``-point FFT with sample spacing ``d`` (computed as JAX does:
    staged, an ``iota`` shifted and scaled), on ``device`` when given."""
    jnp = _jnp()
    dtype = dtype or core.default_dtype(float)
    _check_n_d("fftfreq", n, d)
    out_dtype = dtype
    dtype = np.finfo(to_inexact_dtype(np.dtype(dtype))).dtype
    i = jnp.arange(n, dtype=dtype, device=device)  # (JAX's: both operands on ``device``)
    k = (i + n // 2) % n - n // 2
    result = k.astype(dtype) / jnp.array(d * n, dtype=dtype, device=device)
    return result.astype(out_dtype)


def rfftfreq(n: int, d=1.0, *, dtype=None, device=None):
    """The non-negative sample frequencies of an ``n``-point real FFT (on ``device`` when given)."""
    jnp = _jnp()
    dtype = dtype or core.default_dtype(float)
    _check_n_d("rfftfreq", n, d)
    k = jnp.arange(0, n // 2 + 1, dtype=dtype)
    result = k / jnp.array(d * n, dtype=dtype)
    return result if device is None else jnp.asarray(result, device=device)


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
