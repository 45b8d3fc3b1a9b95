"""Set operations on 1-D arrays (``intersect1d``, ``union1d``, ``setdiff1d``, ``setxor1d``) and the
array-API ``unique_*`` functions.

Their result sizes depend on the values, so, like ``jnp.unique``, traced inputs need a static ``size``:
``size`` (with ``fill_value``) pads or truncates the result to a fixed length.
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import core, lax
from ..constant_staging import staged
from ..core import Array, Tracer
from ._promote import as_operand, check_arraylike, promote_dtypes
from ._searching import UNIQUE_ARG_MSG, _unique_traced, nonzero, unique
from ._shape import ravel
from ._staged import staged_as_jit


def _values(x, name, context=None):
    context = f"The error arose in {name}()" if context is None else context
    return np.asarray(core.concrete_or_error(staged(x), context)).ravel()


def _fixed_size(values: np.ndarray, size, fill_value, default_fill):
    if size is None:
        return values
    size = operator.index(size)
    if len(values) >= size:
        return values[:size]
    fill = default_fill if fill_value is None else fill_value
    return np.concatenate([values, np.full(size - len(values), fill, values.dtype)])


def _traced(*xs) -> bool:
    """Whether some operand's values are unknown (traced): then only a static ``size`` works."""
    operands = [staged(as_operand(x)) for x in xs]
    return any(isinstance(x, Tracer) and x.concrete_value() is None for x in operands)


def _sorted_mask_of_unique(name, ar1, ar2):
    """Traced operands said to be unique and no ``size``: JAX goes on to mask their sorted
    concatenation by value, and its boolean index is what is refused (NonConcreteBooleanIndexError
    naming that mask)."""
    check_arraylike(name, ar1, ar2)
    a, b = promote_dtypes(ravel(as_operand(ar1)), ravel(as_operand(ar2)))
    aux = lax.sort(lax.concatenate([a, b], 0))
    if name == "intersect1d":
        return aux[:-1][aux[1:] == aux[:-1]]
    ends = np.ones(1, bool)
    flag = lax.concatenate([ends, aux[1:] != aux[:-1], ends], 0)
    return aux[flag[1:] & flag[:-1]]


