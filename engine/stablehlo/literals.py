"""Types and constants as MLIR prints them: ``tensor<2x3xf32>``, ``dense<1.000000e+00>``.

Floats follow MLIR's ``printFloatValue``: six-digit exponent form when it reads back to the same
value, else LLVM's ``APFloat::toString`` with the type's natural precision (``0.693147182``,
``9.99999974E-6``), and infinities and NaNs as hexadecimal bit patterns (``0x7F800000``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_ELEMENT = {
    "bool": "i1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "ui8",
    "uint16": "ui16",
    "uint32": "ui32",
    "uint64": "ui64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "complex<f32>",
    "complex128": "complex<f64>",
}


def element_type(dtype: Any) -> str:
    name = np.dtype(dtype).name if not hasattr(dtype, "name") else dtype.name
    try:
        return _ELEMENT[name]
    except KeyError:
        raise NotImplementedError(f"StableHLO text for dtype {name} is not supported") from None


def tensor_type(shape: Any, dtype: Any) -> str:
    if any(type(d) is not int and getattr(d, "_is_dim_expr", False) for d in shape):
        raise NotImplementedError(
            f"StableHLO text of a program with symbolic dimensions (shape {tuple(shape)}) is not "
            "supported: JAX prints dynamic shapes with shape refinement, the engine does not"
        )
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{element_type(dtype)}>"


def aval_type(aval: Any) -> str:
    words = getattr(aval.dtype, "words", None)
    if words is not None:  # a typed PRNG key: its physical data, words of uint32 per key
        return tensor_type((*aval.shape, words), np.uint32)
    return tensor_type(aval.shape, aval.dtype)


def physical_shape(aval: Any) -> tuple:
    """The shape of the data an aval stands for (a PRNG key's words are a last dimension)."""
    words = getattr(aval.dtype, "words", None)
    return (*aval.shape, words) if words is not None else tuple(aval.shape)


def is_key(aval: Any) -> bool:
    return getattr(aval.dtype, "words", None) is not None


# --- floats ------------------------------------------------------------------------------------

_PRECISION_BITS = {2: 11, 4: 24, 8: 53}  # significand bits of f16, f32, f64 (with the hidden bit)


def _decompose(x: np.floating) -> tuple[int, int]:
    """(significand, binary exponent) with x == significand * 2**exponent, significand > 0."""
    num, den = float(abs(x)).as_integer_ratio()
    exp = 0
    while den > 1:
        den //= 2
        exp -= 1
    return num, exp


def _adjust_int(sig: int, exp: int, precision: int) -> tuple[int, int]:
    bits = sig.bit_length()
    required = (precision * 196 + 58) // 59
    if bits <= required:
        return sig, exp
    removable = (bits - required) * 59 // 196
    if not removable:
        return sig, exp
    return sig // 10**removable, exp + removable


def _adjust_digits(buf: list[str], exp: int, precision: int) -> tuple[list[str], int]:
    # buf holds digits least significant first, as LLVM's buffer
    n = len(buf)
    if n <= precision:
        return buf, exp
    first = n - precision
    if buf[first - 1] < "5":
        while first < n and buf[first] == "0":
            first += 1
        return buf[first:], exp + first
    for i in range(first, n):
        if buf[i] == "9":
            first += 1
        else:
            buf[i] = chr(ord(buf[i]) + 1)
            break
    if first == n:
        return ["1"], exp + first
    return buf[first:], exp + first


def apfloat_string(
    x: np.floating, precision: int = 0, max_padding: int = 3, truncate_zero: bool = True
) -> str:
    """LLVM's ``APFloat::toString`` for a finite value."""
    sign = "-" if np.signbit(x) else ""
    if x == 0:
        if not max_padding:
            if truncate_zero:
                return sign + "0.0E+0"
            return sign + "0.0" + "0" * max(precision - 1, 0) + "e+00"
        return sign + "0"
    if not precision:
        precision = 2 + _PRECISION_BITS[np.dtype(x.dtype).itemsize] * 59 // 196
    sig, exp = _decompose(x)
    while sig % 2 == 0:
        sig //= 2
        exp += 1
    if exp > 0:
        sig, exp = sig << exp, 0
    elif exp < 0:
        sig, exp = sig * 5**-exp, exp  # N * 2^-e == N * 5^e * 10^-e
    sig, exp = _adjust_int(sig, exp, precision)
    buf: list[str] = []
    trailing = True
    while sig:
        sig, d = divmod(sig, 10)
        if trailing and d == 0:
            exp += 1
        else:
            buf.append(str(d))
            trailing = False
    buf, exp = _adjust_digits(buf, exp, precision)
    nd = len(buf)
    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or nd + exp > precision
    else:
        msd = exp + nd - 1
        scientific = False if msd >= 0 else -msd > max_padding
    if scientific:
        exp += nd - 1
        out = buf[-1] + "."
        if nd == 1 and truncate_zero:
            out += "0"
        else:
            out += "".join(reversed(buf[:-1]))
        if not truncate_zero and precision > nd - 1:
            out += "0" * (precision - nd + 1)
        out += "E" if truncate_zero else "e"
        out += "+" if exp >= 0 else "-"
        digits = str(abs(exp))
        if not truncate_zero and len(digits) < 2:
            digits = "0" + digits
        return sign + out + digits
    digits = "".join(reversed(buf))
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + nd
    if whole > 0:
        return sign + digits[:whole] + "." + digits[whole:]
    return sign + "0." + "0" * -whole + digits


def _hex_bits(x: np.floating) -> str:
    size = np.dtype(x.dtype).itemsize
    bits = np.array(x).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[size]).item()
    return f"0x{bits:0{2 * size}X}"


