"""``engine.random`` (``jax.random``): counter-based random numbers that trace, as JAX stages them.

Keys are typed key arrays (``random.key``, dtype ``key<fry>``, see :mod:`engine.random_keys`) or
raw ``uint32[2]`` arrays (``random.PRNGKey``); every function takes both, ``split``/``fold_in``
return the style they got. Functions are written as JAX 0.10.2 writes them: a raw key is wrapped
(``random_wrap``), samplers are nested jits (``_uniform``, ``_normal``, ``_randint``, ...) around
the key primitives of :mod:`engine.random_primitives` (``random_bits``, ``random_split``, ...), so
``make_jaxpr`` prints JAX's program, and the values are JAX's (threefry2x32, in the layout
``jax_threefry_partitionable`` selects). Never reuse a key: ``split`` it.

Example:

  >>> import engine.random as random
  >>> key = random.PRNGKey(0)
  >>> k1, k2 = random.split(key)
  >>> random.uniform(k1, (3,)).shape
  (3,)
"""

from __future__ import annotations

from .canonical_dtypes import to_dtype, user_dtype

import warnings
from typing import Sequence

import numpy as np

from . import core, key_reuse, lax, narrow_dtypes, prng, transfers
from . import random_keys as rk
from .config import PRNG_IMPLS, config
from .core import Array, Tracer
from .numpy._staged import staged_as_jit
from .sharding import with_out_sharding
from .random_primitives import (
    random_bits as _random_bits,
    random_clone_p,
    random_fold_in,
    random_seed,
    random_split,
    random_unwrap,
    random_wrap,
    threefry2x32_p,  # noqa: F401  (the engine's own, reachable as random.threefry2x32_p)
)
from .narrow_dtypes import kind as dtype_kind

# JAX 0.10.2's public names (its re-exports); ``shuffle`` (removed from JAX) and the threefry hash
# (``threefry_2x32``, ``threefry2x32_p``) stay reachable as the engine's own.
__all__ = [
    "PRNGKey",
    "ball",
    "bernoulli",
    "beta",
    "binomial",
    "bits",
    "categorical",
    "cauchy",
    "chisquare",
    "choice",
    "clone",
    "dirichlet",
    "double_sided_maxwell",
    "exponential",
    "f",
    "fold_in",
    "gamma",
    "generalized_normal",
    "geometric",
    "gumbel",
    "key",
    "key_data",
    "key_dtype",
    "key_impl",
    "laplace",
    "loggamma",
    "logistic",
    "lognormal",
    "maxwell",
    "multinomial",
    "multivariate_normal",
    "normal",
    "orthogonal",
    "pareto",
    "permutation",
    "poisson",
    "rademacher",
    "randint",
    "random_gamma_p",
    "rayleigh",
    "split",
    "t",
    "triangular",
    "truncated_normal",
    "uniform",
    "wald",
    "weibull_min",
    "wrap_key_data",
]


_U32 = np.dtype(np.uint32)
UINT_DTYPES = {
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------


def _check_key_data(key, impl: str) -> None:
    """JAX's checks of raw key data, in its order and words (then how to make a key)."""
    words = rk.key_dtypes[impl].words
    hint = "\nCreate a key with random.key(seed); to use a batch of keys, vmap over them."
    if not all(hasattr(key, a) for a in ("ndim", "shape", "dtype")):
        raise TypeError(
            "JAX encountered invalid PRNG key data: expected key_data to have ndim, shape, and dtype "
            f"attributes. Got {key}{hint}"
        )
    if key.ndim < 1:
        raise TypeError(
            f"JAX encountered invalid PRNG key data: expected key_data.ndim >= 1; got ndim={key.ndim}{hint}"
        )
    if tuple(key.shape[-1:]) != (words,):
        raise TypeError(
            f"JAX encountered invalid PRNG key data: expected key_data.shape to end with ({words},); got "
            f"shape={tuple(key.shape)} for impl=PRNGImpl(key_shape=({words},), name='{impl}'){hint}"
        )
    if np.dtype(key.dtype) != _U32:
        raise TypeError(
            f"JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; got "
            f"dtype={np.dtype(key.dtype).name}{hint}"
        )


def _check_prng_key(name: str, key, *, allow_batched: bool = False):
    """``(typed key, wrapped)``: typed keys as they are, raw uint32 key data wrapped."""
    if rk.is_typed(key):
        typed, wrapped = key, False
        if key_reuse.active[0]:
            key_reuse.sampler_entry(name, key)
    else:
        impl = _impl_name(None)  # (raw keys are the default implementation's key data)
        _check_key_data(key, impl)
        if not isinstance(key, (Array, Tracer)):
            key = Array(np.asarray(key))
        typed, wrapped = random_wrap(key, impl), True
        _legacy_key_used()
    if not allow_batched and typed.ndim:
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape {typed.shape} != (). "
            f"Use jax.vmap for batching."
        )
    return typed, wrapped


