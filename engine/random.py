"""``engine.random`` (``jax.random``): counter-based random numbers that trace.

Keys are ``uint32[2]`` arrays, like ``jax.random.PRNGKey``, or typed key arrays
(``random.key``, dtype ``key<fry>``, see :mod:`engine.random_keys`); every
function takes both, ``split``/``fold_in`` return the style they got. Every sampler is a pure function of its key, so
samplers work under ``jit``, ``vmap`` and ``grad`` and give the same values as
in eager mode; the values are JAX's (threefry2x32 with
``jax_threefry_partitionable=True``, 64-bit mode off).

The hash is the ``threefry2x32`` primitive (implementation:
:func:`engine.prng.threefry2x32`); everything else is written with
``engine.lax`` operations. Never reuse a key: ``split`` it.

Example:

  >>> import engine.random as random
  >>> key = random.PRNGKey(0)
  >>> k1, k2 = random.split(key)
  >>> random.uniform(k1, (3,)).shape
  (3,)
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import ad, batching, core, lax, prng
from . import random_keys as rk
from .backends.rows import Mapped, lowerings
from .core import Array, Primitive, ShapedArray, Tracer

__all__ = [
    "PRNGKey",
    "key",
    "key_data",
    "wrap_key_data",
    "key_impl",
    "clone",
    "split",
    "fold_in",
    "bits",
    "uniform",
    "normal",
    "randint",
    "bernoulli",
    "permutation",
    "shuffle",
    "exponential",
    "gumbel",
    "categorical",
    "choice",
    "truncated_normal",
    "threefry2x32_p",
    "threefry_2x32",
]

_U32 = np.dtype(np.uint32)

# ---------------------------------------------------------------------------
# The threefry2x32 primitive
# ---------------------------------------------------------------------------

threefry2x32_p = Primitive("threefry2x32", multiple_results=True)


@threefry2x32_p.def_impl
def _threefry2x32_impl(k0, k1, x0, x1):
    y0, y1 = prng.threefry2x32(k0, k1, x0, x1)
    return [y0, y1]


@threefry2x32_p.def_abstract_eval
def _threefry2x32_abstract_eval(k0, k1, x0, x1):
    avals = (k0, k1, x0, x1)
    if any(a.dtype != _U32 for a in avals):
        raise TypeError(f"threefry2x32 requires uint32 arguments, got {[a.dtype.name for a in avals]}")
    try:
        shape = np.broadcast_shapes(*(a.shape for a in avals))
    except ValueError:
        raise TypeError(
            f"threefry2x32 arguments must broadcast together, got shapes {[a.shape for a in avals]}"
        ) from None
    out = ShapedArray(shape, _U32)
    return [out, out]


def _threefry2x32_batch(axis_size, vals, dims):
    # Elementwise with numpy broadcasting: align every operand to (batch, *out_shape).
    shapes = [
        core.get_aval(v).shape
        if d is batching.not_mapped
        else tuple(s for i, s in enumerate(core.get_aval(v).shape) if i != d)
        for v, d in zip(vals, dims)
    ]
    out_shape = np.broadcast_shapes(*shapes)
    full = (axis_size, *out_shape)
    n = len(out_shape)
    args = []
    for v, d, s in zip(vals, dims, shapes):
        if d is batching.not_mapped:
            if s != out_shape:
                v = lax.broadcast_in_dim(v, out_shape, tuple(range(n - len(s), n)))
            args.append(v)  # stays unbatched; broadcast against the batched operands below
        else:
            v = batching.moveaxis(v, d, 0)
            if (axis_size, *s) != full:
                v = lax.broadcast_in_dim(v, full, (0, *range(1 + n - len(s), 1 + n)))
            args.append(v)
    args = [
        lax.broadcast_in_dim(a, full, tuple(range(1, n + 1))) if d is batching.not_mapped else a
        for a, d in zip(args, dims)
    ]
    return threefry2x32_p.bind(*args), [0, 0]


batching.batch_rules[threefry2x32_p] = _threefry2x32_batch


def _threefry_map(eqn):
    # numpy broadcasting among the four operands (right-aligned, size-1 axes read index 0).
    out = eqn.out_binders[0].aval.shape
    maps = []
    for v in eqn.inputs:
        s = v.aval.shape
        off = len(out) - len(s)
        maps.append([off + i if s[i] == out[off + i] else None for i in range(len(s))])
    return maps, "rt.threefry2x32({0}, {1}, {2}, {3})"


# Fused into loop nests like any elementwise op, calling the runtime's scalar threefry.
lowerings[threefry2x32_p] = Mapped(_threefry_map)
ad.defzero(threefry2x32_p)


def _hash(k0, k1, x0, x1):
    return threefry2x32_p.bind(*(_u32(v) for v in (k0, k1, x0, x1)))


# ---------------------------------------------------------------------------
# Small helpers written with lax
# ---------------------------------------------------------------------------


def _is_concrete(*xs) -> bool:
    return not any(isinstance(x, Tracer) for x in xs)


def _u32(x):
    if isinstance(x, (int, np.integer)):
        return Array(np.asarray(int(x) & 0xFFFFFFFF, _U32))
    return x


def _const(value, dtype):
    return Array(np.asarray(value, dtype))


def _shape(x):
    return core.get_aval(x).shape


def _dtype(x):
    return core.get_aval(x).dtype


def _canon_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(
        int(
            core.concrete_or_error(d, "a shape argument of a random function") if isinstance(d, Tracer) else d
        )
        for d in shape
    )


def _index0(x, i: int):
    """``x[i]`` along the leading axis."""
    n = _shape(x)[0]
    rest = _shape(x)[1:]
    if hasattr(lax, "index_in_dim"):
        return lax.index_in_dim(x, i, 0, keepdims=False)
    if hasattr(lax, "slice"):
        return lax.reshape(lax.slice(x, (i, *[0] * len(rest)), (i + 1, *rest)), rest)
    # Fallback without slicing ops: mask the other rows and reduce (exact for unsigned keys).
    mask = np.zeros((n, *rest), bool)
    mask[i] = True
    zeros = lax.full((n, *rest), 0, _dtype(x))
    return lax.reduce_max(lax.select(Array(mask), x, zeros), (0,))


def _stack_last(a, b):
    """``stack([a, b], axis=-1)`` for two arrays of one shape."""
    s = _shape(a)
    if hasattr(lax, "concatenate"):
        return lax.concatenate([lax.reshape(a, (*s, 1)), lax.reshape(b, (*s, 1))], len(s))
    full = (*s, 2)
    dims = tuple(range(len(s)))
    mask = np.zeros(full, bool)
    mask[..., 1] = True
    return lax.select(Array(mask), lax.broadcast_in_dim(b, full, dims), lax.broadcast_in_dim(a, full, dims))


def _key_words(k, name: str):
    if rk.is_typed(k) and k.shape:
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape {k.shape} != (). "
            f"Use jax.vmap for batching."
        )
    k = rk.unwrap(k)
    aval = core.get_aval(k)
    if aval.shape != (2,) or aval.dtype != _U32:
        raise TypeError(
            f"{name}: expected a PRNG key (uint32 array of shape (2,)), got "
            f"{aval.str_short()}. Create one with random.PRNGKey(seed); to use a batch "
            f"of keys, vmap over them."
        )
    if not isinstance(k, (Array, Tracer)):
        k = Array(np.asarray(k, _U32))
    return _index0(k, 0), _index0(k, 1)


def _iota_2x32(shape):
    """(high, low) 32-bit words of the row-major flat index of each position."""
    size = math.prod(shape)
    if size >= 2**32:
        hi, lo = prng.iota_2x32_shape(shape)
        return Array(hi), Array(lo)
    hi = lax.full(shape, 0, _U32)
    if hasattr(lax, "iota") and shape:
        lo = lax.reshape(lax.iota(_U32, size), shape)
    else:
        lo = Array(np.arange(size, dtype=_U32).reshape(shape))
    return hi, lo


def _split_words(kw, i: int):
    """Words of ``split(key)[i]`` (for a 2-way split) without building the key array."""
    return _hash(kw[0], kw[1], 0, i)


def _bits_words(kw, bit_width: int, shape):
    hi, lo = _iota_2x32(shape)
    y0, y1 = _hash(kw[0], kw[1], hi, lo)
    b = lax.bitwise_xor(y0, y1)
    if bit_width == 32:
        return b
    if bit_width in (8, 16):
        return lax.convert_element_type(b, np.dtype(f"uint{bit_width}"))
    raise TypeError("bits: 64-bit random bits need 64-bit mode, which is off; use 8, 16 or 32.")


def _bcast_to(x, shape, dtype):
    """Convert to ``dtype`` and broadcast (numpy-style, right-aligned) to ``shape``."""
    if not isinstance(x, (Array, Tracer)):
        x = Array(np.asarray(x, dtype))
    x = lax.convert_element_type(x, dtype)
    s = _shape(x)
    if s == tuple(shape):
        return x
    if len(s) > len(shape) or np.broadcast_shapes(s, shape) != tuple(shape):
        raise ValueError(f"parameter shape {s} is not broadcast-compatible with shape {tuple(shape)}")
    n = len(shape)
    if any(a != b for a, b in zip(s, shape[n - len(s) :])):  # size-1 axes: squeeze them first
        keep = [i for i, d in enumerate(s) if d != 1 or shape[n - len(s) + i] == 1]
        x = lax.reshape(x, tuple(s[i] for i in keep))
        return lax.broadcast_in_dim(x, shape, tuple(n - len(s) + i for i in keep))
    return lax.broadcast_in_dim(x, shape, tuple(range(n - len(s), n)))


def _float_dtype(dtype):
    dtype = core.canonical_dtype(np.float32 if dtype is None else dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype argument must be a float dtype, got {dtype}")
    return dtype


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------


def PRNGKey(seed) -> Array:
    """A PRNG key (``uint32[2]``) from an integer seed: ``[0, seed mod 2**32]``.

    Example:

      >>> PRNGKey(42)
      Array([ 0, 42], dtype=uint32)
    """
    if isinstance(seed, Tracer):
        aval = seed.aval
        if aval.shape or aval.dtype.kind not in "iu":
            raise TypeError(f"PRNG key seed must be an integer scalar; got {aval.str_short()}")
        lo = lax.convert_element_type(seed, _U32)
        return _stack_last(lax.full((), 0, _U32), lo)
    return Array(prng.PRNGKey(core.to_numpy(seed) if isinstance(seed, Array) else seed))


def key(seed, *, impl=None) -> rk.PRNGKeyArray:
    """A typed PRNG key (dtype ``key<fry>``) from an integer seed; its data is ``PRNGKey(seed)``.

    Example:

      >>> key(1)
      Array((), dtype=key<fry>) overlaying:
      [0 1]
    """
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"unsupported PRNG implementation {impl!r}: the engine has threefry2x32 only.")
    return rk.PRNGKeyArray(PRNGKey(seed))


def key_data(keys):
    """The raw ``uint32[..., 2]`` data of keys (raw ``PRNGKey`` keys are returned as they are).

    Example:

      >>> key_data(key(3))
      Array([0, 3], dtype=uint32)
    """
    return rk.unwrap(keys)


def wrap_key_data(key_bits_array, *, impl=None):
    """Typed keys over raw ``uint32[..., 2]`` data (the inverse of :func:`key_data`).

    Example:

      >>> wrap_key_data(np.array([0, 5], np.uint32))
      Array((), dtype=key<fry>) overlaying:
      [0 5]
    """
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"unsupported PRNG implementation {impl!r}: the engine has threefry2x32 only.")
    return rk.wrap(key_bits_array)


def key_impl(keys) -> str:
    """The name of the PRNG implementation of typed keys (always ``threefry2x32``)."""
    if not rk.is_typed(keys):
        raise TypeError(f"key_impl requires a typed key array (jax.random.key), got {type(keys).__name__}.")
    return keys.dtype.impl


def clone(key):
    """The same key (keys are immutable values here)."""
    return key


def split(key, num: int | Sequence[int] = 2):
    """Splits a key into ``num`` new keys (``num`` may be a shape); key ``i`` is
    ``threefry2x32(key, (0, i))``.

    Example:

      >>> split(PRNGKey(0))
      Array([[1797259609, 2579123966],
             [ 928981903, 3453687069]], dtype=uint32)
    """
    k0, k1 = _key_words(key, "split")
    shape = _canon_shape(num if isinstance(num, (tuple, list)) else (num,))
    hi, lo = _iota_2x32(shape)
    y0, y1 = _hash(k0, k1, hi, lo)
    return rk.like(key, _stack_last(y0, y1))


def fold_in(key, data):
    """Folds a 32-bit integer into a key: ``threefry2x32(key, (0, data))``.

    Example:

      >>> fold_in(PRNGKey(0), 1)
      Array([ 928981903, 3453687069], dtype=uint32)
    """
    k0, k1 = _key_words(key, "fold_in")
    if isinstance(data, Tracer):
        if data.aval.shape:
            raise TypeError("fold_in accepts a scalar; use vmap for batching.")
        d = lax.convert_element_type(data, _U32)
    else:
        if np.ndim(data):
            raise TypeError(
                f"fold_in accepts a scalar, but was given an array of shape "
                f"{np.shape(data)} != (). Use vmap for batching."
            )
        if isinstance(data, int) and not 0 <= data < 2**32:
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        d = Array(np.asarray(core.to_numpy(data) if isinstance(data, Array) else data).astype(_U32))
    y0, y1 = _hash(k0, k1, 0, d)
    return rk.like(key, _stack_last(y0, y1))


# ---------------------------------------------------------------------------
# Samplers
# ---------------------------------------------------------------------------


def bits(key, shape: Sequence[int] = (), dtype=None):
    """Uniform random bits (``uint8``, ``uint16`` or ``uint32``).

    Example:

      >>> bits(PRNGKey(0), (2,)).dtype
      dtype('uint32')
    """
    dtype = np.dtype(np.uint32 if dtype is None else dtype)
    if dtype.kind != "u":
        raise TypeError(f"bits requires an unsigned integer dtype, got {dtype}")
    kw = _key_words(key, "bits")
    return _bits_words(kw, dtype.itemsize * 8, _canon_shape(shape))


def _uniform(kw, shape, dtype, minval, maxval):
    finfo = np.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    if nbits not in (16, 32):
        raise TypeError(f"uniform supports float16 and float32 (64-bit mode is off), got {dtype}")
    b = _bits_words(kw, nbits, shape)
    # The top nmant bits as a mantissa in [1, 2) minus 1, computed exactly as m * 2**-nmant.
    m = lax.shift_right_logical(b, lax.full(shape, nbits - nmant, b.dtype))
    floats = lax.mul(lax.convert_element_type(m, dtype), lax.full(shape, 2.0**-nmant, dtype))
    if _is_concrete(minval, maxval):
        lo = np.asarray(core.to_numpy(minval) if isinstance(minval, Array) else minval).astype(dtype)
        hi = np.asarray(core.to_numpy(maxval) if isinstance(maxval, Array) else maxval).astype(dtype)
        if lo.shape == () and hi.shape == () and lo == 0 and hi == 1:
            return floats  # floats * 1 + 0, clamped at 0: the same values, fewer ops
        with np.errstate(over="ignore", invalid="ignore"):
            scale = _bcast_to(Array(np.asarray(hi - lo, dtype)), shape, dtype)
        minval = _bcast_to(Array(lo), shape, dtype)
    else:
        minval = _bcast_to(minval, shape, dtype)
        maxval = _bcast_to(maxval, shape, dtype)
        scale = lax.sub(maxval, minval)
    out = lax.add(lax.mul(floats, scale), minval)
    return lax.max(minval, out)


def uniform(key, shape: Sequence[int] = (), dtype=None, minval=0.0, maxval=1.0):
    """Uniform floats in ``[minval, maxval)``.

    Example:

      >>> uniform(PRNGKey(0), (2,))
      Array([0.947667 , 0.9785799], dtype=float32)
    """
    dtype = _float_dtype(dtype)
    kw = _key_words(key, "uniform")
    return _uniform(kw, _canon_shape(shape), dtype, minval, maxval)


def normal(key, shape: Sequence[int] = (), dtype=None):
    """Standard normal samples: ``sqrt(2) * erf_inv(u)``, ``u`` uniform in (-1, 1).

    Example:

      >>> normal(PRNGKey(0), (3,)).shape
      (3,)
    """
    dtype = _float_dtype(dtype)
    shape = _canon_shape(shape)
    kw = _key_words(key, "normal")
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(kw, shape, dtype, lo, np.array(1.0, dtype))
    return lax.mul(lax.full(shape, np.sqrt(2), dtype), lax.erf_inv(u))


def _clip_to(x, dtype):
    """Convert an integer array to ``dtype``, clipping to its range (no wraparound)."""
    src = _dtype(x)
    lo = max(np.iinfo(dtype).min, np.iinfo(src).min)
    hi = min(np.iinfo(dtype).max, np.iinfo(src).max)
    s = _shape(x)
    x = lax.max(x, lax.full(s, lo, src))
    x = lax.min(x, lax.full(s, hi, src))
    return lax.convert_element_type(x, dtype)


def _as_int_array(v):
    if isinstance(v, Tracer):
        if v.aval.dtype.kind not in "iu":
            v = lax.convert_element_type(v, np.int32)
        return v, None
    a = np.asarray(core.to_numpy(v) if isinstance(v, Array) else v)
    if a.dtype.kind not in "iu":
        a = a.astype(np.int32)
    wide = a.astype(np.int64)
    return Array(
        np.clip(wide, np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(np.int32)
        if a.dtype.itemsize > 4 or a.dtype == np.int64
        else a
    ), wide


def randint(key, shape: Sequence[int], minval, maxval, dtype=None):
    """Uniform integers in ``[minval, maxval)`` (``minval`` where ``maxval <= minval``).

    Example:

      >>> randint(PRNGKey(0), (5,), 0, 10)
      Array([9, 0, 2, 3, 1], dtype=int32)
    """
    dtype = core.canonical_dtype(np.int32 if dtype is None else dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    shape = _canon_shape(shape)
    info = np.iinfo(dtype)
    kw = _key_words(key, "randint")
    minval, min_wide = _as_int_array(minval)
    maxval, max_wide = _as_int_array(maxval)
    for v in (minval, maxval):
        s = _shape(v)
        if len(s) > len(shape) or np.broadcast_shapes(s, shape) != shape:
            raise ValueError(f"randint: parameter shape {s} is not broadcast-compatible with shape {shape}")
    if info.bits < 32:
        # Like JAX: sample in int32 (less bias), clipped to the narrow range, then convert.
        s_min, s_max = _shape(minval), _shape(maxval)
        minval = lax.max(lax.convert_element_type(minval, np.int32), lax.full(s_min, int(info.min), np.int32))
        minval = lax.min(minval, lax.full(s_min, int(info.max), np.int32))
        maxval = lax.max(lax.convert_element_type(maxval, np.int32), lax.full(s_max, int(info.min), np.int32))
        maxval = lax.min(maxval, lax.full(s_max, int(info.max) + 1, np.int32))
        return lax.convert_element_type(_randint(kw, shape, minval, maxval, np.dtype(np.int32), None), dtype)
    out_of_range = None
    if max_wide is not None and (max_wide > info.max).any():
        out_of_range = Array(np.broadcast_to(max_wide > info.max, shape).copy())
    return _randint(kw, shape, minval, maxval, dtype, out_of_range, min_wide, max_wide)


def _randint(kw, shape, minval, maxval, dtype, out_of_range, min_wide=None, max_wide=None):
    nbits = np.iinfo(dtype).bits
    udt = np.dtype(f"uint{nbits}")
    info = np.iinfo(dtype)
    # Concrete bounds are clipped in numpy from their full-width values.
    minval = (
        Array(np.clip(min_wide, info.min, info.max).astype(dtype))
        if min_wide is not None
        else _clip_to(minval, dtype)
    )
    maxval = (
        Array(np.clip(max_wide, info.min, info.max).astype(dtype))
        if max_wide is not None
        else _clip_to(maxval, dtype)
    )
    minval = _bcast_to(minval, shape, dtype)
    maxval = _bcast_to(maxval, shape, dtype)
    higher = _bits_words(_split_words(kw, 0), nbits, shape)
    lower = _bits_words(_split_words(kw, 1), nbits, shape)
    span = lax.convert_element_type(lax.sub(maxval, minval), udt)
    one = lax.full(shape, 1, udt)
    span = lax.select(lax.le(maxval, minval), one, span)
    may_be_zero = False
    if out_of_range is not None:
        span = lax.select(lax.bitwise_and(out_of_range, lax.gt(maxval, minval)), lax.add(span, one), span)
        may_be_zero = True

    def rem(a, b):
        if not may_be_zero:
            return lax.rem(a, b)
        zero = lax.eq(b, lax.full(shape, 0, udt))  # XLA: a % 0 == a
        return lax.select(zero, a, lax.rem(a, lax.select(zero, one, b)))

    multiplier = rem(lax.full(shape, 2 ** (nbits // 2), udt), span)
    multiplier = rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(rem(higher, span), multiplier), rem(lower, span))
    offset = rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


def bernoulli(key, p=0.5, shape: Sequence[int] | None = None):
    """Booleans that are True with probability ``p``.

    Example:

      >>> bernoulli(PRNGKey(0), 0.3, (4,))
      Array([False, False, False, False], dtype=bool)
    """
    p_aval = core.get_aval(p)
    if p_aval.dtype.kind != "f":
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {p_aval.dtype}.")
    dtype = p_aval.dtype
    shape = p_aval.shape if shape is None else _canon_shape(shape)
    kw = _key_words(key, "bernoulli")
    u = _uniform(kw, shape, dtype, 0.0, 1.0)
    return lax.lt(u, _bcast_to(p, shape, dtype))


def exponential(key, shape: Sequence[int] = (), dtype=None):
    """Exponential samples: ``-log1p(-u)``.

    Example:

      >>> exponential(PRNGKey(0), (2,)).dtype
      dtype('float32')
    """
    dtype = _float_dtype(dtype)
    shape = _canon_shape(shape)
    u = _uniform(_key_words(key, "exponential"), shape, dtype, 0.0, 1.0)
    return lax.neg(lax.log1p(lax.neg(u)))


def gumbel(key, shape: Sequence[int] = (), dtype=None):
    """Gumbel samples: ``-log(-log(u))`` with ``u`` uniform in ``[tiny, 1)``.

    Example:

      >>> gumbel(PRNGKey(0), (2,)).shape
      (2,)
    """
    dtype = _float_dtype(dtype)
    shape = _canon_shape(shape)
    u = _uniform(_key_words(key, "gumbel"), shape, dtype, np.finfo(dtype).tiny, 1.0)
    return lax.neg(lax.log(lax.neg(lax.log(u))))


def truncated_normal(key, lower, upper, shape: Sequence[int] | None = None, dtype=None):
    """Standard normal samples truncated to ``(lower, upper)`` (inverse CDF).

    Example:

      >>> x = truncated_normal(PRNGKey(0), -1.0, 1.0, (100,))
      >>> bool((np.abs(np.asarray(x)) < 1).all())
      True
    """
    dtype = _float_dtype(dtype)
    if shape is None:
        shape = np.broadcast_shapes(core.get_aval(lower).shape, core.get_aval(upper).shape)
    shape = _canon_shape(shape)
    kw = _key_words(key, "truncated_normal")
    lower = _bcast_to(lower, shape, dtype)
    upper = _bcast_to(upper, shape, dtype)
    sqrt2 = lax.full(shape, np.sqrt(2), dtype)
    a = lax.erf(lax.div(lower, sqrt2))
    b = lax.erf(lax.div(upper, sqrt2))
    u = _uniform(kw, shape, dtype, a, b)
    out = lax.mul(sqrt2, lax.erf_inv(u))
    inf = lax.full(shape, np.inf, dtype)
    out = lax.max(lax.nextafter(lower, inf), out)
    return lax.min(lax.nextafter(upper, lax.neg(inf)), out)


# ---------------------------------------------------------------------------
# Permutations
# ---------------------------------------------------------------------------


def _sort_by_keys_last(sort_keys, x):
    """Stable sort of ``x`` by ``sort_keys`` along the last axis.

    With a ``lax.sort_key_val`` this is one op; without it, ranks come from an
    O(n^2) comparison (fine for the sizes a playground shuffles).
    """
    if hasattr(lax, "sort_key_val"):
        return lax.sort_key_val(sort_keys, x, len(_shape(x)) - 1)[1]
    shape = _shape(x)
    n = shape[-1]
    lead = shape[:-1]
    r = len(shape)
    sq = (*lead, n, n)  # [..., i, j]
    ki = lax.broadcast_in_dim(sort_keys, sq, (*range(r - 1), r - 1))  # key of i along axis -2
    kj = lax.broadcast_in_dim(sort_keys, sq, (*range(r - 1), r))  # key of j along axis -1
    tri = lax.broadcast_in_dim(Array(np.tri(n, n, -1, dtype=bool)), sq, (r - 1, r))  # j < i
    before = lax.bitwise_or(lax.lt(kj, ki), lax.bitwise_and(lax.eq(kj, ki), tri))
    rank = lax.reduce_sum(lax.convert_element_type(before, np.int32), (r,))  # [..., i]
    # out[..., p] = x[..., i] where rank[..., i] == p
    pos = lax.broadcast_in_dim(Array(np.arange(n, dtype=np.int32)), sq, (r - 1,))  # p along -2
    rk = lax.broadcast_in_dim(rank, sq, (*range(r - 1), r))  # rank_i along -1
    hit = lax.eq(rk, pos)
    xd = _dtype(x)
    xs = x if xd.kind != "b" else lax.convert_element_type(x, np.int32)
    xi = lax.broadcast_in_dim(xs, sq, (*range(r - 1), r))
    out = lax.reduce_sum(lax.select(hit, xi, lax.full(sq, 0, _dtype(xs))), (r,))
    return out if xd.kind != "b" else lax.convert_element_type(out, xd)


def _shuffle(kw, x, axis: int):
    shape = _shape(x)
    size = math.prod(shape)
    num_rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    ndim = len(shape)
    perm = None
    if axis != ndim - 1:
        perm = tuple(i for i in range(ndim) if i != axis) + (axis,)
    for _ in range(num_rounds):
        sub = _split_words(kw, 1)
        kw = _split_words(kw, 0)
        sort_keys = _bits_words(sub, 32, shape)
        if perm is not None:
            sort_keys, x = lax.transpose(sort_keys, perm), lax.transpose(x, perm)
        x = _sort_by_keys_last(sort_keys, x)
        if perm is not None:
            x = lax.transpose(x, tuple(np.argsort(perm)))
    return x


def _as_array(x):
    if isinstance(x, (Array, Tracer)):
        return x
    return Array(np.asarray(x))


def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of ``arange(x)`` (integer ``x``) or of an array along ``axis``.

    Example:

      >>> permutation(PRNGKey(0), 10)
      Array([0, 1, 8, 5, 6, 4, 3, 2, 7, 9], dtype=int32)
    """
    kw = _key_words(key, "permutation")
    if not np.ndim(x) and not (isinstance(x, Tracer) and x.aval.shape):
        if isinstance(x, Tracer):
            n = int(core.concrete_or_error(x, "argument x of random.permutation()"))
        else:
            if not np.issubdtype(np.asarray(x).dtype, np.integer):
                raise TypeError("x must be an integer or at least 1-dimensional")
            n = int(x)
        return _shuffle(kw, Array(np.arange(n, dtype=np.int32)), 0)
    x = _as_array(x)
    ndim = len(_shape(x))
    axis = axis % ndim
    if independent or ndim == 1:
        return _shuffle(kw, x, axis)
    n = _shape(x)[axis]
    ind = _shuffle(kw, Array(np.arange(n, dtype=np.int32)), 0)
    return _take(x, ind, axis)


