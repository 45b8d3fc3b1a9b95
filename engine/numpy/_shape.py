"""Shape manipulation: reshape, transpose, joining and splitting, tiling, flipping, sorting, padding."""

from __future__ import annotations

import builtins

import numpy as np

from .. import core, lax
from ..core import Array, Tracer
from ._promote import (
    as_operand,
    broadcast_shapes,
    broadcast_to_shape,
    canonicalize_axes,
    canonicalize_axis,
    check_arraylike,
    concrete_int,
    concrete_shape,
    convert,
    promote_dtypes,
    shape_of,
)
from ._staged import staged_as_jit


def _resolve_shape(newshape, size: int) -> tuple:
    shape = list(newshape)
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension (-1)")
    if unknown:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        if known == 0 or size % known:
            raise TypeError(f"cannot reshape array of size {size} into shape {tuple(newshape)}")
        shape[unknown[0]] = size // known
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise TypeError(f"cannot reshape array of shape with size {size} into shape {tuple(newshape)}")
    return tuple(shape)


def reshape(a, shape=None, order: str = "C", *, newshape=None, copy=None):
    """Reshape (row-major); one dimension may be -1.

    >>> jnp.reshape(jnp.arange(6), (2, -1)).shape
    (2, 3)
    """
    check_arraylike("reshape", a)
    shape = newshape if shape is None else shape
    a = as_operand(a)
    new = _resolve_shape(concrete_shape(shape), a.size)
    if order == "F":
        rev = tuple(range(a.ndim))[::-1]
        return transpose(lax.reshape(transpose(a, rev), new[::-1]), tuple(range(len(new)))[::-1])
    return lax.reshape(a, new)


def ravel(a, order: str = "C"):
    a = as_operand(a)
    return reshape(a, (a.size,), order)


def transpose(a, axes=None):
    """Permute axes (reverse them when ``axes`` is None).

    >>> jnp.transpose(jnp.ones((2, 3))).shape
    (3, 2)
    """
    check_arraylike("transpose", a)
    a = as_operand(a)
    if axes is None:
        axes = tuple(range(a.ndim))[::-1]
    axes = tuple(canonicalize_axis(x, a.ndim) for x in axes)
    if sorted(axes) != list(range(a.ndim)):
        raise ValueError(f"axes {axes} don't match array of dimension {a.ndim}")
    return lax.transpose(a, axes)


def permute_dims(a, /, axes):
    return transpose(a, axes)