def _legacy_key_used() -> None:
    """What ``jax_legacy_prng_key`` (and ``jax_enable_custom_prng``) say about a raw key."""
    level = config.values["jax_legacy_prng_key"]
    if level != "allow":
        msg = (
            "Legacy uint32 key array passed as key to jax.random function. Please create keys using "
            'jax.random.key(). If use of a raw key array was intended, set jax_legacy_prng_key="allow".'
        )
        if level == "error":
            raise ValueError(msg)
        warnings.warn(msg, stacklevel=4)
    elif config.values["jax_enable_custom_prng"]:
        warnings.warn(
            "Raw arrays as random keys to jax.random functions are deprecated. Assuming valid "
            "threefry2x32 key for now.",
            FutureWarning,
            stacklevel=4,
        )


def _return_prng_keys(wrapped: bool, key):
    if config.values["jax_enable_custom_prng"]:  # (typed keys back, whatever was given)
        return key
    return random_unwrap(key) if wrapped else key


def _impl_name(impl) -> str:
    """JAX's name of a PRNG implementation given by name or key dtype (None: the
    ``jax_default_prng_impl``'s)."""
    if isinstance(impl, rk.KeyTy):
        return impl.impl
    name = config.values["jax_default_prng_impl"] if impl is None else getattr(impl, "name", impl)
    if name in PRNG_IMPLS and name not in rk.key_dtypes:
        raise NotImplementedError(
            f"the PRNG implementation {name!r} is not implemented: the engine has "
            f"{', '.join(map(repr, rk.key_dtypes))}."
        )
    if name not in rk.key_dtypes:
        raise ValueError(
            f"unrecognized PRNG implementation {impl!r}: the engine has {', '.join(map(repr, rk.key_dtypes))}."
        )
    return name


def _seed(ctor_name: str, seed, impl: str = "threefry2x32"):
    if rk.is_typed(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed) if not isinstance(seed, (Array, Tracer)) else seed.ndim:
        raise TypeError(
            f"{ctor_name} accepts a scalar seed, but was given an array of shape {np.shape(seed)} != (). "
            f"Use jax.vmap for batching"
        )
    if not isinstance(seed, Tracer):
        if transfers.active[0]:  # (JAX converts a host seed to the key's integer type, then transfers it)
            transfers.entering(seed, np.int64 if core.x64_enabled[0] else np.int32, False)
        s = np.asarray(core.to_numpy(seed) if isinstance(seed, Array) else seed)
        if not np.issubdtype(s.dtype, np.integer):
            raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
        if core.x64_enabled[0]:  # the seed as an int64 (its high word becomes the key's first word)
            seed = Array(np.asarray(int(s) & 0xFFFFFFFFFFFFFFFF, np.uint64).view(np.int64))
        else:  # the seed's low 32 bits, as an int32 (wrapping like JAX's canonicalization)
            seed = Array(np.asarray(int(s) & 0xFFFFFFFF, np.uint32).view(np.int32))
    return random_seed(seed, impl)


