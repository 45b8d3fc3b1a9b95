"""Arrays laid out by a ``NamedSharding``: one buffer per mesh device, each in that device's arena.

``put_sharded`` cuts a value into the blocks ``NamedSharding.devices_indices_map`` names and copies
each block to its device (replicated dimensions are copied to every device of their mesh axis).
``jit`` of such arrays runs one program per device on the blocks where they are
(``engine.parallel.spmd``), and its results come back as ``NamedShardedArray`` too.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from .. import core
from ..core import Array, ShapedArray
from ..sharding import Mesh, NamedSharding, Sharding, SingleDeviceSharding
from . import topology
from .runtime import get_runtime
from .sharded import Shard, ShardedArray


class NamedShardedArray(ShardedArray):
    """An array whose pieces sit on the devices of ``sharding.mesh`` (one buffer per device, in
    the mesh's device order)."""

    __slots__ = ("_sharding",)

    def __init__(self, buffers, aval: ShapedArray, sharding: NamedSharding):
        super().__init__(buffers, "named", aval)  # an _axis pmap never asks for: it reads the value
        self._sharding = sharding

    @property
    def _value(self) -> np.ndarray:  # type: ignore[override]  # as ShardedArray's
        cached: np.ndarray | None = self._cache
        if cached is None:
            aval = cast(ShapedArray, self._aval)
            value = np.empty(aval.shape, aval.dtype)
            seen = set()
            for buf, index in zip(self._buffers, self._indices()):
                key = tuple((s.start, s.stop) for s in index)
                if key not in seen:  # replicas hold the same block
                    seen.add(key)
                    value[index] = buf.view()
            value.flags.writeable = False
            self._cache = cached = value  # type: ignore[assignment]
        return cached

    def _indices(self):
        imap = self._sharding.devices_indices_map(self._aval.shape)
        return [imap[d] for d in self._sharding.mesh.devices.flat]

    @property
    def sharding(self) -> NamedSharding:
        return self._sharding

    @property
    def on_mesh(self) -> bool:
        """Operations on it run on the mesh's devices (``partition.run_eager``)."""
        return self._sharding.num_devices > 1

    @property
    def named_sharding(self) -> NamedSharding:
        return self._sharding

    @property
    def addressable_shards(self):
        return [
            Shard(topology.get_device(b.device), index, b, self)
            for b, index in zip(self._buffers, self._indices())
        ]

    @property
    def is_fully_replicated(self):
        return self._sharding.is_fully_replicated

    def devices(self):
        return set(self._sharding.mesh.devices.flat)

    def __jax_array__(self):
        return Array(self._value, self.weak_type)


class PmapSharding(Sharding):
    """The layout of a ``pmap`` result: slice ``i`` of the mapped axis on device ``i``."""

    def __init__(self, devices, axis):
        self._devices, self._axis = list(devices), axis

    @property
    def device_set(self):
        return set(self._devices)

    @property
    def is_fully_replicated(self):
        return len(self._devices) == 1

    def __repr__(self):
        return f"PmapSharding(axis={self._axis}, device_ids={[d.id for d in self._devices]})"


def _array_sharding(self) -> Sharding:
    if isinstance(self, NamedShardedArray):
        return self._sharding
    if isinstance(self, ShardedArray):
        devs = [topology.get_device(b.device) for b in self._buffers]
        return SingleDeviceSharding(devs[0]) if self._axis is None else PmapSharding(devs, self._axis)
    return SingleDeviceSharding(topology.get_device(0))


Array.sharding = property(_array_sharding)  # type: ignore[attr-defined]  # JAX's; plain arrays: device 0


def put_sharded(x, sharding: Sharding):
    """``x`` laid out by ``sharding``: its blocks copied to the sharding's devices."""
    if isinstance(x, core.Tracer):
        raise NotImplementedError(
            "device_put with a sharding inside a traced function (jit, grad, vmap) is not supported by the "
            "engine yet: use jax.reshard there, or call device_put outside and pass the result in"
        )
    if isinstance(sharding, SingleDeviceSharding):
        from .sharded import device_put

        return device_put(x, next(iter(sharding.device_set)))
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"device_put: unsupported sharding {sharding!r}")
    if isinstance(x, NamedShardedArray) and x._sharding == sharding:
        return x
    from . import partition  # noqa: F401  (operations on the result run per device)

    aval = core.get_aval(x)
    if not isinstance(sharding.mesh, Mesh):
        raise TypeError("device_put needs a NamedSharding over a concrete Mesh, not an AbstractMesh")
    sharding.check_shape(aval.shape)
    value = x._value if isinstance(x, Array) else core.to_numpy(x) if not isinstance(x, np.ndarray) else x
    value = core._canonical_np(np.asarray(value))
    rt = get_runtime()
    imap = sharding.devices_indices_map(aval.shape)
    buffers = [rt.put(d.id, np.ascontiguousarray(value[imap[d]])) for d in sharding.mesh.devices.flat]
    return NamedShardedArray(buffers, ShapedArray(aval.shape, value.dtype, aval.weak_type), sharding)
