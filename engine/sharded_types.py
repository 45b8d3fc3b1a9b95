"""``jax.typeof``: abstract values whose printed types show shardings (``float32[8@X,4]``) and, inside
``shard_map``, the mesh axes a value varies over (``float32[3]{V:i}``)."""

from __future__ import annotations

import contextlib
import sys
import weakref

from .avals import vma_str
from .core import DEVICE, ShapedArray, dtype_short, jax_class_path
from .sharding import (
    AbstractMesh,
    AxisType,
    Mesh,
    NamedSharding,
    PartitionSpec,
    get_abstract_mesh,
    spec_entry,
)


@jax_class_path("jax._src.core.ShapedArray")  # (typeof gives JAX's one class)
class _PlainType(ShapedArray):
    """A ``ShapedArray`` that prints as JAX's ``typeof`` does (``float32[3]``, ``~float32[]`` weak;
    inside ``shard_map`` a value that varies over mesh axes shows them: ``float32[3]{V:i}``)."""

    __slots__ = ()

    def __init__(self, shape, dtype, weak_type=False, vma: tuple = (), *, memory_space=DEVICE):
        super().__init__(shape, dtype, weak_type, memory_space=memory_space, vma=tuple(vma))

    def str_short(self) -> str:
        return f"{self.dtype.name}{self._space()}[{','.join(map(str, self.shape))}]{vma_str(self.vma)}"

    @property
    def manual_axis_type(self):
        return ManualAxisType(varying=frozenset(self.vma))

    def __str__(self):
        return ("~" if self.weak_type else "") + self.str_short()

    def __repr__(self):
        return f"ShapedArray({self.str_short()}{', weak_type=True' if self.weak_type else ''})"


class ManualAxisType:
    """Which manual mesh axes a value inside ``shard_map`` varies over, and which hold unreduced or
    reduced partial values (JAX's; the engine's values only vary). Interned: equal ones are one
    object, as in JAX, which compares them by identity."""

    __slots__ = ("varying", "unreduced", "reduced", "__weakref__")
    _interned: weakref.WeakValueDictionary = weakref.WeakValueDictionary()

    def __new__(cls, *, varying=frozenset(), unreduced=frozenset(), reduced=frozenset()):
        if varying & unreduced:
            raise ValueError(
                "varying and unreduced cannot have common mesh axes. Got"
                f" varying={varying} and unreduced={unreduced}"
            )
        if varying & reduced:
            raise ValueError(
                "varying and reduced cannot have common mesh axes. Got"
                f" varying={varying} and reduced={reduced}"
            )
        key = (frozenset(varying), frozenset(unreduced), frozenset(reduced))
        obj = cls._interned.get(key)
        if obj is None:
            obj = object.__new__(cls)
            for name, axes in zip(cls.__slots__, key):
                object.__setattr__(obj, name, axes)
            cls._interned[key] = obj
        return obj

    def __setattr__(self, name, value):
        raise AttributeError(f"ManualAxisType is immutable: cannot set {name}")

    def __repr__(self):
        return f"ManualAxisType(varying={self.varying}, unreduced={self.unreduced}, reduced={self.reduced})"

    def __getnewargs_ex__(self):
        return (), {"varying": self.varying, "unreduced": self.unreduced, "reduced": self.reduced}

    def update(self, **axes) -> ManualAxisType:
        return ManualAxisType(
            **{"varying": self.varying, "unreduced": self.unreduced, "reduced": self.reduced, **axes}
        )

    def to_ct_mat(self) -> ManualAxisType:
        """The cotangent's: a reduced value's cotangent is unreduced and the other way round."""
        return self.update(unreduced=self.reduced, reduced=self.unreduced)

    @property
    def empty(self) -> bool:
        return self is ManualAxisType()

    @property
    def vur(self) -> frozenset:
        return self.varying | self.unreduced | self.reduced

    def invarying(self, mesh) -> frozenset:
        """The mesh's manual axes this value does not vary over (nor hold partial values along)."""
        manual = {n for n, t in zip(mesh.axis_names, mesh.axis_types) if t is AxisType.Manual}
        return frozenset(manual) - self.vur


@jax_class_path("jax._src.core.ShapedArray")
class ShardedShapedArray(_PlainType):
    """``jax.typeof`` of an array on an explicit mesh: its type names the mesh axes per dimension
    (``float32[8@batch,3]``)."""

    __slots__ = ("sharding",)

    def __init__(self, shape, dtype, weak_type, sharding, *, memory_space=DEVICE):
        super().__init__(shape, dtype, weak_type, memory_space=memory_space)
        self.sharding = sharding

    def str_short(self) -> str:
        return _type_str(self, self.sharding)

    def jaxpr_str(self) -> str:
        """As a jaxpr prints it: the short dtype (``f32[8@x,4]``)."""
        return _type_str(self, self.sharding, short=True)


