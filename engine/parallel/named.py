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
from ..random_keys import CommittedKeyArray, MeshKeyArray, PRNGKeyArray
from ..sharding import Mesh, NamedSharding, PartitionSpec, Sharding, SingleDeviceSharding
from . import topology
from .runtime import get_runtime
from .sharded import Shard, ShardedArray, replica_ids


@core.jax_class_path("jaxlib._jax.ArrayImpl")
class NamedShardedArray(ShardedArray):
    """An array whose pieces sit on the devices of ``sharding.mesh`` (one buffer per device, in
    the mesh's device order)."""

    __slots__ = ("_sharding", "on_mesh")

    def __init__(self, buffers, aval: ShapedArray, sharding: NamedSharding):
        space = core.mem_kind_to_space(sharding.memory_kind)  # (its type says the memory it is in)
        if aval.memory_space is not space:
            aval = aval.update(memory_space=space)
        super().__init__(buffers, "named", aval, True)  # an _axis pmap never asks for: it reads the value
        self._sharding = sharding
        self.on_mesh = sharding.num_devices > 1  # operations on it run on the mesh's devices
        self.on_one_device_mesh = not self.on_mesh

    @property
    def _value(self) -> np.ndarray:  # type: ignore[override]  # as ShardedArray's
        cached: np.ndarray | None = self._cache
        if cached is None:
            aval = cast(ShapedArray, self._aval)
            unreduced = self._sharding.spec.unreduced
            value = np.zeros(aval.shape, aval.dtype) if unreduced else np.empty(aval.shape, aval.dtype)
            seen = set()
            for buf, index, coords in zip(self._buffers, self._indices(), self._coords()):
                # replicas hold the same block; over unreduced axes the blocks add up
                key = (tuple((s.start, s.stop) for s in index), tuple(coords[a] for a in sorted(unreduced)))
                if key not in seen:
                    seen.add(key)
                    if unreduced:
                        value[index] += buf.view()
                    else:
                        value[index] = buf.view()
            value.flags.writeable = False
            self._cache = cached = value  # type: ignore[assignment]
        return cached

    def _indices(self):
        imap = self._sharding.devices_indices_map(self._aval.shape)
        return [imap[d] for d in self._sharding.mesh.devices.flat]

    def _coords(self):
        mesh = self._sharding.mesh
        return [dict(zip(mesh.axis_names, c)) for c in np.ndindex(*mesh.axis_sizes)]

    def __repr__(self):
        if self._sharding.spec.unreduced:  # (a sum not yet taken: JAX shows its layout, not values)
            weak = ", weak_type=True" if self.weak_type else ""
            return f"Array(shape={self.shape}, dtype={self.dtype.name}{weak}, sharding={self._sharding})"
        return super().__repr__()

    def __str__(self):
        return repr(self) if self._sharding.spec.unreduced else super().__str__()

    @property
    def sharding(self) -> NamedSharding:
        return self._sharding

    @property
    def named_sharding(self) -> NamedSharding:
        return self._sharding

    @property
    def addressable_shards(self):
        indices = self._indices()
        return [
            Shard(topology.get_device(b.device), index, b, self, replica)
            for b, index, replica in zip(self._buffers, indices, replica_ids(indices))
        ]

    @property
    def is_fully_replicated(self):
        return self._sharding.is_fully_replicated

    def devices(self):
        return set(self._sharding.mesh.devices.flat)

    def __jax_array__(self):
        return Array(self._value, self.weak_type)


_PMAP_AXIS = "_internal_pmap_axis_name"
_pmap_meshes: dict[tuple[int, ...], Mesh] = {}


def pmap_sharding(devices, axis: int) -> NamedSharding:
    """The layout of a ``pmap`` result as JAX 0.10.2 reports it (its pmap is a shard_map): slice
    ``i`` of the mapped axis on device ``i`` of a mesh with one internal axis."""
    key = tuple(d.id for d in devices)
    mesh = _pmap_meshes.get(key)
    if mesh is None:
        mesh = _pmap_meshes[key] = Mesh(np.array(list(devices)), (_PMAP_AXIS,))
    return NamedSharding(mesh, PartitionSpec(*([None] * axis), _PMAP_AXIS))


