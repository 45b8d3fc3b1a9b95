"""Shape manipulation: reshape, transpose, broadcasting, joining and splitting, tiling, flipping, padding."""

from __future__ import annotations

import builtins
import functools

import numpy as np

from .. import core, dims, lax
from ..core import Array, Tracer
from ..errors import invalid_shape_error
from ._promote import (
    as_operand,
    broadcast_shapes,
    broadcast_to_shape,
    promote_shapes,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    check_axes_index,
    concrete_int,
    concrete_shape,
    index_tuple,
    convert,
    promote_dtypes,
    shape_of,
)
from ..sharded_types import typeof
from ..sharding import P, auto_axes, get_abstract_mesh, reshard
from ._staged import jitted_inline, staged_as_jit


def _resolve_shape(newshape, given, old_shape: tuple, size: int) -> tuple:
    """``newshape`` with its ``-1`` worked out; the errors name the shape as ``given``, as JAX's."""
    shape = list(newshape)
    unknown = [i for i, d in enumerate(shape) if type(d) is int and d == -1]
    if len(unknown) > 1:
        raise TypeError(f"can only specify one unknown axis size with a `-1` value, got {given}")
    was = f"cannot reshape array of shape {old_shape} (size {size}) into shape {given}"
    if unknown:
        known = dims.dim_product([d for i, d in enumerate(shape) if i != unknown[0]])
        if known == 0:  # (JAX's size % known: its ZeroDivisionError)
            raise ZeroDivisionError("integer modulo by zero")
        if size % known != 0:
            raise TypeError(
                f"{was} because the product of specified axis sizes ({known}) does not evenly divide {size}"
            )
        shape[unknown[0]] = size // known
    if dims.dim_product(shape) != size:
        raise TypeError(f"{was} (size {dims.dim_product(shape)})")
    return tuple(shape)


def reshape(a, shape=None, order: str = "C", *, newshape=None, copy=None, out_sharding=None):
    """Reshape (row-major); one dimension may be -1. A numpy array (or scalar) is reshaped by its own
    method, as JAX forwards it there: the result is a numpy array, and ``order='A'`` is numpy's.

    >>> jnp.reshape(jnp.arange(6), (2, -1)).shape
    (2, 3)
    """
    check_arraylike("reshape", a)
    shape = newshape if shape is None else shape
    if out_sharding is None and isinstance(a, (np.ndarray, np.generic)):
        return a.reshape(shape, order=order)
    return _reshape(a, shape, order, out_sharding)


def _reshape(a, shape, order: str, out_sharding=None):
    a = as_operand(a)
    # (a single dimension is JAX's one-element list: its errors print ``[JitTracer(int32[])]``)
    one = isinstance(shape, (int, np.integer)) or getattr(shape, "ndim", None) == 0
    new = _resolve_shape(concrete_shape([shape] if one else shape), shape, a.shape, a.size)
    if order == "F":  # (as JAX: one reshape reading the axes reversed, then the result transposed)
        out = transpose(lax.reshape(a, new[::-1], tuple(range(a.ndim))[::-1]))
        return out if out_sharding is None else reshard(out, out_sharding)
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    if order != "C":
        raise ValueError(f"Unexpected value for 'order' argument: {order}.")
    return lax.reshape(a, new, out_sharding=out_sharding)


def ravel(a, order: str = "C", *, out_sharding=None):
    a = as_operand(a)
    return reshape(a, (a.size,), order, out_sharding=out_sharding)


def transpose(a, axes=None):
    """Permute axes (reverse them when ``axes`` is None).

    >>> jnp.transpose(jnp.ones((2, 3))).shape
    (3, 2)
    """
    check_arraylike("transpose", a)
    a = as_operand(a)
    if axes is None:
        axes = tuple(range(a.ndim))[::-1]
    # (lax.transpose refuses what is not a permutation of a's dimensions: JAX's TypeError)
    return lax.transpose(a, tuple(canonicalize_axis(x, a.ndim) for x in axes))


def permute_dims(a, /, axes):
    return transpose(a, axes)


def matrix_transpose(x, /):
    x = as_operand(x)
    if x.ndim < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; got ndim={x.ndim}")
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return lax.transpose(x, perm)


