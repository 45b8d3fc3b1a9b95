"""Sorting and searching: sort, argsort, partition, nonzero, argwhere, unique, searchsorted, isin.

Results whose size depends on the values (``nonzero``, ``unique``) need concrete arrays outside
tracing, or a ``size=`` to be traceable.
"""

from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from .. import core, dims, lax
from ..constant_staging import staged
from ..core import Array, Tracer
from ..lax.sorting import sort_less
from ._staged import staged_as_jit
from ._promote import (
    as_operand,
    check_arraylike,
    check_numeric,
    canonicalize_axis,
    convert,
    promote_dtypes,
    refuse_keys,
)
from ._shape import atleast_1d, ravel, reshape, transpose, vstack
from ..narrow_dtypes import kind as dtype_kind
from ..sharded_types import type_sharding


@staged_as_jit(static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True, descending: bool = False):
    """Sorted copy along ``axis`` (flattened when None); NaNs go last, as in numpy."""
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    ax = dims.canonicalize_axis(axis, a.ndim)  # (a 0-d array has no axis to sort, as JAX says)
    out = lax.sort(a, dimension=ax, is_stable=stable)
    return lax.rev(out, (ax,)) if descending else out


@staged_as_jit(static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"))
def argsort(
    a,
    axis: int | None = -1,
    *,
    kind=None,
    order=None,
    stable: bool = True,
    descending: bool = False,
    dtype=None,
):
    """Indices that sort ``a`` along ``axis`` (stable unless ``stable=False``).

    >>> jnp.argsort(jnp.array([1.0, 3.0, 2.0, 3.0]), descending=True)
    Array([1, 3, 2, 0], dtype=int32)
    """
    if kind is not None:
        raise TypeError(
            "'kind' argument to argsort is not supported. Use stable=True or stable=False to "
            "specify sort stability."
        )
    if order is not None:
        raise TypeError("'order' argument to argsort is not supported.")
    a = as_operand(a)
    if axis is None:
        a, axis = ravel(a), 0
    ax = dims.canonicalize_axis(axis, a.ndim)
    iota = lax.broadcasted_iota(
        core.default_dtype(int) if dtype is None else dtype, a.shape, ax, out_sharding=type_sharding(a)
    )
    # Stable descending: reverse array and indices first, so ties keep their original order.
    if descending and stable:
        a = lax.rev(a, (ax,))
        iota = lax.rev(iota, (ax,))
    _, idx = lax.sort((a, iota), dimension=ax, is_stable=stable, num_keys=1)
    return lax.rev(idx, (ax,)) if descending else idx


# (JAX's texts for a value-dependent output shape under tracing)
NONZERO_SIZE_MSG = (
    "The size argument of jnp.nonzero must be statically specified to use jnp.nonzero within JAX "
    "transformations."
)
UNIQUE_SIZE_HINT = (
    "To make jnp.unique() compatible with JIT and other transforms, you can specify a concrete "
    "value for the size argument, which will determine the output size."
)
UNIQUE_ARG_MSG = "The error arose for the first argument of jnp.unique(). " + UNIQUE_SIZE_HINT


def _concrete_value(a, context):
    """``a``'s value, or JAX's ConcretizationTypeError with ``context`` if it is only traced."""
    if isinstance(a, Tracer):
        v = a.concrete_value()
        if v is None:
            raise core.ConcretizationTypeError(a, context)
        return np.asarray(core.to_numpy(v) if not isinstance(v, np.ndarray) else v)
    return np.asarray(core.to_numpy(a) if isinstance(a, Array) else a)


def _static_size(size, context):
    if isinstance(size, Tracer) and size.concrete_value() is None:
        raise core.ConcretizationTypeError(size, context)
    return None if size is None else int(size)


def nonzero(a, *, size: int | None = None, fill_value=None):
    """Indices of the non-zero elements, one array per axis (outside tracing, or with ``size``)."""
    a = staged(as_operand(a))
    check_numeric("not_equal", a, 0)  # (JAX compares with 0: typed keys are refused there)
    if a.ndim == 0:
        raise ValueError(
            "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() instead."
        )
    size = _static_size(size, NONZERO_SIZE_MSG)
    if isinstance(a, Tracer) and a.concrete_value() is None:
        if size is not None:
            return _nonzero_sized(a, size, fill_value)
        # JAX needs the count of nonzeros as the static size: that count is what is not concrete
        count = (a if a.dtype == np.bool_ else (a != 0)).sum()
        raise core.ConcretizationTypeError(count, NONZERO_SIZE_MSG)
    v = _concrete_value(a, NONZERO_SIZE_MSG)
    res = np.nonzero(v)
    if size is not None:
        fills = np.broadcast_to(np.asarray(0 if fill_value is None else fill_value), (len(res),))
        res = tuple(
            np.concatenate([r[:size], np.full(builtins.max(size - len(r), 0), f)]) for r, f in zip(res, fills)
        )
    return tuple(Array(r.astype(core.default_dtype(int))) for r in res)


def _nonzero_sized(a, size, fill_value):
    """Traced ``nonzero(a, size=n)``, built as JAX builds it: counting each position's running count
    of nonzeros (bincount), whose running sum is the flat index of the k-th nonzero; then one
    coordinate per axis, and ``fill_value`` past the count of nonzeros."""
    from ._creation import arange, zeros
    from ._reductions import cumsum
    from ._selection import where
    from ._statistics import bincount
    from ._ufuncs import floor_divide, remainder

    mask = a if a.dtype == np.bool_ else (a != 0)
    idx = core.default_dtype(int)
    if a.size == 0 or size == 0:
        return tuple(zeros(size, idx) for _ in a.shape)
    flat_indices = cumsum(bincount(cumsum(mask), length=size))
    strides = (np.cumprod(a.shape[::-1])[::-1] // a.shape).astype(flat_indices.dtype)
    out = tuple(remainder(floor_divide(flat_indices, s), n) for s, n in zip(strides, a.shape))
    if fill_value is None:
        return out
    fills = tuple(fill_value) if isinstance(fill_value, (tuple, list)) else a.ndim * (fill_value,)
    if any(np.shape(f) != () for f in fills):
        raise ValueError(f"fill_value must be a scalar or a tuple of length {a.ndim}; got {fill_value}")
    past_count = arange(size) >= mask.sum()
    return tuple(where(past_count, f, entry) for f, entry in zip(fills, out))


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a, *, size=None, fill_value=None):
    """The coordinates of the nonzero elements, one row each (``size`` pads or truncates the rows,
    for use under ``jit``).

    >>> jnp.argwhere(jnp.array([[0, 3], [4, 0]]))
    Array([[0, 1],
           [1, 0]], dtype=int32)
    """
    a = as_operand(a)
    res = transpose(vstack(nonzero(atleast_1d(a), size=size, fill_value=fill_value)))
    # a 0-d input has no coordinates: one row (or none) of zero columns, as in JAX
    return reshape(res, (res.shape[0], a.ndim)) if a.ndim else reshape(res[:0], (res.shape[0], 0))


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
    sorted: bool = True,
):
    """Sorted unique values: the result's size depends on the values, so under tracing only the
    values with a static ``size`` (padded with ``fill_value``, default the smallest value).
    ``sorted`` is accepted and unused, as in JAX: the values always come sorted.

    >>> jax.jit(lambda x: jnp.unique(x, size=4))(jnp.array([3, 1, 3, 2]))
    Array([1, 2, 3, 1], dtype=int32)
    """
    a = staged(as_operand(ar))
    if size is not None:  # (concrete values too: the index, inverse and counts padded as JAX's)
        refuse_keys(a)
        flat = axis is None
        axis = 0 if flat else canonicalize_axis(axis, a.ndim)
        res = _unique_traced(
            ravel(a) if flat else a,
            axis,
            _static_size(size, "The error arose for the size argument of jnp.unique(). " + UNIQUE_SIZE_HINT),
            fill_value,
            equal_nan,
            return_index,
            return_inverse,
            return_counts,
        )
        if return_inverse and flat:
            i = 2 if return_index else 1
            res = (*res[:i], reshape(res[i], a.shape), *res[i + 1 :])
        return res[0] if len(res) == 1 else res
    v = _concrete_value(a, UNIQUE_ARG_MSG)
    refuse_keys(a)
    res = np.unique(
        v,
        return_index=return_index,
        return_inverse=return_inverse,
        return_counts=return_counts,
        axis=axis,
        equal_nan=equal_nan,
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
    out = tuple(
        Array(r.astype(core.default_dtype(int)) if i and dtype_kind(r.dtype) in "iu" else r)
        for i, r in enumerate(res)
    )
    return out[0] if len(out) == 1 else out


@staged_as_jit(static_argnames=("axis", "equal_nan"))
def _unique_sorted_mask(ar, axis, equal_nan):
    """``ar``'s slices along ``axis`` sorted (moved to the front), the mask of the first of each run
    of equal slices, and the sorting permutation."""
    from ._array_edits import lexsort
    from ._creation import ones, zeros
    from ._logic import isnan
    from ._reductions import any as any_
    from ._selection import where
    from ._shape import moveaxis

    aux = moveaxis(ar, axis, 0)
    if dtype_kind(aux.dtype) == "c":  # every complex NaN alike
        aux = where(isnan(aux), np.array(np.nan, aux.dtype), aux)
    size, *rest = aux.shape
    if math.prod(rest) == 0:
        size, perm = 1, zeros(1, dtype=int)
    else:
        perm = lexsort(reshape(aux, (size, math.prod(rest))).T[::-1])
    aux = aux[perm]
    if not aux.size:
        return aux, zeros(size, dtype=bool), perm
    if dtype_kind(aux.dtype) in "fc" and equal_nan:
        differ = lambda x, y: lax.ne(x, y) & ~(isnan(x) & isnan(y))  # noqa: E731
    else:
        differ = lax.ne
    first = ones(size, dtype=bool)
    return aux, first.at[1:].set(any_(differ(aux[1:], aux[:-1]), tuple(range(1, aux.ndim)))), perm


def _unique_traced(
    ar, axis, size, fill_value, equal_nan, return_index, return_inverse, return_counts, return_true_size=False
):
    """``unique`` of a traced array into ``size`` slots, built as JAX builds it: positions of the
    run starts by ``nonzero(size=)``; counts as the differences of consecutive starts
    (``return_true_size``: then the number of distinct values, for the set operations)."""
    from ._creation import arange, full, full_like, zeros
    from ._reductions import cumsum
    from ._selection import where
    from ._shape import expand_dims, moveaxis
    from ._statistics import diff

    if ar.shape[axis] == 0 and size and fill_value is None:
        raise ValueError(
            "jnp.unique: for zero-sized input with nonzero size argument, fill_value must be specified"
        )
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    ind = nonzero(mask, size=size)[0]
    result = aux[ind] if aux.size else aux
    if fill_value is not None:
        fill_value = as_operand(fill_value).astype(result.dtype)
        if result.shape[0]:
            valid = expand_dims(arange(size) < mask.sum(), tuple(range(1, result.ndim)))
            result = where(valid, result, fill_value)
        else:
            result = full_like(result, fill_value, shape=(size, *result.shape[1:]))
    out = [moveaxis(result, 0, axis)]
    if return_index:
        out.append(perm[ind] if aux.size else perm)
    if return_inverse:
        if aux.size:
            run = cumsum(mask) - 1  # (before the zeros, as JAX orders them)
            out.append(zeros(mask.shape, dtype=int).at[perm].set(run))
        else:
            out.append(zeros(ar.shape[axis], dtype=int))
    if return_counts:
        if aux.size:
            # slot k + 1 holds the start of run k + 1, or (past the last run) the length
            idx = nonzero(mask, size=size + 1)[0]
            idx = idx.at[1:].set(where(idx[1:], idx[1:], mask.size))
            out.append(diff(idx))
        else:
            out.append(full((1,), ar.shape[axis], dtype=int) if ar.shape[axis] else zeros(0, dtype=int))
    if return_true_size:
        out.append(mask.sum())
    return tuple(out)


def unique_sized(v, size: int, fill_value=None, keep=None, default_fill=None):
    """The first of each run of equal values of sorted 1-D ``v`` (where ``keep``, if given), in
    ``size`` slots; the rest hold ``fill_value`` (default ``default_fill``, else ``v``'s smallest)."""
    n = v.shape[0]
    if n == 0:
        return lax.full((size,), 0 if fill_value is None else fill_value, v.dtype)
    new_run = lax.concatenate(
        [lax.full((1,), True, np.bool_), lax.ne(lax.slice(v, (1,), (n,)), lax.slice(v, (0,), (n - 1,)))], 0
    )
    if keep is not None:
        new_run = lax.bitwise_and(new_run, keep)
    (pos,) = _nonzero_sized(new_run, size, n)
    valid = lax.lt(pos, lax.full_like(pos, n))
    picked = _take_1d(v, lax.min(pos, lax.full_like(pos, n - 1)))
    if fill_value is None:
        fill_value = lax.reshape(lax.slice(v, (0,), (1,)), ()) if default_fill is None else default_fill
    fill = lax.broadcast_in_dim(convert(as_operand(fill_value), v.dtype, False), (size,), ())
    return lax.select(valid, picked, fill)


def _take_1d(v, idx):
    from ._take import take

    return take(v, idx)


_SEARCHSORTED_METHODS = ("compare_all", "scan", "scan_unrolled", "sort")


@staged_as_jit(static_argnames=("side", "method"))
def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """Insertion indices of ``v`` into sorted 1-D ``a``, found as JAX does: a binary search as a
    ``scan`` by default, comparing in sort's order (so NaNs go last and -0.0 equals 0.0).

    >>> jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([2, 5]), side="right")
    Array([3, 4], dtype=int32)
    """
    check_arraylike("searchsorted", a, v)
    a, v = as_operand(a), as_operand(v)
    if a.ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    if method not in _SEARCHSORTED_METHODS:
        raise ValueError(f"invalid argument {method=}, expected one of {list(_SEARCHSORTED_METHODS)}")
    a, v = promote_dtypes(a, v)
    if sorter is not None:
        a = a[as_operand(sorter)]
    dtype = np.dtype(np.int32 if a.shape[0] <= np.iinfo(np.int32).max else np.int64)
    if method == "compare_all":
        return _searchsorted_compare_all_impl(a, v, side=side, dtype=dtype)
    if method == "sort":
        return _searchsorted_sort_impl(a, v, side=side, dtype=dtype)
    return _searchsorted_scan_impl(a, v, side=side, dtype=dtype, unrolled=method == "scan_unrolled")


@staged_as_jit(static_argnames=("side", "dtype", "unrolled"))
def _searchsorted_scan_impl(a, v, side, dtype, unrolled):
    """Binary search for one query (a vmap of itself for more): ``ceil(log2(n + 1))`` halvings of
    an unsigned ``[low, high)`` carry."""
    n = a.shape[0]
    if n == 0:
        return lax.full(v.shape, 0, dtype)
    if v.ndim > 0:
        from ..api import vmap

        impl = functools.partial(_searchsorted_scan_impl, side=side, dtype=dtype, unrolled=unrolled)
        return vmap(impl, in_axes=(None, 0))(a, v)
    unsigned = np.uint64 if dtype.itemsize == 8 else np.uint32

    def halve(state, _):
        low, high = state
        mid = low + (high - low) // 2  # (high + low overflows)
        go_left = sort_less(v, a[mid], or_equal=side == "left")
        return (lax.select(go_left, low, mid), lax.select(go_left, mid, high)), ()

    levels = int(np.ceil(np.log2(n + 1)))
    (_, high), _ = lax.scan(
        halve, (unsigned(0), unsigned(n)), (), length=levels, unroll=levels if unrolled else 1
    )
    return high.astype(dtype)


@staged_as_jit(static_argnames=("side", "dtype"))
def _searchsorted_compare_all_impl(a, v, side, dtype):
    """Count the sorted values before each query (one comparison each)."""
    from ..api import vmap

    before = vmap(functools.partial(sort_less, or_equal=side == "right"), in_axes=(0, None))(a, v)
    return lax.reduce_sum(convert(before, dtype), (0,))


@staged_as_jit(static_argnames=("side", "dtype"))
def _searchsorted_sort_impl(a, v, side, dtype):
    """Each query's rank among the sorted values and the queries together, less its rank among the
    queries alone."""
    work = np.dtype(np.int32 if a.size + v.size <= np.iinfo(np.int32).max else np.int64)

    def rank(x):
        idx = lax.iota(work, x.shape[0])
        return lax.full_like(idx, 0).at[lax.sort_key_val(x, idx)[1]].set(idx)

    if side == "left":
        index = rank(lax.concatenate([ravel(v), a], 0))[: v.size]
    else:
        index = rank(lax.concatenate([a, ravel(v)], 0))[a.shape[0] :]
    return lax.reshape(lax.sub(index, rank(ravel(v))), v.shape).astype(dtype)


def _partition_axis(a, kth, axis, name):
    a = as_operand(a)
    if dtype_kind(a.dtype) == "c":
        raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, a.ndim)
    return lax.transpose(a, _swap_last(a.ndim, axis)), canonicalize_axis(kth, a.shape[axis]), axis