def matrix_transpose(x, /):
    x = as_operand(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got {x.ndim}")
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return lax.transpose(x, perm)


def swapaxes(a, axis1: int, axis2: int):
    a = as_operand(a)
    perm = list(range(a.ndim))
    i, j = canonicalize_axis(axis1, a.ndim), canonicalize_axis(axis2, a.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def moveaxis(a, source, destination):
    """Move axes to new positions, keeping the order of the others.

    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    a = as_operand(a)
    src = [canonicalize_axis(s, a.ndim) for s in np.atleast_1d(source).tolist()]
    dst = [canonicalize_axis(d, a.ndim) for d in np.atleast_1d(destination).tolist()]
    if len(src) != len(dst):
        raise ValueError("source and destination must have the same number of elements")
    perm = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


rollaxis_ = None


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
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out_ndim = a.ndim + len(axes)
    axes = sorted(canonicalize_axis(x, out_ndim) for x in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in expand_dims: {axis}")
    return lax.expand_dims(a, axes)  # a broadcast_in_dim, as in JAX


def broadcast_to(array, shape):
    """Broadcast ``array`` to ``shape`` with numpy's rules."""
    check_arraylike("broadcast_to", array)
    return broadcast_to_shape(array, concrete_shape(shape))


def broadcast_arrays(*args):
    shapes = [shape_of(a) for a in args]
    shape = broadcast_shapes(*shapes)
    return [broadcast_to_shape(a, shape) for a in args]


def broadcast_shapes_(*shapes):
    return broadcast_shapes(*[tuple(s) if not isinstance(s, int) else (s,) for s in shapes])


def atleast_1d(*arys):
    out = [
        reshape(a, (1,))
        if np.ndim(a) == 0 and not isinstance(a, (Array, Tracer)) or shape_of(a) == ()
        else as_operand(a)
        for a in arys
    ]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    out = []
    for a in arys:
        a = as_operand(a)
        out.append(a if a.ndim >= 2 else lax.reshape(a, (1,) * (2 - a.ndim) + a.shape))
    return out[0] if len(out) == 1 else out


def atleast_3d(*arys):
    out = []
    for a in arys:
        a = as_operand(a)
        if a.ndim == 0:
            a = lax.reshape(a, (1, 1, 1))
        elif a.ndim == 1:
            a = lax.reshape(a, (1, a.shape[0], 1))
        elif a.ndim == 2:
            a = lax.reshape(a, a.shape + (1,))
        out.append(a)
    return out[0] if len(out) == 1 else out


# --- joining ---------------------------------------------------------------------------------


def concatenate(arrays, axis: int | None = 0, dtype=None):
    """Join arrays along an existing axis (flattening them first when ``axis`` is None).

    >>> jnp.concatenate([jnp.zeros(2), jnp.ones(1)])
    Array([0., 0., 1.], dtype=float32)
    """
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike("concatenate", *arrays)
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    arrays = promote_dtypes(*arrays)
    if dtype is not None:
        d = core.canonical_dtype(np.dtype(dtype) if not hasattr(dtype, "dtype") else dtype.dtype)
        arrays = [convert(a, d) for a in arrays]
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    for a in arrays[1:]:
        if a.ndim != nd:
            raise ValueError(
                f"Cannot concatenate arrays with different numbers of dimensions: got "
                f"{', '.join(str(x.shape) for x in arrays)}."
            )
    ax = canonicalize_axis(axis, nd)
    for a in arrays[1:]:
        if any(d1 != d2 for i, (d1, d2) in enumerate(zip(a.shape, arrays[0].shape)) if i != ax):
            raise TypeError(
                f"Cannot concatenate arrays with shapes that differ in dimensions other than "
                f"the one being concatenated: got {', '.join(str(x.shape) for x in arrays)}."
            )
    if len(arrays) == 1:
        return arrays[0]
    return lax.concatenate(arrays, ax)


concat = concatenate


def stack(arrays, axis: int = 0, out=None, dtype=None):
    """Join arrays along a new axis.

    >>> jnp.stack([jnp.zeros(2), jnp.ones(2)]).shape
    (2, 2)
    """
    from_array = isinstance(arrays, (Array, Tracer, np.ndarray))
    if from_array:
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    if not len(arrays):
        raise ValueError("Need at least one array to stack.")
    check_arraylike("stack", *arrays)
    shapes = {shape_of(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"All input arrays must have the same shape, got {sorted(shapes)}.")
    nd = len(next(iter(shapes))) + 1
    ax = canonicalize_axis(axis, nd)
    if from_array:
        return concatenate([expand_dims(a, ax) for a in arrays], ax, dtype)
    arrays = promote_dtypes(*arrays)
    if dtype is not None:
        d = core.canonical_dtype(np.dtype(dtype) if not hasattr(dtype, "dtype") else dtype.dtype)
        arrays = [convert(a, d) for a in arrays]
    return lax.stack(arrays, ax)  # one stack equation, as JAX


def hstack(tup, dtype=None):
    arrs = atleast_1d(*tup) if len(tup) > 1 else [atleast_1d(*tup)]
    return concatenate(arrs, 0 if arrs[0].ndim == 1 else 1, dtype)


def vstack(tup, dtype=None):
    arrs = atleast_2d(*tup) if len(tup) > 1 else [atleast_2d(*tup)]
    return concatenate(arrs, 0, dtype)


row_stack = vstack


def dstack(tup, dtype=None):
    arrs = atleast_3d(*tup) if len(tup) > 1 else [atleast_3d(*tup)]
    return concatenate(arrs, 2, dtype)


def column_stack(tup):
    arrs = []
    for a in tup:
        a = as_operand(a)
        arrs.append(lax.reshape(a, (a.shape[0], 1)) if a.ndim == 1 else atleast_2d(a))
    return concatenate(arrs, 1)


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


def _split_points(a, indices_or_sections, axis, strict):
    size = a.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) or (
        np.ndim(indices_or_sections) == 0 and not isinstance(indices_or_sections, (list, tuple))
    ):
        n = concrete_int(indices_or_sections, "split sections")
        if n <= 0:
            raise ValueError("number sections must be larger than 0.")
        if strict and size % n:
            raise ValueError("array split does not result in an equal division")
        q, r = divmod(size, n)
        sizes = [q + 1] * r + [q] * (n - r)
        return np.cumsum([0] + sizes).tolist()
    idx = [concrete_int(i, "split indices") for i in indices_or_sections]
    idx = [builtins.min(builtins.max(i + size if i < 0 else i, 0), size) for i in idx]
    return [0] + idx + [size]


def split(ary, indices_or_sections, axis: int = 0):
    """Split into equal sections (an int) or at the given indices.

    >>> [p.shape for p in jnp.split(jnp.arange(6), 3)]
    [(2,), (2,), (2,)]
    """
    a = as_operand(ary)
    ax = canonicalize_axis(axis, a.ndim)
    pts = _split_points(a, indices_or_sections, ax, True)
    return [slice_axis(a, ax, s, builtins.max(s, e)) for s, e in zip(pts[:-1], pts[1:])]


def array_split(ary, indices_or_sections, axis: int = 0):
    a = as_operand(ary)
    ax = canonicalize_axis(axis, a.ndim)
    pts = _split_points(a, indices_or_sections, ax, False)
    return [slice_axis(a, ax, s, builtins.max(s, e)) for s, e in zip(pts[:-1], pts[1:])]


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
    reps = (
        (concrete_int(reps, "tile reps"),)
        if np.ndim(reps) == 0
        else tuple(concrete_int(r, "tile reps") for r in reps)
    )
    reps = (1,) * (a.ndim - len(reps)) + reps
    if len(reps) > a.ndim:
        a = lax.expand_dims(a, tuple(range(len(reps) - a.ndim)))
    return lax.tile(a, reps)  # one tile equation, as JAX


def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None):
    """Repeat each element ``repeats`` times (an int, or one count per element, concrete)."""
    a = as_operand(a)
    if axis is None:
        a = ravel(a)
        axis = 0
    ax = canonicalize_axis(axis, a.ndim)
    if np.ndim(repeats) == 0 and not isinstance(repeats, (list, tuple)):
        r = concrete_int(repeats, "repeat count")
        shape = list(a.shape)
        inter = shape[: ax + 1] + [r] + shape[ax + 1 :]
        out = lax.broadcast_in_dim(a, inter, [i for i in range(len(inter)) if i != ax + 1])
        shape[ax] *= r
        return lax.reshape(out, shape)
    reps = np.asarray(
        core.concrete_or_error(repeats, "repeat counts")
        if isinstance(repeats, Tracer)
        else np.asarray(repeats)
    ).astype(np.int64)
    if reps.shape != (a.shape[ax],):
        raise ValueError(f"repeats has shape {reps.shape}, expected ({a.shape[ax]},)")
    idx = np.repeat(np.arange(a.shape[ax]), reps)
    from ._indexing import take

    return take(a, Array(idx.astype(np.int32)), axis=ax)


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None)."""
    return _flip(as_operand(m), axis)


@staged_as_jit(static_argnames=("axis",))
def _flip(m, axis):
    axes = canonicalize_axes(axis, m.ndim)
    return lax.rev(m, axes) if axes else m


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


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


def roll(a, shift, axis=None):
    """Shift elements cyclically along ``axis`` (the flattened array when None); static shifts."""
    a = as_operand(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    shifts = np.atleast_1d(
        core.concrete_or_error(shift, "roll shift") if isinstance(shift, Tracer) else shift
    ).tolist()
    axes = np.atleast_1d(axis).tolist()
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    for s, ax in zip(shifts, axes):
        ax = canonicalize_axis(ax, a.ndim)
        n = a.shape[ax]
        if n == 0:
            continue
        s = int(s) % n
        if s:
            a = lax.concatenate([slice_axis(a, ax, n - s, n), slice_axis(a, ax, 0, n - s)], ax)
    return a


def pad(array, pad_width, mode: str = "constant", *, constant_values=0, **kwargs):
    """Pad with a constant (``mode='constant'``) or by repeating edges/reflecting (``'edge'``, ``'wrap'``)."""
    a = as_operand(array)
    pw = np.asarray(pad_width, dtype=np.int64)
    if pw.ndim == 0:
        pw = np.broadcast_to(pw, (a.ndim, 2))
    elif pw.ndim == 1:
        pw = np.broadcast_to(pw, (a.ndim, 2)) if pw.shape[0] in (1, 2) else pw
    elif pw.shape[0] == 1:
        pw = np.broadcast_to(pw, (a.ndim, 2))
    if pw.shape != (a.ndim, 2):
        raise ValueError(f"pad_width {pad_width} does not fit an array of rank {a.ndim}")
    if mode == "constant":
        cv = (
            np.asarray(constant_values)
            if not isinstance(constant_values, (Array, Tracer))
            else constant_values
        )
        if np.ndim(cv) == 0:
            fill = convert(cv if isinstance(cv, (Array, Tracer)) else Array(cv), a.dtype)
            return lax.pad(a, fill, [(int(lo), int(hi), 0) for lo, hi in pw])
        cv = np.broadcast_to(np.asarray(cv), (a.ndim, 2))
        for ax in range(a.ndim):
            lo, hi = (int(x) for x in pw[ax])
            cfg = [(0, 0, 0)] * a.ndim
            a = lax.pad(
                a,
                convert(Array(cv[ax, 0]), a.dtype),
                [(lo, 0, 0) if i == ax else (0, 0, 0) for i in range(a.ndim)],
            )
            a = lax.pad(
                a,
                convert(Array(cv[ax, 1]), a.dtype),
                [(0, hi, 0) if i == ax else (0, 0, 0) for i in range(a.ndim)],
            )
            del cfg
        return a
    for ax in range(a.ndim):
        lo, hi = (int(x) for x in pw[ax])
        n = a.shape[ax]
        if lo == hi == 0:
            continue
        if mode == "edge":
            idx = np.clip(np.arange(-lo, n + hi), 0, n - 1)
        elif mode == "wrap":
            idx = np.arange(-lo, n + hi) % n
        elif mode in ("reflect", "symmetric"):
            idx = np.pad(np.arange(n), (lo, hi), mode=mode)
        else:
            raise NotImplementedError(f"jnp.pad mode {mode!r} is not supported")
        from ._indexing import take

        a = take(a, Array(idx.astype(np.int32)), axis=ax)
    return a


# --- sorting and searching (concrete-size results outside tracing) ----------------------------


@staged_as_jit(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True, descending: bool = False):
    """Sorted copy along ``axis`` (flattened when None); NaNs go last, as in numpy."""
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    ax = canonicalize_axis(axis, a.ndim)
    out = lax.sort(a, dimension=ax, is_stable=stable)
    return lax.rev(out, (ax,)) if descending else out


def argsort(
    a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True, descending: bool = False
):
    """Indices that sort ``a`` along ``axis`` (stable)."""
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    ax = canonicalize_axis(axis, a.ndim)
    iota = lax.broadcasted_iota(np.int32, a.shape, ax)
    if descending:
        a = lax.rev(a, (ax,))
        iota = lax.sub(lax.full_like(iota, a.shape[ax] - 1), lax.rev(iota, (ax,)))
        _, idx = lax.sort((a, iota), dimension=ax, is_stable=stable, num_keys=1)
        return lax.rev(idx, (ax,))
    _, idx = lax.sort((a, iota), dimension=ax, is_stable=stable, num_keys=1)
    return idx


def _concrete_value(a, what):
    if isinstance(a, Tracer):
        v = a.concrete_value()
        if v is None:
            raise core.ConcretizationTypeError(
                a,
                f"{what} requires a concrete array because its output shape depends on the values; "
                f"pass size= to get a fixed-size result under jit",
            )
        return np.asarray(core.to_numpy(v) if not isinstance(v, np.ndarray) else v)
    return np.asarray(core.to_numpy(a) if isinstance(a, Array) else a)


def nonzero(a, *, size: int | None = None, fill_value=None):
    """Indices of the non-zero elements, one array per axis (outside tracing, or with ``size``)."""
    a = as_operand(a)
    if size is not None and isinstance(a, Tracer) and a.concrete_value() is None:
        return _nonzero_sized(a, int(size), fill_value)
    v = _concrete_value(a, "jnp.nonzero")
    res = np.nonzero(v)
    if size is not None:
        fills = np.broadcast_to(np.asarray(0 if fill_value is None else fill_value), (len(res),))
        res = tuple(
            np.concatenate([r[:size], np.full(builtins.max(size - len(r), 0), f)]) for r, f in zip(res, fills)
        )
    return tuple(Array(r.astype(np.int32)) for r in res)


def _nonzero_sized(a, size, fill_value):
    """Traced ``nonzero(a, size=n)``: positions by a cumulative count, gathered with a one-hot matmul."""
    flat = lax.reshape(lax.ne(a, lax.full_like(a, 0)), (a.size,))
    cnt = lax.cumsum(convert(flat, np.dtype("int32")), axis=0)
    # Slot k holds the first flat index whose running count reaches k + 1.
    slots = lax.broadcast_in_dim(Array(np.arange(1, size + 1, dtype=np.int32)), (size, a.size), (0,))
    hit = lax.ge(lax.broadcast_in_dim(cnt, (size, a.size), (1,)), slots)
    first = lax.reduce_sum(convert(lax.bitwise_not(hit), np.dtype("int32")), (1,))
    valid = lax.lt(first, lax.full_like(first, a.size))
    first = lax.select(valid, first, lax.full_like(first, 0))
    out = []
    fills = np.broadcast_to(np.asarray(0 if fill_value is None else fill_value), (a.ndim,))
    for d, stride in enumerate(np.cumprod((a.shape + (1,))[::-1])[::-1][1:].tolist()):
        coord = lax.rem(lax.div(first, lax.full_like(first, stride)), lax.full_like(first, a.shape[d]))
        out.append(lax.select(valid, coord, lax.full_like(coord, int(fills[d]))))
    return tuple(out)


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    a = as_operand(a)
    res = nonzero(a if a.ndim else reshape(a, (1,)), size=size, fill_value=fill_value)
    return stack(res, axis=1) if res else Array(np.zeros((0, 0), np.int32))


def unique(
    ar,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis=None,
    *,
    equal_nan: bool = True,
    size=None,
    fill_value=None,
):
    """Sorted unique values (outside tracing): the result's size depends on the values."""
    v = _concrete_value(ar, "jnp.unique")
    res = np.unique(
        v, return_index=return_index, return_inverse=return_inverse, return_counts=return_counts, axis=axis
    )
    if not isinstance(res, tuple):
        res = (res,)
    if size is not None:
        first = res[0]
        if len(first) < size:
            fill = (
                first.min()
                if fill_value is None and len(first)
                else (0 if fill_value is None else fill_value)
            )
            res = (np.concatenate([first, np.full(size - len(first), fill, first.dtype)]),) + res[1:]
        else:
            res = (first[:size],) + res[1:]
    out = tuple(Array(r.astype(np.int32) if i and r.dtype.kind in "iu" else r) for i, r in enumerate(res))
    return out[0] if len(out) == 1 else out


