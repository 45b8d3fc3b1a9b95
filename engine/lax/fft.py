"""``fft_p``: discrete Fourier transforms over the trailing ``len(fft_lengths)`` axes, of JAX's four
types (``FftType``): complex FFT and IFFT, the real-input RFFT (the last axis keeps its ``n // 2 + 1``
non-negative frequencies) and its inverse IRFFT (a Hermitian half-spectrum in, a real signal out).

``lax.fft`` is staged as JAX's ``jax.jit``-decorated wrapper: ``jit[name=fft]`` around the operand's
conversion and the ``fft`` equation, which prints its type as JAX's IntEnum (``fft_type=2``).
FFT and IFFT have symmetric matrices, so each transposes to itself (no conjugation, JAX's
convention). RFFT and IRFFT transpose to each other with a mask weighting the frequencies that the
half spectrum stands for twice (all but DC and, for even lengths, Nyquist).
"""

from __future__ import annotations

import enum
import math

import numpy as np

from .. import ad, batching, core
from ..core import Primitive
from ..narrow_dtypes import kind as dtype_kind


class FftType(enum.IntEnum):
    """Which transform ``fft_p`` computes (JAX's numbering, which its jaxprs print)."""

    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


def _fft_type(value) -> FftType:
    if isinstance(value, FftType):
        return value
    if isinstance(value, str) and value.upper() in FftType.__members__:
        return FftType[value.upper()]
    if isinstance(value, str):
        raise ValueError(f"Unknown FFT type '{value}'")
    raise TypeError(f"Unknown FFT type value '{value}'")


def _complex_dtype(dtype) -> np.dtype:
    return np.dtype(np.complex128 if np.dtype(dtype) in (np.float64, np.complex128) else np.complex64)


def _real_dtype(dtype) -> np.dtype:
    return np.dtype(np.float64 if np.dtype(dtype) == np.complex128 else np.float32)


fft_p = Primitive("fft")


@fft_p.def_impl
def _fft_impl(x, *, fft_type, fft_lengths):
    axes = tuple(range(-len(fft_lengths), 0))
    x = np.asarray(x)
    if fft_type == FftType.RFFT:
        return np.fft.rfftn(x, s=fft_lengths, axes=axes).astype(_complex_dtype(x.dtype))
    if fft_type == FftType.IRFFT:
        return np.fft.irfftn(x, s=fft_lengths, axes=axes).astype(_real_dtype(x.dtype))
    fn = np.fft.fftn if fft_type == FftType.FFT else np.fft.ifftn
    return fn(x, s=fft_lengths, axes=axes).astype(x.dtype)


@fft_p.def_abstract_eval
def _fft_abstract(x, *, fft_type, fft_lengths):
    k = len(fft_lengths)
    if k > x.ndim:
        raise ValueError(
            f"FFT input shape {x.shape} must have at least as many input dimensions as fft_lengths "
            f"{fft_lengths}."
        )
    trailing = tuple(x.shape[x.ndim - k :])
    if fft_type == FftType.RFFT:
        if np.dtype(x.dtype) not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if trailing != tuple(fft_lengths):
            raise ValueError(
                f"RFFT input shape {x.shape} minor dimensions must be equal to fft_lengths {fft_lengths}"
            )
        shape = x.shape[: x.ndim - k] + tuple(fft_lengths[:-1]) + (fft_lengths[-1] // 2 + 1,)
        return core.ShapedArray(shape, _complex_dtype(x.dtype))
    if dtype_kind(x.dtype) != "c":
        raise ValueError(f"{fft_type.name} input must be complex64 or complex128, got {x.dtype}")
    if fft_type == FftType.IRFFT:
        if trailing[:-1] != tuple(fft_lengths[:-1]):
            raise ValueError(
                f"IRFFT input shape {x.shape} minor dimensions must be equal to all except the last "
                f"fft_length, got fft_lengths={fft_lengths}"
            )
        return core.ShapedArray(x.shape[: x.ndim - k] + tuple(fft_lengths), _real_dtype(x.dtype))
    if trailing != tuple(fft_lengths):
        raise ValueError(
            f"FFT input shape {x.shape} minor dimensions must be equal to fft_lengths {fft_lengths}"
        )
    return x.strip_weak_type()


def _fft(x, fft_type, fft_lengths):
    """The body JAX jits (static type and lengths): convert the operand, bind ``fft_p``."""
    from .. import lax
    from ..numpy._promote import to_inexact_dtype

    dtype = np.dtype(core.get_aval(x).dtype)
    if fft_type == FftType.RFFT:
        if dtype_kind(dtype) == "c":
            raise ValueError("only real valued inputs supported for rfft")
        x = lax.convert_element_type(x, to_inexact_dtype(dtype))
    else:
        x = lax.convert_element_type(x, core.canonical_dtype(_complex_dtype(to_inexact_dtype(dtype))))
    if not fft_lengths:  # (XLA has no rank-0 FFT)
        return x
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths)