def _take(x, ind, axis):
    """``take(x, ind, axis)`` for 1-d ``ind``: a one-hot selection (no gather op needed)."""
    if hasattr(lax, "take"):
        return lax.take(x, ind, axis)
    xs = _shape(x)
    m = _shape(ind)[0]
    n = xs[axis]
    xt = lax.transpose(x, (*[i for i in range(len(xs)) if i != axis], axis)) if axis != len(xs) - 1 else x
    lead = _shape(xt)[:-1]
    r = len(lead)
    sq = (*lead, m, n)
    hit = lax.eq(
        lax.broadcast_in_dim(ind, sq, (r,)),
        lax.broadcast_in_dim(Array(np.arange(n, dtype=_dtype(ind))), sq, (r + 1,)),
    )
    xd = _dtype(x)
    xi = xt if xd.kind != "b" else lax.convert_element_type(xt, np.int32)
    xb = lax.broadcast_in_dim(xi, sq, (*range(r), r + 1))
    out = lax.reduce_sum(lax.select(hit, xb, lax.full(sq, 0, _dtype(xi))), (r + 1,))
    if xd.kind == "b":
        out = lax.convert_element_type(out, xd)
    if axis != len(xs) - 1:
        out = lax.transpose(out, tuple(np.argsort((*[i for i in range(len(xs)) if i != axis], axis))))
    return out


