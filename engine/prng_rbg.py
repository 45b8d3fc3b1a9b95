"""Pure-numpy reference of JAX's ``rbg`` and ``unsafe_rbg`` PRNG implementations on CPU.

Both keep a key as ``uint32[4]`` and draw bits with XLA's ``RngBitGenerator``, whose default
algorithm on CPU is Philox-4x32-10: the four words are read as two little-endian uint64s, the
first being the Philox key and the second the low half of a 128-bit counter whose high half is
the key again (XLA reads it past the end of the one-word state). Each
counter value yields four 32-bit words, taken in order; the returned key has the counter advanced
by the number of 128-bit blocks used. Narrower dtypes keep the low bits of each 32-bit word;
``uint64`` (x64 on) joins two consecutive words, the second one the high half (x64 off: 32-bit words).

``rbg`` seeds, splits and folds with threefry2x32 on each half of the key; ``unsafe_rbg`` splits
and folds with the bit generator itself, as JAX 0.10.2 does. Only concrete numpy arrays here.

Example (the Random123 known answer for Philox-4x32-10 with zero key and counter):

  >>> _, bits = rng_bit_generator(np.zeros(4, np.uint32), (4,))
  >>> [hex(int(b)) for b in bits]
  ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import prng
from .canonical_dtypes import canonical_dtype

__all__ = ["philox4x32", "rng_bit_generator", "IMPLS"]

_U32 = np.uint32
_U64 = np.uint64
_MULTIPLIERS = (0xD2511F53, 0xCD9E8D57)
_KEY_STEPS = (0x9E3779B9, 0xBB67AE85)  # the Weyl sequence that bumps the key between rounds


def _mul_hi_lo(a: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    p = a.astype(_U64) * _U64(m)
    return (p >> _U64(32)).astype(_U32), (p & _U64(0xFFFFFFFF)).astype(_U32)


def philox4x32(counter: Sequence[np.ndarray], key: Sequence[int]) -> list[np.ndarray]:
    """Philox-4x32 with 10 rounds on four uint32 counter arrays and a two-word key.

    Example:

      >>> [hex(int(w[0])) for w in philox4x32([np.zeros(1, np.uint32)] * 4, (0, 0))]
      ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
    """
    x = [np.asarray(c, _U32) for c in counter]
    k0, k1 = _U32(key[0]), _U32(key[1])
    with np.errstate(over="ignore"):
        for _ in range(10):
            hi0, lo0 = _mul_hi_lo(x[0], _MULTIPLIERS[0])
            hi1, lo1 = _mul_hi_lo(x[2], _MULTIPLIERS[1])
            x = [hi1 ^ x[1] ^ k0, lo1, hi0 ^ x[3] ^ k1, lo0]
            k0, k1 = k0 + _U32(_KEY_STEPS[0]), k1 + _U32(_KEY_STEPS[1])
    return x


_BIT_DTYPES = {np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64)}


def rng_bit_generator(key, shape: Sequence[int], dtype=np.uint32) -> tuple[np.ndarray, np.ndarray]:
    """``lax.rng_bit_generator`` with the default algorithm, as JAX runs it on CPU: ``(new_key,
    bits)`` for a ``uint32[4]`` key.

    Example:

      >>> new_key, bits = rng_bit_generator(np.array([1, 2, 3, 4], np.uint32), (5,))
      >>> new_key.tolist()
      [1, 2, 5, 4]
    """
    key = np.asarray(key)
    if key.shape != (4,) or key.dtype != _U32:
        raise TypeError(f"rng_bit_generator: the key must be uint32[4], got {key.dtype}{list(key.shape)}")
    dtype = np.dtype(dtype)
    if dtype not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    dtype = canonical_dtype(dtype)  # (uint64 is uint32 while x64 is off)
    shape = tuple(int(d) for d in shape)
    wide = dtype == np.uint64  # each value joins two consecutive words, the second one high
    n = math.prod(shape) * (2 if wide else 1)
    blocks = -(-n // 4)
    start = int(key[2]) | (int(key[3]) << 32)
    counters = (np.arange(blocks, dtype=_U64) + _U64(start)) if blocks else np.zeros(0, _U64)
    # The counter is 128 bits wide: a carry out of the low word bumps the high word.
    carry = counters < _U64(start)
    words = philox4x32(
        [
            (counters & _U64(0xFFFFFFFF)).astype(_U32),
            (counters >> _U64(32)).astype(_U32),
            key[0] + carry.astype(_U32),
            np.full(blocks, key[1], _U32) + (carry & (key[0] == _U32(0xFFFFFFFF))).astype(_U32),
        ],
        (int(key[0]), int(key[1])),
    )
    flat = np.stack(words, axis=-1).reshape(-1)[:n]
    if wide:
        flat = flat[0::2].astype(_U64) | (flat[1::2].astype(_U64) << _U64(32))
    bits = flat.astype(dtype).reshape(shape)
    end = (start + blocks) & 0xFFFFFFFFFFFFFFFF
    new_key = np.array([key[0], key[1], end & 0xFFFFFFFF, end >> 32], _U32)
    return new_key, bits


def _check_key(name: str, key) -> np.ndarray:
    key = np.asarray(key)
    if key.shape != (4,) or key.dtype != _U32:
        raise TypeError(
            f"{name}: expected an rbg key (uint32 array of shape (4,)), got {key.dtype}{list(key.shape)}"
        )
    return key


def seed(s) -> np.ndarray:
    """An rbg key from an integer seed: the threefry key, twice.

    Example:

      >>> seed(7).tolist()
      [0, 7, 0, 7]
    """
    half = prng.PRNGKey(s)
    return np.concatenate([half, half])


def _shape(num) -> tuple[int, ...]:
    return tuple(int(d) for d in num) if isinstance(num, (tuple, list)) else (int(num),)


def split(key, num: int | Sequence[int] = 2) -> np.ndarray:
    """``rbg`` split: each half of the key split with threefry2x32 (``shape + (4,)``)."""
    key = _check_key("split", key)
    shape = _shape(num)
    halves = [prng.split(key[2 * i : 2 * i + 2], shape) for i in (0, 1)]
    return np.concatenate(halves, axis=-1)


def fold_in(key, data) -> np.ndarray:
    """``rbg`` fold_in: each half of the key folded with threefry2x32."""
    key = _check_key("fold_in", key)
    return np.concatenate([prng.fold_in(key[2 * i : 2 * i + 2], data) for i in (0, 1)])


def random_bits(key, bit_width: int = 32, shape: Sequence[int] = ()) -> np.ndarray:
    """Random bits of an ``rbg``/``unsafe_rbg`` key: the bit generator's output."""
    key = _check_key("random_bits", key)
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    return rng_bit_generator(key, shape, prng.UINT_DTYPES[bit_width])[1]