def _swap_last(ndim, axis):
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return tuple(perm)


def _smallest(a, k):
    """``top_k`` of the negated values: the ``k`` smallest, smallest first (unsigned values are
    shifted by one first, so that 0 negates to the largest)."""
    if dtype_kind(a.dtype) == "u":
        one = np.array(1, a.dtype)
        vals, idx = lax.top_k(lax.neg(lax.add(a, one)), k)
        return lax.sub(lax.neg(vals), one), idx
    vals, idx = lax.top_k(lax.neg(a), k)
    return lax.neg(vals), idx


@staged_as_jit(static_argnames=("kth", "axis"))
def partition(a, kth: int, axis: int = -1):
    """The ``kth`` smallest element in its sorted place, the smaller ones before it (smallest
    first) and the larger ones after it (largest first), as JAX's ``top_k``-based partition orders
    them.

    >>> jnp.partition(jnp.array([5, 1, 4, 2, 3]), 1)
    Array([1, 2, 5, 4, 3], dtype=int32)
    """
    arr, kth, axis = _partition_axis(a, kth, axis, "partition")
    bottom = _smallest(arr, kth + 1)[0]
    top = lax.top_k(arr, arr.shape[-1] - kth - 1)[0]
    return lax.transpose(lax.concatenate([bottom, top], arr.ndim - 1), _swap_last(arr.ndim, axis))


