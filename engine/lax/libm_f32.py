"""float32 ``sin``, ``cos``, ``tan``, ``atan``, ``atan2``, ``pow``, ``cbrt``, ``asin`` and ``acos`` as
XLA's CPU backend computes them.

XLA does not inline these (as it does exp/log/tanh: ``xla_f32.py``): its kernels call the C
library's sinf, cosf, tanf, atanf, atan2f, powf and cbrtf element by element, with denormal results
flushed (its threads run with FTZ/DAZ set); ``asin``/``acos`` are JAX's lowerings onto atan2. numpy's
float32 functions are numpy's own SIMD code, whose last bit differs from the C library's on 8-37% of
inputs: ``jnp.sin(1.0)`` printed 0.84147102 where JAX prints glibc's 0.84147096. The engine calls the
same library functions through numba (``backends/numba_libm.py``; sin and cos are glibc's algorithm
itself, so jitted loops vectorize), so its values are JAX's on the same machine.

Without numba, ``sin``/``cos`` take the same algorithm's steps in numpy (without fused multiply-adds,
which moves a float32 result on about one input in 2**28) and the others numpy's float64 function
rounded once, within an ulp of the library's.

(One exception in JAX itself: for some array sizes XLA evaluates ``atan`` with a polynomial of its
own instead of atanf; the engine is atanf throughout, which is what JAX gives a scalar.)
"""

from __future__ import annotations

import numpy as np

from . import xla_f32

f32, f64 = np.float32, np.float64

_numba_libm = None  # the numba kernels once loaded; False without numba


def kernel(name: str, *xs) -> np.ndarray:
    """XLA's float32 ``name`` (a key of ``_STEPS``) of float32 arrays ``xs`` (broadcast together)."""
    global _numba_libm
    if _numba_libm is None:
        try:
            from ..backends import numba_libm
        except ImportError:
            _numba_libm = False
        else:
            _numba_libm = numba_libm
    xs = np.broadcast_arrays(*(np.asarray(x, f32) for x in xs))
    with np.errstate(all="ignore"):
        if _numba_libm:
            return _numba_libm.apply(name, *xs)
        return np.asarray(_STEPS[name](*xs), f32)


# glibc's sinf/cosf (see backends/numba_libm.py): one reduction by pi/2 in float64, two polynomials;
# its table (sincosf_data.c): 2/pi * 2**24 (the quadrant comes out in the top bits), pi/2, and the
# cosine and sine polynomials on [-pi/4, pi/4]
_HPI_INV, _HPI = float.fromhex("0x1.45F306DC9C883p+23"), float.fromhex("0x1.921FB54442D18p0")
_HPI_HI = float(np.frombuffer((np.frombuffer(np.float64(_HPI).tobytes(), np.int64) & ~0xFF).tobytes())[0])
_HPI_LO = _HPI - _HPI_HI  # (n * _HPI_HI is exact for the n of |x| < 120, and so is x minus it)
_C = (1.0, *(float.fromhex(h) for h in ("-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5", "-0x1.6c087e89a359dp-10", "0x1.99343027bf8c3p-16")))  # fmt: skip
_S = tuple(float.fromhex(h) for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13"))  # fmt: skip


def _sincos(y, odd_shift):
    y = np.asarray(y, f32)
    small = np.abs(y) < f32(120)  # (nan and inf: the float64 function below)
    x = np.where(small, y, 0).astype(f64)
    n = ((x * _HPI_INV).astype(np.int32) + np.int32(0x800000)) >> 24
    r = (x - n * _HPI_HI) - n * _HPI_LO  # (x - n pi/2 rounded once, as glibc's fused multiply-add)
    r = r * (1.0 - ((n + 1) & 2))
    r2 = r * r
    r3, r4 = r * r2, r2 * r2
    s = (r + r3 * _S[0]) + (r3 * r2) * (_S[1] + r2 * _S[2])
    c = (_C[0] + r2 * _C[1] + r4 * _C[2]) + (r4 * r2) * (_C[3] + r2 * _C[4])
    c = c * (1.0 - (n & 2))
    v = np.where((n + odd_shift) & 1, c, s).astype(f32)
    big = (np.sin if odd_shift == 0 else np.cos)(y.astype(f64)).astype(f32)
    tiny = np.abs(y) < f32(2.0**-12)
    return np.where(tiny, y if odd_shift == 0 else f32(1), np.where(small, v, big))


def sin(x) -> np.ndarray:
    """``sin`` of a float32 array as XLA's CPU kernel computes it (glibc's sinf).

    Example:

      >>> float(sin(np.float32(1.0)))
      0.8414709568023682
    """
    return _sincos(x, 0)


def cos(x) -> np.ndarray:
    """``cos`` of a float32 array as XLA's CPU kernel computes it (glibc's cosf).

    Example:

      >>> float(cos(np.float32(1.0)))
      0.5403022766113281
    """
    return _sincos(x, 1)


def _rounded(f):
    return lambda *xs: f(*(np.asarray(x, f64) for x in xs)).astype(f32)


def _asin(x):
    t = xla_f32.ftz(_rounded(np.arctan2)(x, np.sqrt((f32(1) - x) * (x + f32(1))) + f32(1)))
    return t + t


def _acos(x):
    return xla_f32.ftz(_rounded(np.arctan2)(np.sqrt((f32(1) - x) * (x + f32(1))), x))


_STEPS = {
    "sin": sin,
    "cos": cos,
    "tan": _rounded(np.tan),
    "atan": _rounded(np.arctan),
    "cbrt": _rounded(np.cbrt),
    "asin": _asin,
    "acos": _acos,
    "atan2": lambda y, x: xla_f32.ftz(_rounded(np.arctan2)(y, x)),
    "pow": lambda x, y: xla_f32.ftz(_rounded(np.power)(x, y)),
}
