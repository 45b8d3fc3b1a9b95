"""Set operations on 1-D arrays (``intersect1d``, ``union1d``, ``setdiff1d``, ``setxor1d``) and the
array-API ``unique_*`` functions.

Their result sizes depend on the values, so, like ``jnp.unique`` here, they need concrete inputs;
``size`` (with ``fill_value``) pads or truncates the result to a fixed length.
"""

from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from .. import core, lax
from ..core import Array, Tracer
from ._promote import as_operand, check_arraylike, promote_dtypes
from ._searching import unique


def _values(x, name):
    return np.asarray(core.concrete_or_error(x, f"The error arose in {name}()")).ravel()


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
    return any(isinstance(x, Tracer) and x.concrete_value() is None for x in xs)


def _pair(name, ar1, ar2):
    check_arraylike(name, ar1, ar2)
    a, b = promote_dtypes(as_operand(ar1), as_operand(ar2))
    return a.dtype, _values(a, name), _values(b, name)


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted unique values of ``ar1`` that are not in ``ar2``.

    >>> setdiff1d(jnp.array([1, 2, 3, 2]), jnp.array([2]))
    Array([1, 3], dtype=int32)
    """
    if size is not None and _traced(ar1, ar2):
        from ._searching import isin, unique_sized
        from ._shape import ravel

        a, b = promote_dtypes(ravel(as_operand(ar1)), ravel(as_operand(ar2)))
        a = lax.sort(a)
        return unique_sized(a, operator.index(size), fill_value, lax.bitwise_not(isin(a, b)), 0)
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
    dtype, a, b = _pair("setxor1d", ar1, ar2)
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
    dtype, a, b = _pair("intersect1d", ar1, ar2)
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
    """Unique values with the index of each's first occurrence, the inverse map and the counts.

    >>> unique_all(jnp.array([3, 1, 3])).counts
    Array([1, 2], dtype=int32)
    """
    check_arraylike("unique_all", x)
    values, index, inverse, counts = unique(
        x, return_index=True, return_inverse=True, return_counts=True, size=size, fill_value=fill_value
    )
    return _UniqueAllResult(values, index, _inverse_shaped(inverse, x), counts)


def unique_counts(x, /, *, size=None, fill_value=None):
    """Unique values and how often each occurs.

    >>> unique_counts(jnp.array([3, 1, 3]))
    _UniqueCountsResult(values=Array([1, 3], dtype=int32), counts=Array([1, 2], dtype=int32))
    """
    check_arraylike("unique_counts", x)
    return _UniqueCountsResult(*unique(x, return_counts=True, size=size, fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """Unique values and, for each element of ``x``, the index of its value among them."""
    check_arraylike("unique_inverse", x)
    values, inverse = unique(x, return_inverse=True, size=size, fill_value=fill_value)
    return _UniqueInverseResult(values, _inverse_shaped(inverse, x))


def unique_values(x, /, *, size=None, fill_value=None):
    """The sorted unique values of ``x``."""
    check_arraylike("unique_values", x)
    return unique(x, size=size, fill_value=fill_value)
