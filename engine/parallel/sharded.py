"""Arrays whose data lives on devices: ``pmap`` results and ``device_put*`` values.

A ``ShardedArray`` is an ``Array`` whose numpy value is fetched from the devices' memory the first
time it is read (printing reads it, and it prints like any ``Array``, as in JAX). Passed back to a
``pmap`` with the same layout, its shards are used where they are, with no transfer.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..core import Array, ShapedArray
from ..tree_util import tree_flatten, tree_map, tree_unflatten
from . import topology as _devices
from .runtime import Buffer, get_runtime


@core.jax_class_path("jax._src.array.Shard")
class Shard:
    """One device's piece of an array (JAX's ``addressable_shards`` items): the device, the index of
    the global array it holds, which replica of that block it is (0 unless the block is held by
    several devices), and its data."""

    __slots__ = ("device", "index", "replica_id", "_buffer", "_owner")

    def __init__(self, device, index, buffer, owner, replica_id=0):
        self.device, self.index, self.replica_id = device, index, replica_id
        self._buffer, self._owner = buffer, owner

    @classmethod
    def whole(cls, array: Array) -> Shard:
        """The one shard of an array held whole by the default device."""
        return cls(_devices.devices()[0], (slice(None),) * array.ndim, None, array)

    @property
    def data(self) -> Array:
        owner = self._owner
        if self._buffer is None or (isinstance(owner, ShardedArray) and owner._axis is None):
            return owner  # (the whole array, on its one device)
        # a pmap shard's buffer lacks the mapped axis; JAX's data keeps it (length 1)
        block = [len(range(*s.indices(n))) for s, n in zip(self.index, owner.shape)]
        data = Array(self._buffer.read().reshape(block), owner.weak_type)
        # (on the shard's device, committed as the array it is a piece of)
        return device_put(data, self.device if owner.committed else None)

    def __repr__(self):
        return f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, data={self.data})"


def replica_ids(indices) -> list[int]:
    """Which replica of its block each device's index is, counting in device order (as JAX does)."""
    seen: dict = {}
    out = []
    for index in indices:
        key = tuple((s.start, s.stop, s.step) for s in index)
        out.append(seen.get(key, 0))
        seen[key] = out[-1] + 1
    return out


@core.jax_class_path("jaxlib._jax.ArrayImpl")  # (type() of a sharded array is JAX's one class)
class ShardedArray(Array):
    """An array split along ``axis`` over devices (one shard per device), or, with ``axis=None``,
    held whole by one device."""

    __slots__ = ("_buffers", "_axis", "_aval", "_cache", "_committed", "on_one_device_mesh")

    def __init__(self, buffers: list[Buffer], axis, aval: ShapedArray, committed: bool = False):
        self._buffers = list(buffers)
        self._axis = axis
        self._aval = aval
        self._cache = None
        self.weak_type = aval.weak_type
        # put on a device by the user's choice (JAX's committed): operations on it run there, and
        # with arrays committed to other devices are refused (engine.parallel.named._run_in_memory)
        self._committed = committed
        self.on_one_device_mesh = committed and axis is None

    @property
    def committed(self) -> bool:
        """JAX's ``Array.committed``: put on a device by ``device_put`` with a device or sharding,
        or computed from such arrays (pmap's results too); a plain computed array is not."""
        return self._committed or self._axis is not None

    def copy(self):
        out = Array(self._value.copy(), self.weak_type)
        return device_put(out, self._buffers[0].device) if self.on_one_device_mesh else out

    @property
    def _value(self) -> np.ndarray:  # type: ignore[override]  # Array's slot, here fetched from the devices on first read
        value = self._cache
        if value is None:
            if self._axis is None:
                value = (
                    self._buffers[0].read_only_view() if self._buffers[0].nbytes else self._buffers[0].read()
                )
            else:
                value = np.empty(self._aval.shape, self._aval.dtype)
                moved = np.moveaxis(value, self._axis, 0)
                for i, b in enumerate(self._buffers):
                    moved[i] = b.view()
            value.flags.writeable = False
            self._cache = value
        return value

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    shape = property(lambda self: self._aval.shape)
    dtype = property(lambda self: self._aval.dtype)
    ndim = property(lambda self: len(self._aval.shape))
    size = property(lambda self: self._aval.size)
    nbytes = property(lambda self: self._aval.size * self._aval.dtype.itemsize)

    def __jax_array__(self):
        return Array(self._value, self.weak_type)

    def devices(self):
        return {_devices.get_device(b.device) for b in self._buffers}

    @property
    def device_ids(self) -> list[int]:
        return [b.device for b in self._buffers]

    @property
    def addressable_shards(self):
        if self._axis is None:
            whole = (slice(None),) * self.ndim
            return [Shard(_devices.get_device(self._buffers[0].device), whole, self._buffers[0], self)]
        out = []
        for i, b in enumerate(self._buffers):
            index = [slice(None)] * self.ndim
            index[self._axis] = slice(i, i + 1)
            out.append(Shard(_devices.get_device(b.device), tuple(index), b, self))
        return out

    @property
    def is_fully_replicated(self):
        return self._axis is None

    @property
    def is_fully_addressable(self):
        return True

    def block_until_ready(self):
        return self

    def __reduce__(self):
        return (Array, (np.array(self._value), self.weak_type))


