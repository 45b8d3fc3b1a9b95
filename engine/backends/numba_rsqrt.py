"""XLA's ``rsqrt`` in numba (``lax/xla_rsqrt.py`` has the method and the tables): the estimate from
the tables, Newton steps with hardware fused multiply-adds. Scalar functions for generated kernels
(``rt.rsqrt_f32(x)``, ``rt.rsqrt_f64(x)``) and array loops for eager evaluation."""

import numba as nb
import numpy as np
from llvmlite import ir
from numba.extending import intrinsic

from ..lax.xla_rsqrt import T32, T64
from .numba_math import _bits, _fma, _fma64, _from_bits

_K = dict(cache=True, error_model="numpy", boundscheck=False)
f32, f64 = np.float32, np.float64
_T32 = T32.view(np.int32)
_T64 = T64.view(np.int64)


@intrinsic
def _bits64(typingctx, x):
    return nb.int64(nb.float64), lambda context, builder, sig, args: builder.bitcast(args[0], ir.IntType(64))


@intrinsic
def _from_bits64(typingctx, i):
    return nb.float64(nb.int64), lambda context, builder, sig, args: builder.bitcast(args[0], ir.DoubleType())


@nb.njit(**_K)
def rsqrt_f32(y):
    b = _bits(y)
    e = (b >> 23) & 0xFF
    if e == 0:  # (zero and, flushed, denormals)
        return -np.inf if b < 0 else np.inf
    if b < 0 or e == 0xFF:  # (negative: the default NaN; NaN quieted; rsqrt(inf) = 0)
        return (
            _from_bits(np.int32(b | 0x00400000))
            if y != y
            else (f32(0) if b >= 0 else _from_bits(np.int32(-4194304)))
        )
    odd = (e & 1) ^ 1
    r = _from_bits(np.int32(_T32[(odd << 12) | ((b >> 11) & 0xFFF)] - (((e - 127 - odd) >> 1) << 23)))
    return _fma(r * f32(0.5), _fma(-(y * r), r, f32(1)), r)


@nb.njit(**_K)
def rsqrt_f64(y):
    b = _bits64(y)
    e = (b >> 52) & 0x7FF
    if e == 0:
        return -np.inf if b < 0 else np.inf
    if b < 0 or e == 0x7FF:
        if y != y:
            return _from_bits64(b | (1 << 51))
        return 0.0 if b >= 0 else _from_bits64(np.int64(-2251799813685248))
    odd = (e & 1) ^ 1
    r = _from_bits64(_T64[(odd << 15) | ((b >> 37) & 0x7FFF)] - (((e - 1023 - odd) >> 1) << 52))
    for _ in range(2):
        r = _fma64(r * 0.5, _fma64(-(y * r), r, 1.0), r)
    return r


@nb.njit(**_K)
def _rsqrt_f32_loop(x, out):
    for i in range(x.size):
        out[i] = rsqrt_f32(x[i])


@nb.njit(**_K)
def _rsqrt_f64_loop(x, out):
    for i in range(x.size):
        out[i] = rsqrt_f64(x[i])


def rsqrt_array(x: np.ndarray) -> np.ndarray:
    """XLA's ``rsqrt`` of every element of a float32 or float64 array."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    (_rsqrt_f32_loop if flat.dtype == f32 else _rsqrt_f64_loop)(flat, out)
    return out.reshape(x.shape)
