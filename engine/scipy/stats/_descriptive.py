"""Descriptive statistics of jax.scipy.stats: ``mode``, ``rankdata`` and ``sem``.

>>> rankdata(jnp.array([3.0, 1.0, 3.0, 2.0]))
Array([3.5, 1. , 3.5, 2. ], dtype=float32)
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...api import jit, vmap
from ...numpy._promote import canonicalize_axis, check_arraylike, promote_args_inexact


class ModeResult(NamedTuple):
    mode: object
    count: object


def _check_nan_policy(nan_policy, name):
    if nan_policy not in ["propagate", "omit", "raise"]:
        raise ValueError(
            f"Illegal nan_policy value {nan_policy!r}; expected one of {{'propagate', 'omit', 'raise'}}"
        )
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. "
            f"Please check if nans exist in `x` outside of the `{name}` function."
        )


def _default_float():
    return jnp.zeros(()).dtype


@functools.partial(jit, static_argnames=["axis", "nan_policy", "keepdims"])
def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False) -> ModeResult:
    """The most frequent value along ``axis`` (the smallest among ties) and its count.

    >>> mode(jnp.array([2, 1, 2, 3, 1, 1]))
    ModeResult(mode=Array(1, dtype=int32), count=Array(3, dtype=int32))
    """
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _check_nan_policy(nan_policy, "mode")
    if axis is not None:
        axis = canonicalize_axis(axis, x.ndim)
    shape = x.shape
    if axis is None:
        out_shape = tuple(1 for _ in shape) if keepdims else ()
        axis, x = 0, x.ravel()
    elif keepdims:
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(shape))
    else:
        out_shape = tuple(s for i, s in enumerate(shape) if i != axis)

    def one_column(col):
        if col.size == 0:
            return jnp.array(np.nan, dtype=_default_float()), jnp.array(0, dtype=_default_float())
        # the first largest count is that of the smallest most frequent value (unique sorts)
        values, counts = jnp.unique(col, return_counts=True, size=col.size)
        return values[jnp.argmax(counts)], counts.max()

    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    values, counts = vmap(one_column, in_axes=1)(x)
    return ModeResult(values.reshape(out_shape), counts.reshape(out_shape))


def _invert_permutation(i):
    return jnp.empty_like(i).at[i].set(jnp.arange(i.size, dtype=i.dtype))


@functools.partial(jit, static_argnames=["method", "axis", "nan_policy"])
def rankdata(a, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"):
    """Ranks from 1, ties by ``method``: 'average', 'min', 'max', 'dense' or 'ordinal' (all NaN
    when the data holds a NaN), over the flattened array or along ``axis``."""
    check_arraylike("rankdata", a)
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    a = jnp.ravel(a)
    out_dtype = _default_float()

    def ranks(a):
        sorted_a, order = lax.sort_key_val(a, jnp.arange(a.size))
        inverse = _invert_permutation(order)
        if method == "ordinal":
            return (inverse + 1).astype(out_dtype)
        starts = jnp.concatenate([jnp.array([True]), sorted_a[1:] != sorted_a[:-1]])
        dense = starts.cumsum()[inverse]
        if method == "dense":
            return dense.astype(out_dtype)
        # count[j]: how many elements fall in the first j distinct values.
        count = jnp.nonzero(starts, size=sorted_a.size + 1, fill_value=starts.size)[0].astype(out_dtype)
        if method == "max":
            return count[dense]
        if method == "min":
            return count[dense - 1] + 1
        return 0.5 * (count[dense] + count[dense - 1] + 1)

    return lax.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, out_dtype), ranks, a)


@functools.partial(jit, static_argnames=["axis", "nan_policy", "keepdims"])
def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *, keepdims: bool = False):
    """The standard error of the mean, ``std(a, ddof=ddof) / sqrt(n)`` along ``axis``
    (``nan_policy='omit'`` ignores NaNs)."""
    (b,) = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
