"""numpy rules of elementwise primitives where numpy's function of the same name is not XLA's: shifts
by the bit width or more, rounding half away from zero (exact, the sign of zero kept), the sign of
a zero or NaN. Used by ``elementwise``'s primitive table."""

from __future__ import annotations

import numpy as np

from . import complex_numbers
from ..narrow_dtypes import kind as dtype_kind


def shift_out_of_range(x, y):
    # XLA defines shifts by a negative amount or by >= the bit width (numpy leaves them to C).
    bits = x.dtype.itemsize * 8
    return (y < 0) | (y >= bits) if dtype_kind(y.dtype) == "i" else (y >= bits)


def unsigned(x):
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def shift_left(x, y):
    big = shift_out_of_range(x, y)
    safe = np.where(big, 0, y).astype(unsigned(x).dtype)
    return np.where(big, 0, (unsigned(x) << safe).view(x.dtype)).astype(x.dtype)


def shift_right_logical(x, y):
    big = shift_out_of_range(x, y)
    safe = np.where(big, 0, y).astype(unsigned(x).dtype)
    return np.where(big, 0, (unsigned(x) >> safe).view(x.dtype)).astype(x.dtype)


def shift_right_arithmetic(x, y):
    # Shifting by the width or more fills with the sign bit; an unsigned operand's top bit is its
    # sign bit too (XLA shifts the bits as signed whatever the type).
    bits = x.dtype.itemsize * 8
    signed = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    safe = np.where(shift_out_of_range(x, y), bits - 1, y).astype(signed.dtype)
    return np.right_shift(signed, safe).view(x.dtype).astype(x.dtype)


def round_(x, rounding_method=0):
    if rounding_method == 0:  # half away from zero, as XLA: the sign kept (-0.4 -> -0.0), and exact
        # (floor(|x| + 0.5) rounds 0.49999997 + 0.5 up to 1, and 2**23 + 1 to 2**23 + 2)
        with np.errstate(invalid="ignore"):
            t = np.trunc(x)
            up = np.abs(x - t) >= 0.5
        return np.copysign(np.where(up, np.abs(t) + 1, np.abs(t)), x).astype(x.dtype)
    return np.round(x)


def sign(x):
    if x.dtype.kind == "c":
        return complex_numbers.complex_sign(x)
    if dtype_kind(x.dtype) == "f":  # XLA's: a zero or NaN is its own sign (sign(-0.0) is -0.0)
        # (x * 0: a subnormal, which DAZ reads as zero, comes out as the zero XLA writes)
        with np.errstate(invalid="ignore"):
            return np.where((x == 0) | np.isnan(x), x * x.dtype.type(0), np.sign(x))
    return np.sign(x)


def xla_float_minmax(out, x, y, greater: bool):
    """numpy's maximum/minimum ``out`` of floats ``x``, ``y`` made XLA's CPU max/min: ``x`` when it is a
    NaN, else ``y``'s NaN with the signs' and (max) or or (min); +0 above -0 (a zero result has
    the signs' and or or too; DAZ reads a subnormal as a zero of its sign, and FTZ writes it so)."""
    if out.all() and not np.isnan(out).any():  # (only zeros and NaNs are decided otherwise)
        return out
    with np.errstate(invalid="ignore"):
        sx, sy = np.signbit(x), np.signbit(y)
        negative = (sx & sy) if greater else (sx | sy)
        zero = np.zeros((), out.dtype)
        fixed = np.where(out == 0, np.where(negative, -zero, zero), out)
        fixed = np.where(np.isnan(y), np.where(negative, -np.abs(y), np.abs(y)), fixed)
        return np.where(np.isnan(x), x, fixed).astype(out.dtype, copy=False)
