"""Pure-numpy reference implementation of JAX's default PRNG.

This is the threefry2x32 counter-based generator exactly as JAX (>= 0.5, 64-bit mode off) uses
it, in the bit layout ``jax_threefry_partitionable`` selects (True, the default, or False). Keys are
``uint32[2]`` arrays, like ``jax.random.PRNGKey``. Everything here works on
concrete numpy arrays only; ``engine.random`` is the traceable public API and
uses :func:`threefry2x32` as the implementation of its primitive.

Bit-exactness with JAX: keys, ``split``, ``fold_in``, raw bits, ``uniform``,
``randint``, ``bernoulli`` and ``permutation`` are bit for bit the same.
``normal`` goes through a float32 polynomial ``erf_inv`` (the one XLA uses);
its ``log1p`` may differ from XLA's by an ulp, so normals agree to float32
precision (a few ulp), nearly always exactly.

Example:

  >>> k = PRNGKey(0)
  >>> split(k).tolist()
  [[1797259609, 2579123966], [928981903, 3453687069]]
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from .config import config
from .narrow_dtypes import kind as dtype_kind

__all__ = [
    "threefry2x32",
    "threefry_2x32",
    "iota_2x32_shape",
    "key",
    "PRNGKey",
    "key_data",
    "split",
    "fold_in",
    "random_bits",
    "random_bits_original",
    "split_original",
    "bits",
    "uniform",
    "normal",
    "erf_inv_f32",
    "randint",
    "bernoulli",
    "permutation",
    "shuffle",
    "exponential",
    "gumbel",
    "categorical",
    "choice",
    "truncated_normal",
]

_U32 = np.uint32
UINT_DTYPES = {
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA  # Skein key-schedule parity constant


# ---------------------------------------------------------------------------
# The hash
# ---------------------------------------------------------------------------


def _rotl(v: np.ndarray, r: int) -> np.ndarray:
    return (v << _U32(r)) | (v >> _U32(32 - r))


def threefry2x32(k0, k1, x0, x1) -> tuple[np.ndarray, np.ndarray]:
    """The Threefry-2x32 block cipher (20 rounds) on uint32 arrays.

    ``k0, k1`` is the key and ``x0, x1`` the counter words; all four broadcast
    together. Arithmetic wraps modulo 2**32.

    Example (a Random123 known-answer vector):

      >>> y0, y1 = threefry2x32(0, 0, 0, 0)
      >>> hex(int(y0)), hex(int(y1))
      ('0x6b200159', '0x99ba4efe')
    """
    k0, k1, x0, x1 = (
        np.asarray(a, dtype=_U32) if not isinstance(a, np.ndarray) or a.dtype != _U32 else a
        for a in (k0, k1, x0, x1)
    )
    shape = np.broadcast_shapes(k0.shape, k1.shape, x0.shape, x1.shape)
    # Work on 1-d arrays so numpy never hands back scalars (whose overflow warns).
    k0, k1, x0, x1 = (np.broadcast_to(a, shape).reshape(-1) for a in (k0, k1, x0, x1))
    k2 = k0 ^ k1 ^ _U32(_PARITY)
    ks = (k0, k1, k2)
    with np.errstate(over="ignore"):
        x0 = x0 + k0
        x1 = x1 + k1
        for i in range(5):
            for r in _ROTATIONS[i % 2]:
                x0 = x0 + x1
                x1 = _rotl(x1, r)
                x1 = x1 ^ x0
            x0 = x0 + ks[(i + 1) % 3]
            x1 = x1 + ks[(i + 2) % 3] + _U32(i + 1)
    return x0.reshape(shape), x1.reshape(shape)


def threefry_2x32(keypair, count) -> np.ndarray:
    """Threefry on a flat counter array, as JAX's ``prng.threefry_2x32``.

    The counts are split into two halves (padded with a zero when odd) that are
    hashed as the two counter words. Used by ``fold_in``.

    Example:

      >>> threefry_2x32(np.array([0, 0], np.uint32), np.arange(4, dtype=np.uint32)).shape
      (4,)
    """
    keypair = np.asarray(keypair, _U32)
    count = np.asarray(count, _U32)
    flat = count.reshape(-1)
    odd = flat.shape[0] % 2
    if odd:
        flat = np.concatenate([flat, np.zeros(1, _U32)])
    half = flat.shape[0] // 2
    y0, y1 = threefry2x32(keypair[0], keypair[1], flat[:half], flat[half:])
    out = np.concatenate([y0, y1])
    if odd:
        out = out[:-1]
    return out.reshape(count.shape)


def iota_2x32_shape(shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The row-major flat index of each position of ``shape`` as a 64-bit number,
    given as ``(high 32 bits, low 32 bits)`` uint32 arrays.

    Example:

      >>> hi, lo = iota_2x32_shape((2, 3))
      >>> lo.tolist()
      [[0, 1, 2], [3, 4, 5]]
    """
    shape = tuple(int(d) for d in shape)
    idx = np.arange(math.prod(shape), dtype=np.uint64).reshape(shape)
    return (idx >> np.uint64(32)).astype(_U32), (idx & np.uint64(0xFFFFFFFF)).astype(_U32)


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------


