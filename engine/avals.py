"""Abstract values: what tracing knows about an array (``ShapedArray``: shape, dtype, weak type and
memory space), and the dtypes they may carry (numpy's, ``float0``, extended dtypes such as typed
PRNG keys). ``engine.core`` re-exports all of it."""

from __future__ import annotations

import abc
import enum
import functools
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
import numpy.typing as npt

from . import dims
from .class_paths import jax_class_path

if TYPE_CHECKING:
    from .core import Array

float0 = np.dtype([("float0", np.void, 0)])  # dtype of tangents of integer values


@functools.lru_cache(maxsize=None)  # printing a jaxpr asks once per variable
def dtype_short(dtype: DType | npt.DTypeLike) -> str:
    if isinstance(dtype, ExtendedDType):
        return dtype.name
    if dtype == float0:
        return "float0"
    # JAX's abbreviation: bf16, f8_e4m3fn, i4, u32, c64, bool
    name = np.dtype(dtype).name
    return name.replace("float", "f").replace("uint", "u").replace("int", "i").replace("complex", "c")


class ExtendedDType:
    """A dtype that is no numpy dtype (``jax.dtypes.extended``): typed PRNG keys' ``key<fry>``.

    Abstract values carry it; concrete values store it as the numpy dtype ``numpy_dtype`` (so
    numpy's structural operations move its elements), and ``to_user`` wraps such numpy arrays in
    their user-facing array type (see ``array_of``).
    """

    name = "extended"
    kind = "V"
    numpy_dtype: np.dtype
    to_user: Callable[[np.ndarray], Array]  # numpy storage -> the user-facing array


DType = np.dtype | ExtendedDType  # what an abstract value's dtype may be


# numpy storage dtype -> its extended dtype (registered by the module that defines it).
extended_dtypes: dict[np.dtype, ExtendedDType] = {}


def extended_dtype_of(dtype) -> ExtendedDType | None:
    """The extended dtype ``dtype`` is, or whose numpy storage it is (what eager rules see of a
    key array), or None."""
    if isinstance(dtype, ExtendedDType):
        return dtype
    return extended_dtypes.get(dtype) if getattr(dtype, "kind", None) == "V" else None


class MemorySpace(enum.Enum):
    """Where a value lives, part of its type as in JAX 0.10.2: ``Device`` memory, or ``Host`` memory
    (a sharding's ``pinned_host`` kind), printed ``f32<host>[4]``; ``Any``: Pallas' unplaced refs."""

    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"

    __str__ = __repr__


DEVICE = MemorySpace.Device


def mem_kind_to_space(kind: str | None) -> MemorySpace:
    """A sharding's memory kind as a type's memory space (JAX's: only ``pinned_host`` is ``Host``)."""
    return MemorySpace.Host if kind == "pinned_host" else DEVICE


def mem_space_to_kind(space: MemorySpace) -> str:
    return "pinned_host" if space is MemorySpace.Host else "device"


# Whether a shard_map body with checked varying axes is being traced or run (``ShapedArray.vma``
# then says which axes a value varies over), and lax/varying.py's hooks there, which
# ``Primitive.bind`` and ``abstract_eval`` call: (prim, args, params) -> args pvary'd alike, and
# (prim, avals, params, out) -> out typed.
vma_checking = [0]
vma_hooks: list = [None, None]


class PartialAxis(str):
    """A mesh axis in a ``vma`` over which the value is unreduced (``kind`` ``'U'``: each device
    holds a partial sum) or reduced (``'R'``: a copy whose cotangent is unreduced) rather than
    varying. It equals the axis's name, so the varying checks see a value that may differ per
    device: no ``pvary`` is inserted where it meets a varying one, none is transposed into a
    ``psum``, and a reduced input's cotangent stays each device's partial sum."""

    kind: str

    def __new__(cls, name: str, kind: str):
        out = str.__new__(cls, name)
        out.kind = kind
        return out

    def __reduce__(self):
        return (PartialAxis, (str(self), self.kind))


def axis_kind(axis) -> str:
    """``'V'`` (varying), ``'U'`` or ``'R'``: how a value relates to its copies along ``axis``."""
    return getattr(axis, "kind", "V")