@staged_as_jit(static_argnames=("kth", "axis"))
def argpartition(a, kth: int, axis: int = -1):
    """Indices that would partition ``a`` (as ``partition``): the ``kth + 1`` smallest first, then
    the rest in index order.

    >>> jnp.argpartition(jnp.array([5, 1, 4, 2, 3]), 1)
    Array([1, 3, 0, 2, 4], dtype=int32)
    """
    arr, kth, axis = _partition_axis(a, kth, axis, "argpartition")
    shift = lax.add(arr, np.array(1, arr.dtype)) if dtype_kind(arr.dtype) == "u" else arr  # (0 negates last)
    bottom = lax.top_k(lax.neg(shift), kth + 1)[1]
    # the others' indices: top_k of ones zeroed at the bottom ones (ties: lowest index first)
    from ..api import vmap

    zero_at = _zero_at
    for _ in range(arr.ndim - 1):
        zero_at = vmap(zero_at)
    proxy = zero_at(lax.full(arr.shape, 1.0), bottom)
    top = lax.top_k(proxy, arr.shape[-1] - kth - 1)[1]
    return lax.transpose(lax.concatenate([bottom, top], arr.ndim - 1), _swap_last(arr.ndim, axis))


def _zero_at(a, i):
    return a.at[i].set(0)


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *, method="auto"):
    """Whether each element of ``element`` occurs in ``test_elements``: JAX's jitted ``_in1d`` on
    both raveled, reshaped back. ``method``: JAX's ``'compare_all'`` (all against all; ``'auto'``),
    ``'binary_search'`` or ``'sort'``.

    >>> jnp.isin(jnp.array([1, 2, 3]), jnp.array([3, 1]))
    Array([ True, False,  True], dtype=bool)
    """
    check_arraylike("isin", element, test_elements)
    result = _in1d(element, test_elements, invert=invert, method=method, assume_unique=assume_unique)
    return reshape(result, np.shape(element))


@staged_as_jit(static_argnames=("assume_unique", "invert", "method"))
def _in1d(ar1, ar2, invert, method="auto", assume_unique=False):
    arr1, arr2 = promote_dtypes(as_operand(ar1), as_operand(ar2))
    arr1, arr2 = ravel(arr1), ravel(arr2)
    if arr1.size == 0 or arr2.size == 0:
        return lax.full(arr1.shape, invert, np.bool_)
    if method not in ("auto", "compare_all"):
        from ._isin_methods import in1d_by

        return in1d_by(method, arr1, arr2, invert, assume_unique)
    a = lax.broadcast_in_dim(arr1, (arr1.shape[0], 1), (0,))
    b = lax.broadcast_in_dim(arr2, (1, arr2.shape[0]), (1,))
    if invert:
        return lax.reduce_and(lax.ne(a, b), (1,))
    return lax.reduce_or(lax.eq(a, b), (1,))