def key_dtype(impl_spec=None):
    """The dtype of keys of the PRNG implementation ``impl_spec`` (a name, or a key dtype).

    >>> key_dtype("rbg")
    key<rbg>
    """
    impl = impl_spec
    if isinstance(impl, rk.KeyTy):
        return impl
    if impl is not None and not isinstance(impl, str):
        raise TypeError(f"unrecognized type {type(impl)} for specifying PRNG implementation.")
    return rk.key_dtypes[_impl_name(impl)]


def key(seed, *, impl=None, dtype=None):
    """A typed PRNG key (dtype ``key<fry>``) from an integer seed; its data is ``PRNGKey(seed)``.
    ``impl`` may name another implementation: ``'rbg'`` or ``'unsafe_rbg'`` (XLA's bit generator).

    Example:

      >>> key(1)
      Array((), dtype=key<fry>) overlaying:
      [0 1]
    """
    if dtype is not None:  # (JAX's newer spelling of ``impl``: a key dtype or its name)
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
        impl = dtype
    return _seed("key", seed, _impl_name(impl))


def PRNGKey(seed, *, impl=None):
    """A legacy PRNG key (``uint32[2]``) from an integer seed: ``[0, seed mod 2**32]``.

    Example:

      >>> PRNGKey(42)
      Array([ 0, 42], dtype=uint32)
    """
    return _return_prng_keys(True, _seed("PRNGKey", seed, _impl_name(impl)))


def key_data(keys):
    """The raw ``uint32[..., 2]`` data of keys (raw ``PRNGKey`` keys are returned as they are).

    Example:

      >>> key_data(key(3))
      Array([0, 3], dtype=uint32)
    """
    keys, _ = _check_prng_key("key_data", keys, allow_batched=True)
    return random_unwrap(keys)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """Typed keys over raw ``uint32[..., 2]`` data (the inverse of :func:`key_data`); the
    implementation is named by ``impl`` or given as a key ``dtype`` (not both).

    Example:

      >>> wrap_key_data(np.array([0, 5], np.uint32))
      Array((), dtype=key<fry>) overlaying:
      [0 5]
    """
    if dtype is not None:
        if impl is not None:
            raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.wrap_key_data")
        impl = dtype
    impl = _impl_name(impl)
    if rk.is_typed(key_bits_array):
        raise TypeError("wrap_key_data: the argument is already a typed key array; pass its key_data.")
    if not isinstance(key_bits_array, (Array, Tracer)):
        key_bits_array = Array(np.asarray(key_bits_array))
    if core.get_aval(key_bits_array).dtype != _U32:
        raise TypeError(
            f"wrap_key_data requires uint32 key data for {impl}, got "
            f"{core.get_aval(key_bits_array).dtype.name}."
        )
    return random_wrap(key_bits_array, impl)


def key_impl(keys) -> str:
    """The name of the PRNG implementation of typed keys (``threefry2x32``, ``rbg``, ``unsafe_rbg``)."""
    if not rk.is_typed(keys):
        raise TypeError(f"key_impl requires a typed key array (jax.random.key), got {type(keys).__name__}.")
    return keys.dtype.impl


def clone(key):
    """The same key, staged as ``random_clone`` (keys are immutable values here).

    >>> bool((key_data(clone(key(0))) == key_data(key(0))).all())
    True
    """
    return random_clone_p.bind(key)


def _shape_of(num) -> tuple[int, ...]:
    return _canon_shape(tuple(num) if isinstance(num, (tuple, list)) else (num,))


def split(key, num: int | Sequence[int] = 2):
    """Splits a key into ``num`` new keys (``num`` may be a shape); key ``i`` is
    ``threefry2x32(key, (0, i))``.

    Example:

      >>> split(PRNGKey(0))
      Array([[1797259609, 2579123966],
             [ 928981903, 3453687069]], dtype=uint32)
    """
    typed, wrapped = _check_prng_key("split", key)
    return _return_prng_keys(wrapped, random_split(typed, _shape_of(num)))


def _split(key, num=2):
    """``split`` of a typed key, inside samplers."""
    return random_split(key, _shape_of(num))