def merged_axes(*vmas) -> dict:
    """The axes of ``vmas`` by name, each as the operands' agree: a partial state survives only
    where every operand naming the axis is in it (varying wins otherwise, as JAX's casts make it)."""
    out: dict = {}
    for vma in vmas:
        for a in vma:
            have = out.get(a)
            out[a] = a if have is None or axis_kind(have) == axis_kind(a) else str(a)
    return out


def vma_str(vma: tuple) -> str:
    """How JAX's types write the mesh axes a value varies over, or is unreduced or reduced over
    (``{V:i}``, ``{V:(i,j)}``, ``{U:i}``, ``{V:i, R:j}``)."""
    if not vma:
        return ""
    parts = []
    for kind in "VUR":
        axes = [str(a) for a in vma if axis_kind(a) == kind]
        if axes:
            parts.append(f"{kind}:" + (axes[0] if len(axes) == 1 else "(" + ",".join(axes) + ")"))
    return "{" + ", ".join(parts) + "}"


class ShapedArray:
    """The abstract value of an array: what tracing knows about it."""

    # vma: the mesh axes a value varies over inside a shard_map body whose varying axes are checked
    # (JAX's ``varying manual axes``, in mesh order; empty everywhere else)
    __slots__ = ("shape", "dtype", "weak_type", "memory_space", "vma")
    array_abstraction_level = 1

    def __init__(
        self,
        shape: Sequence[int],
        dtype: DType | npt.DTypeLike,
        weak_type: bool = False,
        *,
        memory_space: MemorySpace = DEVICE,
        vma: tuple = (),
    ):
        # Hot path: shapes from numpy are already tuples of ints, dtypes already np.dtype.
        self.shape: tuple[int, ...] = shape if type(shape) is tuple else tuple(map(dims.as_dim, shape))
        if not isinstance(dtype, (np.dtype, ExtendedDType)):  # (numpy's dtypes are subclasses of np.dtype)
            dtype = np.dtype(dtype)
        self.dtype: DType = dtype
        self.weak_type = weak_type
        self.memory_space = memory_space
        self.vma = vma

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return dims.dim_product(self.shape)  # type: ignore[no-any-return]  # (symbolic: an expression)

    def update(
        self,
        shape: Sequence[int] | None = None,
        dtype: DType | npt.DTypeLike | None = None,
        weak_type: bool | None = None,
        memory_space: MemorySpace | None = None,
        vma: tuple | None = None,
    ) -> "ShapedArray":
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
            memory_space=self.memory_space if memory_space is None else memory_space,
            vma=self.vma if vma is None else vma,
        )

    def strip_weak_type(self) -> "ShapedArray":
        return self.update(weak_type=False) if self.weak_type else self

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
            and self.memory_space is other.memory_space
            and self.vma == other.vma
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type, self.memory_space, self.vma))

    def _space(self) -> str:  # JAX's annotation of a type outside device memory: ``<host>``
        return "" if self.memory_space is DEVICE else f"<{self.memory_space.name.lower()}>"

    def str_short(self) -> str:
        return f"{dtype_short(self.dtype)}{self._space()}[{','.join(map(str, self.shape))}]"

    def __repr__(self) -> str:  # JAX's: full dtype names (``ShapedArray(int32[4])``)
        name = "float0" if self.dtype == float0 else getattr(self.dtype, "name", str(self.dtype))
        weak = ", weak_type=True" if self.weak_type else ""
        return (
            f"ShapedArray({name}{self._space()}[{','.join(map(str, self.shape))}]{vma_str(self.vma)}{weak})"
        )

    def __str__(self) -> str:  # JAX's: ``~float32[2,3]`` (``~``: a weak type)
        name = "float0" if self.dtype == float0 else getattr(self.dtype, "name", str(self.dtype))
        return f"{'~' if self.weak_type else ''}{name}{self._space()}[{','.join(map(str, self.shape))}]{vma_str(self.vma)}"


def raise_to_shaped(aval: ShapedArray, weak_type: bool | None = None) -> ShapedArray:
    return aval if weak_type is None else aval.update(weak_type=weak_type)


@jax_class_path("jax._src.core.AbstractValue")
class AbstractValue(abc.ABC):  # noqa: B024 (an interface with no methods of its own: isinstance only)
    """``jax.core.AbstractValue``: what every abstract value is (``ShapedArray``, a ref's and a
    token's types register as ones)."""


AbstractValue.register(ShapedArray)
