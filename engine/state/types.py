"""Mutable array references: their abstract value (``AbstractRef``), the concrete ``Ref`` and
the static description of a NumPy-style index into one (``Indexer``).

A ``Ref`` holds either a host buffer it owns (a ref made eagerly: reads and writes act on the
buffer in place) or, for a ref made inside a non-staging transformation (``grad``, ``vmap``), the
traced value itself: its reads and writes are then ordinary functional indexing and ``.at[]``
updates of that value, so the transformation sees pure array operations (state discharged as the
program runs).
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Sequence

import numpy as np

from .. import core
from ..avals import AbstractValue
from ..array_repr import array_repr
from ..core import ShapedArray, Tracer, Value
from ..indexing import Slice
from ..pytree.registration import register_pytree_node
from ..pytree.treedef import PyTreeDef
from ..tree_util import tree_structure
from ..narrow_dtypes import kind as dtype_kind


class AbstractRef:
    """The type of a mutable array reference: ``Ref{f32[3]}`` in a jaxpr.

    >>> import engine as jax, engine.numpy as jnp
    >>> jax.typeof(jax.new_ref(jnp.zeros(3)))
    Ref{float32[3]}
    """

    __slots__ = ("inner_aval",)
    array_abstraction_level = 1

    def __init__(self, inner_aval: ShapedArray):
        self.inner_aval = inner_aval

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    weak_type = property(lambda self: self.inner_aval.weak_type)
    ndim = property(lambda self: self.inner_aval.ndim)
    size = property(lambda self: self.inner_aval.size)

    def update(self, shape: Any = None, dtype: Any = None, weak_type: bool | None = None) -> AbstractRef:
        return AbstractRef(self.inner_aval.update(shape, dtype, weak_type))

    def strip_weak_type(self) -> AbstractRef:
        return AbstractRef(self.inner_aval.strip_weak_type())

    def __eq__(self, other: object) -> bool:
        return type(other) is AbstractRef and other.inner_aval == self.inner_aval

    def __hash__(self) -> int:
        return hash(("Ref", self.inner_aval))

    def str_short(self) -> str:
        return f"Ref{{{self.inner_aval.str_short()}}}"

    def long_str(self) -> str:
        """As JAX's messages and ``typeof`` name it: ``Ref{float32[3]}``."""
        a = self.inner_aval
        return f"Ref{{{a.dtype.name}[{','.join(map(str, a.shape))}]}}"

    __repr__ = __str__ = long_str


def is_ref_aval(aval: object) -> bool:
    return type(aval) is AbstractRef


def is_ref(x: object) -> bool:
    """A ``Ref`` or a tracer of one."""
    return isinstance(x, Ref) or (isinstance(x, Tracer) and type(x.aval) is AbstractRef)