def shuffle(key, x, axis: int = 0):
    """Shuffles each vector of ``x`` along ``axis`` independently (JAX's deprecated
    ``random.shuffle``; prefer :func:`permutation`)."""
    x = _as_array(x)
    return _shuffle(_key_words(key, "shuffle"), x, axis % max(1, len(_shape(x))))


def _argmax_last(x):
    """First index of the maximum along the last axis, with lax ops."""
    if hasattr(lax, "argmax"):
        return lax.argmax(x, len(_shape(x)) - 1, np.int32)
    s = _shape(x)
    r = len(s) - 1
    mx = lax.broadcast_in_dim(lax.reduce_max(x, (r,)), s, tuple(range(r)))
    idx = lax.broadcast_in_dim(Array(np.arange(s[-1], dtype=np.int32)), s, (r,))
    big = lax.full(s, s[-1], np.int32)
    return lax.reduce_min(lax.select(lax.eq(x, mx), idx, big), (r,))


def categorical(key, logits, axis: int = -1, shape: Sequence[int] | None = None):
    """Samples from categorical distributions given by ``logits`` (Gumbel max trick).

    Example:

      >>> categorical(PRNGKey(0), jnp_logits := Array(np.log(np.float32([.2, .8])))).shape
      ()
    """
    logits = _as_array(logits)
    if _dtype(logits) != np.float32:
        logits = lax.convert_element_type(logits, np.float32)
    ls = _shape(logits)
    axis = axis % len(ls)
    batch_shape = tuple(d for i, d in enumerate(ls) if i != axis)
    shape = batch_shape if shape is None else _canon_shape(shape)
    if np.broadcast_shapes(shape, batch_shape) != shape:
        raise ValueError(
            f"categorical: shape {shape} is not broadcast-compatible with batch shape {batch_shape}"
        )
    prefix = shape[: len(shape) - len(batch_shape)]
    lshape = list(shape[len(shape) - len(batch_shape) :])
    lshape.insert(axis, ls[axis])
    full = (*prefix, *lshape)
    g = gumbel(key, full, _dtype(logits))
    lb = lax.broadcast_in_dim(logits, full, tuple(range(len(prefix), len(full))))
    y = lax.add(g, lb)
    ax = len(prefix) + axis
    if ax != len(full) - 1:
        y = lax.transpose(y, (*[i for i in range(len(full)) if i != ax], ax))
    return _argmax_last(y)