def _type_str(aval, sharding, short: bool = False) -> str:
    dims = []
    explicit = set(sharding.mesh.explicit_axes) if isinstance(sharding, NamedSharding) else set()
    spec = sharding._normalized(len(aval.shape)) if isinstance(sharding, NamedSharding) else []
    for d, n in enumerate(aval.shape):
        axes = [a for a in (spec[d] if spec else ()) if a in explicit]
        dims.append(f"{n}@{axes[0] if len(axes) == 1 else '(' + ','.join(axes) + ')'}" if axes else str(n))
    dtype = dtype_short(aval.dtype) if short else aval.dtype.name
    return f"{dtype}{aval._space()}[{','.join(dims)}]{partial_str(sharding)}"


def partial_str(sharding) -> str:
    """``{U:X}``, ``{R:(X,Y)}``: the mesh axes (in the mesh's order) over which a value laid out by
    ``sharding`` is unreduced (a sum of the devices' pieces) or reduced, as JAX's types print them."""
    spec = getattr(sharding, "spec", None)
    if not isinstance(spec, PartitionSpec) or not (spec.unreduced or spec.reduced):
        return ""
    parts = []
    for tag, axes in (("U", spec.unreduced), ("R", spec.reduced)):
        named = [a for a in sharding.mesh.axis_names if a in axes]
        if named:
            parts.append(f"{tag}:{named[0] if len(named) == 1 else '(' + ','.join(named) + ')'}")
    return "{" + ", ".join(parts) + "}"


def context_sharding(ndim: int) -> NamedSharding | None:
    """JAX's ``aval.sharding`` of an ``ndim``-dimensional value whose type names no mesh axis, as
    transpose rules pass it on (``out_sharding=operand.aval.sharding``): replicated over the context
    mesh (inside ``shard_map``, its Manual mesh; under ``jax.set_mesh``, that mesh); None outside
    any (JAX's ``canonicalize_sharding`` drops an empty mesh). A mesh with Explicit axes gives None
    too: there a value's type has its own spec, which the engine's types do not carry.

    >>> with jax.sharding.use_abstract_mesh(AbstractMesh((4,), ("d",))):
    ...     context_sharding(1)
    NamedSharding(mesh=AbstractMesh('d': 4, axis_types=(Auto,)), spec=P(None,))
    """
    mesh = get_abstract_mesh()
    if mesh.empty or AxisType.Explicit in mesh.axis_types:
        return None
    return NamedSharding(mesh, PartitionSpec(*[None] * ndim))


def typed_layout(x) -> NamedSharding | None:
    """The sharding the type of ``x``, a value being staged, names on a context mesh with explicit
    axes (JAX's ``x.aval.sharding``, which ``full_like`` lays its result out by); else None."""
    s = staged_layout(x)
    if s is None:
        return None
    spec = s.spec
    return s if any(spec.partitions) or spec.unreduced or spec.reduced else None


# id of a tangent a custom JVP rule is given -> its primal (whose type the tangent has in JAX):
# while the rule runs, a value it makes like the tangent (``full_like(g, 0)``) is laid out as that.
_primal_of: dict[int, object] = {}


@contextlib.contextmanager
def tangents_typed_as(primals, tangents):
    """While a custom JVP rule runs: each of its ``tangents`` typed as its primal (``staged_layout``)."""
    if not get_abstract_mesh().explicit_axes:
        yield
        return
    ids = [id(t) for t in tangents]
    _primal_of.update(zip(ids, primals))
    try:
        yield
    finally:
        for i in ids:
            _primal_of.pop(i, None)


def staged_layout(x) -> NamedSharding | None:
    """The layout of ``x``, a value being staged, on a context mesh with explicit axes (replicated
    included): a differentiated value's is its primal's, as JAX's types say. None when no such
    mesh is in context, or the trace cannot tell."""
    if not get_abstract_mesh().explicit_axes:
        return None
    from .parallel.reshard import traced_sharding

    from .ad import JVPTracer

    x = _primal_of.get(id(x), x)
    while isinstance(x, JVPTracer):
        x = x.primal
    return traced_sharding(x)


