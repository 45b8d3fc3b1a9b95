"""Functional edits and rearrangements of arrays: ``put``, ``place``, ``put_along_axis``, ``choose``,
``extract``, ``trim_zeros``, ``apply_over_axes``, bit packing, ``unwrap``, ``gradient``, ``lexsort``.

JAX arrays are immutable, so the numpy functions that write in place take ``inplace=False`` and
return the edited array (``inplace=True`` is refused, as JAX refuses it).
"""

from __future__ import annotations

import functools

import numpy as np

from .. import core, lax
from ..errors import ConcretizationTypeError
from ._creation import arange, array, indices
from ._index_tricks import compress, unravel_index
from ._promote import (
    as_operand,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    promote_dtypes,
    promote_dtypes_inexact,
)
from ._reductions import cumsum
from ._selection import clip, where
from ._pad import pad
from ._shape import broadcast_arrays, broadcast_to, concatenate, expand_dims, ravel, swapaxes, tile
from ._statistics import diff
from ._staged import staged_as_jit


def _not_inplace(name, inplace):
    if inplace:
        raise ValueError(
            f"jax.numpy.{name} cannot modify arrays in-place, because JAX arrays are immutable. "
            "Pass inplace=False to instead return an updated array."
        )


def _tile_to(x, n):
    """The vector ``x`` repeated or cut to length ``n``."""
    if x.size < n:
        x = tile(x, -(-n // x.size))
    return x[:n] if x.size > n else x


def put(a, ind, v, mode=None, *, inplace: bool = True):
    """``a`` with ``a.flat[ind] = v`` (``v`` repeated as needed); ``mode`` 'clip' or 'wrap' for
    out-of-range indices, which are otherwise dropped.

    >>> put(jnp.zeros(4), jnp.array([0, 2]), jnp.array([1.0, 2.0]), inplace=False)
    Array([1., 0., 2., 0.], dtype=float32)
    """
    _not_inplace("put", inplace)
    check_arraylike("put", a, ind, v)
    arr, ind = as_operand(a), ravel(as_operand(ind))
    vals = ravel(as_operand(v))
    if not arr.size or not ind.size or not vals.size:
        return arr
    vals = _tile_to(vals, ind.shape[0])
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        ind, scatter_mode = clip(ind, 0, arr.size - 1), "promise_in_bounds"
    elif mode == "wrap":
        ind, scatter_mode = ind % arr.size, "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
    return arr.at[unravel_index(ind, arr.shape)].set(vals, mode=scatter_mode)


def place(arr, mask, vals, *, inplace: bool = True):
    """``arr`` with the places where ``mask`` holds filled, in order, from ``vals`` (repeated).

    >>> place(jnp.zeros(4), jnp.array([True, False, True, True]), jnp.array([1.0, 2.0]), inplace=False)
    Array([1., 0., 2., 1.], dtype=float32)
    """
    check_arraylike("place", arr, mask, vals)
    data, mask, vals = as_operand(arr), as_operand(mask), ravel(as_operand(vals))
    _not_inplace("place", inplace)
    if data.size != mask.size:
        raise ValueError("place: arr and mask must be the same size")
    if not vals.size:
        raise ValueError("Cannot place values from an empty array")
    if not data.size:
        return data
    idx = where(ravel(mask), size=mask.size, fill_value=mask.size)[0]
    vals = _tile_to(vals, idx.shape[0])
    return ravel(data).at[idx].set(vals, mode="drop").reshape(data.shape)


def _along_axis_index(shape, idx, axis):
    """The sparse index grid of ``shape`` with ``idx`` in place of ``axis``' own."""
    out = list(indices(shape, sparse=True))
    out[axis] = idx
    return tuple(out)


@staged_as_jit(static_argnames=("axis", "inplace", "mode"))
def put_along_axis(arr, indices, values, axis, inplace: bool = True, *, mode=None):
    """``arr`` with ``values`` written at ``indices`` along ``axis`` (the inverse of
    ``take_along_axis``).

    >>> put_along_axis(jnp.zeros((2, 3)), jnp.array([[1], [2]]), 5.0, axis=1, inplace=False)
    Array([[0., 5., 0.],
           [0., 0., 5.]], dtype=float32)
    """
    _not_inplace("put_along_axis", inplace)
    check_arraylike("put_along_axis", arr, indices, values)
    arr, idx, values = as_operand(arr), as_operand(indices), as_operand(values)
    shape = arr.shape
    if axis is None:
        arr, axis_ = ravel(arr), 0
    else:
        axis_ = canonicalize_axes(axis, arr.ndim)[0]
    if arr.ndim != idx.ndim:
        raise ValueError(
            f"put_along_axis arguments 'arr' and 'indices' must have same ndim. Got arr.ndim={arr.ndim} "
            f"and indices.ndim={idx.ndim}."
        )
    try:
        values = broadcast_to(values, idx.shape)
    except ValueError:
        raise ValueError(
            "put_along_axis argument 'values' must be broadcastable to 'indices'. Got "
            f"values.shape={values.shape} and indices.shape={idx.shape}."
        ) from None
    out = arr.at[_along_axis_index(arr.shape, idx, axis_)].set(values, mode=mode)
    return out.reshape(shape) if axis is None else out


def choose(a, choices, out=None, mode: str = "raise"):
    """``choices[a[i]][i]`` for every position ``i`` (all broadcast together).

    >>> choose(jnp.array([0, 1, 0]), [jnp.array([1, 2, 3]), jnp.array([10, 20, 30])])
    Array([ 1, 20,  3], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    check_arraylike("choose", a, *choices)
    a, choices = as_operand(a), [as_operand(c) for c in choices]
    if a.dtype.kind not in "iu":
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        v = core.concrete_or_error(
            a,
            "The error occurred because jnp.choose was jit-compiled with mode='raise'. "
            "Use mode='wrap' or mode='clip' instead.",
        )
        if np.any((np.asarray(v) < 0) | (np.asarray(v) >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    a, *choices = broadcast_arrays(a, *choices)
    return array(choices)[(a,) + indices(a.shape, sparse=True)]


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of ``arr`` where ``condition`` holds, flattened (``size`` pads or truncates, for
    use under ``jit``).

    >>> extract(jnp.array([True, False, True]), jnp.array([1, 2, 3]))
    Array([1, 3], dtype=int32)
    """
    check_arraylike("extract", condition, arr, fill_value)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def trim_zeros(filt, trim: str = "fb", axis=None):
    """``filt`` without its leading ('f') and/or trailing ('b') zeros (concrete values only: the
    result's size depends on them).

    >>> trim_zeros(jnp.array([0, 0, 1, 2, 0]))
    Array([1, 2], dtype=int32)
    """
    check_arraylike("trim_zeros", filt)
    given, filt = filt, as_operand(filt)
    what = "Error arose in the `filt` argument of trim_zeros()"
    if core.staging_anywhere[0] and core._state.dynamic is not None:
        # Under jit / make_jaxpr JAX's jnp operations here are staged: its asarray makes a numpy
        # (or Python) filt a traced array, and a concrete Array's mask is traced, so neither is
        # concrete (JAX: ConcretizationTypeError, TracerBoolConversionError at ``mask.any()``)
        if not isinstance(given, core.Array):
            raise ConcretizationTypeError(filt, what)
        bool(filt.any())
    v = np.asarray(core.concrete_or_error(filt, what))
    axes = set(range(v.ndim)) if axis is None else set(canonicalize_axes(axis, v.ndim))
    trim = trim.lower()
    if not axes or ("f" not in trim and "b" not in trim):
        return filt

    def cut(ax):
        if ax not in axes:
            return slice(None)
        nonzero = v.any(axis=tuple(i for i in range(v.ndim) if i != ax))
        if not nonzero.any():
            return slice(0, 0)
        start = int(nonzero.argmax()) if "f" in trim else None
        stop = v.shape[ax] - int(nonzero[::-1].argmax()) if "b" in trim else None
        return slice(start, stop)

    return filt[tuple(cut(ax) for ax in range(v.ndim))]


def apply_over_axes(func, a, axes):
    """Apply ``func(a, axis)`` for each axis in turn, keeping reduced axes as length 1.

    >>> apply_over_axes(jnp.sum, jnp.ones((2, 3)), [0, 1])
    Array([[6.]], dtype=float32)
    """
    check_arraylike("apply_over_axes", a)
    a = as_operand(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim:
            a = b
        elif b.ndim == a.ndim - 1:
            a = expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


@staged_as_jit(static_argnames=("axis", "bitorder"))
def packbits(a, axis=None, bitorder: str = "big"):
    """Pack the truth of each element into the bits of uint8 values, eight per byte.

    >>> packbits(jnp.array([1, 0, 1, 1, 0, 0, 0, 0, 1]))
    Array([176, 128], dtype=uint8)
    """
    check_arraylike("packbits", a)
    arr = as_operand(a)
    if arr.dtype.kind not in "iub":
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    arr = lax.convert_element_type(lax.ne(arr, np.zeros((), arr.dtype)), np.uint8)  # (ne False for bools)
    bits = arange(8, dtype="uint8")
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    extra = arr.shape[-1] % 8
    if extra:
        arr = lax.pad(arr, np.uint8(0), (arr.ndim - 1) * [(0, 0, 0)] + [(0, 8 - extra, 0)])
    arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    bits = expand_dims(bits, tuple(range(arr.ndim - 1)))
    return swapaxes((arr << bits).sum(-1).astype("uint8"), axis, -1)


@staged_as_jit(static_argnames=("axis", "count", "bitorder"))
def unpackbits(a, axis=None, count=None, bitorder: str = "big"):
    """The bits of uint8 values, as a uint8 array of 0s and 1s eight times as long.

    >>> unpackbits(jnp.array([176], dtype=jnp.uint8))
    Array([1, 0, 1, 1, 0, 0, 0, 0], dtype=uint8)
    """
    check_arraylike("unpackbits", a)
    arr = as_operand(a)
    if arr.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = as_operand(np.uint8(1)) << arange(8, dtype="uint8")
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    out = ((arr[..., None] & expand_dims(bits, tuple(range(arr.ndim)))) > 0).astype("uint8")
    out = out.reshape(out.shape[:-2] + (-1,))
    if count is not None:
        if count > out.shape[-1]:
            out = pad(out, [(0, 0)] * (out.ndim - 1) + [(0, count - out.shape[-1])])
        else:
            out = out[..., :count]
    return swapaxes(out, axis, -1)


@staged_as_jit(static_argnames=("axis",))
def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """Undo jumps larger than ``discont`` (default ``period/2``) by adding multiples of ``period``.

    >>> unwrap(jnp.array([0.0, 3.0, 6.5]))
    Array([0.      , 3.      , 0.216815], dtype=float32)
    """
    check_arraylike("unwrap", p)
    p, period = promote_dtypes(as_operand(p), as_operand(period))
    if p.dtype.kind == "c":
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if p.shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if p.dtype.kind in "iu" else period / 2
    dd = diff(p, axis=axis)
    ddmod = (dd + interval) % period - interval
    ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correction = where(abs(dd) < discont, 0, ddmod - dd)
    first = lax.slice_in_dim(p, 0, 1, axis=axis)
    rest = lax.slice_in_dim(p, 1, None, axis=axis) + cumsum(correction, axis=axis)
    return concatenate((first, rest), axis=axis)


@staged_as_jit(static_argnames=("axis", "edge_order"))
def gradient(f, *varargs, axis=None, edge_order=None):
    """Second-order central differences inside, first-order at the edges (numpy's ``gradient``);
    ``varargs`` are scalar spacings or coordinate arrays per axis.

    >>> gradient(jnp.array([1.0, 2.0, 4.0, 7.0]))
    Array([1. , 1.5, 2.5, 3. ], dtype=float32)
    """
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    a, *spacing = promote_dtypes_inexact(as_operand(f), *(as_operand(v) for v in varargs))
    axes = (
        tuple(range(a.ndim))
        if axis is None
        else tuple(canonicalize_axis(i, a.ndim) for i in np.atleast_1d(axis))
    )
    if len(axes) == 0:
        return []
    if min(a.shape[ax] for ax in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient")
    if len(spacing) == 0:
        spacing = [1.0] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise TypeError("Invalid number of spacing arguments %d" % len(varargs))
    out = [_gradient_along(a, h, ax) for ax, h in zip(axes, spacing)]
    return out[0] if len(axes) == 1 else out


def _gradient_along(a, h, axis):
    cut = functools.partial(lax.slice_in_dim, a, axis=axis)
    upper, lower = cut(1, 2) - cut(0, 1), cut(-1, None) - cut(-2, -1)
    if np.ndim(h) == 0:
        inner = (cut(2, None) - cut(None, -2)) * 0.5 / h
        lower, upper = lower / h, upper / h  # (JAX divides the lower edge first)
    elif np.ndim(h) == 1:
        if len(h) != a.shape[axis]:
            raise ValueError(
                "Spacing arrays must have the same length as the dimension along which the gradient is calculated."
            )
        view = [1] * a.ndim
        view[axis] = len(h)
        hx = functools.partial(lax.slice_in_dim, h.reshape(view), axis=axis)
        upper = upper / (hx(1, 2) - hx(0, 1))
        lower = lower / (hx(-1, None) - hx(-2, -1))
        dx1, dx2 = hx(1, -1) - hx(0, -2), hx(2, None) - hx(1, -1)
        inner = (
            -dx2 / (dx1 * (dx1 + dx2)) * cut(0, -2)
            + (dx2 - dx1) / (dx1 * dx2) * cut(1, -1)
            + dx1 / (dx2 * (dx1 + dx2)) * cut(2, None)
        )
    else:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return concatenate((upper, inner, lower), axis=axis)


@staged_as_jit(static_argnames=("axis",))
def lexsort(keys, axis: int = -1):
    """The permutation sorting by the last key, ties broken by the one before, and so on.

    >>> lexsort([jnp.array([1, 0, 1]), jnp.array([0, 1, 0])])
    Array([0, 2, 1], dtype=int32)
    """
    keys = tuple(as_operand(k) for k in keys)  # (an array of keys iterates along its first axis)
    if len(keys) == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if len({k.shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    if keys[0].ndim == 0:
        return lax.full((), 0, core.default_dtype(int))
    axis = canonicalize_axes(axis, keys[0].ndim)[0]
    iota = lax.broadcasted_iota(core.default_dtype(int), keys[0].shape, axis)
    return lax.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


@staged_as_jit
def sort_complex(a):
    """``a`` sorted (by real part, then imaginary), as a complex array.

    >>> sort_complex(jnp.array([3.0, 1.0, 2.0]))
    Array([1.+0.j, 2.+0.j, 3.+0.j], dtype=complex64)
    """
    check_arraylike("sort_complex", a)
    a = lax.sort(as_operand(a))
    complex_dtype = np.result_type(a.dtype, np.complex64) if a.dtype.kind != "c" else a.dtype
    if not core.x64_enabled[0] and complex_dtype == np.complex128:
        complex_dtype = np.dtype(np.complex64)
    return lax.convert_element_type(a, complex_dtype)
