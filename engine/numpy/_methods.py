"""The operators and methods of ``Array`` and of every ``Tracer``: ``x + y``, ``x[i]``, ``x.at[i].set(v)``,
``x.sum()``, ``x.T`` and the rest, installed once when ``engine.numpy`` is imported.

``Array``'s arithmetic operators are the jnp functions themselves, whose first step is a numpy fast
path for concrete operands when nothing is being traced (eager ``x + x`` costs about one numpy
call); everything else goes through lax so it can be traced, differentiated and batched.
"""

from __future__ import annotations

import numpy as np

from .. import core, dlpack, transfers
from ..core import DEVICE, Array, Tracer
from ..errors import ConcretizationTypeError, _error_repr, origin_msg
from ..state.types import AbstractRef
from . import (
    _bit_views,
    _casting,
    _complex_parts,
    _contract,
    _creation,
    _diagonal,
    _index_update,
    _index_tricks,
    _indexing,
    _logic,
    _reductions,
    _searching,
    _selection,
    _shape,
    _take,
    _ufuncs,
)

_state = core._state
_staging = core.staging_anywhere
_new = object.__new__
_BASIC = (int, slice, type(None), type(Ellipsis))


_BINARY = {
    "add": _ufuncs.add,
    "sub": _ufuncs.subtract,
    "mul": _ufuncs.multiply,
    "truediv": _ufuncs.true_divide,
    "floordiv": _ufuncs.floor_divide,
    "mod": _ufuncs.remainder,
    "pow": _ufuncs.power,
    "matmul": _contract.matmul,
    "and": _logic.bitwise_and,
    "or": _logic.bitwise_or,
    "xor": _logic.bitwise_xor,
    "lshift": _logic.left_shift,
    "rshift": _logic.right_shift,
    "divmod": _ufuncs.divmod,
}
_COMPARE = {
    "eq": _logic.equal,
    "ne": _logic.not_equal,
    "lt": _logic.less,
    "le": _logic.less_equal,
    "gt": _logic.greater,
    "ge": _logic.greater_equal,
}


def _array_getitem(self, idx):
    # Eager basic indexing of a concrete array is exactly numpy's, so skip the lax route when
    # nothing is traced (an out-of-bounds int, which JAX clamps, takes the lax route).
    # (an array on a mesh takes the lax route too: its result is laid out there, as JAX's is)
    if _state.dynamic is None and not transfers.active[0] and not (self.on_mesh or self.on_one_device_mesh):
        t = type(idx)
        if t is int or t is slice or (t is tuple and builtins_all(type(i) in _BASIC for i in idx)):
            try:
                v = self._value[idx]
            except IndexError:
                return _indexing.rewriting_take(self, idx)
            return Array(v if type(v) is np.ndarray else np.asarray(v), self.weak_type)
    return _indexing.rewriting_take(self, idx)


def builtins_all(it):
    for x in it:
        if not x:
            return False
    return True


def _tracer_getitem(self, idx):
    if type(self.aval) is AbstractRef:  # a ref under jit or vmap
        from ..state import ref_get

        return ref_get(self, idx)
    return _indexing.rewriting_take(self, idx)


def _tracer_addupdate(self, x, idx=()):
    if type(self.aval) is not AbstractRef:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'addupdate'")
    from ..state import ref_addupdate

    ref_addupdate(self, idx, x)


def _tracer_at(self):
    if type(self.aval) is AbstractRef:  # a traced ref viewed through an index (Pallas's DMAs take these)
        from ..state.types import RefAt

        return RefAt(self)
    return _index_update._IndexUpdateHelper(self)


def _tracer_setitem(self, idx, value):
    if type(self.aval) is AbstractRef:
        from ..state import ref_set

        return ref_set(self, idx, value)
    _array_setitem(self, idx, value)


def _array_setitem(self, idx, value):
    raise TypeError(
        "JAX arrays are immutable and do not support in-place item assignment. Instead of "
        "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
        "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html"
    )


def _reshape(self, *args, order="C", out_sharding=None):
    shape = args[0] if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else args
    return _shape.reshape(self, shape, order, out_sharding=out_sharding)


