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

``atan`` is two functions in XLA (``atan_steps``): its kernels call ``xla.atan.f32``, which LLVM
inlines as XLA's own rational function where the loop stays scalar, and which becomes atanf in the
lanes of a vectorized loop and in code with no loop (a 0-d array). Measured with JAX 0.10.2: every
array of fewer than 50 elements is the rational function; a 1-d array of 50 or more is atanf up to
its last multiple of 4 and the rational function in the rest; a 2-d array of 50 or more with fewer
than 16 rows, other than 4 or 8, the rational function (``xla_atan_elements``). Other arrays of 50
or more are atanf here, which XLA's are but for a scalar tail (the last elements of a 1-d array
past a multiple of 4, the last rows of 16 or more not a multiple of 4): not modelled, as the
engine's kernels compute an element without its index. In a kernel fusing atan with more
work LLVM vectorizes from fewer elements (from 38 in ``atan(x) * 2 + x``, 43 in ``atan(x * 0.5)``):
not modelled either, the threshold stays 50.
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


# xla.atan.f32: |x| folded into [0, 1] by a reciprocal, a rational function of its square (fused
# multiply-adds), pi/2 minus the result for |x| > 1, x itself below 1e-3 (hex: its float32 bits)
_ATAN_P = tuple(np.uint32(b).view(f32) for b in (0x3DE56E67, 0x3F3ACBA0, 0x3F4F9D60))
_ATAN_Q = tuple(np.uint32(b).view(f32) for b in (0x3C2557B4, 0x3E90FDB4))
_HALF_PI = np.uint32(0x3FC90FDB).view(f32)
XLA_ATAN_MIN = 50  # (elements from which a loop over a 1-d array is vectorized)


def xla_atan(x) -> np.ndarray:
    """XLA's own float32 arctangent (``xla.atan.f32``), as its scalar loops compute it.

    >>> float(xla_atan(np.float32(0.5)))  # (atanf: 0.46364760398864746)
    0.4636475443840027
    """
    x = np.asarray(x, f32)
    ax = np.abs(x)
    big = ax > f32(1)
    t = np.where(big, f32(1) / np.where(big, ax, f32(1)), ax).astype(f32)
    s = t * t
    p = xla_f32.fma(xla_f32.fma(s, _ATAN_P[0], _ATAN_P[1]), s, _ATAN_P[2])
    q = xla_f32.fma(xla_f32.fma(xla_f32.fma(s, _ATAN_Q[0], _ATAN_Q[1]), s, f32(1)), s, _ATAN_P[2])
    r = t * (p / q)
    r = np.copysign(np.where(big, _HALF_PI - r, r), x)
    return np.where(ax < f32(1e-3), x, r).astype(f32)


def xla_atan_elements(shape: tuple) -> bool:
    """Whether XLA's arctangent of an array of ``shape`` is ``xla_atan`` (else atanf)."""
    if not shape:
        return False
    if int(np.prod(shape)) < XLA_ATAN_MIN:
        return True
    # (measured on 2-d arrays of 2..40 rows: fewer than 16 rows, 4 and 8 aside, stay scalar)
    return len(shape) == 2 and shape[0] < 16 and shape[0] not in (4, 8)


def atan_steps(x) -> np.ndarray:
    """``atan`` of a float32 array as XLA computes it, by its shape (see the module docstring)."""
    x = np.asarray(x, f32)
    return xla_atan(x) if xla_atan_elements(x.shape) else _rounded(np.arctan)(x)


_STEPS = {
    "sin": sin,
    "cos": cos,
    "tan": _rounded(np.tan),
    "atan": atan_steps,
    "atanf": _rounded(np.arctan),
    "cbrt": _rounded(np.cbrt),
    "asin": _asin,
    "acos": _acos,
    "atan2": lambda y, x: xla_f32.ftz(_rounded(np.arctan2)(y, x)),
    "pow": lambda x, y: xla_f32.ftz(_rounded(np.power)(x, y)),
    "exp": lambda x: xla_f32.ftz(_rounded(np.exp)(xla_f32.ftz(x))),
    "log": lambda x: _rounded(np.log)(xla_f32.ftz(x)),
}


# A kernel that is one float32 ``exp`` or ``log`` over a vector (eagerly, or a jitted one whose
# operand it does not fuse with) of fewer than 16 elements: XLA's loop runs 8 elements at a time
# with its own polynomial (``xla_f32``), then what is left, 1, 2 or 4 elements, the same way, but 3,
# 5, 6 or 7 by calls to the C library's expf/logf (measured on JAX 0.10.2: every element of those
# tails, and only those, is glibc's; arrays of more dimensions or 16 and more elements never).
TAILS = frozenset({"exp", "log"})


def tail_start(shape) -> int | None:
    """Where a one-op ``exp``/``log`` kernel of this shape starts calling the C library, if it does."""
    if len(shape) != 1 or shape[0] >= 16 or shape[0] % 8 not in (3, 5, 6, 7):
        return None
    return shape[0] - shape[0] % 8
