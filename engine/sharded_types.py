"""``jax.typeof``: abstract values whose printed types show shardings (``float32[8@X,4]``) and, inside
``shard_map``, the mesh axes a value varies over (``float32[3]{V:i}``)."""

from __future__ import annotations

import sys

from .core import DEVICE, ShapedArray
from .sharding import AbstractMesh, Mesh, NamedSharding, PartitionSpec, get_abstract_mesh


class _PlainType(ShapedArray):
    """A ``ShapedArray`` that prints as JAX's ``typeof`` does (``float32[3]``, ``~float32[]`` weak;
    inside ``shard_map`` a value that varies over mesh axes shows them: ``float32[3]{V:i}``)."""

    __slots__ = ("vma",)

    def __init__(self, shape, dtype, weak_type=False, vma: tuple = (), *, memory_space=DEVICE):
        super().__init__(shape, dtype, weak_type, memory_space=memory_space)
        self.vma = tuple(vma)

    def str_short(self) -> str:
        return f"{self.dtype.name}{self._space()}[{','.join(map(str, self.shape))}]{_vma_str(self.vma)}"

    @property
    def manual_axis_type(self):
        return ManualAxisType(varying=frozenset(self.vma))

    def __str__(self):
        return ("~" if self.weak_type else "") + self.str_short()

    def __repr__(self):
        return f"ShapedArray({self.str_short()}{', weak_type=True' if self.weak_type else ''})"


def _vma_str(vma) -> str:
    if not vma:
        return ""
    return "{V:" + (vma[0] if len(vma) == 1 else "(" + ",".join(vma) + ")") + "}"


class ManualAxisType:
    """Which manual mesh axes a value inside ``shard_map`` varies over (JAX's, ``varying`` only)."""

    def __init__(self, *, varying=frozenset()):
        self.varying = frozenset(varying)

    def __repr__(self):
        return f"ManualAxisType(varying={self.varying})"


class ShardedShapedArray(_PlainType):
    """``jax.typeof`` of an array on an explicit mesh: its type names the mesh axes per dimension
    (``float32[8@batch,3]``)."""

    __slots__ = ("sharding",)

    def __init__(self, shape, dtype, weak_type, sharding, *, memory_space=DEVICE):
        super().__init__(shape, dtype, weak_type, memory_space=memory_space)
        self.sharding = sharding

    def str_short(self) -> str:
        return _type_str(self, self.sharding)


def _type_str(aval, sharding) -> str:
    dims = []
    explicit = set(sharding.mesh.explicit_axes) if isinstance(sharding, NamedSharding) else set()
    spec = sharding._normalized(len(aval.shape)) if isinstance(sharding, NamedSharding) else []
    for d, n in enumerate(aval.shape):
        axes = [a for a in (spec[d] if spec else ()) if a in explicit]
        dims.append(f"{n}@{axes[0] if len(axes) == 1 else '(' + ','.join(axes) + ')'}" if axes else str(n))
    return f"{aval.dtype.name}{aval._space()}[{','.join(dims)}]"


def typeof(x):
    """The type of ``x``: shape, dtype, weak type and, on an explicit mesh, its sharding.

    >>> jax.typeof(jnp.ones(3))
    ShapedArray(float32[3])
    """
    from . import core

    aval = core.get_aval(x)
    if not isinstance(aval, core.ShapedArray):  # a mutable array ref: Ref{float32[3]}
        return aval
    vma = getattr(x, "vma", ())
    if vma:  # (a value inside shard_map knows the mesh axes it varies over, in mesh order)
        return _PlainType(aval.shape, aval.dtype, aval.weak_type, vma, memory_space=aval.memory_space)
    sharding = getattr(x, "named_sharding", None)
    if sharding is None and isinstance(x, core.Tracer) and "engine.parallel.partition" in sys.modules:
        sharding = sys.modules["engine.parallel.partition"].traced_sharding(x)
    if sharding is None:
        empty = NamedSharding(AbstractMesh((), ()), PartitionSpec(*[None] * aval.ndim))
        return ShardedShapedArray(
            aval.shape, aval.dtype, aval.weak_type, empty, memory_space=aval.memory_space
        )
    mesh = sharding.mesh.abstract_mesh if isinstance(sharding.mesh, Mesh) else sharding.mesh
    current = get_abstract_mesh()
    if current.axis_names == mesh.axis_names and current.axis_sizes == mesh.axis_sizes:
        mesh = current  # (auto_axes / explicit_axes change the axis types)
    explicit = set(mesh.explicit_axes)
    spec = [_type_entry([a for a in axes if a in explicit]) for axes in sharding._normalized(aval.ndim)]
    return ShardedShapedArray(
        aval.shape,
        aval.dtype,
        aval.weak_type,
        NamedSharding(mesh, PartitionSpec(*spec)),
        memory_space=aval.memory_space,
    )


def _type_entry(axes):
    return None if not axes else axes[0] if len(axes) == 1 else tuple(axes)
