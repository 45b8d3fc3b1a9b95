"""``jax.scipy.signal``: N-d convolution and correlation (direct, as ``lax.conv_general_dilated``,
or by FFT) and ``detrend``.

>>> from engine.scipy.signal import convolve
>>> convolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5]))
Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..api import vmap
from ..numpy._promote import as_operand, canonicalize_axis, check_arraylike, promote_dtypes_inexact

__all__ = [
    "convolve",
    "convolve2d",
    "correlate",
    "correlate2d",
    "csd",
    "detrend",
    "fftconvolve",
    "istft",
    "stft",
    "welch",
]

_MODES = ("full", "same", "valid")


def _direct(in1, in2, mode, precision):
    if mode not in _MODES:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    in1, in2 = as_operand(in1), as_operand(in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(
            f"zero-size arrays not supported in convolutions, got shapes {in1.shape} and {in2.shape}."
        )
    in1, in2 = promote_dtypes_inexact(in1, in2)
    no_swap = all(a >= b for a, b in zip(in1.shape, in2.shape))
    swap = all(a <= b for a, b in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    kernel_shape_given = in2.shape
    if swap:  # the larger input slides the smaller one
        in1, in2 = in2, in1
    shape = in2.shape
    kernel = jnp.flip(in2)  # the convolution's flip: lax convolves as a correlation
    if mode == "valid":
        padding = [(0, 0) for _ in shape]
    elif mode == "same":
        padding = [(s - 1 - (g - 1) // 2, s - g + (g - 1) // 2) for s, g in zip(shape, kernel_shape_given)]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    out = lax.conv_general_dilated(
        in1[None, None], kernel[None, None], (1,) * len(shape), padding, precision=precision
    )
    return out[0, 0]


def convolve(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """The N-d convolution of two arrays of equal rank ('full', 'same' or 'valid' output).

    ``method`` 'direct'/'auto' is a ``lax.conv_general_dilated``; 'fft' is :func:`fftconvolve`.
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method in ("direct", "auto"):
        return _direct(in1, in2, mode, precision)
    raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")


def correlate(in1, in2, mode: str = "full", method: str = "auto", precision=None):
    """The N-d cross-correlation: :func:`convolve` with ``in2`` flipped and conjugated.

    >>> correlate(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5]), mode='same')
    Array([2. , 3.5, 3. ], dtype=float32)
    """
    return convolve(in1, jnp.flip(jnp.conj(as_operand(in2))), mode, precision=precision, method=method)


def _check_2d(name, in1, in2, boundary, fillvalue):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs.")


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None):
    """The 2-d convolution (zero-filled boundary only)."""
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _direct(in1, in2, mode, precision)


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None):
    """The 2-d cross-correlation (zero-filled boundary only), as scipy's (which, for 'valid' with a
    larger ``in2``, swaps the inputs)."""
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = as_operand(in1), as_operand(in2)
    swap = all(a <= b for a, b in zip(in1.shape, in2.shape))
    same_shape = in1.shape == in2.shape
    if mode == "same":
        return jnp.flip(_direct(jnp.flip(in1), jnp.conj(in2), mode, precision))
    if mode == "valid":
        if swap and not same_shape:
            return _direct(jnp.flip(in2), jnp.conj(in1), mode, precision)
        return jnp.flip(_direct(jnp.flip(in1), jnp.conj(in2), mode, precision))
    if swap:
        return jnp.conj(_direct(jnp.flip(in2), jnp.conj(in1), mode, precision))
    return jnp.flip(_direct(jnp.flip(in1), jnp.conj(in2), mode, precision))


def _fftconvolve_one(in1, in2, mode):
    full = tuple(a + b - 1 for a, b in zip(in1.shape, in2.shape))
    if mode == "valid":
        no_swap = all(a >= b for a, b in zip(in1.shape, in2.shape))
        swap = all(a <= b for a, b in zip(in1.shape, in2.shape))
        if not (no_swap or swap):
            raise ValueError(
                "For 'valid' mode, One input must be at least as large as the other in every dimension."
            )
        if swap:
            in1, in2 = in2, in1
    if all(a == 1 or b == 1 for a, b in zip(in1.shape, in2.shape)):
        conv = in1 * in2
    elif jnp.iscomplexobj(in1):
        conv = jnp.fft.ifftn(jnp.fft.fftn(in1, full) * jnp.fft.fftn(in2, full), full)
    else:
        conv = jnp.fft.irfftn(jnp.fft.rfftn(in1, full) * jnp.fft.rfftn(in2, full), full)
    if mode == "full":
        out = full
    elif mode == "same":
        out = in1.shape
    else:
        out = tuple(a - b + 1 for a, b in zip(in1.shape, in2.shape))
    start = tuple((f - o) // 2 for f, o in zip(full, out))
    return lax.dynamic_slice(conv, start, out)


def fftconvolve(in1, in2, mode: str = "full", axes=None):
    """Convolution computed with FFTs (over ``axes``; the other axes must match and are batched).

    >>> fftconvolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5])).round(5)
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
    """
    check_arraylike("fftconvolve", in1, in2)
    in1, in2 = promote_dtypes_inexact(as_operand(in1), as_operand(in2))
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if mode not in _MODES:
        raise ValueError("mode must be one of ['same', 'full', 'valid']")

    def one(a, b):
        return _fftconvolve_one(a, b, mode)

    if axes is None:
        return one(in1, in2)
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    axes = tuple(canonicalize_axis(ax, in1.ndim) for ax in axes)
    mapped = sorted(set(range(in1.ndim)) - set(axes))
    if any(in1.shape[i] != in2.shape[i] for i in mapped):
        raise ValueError(
            f"mapped axes must have same shape; got in1.shape={in1.shape} in2.shape={in2.shape} axes={axes}"
        )
    fn = one
    for ax in mapped:
        fn = vmap(fn, in_axes=ax, out_axes=ax)
    return fn(in1, in2)


def detrend(data, axis: int = -1, type: str = "linear", bp=0, overwrite_data=None):  # noqa: A002
    """``data`` minus its mean ('constant') or its least-squares line ('linear', piecewise between
    the breakpoints ``bp``) along ``axis``.

    >>> detrend(jnp.array([1.0, 2.0, 4.0]), type='constant')
    Array([-1.3333335, -0.3333335,  1.6666665], dtype=float32)
    """
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    (x,) = promote_dtypes_inexact(as_operand(data))
    if type == "constant":
        return x - x.mean(axis, keepdims=True)
    n = x.shape[axis]
    cuts = np.sort(np.unique(np.r_[0, bp, n]))
    if cuts[0] < 0 or cuts[-1] > n:
        raise ValueError("Breakpoints must be non-negative and less than length of data along given axis.")
    x = jnp.moveaxis(x, axis, 0)
    shape = x.shape
    x = x.reshape(n, -1)
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        npts = int(hi - lo)
        design = jnp.vstack([jnp.ones(npts, dtype=x.dtype), jnp.arange(1, npts + 1, dtype=x.dtype) / npts]).T
        coef = jnp.linalg.lstsq(design, x[lo:hi])[0]
        x = x.at[lo:hi].add(-jnp.matmul(design, coef, precision=lax.Precision.HIGHEST))
    return jnp.moveaxis(x.reshape(shape), 0, axis)


from .signal_spectral import csd, istft, stft, welch  # noqa: E402