def from_buffers(buffers, axis, aval) -> ShardedArray:
    return ShardedArray(buffers, axis, aval)


def _device_id(device) -> int:
    if device is None:  # the default device (jax.default_device's, else the first)
        default = core.default_device_index[0]
        return 0 if default is None else default
    if isinstance(device, _devices.Device):
        return device.id
    return int(device)


def _canonical(x) -> np.ndarray:
    return core.to_numpy(x) if not isinstance(x, np.ndarray) else core._canonical_np(x)


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """Put ``x`` (a pytree) on ``device`` (default: device 0), or lay it out by a sharding (a
    ``NamedSharding``, or a ``PartitionSpec`` over the current mesh); the result stays there until read.
    ``src`` (JAX's: where ``x`` is now, for transfers between hosts) is accepted and unused: every
    array here knows its own devices, and the result does not depend on it.

    >>> y = device_put(jnp.ones(3), jax.devices()[1])
    >>> y.devices()
    {CpuDevice(id=1)}
    """
    from .. import transfers
    from ..experimental.layout import Format, put_with_format

    if transfers.active[0]:
        for v in tree_flatten(x)[0]:
            if isinstance(v, (np.ndarray, np.generic, bool, int, float, complex)):
                transfers.host_to_device(v, explicit=True)

    leaves, tree = tree_flatten(x)
    if isinstance(device, core.MemorySpace):  # (jax.memory.Space: the default device's memory of it)
        from ..device_put_primitive import _placed, stage_device_put

        if any(isinstance(v, core.Tracer) for v in leaves):
            return tree_unflatten(tree, stage_device_put(leaves, may_alias, donate, device=device))
        return tree_unflatten(
            tree, [_placed(v if isinstance(v, core.Array) else _as_array(v), device) for v in leaves]
        )
    if device is None and any(isinstance(v, core.Tracer) for v in leaves):
        # traced values: staged as JAX stages them (one device_put equation for the pytree)
        from ..device_put_primitive import stage_device_put

        return tree_unflatten(tree, stage_device_put(leaves, may_alias, donate))
    if isinstance(device, Format):  # a sharding and a layout
        return tree_map(lambda v: put_with_format(v, device), x)
    if device is not None and not isinstance(device, (_devices.Device, int)):
        from ..partition_spec import PartitionSpec
        from ..sharding import Sharding, as_sharding
        from .named import put_sharded

        if not isinstance(device, (Sharding, PartitionSpec, list, dict, tuple)):
            raise ValueError(
                "`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, `jax.Device`, `Format`, "
                f"`jax.memory.Space` or a pytree of these values. Received invalid value: {device}"
            )

        if isinstance(device, (list, dict)) or type(device) is tuple:  # a pytree of shardings
            return tree_map(lambda s, v: put_sharded(v, as_sharding(s)), device, x)
        sharding = as_sharding(device)
        return tree_map(lambda v: put_sharded(v, sharding), x)
    dev = _device_id(device)
    if not 0 <= dev < _devices.device_count():
        raise ValueError(f"device_put: no device {dev}; there are {_devices.device_count()}")
    if any(isinstance(v, core.Tracer) for v in leaves):  # (staged onto that device, as JAX stages it)
        from ..sharding import SingleDeviceSharding

        return device_put(x, SingleDeviceSharding(_devices.get_device(dev)))
    rt = get_runtime()

    committed = device is not None

    def put(v):
        if isinstance(v, ShardedArray) and (
            (v._axis is None and v._buffers[0].device == dev and v._committed >= committed)
            or (not committed and v.committed)  # (no device named: a committed array stays where it is)
        ):
            return v
        aval = core.get_aval(v)
        if isinstance(aval.dtype, core.ExtendedDType):  # typed PRNG keys: host storage, placed by name
            from ..random_keys import PRNGKeyArray, placed

            # (no device named: JAX 0.10.2 leaves even committed keys uncommitted on the default device)
            return placed(v, dev if committed else None) if isinstance(v, PRNGKeyArray) else v
        return ShardedArray([rt.put(dev, _canonical(v))], None, aval, committed)

    return tree_map(put, x)


