"""The numpy rules of elementwise primitives whose float32 values are XLA's own kernels
(``xla_f32.py``) or the C library's functions as XLA's kernels call them (``libm_f32.py``), so eager
evaluation and the interpreter give JAX's bits; other dtypes keep numpy's functions."""

from __future__ import annotations

import numpy as np

from .. import narrow_dtypes
from . import libm_f32, xla_f32, xla_f64, xla_rsqrt


def logistic(x):
    with np.errstate(over="ignore"):
        if narrow_dtypes.is_narrow(x.dtype):  # JAX lowers it to exp, add and div, each rounding
            wide, dt = narrow_dtypes.WIDE[x.dtype], x.dtype
            e = xla_f32.kernel("exp", -x.astype(wide)).astype(dt).astype(wide)
            return (1 / (1 + e).astype(dt).astype(wide)).astype(dt)
        if x.dtype == np.float32:
            return xla_f32.kernel("logistic", x)
        return (1 / (1 + np.exp(-x))).astype(x.dtype)


def exp2_rounding_steps(f):
    """``f`` (exp2), but for float16 and the narrow floats JAX's lowering, ``exp(log(2) * x)``,
    each step rounded to ``x``'s dtype."""

    def g(x, **params):
        if x.dtype == np.float16 or narrow_dtypes.is_narrow(x.dtype):
            dt, f32 = x.dtype, np.float32
            with np.errstate(over="ignore"):
                t = (np.asarray(np.log(2), dt).astype(f32) * x.astype(f32)).astype(dt).astype(f32)
                return xla_f32.kernel("exp", t).astype(dt)
        return f(x, **params)

    g.__name__ = "exp2"
    return g


def inverse_trig_rounding_steps(name, f):
    """``f`` (asin or acos), but for float16 and the narrow floats JAX's lowering with each step
    rounded to ``x``'s dtype: asin ``2 atan2(x, 1 + sqrt((1 - x)(1 + x)))``, acos
    ``atan2(sqrt((1 - x)(1 + x)), x)``."""

    def g(x, **params):
        if not (x.dtype == np.float16 or narrow_dtypes.is_narrow(x.dtype)):
            return f(x, **params)
        dt, f32 = x.dtype, np.float32
        r = lambda v: np.asarray(v, f32).astype(dt).astype(f32)  # noqa: E731
        w = x.astype(f32)
        with np.errstate(invalid="ignore"):
            root = r(np.sqrt(r(r(1 - w) * r(w + 1))))
            if name == "acos":
                out = libm_f32.kernel("atan2", root, w)
            else:
                t = r(libm_f32.kernel("atan2", w, r(root + 1)))
                out = t + t
        return np.where(np.abs(w) > 1, np.float32(-np.nan), out).astype(dt)  # (x86's default NaN)

    g.__name__ = name
    return g


def erf(x):
    import math

    if x.dtype == np.float32:  # XLA's float32 kernel, not the correctly rounded value
        return xla_f32.kernel("erf", x)
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


def erf_inv(x):
    # The float32 polynomial XLA evaluates (with its fused multiply-adds), so random.normal
    # matches JAX's bits; see engine/prng.py. In float64, two Newton steps on erf from there
    # reach the double-precision root (XLA's 64-bit polynomial is as accurate).
    if x.dtype == np.float32:
        return xla_f32.kernel("erf_inv", x)
    with np.errstate(all="ignore"):
        y = xla_f32.erf_inv(x).astype(x.dtype, copy=False)
    if x.dtype == np.float64:
        with np.errstate(all="ignore"):
            for _ in range(2):
                step = (erf(y) - x) / (2 / np.sqrt(np.pi) * np.exp(-y * y))
                y = np.where(np.isfinite(y) & np.isfinite(step), y - step, y)
    return y


def rsqrt(x):
    """XLA's estimate-and-Newton ``rsqrt`` (xla_rsqrt.py); the narrow floats through float32."""
    if x.dtype in (np.float32, np.float64):
        return xla_rsqrt.rsqrt(x)
    if x.dtype == np.float16 or narrow_dtypes.is_narrow(x.dtype):
        return xla_rsqrt.rsqrt(x.astype(np.float32)).astype(x.dtype)
    with np.errstate(all="ignore"):
        return (1 / np.sqrt(x)).astype(x.dtype)


def _in_program() -> bool:
    """Whether this operation is a step of an interpreted jitted program, whose compiled kernels
    (the next calls') compute ``exp``/``log`` with XLA's polynomial throughout."""
    from ..jit_runtime import _tier

    return bool(getattr(_tier, "interpreting", 0))


def xla_kernel_or(name, f, quiet=False):
    """``f``, but XLA's own kernel for float32 (and the narrow floats, computed in float32), so
    values match JAX's to the bit (see xla_f32.py). ``quiet``: the other dtypes' computations under
    ``np.errstate(all="ignore")`` (the float32 kernel reports nothing: it needs none, ~1 us a call)."""

    def g(x, **params):
        if x.dtype == np.float32:
            out = xla_f32.kernel(name, x)
            start = libm_f32.tail_start(x.shape) if name in libm_f32.TAILS else None
            if start is not None and not _in_program():  # (this kernel alone: an eager operation)
                out = out.copy()
                out[start:] = libm_f32.kernel(name, x[start:])
            return out
        if quiet:
            with np.errstate(all="ignore"):
                return other(x, **params)
        return other(x, **params)

    def other(x, **params):
        if x.dtype == np.float16 and name != "log":
            # XLA computes float16 with its float32 kernel and rounds back (its float16 log is the
            # C library's logf of the widened value instead, as numpy's float16 log)
            return xla_f32.kernel(name, x.astype(np.float32)).astype(np.float16)
        if x.dtype == np.float64 and name in xla_f64.NAMES:
            return xla_f64.kernel(name, x)
        return f(x, **params)

    g.__name__ = name
    return g


def libm_or(name, f):
    """``f``, but for float32 the C library's function as XLA's kernels call it (see libm_f32.py)."""

    def g(*xs, **params):
        if all(x.dtype == np.float32 for x in xs):
            return libm_f32.kernel(name, *xs)
        return f(*xs, **params)

    g.__name__ = name
    return g


def negative_nan_past_one(f):
    """``f`` (asin or acos) with the NaN XLA gives where ``|x| > 1``: it computes both from
    ``sqrt((1 - x) * (1 + x))``, whose square root of a negative is x86's default NaN, negative.
    (numpy's functions are the C library's, whose NaN there is positive on some CPUs: glibc's on an
    AVX2 one, where the AVX-512 one's SVML gives XLA's.)"""

    def g(x, **params):
        with np.errstate(all="ignore"):
            out = f(x, **params)
        return np.where(np.abs(x) > 1, np.asarray(-np.nan, out.dtype), out)

    g.__name__ = f.__name__
    return g
