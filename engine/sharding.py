"""``jax.sharding``: meshes of the simulated devices, partition specs and shardings.

A ``Mesh`` arranges devices in a named grid; a ``NamedSharding(mesh, P(...))`` says which array
dimension is split over which mesh axes. ``jax.device_put(x, sharding)`` places the pieces on the
device processes; ``jit`` of sharded arrays runs one program per device (``engine.parallel.spmd``).

  >>> mesh = jax.make_mesh((4,), ("batch",))
  >>> x = jax.device_put(np.ones((8, 3)), NamedSharding(mesh, P("batch")))
  >>> jax.typeof(x)
  ShapedArray(float32[8@batch,3])
"""

from __future__ import annotations

import dataclasses
import enum
import math
import threading
from collections import OrderedDict
from typing import Sequence

import numpy as np

from .core import jax_class_path
from .partition_spec import UNCONSTRAINED, P, PartitionSpec  # noqa: F401  (jax.sharding names)


class AxisType(enum.Enum):
    """How a mesh axis is treated: ``Explicit`` axes appear in types (``float32[8@batch]``),
    ``Auto`` ones are left to the compiler, ``Manual`` ones are inside ``shard_map``."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


def _axes_of(entry) -> tuple[str, ...]:
    if entry is None or entry is UNCONSTRAINED:
        return ()
    return (entry,) if isinstance(entry, str) else tuple(entry)


class _MeshBase:
    axis_names: tuple[str, ...]
    axis_sizes: tuple[int, ...]
    axis_types: tuple[AxisType, ...]

    @property
    def shape(self):
        return OrderedDict(zip(self.axis_names, self.axis_sizes))

    @property
    def shape_tuple(self):
        return tuple(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        return math.prod(self.axis_sizes)

    @property
    def empty(self) -> bool:
        return not self.axis_names

    def _body(self) -> str:
        sizes = ", ".join(f"{n!r}: {s}" for n, s in zip(self.axis_names, self.axis_sizes))
        return f"{sizes or '()'}, axis_types={self.axis_types!r}"

    @property
    def explicit_axes(self) -> tuple[str, ...]:
        return tuple(n for n, t in zip(self.axis_names, self.axis_types) if t is AxisType.Explicit)


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractDevice:
    """The kind of device an ``AbstractMesh`` stands for (what a concrete mesh's devices are)."""

    device_kind: str
    num_cores: int | None
    platform: str

    def __repr__(self):
        return f"AbstractDevice({self._repr()})"

    def _repr(self):
        return f"device_kind={self.device_kind}, num_cores={self.num_cores}, platform={self.platform}"


CPU_DEVICE = AbstractDevice("cpu", None, "cpu")


@jax_class_path("jax._src.mesh.AbstractMesh")
class AbstractMesh(_MeshBase):
    """A mesh's shape, names and axis types without its devices (what types refer to)."""

    def __init__(
        self,
        axis_sizes: tuple[int, ...],
        axis_names: tuple[str, ...],
        axis_types=None,
        *,
        abstract_device=None,
    ):
        self.axis_sizes, self.axis_names = tuple(axis_sizes), tuple(axis_names)
        self.axis_types = tuple(axis_types) if axis_types is not None else (AxisType.Auto,) * len(axis_names)
        # the kind of device, known for the abstract mesh of a concrete Mesh (JAX prints it then)
        self.abstract_device = abstract_device

    def __repr__(self):
        if self.empty:
            return "AbstractMesh((), axis_types=())"
        if self.abstract_device is None:
            return f"AbstractMesh({self._body()})"
        return f"AbstractMesh({self._body()}, {self.abstract_device._repr()})"

    def __eq__(self, other):
        return isinstance(other, AbstractMesh) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def _key(self):
        return (self.axis_sizes, self.axis_names, self.axis_types)


@jax_class_path("jax._src.mesh.Mesh")
class Mesh(_MeshBase):
    """Devices in an n-dimensional grid with named axes.

    >>> Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("x", "y"))
    Mesh(axis_sizes=(2, 2), axis_names=('x', 'y'), axis_types=(Auto, Auto))
    """

    def __init__(self, devices, axis_names, axis_types=None):
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        devices = np.asarray(devices, dtype=object)
        axis_names = tuple(axis_names)
        if devices.ndim != len(axis_names):
            raise ValueError(
                f"Mesh requires the ndim of its first argument (`devices`) to equal the length of its "
                f"second argument (`axis_names`), but got devices.ndim == {devices.ndim} and "
                f"len(axis_names) == {len(axis_names)}."
            )
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(axis_names)
        elif isinstance(axis_types, AxisType):
            axis_types = (axis_types,) * len(axis_names)
        if len(axis_types) != len(axis_names):
            raise ValueError(f"Mesh: {len(axis_types)} axis_types for {len(axis_names)} axes")
        self.devices = devices
        self.axis_names = axis_names
        self.axis_sizes = tuple(devices.shape)
        self.axis_types = tuple(axis_types)
        # (an empty mesh, JAX's context mesh outside any: no axes, no devices)
        self.device_ids = np.vectorize(lambda d: d.id, otypes=[int])(devices) if devices.ndim else devices

    @property
    def abstract_mesh(self) -> AbstractMesh:
        return AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types, abstract_device=CPU_DEVICE)

    def __repr__(self):
        if self.empty:
            return "Mesh(axis_sizes=(), axis_names=())"
        return f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, axis_types={self.axis_types!r})"

    def __str__(self):
        return f"Mesh({self._body()})"

    def __eq__(self, other):
        return (
            isinstance(other, Mesh)
            and self.axis_names == other.axis_names
            and self.axis_types == other.axis_types
            and self.device_ids.tolist() == other.device_ids.tolist()
        )

    def __hash__(self):
        return hash((self.axis_names, self.axis_types, tuple(self.device_ids.flat)))

    def __enter__(self):
        self._ctx = set_mesh(self)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)

    @property
    def local_devices(self):
        return list(self.devices.flat)

    @property
    def device_set(self):
        return set(self.devices.flat)