class Ref:
    """A mutable array: read with ``ref[idx]``, write with ``ref[idx] = x``.

    >>> import engine as jax, engine.numpy as jnp
    >>> r = jax.new_ref(jnp.zeros(3))
    >>> r[1] = 5.0
    >>> r
    Ref([0., 5., 0.], dtype=float32)
    """

    __slots__ = ("_buf", "_traced", "_inner", "_written", "level", "vmapped", "freed", "__weakref__")
    __array_priority__ = 100

    def __init__(self, value: Value, inner: ShapedArray, traced: bool = False):
        self._inner = inner
        self._written = False
        # A functional ref's facts (``engine.state.primitives``): the trace level it was made at
        # (its value may be a constant there), "batched"/"unbatched" when made inside a vmap (as
        # JAX's new_ref / empty_ref make them), and whether a discharged program freed it.
        self.level = core._state.stack[-1].level
        self.vmapped: str | None = None
        self.freed = False
        if traced or isinstance(value, Tracer):
            self._buf: np.ndarray | None = None
            self._traced: Value = value
        else:
            self._buf = np.array(core.to_numpy(value), dtype=inner.dtype, copy=True)
            self._traced = None

    @property
    def is_traced(self) -> bool:
        """True for a ref made inside ``grad``/``vmap``: its value is that transformation's tracer."""
        return self._buf is None

    @property
    def aval(self) -> AbstractRef:
        return AbstractRef(self._inner)

    shape = property(lambda self: self._inner.shape)
    dtype = property(lambda self: self._inner.dtype)
    ndim = property(lambda self: self._inner.ndim)
    size = property(lambda self: self._inner.size)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def value(self) -> Value:
        """The current value (an Array snapshot of the buffer, or the traced value)."""
        if self._buf is None:
            return self._traced
        return core.Array(self._buf.copy(), self._inner.weak_type)

    def __getitem__(self, idx: Any) -> Value:
        from .primitives import ref_get

        return ref_get(self, idx)

    def __setitem__(self, idx: Any, value: Value) -> None:
        from .primitives import ref_set

        ref_set(self, idx, value)

    def addupdate(self, x: Value, idx: Any = ()) -> None:
        """``ref[idx] += x`` as one ``addupdate``."""
        from .primitives import ref_addupdate

        ref_addupdate(self, idx, x)

    @property
    def at(self) -> Any:
        raise NotImplementedError("Ref.at is not implemented (as in JAX 0.10.2): index the ref directly")

    def unsafe_buffer_pointer(self) -> int:
        if self._buf is None:
            raise ValueError("a Ref made inside a transformation has no buffer")
        return int(self._buf.ctypes.data)

    def __repr__(self) -> str:
        if self._buf is None:
            return f"Ref(traced {self._traced!r})"
        v = self._buf
        # (laid out as JAX lays it out: as an Array's repr, then renamed)
        weak = ", weak_type=True" if self._inner.weak_type and not self._written else ""
        return "Ref(" + array_repr(v, f"dtype={v.dtype.name}{weak}")[len("Array(") :]

    __str__ = __repr__

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


# ---------------------------------------------------------------------------------------------
# Indexers. A NumPy-style index into a ref of a given shape becomes a static description per
# dimension (``Indexer.dims``) and the traced integer arrays among it (operands of the primitive):
#   ("slice", start, size, stride)   a static slice
#   ("int", i)                       a static integer (non-negative)
#   ("array",)                       the next operand: an integer scalar or array
#   ("dslice", size, stride)         a slice whose start is the next operand (a traced scalar:
#                                    ``ref[jax.ds(i, 2)]``), clamped into the ref as dynamic_slice's
# ``Indexer`` None means the whole ref (``ref[...]``), printed ``[...]`` as JAX prints it.
#
# The primitives' param is JAX's ``tree``: the pytree structure of the access's transforms, ``()``
# for the whole ref or ``(indexer,)``, whose leaves are the index operands after the ref (and the
# value). An ``Indexer`` is a pytree node with its dims as aux data and its index arrays as children,
# so ``tree_unflatten(tree, operands)`` gives the transforms back, as JAX's gives its NDIndexers
# (whose leaves also hold the static integers and slice starts, literal operands in JAX's
# equations; the engine keeps those in the dims).

Dim = tuple[Any, ...]


class Indexer:
    __slots__ = ("dims", "operands")

    def __init__(self, dims: Sequence[Dim], operands: Sequence[Any] = ()):
        self.dims = tuple(dims)
        self.operands = tuple(operands)  # (its index arrays, when unflattened from a ``tree``)

    def __eq__(self, other: object) -> bool:
        return type(other) is Indexer and other.dims == self.dims

    def __hash__(self) -> int:
        return hash(self.dims)

    def __repr__(self) -> str:
        return f"Indexer{self.dims}"

    def numpy_index(self, operands: Sequence[Any]) -> tuple[Any, ...]:
        """The index as numpy (or jnp) takes it, with ``operands`` for the array entries."""
        it = iter(operands)
        out: list[Any] = []
        for d in self.dims:
            if d[0] == "slice":
                _, start, size, stride = d
                out.append(slice(start, start + size * stride, stride) if size else slice(start, start))
            elif d[0] == "dslice":  # (its start a concrete integer here: see primitives._np_index)
                start = int(next(it))
                out.append(slice(start, start + d[1] * d[2], d[2]))
            elif d[0] == "int":
                out.append(d[1])
            else:
                out.append(next(it))
        return tuple(out)