@core.jax_class_path("jaxlib._jax.ArrayImpl")
class HostMemoryArray(ShardedArray):
    """A one-device array put in host memory (``device_put`` onto a ``SingleDeviceSharding`` of
    memory kind ``pinned_host`` or ``unpinned_host``): the engine has one memory, so only its
    sharding's ``memory_kind`` tells it from a device array."""

    __slots__ = ("_memory_kind",)

    def __init__(self, array: ShardedArray, memory_kind: str):
        aval = array._aval.update(memory_space=core.mem_kind_to_space(memory_kind))
        super().__init__(array._buffers, None, aval, True)
        self._memory_kind = memory_kind


def _run_in_memory(prim: core.Primitive, vals, params):
    """``prim`` on operands of which some are in host memory or on a one-device mesh: JAX's
    memory-space rule checks them (``ValueError`` for operands in different memories), the values
    are computed as any others', results typed in host memory are placed there, and results are
    reported on the mesh as JAX's jit of the one operation reports them
    (``engine.parallel.result_shardings``)."""
    from .result_shardings import check_one_device, recover_shardings

    try:
        out_avals = prim.abstract_eval(*[core.get_aval(v) for v in vals], **params)
    except NotImplementedError:  # (no abstract rule: computed, left in device memory)
        out_avals = None
    check_one_device(vals, [f"args[{i}]" for i in range(len(vals))], prim.name)
    plain = [
        Array(v._value, v.weak_type)
        if isinstance(v, ShardedArray)
        else PRNGKeyArray(v._value)  # (committed typed keys: their host storage)
        if isinstance(v, CommittedKeyArray)
        else v
        for v in vals
    ]
    types = None
    if out_avals is not None and any(isinstance(v, NamedShardedArray) for v in vals):
        from .partition import eager_one_device_types  # (on an Explicit mesh: as typed)

        types = eager_one_device_types(prim, vals, params)
    outs = prim.bind(*plain, **params)
    if out_avals is None:
        return outs
    multiple = prim.multiple_results
    outs, out_avals = (list(outs), list(out_avals)) if multiple else ([outs], [out_avals])

    def in_memory(x, aval):
        if getattr(aval, "memory_space", core.DEVICE) is core.DEVICE or not isinstance(x, Array):
            return x
        return put_in_memory(x, core.mem_space_to_kind(aval.memory_space))

    outs = [in_memory(o, a) for o, a in zip(outs, out_avals)]
    if all(isinstance(o, Array) for o in outs):
        actual = [o.sharding for o in outs]
        computed = actual
        if types is not None:
            computed = [
                c
                if t is None or isinstance(a.dtype, core.ExtendedDType)
                else t.with_memory_kind(c.memory_kind)
                for a, t, c in zip(out_avals, types, actual)
            ]
        over_mesh = any(isinstance(v, NamedShardedArray) for v in vals)
        shardings = recover_shardings(vals, out_avals, [over_mesh] * len(outs), computed)
        outs = [o if s is c else put_sharded(o, s) for o, s, c in zip(outs, shardings, actual)]
    return outs if multiple else outs[0]


core.memory_eager_dispatch = _run_in_memory


def put_in_memory(x: Array, kind: str) -> Array:
    """``x`` on device 0 in its memory of ``kind``."""
    put: Array = put_sharded(x, SingleDeviceSharding(topology.get_device(0), memory_kind=kind))
    return put


def _array_sharding(self) -> Sharding:
    if isinstance(self, NamedShardedArray):
        return self._sharding
    if isinstance(self, HostMemoryArray):
        device = topology.get_device(self._buffers[0].device)
        return SingleDeviceSharding(device, memory_kind=self._memory_kind)
    if isinstance(self, ShardedArray):
        devs = [topology.get_device(b.device) for b in self._buffers]
        return SingleDeviceSharding(devs[0]) if self._axis is None else pmap_sharding(devs, self._axis)
    return SingleDeviceSharding(topology.get_device(getattr(self, "_dev", 0)))


Array.sharding = property(_array_sharding)  # type: ignore[attr-defined]  # JAX's; plain arrays: device 0


def _array_device(self):
    """JAX's ``Array.device``: the device of a single-device array, else its sharding."""
    sharding = _array_sharding(self)
    devices = sharding.device_set
    return next(iter(devices)) if len(devices) == 1 else sharding


Array.device = property(_array_device)  # type: ignore[attr-defined]