def _transpose(self, *args):
    axes = args[0] if len(args) == 1 and not isinstance(args[0], (int, np.integer)) else (args or None)
    return _shape.transpose(self, axes)


def _astype(self, dtype, copy=False, device=None):
    return _creation.asarray(self) if dtype is None else _casting.astype(self, dtype)


def _tracer_item(self, *args):
    v = self.concrete_value()
    if v is None:
        raise ConcretizationTypeError(self, "This occurred in the item() method of jax.Array")
    return np.asarray(core.to_numpy(v) if not isinstance(v, np.ndarray) else v).item(*args)


def _tracer_tolist(self):
    v = self.concrete_value()
    if v is None:
        # (JAX says where the value came from twice: in this context, and after it)
        raise ConcretizationTypeError(
            self, f"The tolist() method was called on {_error_repr(self)}.{origin_msg(self)}"
        )
    return np.asarray(core.to_numpy(v) if not isinstance(v, np.ndarray) else v).tolist()


def _squeeze(self, axis=None):
    return _shape.squeeze(self, axis)


def _clip(self, min=None, max=None):
    return _selection.clip(self, min=min, max=max)  # (by keyword, as JAX's method)


def _is_operand(other):
    t = type(other)
    return (
        t is Array
        or t in (int, float, bool, complex)
        or isinstance(other, (Array, Tracer, np.ndarray, np.generic))
    )


def _coerce(other):
    """The operand a dunder can use, or None, for Python's NotImplemented."""
    if _is_operand(other):
        return other
    if getattr(other, "_is_dim_expr", False):  # a symbolic dimension: its value
        return other.dimension_as_value()
    if hasattr(other, "__jax_array__"):
        return other.__jax_array__()
    return None


def _operator(f, reflected: bool, cls_is_array: bool = False):
    """A binary dunder for ``f``: the numpy fast path first, Python's NotImplemented for operands
    that are not arrays, else the general (traceable) path."""
    fast = getattr(f, "_fast", None)
    general = getattr(f, "_general", f)

    def op(self, other):
        if fast is not None:
            out = fast(other, self) if reflected else fast(self, other)
            if out is not None:
                return out
        other = _coerce(other)
        if other is None:
            return NotImplemented
        return general(other, self) if reflected else general(self, other)

    if fast is None or reflected or not cls_is_array:
        return op
    np_fn, kinds, slow = f._np_fn, f._kinds, op

    def array_op(self, other):
        # The eager hot path (two concrete arrays of one dtype), inlined: numpy does the work.
        # (an array in host memory takes the general path: JAX's memory-space rule checks it; so
        # does one on a mesh: its result is laid out there)
        if (
            type(other) is Array
            and not _staging[0]
            and (
                type(self) is Array
                or (self.aval.memory_space is DEVICE and not (self.on_mesh or self.on_one_device_mesh))
            )
        ):
            a, b = self._value, other._value
            d = a.dtype
            # (numpy's kind: bfloat16 and most ml_dtypes types ('V') take the general path)
            if (d is b.dtype or d == b.dtype) and d.kind in kinds:
                try:
                    r = np_fn(a, b)
                except ValueError:  # shapes that do not broadcast: the general path explains
                    return general(self, other)
                out = _new(Array)
                out._value = r if type(r) is np.ndarray else np.asarray(r)
                out.weak_type = self.weak_type and other.weak_type  # (comparisons too, as in JAX)
                out._aval = None
                out.held = True  # (made while nothing stages: a trace closing over it holds a constvar)
                return out
        return slow(self, other)

    return array_op


def _array_namespace(self, *, api_version: str | None = None):
    """The Python array API namespace of an array: ``jax.numpy`` (standard version 2024.12)."""
    if api_version is not None and api_version != "2024.12":
        raise ValueError(f"{api_version=!r} is not available; available versions are: ['2024.12']")
    import engine.numpy

    return engine.numpy


def _no_flat(self):
    raise NotImplementedError(
        "JAX Arrays do not implement the arr.flat property: consider arr.flatten() instead."
    )


