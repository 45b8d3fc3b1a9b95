"""Parsing a numpy index against a shape (JAX's NDIndexer): ``None``, ``Ellipsis``, slices, ints,
bool and int arrays, each tagged with the operand axes it consumes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .. import core, dims, lax
from ..core import Array, Tracer
from ..errors import NonConcreteBooleanIndexError
from ..indexing import Slice
from ..narrow_dtypes import kind as dtype_kind


_INT32 = np.dtype("int32")


_NONE, _SLICE, _ELLIPSIS, _INTEGER, _BOOLEAN, _ARRAY = "none", "slice", "ellipsis", "int", "bool", "array"
_DYNAMIC_SLICE = "dynamic_slice"  # a ``jax.ds`` Slice: start (maybe traced) and static size


class _Parsed(NamedTuple):
    index: object
    typ: str
    axes: tuple  # the operand axes this entry consumes


def _is_int_scalar(i):
    return isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_))


def _index_type(i):
    if i is None:
        return _NONE
    if i is Ellipsis:
        return _ELLIPSIS
    if isinstance(i, slice):
        return _SLICE
    if isinstance(i, Slice):
        return _DYNAMIC_SLICE
    if _is_int_scalar(i):
        return _INTEGER
    if isinstance(i, (bool, np.bool_)):
        return _BOOLEAN
    if isinstance(i, (Tracer, Array, np.ndarray)):
        if i.dtype == np.bool_:
            return _BOOLEAN
        if dtype_kind(i.dtype) in "iu":
            return _ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {i.dtype.name}")
    if isinstance(i, str):
        raise TypeError(f"JAX does not support string indexing; got idx={i!r}")
    if isinstance(i, (float, complex, np.generic)):
        raise TypeError(
            f"Indexer must have integer or boolean type, got indexer with type {np.dtype(type(i)).name}"
        )
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer or boolean "
        f"arrays are valid indices. Got {i}"
    )


def _parse(idx, shape) -> list[_Parsed]:
    if isinstance(idx, list):  # (JAX's words: a tuple where an entry is itself an index, else an array)
        unpack = any(
            (isinstance(i, (np.ndarray, Array, Tracer)) and np.ndim(i) != 0)
            or isinstance(i, (Sequence, slice))
            or i is Ellipsis
            or i is None
            for i in idx
        )
        raise TypeError(
            "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
            f"`arr[{'tuple' if unpack else 'array'}(seq)]` instead of `arr[seq]`. See "
            "https://github.com/jax-ml/jax/issues/4564 for more information."
        )
    idx = idx if isinstance(idx, tuple) else (idx,)
    if any(hasattr(i, "__jax_array__") and not isinstance(i, Array) for i in idx):
        core.refuse_jax_array_protocol()
    idx = tuple(np.asarray(i) if isinstance(i, list) else i for i in idx)  # sequences inside a tuple
    types = [_index_type(i) for i in idx]
    consumed = [
        np.ndim(i) if t == _BOOLEAN else 0 if t in (_NONE, _ELLIPSIS) else 1 for i, t in zip(idx, types)
    ]
    ellipses = [k for k, t in enumerate(types) if t == _ELLIPSIS]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = sum(consumed)
    if total > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but {total} were indexed")
    if ellipses:
        consumed[ellipses[0]] = len(shape) - total
    out, dim = [], 0
    for i, t, n in zip(idx, types, consumed):
        out.append(_Parsed(i, t, tuple(range(dim, dim + n))))
        dim += n
    return out


def _expand_ellipses(indices, shape):
    out, consumed = [], 0
    for p in indices:
        consumed += len(p.axes)
        if p.typ == _ELLIPSIS:
            out.extend(_Parsed(slice(None), _SLICE, (a,)) for a in p.axes)
        else:
            out.append(p)
    out.extend(_Parsed(slice(None), _SLICE, (a,)) for a in range(consumed, len(shape)))
    return out


def _concrete(i):
    """A numpy value for a concrete index, or None for a traced one."""
    if isinstance(i, Tracer):
        v = i.concrete_value()
        return None if v is None else np.asarray(core.to_numpy(v) if not isinstance(v, np.ndarray) else v)
    return core.to_numpy(i) if isinstance(i, Array) else np.asarray(i)


def _expand_bool_indices(indices, shape):
    out = []
    for position, p in enumerate(indices):
        if p.typ != _BOOLEAN:
            out.append(p)
            continue
        v = _concrete(p.index)
        if v is None:
            raise NonConcreteBooleanIndexError(p.index)
        if v.ndim == 0:
            out.append(_Parsed(bool(v), _BOOLEAN, ()))
            continue
        expected = [shape[a] for a in p.axes]
        if not all(s1 in (0, s2) for s1, s2 in zip(v.shape, expected)):
            raise IndexError(
                f"boolean index did not match shape of indexed array in index {position}: "
                f"got {tuple(v.shape)}, expected {expected}"
            )
        out.extend(
            _Parsed(i.astype(_INT32), _ARRAY, (a,)) for i, a in zip(np.nonzero(v), p.axes)
        )  # (numpy, as JAX keeps them)
    return out


def _static_slice_part(p):
    if p is None:
        return None
    if isinstance(p, Tracer):
        v = p.concrete_value()
        if v is None:
            raise IndexError(
                "Array slice indices must have static start/stop/step to be used with numpy "
                "indexing syntax; use lax.dynamic_slice (or jnp.take) for traced offsets."
            )
        return int(np.asarray(core.to_numpy(v)))
    if isinstance(p, int) or dims.is_symbolic_dim(p):
        return p
    return int(p.__index__())


def _slice_indices(s: slice, size):
    parts = [_static_slice_part(p) for p in (s.start, s.stop, s.step)]
    if parts[2] == 0:
        raise ValueError("slice step cannot be zero")
    return dims.slice_indices(parts[0], parts[1], parts[2], size)


def _validate_slices(indices):
    for position, p in enumerate(indices):
        if p.typ == _SLICE:
            s = p.index
            if any(isinstance(v, Tracer) and v.concrete_value() is None for v in (s.start, s.stop, s.step)):
                raise IndexError(f"Slice entries must be static integers. Got {s} at position {position}")
            _slice_indices(s, 1)


def _parse_mode(mode):
    return lax.GatherScatterMode.from_any(mode)