def unsafe_split(key, num: int | Sequence[int] = 2) -> np.ndarray:
    """``unsafe_rbg`` split: every 10th row of ``10 * num`` rows of generated key words."""
    key = _check_key("split", key)
    shape = _shape(num)
    _, rows = rng_bit_generator(key, (10 * math.prod(shape), 4))
    return rows[::10].reshape(*shape, 4)


def unsafe_fold_in(key, data) -> np.ndarray:
    """``unsafe_rbg`` fold_in: the key xor the last of 10 rows generated from ``seed(data)``."""
    key = _check_key("fold_in", key)
    d = int(np.asarray(data).astype(_U32))
    _, rows = rng_bit_generator(np.concatenate([np.array([0, d], _U32)] * 2), (10, 4))
    return key ^ rows[-1]


# Batches of keys. JAX computes these by vmap, and the batching rule of ``rng_bit_generator`` draws
# the whole batch's bits from the batch's first key: so do these, on ``uint32[..., 4]`` key data.


def _first(keys: np.ndarray) -> np.ndarray:
    return keys.reshape(-1, 4)[0] if keys.size else np.zeros(4, _U32)


def batch_random_bits(keys, bit_width: int, shape: Sequence[int]) -> np.ndarray:
    """``random_bits`` of every key of ``keys`` (``uint32[*s, 4]``): shape ``s + shape``."""
    keys = np.asarray(keys, _U32)
    return random_bits(_first(keys), bit_width, keys.shape[:-1] + tuple(shape))


def batch_split(impl: str, keys, shape: Sequence[int]) -> np.ndarray:
    """``split`` of every key of ``keys`` (``uint32[*s, 4]``) into ``shape``: ``s + shape + (4,)``."""
    keys = np.asarray(keys, _U32)
    batch, shape = keys.shape[:-1], tuple(shape)
    if impl == "rbg":
        flat = [split(k, shape) for k in keys.reshape(-1, 4)]
        return np.stack(flat).reshape(*batch, *shape, 4) if flat else np.zeros((*batch, *shape, 4), _U32)
    num = math.prod(shape)
    _, rows = rng_bit_generator(_first(keys), (math.prod(batch), 10 * num, 4))
    return rows[:, ::10].reshape(*batch, *shape, 4)


def batch_fold_in(impl: str, keys, msgs) -> np.ndarray:
    """``fold_in`` of keys (``uint32[*s, 4]``) and uint32 ``msgs`` that broadcast against ``s``."""
    keys, msgs = np.asarray(keys, _U32), np.asarray(msgs, _U32)
    shape = np.broadcast_shapes(keys.shape[:-1], msgs.shape)
    if impl == "rbg":
        k = np.broadcast_to(keys, (*shape, 4)).reshape(-1, 4)
        m = np.broadcast_to(msgs, shape).reshape(-1)
        out = [fold_in(a, b) for a, b in zip(k, m)]
        return np.stack(out).reshape(*shape, 4) if out else np.zeros((*shape, 4), _U32)
    # The seeds of the messages are one batch of keys for the bit generator.
    first = int(msgs.reshape(-1)[0]) if msgs.size else 0
    _, rows = rng_bit_generator(seed(first), (*msgs.shape, 10, 4))
    return keys ^ rows[..., -1, :]


# name -> (seed, split, fold_in, random_bits), for the two implementations.
IMPLS = {
    "rbg": (seed, split, fold_in, random_bits),
    "unsafe_rbg": (seed, unsafe_split, unsafe_fold_in, random_bits),
}