def swapaxes(a, axis1: int, axis2: int):
    a = as_operand(a)
    perm = np.arange(a.ndim)  # (numpy's IndexError for an axis out of range, as JAX's)
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, list(perm))


def moveaxis(a, source, destination):
    """Move axes to new positions, keeping the order of the others.

    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    a = as_operand(a)
    src = [canonicalize_axis(s, a.ndim) for s in index_tuple(source)]
    dst = [canonicalize_axis(d, a.ndim) for d in index_tuple(destination)]
    if len(src) != len(dst):
        raise ValueError("source and destination must have the same number of elements")
    perm = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


def squeeze(a, axis=None):
    """Remove size-1 axes (all of them, or those in ``axis``, which must have size 1)."""
    a = as_operand(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(a.shape) if d == 1)
    else:
        axes = canonicalize_axes(axis, a.ndim)
        for i in axes:
            if a.shape[i] != 1:
                raise ValueError(
                    f"cannot select an axis to squeeze out which has size not equal to one, "
                    f"got shape={a.shape} and dimensions={axes}"
                )
    return lax.squeeze(a, axes) if axes else a


def expand_dims(a, axis):
    """Insert size-1 axes at the positions ``axis`` of the result.

    >>> jnp.expand_dims(jnp.ones(3), 0).shape
    (1, 3)
    """
    a = as_operand(a)
    axes = index_tuple(axis)
    out_ndim = a.ndim + len(axes)
    axes = sorted(canonicalize_axis(x, out_ndim) for x in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in expand_dims: {axis}")
    return lax.expand_dims(a, axes)  # a broadcast_in_dim, as in JAX


def broadcast_to(array, shape, *, out_sharding=None):
    """Broadcast ``array`` to ``shape`` with numpy's rules."""
    check_arraylike("broadcast_to", array)
    return broadcast_to_shape(array, concrete_shape(shape), out_sharding)


def broadcast_arrays(*args):
    """The arguments broadcast to their common shape (on an explicit mesh, their common layout).

    >>> [a.shape for a in jnp.broadcast_arrays(jnp.ones(3), 1.0)]
    [(3,), (3,)]
    """
    return promote_shapes(*args)


def broadcast_shapes_(*shapes):
    return broadcast_shapes(*[tuple(s) if not isinstance(s, int) else (s,) for s in shapes])


def _with_ndmin(a, n: int):
    """``a`` with leading size-1 axes up to ``n`` dimensions (JAX's ``array(a, ndmin=n)``)."""
    a = as_operand(a)
    return a if a.ndim >= n else lax.expand_dims(a, tuple(range(n - a.ndim)))


# The atleast functions are jits in JAX (named atleast_1d, ...): staged, each shows as one.
@staged_as_jit
def atleast_1d(*arys):
    out = [_with_ndmin(a, 1) for a in arys]
    return out[0] if len(out) == 1 else out


@staged_as_jit
def atleast_2d(*arys):
    out = [_with_ndmin(a, 2) for a in arys]
    return out[0] if len(out) == 1 else out


@staged_as_jit
def atleast_3d(*arys):
    check_arraylike("atleast_3d", *arys)
    if len(arys) != 1:  # (as JAX's: each array by a nested atleast_3d of its own)
        return [atleast_3d(a) for a in arys]
    a = as_operand(arys[0])
    if a.ndim < 3:  # a vector becomes (1, n, 1), a matrix (m, n, 1)
        a = lax.expand_dims(a, {0: (0, 1, 2), 1: (0, 2), 2: (2,)}[a.ndim])
    return a


# --- joining ---------------------------------------------------------------------------------


def concatenate(arrays, axis: int | None = 0, dtype=None):
    """Join arrays along an existing axis (flattening them first when ``axis`` is None).

    >>> jnp.concatenate([jnp.zeros(2), jnp.ones(1)])
    Array([0., 0., 1.], dtype=float32)
    """
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        return _concatenate_array(arrays, axis, dtype)
    check_arraylike("concatenate", *arrays)
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], 0, dtype)
    if dtype is None:
        arrays = promote_dtypes(*arrays)
    else:
        from ._creation import asarray

        arrays = [asarray(a, dtype=dtype) for a in arrays]
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = canonicalize_axis(axis, nd)  # (shapes that do not fit: lax.concatenate's TypeError, as JAX's)
    if len(arrays) == 1:
        return arrays[0]
    return lax.concatenate(arrays, ax)