def _pair(name, ar1, ar2, context=None):
    check_arraylike(name, ar1, ar2)
    a, b = promote_dtypes(as_operand(ar1), as_operand(ar2))
    if context is not None:  # (JAX's error names the raveled operand)
        a, b = ravel(a), ravel(b)
    return a.dtype, _values(a, name, context), _values(b, name, context)


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted unique values of ``ar1`` that are not in ``ar2``.

    >>> setdiff1d(jnp.array([1, 2, 3, 2]), jnp.array([2]))
    Array([1, 3], dtype=int32)
    """
    if size is not None and _traced(ar1, ar2):
        check_arraylike("setdiff1d", ar1, ar2)
        return _setdiff1d_sized(
            as_operand(ar1), as_operand(ar2), assume_unique, operator.index(size), fill_value
        )
    dtype, a, b = _pair("setdiff1d", ar1, ar2)
    out = np.setdiff1d(a, b, assume_unique=assume_unique).astype(dtype)
    return Array(_fixed_size(out, size, fill_value, 0))


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique values in either array.

    >>> union1d(jnp.array([3, 1]), jnp.array([2, 1]))
    Array([1, 2, 3], dtype=int32)
    """
    if size is not None and _traced(ar1, ar2):
        from ._shape import ravel

        a, b = promote_dtypes(ravel(as_operand(ar1)), ravel(as_operand(ar2)))
        return unique(lax.concatenate([a, b], 0), size=size, fill_value=fill_value)
    dtype, a, b = _pair("union1d", ar1, ar2)
    return unique(Array(np.concatenate([a, b]).astype(dtype)), size=size, fill_value=fill_value)


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted values in exactly one of the arrays.

    >>> setxor1d(jnp.array([1, 2, 3]), jnp.array([2, 4]))
    Array([1, 3, 4], dtype=int32)
    """
    if size is not None and _traced(ar1, ar2):
        check_arraylike("setxor1d", ar1, ar2)
        a, b = promote_dtypes(ravel(as_operand(ar1)), ravel(as_operand(ar2)))
        return _setxor1d_size(a, b, fill_value, assume_unique=assume_unique, size=operator.index(size))
    if assume_unique and _traced(ar1, ar2):
        return _sorted_mask_of_unique("setxor1d", ar1, ar2)
    # (JAX's first step is unique of each: its error, unless they are said to be unique)
    dtype, a, b = _pair("setxor1d", ar1, ar2, None if assume_unique else UNIQUE_ARG_MSG)
    out = np.setxor1d(a, b, assume_unique=assume_unique).astype(dtype)
    return Array(_fixed_size(out, size, fill_value, out.min() if len(out) else 0))


def intersect1d(
    ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *, size=None, fill_value=None
):
    """The sorted unique values in both arrays (and, with ``return_indices``, where each first
    occurs in ``ar1`` and in ``ar2``).

    >>> intersect1d(jnp.array([1, 2, 3]), jnp.array([3, 1, 5]))
    Array([1, 3], dtype=int32)
    """
    if size is not None and _traced(ar1, ar2):
        check_arraylike("intersect1d", ar1, ar2)
        a, b = promote_dtypes(as_operand(ar1), as_operand(ar2))
        return _intersect1d_size(
            ravel(a),
            ravel(b),
            return_indices=return_indices,
            size=operator.index(size),
            fill_value=fill_value,
            assume_unique=assume_unique,
        )
    if assume_unique and _traced(ar1, ar2):
        return _sorted_mask_of_unique("intersect1d", ar1, ar2)
    dtype, a, b = _pair("intersect1d", ar1, ar2, None if assume_unique else UNIQUE_ARG_MSG)
    if not return_indices:
        out = np.intersect1d(a, b, assume_unique=assume_unique).astype(dtype)
        return Array(_fixed_size(out, size, fill_value, out.min() if len(out) else 0))
    out, i1, i2 = np.intersect1d(a, b, assume_unique=assume_unique, return_indices=True)
    out = out.astype(dtype)
    index = core.default_dtype(int)
    return (
        Array(_fixed_size(out, size, fill_value, out.min() if len(out) else 0)),
        Array(_fixed_size(i1.astype(index), size, None, a.size)),
        Array(_fixed_size(i2.astype(index), size, None, b.size)),
    )


# --- with a static size, as JAX builds them (traceable: padded with fill_value) -------------------


def _setdiff1d_sized(a, b, assume_unique, size, fill_value):
    from ._creation import arange, full_like
    from ._searching import _in1d
    from ._selection import where

    a, b = ravel(a), ravel(b)
    fill = full_like(a, 0 if fill_value is None else fill_value, shape=())
    if a.size == 0:
        return full_like(a, fill, shape=size)
    if not assume_unique:
        a = unique(a, size=size and a.size)
    keep = _in1d(a, b, invert=True, assume_unique=assume_unique)
    if not assume_unique:  # (the padding unique added repeats the first value: not kept)
        n_unique = a.size + 1 - (a == a[0]).sum()
        keep = where(arange(a.size) < n_unique, keep, False)
    return where(arange(size) < keep.sum(), a[where(keep, size=size)], fill)


def _unique_prefix(a):
    """``a``'s distinct values first (sorted; padding after them) and how many there are."""
    values, count = _unique_traced(a, 0, a.size, None, True, False, False, False, True)
    return values, count


def _concat_unique(a, b):
    """The distinct values of ``a`` then those of ``b``, packed at the front, and their count."""
    from ._creation import zeros
    from ._dtypes import result_type

    a, n_a = _unique_prefix(ravel(a))
    b, n_b = _unique_prefix(ravel(b))
    both = zeros(a.size + b.size, dtype=result_type(a, b))
    both = lax.dynamic_update_slice(both, a, (0,))
    return lax.dynamic_update_slice(both, b, (n_a,)), n_a + n_b


def _first_results(aux, keep, size, count, fill_value):
    """The values of ``aux`` where ``keep`` holds, in ``size`` slots, then ``fill_value`` (default:
    the smallest of them); and where they were (past the end for the padding)."""
    from ._creation import arange, zeros
    from ._selection import where

    if aux.size:
        at = nonzero(keep, size=size, fill_value=aux.size)[0]
        vals = aux.at[at].get(mode="fill", fill_value=0)
    else:
        at, vals = arange(0), zeros(size, aux.dtype)
    if fill_value is None:  # (the largest first, so that the smallest is that of the results)
        vals = where(arange(len(vals)) < count, vals, vals.max())
        return where(arange(len(vals)) < count, vals, vals.min()), at
    return where(arange(len(vals)) < count, vals, fill_value), at