def put_sharded(x, sharding: Sharding):
    """``x`` laid out by ``sharding``: its blocks copied to the sharding's devices."""
    if isinstance(x, core.Tracer):
        # staged as JAX stages it: one device_put equation (the partitioner lays a value put onto
        # a NamedSharding out there, as it does a reshard)
        if isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, Mesh):
            from . import partition  # noqa: F401  (its rule for device_put)

            sharding.check_shape(core.get_aval(x).shape)
        if isinstance(sharding, SingleDeviceSharding) or (
            isinstance(sharding, NamedSharding) and isinstance(sharding.mesh, Mesh)
        ):
            from ..device_put_primitive import stage_device_put

            return stage_device_put([x], None, False, device=sharding)[0]
        raise NotImplementedError(
            f"device_put onto {sharding!r} inside a traced function (jit, grad, vmap) is not supported by "
            "the engine: call device_put outside and pass the result in"
        )
    if isinstance(sharding, SingleDeviceSharding):
        from .sharded import device_put

        put = device_put(x, next(iter(sharding.device_set)))
        if sharding.memory_kind == "device" or not isinstance(put, ShardedArray):
            return put
        return HostMemoryArray(put, sharding.memory_kind)
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"device_put: unsupported sharding {sharding!r}")
    if isinstance(x, NamedShardedArray) and x._sharding == sharding:
        return x
    if isinstance(x, PRNGKeyArray):  # typed PRNG keys stay host arrays, laid out by name
        return MeshKeyArray(x._value, sharding)  # (as a put onto one device leaves them)
    from . import partition  # noqa: F401  (operations on the result run per device)

    aval = core.get_aval(x)
    if not isinstance(sharding.mesh, Mesh):
        raise TypeError("device_put needs a NamedSharding over a concrete Mesh, not an AbstractMesh")
    sharding.check_shape(aval.shape)
    if sharding.spec.unreduced:
        return _put_unreduced(x, sharding, aval)
    value = x._value if isinstance(x, Array) else core.to_numpy(x) if not isinstance(x, np.ndarray) else x
    value = core._canonical_np(np.asarray(value))
    rt = get_runtime()
    imap = sharding.devices_indices_map(aval.shape)
    # (np.array, not np.ascontiguousarray, which turns a scalar's block into shape (1,))
    buffers = [rt.put(d.id, np.array(value[imap[d]], order="C")) for d in sharding.mesh.devices.flat]
    return NamedShardedArray(buffers, ShapedArray(aval.shape, value.dtype, aval.weak_type), sharding)


def _put_unreduced(x, sharding: NamedSharding, aval) -> NamedShardedArray:
    """``x`` as a sum over the ``unreduced`` mesh axes: each device's block (by the spec) holds
    the part of it that the device held in ``x`` (where ``x`` splits it over those axes), zeros
    elsewhere; a value not split over them is held by the devices at coordinate 0, zeros on the
    others. The blocks of a group add up to the value."""
    unreduced = sharding.spec.unreduced
    mesh = sharding.mesh
    value = core._canonical_np(np.asarray(x._value if isinstance(x, Array) else x))
    target = sharding.devices_indices_map(aval.shape)
    held = None
    if isinstance(x, NamedShardedArray) and x._sharding.mesh == mesh and not x._sharding.spec.unreduced:
        split = {a for e in x._sharding.spec.partitions for a in ((e,) if isinstance(e, str) else (e or ()))}
        if unreduced <= split:
            held = x._sharding.devices_indices_map(aval.shape)
    rt = get_runtime()
    buffers = []
    for coords, dev in zip(np.ndindex(*mesh.axis_sizes), mesh.devices.flat):
        where = dict(zip(mesh.axis_names, coords))
        index = target[dev]
        block = np.zeros(value[index].shape, value.dtype)
        if held is not None:  # the part of the block this device held
            mine = held[dev]
            inner = tuple(
                slice(
                    max(m.start or 0, t.start or 0) - (t.start or 0),
                    min(_stop(m, n), _stop(t, n)) - (t.start or 0),
                )
                for m, t, n in zip(mine, index, aval.shape)
            )
            outer = tuple(
                slice(s.start + (t.start or 0), s.stop + (t.start or 0)) for s, t in zip(inner, index)
            )
            if all(s.stop > s.start for s in inner):
                block[inner] = value[outer]
        elif all(where[a] == 0 for a in unreduced):
            block[...] = value[index]
        buffers.append(rt.put(dev.id, block))
    return NamedShardedArray(buffers, ShapedArray(aval.shape, value.dtype, aval.weak_type), sharding)


def _stop(s: slice, n: int) -> int:
    return n if s.stop is None else s.stop