def _concatenate_array(arr, axis, dtype):
    """The sub-arrays of ``arr`` joined along ``axis``: one reshape that moves its first axis next
    to that one (JAX's fast path for an array argument)."""
    from ._creation import asarray

    arr = asarray(arr, dtype=dtype)
    if arr.ndim == 0 or arr.shape[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return lax.reshape(arr, (arr.size,))
    if arr.ndim == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, arr.ndim - 1)
    shape = arr.shape[1 : axis + 1] + (arr.shape[0] * arr.shape[axis + 1],) + arr.shape[axis + 2 :]
    return lax.reshape(arr, shape, [*range(1, axis + 1), 0, *range(axis + 1, arr.ndim)])


concat = concatenate


def stack(arrays, axis: int = 0, out=None, dtype=None):
    """Join arrays along a new axis.

    >>> jnp.stack([jnp.zeros(2), jnp.ones(2)]).shape
    (2, 2)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    from_array = isinstance(arrays, (Array, Tracer, np.ndarray))
    if from_array:
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    check_arraylike("stack", *arrays)
    ax = canonicalize_axis(axis, len(shape_of(arrays[0])) + 1)  # (the shapes: lax's stack rule checks them)
    if from_array:
        return concatenate([expand_dims(a, ax) for a in arrays], ax, dtype)
    arrays = promote_dtypes(*arrays)
    if dtype is not None:
        d = core.canonical_dtype(np.dtype(dtype) if not hasattr(dtype, "dtype") else dtype.dtype)
        arrays = [convert(a, d) for a in arrays]
    return lax.stack(arrays, ax)  # one stack equation, as JAX


def _each_at_least(atleast, tup):
    """``atleast`` of each array of a sequence, one jit each (as JAX's stacking functions call it);
    an array's rows together."""
    if isinstance(tup, (list, tuple)):
        return [atleast(m) for m in tup]
    return atleast(*tup) if len(tup) > 1 else [atleast(*tup)]


def hstack(tup, dtype=None):
    arrs = _each_at_least(atleast_1d, tup)
    return concatenate(arrs, 0 if arrs[0].ndim == 1 else 1, dtype)


def vstack(tup, dtype=None):
    return concatenate(_each_at_least(atleast_2d, tup), 0, dtype)


def dstack(tup, dtype=None):
    return concatenate(_each_at_least(atleast_3d, tup), 2, dtype)


def column_stack(tup):
    """Join 1-D arrays as columns (and 2-D ones as they are) along axis 1.

    >>> jnp.column_stack([jnp.zeros(2), jnp.ones((2, 2))]).shape
    (2, 3)
    """
    from .. import api

    if isinstance(tup, (np.ndarray, Array, Tracer)):  # (its rows: vmapped, as JAX's)
        arrs = api.vmap(lambda x: transpose(atleast_2d(x)))(tup) if tup.ndim < 3 else tup
    else:
        check_arraylike("column_stack", *tup)
        arrs = [transpose(atleast_2d(a)) if a.ndim < 2 else a for a in map(as_operand, tup)]
    return concatenate(arrs, 1)


@staged_as_jit(static_argnames=("axis",))
def append(arr, values, axis=None):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


# --- slicing along one axis (static) ---------------------------------------------------------


def slice_axis(a, axis: int, start: int, stop: int, step: int = 1):
    """``a[..., start:stop:step, ...]`` on ``axis`` with lax.slice (static bounds)."""
    starts = [0] * a.ndim
    limits = list(a.shape)
    strides = [1] * a.ndim
    starts[axis], limits[axis], strides[axis] = start, stop, step
    if starts == [0] * a.ndim and limits == list(a.shape) and step == 1:
        return a
    return lax.slice(a, starts, limits, None if step == 1 else strides)


def _split_sizes(a, indices_or_sections, axis, strict):
    """The pieces' sizes along ``axis``, as JAX's _split: indices are taken as they are (a
    negative or out-of-range one makes a negative size, which lax.split rejects, as in JAX)."""
    size = a.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) or (
        np.ndim(indices_or_sections) == 0 and not isinstance(indices_or_sections, (list, tuple))
    ):
        # (JAX converts a count with int(): 2.0 sections are 2; split points must be integers)
        sections = indices_or_sections
        n = concrete_int(int(sections) if isinstance(sections, float) else sections, "split sections")
        if n <= 0:
            raise ValueError("number sections must be larger than 0.")
        q, r = divmod(size, n)
        if strict and r:
            raise ValueError(f"array split does not result in an equal division: rest is {r}")
        return [q + 1] * r + [q] * (n - r)
    pts = [0, *[concrete_int(i, "split indices") for i in indices_or_sections], size]
    return [e - s for s, e in zip(pts[:-1], pts[1:])]