register_pytree_node(Indexer, lambda ix: (ix.operands, ix.dims), lambda dims, ops: Indexer(dims, ops))
WHOLE = tree_structure(())  # the ``tree`` of an access to the whole ref


@functools.lru_cache(maxsize=4096)
def index_tree(indexer: Indexer | None) -> PyTreeDef:
    """The ``tree`` param of an access by ``indexer`` (None: the whole ref)."""
    if indexer is None:
        return WHOLE
    n = sum(d[0] in ("array", "dslice") for d in indexer.dims)
    return tree_structure((Indexer(indexer.dims, (0,) * n),))


@functools.lru_cache(maxsize=4096)
def tree_indexer(tree: PyTreeDef) -> Indexer | None:
    """The indexer of an access with ``tree`` (None: the whole ref)."""
    transforms = tree.children()
    if not transforms:
        return None
    (node,) = transforms
    return Indexer(node.node_data()[1])


def parse_index(idx: Any, shape: tuple[int, ...]) -> tuple[Indexer | None, list[Value]]:
    """``ref[idx]`` -> (static indexer or None for the whole ref, array operands)."""
    if idx is None or idx is Ellipsis or (type(idx) is tuple and not idx):
        return None, []
    if not isinstance(idx, tuple):
        idx = (idx,)
    if sum(i is Ellipsis for i in idx) > 1:
        raise ValueError("Only one ellipsis is supported.")
    if any(i is None for i in idx):
        raise TypeError("Refs cannot be indexed with None (np.newaxis): read the value first, ref[...]")
    if any(i is Ellipsis for i in idx):
        pos = next(k for k, i in enumerate(idx) if i is Ellipsis)
        idx = idx[:pos] + (slice(None),) * (len(shape) - len(idx) + 1) + idx[pos + 1 :]
    if len(idx) > len(shape):
        raise ValueError(f"`indices` must not be longer than `shape`: indices={idx}, shape={shape}")
    idx = idx + (slice(None),) * (len(shape) - len(idx))
    dims: list[Dim] = []
    operands: list[Value] = []
    for i, n in zip(idx, shape):
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step < 1:
                raise ValueError(f"slice must have a step >= 1 (found: {step})")
            size = max(0, (stop - start + step - 1) // step)
            dims.append(("slice", start, size, step))
        elif isinstance(i, Slice):
            if i.is_dynamic_size:
                raise NotImplementedError(
                    f"ref[jax.ds(start, size)] with a traced size ({i}): a ref's slices have static sizes"
                )
            if i.is_dynamic_start:
                dims.append(("dslice", operator.index(i.size), i.stride))
                operands.append(i.start)
                continue
            dims.append(("slice", operator.index(i.start), operator.index(i.size), i.stride))
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            k = int(i)
            if k >= n:
                raise ValueError(f"Out of bound indexer: idx={k}, dim={n}.")
            dims.append(("int", k + n if k < 0 else k))
        else:
            aval = core.get_aval(i)
            if dtype_kind(aval.dtype) not in "iu":
                raise TypeError(
                    f"Ref indices must be integers, slices or integer arrays, got {aval.str_short()}"
                )
            dims.append(("array",))
            operands.append(i)
    return Indexer(dims), operands


def indexed_aval(inner: ShapedArray, indexer: Indexer | None, operand_avals: Sequence[Any]) -> ShapedArray:
    """The type of ``ref[idx]``: numpy's advanced-indexing shape rule, as JAX's NDIndexer has it."""
    if indexer is None:
        return inner
    arrays = iter(operand_avals)
    int_shapes: list[tuple[int, ...]] = []
    is_int: list[bool] = []
    slice_sizes: list[int] = []
    for d in indexer.dims:
        if d[0] in ("slice", "dslice"):
            is_int.append(False)
            slice_sizes.append(d[2] if d[0] == "slice" else d[1])
            if d[0] == "dslice":
                next(arrays)  # (its start)
        else:
            is_int.append(True)
            int_shapes.append(() if d[0] == "int" else tuple(next(arrays).shape))
    if not any(is_int):
        return inner.update(shape=tuple(slice_sizes))
    try:
        bshape = tuple(np.broadcast_shapes(*int_shapes))
    except ValueError:
        raise ValueError(f"Cannot broadcast shapes for indexing: {int_shapes}") from None
    positions = [k for k, b in enumerate(is_int) if b]
    contiguous = positions == list(range(positions[0], positions[-1] + 1))
    if not contiguous:
        return inner.update(shape=bshape + tuple(slice_sizes))
    first = positions[0]
    before = sum(1 for k in range(first) if not is_int[k])
    return inner.update(shape=tuple(slice_sizes[:before]) + bshape + tuple(slice_sizes[before:]))


class RefAt:
    """``ref.at`` of a traced ref: ``ref.at[idx]`` is a ``TransformedRef``."""

    __slots__ = ("ref",)

    def __init__(self, ref: Any):
        self.ref = ref

    def __getitem__(self, idx: Any) -> TransformedRef:
        return TransformedRef(self.ref, idx)


class TransformedRef:
    """A traced ref seen through an index, ``ref.at[idx]`` (JAX's ``TransformedRef``), as Pallas's
    copies take their sources and destinations: reading or writing all of it is ``ref[idx]``. A view
    of a view, or an index into a view, is not composed here (NotImplementedError)."""

    def __init__(self, ref: Any, idx: Any):
        self.ref, self.idx = ref, _one_traced_start_as_indices(idx, ref.aval.shape)
        self.indexer, self.operands = parse_index(self.idx, ref.aval.shape)
        avals = [core.get_aval(o) for o in self.operands]
        self.inner_aval = indexed_aval(ref.aval.inner_aval, self.indexer, avals)

    shape = property(lambda self: self.inner_aval.shape)
    dtype = property(lambda self: self.inner_aval.dtype)
    ndim = property(lambda self: self.inner_aval.ndim)

    @property
    def at(self) -> Any:
        raise NotImplementedError("a view of a Ref view (ref.at[i].at[j]): index the ref once")

    def _whole(self, idx: Any) -> Any:
        if not (idx is Ellipsis or (type(idx) is tuple and not idx)):
            raise NotImplementedError("an index into a Ref view (ref.at[i][j]): index the ref once")
        return self.idx

    def __getitem__(self, idx: Any) -> Value:
        return self.ref[self._whole(idx)]

    def __setitem__(self, idx: Any, value: Value) -> None:
        self.ref[self._whole(idx)] = value

    def __repr__(self) -> str:
        return f"TransformedRef(ref={self.ref!r}, idx={self.idx!r})"


def _one_traced_start_as_indices(idx: Any, shape: tuple[int, ...]) -> Any:
    """A view's index with one ``ds(start, size)`` of traced start (what Pallas kernels hand their
    copies) as the integer array it selects, ``clamp(start, 0, n - size) + arange(size)``: the same
    elements a dynamic slice takes (its start clamped so the slice fits), which the engine's
    indexers, static slices and integer arrays, can say. Numpy keeps that array's dimension in place
    when the other array indices are scalars next to it (``ref.at[slot, ds(i, n)]``); otherwise the
    index stays as it is (and is refused)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    dynamic = [k for k, i in enumerate(items) if isinstance(i, Slice) and i.is_dynamic_start]
    arrays = [k for k, i in enumerate(items) if isinstance(i, (Tracer, np.ndarray, list))]
    if len(dynamic) != 1 or any(np.ndim(items[k]) for k in arrays):
        return idx
    k = dynamic[0]
    run = sorted([*arrays, k])
    if run != list(range(run[0], run[0] + len(run))):
        return idx
    s = items[k]
    if s.is_dynamic_size or s.stride != 1 or Ellipsis in items[:k]:
        return idx
    from .. import lax
    from ..numpy import arange

    start = lax.clamp(np.int32(0), lax.convert_element_type(s.start, np.int32), np.int32(shape[k] - s.size))
    return (*items[:k], start + arange(s.size, dtype=np.int32), *items[k + 1 :])


AbstractValue.register(AbstractRef)  # (jax.core.AbstractValue)