_staged_fft: list = []


def fft(x, fft_type, fft_lengths):
    """``jax.lax.fft``: the n-d transform of type ``fft_type`` (an ``FftType`` or its name) over the
    trailing ``len(fft_lengths)`` axes."""
    if not _staged_fft:
        from ..numpy._staged import staged_as_jit

        _staged_fft.append(staged_as_jit(_fft, name="fft", static_argnames=("fft_type", "fft_lengths")))
    return _staged_fft[0](x, _fft_type(fft_type), tuple(int(n) for n in fft_lengths))


def _rfft_transpose_body(t, fft_lengths):
    from .. import lax

    n, m = fft_lengths[-1], t.shape[-1]
    mask = lax.full_like(t, 2.0, shape=(m,))
    mask = lax.dynamic_update_slice(mask, lax.full_like(t, 1.0, shape=(1,)), (0,))
    if n % 2 == 0:  # (an even length's Nyquist frequency stands for itself alone)
        mask = lax.dynamic_update_slice(mask, lax.full_like(t, 1.0, shape=(1,)), (m - 1,))
    mask = lax.expand_dims(mask, range(t.ndim - 1))
    return math.prod(fft_lengths) * fft(lax.conj(t) / mask, FftType.IRFFT, fft_lengths)


_staged_rfft_transpose: list = []


def _rfft_transpose(t, fft_lengths):
    if not _staged_rfft_transpose:
        from ..numpy._staged import staged_as_jit

        _staged_rfft_transpose.append(
            staged_as_jit(_rfft_transpose_body, name="_rfft_transpose", static_argnames=("fft_lengths",))
        )
    return _staged_rfft_transpose[0](t, fft_lengths)


def _irfft_transpose(t, fft_lengths):
    from .. import lax

    x = fft(t, FftType.RFFT, fft_lengths)
    n = x.shape[-1]
    mask = lax.full_like(t, 2.0, shape=(n,), dtype=x.dtype)
    mask = lax.dynamic_update_slice(mask, lax.full_like(t, 1.0, shape=(1,), dtype=x.dtype), (0,))
    if fft_lengths[-1] % 2 == 0:
        mask = lax.dynamic_update_slice(mask, lax.full_like(t, 1.0, shape=(1,), dtype=x.dtype), (n - 1,))
    out = 1 / math.prod(fft_lengths) * lax.expand_dims(mask, range(x.ndim - 1)) * x
    return lax.conj(out)


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    if fft_type == FftType.RFFT:
        return [_rfft_transpose(ct, fft_lengths)]
    if fft_type == FftType.IRFFT:
        return [_irfft_transpose(ct, fft_lengths)]
    return [fft(ct, fft_type, fft_lengths)]


ad.deflinear(fft_p, _fft_transpose)


def _fft_batch(axis_size, vals, dims, *, fft_type, fft_lengths):
    (x,), (d,) = vals, dims
    return fft(batching.moveaxis(x, d, 0), fft_type, fft_lengths), 0


batching.batch_rules[fft_p] = _fft_batch