from .parallel.topology import MEMORY_KINDS  # noqa: E402  (what JAX's CPU devices address)


def check_memory_kind(kind: str | None) -> str:
    """``kind`` (``None``: the default, ``"device"``), or JAX's error for a kind a CPU lacks."""
    if kind is None:
        return "device"
    if kind not in MEMORY_KINDS:
        raise ValueError(
            "Could not find memory addressable by device cpu. Device cpu can address the following memory "
            f"kinds: {', '.join(MEMORY_KINDS)}. Got memory kind: {kind}"
        )
    return kind


class IndivisibleError(ValueError):
    """A sharding splits a dimension into more parts than divide its size evenly."""


class Sharding:
    """How an array's pieces are laid out on devices, and in which of their memories
    (``memory_kind``: ``"device"``, or host memory, ``"pinned_host"``; the engine's arrays all live
    in host RAM, so the kind is a label that transfers between kinds keep, as JAX reports it)."""

    memory_kind = "device"

    def with_memory_kind(self, kind: str) -> "Sharding":
        """This layout in memory ``kind``."""
        import copy

        other = copy.copy(self)
        other.memory_kind = check_memory_kind(kind)
        return other

    @property
    def device_set(self) -> set:
        raise NotImplementedError

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    @property
    def addressable_devices(self) -> set:
        return self.device_set

    @property
    def is_fully_addressable(self) -> bool:
        return True

    def devices_indices_map(self, global_shape) -> dict:
        raise NotImplementedError

    def shard_shape(self, global_shape) -> tuple[int, ...]:
        raise NotImplementedError


@jax_class_path("jax.sharding.SingleDeviceSharding")
class SingleDeviceSharding(Sharding):
    """The whole array on one device."""

    def __init__(self, device, *, memory_kind=None):
        self._device = device
        self.memory_kind = check_memory_kind(memory_kind)

    @property
    def device_set(self):
        return {self._device}

    @property
    def is_fully_replicated(self):
        return True

    def devices_indices_map(self, global_shape):
        return {self._device: tuple(slice(None) for _ in global_shape)}

    def shard_shape(self, global_shape):
        return tuple(global_shape)

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"

    def __eq__(self, other):
        return (
            isinstance(other, SingleDeviceSharding)
            and other._device == self._device
            and other.memory_kind == self.memory_kind
        )

    def __hash__(self):
        return hash(("SingleDeviceSharding", self._device, self.memory_kind))


