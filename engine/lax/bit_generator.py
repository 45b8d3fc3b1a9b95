"""``lax.rng_bit_generator``: XLA's stateless bit generator (``RngBitGenerator``) as a primitive.

On CPU, JAX's default algorithm is Philox-4x32-10 (``engine.prng_rbg`` computes it); the key is
``uint32[4]`` and the primitive returns the advanced key and the bits. The ``rbg`` and
``unsafe_rbg`` PRNG implementations draw their bits with it.

  >>> new_key, bits = rng_bit_generator(jnp.array([1, 2, 3, 4], jnp.uint32), (2,))
  >>> new_key
  Array([1, 2, 4, 4], dtype=uint32)
"""

from __future__ import annotations

import enum

import numpy as np

from .. import batching, core, prng_rbg
from ..core import Primitive, ShapedArray

_U32 = np.dtype(np.uint32)
_BIT_DTYPES = tuple(np.dtype(f"uint{w}") for w in (8, 16, 32, 64))


class RandomAlgorithm(enum.IntEnum):
    """Which algorithm ``rng_bit_generator`` uses (``RNG_DEFAULT``: Philox on CPU)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self):
        return self.name


rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)


@rng_bit_generator_p.def_impl
def _impl(key, *, shape, dtype, algorithm, out_sharding):
    if algorithm == RandomAlgorithm.RNG_THREE_FRY:
        raise NotImplementedError(
            "rng_bit_generator: RNG_THREE_FRY is not implemented; use RNG_DEFAULT or RNG_PHILOX."
        )
    new_key, bits = prng_rbg.rng_bit_generator(np.asarray(key), shape, dtype)
    return [new_key, bits]


@rng_bit_generator_p.def_abstract_eval
def _abstract_eval(key, *, shape, dtype, algorithm, out_sharding):
    # (any key traces, as in JAX; running one the algorithm cannot take fails, as XLA's lowering does)
    return [ShapedArray(key.shape, key.dtype, key.weak_type), ShapedArray(shape, dtype)]


def _batch(axis_size, vals, dims, **params):
    # As JAX: a batch of keys draws the whole batch's bits from its first key.
    (keys,), (d,) = vals, dims
    keys = batching.moveaxis(keys, d, 0)
    shape = (axis_size, *params.pop("shape"))
    new_key, bits = rng_bit_generator_p.bind(keys[0], shape=shape, **params)
    return [keys.at[0].set(new_key), bits], [0, 0]


batching.batch_rules[rng_bit_generator_p] = _batch


def rng_bit_generator(
    key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *, out_sharding=None
):
    """Stateless random bits (``uint8/16/32/64``) of ``shape`` from a ``uint32[4]`` key: ``(new_key,
    bits)``. JAX discourages its direct use; ``jax.random`` is the stable API.

      >>> rng_bit_generator(jnp.zeros(4, jnp.uint32), (2,))[1]
      Array([1713891541, 3781805453], dtype=uint32)
    """
    shape = tuple(int(d) for d in shape)
    dtype = np.dtype(dtype)
    if dtype not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    dtype = core.canonical_dtype(dtype)  # (uint64 draws 32-bit words while x64 is off)
    if not isinstance(key, (core.Array, core.Tracer)):
        key = core.Array(np.asarray(key))
    return tuple(
        rng_bit_generator_p.bind(
            key, shape=shape, dtype=dtype, algorithm=algorithm, out_sharding=out_sharding
        )
    )


# ---------------------------------------------------------------------------------------------
# lax.rng_uniform: XLA's stateful RngUniform. Its numbers depend on the backend's hidden state (JAX
# gives new ones at each call), so none are reproduced: numpy's global generator draws them.

rng_uniform_p = Primitive("rng_uniform")


def _check_bounds(a, b):
    if a.dtype != b.dtype:
        raise ValueError(f"Arguments to rng_uniform must have identical dtypes, got {a.dtype} and {b.dtype}.")
    if a.shape != () or b.shape != ():
        raise ValueError(f"Arguments to rng_uniform must be scalars; got shapes {a.shape} and {b.shape}.")


@rng_uniform_p.def_impl
def _uniform_impl(a, b, *, shape):
    a, b = np.asarray(a), np.asarray(b)
    _check_bounds(a, b)
    if a.dtype.kind in "iu":
        return np.random.randint(int(a), max(int(b), int(a) + 1), size=shape).astype(a.dtype)
    return np.asarray(np.random.uniform(a, b, size=shape)).astype(a.dtype)


@rng_uniform_p.def_abstract_eval
def _uniform_abstract_eval(a, b, *, shape):
    _check_bounds(a, b)
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def rng_uniform(a, b, shape):
    """Stateful uniform numbers in ``[a, b)`` (XLA's ``RngUniform``; ``a``, ``b`` scalars of one dtype).
    JAX discourages it (``jax.random`` is the stable API) and so do we: its draws are not reproducible.

      >>> rng_uniform(np.float32(0), np.float32(1), (3,)).shape
      (3,)
    """
    from . import api

    a, b = api._binary_args(a, b, "rng_uniform")
    return rng_uniform_p.bind(a, b, shape=tuple(int(d) for d in shape))