def searchsorted(a, v, side: str = "left", sorter=None, *, method=None):
    """Insertion indices of ``v`` into sorted 1-D ``a`` (a comparison count; traceable)."""
    a, v = promote_dtypes(a, v)
    if sorter is not None:
        from ._indexing import take

        a = take(a, sorter)
    n = a.shape[0]
    vb = lax.broadcast_in_dim(v, v.shape + (n,), tuple(range(v.ndim)))
    ab = lax.broadcast_in_dim(a, v.shape + (n,), (v.ndim,))
    hit = lax.lt(ab, vb) if side == "left" else lax.le(ab, vb)
    return lax.reduce_sum(convert(hit, np.dtype("int32")), (v.ndim,))


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The ``offset`` diagonal of the ``(axis1, axis2)`` planes, as the last axis of the result."""
    a = as_operand(a)
    ax1, ax2 = canonicalize_axis(axis1, a.ndim), canonicalize_axis(axis2, a.ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 must be different")
    a = moveaxis(a, (ax1, ax2), (-2, -1))
    n, m = a.shape[-2:]
    offset = int(offset)
    k = builtins.max(0, builtins.min(n + builtins.min(offset, 0), m - builtins.max(offset, 0)))
    batch = a.shape[:-2]
    if k == 0:
        return lax.full(batch + (0,), 0, a.dtype, a.weak_type)
    # In the flattened plane the diagonal is a strided slice: start, then every m + 1 elements.
    flat = lax.reshape(a, batch + (n * m,))
    start = offset if offset >= 0 else -offset * m
    return slice_axis(flat, len(batch), start, start + (k - 1) * (m + 1) + 1, m + 1)


def diag(v, k: int = 0):
    """The ``k``-th diagonal of a 2-D array, or a 2-D array with ``v`` on its ``k``-th diagonal."""
    v = as_operand(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("diag input must be 1d or 2d")
    k = int(k)
    L = v.shape[0]
    n = L + builtins.abs(k)
    if L == 0:
        return lax.full((n, n), 0, v.dtype, v.weak_type)
    # Rows [v_i, 0 * L] flattened put v_i at i * (L + 1): the diagonal of an L x L matrix.
    zero = lax.full((), 0, v.dtype, v.weak_type)
    rows = lax.pad(lax.reshape(v, (L, 1)), zero, [(0, 0, 0), (0, L, 0)])
    square = lax.reshape(slice_axis(lax.reshape(rows, (L * (L + 1),)), 0, 0, L * L), (L, L))
    if k == 0:
        return square
    lo, hi = (0, k) if k > 0 else (-k, 0)
    return lax.pad(square, zero, [(lo, hi, 0), (hi, lo, 0)])


def diagflat(v, k: int = 0):
    return diag(ravel(v), k)


def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None, out=None):
    """Sum of the ``offset`` diagonal."""
    from ._reductions import sum

    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def shape(a):
    return tuple(shape_of(a))


def ndim(a):
    return len(shape_of(a))


def size(a, axis=None):
    s = shape_of(a)
    return int(np.prod(s, dtype=np.int64)) if axis is None else s[axis]


del rollaxis_


# --- more numpy shape utilities ---------------------------------------------------------------


def unstack(x, /, *, axis: int = 0):
    x = as_operand(x)
    if x.ndim == 0:
        raise ValueError("Unstack requires arrays with rank > 0, however a scalar array was passed.")
    return lax.unstack(x, canonicalize_axis(axis, x.ndim))


def rollaxis(a, axis: int, start: int = 0):
    a = as_operand(a)
    axis = canonicalize_axis(axis, a.ndim)
    start = start + a.ndim if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start)


def ix_(*args):
    """Open-mesh index arrays: ``x[ix_(rows, cols)]`` selects the cross product."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = as_operand(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == np.bool_:
            a = nonzero(a)[0]
        out.append(lax.reshape(a, (1,) * i + (a.shape[0],) + (1,) * (n - i - 1)))
    return tuple(out)


