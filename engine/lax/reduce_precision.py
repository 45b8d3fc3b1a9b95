"""XLA's ReducePrecision on numpy arrays: ``lax.reduce_precision``'s implementation, and how
bfloat16 rounding is emulated where a dot's algorithm asks for it."""

from __future__ import annotations

import numpy as np


def reduce_precision_bits(x: np.ndarray, *, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """XLA's ReducePrecision on the bit pattern: round-to-nearest-even the mantissa, then
    flush exponents that do not fit to zero or infinity. NaNs stay NaN."""
    finfo = np.finfo(x.dtype)
    src_mant, src_exp = finfo.nmant, finfo.nexp
    uint = np.dtype(f"u{x.dtype.itemsize}")
    bits = np.array(x, order="C").view(uint)
    one = uint.type(1)
    if mantissa_bits < src_mant:
        shift = uint.type(src_mant - mantissa_bits)
        last_bit = one << shift
        bias = (last_bit >> one) - one
        bits = bits + (((bits & last_bit) >> shift) + bias)
        bits = bits & ~(last_bit - one)
    if exponent_bits < src_exp:
        exp_mask = uint.type(((1 << src_exp) - 1) << src_mant)
        sign_mask = uint.type(1 << (x.dtype.itemsize * 8 - 1))
        bias_diff = (1 << (src_exp - 1)) - (1 << (exponent_bits - 1))
        max_exp = uint.type((bias_diff + (1 << exponent_bits) - 2) << src_mant)
        min_exp = uint.type((bias_diff + 1) << src_mant)
        exp = bits & exp_mask
        signed_zero = bits & sign_mask
        bits = np.where(
            exp > max_exp, signed_zero | exp_mask, np.where(exp < min_exp, signed_zero, bits)
        ).astype(uint)
    out = bits.view(x.dtype).reshape(x.shape)
    return np.where(np.isnan(x), x, out) if mantissa_bits < src_mant else out