def _check_key(name: str, k) -> np.ndarray:
    k = np.asarray(k)
    if k.shape != (2,) or k.dtype != _U32:
        raise TypeError(
            f"{name}: expected a PRNG key (uint32 array of shape (2,)), got "
            f"{k.dtype}{list(k.shape)}. Create one with PRNGKey(seed); for a batch "
            f"of keys, use vmap."
        )
    return k


def PRNGKey(seed) -> np.ndarray:
    """A PRNG key (``uint32[2]``) from an integer seed.

    With 64-bit mode off (as here), the seed is taken modulo 2**32 and the key
    is ``[0, seed mod 2**32]``, as in JAX.

    Example:

      >>> PRNGKey(42).tolist(), PRNGKey(-1).tolist()
      ([0, 42], [0, 4294967295])
    """
    s = np.asarray(seed)
    if s.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got an array of shape {s.shape}.")
    if not np.issubdtype(s.dtype, np.integer):
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    return np.array([0, int(s) & 0xFFFFFFFF], dtype=_U32)


key = PRNGKey


def key_data(k) -> np.ndarray:
    """The raw ``uint32`` data of a key (keys here already are raw data)."""
    return np.asarray(k, _U32)


def split(k, num: int | Sequence[int] = 2) -> np.ndarray:
    """Splits a key into ``num`` new keys (``num`` may be a shape).

    Key ``i`` (in row-major order) is ``threefry2x32(key, (0, i))``.

    Example:

      >>> split(PRNGKey(0), 3).shape
      (3, 2)
    """
    k = _check_key("split", k)
    shape = tuple(num) if isinstance(num, (tuple, list)) else (int(num),)
    if not partitionable():
        return split_original(k[0], k[1], shape)
    hi, lo = iota_2x32_shape(shape)
    y0, y1 = threefry2x32(k[0], k[1], hi, lo)
    return np.stack([y0, y1], axis=-1)


def fold_in(k, data) -> np.ndarray:
    """Folds a 32-bit integer into a key: ``threefry2x32(key, (0, data))``.

    Example:

      >>> fold_in(PRNGKey(0), 1).dtype
      dtype('uint32')
    """
    k = _check_key("fold_in", k)
    if np.ndim(data):
        raise TypeError(
            f"fold_in accepts a scalar, but was given an array of shape "
            f"{np.shape(data)} != (). Use vmap for batching."
        )
    if isinstance(data, int):
        if not 0 <= data < 2**32:
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        d = np.uint32(data)
    else:
        d = np.asarray(data).astype(_U32)
    return threefry_2x32(k, np.array([0, d], _U32))


# ---------------------------------------------------------------------------
# Bits and samplers
# ---------------------------------------------------------------------------


def _canon_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def _canon_float(dtype) -> np.dtype:
    dtype = np.dtype(np.float32 if dtype is None else dtype)
    if dtype == np.float64:  # 64-bit mode off
        dtype = np.dtype(np.float32)
    return dtype


def _canon_int(dtype) -> np.dtype:
    dtype = np.dtype(np.int32 if dtype is None else dtype)
    if dtype == np.int64:
        dtype = np.dtype(np.int32)
    elif dtype == np.uint64:
        dtype = np.dtype(np.uint32)
    return dtype