def choice(key, a, shape: Sequence[int] = (), replace: bool = True, p=None, axis: int = 0):
    """Random samples from ``a`` (an array, or ``arange(a)`` for an integer).

    Example:

      >>> choice(PRNGKey(42), 10, (5,))
      Array([4, 4, 1, 9, 9], dtype=int32)
    """
    shape = _canon_shape(shape)
    scalar = not (isinstance(a, Tracer) and a.aval.shape) and not np.ndim(a)
    if scalar:
        n_inputs = int(core.concrete_or_error(a, "argument a of random.choice()"))
        arr = None
    else:
        arr = _as_array(a)
        axis = axis % len(_shape(arr))
        n_inputs = _shape(arr)[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return Array(np.zeros(shape, np.int32 if arr is None else _dtype(arr)))
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than population "
            f"(size {n_inputs}) when 'replace=False'"
        )
    if p is not None:
        if not _is_concrete(key, a, p):
            raise NotImplementedError(
                "random.choice with p= under a transformation needs cumsum/"
                "searchsorted or top_k, which engine.lax does not have yet."
            )
        res = prng.choice(
            np.asarray(key),
            np.asarray(a) if arr is not None else n_inputs,
            shape,
            replace,
            np.asarray(p),
            axis,
        )
        return Array(res)
    if replace:
        ind = randint(key, shape, 0, n_inputs)
        if arr is None:
            return ind
        flat = _take(arr, lax.reshape(ind, (n_draws,)), axis)
    else:
        perm = permutation(key, n_inputs if arr is None else arr, axis)
        ind_sel = Array(np.arange(n_draws, dtype=np.int32))
        flat = _take(perm, ind_sel, 0 if arr is None else axis)
        if arr is None:
            return lax.reshape(flat, shape)
    s = _shape(arr)
    return lax.reshape(flat, (*s[:axis], *shape, *s[axis + 1 :]))


def threefry_2x32(keypair, count):
    """Threefry on a counter array, as JAX's ``prng.threefry_2x32`` (concrete inputs)."""
    return Array(prng.threefry_2x32(np.asarray(keypair), np.asarray(count)))