def unravel_index(indices, shape):
    """Coordinates of flat ``indices`` in an array of ``shape`` (out-of-range ones are clipped)."""
    idx = as_operand(indices)
    shape = concrete_shape(shape)
    size = int(np.prod(shape, dtype=np.int64))
    idx = lax.clamp(lax.full((), -size, idx.dtype), idx, lax.full((), size - 1, idx.dtype))
    idx = lax.select(lax.lt(idx, lax.full_like(idx, 0)), lax.add(idx, lax.full_like(idx, size)), idx)
    out = []
    for d in reversed(shape):
        out.append(lax.rem(idx, lax.full_like(idx, d)))
        idx = lax.div(idx, lax.full_like(idx, d))
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C"):
    dims = concrete_shape(dims)
    out = None
    for i, d in zip(multi_index, dims):
        i = as_operand(i)
        if mode == "clip":
            i = lax.clamp(lax.full((), 0, i.dtype), i, lax.full((), d - 1, i.dtype))
        elif mode == "wrap":
            i = lax.rem(lax.add(lax.rem(i, lax.full_like(i, d)), lax.full_like(i, d)), lax.full_like(i, d))
        out = i if out is None else lax.add(lax.mul(out, lax.full_like(out, d)), i)
    return out


def _static_positions(obj, n, what):
    v = obj if not isinstance(obj, (Array, Tracer)) else _concrete_value(obj, what)
    if isinstance(v, slice):
        return np.arange(n)[v]
    v = np.atleast_1d(np.asarray(v))
    if v.dtype == np.bool_:
        return np.nonzero(v)[0]
    return np.where(v < 0, v + n, v)


