"""Typed PRNG keys (``jax.random.key``): arrays of dtype ``key<fry>`` overlaying ``uint32[..., 2]``.

A typed key array wraps the raw key data (an ``Array`` or a tracer) and shows its key shape (the
data's shape without the trailing 2). It is a pytree whose one leaf is that data, so ``jit``,
``vmap`` and ``grad`` carry the data through their traces and hand the function typed keys again:
the only difference from JAX is that jaxprs show the data (``u32[2]``) where JAX shows
``key<fry>[]``. Every ``jax.random`` function takes either style of key (``_unwrap``); ``split``
and ``fold_in`` return the style they were given.

  >>> k = jax.random.key(0)
  >>> k
  Array((), dtype=key<fry>) overlaying:
  [0 0]
  >>> jax.random.key_data(jax.random.split(k)).shape
  (2, 2)
"""

from __future__ import annotations

import numpy as np

from . import core
from .core import Array, Tracer
from .tree_util import register_pytree_node


class prng_key:
    """The abstract dtype of typed PRNG keys (``jax.dtypes.prng_key``), for ``issubdtype``."""

    __module__ = "jax.dtypes"  # (printed as JAX prints it)


class extended:
    """The abstract dtype of every non-numpy dtype (``jax.dtypes.extended``)."""

    __module__ = "jax.dtypes"


class KeyTy:
    """The dtype of a typed key array: ``key<fry>`` for the threefry2x32 implementation."""

    name = "key<fry>"
    impl = "threefry2x32"
    kind = "V"  # (not a number: numpy code that checks ``dtype.kind`` treats keys as opaque)

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, KeyTy)

    def __hash__(self):
        return hash(self.name)


key_dtype = KeyTy()


def _data_shape(x) -> tuple:
    return tuple(core.get_aval(x).shape)


class PRNGKeyArray:
    """An array of typed PRNG keys; ``.shape`` is the key shape, the data is ``uint32[*shape, 2]``."""

    __slots__ = ("_data",)
    dtype = key_dtype

    def __init__(self, data):
        shape = _data_shape(data)
        if not shape or shape[-1] != 2 or core.get_aval(data).dtype != np.uint32:
            raise TypeError(
                f"typed PRNG keys overlay uint32 data whose last axis has size 2 (threefry2x32), got "
                f"{core.get_aval(data).str_short()}."
            )
        self._data = data

    @property
    def shape(self) -> tuple:
        return _data_shape(self._data)[:-1]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __getitem__(self, idx):
        idx = idx if isinstance(idx, tuple) else (idx,)
        if any(i is Ellipsis for i in idx):  # the data's key axis stays whole
            idx = (*idx, slice(None))
        return PRNGKeyArray(self._data[idx])

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return PRNGKeyArray(self._data.reshape(*shape, 2))

    @property
    def T(self):
        from . import lax

        nd = self.ndim
        return PRNGKeyArray(lax.transpose(self._data, (*reversed(range(nd)), nd)))

    def block_until_ready(self):
        return self

    def __repr__(self):
        if isinstance(self._data, Tracer):
            return f"key<fry>{list(self.shape)} overlaying {self._data!r}"
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{np.asarray(self._data)}"

    __str__ = __repr__

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "a typed PRNG key array has no numpy value: use jax.random.key_data(keys) for its uint32 data."
        )

    def __eq__(self, other):
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        from . import numpy as jnp

        return jnp.all(jnp.equal(self._data, other._data), axis=-1)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else ~eq

    __hash__ = None  # type: ignore[assignment]


def _unflatten(_, children):
    # Unchecked: transformations also unflatten trees of axis specs or avals into this node.
    keys = object.__new__(PRNGKeyArray)
    keys._data = children[0]
    return keys


register_pytree_node(PRNGKeyArray, lambda k: ((k._data,), None), _unflatten)


def is_typed(k) -> bool:
    return isinstance(k, PRNGKeyArray)


def unwrap(k):
    """The raw ``uint32[..., 2]`` data of either style of key."""
    return k._data if isinstance(k, PRNGKeyArray) else k


def like(template, raw):
    """``raw`` key data in the style of ``template`` (typed if it was typed)."""
    return PRNGKeyArray(raw) if isinstance(template, PRNGKeyArray) else raw


def wrap(raw):
    if isinstance(raw, PRNGKeyArray):
        raise TypeError("wrap_key_data: the argument is already a typed key array; pass its key_data.")
    if not isinstance(raw, (Array, Tracer)):
        raw = Array(np.asarray(raw))
    if core.get_aval(raw).dtype != np.uint32:
        raise TypeError(
            f"wrap_key_data requires uint32 key data for threefry2x32, got {core.get_aval(raw).dtype.name}."
        )
    return PRNGKeyArray(raw)


def key_issubdtype(a, b) -> bool | None:
    """``issubdtype(a, b)`` where either side is a key dtype (``key<fry>`` is a ``prng_key`` and an
    ``extended``; no numpy dtype is either); None when neither is, for numpy to answer."""
    if isinstance(a, KeyTy) or a is prng_key or a is extended:
        if isinstance(b, KeyTy):
            return isinstance(a, KeyTy)
        return b is extended or (b is prng_key and a is not extended)
    if isinstance(b, KeyTy) or b is prng_key or b is extended:
        return False
    return None