def fold_in(key, data):
    """Folds a 32-bit integer into a key: ``threefry2x32(key, (0, data))``.

    Example:

      >>> fold_in(PRNGKey(0), 1)
      Array([ 928981903, 3453687069], dtype=uint32)
    """
    typed, wrapped = _check_prng_key("fold_in", key)
    if isinstance(data, Tracer):
        if data.aval.shape:
            raise TypeError("fold_in accepts a scalar; use vmap for batching.")
        d = lax.convert_element_type(data, _U32)
    else:
        if np.ndim(data):
            raise TypeError(
                f"fold_in accepts a scalar, but was given an array of shape "
                f"{np.shape(data)} != (). Use jax.vmap for batching."
            )
        if isinstance(data, int) and not 0 <= data < 2**32:
            raise OverflowError(f"Python integer {data} out of bounds for uint32")
        d = Array(np.asarray(core.to_numpy(data) if isinstance(data, Array) else data).astype(_U32))
    return _return_prng_keys(wrapped, random_fold_in(typed, d))


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _canon_shape(shape) -> tuple[int, ...]:
    from .numpy._promote import concrete_shape  # one shape rule (and error) for jnp and random

    return concrete_shape(shape)


def _shape(x):
    return core.get_aval(x).shape


def _check_shape(name: str, shape, *param_shapes) -> None:
    if param_shapes:
        b = lax.broadcast_shapes(shape, *param_shapes)  # (JAX's error where the shapes do not broadcast)
        if b != tuple(shape):
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, and the "
                f"result of broadcasting the shapes must equal the shape argument, but got result {b} "
                f"for shape argument {tuple(shape)}."
            )


def _float_dtype(dtype, name: str):
    dtype = core.default_dtype(float) if dtype is None else user_dtype(to_dtype(dtype))
    if dtype_kind(dtype) != "f":
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def _operand(x, dtype=None):
    """A concrete parameter as an Array (converted in numpy, so nothing is staged); tracers as they are."""
    if isinstance(x, Tracer):
        return x
    if isinstance(x, Array) and dtype is None:
        return x
    v = np.asarray(core.to_numpy(x) if isinstance(x, Array) else x)
    if dtype is not None:
        return Array(v.astype(dtype))
    return Array(core.to_numpy(x), core.is_weak(x))


# ---------------------------------------------------------------------------
# Samplers
# ---------------------------------------------------------------------------


@with_out_sharding
def bits(key, shape: Sequence[int] = (), dtype=None):
    """Uniform random bits (``uint8``, ``uint16``, ``uint32``; ``uint64``, the default, with x64).

    Example:

      >>> bits(PRNGKey(0), (2,)).dtype
      dtype('uint32')
    """
    typed, _ = _check_prng_key("bits", key)
    # (uint32 without x64; one asked for as 64-bit is truncated with JAX's warning)
    dtype = core.canonical_dtype(np.uint64) if dtype is None else user_dtype(to_dtype(dtype))
    if dtype_kind(dtype) != "u":
        raise TypeError(f"bits requires an unsigned integer dtype, got {dtype}")
    return _random_bits(typed, dtype.itemsize * 8, _canon_shape(shape))