def random_bits(k, bit_width: int = 32, shape: Sequence[int] = ()) -> np.ndarray:
    """Uniform random bits: ``uint{bit_width}`` array of ``shape``.

    Position ``i`` (row-major) hashes the counter ``(i >> 32, i & 0xffffffff)``;
    the 32-bit result is the xor of the two output words (8 and 16 bits keep
    its low bits; 64 bits concatenates the two words).

    Example:

      >>> random_bits(PRNGKey(0), 32, (2,)).dtype
      dtype('uint32')
    """
    k = _check_key("random_bits", k)
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    shape = _canon_shape(shape)
    if not partitionable():
        return random_bits_original(k[0], k[1], bit_width, shape)
    hi, lo = iota_2x32_shape(shape)
    y0, y1 = threefry2x32(k[0], k[1], hi, lo)
    if bit_width == 64:
        return (y0.astype(np.uint64) << np.uint64(32)) | y1.astype(np.uint64)
    b = y0 ^ y1
    return b if bit_width == 32 else b.astype(UINT_DTYPES[bit_width])


def partitionable() -> bool:
    """``jax_threefry_partitionable`` (JAX 0.10.2's default, True): which layout random bits and
    split keys take."""
    return bool(config.values["jax_threefry_partitionable"])


# ``jax_threefry_partitionable=False``: JAX's original layout, one threefry_2x32 over a flat counter
# iota (its two halves hashed as the two counter words), cut into bits or keys.


def _hash_iota(k0, k1, n: int) -> np.ndarray:
    """``threefry_2x32(key, iota(n))`` for keys of any shape ``s`` (words ``k0``, ``k1``): ``s + (n,)``."""
    half = (n + 1) // 2
    x0, x1 = np.arange(half, dtype=_U32), np.arange(half, 2 * half, dtype=_U32)
    if n % 2:
        x1[-1] = 0  # (the zero an odd count is padded with)
    y0, y1 = threefry2x32(np.asarray(k0)[..., None], np.asarray(k1)[..., None], x0, x1)
    return np.concatenate([y0, y1], axis=-1)[..., :n]