def _as_array(v) -> core.Array:
    aval = core.get_aval(v)
    return core.Array(core._canonical_np(np.asarray(v)), aval.weak_type)


def _device_list(devices, n=None):
    if devices is None:
        raise TypeError("a list of devices is required")
    ids = [_device_id(d) for d in devices]
    if not ids:
        raise ValueError("the list of devices is empty")
    if n is not None and len(ids) != n:
        raise ValueError(f"{n} shards but {len(ids)} devices")
    return ids


def device_put_replicated(x, devices):
    """Copy ``x`` (a pytree) to each of ``devices``: a new leading axis of that length, whose row
    ``i`` lives on ``devices[i]``.

    >>> device_put_replicated(jnp.ones(2), jax.devices()[:3]).shape
    (3, 2)
    """
    ids = _device_list(devices)
    rt = get_runtime()

    def put(v):
        value = _canonical(v)
        aval = core.get_aval(v)
        return ShardedArray(
            rt.put_each(ids, value[None], [0] * len(ids)),
            0,
            ShapedArray((len(ids), *aval.shape), aval.dtype, aval.weak_type),
        )

    return tree_map(put, x)


def device_put_sharded(shards, devices):
    """Put ``shards[i]`` (pytrees of one structure) on ``devices[i]``; the leaves are stacked
    along a new leading axis.

    >>> device_put_sharded([jnp.zeros(2), jnp.ones(2)], jax.devices()[:2])
    Array([[0., 0.],
           [1., 1.]], dtype=float32)
    """
    ids = _device_list(devices, len(shards))
    rt = get_runtime()
    flats = [tree_flatten(s) for s in shards]
    tree = flats[0][1]
    for _, t in flats[1:]:
        if t != tree:
            raise ValueError(f"device_put_sharded: shards have different structures: {tree} vs {t}")
    outs = []
    for k in range(len(flats[0][0])):
        leaves = [f[0][k] for f in flats]
        avals = [core.get_aval(v) for v in leaves]
        if any(a.shape != avals[0].shape or a.dtype != avals[0].dtype for a in avals):
            raise ValueError(
                f"device_put_sharded: shards of leaf {k} differ in shape or dtype: "
                f"{[a.str_short() for a in avals]}"
            )
        bufs = [rt.put(d, _canonical(v)) for d, v in zip(ids, leaves)]
        a = avals[0]
        outs.append(ShardedArray(bufs, 0, ShapedArray((len(ids), *a.shape), a.dtype, a.weak_type)))
    return tree_unflatten(tree, outs)
