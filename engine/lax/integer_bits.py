"""Integer bit primitives: ``clz`` (count leading zeros) and ``mulhi`` (the high half of a product).

Both have zero derivatives (integer outputs) and batch elementwise; their numpy rules are exact,
so compiled code runs them through the interpreter (``rows.INTERPRETER_ONLY``).
"""

from __future__ import annotations

import numpy as np

from ..ad import defzero
from . import elementwise as ew

__all__ = ["clz", "clz_p", "mulhi", "mulhi_p"]


def _clz(x: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    # The bit length, found by halving: how far the highest set bit is from the bottom.
    length = np.zeros(u.shape, np.int64)
    shift = 32
    while shift:
        high = (u >> np.uint64(shift)) != 0
        length = np.where(high, length + shift, length)
        u = np.where(high, u >> np.uint64(shift), u)
        shift //= 2
    length = np.where(u != 0, length + 1, length)
    return (bits - length).astype(x.dtype)


def _mulhi(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    bits = x.dtype.itemsize * 8
    signed = x.dtype.kind == "i"
    if bits < 64:
        wide = np.dtype(f"{'i' if signed else 'u'}{bits * 2 // 8}")
        return ((x.astype(wide) * y.astype(wide)) >> bits).astype(x.dtype)
    # 64-bit operands: exact products in Python integers, wrapped to the dtype's range.
    out = [
        ((int(a) * int(b)) >> 64)
        for a, b in zip(
            np.broadcast_to(x, np.broadcast(x, y).shape).ravel(),
            np.broadcast_to(y, np.broadcast(x, y).shape).ravel(),
        )
    ]
    wrapped = [(v + (1 << 63)) % (1 << 64) - (1 << 63) if signed else v % (1 << 64) for v in out]
    return np.array(wrapped, dtype=x.dtype).reshape(np.broadcast(x, y).shape)


clz_p = ew.unop("clz", _clz, (ew._INT,))
mulhi_p = ew.binop("mulhi", _mulhi, (ew._INT,))
defzero(clz_p)
defzero(mulhi_p)


def clz(x):
    """The number of leading zero bits of each element of an integer array.

    >>> clz(jnp.array([1, 255, 0, -1], dtype=jnp.int32))
    Array([31, 24, 32,  0], dtype=int32)
    """
    return clz_p.bind(x)


def mulhi(x, y, /):
    """The high half of the bits of ``x * y`` computed at twice the width (integers of one dtype).

    >>> mulhi(jnp.uint32(0x80000000), jnp.uint32(6))
    Array(3, dtype=uint32)
    """
    return mulhi_p.bind(x, y)
