"""JAX's PRNG primitives: ``random_seed``, ``random_wrap``, ``random_unwrap``, ``random_bits``,
``random_split`` and ``random_fold_in`` on typed key arrays (dtype ``key<fry>``), and the
``threefry2x32`` hash they are computed with.

Each key primitive works on keys of any shape (``random_bits`` of keys of shape ``s`` has shape
``s + shape``), so its batching rule moves the batch axis to the front. Keys are not
differentiable: their tangents are ``float0`` zeros, as in JAX. The numpy implementations hash
with :func:`engine.prng.threefry2x32`; compiled code (``engine.random_lowering``) rewrites the key
primitives to ``threefry2x32`` on the keys' ``uint32`` data, which the numba backend fuses.

  >>> import engine as jax
  >>> print(jax.make_jaxpr(lambda s: jax.random.key(s))(0))
  { lambda ; a:i32[]. let b:key<fry>[] = random_seed[impl=fry] a in (b,) }
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from . import ad, batching, core, ir, key_reuse, lax, prng, prng_rbg
from . import random_keys as rk
from .backends.rows import Mapped, Physical, lowerings
from .core import Primitive, ShapedArray
from .narrow_dtypes import kind as dtype_kind

_U32 = np.dtype(np.uint32)


class PRNGImpl:
    """The ``impl`` parameter of ``random_seed``/``random_wrap``; prints as JAX prints it (``fry``)."""

    def __init__(self, name: str):
        self.name = name
        self.key_dtype = rk.key_dtypes[name]
        self.tag = self.key_dtype.tag

    def __repr__(self):
        return self.tag

    __str__ = __repr__


prng_impls = {name: PRNGImpl(name) for name in rk.key_dtypes}
threefry_prng_impl = prng_impls["threefry2x32"]

# ---------------------------------------------------------------------------------------------
# threefry2x32: the hash, elementwise on uint32 words.

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
            args.append(lax.broadcast_in_dim(v, full, tuple(range(1, n + 1))))
        else:
            v = batching.moveaxis(v, d, 0)
            if (axis_size, *s) != full:
                v = lax.broadcast_in_dim(v, full, (0, *range(1 + n - len(s), 1 + n)))
            args.append(v)
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


# ---------------------------------------------------------------------------------------------
# numpy implementations on key storage (see engine.random_keys).


def _words(storage: np.ndarray, extra: int):
    """The two key words of every key, with ``extra`` trailing axes of size 1 to broadcast."""
    data = rk.data_from_storage(storage)
    k0, k1 = data[..., 0], data[..., 1]
    pad = (1,) * extra
    return k0.reshape(k0.shape + pad), k1.reshape(k1.shape + pad)


def _keys_of(y0, y1) -> np.ndarray:
    return rk.storage_from_data(np.stack([y0, y1], axis=-1))


def _seed_impl(seeds, *, impl):
    seeds = np.asarray(seeds)
    if impl.name != threefry_prng_impl.name:  # (compared by name: a device process unpickles its own)
        seed_fn = prng_rbg.IMPLS[impl.name][0]
        out = [seed_fn(int(s)) for s in seeds.reshape(-1)]
        data = np.stack(out).reshape(*seeds.shape, 4) if out else np.zeros((*seeds.shape, 4), _U32)
        return rk.PRNGKeyArray(rk.storage_from_data(data, impl.key_dtype))
    # threefry_seed: the high word is seed >> 32 (zero for 32-bit seeds), the low word its low 32 bits.
    wide = seeds.astype(np.int64).view(np.uint64)
    lo = (wide & np.uint64(0xFFFFFFFF)).astype(_U32)
    hi = (wide >> np.uint64(32)).astype(_U32) if seeds.dtype.itemsize == 8 else np.zeros_like(lo)
    return rk.PRNGKeyArray(_keys_of(hi, lo))


def _bits_impl(keys, *, bit_width, shape):
    if rk.data_dtype(keys) != rk.key_dtype:
        return prng_rbg.batch_random_bits(rk.data_from_storage(keys), bit_width, shape)
    if not prng.partitionable():
        return prng.random_bits_original(*_words(keys, 0), bit_width, shape)
    k0, k1 = _words(keys, len(shape))
    hi, lo = prng.iota_2x32_shape(shape)
    y0, y1 = prng.threefry2x32(k0, k1, hi, lo)
    y0, y1 = (np.broadcast_to(y, keys.shape + tuple(shape)) for y in (y0, y1))
    if bit_width == 64:  # (x64) the two words side by side, as JAX's threefry_random_bits
        return (y0.astype(np.uint64) << np.uint64(32)) | y1.astype(np.uint64)
    bits = y0 ^ y1
    return bits if bit_width == 32 else bits.astype(np.dtype(f"uint{bit_width}"))


def _split_impl(keys, *, shape):
    kd = rk.data_dtype(keys)
    if kd != rk.key_dtype:
        out = prng_rbg.batch_split(kd.impl, rk.data_from_storage(keys), shape)
        return rk.PRNGKeyArray(rk.storage_from_data(out, kd))
    if not prng.partitionable():
        return rk.PRNGKeyArray(rk.storage_from_data(prng.split_original(*_words(keys, 0), shape)))
    k0, k1 = _words(keys, len(shape))
    hi, lo = prng.iota_2x32_shape(shape)
    y0, y1 = prng.threefry2x32(k0, k1, hi, lo)
    full = keys.shape + tuple(shape)
    return rk.PRNGKeyArray(_keys_of(np.broadcast_to(y0, full), np.broadcast_to(y1, full)))


def _fold_in_impl(keys, msgs):
    kd = rk.data_dtype(keys)
    if kd != rk.key_dtype:
        out = prng_rbg.batch_fold_in(kd.impl, rk.data_from_storage(keys), msgs)
        return rk.PRNGKeyArray(rk.storage_from_data(out, kd))
    k0, k1 = _words(keys, 0)
    y0, y1 = prng.threefry2x32(k0, k1, np.uint32(0), np.asarray(msgs, _U32))
    return rk.PRNGKeyArray(_keys_of(y0, y1))


# ---------------------------------------------------------------------------------------------
# Abstract evaluation.


def _key_aval_of(name: str, aval) -> None:
    if not rk.is_key_aval(aval):
        raise TypeError(f"{name} requires a typed key array (such as key<fry>), got {aval.str_short()}")


def _seed_abstract_eval(seeds, *, impl):
    if dtype_kind(seeds.dtype) not in "iu":
        raise TypeError(f"PRNG key seed must be an integer; got {seeds.str_short()}")
    return ShapedArray(seeds.shape, impl.key_dtype)


def _wrap_abstract_eval(base, *, impl):
    words = impl.key_dtype.words
    if base.dtype != _U32 or not base.shape or base.shape[-1] != words:
        raise TypeError(
            f"random_wrap: {impl.name} key data must be a uint32 array whose last axis has size {words}, "
            f"got {base.str_short()}. Create keys with jax.random.key(seed)."
        )
    return ShapedArray(base.shape[:-1], impl.key_dtype)


def _unwrap_abstract_eval(keys):
    _key_aval_of("random_unwrap", keys)
    return ShapedArray((*keys.shape, keys.dtype.words), _U32)


def _bits_abstract_eval(keys, *, bit_width, shape):
    _key_aval_of("random_bits", keys)
    if bit_width not in (8, 16, 32, 64) or (bit_width == 64 and not core.x64_enabled[0]):
        raise TypeError("random bits: 64-bit random bits need 64-bit mode (jax_enable_x64); use 8, 16 or 32.")
    return ShapedArray((*keys.shape, *shape), np.dtype(f"uint{bit_width}"))


def _split_abstract_eval(keys, *, shape):
    _key_aval_of("random_split", keys)
    return ShapedArray((*keys.shape, *shape), keys.dtype)


def _fold_in_abstract_eval(keys, msgs):
    _key_aval_of("random_fold_in", keys)
    if msgs.dtype != _U32:
        raise TypeError(f"random_fold_in requires uint32 data, got {msgs.str_short()}")
    return ShapedArray(np.broadcast_shapes(keys.shape, msgs.shape), keys.dtype)


# ---------------------------------------------------------------------------------------------
# The primitives and their rows.


def _leading_batch(p):
    """Keys of any shape map to outputs with the same leading axes: batch at the front."""

    def rule(axis_size, vals, dims, **params):
        (x,), (d,) = vals, dims
        return p.bind(batching.moveaxis(x, d, 0), **params), 0

    return rule


def _fold_in_batch(axis_size, vals, dims):
    rank = max(core.get_aval(v).ndim - (d is not batching.not_mapped) for v, d in zip(vals, dims))
    args = []
    for v, d in zip(vals, dims):
        if d is not batching.not_mapped:
            v = batching.moveaxis(v, d, 0)
            s = core.get_aval(v).shape
            if len(s) - 1 < rank:  # right-align its example axes with the other operand's
                v = lax.reshape(v, (s[0], *(1,) * (rank - len(s) + 1), *s[1:]))
        args.append(v)
    return random_fold_in_p.bind(*args), 0


def _primitive(name, impl, abstract_eval, pp_params=None):
    p = Primitive(name)
    p.def_impl(impl)
    p.def_abstract_eval(abstract_eval)
    ad.defzero(p)
    batching.batch_rules[p] = _leading_batch(p)
    lowerings[p] = Physical()
    if pp_params is not None:
        ir.pp_params_rules[p] = pp_params
    return p


def _wrap_impl(base, *, impl):
    return rk.PRNGKeyArray(rk.storage_from_data(base, impl.key_dtype))


def _unwrap_impl(keys):
    return rk.data_from_storage(keys)


random_seed_p = _primitive("random_seed", _seed_impl, _seed_abstract_eval)
random_wrap_p = _primitive("random_wrap", _wrap_impl, _wrap_abstract_eval)
random_unwrap_p = _primitive("random_unwrap", _unwrap_impl, _unwrap_abstract_eval)
random_bits_p = _primitive(
    "random_bits",
    _bits_impl,
    _bits_abstract_eval,
    lambda eqn: [("bit_width", eqn.params["bit_width"]), ("shape", eqn.params["shape"])],
)
random_split_p = _primitive("random_split", _split_impl, _split_abstract_eval)
random_fold_in_p = _primitive("random_fold_in", _fold_in_impl, _fold_in_abstract_eval)
batching.batch_rules[random_fold_in_p] = _fold_in_batch

# jax.random.clone: an identity that key-reuse checking reads as a fresh key (typed or raw data alike).
random_clone_p = Primitive("random_clone")
random_clone_p.def_impl(lambda keys: keys)
random_clone_p.def_abstract_eval(lambda keys: keys)
ad.defzero(random_clone_p)
batching.batch_rules[random_clone_p] = lambda axis_size, vals, dims: (random_clone_p.bind(*vals), dims[0])
lowerings[random_clone_p] = Physical()


def random_seed(seeds, impl: str = "threefry2x32"):
    return random_seed_p.bind(seeds, impl=prng_impls[impl])


def random_wrap(base, impl: str = "threefry2x32"):
    return random_wrap_p.bind(base, impl=prng_impls[impl])


def random_unwrap(keys):
    return random_unwrap_p.bind(keys)


def random_bits(keys, bit_width: int, shape: tuple):
    if key_reuse.active[0]:
        key_reuse.eager_use("random_bits", keys)
    return random_bits_p.bind(keys, bit_width=bit_width, shape=tuple(shape))


def random_split(keys, shape: tuple):
    if key_reuse.active[0]:
        key_reuse.eager_use("random_split", keys)
    return random_split_p.bind(keys, shape=tuple(shape))


def random_fold_in(keys, msgs):
    return random_fold_in_p.bind(keys, msgs)


# ---------------------------------------------------------------------------------------------
# Physical rules: the same computations on the keys' uint32[..., 2] data, written with lax and
# threefry2x32 (engine.random_lowering substitutes them before the numba backend lowers a program).


def _split_words(data):
    n = core.get_aval(data).ndim
    w = [lax.squeeze(lax.slice_in_dim(data, i, i + 1, axis=n - 1), (n - 1,)) for i in (0, 1)]
    return w[0], w[1]


def _stack_words(y0, y1):
    s = core.get_aval(y0).shape
    return lax.concatenate([lax.reshape(y0, (*s, 1)), lax.reshape(y1, (*s, 1))], len(s))


def _iota_2x32(shape):
    """(high, low) 32-bit words of the row-major flat index of each position."""
    size = math.prod(shape)
    if size >= 2**32:
        hi, lo = prng.iota_2x32_shape(shape)
        return core.Array(hi), core.Array(lo)
    lo = lax.reshape(lax.iota(_U32, size), shape) if shape else lax.full((), 0, _U32)
    return lax.full(shape, 0, _U32), lo


def _hash_keys(data, shape):
    """threefry2x32 of every key in ``data`` with the counters of ``shape``: keys.shape + shape."""
    k0, k1 = _split_words(data)
    kshape = core.get_aval(k0).shape
    full = (*kshape, *shape)
    hi, lo = _iota_2x32(shape)
    n = len(kshape)
    k0, k1 = (lax.broadcast_in_dim(k, full, tuple(range(n))) for k in (k0, k1))
    hi, lo = (lax.broadcast_in_dim(c, full, tuple(range(n, n + len(shape)))) for c in (hi, lo))
    return threefry2x32_p.bind(k0, k1, hi, lo)


def _physical_seed(seeds, *, impl):
    lo = lax.convert_element_type(seeds, _U32)
    hi = lax.full(core.get_aval(lo).shape, 0, _U32)
    if core.get_aval(seeds).dtype.itemsize == 8:  # (x64) the high word is seed >> 32, as threefry_seed
        shift = lax.full((), 32, core.get_aval(seeds).dtype)
        hi = lax.convert_element_type(lax.shift_right_logical(seeds, shift), _U32)
    return _stack_words(hi, lo)


def _hash_iota(data, n):
    """``threefry_2x32(key, iota(n))`` of every key in ``data`` (the non-partitionable layout)."""
    k0, k1 = _split_words(data)
    kshape = core.get_aval(k0).shape
    half, nk = (n + 1) // 2, len(kshape)
    x0, x1 = np.arange(half, dtype=_U32), np.arange(half, 2 * half, dtype=_U32)
    if n % 2:
        x1[-1] = 0  # (the zero an odd count is padded with)
    full = (*kshape, half)
    k0, k1 = (lax.broadcast_in_dim(k, full, tuple(range(nk))) for k in (k0, k1))
    x0, x1 = (lax.broadcast_in_dim(core.Array(x), full, (nk,)) for x in (x0, x1))
    words = lax.concatenate(threefry2x32_p.bind(k0, k1, x0, x1), nk)
    return words if n == 2 * half else lax.slice_in_dim(words, 0, n, axis=nk)


def _physical_bits_original(data, bit_width, shape):
    size = math.prod(shape)
    count = -(-bit_width * size // 32)
    words = _hash_iota(data, count)
    kshape = core.get_aval(words).shape[:-1]
    nk = len(kshape)
    if bit_width == 64:
        u64 = np.dtype(np.uint64)
        hi, lo = (
            lax.convert_element_type(lax.slice_in_dim(words, a, b, axis=nk), u64)
            for a, b in ((0, count // 2), (count // 2, count))
        )
        words = lax.bitwise_or(lax.shift_left(hi, lax.full((), 32, u64)), lo)
    elif bit_width in (8, 16):  # each word's low bits first
        per = 32 // bit_width
        wide = (*kshape, count, per)
        shifts = core.Array((bit_width * np.arange(per)).astype(_U32))
        parts = lax.shift_right_logical(
            lax.broadcast_in_dim(words, wide, tuple(range(nk + 1))),
            lax.broadcast_in_dim(shifts, wide, (nk + 1,)),
        )
        parts = lax.bitwise_and(parts, lax.full((), 2**bit_width - 1, _U32))
        flat = lax.slice_in_dim(lax.reshape(parts, (*kshape, count * per)), 0, size, axis=nk)
        words = lax.convert_element_type(flat, np.dtype(f"uint{bit_width}"))
    return lax.reshape(words, (*kshape, *shape))


def _physical_bits(data, *, bit_width, shape):
    if not prng.partitionable():
        return _physical_bits_original(data, bit_width, tuple(shape))
    y0, y1 = _hash_keys(data, shape)
    if bit_width == 64:
        u64 = np.dtype(np.uint64)
        hi = lax.shift_left(lax.convert_element_type(y0, u64), lax.full((), 32, u64))
        return lax.bitwise_or(hi, lax.convert_element_type(y1, u64))
    bits = lax.bitwise_xor(y0, y1)
    return bits if bit_width == 32 else lax.convert_element_type(bits, np.dtype(f"uint{bit_width}"))


def _physical_split(data, *, shape):
    if not prng.partitionable():
        words = _hash_iota(data, 2 * math.prod(shape))
        return lax.reshape(words, (*core.get_aval(words).shape[:-1], *shape, 2))
    return _stack_words(*_hash_keys(data, shape))


def _physical_fold_in(data, msgs):
    k0, k1 = _split_words(data)
    shape = np.broadcast_shapes(core.get_aval(k0).shape, core.get_aval(msgs).shape)

    def bcast(x):
        s = core.get_aval(x).shape
        return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(s), len(shape))))

    y0, y1 = threefry2x32_p.bind(bcast(k0), bcast(k1), lax.full(shape, 0, _U32), bcast(msgs))
    return _stack_words(y0, y1)


physical_rules: dict[Primitive, Callable] = {
    random_seed_p: _physical_seed,
    random_wrap_p: lambda base, *, impl: base,
    random_unwrap_p: lambda data: data,
    random_bits_p: _physical_bits,
    random_split_p: _physical_split,
    random_fold_in_p: _physical_fold_in,
    random_clone_p: lambda data: data,
}