@jax_class_path("jax.sharding.NamedSharding")
class NamedSharding(Sharding):
    """Split an array over a mesh: dimension ``d`` over the mesh axes named by ``spec[d]``.

    >>> NamedSharding(jax.make_mesh((4,), ("b",)), P("b")).shard_shape((8, 2))
    (2, 2)
    """

    def __init__(self, mesh, spec: PartitionSpec | tuple | list | None = None, *, memory_kind=None):
        spec = PartitionSpec() if spec is None else spec
        if not isinstance(mesh, (Mesh, AbstractMesh)):
            raise TypeError(f"NamedSharding expects a Mesh, got {type(mesh).__name__}")
        if not isinstance(spec, PartitionSpec):
            if isinstance(spec, (tuple, list)):
                spec = PartitionSpec(*spec)
            else:
                raise TypeError(f"NamedSharding expects a PartitionSpec, got {spec!r}")
        used = [a for entry in spec.partitions for a in _axes_of(entry)] + sorted(
            spec.unreduced | spec.reduced
        )
        for a in used:
            if a not in mesh.axis_names:
                raise ValueError(f"Resource axis: {a} of {spec} is not found in mesh: {mesh.axis_names}.")
        if len(set(used)) != len(used):
            raise ValueError(f"A mesh axis is used twice in {spec}")
        if mesh.axis_types and AxisType.Auto not in mesh.axis_types and UNCONSTRAINED in spec.partitions:
            raise ValueError(
                f"{spec} cannot contain `P.UNCONSTRAINED` when no mesh axis_types are `Auto`. Got mesh "
                f"axis_types: {mesh.axis_types!r}"
            )
        self.mesh, self.spec = mesh, spec
        self.memory_kind = check_memory_kind(memory_kind)

    def __repr__(self):
        kind = "" if isinstance(self.mesh, AbstractMesh) else f", memory_kind={self.memory_kind}"
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec}{kind})"

    def __eq__(self, other):
        return (
            isinstance(other, NamedSharding)
            and self.mesh == other.mesh
            and self._normalized(8) == other._normalized(8)
            and self.spec.unreduced == other.spec.unreduced
            and self.spec.reduced == other.spec.reduced
            and self.memory_kind == other.memory_kind
        )

    def __hash__(self):
        return hash(
            (self.mesh, tuple(self._normalized(8)), self.spec.unreduced, self.spec.reduced, self.memory_kind)
        )

    def _normalized(self, ndim):
        spec = list(self.spec.partitions) + [None] * (ndim - len(self.spec))
        return [_axes_of(e) for e in spec]

    def with_spec(self, spec) -> "NamedSharding":
        if not isinstance(spec, PartitionSpec):
            spec = PartitionSpec(*spec, unreduced=self.spec.unreduced, reduced=self.spec.reduced)
        return NamedSharding(self.mesh, spec, memory_kind=self.memory_kind)

    @property
    def device_set(self):
        return set(self.mesh.devices.flat)

    @property
    def is_fully_replicated(self):
        return all(self.mesh.shape[a] == 1 for e in self.spec.partitions for a in _axes_of(e)) and not any(
            self.mesh.shape[a] > 1 for a in self.spec.unreduced
        )

    def check_shape(self, shape) -> None:
        if len(self.spec) > len(shape):
            raise ValueError(
                f"Sharding {self} is only valid for values of rank at least {len(self.spec)}, but was "
                f"applied to a value of rank {len(shape)}"
            )
        for d, entry in enumerate(self.spec.partitions):
            parts = math.prod(self.mesh.shape[a] for a in _axes_of(entry))
            if shape[d] % parts:
                typed = NamedSharding(getattr(self.mesh, "abstract_mesh", self.mesh), self.spec)
                raise ValueError(  # (JAX checks the type's sharding: its mesh is abstract)
                    f"Sharding spec {_axes_of(entry)} implies that array axis "
                    f"{d} is partitioned {parts} times, but does not evenly divide the dimension size "
                    f"{shape[d]}. Got shape: {tuple(shape)} and sharding {typed}"
                )

    def shard_shape(self, global_shape):
        global_shape = tuple(global_shape)
        if len(self.spec) > len(global_shape):
            self.check_shape(global_shape)
        spec = self._normalized(len(global_shape))
        parts = [math.prod(self.mesh.shape[a] for a in axes) for axes in spec]
        for d, (n, p) in enumerate(zip(global_shape, parts)):
            if n % p:
                raise IndivisibleError(
                    f"Sharding {self} implies that array axis {d} is partitioned {p} times, but the "
                    f"dimension size is {n} (full shape: {global_shape}, per-dimension tiling factors: "
                    f"{parts} should evenly divide the shape)"
                )
        return tuple(n // math.prod(self.mesh.shape[a] for a in axes) for n, axes in zip(global_shape, spec))

    def devices_indices_map(self, global_shape) -> dict:
        """For each device, the slices of the global array it holds (replicas hold equal slices)."""
        if not isinstance(self.mesh, Mesh):
            raise TypeError(
                "devices_indices_map needs a NamedSharding over a concrete Mesh, not an AbstractMesh"
            )
        global_shape = tuple(global_shape)
        local = self.shard_shape(global_shape)
        spec = self._normalized(len(global_shape))
        names = self.mesh.axis_names
        out = {}
        for coords in np.ndindex(*self.mesh.axis_sizes):
            where = dict(zip(names, coords))
            index = []
            for axes, size in zip(spec, local):
                if math.prod(self.mesh.shape[a] for a in axes or ()) == 1:  # (JAX: one part is all of it)
                    index.append(slice(None))
                    continue
                block = 0
                for a in axes:  # the first axis named is the most significant
                    block = block * self.mesh.shape[a] + where[a]
                index.append(slice(block * size, (block + 1) * size))
            out[self.mesh.devices[coords]] = tuple(index)
        return out


def make_single_device_sharding(device) -> SingleDeviceSharding:
    return SingleDeviceSharding(device)


# ---------------------------------------------------------------------------------------------
# The current mesh (jax.set_mesh).


class _MeshState(threading.local):
    mesh: Mesh | None = None
    abstract: AbstractMesh | None = None  # set by use_abstract_mesh / auto_axes / explicit_axes


_mesh_state = _MeshState()


def get_mesh() -> Mesh | None:
    """The mesh set by ``jax.set_mesh``, or None."""
    return _mesh_state.mesh


def get_abstract_mesh() -> AbstractMesh:
    """The current mesh without devices; an empty ``AbstractMesh`` when none is set."""
    if _mesh_state.abstract is not None:
        return _mesh_state.abstract
    m = _mesh_state.mesh
    return m.abstract_mesh if m is not None else AbstractMesh((), ())


class use_abstract_mesh:
    """Within the block, ``get_abstract_mesh()`` (what types and bare ``PartitionSpec``s refer
    to) is ``mesh``; the concrete mesh's devices stay where they are.

    >>> with jax.sharding.use_abstract_mesh(AbstractMesh((8,), ("A",))):
    ...     jax.sharding.get_abstract_mesh().axis_names
    ('A',)
    """

    def __init__(self, mesh: AbstractMesh):
        if not isinstance(mesh, AbstractMesh):
            raise ValueError(f"use_abstract_mesh expects an AbstractMesh, got {type(mesh).__name__}")
        self.mesh = mesh

    def __enter__(self):
        self.prev, _mesh_state.abstract = _mesh_state.abstract, self.mesh
        return self.mesh

    def __exit__(self, *exc):
        _mesh_state.abstract = self.prev
        return False


def _concrete_for(abstract: AbstractMesh) -> Mesh | None:
    """The devices of the current mesh arranged as ``abstract`` (same devices, its axes), or None."""
    mesh = _mesh_state.mesh
    if mesh is None or abstract.empty or abstract.size != mesh.size:
        return None
    return _arranged(mesh, abstract)


def _arranged(mesh: Mesh, abstract: AbstractMesh) -> Mesh:
    """``mesh``'s devices arranged as ``abstract`` says (its axes and types)."""
    if abstract.axis_names == mesh.axis_names and abstract.axis_sizes == mesh.axis_sizes:
        return Mesh(mesh.devices, mesh.axis_names, abstract.axis_types)
    return Mesh(mesh.devices.reshape(abstract.axis_sizes), abstract.axis_names, abstract.axis_types)


def _with_axis_types(mesh: AbstractMesh, axes, kind: AxisType, what: str) -> AbstractMesh:
    if mesh.empty:
        raise ValueError(f"{what} needs a mesh: call it under jax.set_mesh(mesh)")
    names = mesh.axis_names if axes is None else ((axes,) if isinstance(axes, str) else tuple(axes))
    for n in names:
        if n not in mesh.axis_names:
            raise ValueError(f"{what}: {n!r} is not an axis of the mesh {mesh}")
    types = tuple(kind if n in names else t for n, t in zip(mesh.axis_names, mesh.axis_types))
    return AbstractMesh(mesh.axis_sizes, mesh.axis_names, types, abstract_device=mesh.abstract_device)


def _per_arg(shardings, args, move):
    if isinstance(shardings, (tuple, list)) and not isinstance(shardings, PartitionSpec):
        if len(shardings) != len(args):
            raise ValueError(f"{len(shardings)} shardings for {len(args)} arguments")
        return tuple(move(a, s) for a, s in zip(args, shardings))
    return tuple(move(a, shardings) for a in args)


def _new_mesh(axes, kind: AxisType, what: str, shardings=None):
    """JAX's ``_get_new_mesh``: the mesh to change (the context's, else that of the
    ``NamedSharding``s in ``shardings``) and it with ``axes`` (default: all) of type ``kind``, and
    the axes; None when there is no mesh at all."""
    from .tree_util import tree_leaves

    current = get_abstract_mesh()
    given = AbstractMesh((), ())
    for s in tree_leaves(shardings, is_leaf=lambda v: isinstance(v, PartitionSpec)):
        if isinstance(s, NamedSharding):
            mesh = s.mesh.abstract_mesh if isinstance(s.mesh, Mesh) else s.mesh
            if not given.empty and given != mesh:
                raise ValueError(
                    f"Shardings passed to {what} should have the same mesh. Got one mesh {given} and "
                    f"another {s.mesh}"
                )
            given = mesh
    if given.empty and current.empty:
        return None
    if not given.empty and not current.empty and given != current:
        raise ValueError(
            f"Context mesh {current} must match the mesh passed to shardings {given}. Recommended "
            "approach is to use `jax.set_mesh` context manager."
        )
    mesh = current if not current.empty else given
    names = mesh.axis_names if axes is None else ((axes,) if isinstance(axes, str) else tuple(axes))
    return mesh, _with_axis_types(mesh, names, kind, what), names


def _explicit_only(spec: PartitionSpec, mesh: AbstractMesh) -> PartitionSpec:
    """``spec`` naming only ``mesh``'s ``Explicit`` axes (JAX's ``modify_spec_for_auto_manual``)."""
    explicit = set(mesh.explicit_axes)
    entries = [
        None if e is None else spec_entry(tuple(a for a in _axes_of(e) if a in explicit)) for e in spec
    ]
    return PartitionSpec(*entries)


def spec_entry(axes):
    """A ``PartitionSpec`` entry for a dimension split by ``axes``: None, one name, or a tuple."""
    return None if not axes else axes[0] if len(axes) == 1 else tuple(axes)


def auto_axes(fun=None, *, axes=None, out_sharding=None):
    """Run ``fun`` with the mesh ``axes`` (default: all) of type ``Auto`` (the compiler lays values
    out; no sharding-type errors), then lay its results out by ``out_sharding`` (required, given to
    the decorator or to the call). Without any mesh (none set, no ``NamedSharding`` given) it just
    calls ``fun``, as JAX does.

    >>> @jax.sharding.auto_axes
    ... def add(x, y):
    ...     return x + y
    >>> # add(x, y, out_sharding=P("X", None))
    """
    import functools

    if fun is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(fun)
    def wrapped(*args, out_sharding=out_sharding, **kwargs):
        from .tree_util import tree_map

        if out_sharding is None:
            raise TypeError("Missing required keyword argument: 'out_sharding'")
        found = _new_mesh(axes, AxisType.Auto, "auto_axes", out_sharding)
        if found is None:
            return fun(*args, **kwargs)
        prev, new, names = found
        auto = {n for n, t in zip(prev.axis_names, prev.axis_types) if t == AxisType.Auto}
        if auto == set(names):
            return fun(*args, **kwargs)
        from .core import Array, Tracer

        def typed_here(a):  # (an array retyped on the new mesh; other arguments as they are)
            from .parallel.named import NamedShardedArray

            if type(a) is NamedShardedArray and isinstance(a.sharding.mesh, Mesh):
                held = a.sharding
                if held.mesh.axis_names == new.axis_names and held.mesh.axis_sizes == new.axis_sizes:
                    return _recast(a, held, new)
            return (
                reshard(a, _explicit_only(typeof(a).sharding.spec, new))
                if isinstance(a, (Array, Tracer))
                else a
            )

        with use_abstract_mesh(new):
            args = tree_map(typed_here, args)
            out = fun(*args, **kwargs)
        if isinstance(out_sharding, (tuple, list)) and not isinstance(out_sharding, PartitionSpec):
            return type(out)(reshard(o, s) for o, s in zip(out, out_sharding))
        return tree_map(lambda o: reshard(o, out_sharding), out)

    return wrapped


def _recast(a, held: "NamedSharding", mesh: AbstractMesh):
    """The array ``a``, laid out by ``held``, retyped on ``mesh`` (its devices with other axis
    types) without moving it: JAX's ``mesh_cast`` of a concrete array keeps its layout, so its
    ``sharding`` still names the axes that split it while its type names only the explicit ones."""
    from .parallel.named import NamedShardedArray

    moved = Mesh(held.mesh.devices, mesh.axis_names, mesh.axis_types)
    return NamedShardedArray(
        a._buffers, a.aval, NamedSharding(moved, held.spec, memory_kind=held.memory_kind)
    )


def explicit_axes(fun=None, *, axes=None, in_sharding=None):
    """Run ``fun`` with the mesh ``axes`` (default: all) of type ``Explicit``: its arguments are
    first laid out by ``in_sharding`` (required), and shardings show in their types inside; its
    results are typed back on the mesh outside (naming only the axes explicit there).

    >>> @jax.sharding.explicit_axes
    ... def double(y):
    ...     return y * 2
    >>> # double(x, in_sharding=P("X", "Y"))
    """
    import functools

    if fun is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(fun)
    def wrapped(*args, in_sharding=in_sharding, **kwargs):
        from .tree_util import tree_map

        if in_sharding is None:
            raise TypeError("Missing required keyword argument: 'in_sharding'")
        found = _new_mesh(axes, AxisType.Explicit, "explicit_axes")
        if found is None:
            raise ValueError(
                "Context mesh cannot be empty. Please use `jax.set_mesh` API to enter into a mesh "
                "context when using `explicit_axes` API."
            )
        prev, new, _ = found
        with use_abstract_mesh(new):
            args = _per_arg(in_sharding, args, reshard)
            out = fun(*args, **kwargs)
        return tree_map(lambda o: reshard(o, _explicit_only(typeof(o).sharding.spec, prev)), out)

    return wrapped


class _SetMesh:
    """Sets the mesh at once (``jax.set_mesh(mesh)``); as a context manager, restores the
    previous one on exit (``with jax.set_mesh(mesh): ...``)."""

    def __init__(self, mesh):
        if mesh is not None and not isinstance(mesh, Mesh):
            raise TypeError(f"set_mesh expects a Mesh, got {type(mesh).__name__}")
        self.prev = _mesh_state.mesh
        _mesh_state.mesh = mesh

    def __enter__(self):
        return _mesh_state.mesh

    def __exit__(self, *exc):
        _mesh_state.mesh = self.prev
        return False


def set_mesh(mesh: Mesh | None) -> _SetMesh:
    """Make ``mesh`` the current mesh (a bare ``PartitionSpec`` then means a sharding over it).

    >>> mesh = jax.make_mesh((2,), ("batch",))
    >>> with jax.set_mesh(mesh):
    ...     x = jax.device_put(np.ones(8), P("batch"))
    """
    return _SetMesh(mesh)


def spec_without_mesh(spec: PartitionSpec) -> ValueError:
    """JAX's error for a bare spec given as an ``out_sharding`` outside any mesh."""
    return ValueError(
        "Using PartitionSpec when you are not under a mesh context is not allowed. Please pass a "
        f"NamedSharding instance or enter into a mesh context via `jax.set_mesh`. Got {spec}"
    )


def as_sharding(s, what: str = "device_put", argument: str | None = None):
    """A ``Sharding`` from a sharding or a bare ``PartitionSpec`` (over the current mesh), for
    ``what``: ``device_put``, an API taking shardings as ``argument`` (``jit``'s ``in_shardings``),
    or else an operation's ``out_sharding`` (each refuses a bare spec without a mesh as JAX does)."""
    if isinstance(s, Sharding):
        return s
    if isinstance(s, PartitionSpec):
        mesh = get_mesh()
        if mesh is None and what == "device_put":
            raise ValueError(f"Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to {what}")
        if mesh is None and argument is not None:
            raise RuntimeError(
                f"{what} requires a non-empty mesh in context if you are passing `PartitionSpec`s to "
                f"{argument}. You can define a context mesh via `jax.set_mesh(mesh)`. Alternatively, "
                f"provide `Sharding`s to {argument} and then the mesh context manager is not required."
            )
        if mesh is None:
            raise spec_without_mesh(s)
        abstract = _mesh_state.abstract
        if abstract is not None and abstract.axis_names != mesh.axis_names:
            # a spec over the abstract mesh: the current devices arranged as it says
            arranged = _concrete_for(abstract)
            if arranged is None:
                raise ValueError(
                    f"{what}: the abstract mesh {abstract} does not fit the devices of the mesh {mesh}"
                )
            mesh = arranged
        return NamedSharding(mesh, s)
    raise TypeError(f"{what}: expected a Sharding or a PartitionSpec, got {s!r}")


def make_mesh(
    axis_shapes: Sequence[int], axis_names: Sequence[str], axis_types=None, *, devices=None
) -> Mesh:
    """A mesh of the first ``prod(axis_shapes)`` devices; axes are ``Explicit`` unless told.

    >>> jax.make_mesh((4, 2), ("data", "model"))
    Mesh(axis_sizes=(4, 2), axis_names=('data', 'model'), axis_types=(Explicit, Explicit))
    """
    from .parallel import devices as all_devices

    axis_shapes, axis_names = tuple(int(s) for s in axis_shapes), tuple(axis_names)
    if len(axis_shapes) != len(axis_names):
        raise ValueError(f"make_mesh: {len(axis_shapes)} axis sizes but {len(axis_names)} axis names")
    pool = list(devices) if devices is not None else all_devices()
    n = math.prod(axis_shapes)
    if n > len(pool):
        raise ValueError(
            f"make_mesh: the mesh {dict(zip(axis_names, axis_shapes))} needs {n} devices but there are "
            f"{len(pool)}; set XLA_FLAGS=--xla_force_host_platform_device_count={n} before importing jax"
        )
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(axis_names)
    grid = np.empty(n, dtype=object)
    grid[:] = pool[:n]
    return Mesh(grid.reshape(axis_shapes), axis_names, axis_types)


def effects_barrier() -> None:
    """Wait until all pending effects (``jax.debug.print``...) are done: the engine runs them
    synchronously, so there is nothing to wait for."""
    return None


from .sharded_types import ManualAxisType, typeof  # noqa: E402, F401  (jax.typeof: types that show shardings)


# (jax.sharding's names for moving values between layouts, defined there)
from .resharding import reshard, with_out_sharding, with_sharding_constraint  # noqa: E402,F401