def _install(cls):
    for name, f in _BINARY.items():
        setattr(cls, f"__{name}__", _operator(f, False, cls is Array))
        setattr(cls, f"__r{name}__", _operator(f, True))
    for name, f in _COMPARE.items():
        setattr(cls, f"__{name}__", _operator(f, False, cls is Array))
    cls.__neg__ = _ufuncs.negative
    cls.__pos__ = _ufuncs.positive
    cls.__abs__ = _ufuncs.absolute
    cls.__invert__ = _logic.bitwise_not
    cls.__round__ = lambda self, ndigits=None: _ufuncs.round(self, ndigits or 0)
    cls.__getitem__ = _array_getitem if cls is Array else _tracer_getitem
    # (no __delitem__: ``del x[i]`` is then an AttributeError, as on JAX's arrays)
    cls.__setitem__ = _array_setitem if cls is Array else _tracer_setitem
    if cls is not Array:
        cls.addupdate = _tracer_addupdate  # (refs under jit/vmap: ref.addupdate(x, idx))
    cls.at = property(_index_update._IndexUpdateHelper if cls is Array else _tracer_at)
    cls.__array_namespace__ = _array_namespace
    if cls is Array:
        cls.__dlpack__, cls.__dlpack_device__ = dlpack.array_dlpack, dlpack.array_dlpack_device
    cls.T = property(lambda self: _shape.transpose(self))
    cls.mT = property(_shape.matrix_transpose)
    cls.real = property(_complex_parts.real)
    cls.imag = property(_complex_parts.imag)
    cls.reshape = _reshape
    cls.transpose = _transpose
    cls.astype = _astype
    cls.flatten = cls.ravel = lambda self, order="C": _shape.ravel(self, order)
    cls.squeeze = _squeeze
    cls.swapaxes = _shape.swapaxes
    cls.clip = _clip
    cls.round = lambda self, decimals=0, out=None: _ufuncs.round(self, decimals)
    cls.conj = cls.conjugate = _complex_parts.conjugate
    cls.view = _bit_views.view
    cls.byteswap = _bit_views.byteswap
    cls.dot = lambda self, b, **kw: _contract.dot(self, b, **kw)
    cls.take = lambda self, indices, axis=None, **kw: _take.take(self, indices, axis, **kw)
    cls.repeat = lambda self, repeats, axis=None, **kw: _shape.repeat(self, repeats, axis, **kw)
    cls.sort = lambda self, axis=-1, **kw: _searching.sort(self, axis, **kw)
    cls.argsort = lambda self, axis=-1, **kw: _searching.argsort(self, axis, **kw)
    cls.searchsorted = lambda self, v, side="left", sorter=None, *, method="scan": _searching.searchsorted(
        self, v, side, sorter, method=method
    )
    cls.flat = property(_no_flat)
    cls.nonzero = lambda self, **kw: _searching.nonzero(self, **kw)
    cls.compress = lambda self, condition, axis=None, **kw: _index_tricks.compress(
        condition, self, axis, **kw
    )
    cls.diagonal = lambda self, offset=0, axis1=0, axis2=1: _diagonal.diagonal(self, offset, axis1, axis2)
    cls.trace = lambda self, offset=0, axis1=0, axis2=1, dtype=None: _diagonal.trace(
        self, offset, axis1, axis2, dtype
    )
    for name in (
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "argmax",
        "argmin",
        "std",
        "var",
        "any",
        "all",
        "ptp",
    ):
        setattr(cls, name, getattr(_reductions, name))
    # (JAX's methods pass every keyword on, so its jit caches ``x.cumsum()`` apart from ``cumsum(x)``:
    # two separately traced jaxprs, which print inline rather than shared)
    cls.cumsum = lambda self, axis=None, dtype=None, out=None: _reductions.cumsum(
        self, axis=axis, dtype=dtype, out=out
    )
    cls.cumprod = lambda self, axis=None, dtype=None, out=None: _reductions.cumprod(
        self, axis=axis, dtype=dtype, out=out
    )
    if cls is Tracer:
        cls.item = _tracer_item
        cls.tolist = _tracer_tolist
        cls.copy = lambda self: self
        cls.__array_priority__ = 1000


_installed = False


def install_array_methods():
    """Give ``Array`` and ``Tracer`` their numpy-style operators and methods (idempotent)."""
    global _installed
    if _installed:
        return
    _install(Array)
    _install(Tracer)
    _installed = True