@with_out_sharding
def uniform(key, shape: Sequence[int] = (), dtype=None, minval=0.0, maxval=1.0):
    """Uniform floats in ``[minval, maxval)``.

    Example:

      >>> uniform(PRNGKey(0), (2,))
      Array([0.947667 , 0.9785799], dtype=float32)
    """
    typed, _ = _check_prng_key("uniform", key)
    dtype = _float_dtype(dtype, "uniform")
    return _uniform(typed, minval, maxval, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _uniform(key, minval, maxval, shape, dtype):
    from . import numpy as jnp

    _check_shape("uniform", shape, _shape(minval), _shape(maxval))
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval = lax.broadcast_to_rank(minval, len(shape))
    maxval = lax.broadcast_to_rank(maxval, len(shape))
    finfo = narrow_dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    if nbits not in (8, 16, 32, 64):  # (float4_e2m1fn: as JAX, refused)
        raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypesgot {dtype}.")
    rng_bits = 8 if nmant < 8 else nbits
    uint = UINT_DTYPES[nbits]
    b = _random_bits(key, rng_bits, shape)
    if rng_bits != nbits:
        b = lax.convert_element_type(b, uint)
    # The top nmant bits as the mantissa of a float in [1, 2), minus 1.
    float_bits = lax.shift_right_logical(b, jnp.array(rng_bits - nmant, uint))
    float_bits = lax.bitwise_or(float_bits, jnp.asarray(np.array(1.0, dtype).view(uint), dtype=uint))
    floats = lax.bitcast_convert_type(float_bits, dtype) - jnp.array(1.0, dtype)
    return lax.max(minval, lax.reshape(floats * (maxval - minval) + minval, shape))


@with_out_sharding
def normal(key, shape: Sequence[int] = (), dtype=None):
    """Standard normal samples: ``sqrt(2) * erf_inv(u)``, ``u`` uniform in (-1, 1).

    Example:

      >>> normal(PRNGKey(0), (3,)).shape
      (3,)
    """
    typed, _ = _check_prng_key("normal", key)
    dtype = core.default_dtype(float) if dtype is None else user_dtype(to_dtype(dtype))
    if dtype_kind(dtype) not in ("f", "c"):
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, got {dtype}")
    return _normal(typed, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _normal(key, shape, dtype):
    if dtype_kind(dtype) != "c":
        return _normal_real(key, shape=shape, dtype=dtype)
    # complex: independent real and imaginary parts, each of variance 1/2
    key_re, key_im = _split(key)
    real = np.array(0, dtype).real.dtype
    re = _normal_real(key_re, shape=shape, dtype=real).astype(dtype)
    im = _normal_real(key_im, shape=shape, dtype=real).astype(dtype)
    return (re + 1j * im) / Array(np.array(np.sqrt(2), dtype))


@staged_as_jit(static_argnames=("shape", "dtype"))
def _normal_real(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    hi = np.array(1.0, dtype)
    u = uniform(key, shape, dtype, Array(lo), Array(hi))
    return lax.mul(Array(np.array(np.sqrt(2), dtype)), lax.erf_inv(u))


def _convert_and_clip_integer(val, dtype):
    """``val`` converted to the integer ``dtype``, clipped to its range instead of wrapping."""
    from . import numpy as jnp

    src = core.get_aval(val).dtype
    lo = max(np.iinfo(dtype).min, np.iinfo(src).min)
    hi = min(np.iinfo(dtype).max, np.iinfo(src).max)
    weak = core.is_weak(val)  # (bounds as weak as the value, as JAX's lax._const makes them)
    return jnp.clip(val, Array(np.asarray(lo, src), weak), Array(np.asarray(hi, src), weak)).astype(dtype)


@with_out_sharding
def randint(key, shape: Sequence[int], minval, maxval, dtype=None):
    """Uniform integers in ``[minval, maxval)`` (``minval`` where ``maxval <= minval``).

    Example:

      >>> randint(PRNGKey(0), (5,), 0, 10)
      Array([9, 0, 2, 3, 1], dtype=int32)
    """
    from . import numpy as jnp

    typed, _ = _check_prng_key("randint", key)
    dtype = core.default_dtype(int) if dtype is None else user_dtype(to_dtype(dtype))
    if dtype_kind(dtype) not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    shape = _canon_shape(shape)
    info = np.iinfo(dtype)
    sampling = dtype
    if info.bits < 32:
        # Like JAX: sample in int32 (less bias), clipped to the narrow range, then convert.
        sampling = np.dtype(np.int32)
        minval = jnp.asarray(minval).astype("int32").clip(int(info.min), int(info.max))
        maxval = jnp.asarray(maxval).astype("int32").clip(int(info.min), int(info.max) + 1)
    out = _randint(typed, minval, maxval, shape=shape, dtype=sampling)
    return lax.convert_element_type(out, dtype) if out.dtype != dtype else out


@staged_as_jit(static_argnames=("shape", "dtype"))
def _randint(key, minval, maxval, shape, dtype):
    from . import numpy as jnp

    _check_shape("randint", shape, _shape(minval), _shape(maxval))
    minval = jnp.asarray(minval)
    maxval = jnp.asarray(maxval)
    if dtype_kind(minval.dtype) not in "iu":
        minval = minval.astype(core.default_dtype(int))
    if dtype_kind(maxval.dtype) not in "iu":
        maxval = maxval.astype(core.default_dtype(int))
    # Where maxval is above dtype's range (randint(key, shape, 0, 256, 'uint8')) the span is one larger.
    top = _convert_and_clip_integer(Array(np.asarray(np.iinfo(dtype).max, dtype)), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = _convert_and_clip_integer(minval, dtype)
    maxval = _convert_and_clip_integer(maxval, dtype)
    minval = lax.broadcast_to_rank(minval, len(shape))
    maxval = lax.broadcast_to_rank(maxval, len(shape))
    nbits = np.iinfo(dtype).bits
    # Twice the bits the dtype needs, reduced modulo the span (less bias).
    k1, k2 = _split(key)
    higher_bits, lower_bits = _random_bits(k1, nbits, shape), _random_bits(k2, nbits, shape)
    udt = UINT_DTYPES[nbits]
    span = lax.convert_element_type(maxval - minval, udt)
    span = lax.select(maxval <= minval, lax.full_like(span, 1), span)
    out_of_range = maxval_out_of_range & (maxval > minval)  # (jnp's &, as JAX's: ranks broadcast)
    span = lax.select(out_of_range, lax.add(span, Array(np.asarray(1, udt))), span)
    # 2**nbits % span without overflow: (a * b) % n == ((a % n) * (b % n)) % n.
    multiplier = lax.rem(Array(np.asarray(2 ** (nbits // 2), udt)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


@with_out_sharding
def bernoulli(key, p=0.5, shape: Sequence[int] | None = None, mode: str = "low"):
    """Booleans that are True with probability ``p``. ``mode='high'`` (JAX's) compares with two
    uniforms' worth of bits, so that small ``p`` (below about 1e-7 in float32) are drawn right.

    Example:

      >>> bernoulli(PRNGKey(0), 0.3, (4,))
      Array([False, False, False, False], dtype=bool)
    """
    if mode not in ("high", "low"):
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    if shape is not None:
        shape = _canon_shape(shape)
    typed, _ = _check_prng_key("bernoulli", key)
    dtype = core.get_aval(p).dtype
    if dtype_kind(dtype) != "f":
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax.convert_element_type(p, dtype) if isinstance(p, Tracer) else _operand(p, dtype)
    return _bernoulli(typed, p, shape=shape, mode=mode)


@staged_as_jit(static_argnames=("shape", "mode"))
def _bernoulli(key, p, shape, mode="low"):
    if shape is None:
        shape = _shape(p)
    else:
        _check_shape("bernoulli", shape, _shape(p))
    dtype = core.get_aval(p).dtype
    if mode == "high":  # u1 + u2 * 2**-nmant: a uniform with twice the bits, compared as u2' < p - u1
        u1, u2 = uniform(key, (2, *shape), dtype)
        u2 = u2 * np.asarray(2.0 ** -narrow_dtypes.finfo(dtype).nmant, dtype)
        return u2 < p - u1
    return uniform(key, shape, dtype) < p


@with_out_sharding
def exponential(key, shape: Sequence[int] = (), dtype=None):
    """Exponential samples: ``-log1p(-u)``.

    Example:

      >>> exponential(PRNGKey(0), (2,)).dtype
      dtype('float32')
    """
    typed, _ = _check_prng_key("exponential", key)
    dtype = _float_dtype(dtype, "exponential")
    return _exponential(typed, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _exponential(key, shape, dtype):
    u = uniform(key, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))


@with_out_sharding
def gumbel(key, shape: Sequence[int] = (), dtype=None, mode: str | None = None):
    """Gumbel samples: ``-log(-log(u))`` with ``u`` uniform in ``[tiny, 1)`` (``mode='low'``, the
    default unless ``jax_high_dynamic_range_gumbel`` is set); ``mode='high'`` draws ``u`` from two
    uniforms, so the largest sample is about 32 rather than 16 in float32 (JAX's modes).

    Example:

      >>> gumbel(PRNGKey(0), (2,)).shape
      (2,)
    """
    typed, _ = _check_prng_key("gumbel", key)
    dtype = _float_dtype(dtype, "gumbel")
    if mode is None:
        mode = "high" if config.values.get("jax_high_dynamic_range_gumbel") else "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    if mode == "highest" and dtype == np.float32:
        raise NotImplementedError(
            "gumbel: mode='highest' for float32 (its 64-bit fixed-point draw) is not implemented"
        )
    return _gumbel(typed, shape=_canon_shape(shape), dtype=dtype, mode=mode)


@staged_as_jit(static_argnames=("shape", "dtype", "mode"))
def _gumbel(key, shape, dtype, mode):
    from . import numpy as jnp

    if mode in ("high", "highest"):  # (highest is high but for float32)
        high, low = _uniform(key, minval=0.0, maxval=1.0, shape=(2, *shape), dtype=dtype)
        finfo = narrow_dtypes.finfo(dtype)
        # (the small one only below 0.5, where adding it cannot round the sum up to 1)
        x = jnp.where(high >= 0.5, high, high + 2 ** -int(finfo.nmant) * low + finfo.tiny)
        return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
    # (JAX calls its jitted _uniform by keyword: the arguments stage sorted, maxval first)
    u = _uniform(
        key, minval=Array(np.asarray(np.finfo(dtype).tiny, dtype)), maxval=1.0, shape=shape, dtype=dtype
    )
    return lax.neg(lax.log(lax.neg(lax.log(u))))


@with_out_sharding
def truncated_normal(key, lower, upper, shape: Sequence[int] | None = None, dtype=None):
    """Standard normal samples truncated to ``(lower, upper)`` (inverse CDF).

    Example:

      >>> x = truncated_normal(PRNGKey(0), -1.0, 1.0, (100,))
      >>> bool((np.abs(np.asarray(x)) < 1).all())
      True
    """
    typed, _ = _check_prng_key("truncated_normal", key)
    dtype = _float_dtype(dtype, "truncated_normal")
    if shape is None:
        shape = np.broadcast_shapes(_shape(lower), _shape(upper))
    return _truncated_normal(typed, lower, upper, shape=_canon_shape(shape), dtype=dtype)


@staged_as_jit(static_argnames=("shape", "dtype"))
def _truncated_normal(key, lower, upper, shape, dtype):
    _check_shape("truncated_normal", shape, _shape(lower), _shape(upper))
    sqrt2 = Array(np.array(np.sqrt(2), dtype))
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = lax.erf(lax.div(lower, sqrt2))
    b = lax.erf(lax.div(upper, sqrt2))
    u = uniform(key, shape, dtype, minval=a, maxval=b)
    from . import numpy as jnp

    out = lax.mul(sqrt2, lax.erf_inv(u))
    # (the bounds' nextafter carries no gradient, as in JAX: only the samples move with them)
    lo = lax.nextafter(lax.stop_gradient(lower), Array(np.array(np.inf, dtype)))
    hi = lax.nextafter(lax.stop_gradient(upper), Array(np.array(-np.inf, dtype)))
    return jnp.clip(out, lo, hi)


def threefry_2x32(keypair, count):
    """Threefry on a counter array, as JAX's ``prng.threefry_2x32`` (concrete inputs)."""
    return Array(prng.threefry_2x32(np.asarray(keypair), np.asarray(count)))


from .random_permutations import categorical, choice, permutation, shuffle  # noqa: E402,F401
from .random_discrete import binomial, multinomial, poisson  # noqa: E402
from .random_gamma import (  # noqa: E402
    ball,
    beta,
    chisquare,
    dirichlet,
    f,
    gamma,
    generalized_normal,
    loggamma,
    random_gamma_p,
    t,
)
from .random_samplers import (  # noqa: E402
    cauchy,
    double_sided_maxwell,
    geometric,
    laplace,
    logistic,
    lognormal,
    maxwell,
    multivariate_normal,
    orthogonal,
    pareto,
    rademacher,
    rayleigh,
    triangular,
    wald,
    weibull_min,
)