def random_bits_original(k0, k1, bit_width: int, shape: Sequence[int]) -> np.ndarray:
    """Random bits in JAX's non-partitionable layout: ``uint{bit_width}[s + shape]`` for keys ``s``.

    >>> random_bits_original(np.uint32(0), np.uint32(0), 32, (2,)).tolist()
    [928981903, 3453687069]
    """
    shape = _canon_shape(shape)
    size = math.prod(shape)
    count = -(-bit_width * size // 32)
    if count >= 2**32 - 1:
        raise NotImplementedError(
            "random bits in blocks of 2**32 - 1 words (jax_threefry_partitionable=False)"
        )
    words = _hash_iota(k0, k1, count)
    batch = words.shape[:-1]
    if bit_width == 64:
        hi, lo = (w.astype(np.uint64) for w in np.split(words, 2, axis=-1))
        return ((hi << np.uint64(32)) | lo).reshape(*batch, *shape)
    if bit_width in (8, 16):  # each word's low bits first, as JAX's shifts and reshape
        shifts = (bit_width * np.arange(32 // bit_width)).astype(_U32)
        parts = (words[..., None] >> shifts) & _U32(2**bit_width - 1)
        words = parts.reshape(*batch, -1)[..., :size].astype(UINT_DTYPES[bit_width])
    return words.reshape(*batch, *shape)


def split_original(k0, k1, shape: Sequence[int]) -> np.ndarray:
    """Keys split in JAX's non-partitionable layout: ``uint32[s + shape + (2,)]`` for keys ``s``.

    >>> split_original(np.uint32(0), np.uint32(0), (2,)).tolist()
    [[4146024105, 967050713], [2718843009, 1272950319]]
    """
    shape = _canon_shape(shape)
    words = _hash_iota(k0, k1, 2 * math.prod(shape))
    return words.reshape(*words.shape[:-1], *shape, 2)


def bits(k, shape: Sequence[int] = (), dtype=None) -> np.ndarray:
    """``jax.random.bits``: random bits as an unsigned integer array."""
    dtype = np.dtype(np.uint32 if dtype is None else dtype)
    if dtype_kind(dtype) != "u":
        raise TypeError(f"bits requires an unsigned integer dtype, got {dtype}")
    return random_bits(k, dtype.itemsize * 8, shape)


def uniform(k, shape: Sequence[int] = (), dtype=np.float32, minval=0.0, maxval=1.0) -> np.ndarray:
    """Uniform floats in ``[minval, maxval)``.

    The top ``nmant`` random bits become the mantissa of a float in [1, 2),
    from which 1 is subtracted; then the result is scaled and shifted.

    Example:

      >>> u = uniform(PRNGKey(0), (1000,))
      >>> bool((u >= 0).all() and (u < 1).all())
      True
    """
    dtype = _canon_float(dtype)
    shape = _canon_shape(shape)
    if dtype_kind(dtype) != "f":
        raise TypeError(f"uniform only accepts floating point dtypes, got {dtype}")
    minval = np.asarray(minval).astype(dtype)
    maxval = np.asarray(maxval).astype(dtype)
    _check_broadcast("uniform", shape, minval.shape, maxval.shape)
    finfo = np.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    rng_bits = 8 if nmant < 8 else nbits
    uint = UINT_DTYPES[nbits]
    b = random_bits(k, rng_bits, shape).astype(uint)
    float_bits = (b >> uint.type(rng_bits - nmant)) | np.array(1.0, dtype).view(uint)
    floats = float_bits.view(dtype) - dtype.type(1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        # XLA contracts this multiply-add into one fused op; emulate that with one
        # rounding from float64 (the float32 product is exact there).
        scale = (maxval - minval).astype(np.float64)
        out = (floats.astype(np.float64) * scale + minval.astype(np.float64)).astype(dtype)
    return np.maximum(minval, out).astype(dtype, copy=False).reshape(shape)


def _check_broadcast(name, shape, *param_shapes):
    if param_shapes:
        try:
            b = np.broadcast_shapes(shape, *param_shapes)
        except ValueError:
            b = None
        if b != tuple(shape):
            raise ValueError(
                f"{name} parameter shapes {param_shapes} must be broadcast-compatible "
                f"with shape argument {tuple(shape)}."
            )


def erf_inv_f32(x) -> np.ndarray:
    """Inverse error function in float32, as XLA computes it (``lax.xla_f32.erf_inv``).

    Example:

      >>> float(erf_inv_f32(np.float32(0.5)))  # doctest: +ELLIPSIS
      0.476936...
    """
    from .lax import xla_f32

    with np.errstate(all="ignore"):
        return xla_f32.erf_inv(x)


def normal(k, shape: Sequence[int] = (), dtype=np.float32) -> np.ndarray:
    """Standard normal samples: ``sqrt(2) * erf_inv(u)``, ``u`` uniform in (-1, 1).

    Example:

      >>> normal(PRNGKey(0), (3,)).dtype
      dtype('float32')
    """
    dtype = _canon_float(dtype)
    shape = _canon_shape(shape)
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = uniform(k, shape, dtype, lo, np.array(1.0, dtype))
    if dtype == np.float32:
        e = erf_inv_f32(u)
    else:  # float16: XLA upcasts to float32 for erf_inv
        e = erf_inv_f32(u.astype(np.float32)).astype(dtype)
    return (np.array(np.sqrt(2), dtype) * e).astype(dtype).reshape(shape)


def _urem(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Unsigned remainder with XLA's convention ``a % 0 == a``."""
    zero = b == 0
    return np.where(zero, a, a % np.where(zero, np.ones_like(b), b)).astype(a.dtype)


def randint(k, shape: Sequence[int], minval, maxval, dtype=np.int32) -> np.ndarray:
    """Uniform integers in ``[minval, maxval)``.

    Draws two sets of ``nbits`` random bits (from the two halves of
    ``split(key)``) and reduces the 2*nbits-bit number modulo the span, as JAX
    does. When ``maxval <= minval`` the result is ``minval``.

    Example:

      >>> r = randint(PRNGKey(0), (100,), 3, 7)
      >>> int(r.min()) >= 3 and int(r.max()) < 7
      True
    """
    dtype = _canon_int(dtype)
    shape = _canon_shape(shape)
    if dtype_kind(dtype) not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    minval = np.asarray(minval)
    maxval = np.asarray(maxval)
    _check_broadcast("randint", shape, minval.shape, maxval.shape)
    info = np.iinfo(dtype)
    if info.bits < 32:
        # Like JAX: sample narrow types in int32 (less bias), then convert.
        lo_ = np.clip(minval.astype(np.int64), info.min, info.max)
        hi_ = np.clip(maxval.astype(np.int64), info.min, info.max + 1)
        return randint(k, shape, lo_.astype(np.int32), hi_.astype(np.int32), np.int32).astype(dtype)
    if dtype_kind(minval.dtype) not in "iu":
        minval = minval.astype(np.int32)
    if dtype_kind(maxval.dtype) not in "iu":
        maxval = maxval.astype(np.int32)
    minval = minval.astype(np.int64)
    maxval = maxval.astype(np.int64)
    info = np.iinfo(dtype)
    maxval_out_of_range = maxval > info.max
    minval = np.clip(minval, info.min, info.max).astype(dtype)
    maxval = np.clip(maxval, info.min, info.max).astype(dtype)
    nbits = info.bits
    udt = UINT_DTYPES[nbits]
    k1, k2 = split(k)
    higher = random_bits(k1, nbits, shape)
    lower = random_bits(k2, nbits, shape)
    with np.errstate(over="ignore"):
        span = (maxval - minval).astype(udt)
        span = np.where(maxval <= minval, udt.type(1), span).astype(udt)
        span = np.where(maxval_out_of_range & (maxval > minval), span + udt.type(1), span).astype(udt)
        multiplier = _urem(np.full_like(span, 2 ** (nbits // 2)), span)
        multiplier = _urem((multiplier * multiplier).astype(udt), span)
        off = (_urem(higher, span) * multiplier + _urem(lower, span)).astype(udt)
        off = _urem(off, span)
        out = (minval + off.astype(dtype)).astype(dtype)
    return np.broadcast_to(out, shape).copy() if out.shape != shape else out


def bernoulli(k, p=0.5, shape: Sequence[int] | None = None) -> np.ndarray:
    """Booleans that are True with probability ``p``: ``uniform(key, shape) < p``.

    Example:

      >>> bernoulli(PRNGKey(0), 0.5, (4,)).dtype
      dtype('bool')
    """
    p = np.asarray(p)
    if dtype_kind(p.dtype) != "f":
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {p.dtype}.")
    p = p.astype(_canon_float(p.dtype))
    if shape is None:
        shape = p.shape
    shape = _canon_shape(shape)
    _check_broadcast("bernoulli", shape, p.shape)
    return uniform(k, shape, p.dtype) < p


def _shuffle(k, x: np.ndarray, axis: int) -> np.ndarray:
    exponent = 3
    uint32max = np.iinfo(np.uint32).max
    num_rounds = int(np.ceil(exponent * np.log(max(1, x.size)) / np.log(uint32max)))
    for _ in range(num_rounds):
        k, sub = split(k)
        sort_keys = random_bits(sub, 32, x.shape)
        order = np.argsort(sort_keys, axis=axis, kind="stable")
        x = np.take_along_axis(x, order, axis=axis)
    return x


def permutation(k, x, axis: int = 0, independent: bool = False) -> np.ndarray:
    """A random permutation of ``arange(x)`` (int ``x``) or of an array along ``axis``.

    Uses JAX's method: sort by fresh random 32-bit keys, repeated enough rounds
    that key collisions are negligible (one round below ~1600 elements).

    Example:

      >>> sorted(permutation(PRNGKey(0), 5).tolist())
      [0, 1, 2, 3, 4]
    """
    k = _check_key("permutation", k)
    if not np.ndim(x):
        if not np.issubdtype(np.asarray(x).dtype, np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        return _shuffle(k, np.arange(int(x), dtype=np.int32), 0)
    x = np.asarray(x)
    if x.dtype == np.int64:
        x = x.astype(np.int32)
    elif x.dtype == np.float64:
        x = x.astype(np.float32)
    axis = axis % x.ndim
    if independent or x.ndim == 1:
        return _shuffle(k, x, axis)
    ind = _shuffle(k, np.arange(x.shape[axis], dtype=np.int32), 0)
    return np.take(x, ind, axis=axis)


def shuffle(k, x, axis: int = 0) -> np.ndarray:
    """Shuffles each vector of ``x`` along ``axis`` independently (JAX's deprecated
    ``random.shuffle``)."""
    x = np.asarray(x)
    if x.dtype == np.int64:
        x = x.astype(np.int32)
    elif x.dtype == np.float64:
        x = x.astype(np.float32)
    return _shuffle(_check_key("shuffle", k), x, axis % max(1, x.ndim))


def exponential(k, shape: Sequence[int] = (), dtype=np.float32) -> np.ndarray:
    """Exponential samples: ``-log1p(-u)``."""
    u = uniform(k, shape, dtype)
    return (-np.log1p(-u)).astype(u.dtype)


def gumbel(k, shape: Sequence[int] = (), dtype=np.float32) -> np.ndarray:
    """Gumbel samples (JAX's default "low" mode): ``-log(-log(u))``, u in [tiny, 1)."""
    dtype = _canon_float(dtype)
    u = uniform(k, shape, dtype, np.finfo(dtype).tiny, 1.0)
    return (-np.log(-np.log(u))).astype(dtype)


def categorical(k, logits, axis: int = -1, shape: Sequence[int] | None = None) -> np.ndarray:
    """Samples from categorical distributions (with replacement) by the Gumbel max trick."""
    logits = np.asarray(logits)
    if logits.dtype == np.float64:
        logits = logits.astype(np.float32)
    axis = axis % logits.ndim
    batch_shape = tuple(np.delete(logits.shape, axis))
    shape = batch_shape if shape is None else _canon_shape(shape)
    _check_broadcast("categorical", shape, batch_shape)
    prefix = shape[: len(shape) - len(batch_shape)]
    lshape = list(shape[len(shape) - len(batch_shape) :])
    lshape.insert(axis, logits.shape[axis])
    g = gumbel(k, (*prefix, *lshape), logits.dtype)
    return np.argmax(g + logits.reshape((1,) * len(prefix) + logits.shape), axis=axis + len(prefix)).astype(
        np.int32
    )


def choice(k, a, shape: Sequence[int] = (), replace: bool = True, p=None, axis: int = 0) -> np.ndarray:
    """Random samples from ``a`` (an array, or ``arange(a)`` for an int)."""
    arr = np.asarray(a)
    if arr.dtype == np.int64:
        arr = arr.astype(np.int32)
    elif arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    shape = _canon_shape(shape)
    n_inputs = int(a) if arr.ndim == 0 else arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return np.zeros(shape, arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than population "
            f"(size {n_inputs}) when 'replace=False'"
        )
    if p is None:
        if replace:
            ind = randint(k, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else np.take(arr, ind, axis)
        else:
            perm = permutation(k, n_inputs if arr.ndim == 0 else arr, axis)
            result = perm[(slice(None),) * axis + (slice(n_draws),)]
    else:
        p = np.asarray(p, np.float32)
        if replace:
            cum = np.cumsum(p, dtype=np.float32)
            r = cum[-1] * (np.float32(1) - uniform(k, shape, np.float32))
            ind = np.searchsorted(cum, r).astype(np.int32)
        else:
            g = gumbel(k, (n_inputs,), np.float32) + np.log(p)
            ind = np.argsort(-g, kind="stable")[:n_draws].astype(np.int32)
        result = ind if arr.ndim == 0 else np.take(arr, ind, axis)
    return result.reshape(
        shape if arr.ndim == 0 else arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1 :]
    )


def truncated_normal(k, lower, upper, shape: Sequence[int] | None = None, dtype=np.float32) -> np.ndarray:
    """Normal samples truncated to ``(lower, upper)``, by inverse-CDF sampling."""
    dtype = _canon_float(dtype)
    lower = np.asarray(lower, dtype)
    upper = np.asarray(upper, dtype)
    if shape is None:
        shape = np.broadcast_shapes(lower.shape, upper.shape)
    shape = _canon_shape(shape)
    sqrt2 = np.array(np.sqrt(2), dtype)
    with np.errstate(all="ignore"):
        a = erf_f32(lower / sqrt2)
        b = erf_f32(upper / sqrt2)
        u = uniform(k, shape, dtype, minval=a, maxval=b)
        out = sqrt2 * erf_inv_f32(u)
        lo_n = np.nextafter(lower, np.array(np.inf, dtype))
        hi_n = np.nextafter(upper, np.array(-np.inf, dtype))
        return np.clip(out, lo_n, hi_n).astype(dtype)


def erf_f32(x) -> np.ndarray:
    """erf in float32 as XLA's CPU kernels compute it (``lax.xla_f32.erf``).

    Example:

      >>> float(erf_f32(np.float32(5 / np.sqrt(2))))  # doctest: +ELLIPSIS
      0.9999994...
    """
    from .lax import xla_f32

    with np.errstate(all="ignore"):
        return xla_f32.erf(x)