def split(ary, indices_or_sections, axis: int = 0):
    """Split into equal sections (an int) or at the given indices.

    >>> [p.shape for p in jnp.split(jnp.arange(6), 3)]
    [(2,), (2,), (2,)]
    """
    return _split(ary, indices_or_sections, axis, True)


def array_split(ary, indices_or_sections, axis: int = 0):
    return _split(ary, indices_or_sections, axis, False)


def _split(ary, indices_or_sections, axis, strict):
    # One split equation, as JAX's _split stages (its sizes numpy ints, so printed np.int64(2)).
    a = as_operand(ary)
    check_axes_index(a.shape, axis)
    ax = canonicalize_axis(axis, a.ndim)
    sizes = _split_sizes(a, indices_or_sections, ax, strict)
    return list(lax.split(a, [np.int64(n) if isinstance(n, int) else n for n in sizes], ax))


def hsplit(ary, indices_or_sections):
    a = as_operand(ary)
    return split(a, indices_or_sections, 0 if a.ndim == 1 else 1)


def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 2)


# --- repetition and reversal ------------------------------------------------------------------


def tile(A, reps):
    """Repeat the whole array ``reps`` times along each axis."""
    a = as_operand(A)
    reps = tuple(reps) if np.ndim(reps) else (reps,)
    reps = tuple(r if isinstance(r, float) else concrete_int(r, "tile reps") for r in reps)
    reps = (1,) * (a.ndim - len(reps)) + reps
    if len(reps) > a.ndim:
        a = lax.expand_dims(a, tuple(range(len(reps) - a.ndim)))
    if any(isinstance(r, float) for r in reps):  # (JAX's tile shape, reps times the sizes, refused)
        raise invalid_shape_error(tuple(np.multiply(a.shape, reps)))
    return lax.tile(a, reps)  # one tile equation, as JAX


def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None, out_sharding=None):
    """Repeat each element ``repeats`` times (an int, or one count per element); with
    ``total_repeat_length`` the counts may be traced (the output is cut or filled with the last
    element to that length). On a mesh with explicit axes it runs as JAX's, under ``auto_axes``
    laid out by ``out_sharding`` (by default ``a``'s, which must not split ``axis``).

    >>> jnp.repeat(jnp.array([1, 2, 3]), jnp.array([2, 0, 1]))
    Array([1, 1, 3], dtype=int32)
    """
    if dims.is_constant_dim(repeats) or dims.is_symbolic_dim(repeats):
        check_arraylike("repeat", a)
    else:
        check_arraylike("repeat", a, repeats)
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = concrete_int(axis, "'axis' argument of jnp.repeat()")
    if out_sharding is None and get_abstract_mesh().explicit_axes:
        typed = typeof(a).sharding
        if typed.spec.partitions[axis] is not None:
            raise ValueError("Please pass sharding to `jnp.repeat` via `out_sharding` parameter.")
        out_sharding = P() if typed.mesh.empty else typed.spec
    body = functools.partial(_repeat, axis=axis, total_repeat_length=total_repeat_length)
    if out_sharding is None:
        return body(repeats, a)
    if total_repeat_length is None:
        return auto_axes(functools.partial(body, repeats), out_sharding=out_sharding)(a)
    return auto_axes(body, out_sharding=out_sharding)(repeats, a)


