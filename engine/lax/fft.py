"""``fft_p``: complex discrete Fourier transforms over the trailing axes (jax.lax.fft's FFT and
IFFT types). Both are linear, and their matrices are symmetric, so each transposes to itself
(JAX's convention: no conjugation). Real transforms are built on them in ``engine.numpy.fft``."""

from __future__ import annotations

import numpy as np

from .. import ad, batching
from ..core import Primitive
from ..narrow_dtypes import kind as dtype_kind

fft_p = Primitive("fft")


@fft_p.def_impl
def _fft_impl(x, *, fft_type, fft_lengths):
    axes = tuple(range(-len(fft_lengths), 0))
    fn = np.fft.fftn if fft_type == "FFT" else np.fft.ifftn
    return fn(x, s=fft_lengths, axes=axes).astype(x.dtype)


@fft_p.def_abstract_eval
def _fft_abstract(x, *, fft_type, fft_lengths):
    if dtype_kind(x.dtype) != "c":
        raise TypeError(f"fft of type {fft_type} requires a complex operand, got {x.dtype.name}.")
    if tuple(x.shape[-len(fft_lengths) :]) != tuple(fft_lengths):
        raise ValueError(f"fft_lengths {fft_lengths} must match the trailing axes of shape {x.shape}.")
    return x.strip_weak_type()


ad.deflinear(fft_p, lambda ct, x, **params: [fft_p.bind(ct, **params)])


def _fft_batch(axis_size, vals, dims, **params):
    (x,), (d,) = vals, dims
    return fft_p.bind(batching.moveaxis(x, d, 0), **params), 0


batching.batch_rules[fft_p] = _fft_batch


def fft(x, fft_type, fft_lengths):
    """The n-d FFT ('FFT') or inverse FFT ('IFFT') of the trailing ``len(fft_lengths)`` axes."""
    fft_type = getattr(fft_type, "name", fft_type)
    if fft_type not in ("FFT", "IFFT"):
        raise NotImplementedError(f"lax.fft type {fft_type}: use jnp.fft.rfft/irfft for real transforms.")
    return fft_p.bind(x, fft_type=str(fft_type), fft_lengths=tuple(int(n) for n in fft_lengths))
