"""Typed PRNG keys (``jax.random.key``): arrays of the extended dtype ``key<fry>``.

``key<fry>`` is an extended dtype (``core.ExtendedDType``): abstract values and jaxprs carry it
(``key<fry>[]``, as JAX prints them), and the key primitives of :mod:`engine.random_primitives`
(``random_seed``, ``random_wrap``, ``random_bits``, ...) consume and produce it. A concrete key
array stores each key's two uint32 words as one element of a numpy structured dtype, so numpy's
structural operations (slicing, reshaping, stacking, selecting) move whole keys; its ``uint32[...,
2]`` data is a view of that storage.

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
from .core import Array, ShapedArray, Tracer


class prng_key:
    """The abstract dtype of typed PRNG keys (``jax.dtypes.prng_key``), for ``issubdtype``."""

    __module__ = "jax.dtypes"  # (printed as JAX prints it)


class extended:
    """The abstract dtype of every non-numpy dtype (``jax.dtypes.extended``)."""

    __module__ = "jax.dtypes"


@core.jax_class_path("jax._src.random.prng.KeyTy")
class KeyTy(core.ExtendedDType):
    """The dtype of a typed key array of one PRNG implementation: ``key<fry>`` (threefry2x32),
    ``key<rbg>`` or ``key<urbg>`` (unsafe_rbg)."""

    kind = "V"  # (not a number: numpy code that checks ``dtype.kind`` treats keys as opaque)

    def __init__(self, impl: str, tag: str, words: int):
        self.impl, self.tag, self.words = impl, tag, words
        self.name = f"key<{tag}>"
        self.itemsize = 4 * words
        # One key per element: its uint32 words, in a field named by the tag.
        self.numpy_dtype = np.dtype([(tag, np.uint32, (words,))])

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, KeyTy) and other.impl == self.impl

    def __hash__(self):
        return hash(self.name)

    @staticmethod
    def to_user(value):
        return PRNGKeyArray(value)


key_dtype = KeyTy("threefry2x32", "fry", 2)
# Every implementation's key dtype, by JAX's implementation name.
key_dtypes = {k.impl: k for k in (key_dtype, KeyTy("rbg", "rbg", 4), KeyTy("unsafe_rbg", "urbg", 4))}
for _k in key_dtypes.values():
    core.extended_dtypes[_k.numpy_dtype] = _k


def is_key_aval(aval) -> bool:
    return isinstance(aval.dtype, KeyTy)


def storage_from_data(data: np.ndarray, dtype: KeyTy = key_dtype) -> np.ndarray:
    """Key storage (structured, shape ``data.shape[:-1]``) from ``uint32[..., words]`` data."""
    data = np.asarray(data, dtype=np.uint32)
    if not data.flags.c_contiguous:
        data = data.copy()
    return data.view(dtype.numpy_dtype).reshape(data.shape[:-1])


def data_dtype(storage: np.ndarray) -> KeyTy:
    """The key dtype of key storage."""
    return core.extended_dtypes[storage.dtype]  # type: ignore[return-value]


def data_from_storage(storage: np.ndarray) -> np.ndarray:
    """The ``uint32[..., words]`` data of key storage."""
    return storage[storage.dtype.names[0]]


@core.jax_class_path("jax._src.random.prng.PRNGKeyArray")
class PRNGKeyArray(Array):
    """A concrete array of typed PRNG keys; ``.shape`` is the key shape, its data ``uint32[*shape, 2]``."""

    __slots__ = ()

    def __init__(self, storage):
        if isinstance(storage, Array):
            storage = storage._value
        storage = np.asarray(storage)
        if not isinstance(core.extended_dtypes.get(storage.dtype), KeyTy):
            raise TypeError(f"typed PRNG key storage must have a key dtype's storage, got {storage.dtype}")
        storage.flags.writeable = False
        self._value = storage
        self.weak_type = False
        self._aval = None
        if core.default_device_index[0] is not None:  # (made under jax.default_device: lives there)
            self._dev = core.default_device_index[0]

    @property
    def aval(self) -> ShapedArray:
        aval = self._aval
        if aval is None:
            aval = self._aval = ShapedArray(self._value.shape, self.dtype)
        return aval

    dtype = property(lambda self: core.extended_dtypes[self._value.dtype])
    nbytes = property(lambda self: self._value.nbytes)

    @property
    def data(self) -> np.ndarray:
        return data_from_storage(self._value)

    def __getitem__(self, idx):
        from .numpy import _indexing

        basic = (int, slice, type(None), type(Ellipsis))
        parts = idx if isinstance(idx, tuple) else (idx,)
        if core._state.dynamic is None and all(type(i) in basic for i in parts):
            try:
                return PRNGKeyArray(self._value[idx])
            except IndexError:  # (out of bounds: JAX clamps; too many indices: JAX's message)
                pass
        return _indexing.rewriting_take(self, idx)

    def copy(self) -> PRNGKeyArray:
        return PRNGKeyArray(self._value.copy())

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (PRNGKeyArray(v) for v in self._value)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{self.data}"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if spec:  # (JAX's key arrays format as Python objects do: str(), and no format spec)
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return str(self)

    def __bool__(self):
        raise TypeError("key array cannot be converted to boolean.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
            "jax.random.key_data(arr) if you wish to extract the underlying integer array."
        )

    def __eq__(self, other):
        if not isinstance(other, (PRNGKeyArray, Tracer)) or not isinstance(other.dtype, KeyTy):
            return NotImplemented
        from . import numpy as jnp
        from . import random

        return jnp.all(jnp.equal(random.key_data(self), random.key_data(other)), axis=-1)

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else ~eq

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self):
        return (_key_array_from_pickle, (np.array(self._value),))

    # Python's conversions refuse keys as they refuse any object without them (JAX's key arrays
    # define none), and ``tolist``/``tobytes`` are not there, as in JAX.
    def __int__(self):
        raise TypeError(
            f"int() argument must be a string, a bytes-like object or a real number, not '{type(self).__name__}'"
        )

    def __float__(self):
        raise TypeError(f"float() argument must be a string or a real number, not '{type(self).__name__}'")

    def __complex__(self):
        raise TypeError(f"complex() first argument must be a string or a number, not '{type(self).__name__}'")

    def __index__(self):
        raise TypeError(f"'{type(self).__name__}' object cannot be interpreted as an integer")

    @property
    def tolist(self):
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'tolist'")

    @property
    def tobytes(self):
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'tobytes'")


def _abstract(name: str):
    def method(self, *args, **kwargs):
        raise NotImplementedError(f"Cannot call abstract method {name}")

    method.__name__ = name
    return method


# The array methods JAX's key arrays leave abstract (numbers' methods: a key is no number).
for _name in (
    "__array_namespace__ all any argmax argmin argpartition argsort astype byteswap choose clip "
    "compress conj conjugate cumprod cumsum diagonal dot item max mean min nonzero prod ptp repeat "
    "round searchsorted sort std sum to_device trace var view"
).split():
    setattr(PRNGKeyArray, _name, _abstract(_name))
for _name in ("flat", "imag", "real", "mT"):
    setattr(PRNGKeyArray, _name, property(_abstract(_name)))


@core.jax_class_path("jax._src.random.prng.PRNGKeyArray")
class CommittedKeyArray(PRNGKeyArray):
    """Typed keys ``jax.device_put`` put on a device (JAX's committed key array). The keys stay host
    storage, as every key array's do; the device is what ``devices()``, ``sharding`` and
    ``committed`` report and where operations on them put their results (``on_one_device_mesh``:
    the eager and jit dispatch that places an ordinary committed array's results)."""

    __slots__ = ("_device",)
    on_one_device_mesh = True  # type: ignore[assignment]

    def __init__(self, storage, device: int):
        super().__init__(storage)
        self._device = device

    @property
    def committed(self) -> bool:
        return True

    def devices(self):
        from .parallel.topology import get_device

        return {get_device(self._device)}

    @property
    def sharding(self):
        from .parallel.topology import get_device
        from .sharding import SingleDeviceSharding

        return SingleDeviceSharding(get_device(self._device))

    @property
    def device(self):
        from .parallel.topology import get_device

        return get_device(self._device)

    def __getitem__(self, idx):
        out = super().__getitem__(idx)
        return CommittedKeyArray(out._value, self._device) if type(out) is PRNGKeyArray else out

    def __iter__(self):
        return (CommittedKeyArray(k._value, self._device) for k in super().__iter__())


@core.jax_class_path("jax._src.random.prng.PRNGKeyArray")
class MeshKeyArray(PRNGKeyArray):
    """Typed keys ``jax.device_put`` laid out by a ``NamedSharding`` (JAX's committed key array
    over a mesh). The keys stay host storage, as a committed key array's do; the layout is what
    ``sharding``, ``devices()``, ``device``, ``committed`` and ``addressable_shards`` report, as JAX
    reports them: its key array is a view of uint32 data whose sharding has one more dimension,
    the key's words, never split. Operations on these keys compute as on uncommitted keys (the
    engine's per-device dispatch runs on numbers, not keys)."""

    __slots__ = ("_sharding",)

    def __init__(self, storage, sharding):
        super().__init__(storage)
        sharding.check_shape(self.shape)
        self._sharding = sharding

    @property
    def committed(self) -> bool:
        return True

    def devices(self):
        return set(self._sharding.device_set)

    @property
    def sharding(self):
        """The layout of the keys: the data's, less its words' dimension (JAX's logical sharding:
        over several devices the spec names each key dimension, ``None`` where not split)."""
        if self._sharding.num_devices == 1:
            return self._sharding
        spec = tuple(self._sharding.spec)
        return self._sharding.with_spec(spec + (None,) * (self.ndim - len(spec)))

    @property
    def named_sharding(self):
        """(what ``jax.typeof`` names in the keys' type, as a sharded array's: ``key<fry>[8@y]``)"""
        return self._sharding if getattr(self._sharding, "mesh", None) is not None else None

    @property
    def device(self):
        """JAX's ``Array.device`` of keys over several devices: the data's sharding (the spec as
        given, and the words' dimension)."""
        if self._sharding.num_devices == 1:
            return next(iter(self._sharding.device_set))
        return self._sharding.with_spec(tuple(self._sharding.spec) + (None,))

    @property
    def is_fully_replicated(self) -> bool:
        return self._sharding.is_fully_replicated

    @property
    def addressable_shards(self):
        """A shard per device of the mesh: its index into the data (the words' dimension whole),
        its keys committed to that device."""
        from .parallel.sharded import Shard, replica_ids

        imap = self._sharding.devices_indices_map(self.shape)
        devices = list(self._sharding.mesh.devices.flat)
        indices = [imap[d] for d in devices]
        return [
            Shard(d, index + (slice(None),), None, CommittedKeyArray(self._value[index], d.id), replica)
            for d, index, replica in zip(devices, indices, replica_ids(indices))
        ]


def placed(keys: PRNGKeyArray, device: int | None) -> PRNGKeyArray:
    """``keys`` committed to ``device`` (None: uncommitted, on the default device)."""
    return PRNGKeyArray(keys._value) if device is None else CommittedKeyArray(keys._value, device)


def is_typed(k) -> bool:
    return isinstance(getattr(k, "dtype", None), KeyTy)


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


def _key_array_from_pickle(value: np.ndarray) -> PRNGKeyArray:
    return PRNGKeyArray(value)