def _repeat(repeats, a, *, axis: int, total_repeat_length: int | None):
    if total_repeat_length is None:
        counts = np.asarray(
            core.concrete_or_error(
                repeats,
                "When jit-compiling jnp.repeat, the total number of repeats must be static. To fix "
                "this, either specify a static value for `repeats`, or pass a static value to "
                "`total_repeat_length`.",
            )
        )
        if counts.ndim == 0 and a.ndim != 0:  # a broadcast along a new axis after ``axis``, merged into it
            ax = canonicalize_axis(axis, a.ndim)
            shape = list(a.shape)
            inter = shape[: ax + 1] + [counts.item()] + shape[ax + 1 :]  # (2.0: lax's TypeError)
            out = lax.broadcast_in_dim(a, inter, [i for i in range(len(inter)) if i != ax + 1])
            shape[ax] *= int(counts)
            return reshape(out, shape)
        repeats = np.ravel(counts)
        if a.ndim != 0:
            repeats = np.broadcast_to(repeats, [a.shape[axis]])
        total_repeat_length = int(np.sum(repeats))
    else:
        repeats = ravel(repeats)
        if a.ndim != 0:
            repeats = broadcast_to(repeats, [a.shape[axis]])
    return _repeat_by_counts(a, repeats, axis, total_repeat_length)