def delete(arr, obj, axis=None, *, assume_unique_indices: bool = False):
    """``arr`` without the entries at ``obj`` (static indices, slice or mask) along ``axis``."""
    from ._indexing import take

    a = as_operand(arr)
    if axis is None:
        a, axis = ravel(a), 0
    ax = canonicalize_axis(axis, a.ndim)
    n = a.shape[ax]
    keep = np.setdiff1d(np.arange(n), _static_positions(obj, n, "jnp.delete"))
    return take(a, Array(keep.astype(np.int32)), axis=ax)


def insert(arr, obj, values, axis=None):
    """``arr`` with ``values`` inserted before the (static) indices ``obj`` along ``axis``."""
    from ._creation import asarray
    from ._indexing import take

    a = as_operand(arr)
    if axis is None:
        a, axis = ravel(a), 0
    ax = canonicalize_axis(axis, a.ndim)
    n = a.shape[ax]
    vals = convert(asarray(values), a.dtype)
    if np.ndim(obj) == 0 and not isinstance(obj, slice):
        pos = int(_static_positions(obj, n + 1, "jnp.insert")[0])
        # numpy's rule for one position: values gain leading axes, then their first axis moves to ``axis``.
        vals = lax.reshape(vals, (1,) * (a.ndim - vals.ndim) + vals.shape)
        vals = moveaxis(vals, 0, ax)
        shape = list(a.shape)
        shape[ax] = vals.shape[ax]
        vals = broadcast_to(vals, shape)
        m = shape[ax]
    else:
        pos = _static_positions(obj, n + 1, "jnp.insert")
        m = len(pos)
        shape = list(a.shape)
        shape[ax] = m
        vals = broadcast_to(vals, shape) if vals.ndim else broadcast_to(vals, shape)
    # numpy's own insert on positions gives the permutation of concatenate([a, vals]).
    order = np.insert(np.arange(n), pos, np.arange(n, n + m))
    return take(concatenate([a, vals], ax), Array(order.astype(np.int32)), axis=ax)