@staged_as_jit(static_argnames=("assume_unique", "size"))
def _setxor1d_size(a, b, fill_value, *, assume_unique, size):
    from ._creation import arange
    from ._searching import sort
    from ._shape import concatenate

    if assume_unique:
        aux = sort(concatenate([a, b]))
        flag = concatenate((bool(aux.size), aux[1:] != aux[:-1], True), axis=None)
    else:
        both, n = _concat_unique(a, b)
        valid = arange(both.size + 1) < n + 1
        _, aux = lax.sort([~valid[1:], both], is_stable=True, num_keys=2)
        flag = valid & concatenate((bool(aux.size), aux[1:] != aux[:-1], False), axis=None).at[n].set(True)
    once = flag[1:] & flag[:-1]
    return _first_results(aux, once, size, once.sum(), fill_value)[0]


@staged_as_jit(static_argnames=("fill_value", "assume_unique", "size", "return_indices"))
def _intersect1d_size(a, b, fill_value, assume_unique, size, return_indices):
    from ._creation import arange, full, ones, zeros
    from ._dtypes import result_type
    from ._selection import where
    from ._shape import concatenate

    if assume_unique:
        first_a, n_a = arange(a.size), full((), a.size)
        first_b = arange(b.size)
        both = concatenate([a, b])
        aux, order = lax.sort([both, arange(both.size)], is_stable=True, num_keys=1)
        valid = ones(both.size, dtype=bool)
    else:
        a, first_a, n_a = _unique_traced(a, 0, a.size, 0, True, True, False, False, True)
        b, first_b, n_b = _unique_traced(b, 0, b.size, 0, True, True, False, False, True)
        both = zeros(a.size + b.size, dtype=result_type(a, b))
        both = lax.dynamic_update_slice(both, a, (0,))
        both = lax.dynamic_update_slice(both, b, (n_a,))
        valid = arange(both.size) < n_a + n_b
        _, aux, order = lax.sort([~valid, both, arange(both.size)], is_stable=True, num_keys=2)
    # equal neighbours in the sorted distinct values of both: the intersection
    common = (aux[1:] == aux[:-1]) & valid[1:]
    count = common.sum()
    vals, at = _first_results(aux, common, size, count, fill_value)
    if not return_indices:
        return vals
    in_a = order.at[at].get(mode="fill", fill_value=a.size)
    in_a = where(arange(len(in_a)) < count, in_a, a.size)
    in_b = order.at[at + 1].get(mode="fill", fill_value=b.size) - n_a
    in_b = where(arange(len(in_b)) < count, in_b, b.size)
    if not assume_unique:
        in_a = first_a.at[in_a].get(mode="fill", fill_value=first_a.size)
        in_b = first_b.at[in_b].get(mode="fill", fill_value=first_b.size)
    return vals, in_a, in_b


class _UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class _UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class _UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _inverse_shaped(inverse, x):
    return inverse.reshape(np.shape(x))


def unique_all(x, /, *, size=None, fill_value=None):
    """(The array API's unique functions count every NaN as distinct.) Unique values with the index of each's first occurrence, the inverse map and the counts.

    >>> unique_all(jnp.array([3, 1, 3])).counts
    Array([1, 2], dtype=int32)
    """
    check_arraylike("unique_all", x)
    values, index, inverse, counts = unique(
        x,
        return_index=True,
        return_inverse=True,
        return_counts=True,
        equal_nan=False,
        size=size,
        fill_value=fill_value,
    )
    return _UniqueAllResult(values, index, _inverse_shaped(inverse, x), counts)


def unique_counts(x, /, *, size=None, fill_value=None):
    """Unique values and how often each occurs.

    >>> unique_counts(jnp.array([3, 1, 3]))
    _UniqueCountsResult(values=Array([1, 3], dtype=int32), counts=Array([1, 2], dtype=int32))
    """
    check_arraylike("unique_counts", x)
    return _UniqueCountsResult(
        *unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
    )


def unique_inverse(x, /, *, size=None, fill_value=None):
    """Unique values and, for each element of ``x``, the index of its value among them."""
    check_arraylike("unique_inverse", x)
    values, inverse = unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueInverseResult(values, _inverse_shaped(inverse, x))


def unique_values(x, /, *, size=None, fill_value=None):
    """The sorted unique values of ``x``."""
    check_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)