def _repeat_by_counts(a, repeats, axis, total):
    """Output position ``j`` takes the element whose run covers it: ones scattered at each run's
    start, cumulatively summed, give the source index (as JAX: no intermediate of size n * total)."""
    from ._creation import full, zeros
    from ._reductions import cumsum
    from ._take import take

    if a.ndim == 0:
        if np.shape(repeats) != (1,):
            raise ValueError(
                "`repeat` with a scalar parameter `a` is only implemented for scalar values of the parameter `repeats`."
            )
        return full([total], a)
    if total == 0:
        return reshape(Array(np.zeros(0, a.dtype)), a.shape[:axis] + (0,) + a.shape[axis + 1 :])
    if a.shape[axis] == 0:
        return a
    run_starts = cumsum(roll(repeats, shift=1).at[0].set(0))
    marks = zeros([total], dtype="int32").at[run_starts].add(1)
    return take(a, cumsum(marks) - 1, axis=axis)


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None)."""
    from ._reductions import _axis_arg

    return _flip(as_operand(m), _axis_arg(axis))


@staged_as_jit(static_argnames=("axis",))
def _flip(m, axis):
    axes = canonicalize_axes(axis, m.ndim)
    return lax.rev(m, axes) if axes else m


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


@staged_as_jit(static_argnames=("k", "axes"))
def rot90(m, k: int = 1, axes=(0, 1)):
    m = as_operand(m)
    k = int(k) % 4
    a0, a1 = (canonicalize_axis(x, m.ndim) for x in axes)
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(flip(m, a1), perm) if k == 1 else flip(transpose(m, perm), a1)


@jitted_inline(static_argnames=("shift", "axis"))
def roll(a, shift, axis=None):
    """Shift elements cyclically along ``axis`` (the flattened array when None); static shifts."""
    a = as_operand(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    axes = np.atleast_1d(axis).tolist()
    if isinstance(shift, Tracer):
        known = core.concrete_or_none(shift)
        if known is None:  # a traced shift: slices of the array repeated twice, as JAX's _roll_dynamic
            return _roll_dynamic(a, shift, tuple(canonicalize_axis(ax, a.ndim) for ax in axes))
        shift = known
    shifts = np.atleast_1d(shift).tolist()
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    axes = [canonicalize_axis(ax, a.ndim) for ax in axes]
    return _roll_static(a, tuple(int(s) for s in shifts), tuple(axes))


@staged_as_jit(static_argnames=("axis",))
def _roll_dynamic(a, shift, axis):
    """``roll`` by traced shifts (jitted as JAX's ``_roll_dynamic``)."""
    shift = as_operand(shift)
    b_shape = np.broadcast_shapes(shift.shape, np.shape(axis))
    if len(b_shape) != 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    from ._ufuncs import remainder

    # (iterating the broadcast shifts slices them one by one, as JAX's loop over them does)
    for x, ax in zip(broadcast_to(shift, b_shape), np.broadcast_to(axis, b_shape).tolist()):
        n = lax.full((), a.shape[ax], np.dtype("int32"))
        s = remainder(lax.convert_element_type(x, np.dtype("int32")), lax.max(n, np.int32(1)))
        a = lax.dynamic_slice_in_dim(lax.concatenate([a, a], ax), n - s, a.shape[ax], axis=ax)
    return a


@staged_as_jit(static_argnames=("shift", "axis"))
def _roll_static(a, shift, axis):
    """``roll`` by static shifts (jitted as JAX's ``_roll_static``)."""
    for s, ax in zip(shift, axis):
        n = a.shape[ax]
        if n == 0:
            continue
        # (as JAX: slices with explicit unit strides, and a shift by 0 still concatenates)
        i = -int(s) % n
        strides = (1,) * a.ndim
        first = lax.slice(a, _at(ax, a.ndim, i, 0), _at(ax, a.ndim, n, a.shape), strides)
        second = lax.slice(a, _at(ax, a.ndim, 0, 0), _at(ax, a.ndim, i, a.shape), strides)
        a = lax.concatenate([first, second], ax)
    return a


def _at(axis, ndim, value, default):
    """A start or limit tuple: ``default`` (a shape, or 0) everywhere but ``value`` on ``axis``."""
    return tuple(
        value if d == axis else (default[d] if isinstance(default, tuple) else default) for d in range(ndim)
    )


# --- shape queries ---------------------------------------------------------------------------


def shape(a):
    return tuple(shape_of(a))


def ndim(a):
    return len(shape_of(a))


def size(a, axis=None):
    """The number of elements of ``a``, or along ``axis`` (an int or a tuple of them).

    >>> jnp.size(jnp.ones((2, 3)), axis=(0, 1))
    6
    """
    s = shape_of(a)
    if axis is None:
        return int(np.prod(s, dtype=np.int64))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return int(np.prod([s[ax] for ax in axes], dtype=np.int64))


# --- more numpy shape utilities ---------------------------------------------------------------


def unstack(x, /, *, axis: int = 0):
    x = as_operand(x)
    if x.ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    return lax.unstack(x, canonicalize_axis(axis, x.ndim))


@staged_as_jit(static_argnames=("axis", "start"))
def rollaxis(a, axis: int, start: int = 0):
    a = as_operand(a)
    axis = canonicalize_axis(axis, a.ndim)
    start = start + a.ndim if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


def resize(a, new_shape):
    """``a`` flattened, repeated as often as needed and cut to ``new_shape``.

    >>> jnp.resize(jnp.array([1, 2, 3]), (2, 2))
    Array([[1, 2],
           [3, 1]], dtype=int32)
    """
    return _resize(as_operand(a), tuple(concrete_shape(new_shape)))


@staged_as_jit(name="resize", static_argnames=("new_shape",))
def _resize(a, new_shape):
    a = ravel(a)
    total = int(np.prod(new_shape, dtype=np.int64))
    if a.shape[0] == 0 or total == 0:
        return lax.full(new_shape, 0, a.dtype)
    tiled = tile(a, -(-total // a.shape[0]))
    return reshape(tiled if tiled.shape[0] == total else tiled[:total], new_shape)


@staged_as_jit
def block(arrays):
    """Assemble an array from nested lists of blocks (the innermost lists join along the last axis);
    a ``jit`` named ``block``, as JAX's."""

    def depth(x):
        return 1 + depth(x[0]) if isinstance(x, list) and x else (1 if isinstance(x, list) else 0)

    d = depth(arrays)
    blocks = []

    def collect(x):
        if isinstance(x, list):
            for y in x:
                collect(y)
        else:
            blocks.append(as_operand(x))

    collect(arrays)
    nd = builtins.max([d] + [b.ndim for b in blocks])

    def rec(x, level):
        if not isinstance(x, list):
            x = as_operand(x)
            return lax.reshape(x, (1,) * (nd - x.ndim) + x.shape)
        return concatenate([rec(y, level + 1) for y in x], axis=nd - d + level)

    return rec(arrays, 0)


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """``func1d`` on every 1-D slice along ``axis``, by vmapping over the other axes."""
    from .. import api

    a = as_operand(arr)
    ax = canonicalize_axis(axis, a.ndim)
    f = lambda v: func1d(v, *args, **kwargs)
    for _ in range(ax):
        f = api.vmap(f, in_axes=0, out_axes=0)
    for _ in range(a.ndim - ax - 1):
        f = api.vmap(f, in_axes=-1, out_axes=-1)
    return f(a)
