"""``jax.scipy.signal``'s spectral analysis: ``stft``, ``istft``, ``csd`` and ``welch``, as JAX
0.10.2 computes them (scipy's conventions: windowed, detrended segments, a one-sided FFT for real
input, 'density' or 'spectrum' scaling), on the engine's FFT. Segments are cut with static
indices and ``istft`` overlap-adds with a scatter-add, so all four work under grad/jit/vmap.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from .. import lax, numpy as jnp
from ..numpy._promote import canonicalize_axis, check_arraylike, promote_dtypes_inexact

__all__ = ["csd", "istft", "stft", "welch"]


def _complex_dtype(dtype):
    return np.result_type(dtype, np.complex64)


def _static_int(value, what):
    try:
        return int(value)
    except Exception as e:  # a tracer: segment lengths fix shapes, so they must be known
        raise TypeError(f"{what} must be a concrete integer, got {value!r}") from e


def _hann(n, dtype):
    # scipy's periodic Hann window, the one window computed without scipy (as in JAX)
    win = jnp.array([1.0]) if n == 1 else jnp.sin(jnp.linspace(0, np.pi, n, endpoint=False)) ** 2
    return jnp.array(win, dtype=dtype)


def _named_window(window, n, dtype):
    if isinstance(window, str) and window == "hann":
        return _hann(n, dtype)
    try:
        from scipy.signal import get_window
    except ImportError as err:
        raise ImportError(f"scipy must be available to use {window=}") from err
    return jnp.array(get_window(window, n), dtype=dtype)


def _window_and_length(window, nperseg, input_length, dtype):
    """The window array and the segment length (scipy's ``_triage_segments``)."""
    if isinstance(window, (str, tuple)):
        n = input_length if nperseg is None else int(nperseg)
        if n > input_length:
            warnings.warn(
                f"nperseg={n} is greater than {input_length=}, using nperseg={input_length}", stacklevel=3
            )
            n = input_length
        return _named_window(window, n, dtype), n
    win = jnp.asarray(window, dtype=dtype)
    n = win.size if nperseg is None else int(nperseg)
    if win.ndim != 1:
        raise ValueError("window must be 1-D")
    if input_length < win.size:
        raise ValueError("window is longer than input signal")
    if n != win.size:
        raise ValueError("value specified for nperseg is different from length of window")
    return win, n


def _pad_last(x, n, mode, **kw):
    return jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(n, n)], mode, **kw)


def _odd_extension(x, n):
    if n < 1:
        return x
    if n > x.shape[-1] - 1:
        raise ValueError(
            f"The extension length n ({n}) is too big. "
            f"It must not exceed x.shape[axis]-1, which is {x.shape[-1] - 1}."
        )
    left = 2 * x[..., :1] - jnp.flip(x[..., 1 : n + 1], -1)
    right = 2 * x[..., -1:] - jnp.flip(x[..., -(n + 1) : -1], -1)
    return jnp.concatenate([left, x, right], -1)


_EXTENSIONS = {
    "even": lambda x, n: _pad_last(x, n, "reflect"),
    "odd": _odd_extension,
    "constant": lambda x, n: _pad_last(x, n, "edge"),
    "zeros": lambda x, n: _pad_last(x, n, "constant", constant_values=0.0),
    None: lambda x, n: x,
}


def _segments(x, nperseg, noverlap):
    """``x``'s (last axis) overlapping segments: shape ``(..., nsegments, nperseg)``, cut as JAX
    cuts them (a ``dynamic_slice`` vmapped over the start indices: a gather)."""
    if nperseg == 1 and noverlap == 0:
        return x[..., None]
    from ..api import vmap

    starts = jnp.arange(x.shape[-1] - nperseg + 1, step=nperseg - noverlap)
    return vmap(lambda start: lax.dynamic_slice_in_dim(x, start, nperseg, axis=-1), out_axes=-2)(starts)


def _windowed_fft(x, win, detrend_func, nperseg, noverlap, nfft, twosided):
    if x.dtype.kind == "i":
        x = x.astype(win.dtype)
    segs = detrend_func(_segments(x, nperseg, noverlap))
    if jnp.iscomplexobj(win):
        segs = segs.astype(_complex_dtype(segs.dtype))
    segs = win.reshape((1,) * (x.ndim - 1) + (1, nperseg)) * segs
    return jnp.fft.fft(segs, n=nfft) if twosided else jnp.fft.rfft(jnp.real(segs), n=nfft)