def typeof(x):
    """The type of ``x``: shape, dtype, weak type and, on an explicit mesh, its sharding.

    >>> jax.typeof(jnp.ones(3))
    ShapedArray(float32[3])
    """
    from . import core

    from .jit import ShapeDtypeStruct

    if isinstance(x, ShapeDtypeStruct):  # (its type, laid out as its sharding says)
        sharding = x.sharding if getattr(getattr(x.sharding, "mesh", None), "explicit_axes", ()) else None
        return (
            ShardedShapedArray(x.shape, x.dtype, x.weak_type, sharding)
            if sharding
            else _PlainType(x.shape, x.dtype, x.weak_type)
        )
    if isinstance(x, str):
        raise TypeError(f"Argument '{x}' of type {type(x)} is not a valid JAX type")  # (JAX's words)
    if not core.is_array_like(x) and not hasattr(x, "__jax_array__") and not isinstance(x, core.ShapedArray):
        raise TypeError(f"Argument '{x}' of type '{type(x)}' is not a valid JAX type")
    aval = core.get_aval(x)
    if not isinstance(aval, core.ShapedArray):  # a mutable array ref: Ref{float32[3]}
        return aval
    vma = getattr(x, "vma", ()) or aval.vma
    if vma:  # (a value inside shard_map knows the mesh axes it varies over, in mesh order)
        return _PlainType(aval.shape, aval.dtype, aval.weak_type, vma, memory_space=aval.memory_space)
    sharding = getattr(x, "named_sharding", None)
    if sharding is None and isinstance(x, core.Tracer) and "engine.parallel.partition" in sys.modules:
        sharding = sys.modules["engine.parallel.partition"].traced_sharding(x)
    if sharding is None:
        # (a traced value: replicated over the context mesh, inside shard_map its Manual one)
        here = context_sharding(aval.ndim) if isinstance(x, core.Tracer) else None
        if here is None and isinstance(x, core.Tracer) and "engine.parallel.spmd" in sys.modules:
            from .parallel.value_mesh import traced_mesh  # (typed on a shard_map's mesh)

            mesh = traced_mesh(x)
            here = None if mesh is None else NamedSharding(mesh, PartitionSpec(*[None] * aval.ndim))
        replicated = here or NamedSharding(AbstractMesh((), ()), PartitionSpec(*[None] * aval.ndim))
        return ShardedShapedArray(
            aval.shape, aval.dtype, aval.weak_type, replicated, memory_space=aval.memory_space
        )
    mesh = sharding.mesh.abstract_mesh if isinstance(sharding.mesh, Mesh) else sharding.mesh
    current = get_abstract_mesh()
    if current.axis_names == mesh.axis_names and current.axis_sizes == mesh.axis_sizes:
        mesh = current  # (auto_axes / explicit_axes change the axis types)
    explicit = set(mesh.explicit_axes)
    spec = [spec_entry([a for a in axes if a in explicit]) for axes in sharding._normalized(aval.ndim)]
    held = sharding.spec
    return ShardedShapedArray(
        aval.shape,
        aval.dtype,
        aval.weak_type,
        NamedSharding(mesh, PartitionSpec(*spec, unreduced=held.unreduced, reduced=held.reduced)),
        memory_space=aval.memory_space,
    )


def check_mapped_axes(args, in_dims) -> None:
    """JAX's check that the dimensions a ``vmap`` maps away are split alike: their types name one
    layout (the batched dimension's), else a ValueError naming the two that differ."""
    if not get_abstract_mesh().explicit_axes and not any(
        getattr(x, "named_sharding", None) is not None for x in args
    ):
        return
    seen: list = []
    for x, d in zip(args, in_dims):
        if d is None:
            continue
        t = typeof(x)
        sharding = getattr(t, "sharding", None)
        spec = (
            spec_entry(sharding._normalized(len(t.shape))[d]) if isinstance(sharding, NamedSharding) else None
        )
        if seen and seen[0] != spec:
            raise ValueError(
                "Mapped away dimension of inputs passed to vmap should be sharded the same. Got "
                f"inconsistent axis specs: {seen[0]} vs {spec}"
            )
        seen[:] = [spec]


def type_sharding(x) -> NamedSharding | None:
    """JAX's ``typeof(x).sharding`` where it shows, on a context mesh with explicit axes (a value
    split over none of them is replicated over it); None elsewhere (JAX's canonicalize_sharding
    drops an empty mesh). What jnp's helpers lay an iota out by (``argsort``, ``one_hot``)."""
    mesh = get_abstract_mesh()
    if not mesh.explicit_axes:
        return None
    from .sharding import get_mesh

    from .core import Tracer

    s = staged_layout(x) if isinstance(x, Tracer) else getattr(typeof(x), "sharding", None)
    spec = s.spec if isinstance(s, NamedSharding) else PartitionSpec(*[None] * len(x.shape))
    devices = get_mesh()  # (the partitioner lays a result out over the devices)
    return NamedSharding(
        devices if devices is not None and devices.axis_names == mesh.axis_names else mesh, spec
    )


def check_divides(shape, layout) -> None:
    """JAX's refusal of a layout that splits a dimension into parts that do not divide it."""
    import math

    from .dims import is_constant_dim

    if not isinstance(layout, NamedSharding):
        return
    mesh = layout.mesh
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    for d, axes in enumerate(layout._normalized(len(shape))):
        parts = math.prod(sizes[a] for a in axes)
        if parts > 1 and is_constant_dim(shape[d]) and shape[d] % parts:
            shown = NamedSharding(getattr(mesh, "abstract_mesh", mesh), layout.spec)
            raise ValueError(
                f"Sharding spec {tuple(axes)} implies that array axis {d} is partitioned {parts} times, but "
                f"does not evenly divide the dimension size {shape[d]}. Got shape: {tuple(shape)} and "
                f"sharding {shown}"
            )