def float_text(x: Any) -> str:
    """How MLIR prints one float element."""
    if not np.isfinite(x):
        return _hex_bits(x)
    s = apfloat_string(x, 6, 0, False)
    if x.dtype.type(float(s)) == x and np.signbit(x.dtype.type(float(s))) == np.signbit(x):
        return s
    s = apfloat_string(x)
    return s if "." in s else _hex_bits(x)


def element_text(x: Any) -> str:
    if isinstance(x, np.bool_):
        return "true" if x else "false"
    if isinstance(x, np.integer):
        return str(int(x))
    if isinstance(x, np.complexfloating):
        part = np.dtype(x.dtype).type(0).real.dtype.type
        return f"({float_text(part(x.real))},{float_text(part(x.imag))})"
    return float_text(x)


# MLIR prints dense elements with more than this many elements as one hex string
_HEX_ABOVE = 100


def dense_text(value: Any, dtype: Any) -> str:
    """``dense<...>`` for an array: one element when all are equal, nested lists otherwise."""
    arr = np.asarray(value, dtype=dtype)
    flat = arr.reshape(-1)
    if flat.size and (flat == flat[0]).all() and not (flat.dtype.kind == "f" and np.isnan(flat).any()):
        if flat.dtype.kind != "f" or (np.signbit(flat) == np.signbit(flat[0])).all():
            return f"dense<{element_text(flat[0])}>"
    if flat.size and flat.dtype.kind == "f" and np.isnan(flat).all():
        bits = flat.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[flat.dtype.itemsize])
        if (bits == bits[0]).all():
            return f"dense<{element_text(flat[0])}>"
    if flat.size > _HEX_ABOVE:
        raw = np.ascontiguousarray(arr)
        if raw.dtype == np.bool_:
            raw = raw.astype(np.uint8)
        return f'dense<"0x{raw.tobytes().hex().upper()}">'
    if arr.ndim == 0:
        return f"dense<{element_text(arr[()])}>"
    if arr.size == 0:
        return "dense<>" if arr.ndim == 1 else "dense<" + "[" * arr.ndim + "]" * arr.ndim + ">"

    def nested(a: np.ndarray) -> str:
        if a.ndim == 1:
            return "[" + ", ".join(element_text(e) for e in a) + "]"
        return "[" + ", ".join(nested(s) for s in a) + "]"

    return f"dense<{nested(arr)}>"