def _detrend_function(detrend_type, axis):
    from .signal import detrend

    if isinstance(detrend_type, str):
        return functools.partial(detrend, type=detrend_type, axis=-1)
    if callable(detrend_type):
        if axis == -1:
            return detrend_type
        return lambda d: jnp.moveaxis(detrend_type(jnp.moveaxis(d, axis, -1)), -1, axis)
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided, scaling, axis, mode,
              boundary=None, padded=False):  # fmt: skip
    """Frequencies, segment times and the (cross-)spectrum per segment (scipy's ``_spectral_helper``;
    ``y`` None means the auto-spectrum)."""
    if mode not in ("psd", "stft"):
        raise ValueError(f"Unknown value for mode {mode}, must be one of: ('psd', 'stft')")
    if boundary not in _EXTENSIONS:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: {list(_EXTENSIONS)}")
    axis = canonicalize_axis(_static_int(axis, "axis of windowed-FFT"), np.ndim(x))
    if y is None:
        check_arraylike("spectral_helper", x)
        (x,) = promote_dtypes_inexact(x)
        outer = x.shape[:axis] + x.shape[axis + 1 :]
    else:
        if mode != "psd":
            raise ValueError("two-argument mode is available only when mode=='psd'")
        check_arraylike("spectral_helper", x, y)
        x, y = promote_dtypes_inexact(x, y)
        if x.ndim != y.ndim:
            raise ValueError(f"two-arguments must have the same rank ({x.ndim} vs {y.ndim}).")
        try:
            outer = np.broadcast_shapes(
                x.shape[:axis] + x.shape[axis + 1 :], y.shape[:axis] + y.shape[axis + 1 :]
            )
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    result_dtype = _complex_dtype(x.dtype)
    freq_dtype = np.finfo(result_dtype).dtype
    if nperseg is not None:
        nperseg = _static_int(nperseg, "nperseg of windowed-FFT")
        if nperseg < 1:
            raise ValueError("nperseg must be a positive integer")
    win, nperseg = _window_and_length(window, nperseg, x.shape[axis], x.dtype)
    noverlap = nperseg // 2 if noverlap is None else _static_int(noverlap, "noverlap of windowed-FFT")
    nfft = nperseg if nfft is None else _static_int(nfft, "nfft of windowed-FFT")
    if x.size == 0 or (y is not None and y.size == 0):
        n = x.shape[axis] if y is None else min(x.shape[axis], y.shape[axis])
        shape = x.shape if y is None else outer[:axis] + (n,) + outer[axis:]
        return jnp.zeros(shape, freq_dtype), jnp.zeros(shape, freq_dtype), jnp.zeros(shape, result_dtype)
    x = jnp.moveaxis(x, axis, -1)
    if y is not None:
        if y.ndim > 1:
            y = jnp.moveaxis(y, axis, -1)
        # the shorter signal is zero-padded to the longer one's length
        if x.shape[-1] < y.shape[-1]:
            x = jnp.concatenate((x, jnp.zeros_like(x, shape=x.shape[:-1] + (y.shape[-1] - x.shape[-1],))), -1)
        elif y.shape[-1] < x.shape[-1]:
            y = jnp.concatenate((y, jnp.zeros_like(x, shape=y.shape[:-1] + (x.shape[-1] - y.shape[-1],))), -1)
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    signals = [x] if y is None else [x, y]
    signals = [_EXTENSIONS[boundary](s, nperseg // 2) for s in signals]
    if padded:  # zero-pad so the last segment is whole
        extra = (-(signals[0].shape[-1] - nperseg) % step) % nperseg
        signals = [
            jnp.concatenate((s, jnp.zeros_like(signals[0], shape=s.shape[:-1] + (extra,))), axis=-1)
            for s in signals
        ]
    detrend_func = _detrend_function(detrend_type, axis)
    if scaling == "density":
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == "spectrum":
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = jnp.sqrt(scale)
    scale = jnp.asarray(scale)
    scale = lax.convert_element_type(scale, _complex_dtype(scale.dtype), scale.weak_type)
    twosided = not return_onesided
    if return_onesided and any(jnp.iscomplexobj(s) for s in signals):
        twosided = True
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    freqs = (jnp.fft.fftfreq if twosided else jnp.fft.rfftfreq)(nfft, 1 / fs, dtype=freq_dtype)
    spectra = [_windowed_fft(s, win, detrend_func, nperseg, noverlap, nfft, twosided) for s in signals]
    if y is not None:
        result = jnp.conjugate(spectra[0]) * spectra[1]
    elif mode == "psd":
        result = jnp.conjugate(spectra[0]) * spectra[0]
    else:
        result = spectra[0]
    result = result * scale
    if not twosided and mode == "psd":  # the one-sided spectrum folds in the negative frequencies
        result = result.at[..., 1 : None if nfft % 2 else -1].mul(2)
    n_time = signals[0].shape[-1]
    time = jnp.arange(nperseg / 2, n_time - nperseg / 2 + 1, step, dtype=freq_dtype) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = result.astype(result_dtype)
    if y is None and mode != "stft":
        result = jnp.real(result)
    return freqs, time, jnp.moveaxis(result, -1, axis)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):  # fmt: skip
    """Short-time Fourier transform of ``x`` along ``axis`` (as ``scipy.signal.stft``): returns
    ``(frequencies, segment times, Zxx)`` with Zxx shaped ``(..., frequencies, segments)``.

    >>> from engine.scipy.signal import stft
    >>> f, t, Z = stft(jnp.arange(8.0), nperseg=4)
    >>> f, t, Z.shape
    (Array([0.  , 0.25, 0.5 ], dtype=float32), Array([0., 2., 4., 6., 8.], dtype=float32), (3, 5))
    """
    return _spectral(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, "spectrum",
                     axis, "stft", boundary, padded)  # fmt: skip


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
        return_onesided=True, scaling="density", axis=-1, average="mean"):  # fmt: skip
    """Cross power spectral density of ``x`` and ``y`` by Welch's method (as ``scipy.signal.csd``):
    the segments' cross-spectra averaged by ``average`` ('mean' or 'median'). Returns
    ``(frequencies, Pxy)``.

    >>> from engine.scipy.signal import csd
    >>> x = jnp.array([1.0, 2.0, -1.0, 0.5] * 4)
    >>> f, p = csd(x, x, nperseg=4)
    >>> jnp.round(p.real, 4)
    Array([0.6667   , 2.8423   , 1.9463999], dtype=float32)
    """
    freqs, _, pxy = _spectral(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
                              axis, "psd")  # fmt: skip
    if y is not None:
        pxy = pxy + 0j  # a cross-spectrum is complex even when y is x
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                # the median of exponentially distributed estimates is biased low by this factor
                even = jnp.arange(2.0, pxy.shape[-1], 2)
                bias = (1 + jnp.sum(1.0 / (even + 1) - 1.0 / even)).astype(pxy.dtype)
                if jnp.iscomplexobj(pxy):
                    pxy = jnp.median(jnp.real(pxy), axis=-1) + 1j * jnp.median(jnp.imag(pxy), axis=-1)
                else:
                    pxy = jnp.median(pxy, axis=-1)
                pxy = pxy / bias
            elif average == "mean":
                pxy = pxy.mean(axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = jnp.reshape(pxy, pxy.shape[:-1])
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
          return_onesided=True, scaling="density", axis=-1, average="mean"):  # fmt: skip
    """Power spectral density of ``x`` by Welch's method (as ``scipy.signal.welch``): returns
    ``(frequencies, Pxx)``.

    >>> from engine.scipy.signal import welch
    >>> jnp.round(welch(jnp.array([1.0, 2.0, -1.0, 0.5] * 4), nperseg=4)[1], 4)
    Array([0.6667   , 2.8423   , 1.9463999], dtype=float32)
    """
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft,
                     detrend=detrend, return_onesided=return_onesided, scaling=scaling, axis=axis,
                     average=average)  # fmt: skip
    return freqs, jnp.real(pxx)