def compress(condition, a, axis=None, *, size=None, fill_value=0):
    from ._indexing import take

    cond = _concrete_value(condition, "jnp.compress").astype(bool)
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    idx = np.nonzero(cond)[0]
    return take(a, Array(idx.astype(np.int32)), axis=axis)


def partition(a, kth: int, axis: int = -1):
    """Like numpy's: the ``kth`` element in its sorted place; here the whole axis is sorted."""
    return sort(a, axis=axis)


def argpartition(a, kth: int, axis: int = -1):
    return argsort(a, axis=axis)


def diag_indices_from(arr):
    a = as_operand(arr)
    from ._creation import diag_indices

    return diag_indices(a.shape[0], a.ndim)


def tril_indices_from(arr, k: int = 0):
    from ._creation import tril_indices

    a = as_operand(arr)
    return tril_indices(a.shape[-2], k, a.shape[-1])


def triu_indices_from(arr, k: int = 0):
    from ._creation import triu_indices

    a = as_operand(arr)
    return triu_indices(a.shape[-2], k, a.shape[-1])


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True):
    """A copy of ``a`` with ``val`` on its main diagonal (JAX requires ``inplace=False``)."""
    if inplace:
        raise ValueError("jnp.fill_diagonal cannot modify arrays in place; pass inplace=False")
    a = as_operand(a)
    n = builtins.min(a.shape)
    idx = tuple(Array(np.arange(n, dtype=np.int32)) for _ in range(a.ndim))
    v = ravel(as_operand(val))
    if v.shape[0] not in (1, n):
        v = Array(np.resize(core.to_numpy(v), n)) if not isinstance(v, Tracer) else v
    return a.at[idx].set(v if v.shape[0] == n else lax.broadcast_in_dim(lax.reshape(v, ()), (n,), ()))