def _overlap_add(x, step):
    """Sum frames ``(..., nframes, length)`` placed ``step`` apart: shape
    ``(..., step * (nframes - 1) + length)``. As JAX (after TensorFlow's overlap_and_add): each frame
    cut in ``step``-long pieces, the pieces shifted by reshaping through a zero-padded array, summed."""
    *batch_shape, nframes, segment_len = x.shape
    flat = int(np.prod(batch_shape))
    x = x.reshape((flat, nframes, segment_len))
    output_size = step * (nframes - 1) + segment_len
    nstep_per_segment = 1 + (segment_len - 1) // step
    x = jnp.pad(x, ((0, 0), (0, 0), (0, nstep_per_segment * step - segment_len)))
    x = x.reshape((flat, nframes, nstep_per_segment, step))
    x = x.transpose((0, 2, 1, 3))
    x = jnp.pad(x, ((0, 0), (0, 0), (0, nframes), (0, 0)))
    shrunken = x.shape[2] - 1
    x = x.reshape((flat, -1))
    x = x[:, : nstep_per_segment * shrunken * step]
    x = x.reshape((flat, nstep_per_segment, shrunken * step))
    x = x.sum(axis=1)[:, :output_size]
    return x.reshape(tuple(batch_shape) + (-1,))


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, input_onesided=True,
          boundary=True, time_axis=-1, freq_axis=-2):  # fmt: skip
    """Inverse short-time Fourier transform (as ``scipy.signal.istft``): overlap-adds the inverse FFTs
    of the segments, normalized by the summed squared window. Returns ``(times, x)``.

    >>> from engine.scipy.signal import istft, stft
    >>> x = jnp.arange(8.0)
    >>> jnp.round(istft(stft(x, nperseg=4)[2], nperseg=4)[1], 4)
    Array([0., 1., 2., 3., 4., 5., 6., 7.], dtype=float32)
    """
    check_arraylike("istft", Zxx)
    Zxx = jnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis = canonicalize_axis(freq_axis, Zxx.ndim)
    time_axis = canonicalize_axis(time_axis, Zxx.ndim)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    Zxx = Zxx.astype(_complex_dtype(Zxx.dtype))
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nperseg = _static_int(nperseg or n_default, "nperseg: segment length of STFT")
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        fft_length = n_default + (1 if input_onesided and nperseg == n_default + 1 else 0)  # odd nperseg
    else:
        fft_length = _static_int(nfft, "nfft of STFT")
    if fft_length < nperseg:
        raise ValueError(f"FFT length ({fft_length}) must be longer than nperseg ({nperseg}).")
    noverlap = _static_int(noverlap or nperseg // 2, "noverlap of STFT")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    if time_axis != Zxx.ndim - 1 or freq_axis != Zxx.ndim - 2:
        outer = tuple(i for i in range(Zxx.ndim) if i not in (time_axis, freq_axis))
        Zxx = jnp.transpose(Zxx, outer + (freq_axis, time_axis))
    inverse = jnp.fft.irfft if input_onesided else jnp.fft.ifft
    # (as JAX, the inverse FFT's length is the nfft argument as given: None means irfft's default)
    segs = inverse(Zxx, axis=-2, n=nfft)[..., :nperseg, :]
    if isinstance(window, str) and window == "hann":
        win = (
            jnp.array([1.0])
            if nperseg == 1
            else jnp.sin(jnp.linspace(0, np.pi, nperseg, endpoint=False)) ** 2
        )
        win = win.astype(segs.dtype)
    elif isinstance(window, (str, tuple)):
        win = _named_window(window, nperseg, segs.dtype)
    else:
        win = jnp.asarray(window)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}")
    segs = segs * win.sum()  # undoes stft's 'spectrum' scaling
    win = lax.expand_dims(win, (*range(segs.ndim - 2), -1))
    x = _overlap_add(jnp.swapaxes(segs * win, -2, -1), step)
    norm = _overlap_add(jnp.swapaxes(jnp.repeat(win * win, segs.shape[-1], axis=-1), -2, -1), step)
    if boundary:
        half = nperseg // 2
        x, norm = x[..., half:-half], norm[..., half:-half]
    x = x / jnp.where(norm > 1e-10, norm, 1.0)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = jnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    # (JAX counts the times along x's first axis, whichever axis is time)
    times = jnp.arange(x.shape[0], dtype=np.finfo(x.dtype).dtype) / fs
    return times, x