def resize(a, new_shape):
    from ._indexing import take

    a = ravel(as_operand(a))
    new_shape = concrete_shape(new_shape)
    total = int(np.prod(new_shape, dtype=np.int64))
    idx = np.arange(total) % builtins.max(a.shape[0], 1)
    return reshape(take(a, Array(idx.astype(np.int32))), new_shape)


def block(arrays):
    """Assemble an array from nested lists of blocks (the innermost lists join along the last axis)."""

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


def vander(x, N: int | None = None, increasing: bool = False):
    from ._ufuncs import power

    x = as_operand(x)
    N = x.shape[0] if N is None else int(N)
    p = np.arange(N)
    if not increasing:
        p = p[::-1]
    return power(lax.reshape(x, (x.shape[0], 1)), Array(p.astype(np.int32).reshape(1, N)))


def polyval(p, x):
    """Evaluate the polynomial with coefficients ``p`` (highest power first) at ``x`` (Horner)."""
    from ._ufuncs import add, multiply

    p = as_operand(p)
    from ._creation import zeros_like

    out = zeros_like(as_operand(x)) if p.shape[0] == 0 else None
    for i in range(p.shape[0]):
        out = p[i] if out is None else add(multiply(out, x), p[i])
    return out


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False):
    """Whether each element of ``element`` occurs in ``test_elements``."""
    from ._promote import promote_args

    e, t = promote_dtypes(as_operand(element), ravel(as_operand(test_elements)))
    eb = lax.broadcast_in_dim(e, e.shape + t.shape, tuple(range(e.ndim)))
    tb = lax.broadcast_in_dim(t, e.shape + t.shape, (e.ndim,))
    hit = lax.reduce_or(lax.eq(eb, tb), (e.ndim,)) if t.shape[0] else lax.full(e.shape, False, np.bool_)
    del promote_args
    return lax.bitwise_not(hit) if invert else hit


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
