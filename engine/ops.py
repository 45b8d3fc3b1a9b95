"""``jax.ops``: reductions of an array's rows grouped by segment id (``segment_sum`` and friends).

Each is one scatter of ``data`` into an array of ``num_segments`` rows filled with the reduction's
identity; ids outside ``[0, num_segments)`` are dropped (JAX's default ``mode``), so the functions
trace, differentiate and batch like the scatter they are.

>>> import engine.numpy as jnp
>>> segment_sum(jnp.arange(5), jnp.array([0, 0, 1, 1, 2]))
Array([1, 5, 4], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from . import core, lax
from . import numpy as jnp
from .lax.gather_scatter import GatherScatterMode
from .numpy._indexing import scatter_update
from .numpy._promote import check_arraylike

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]


def _identity(combine, dtype):
    dtype = np.dtype(dtype)
    if combine is lax.scatter_add:
        return np.zeros((), dtype)
    if combine is lax.scatter_mul:
        return np.ones((), dtype)
    big = combine is lax.scatter_min
    if dtype == np.bool_:
        return np.array(big)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array(info.max if big else info.min, dtype)
    return np.array(np.inf if big else -np.inf, dtype)


def _segment_update(
    name,
    data,
    segment_ids,
    combine,
    num_segments,
    indices_are_sorted,
    unique_indices,
    bucket_size,
    reducer,
    mode,
):
    check_arraylike(name, data, segment_ids)
    mode = GatherScatterMode.FILL_OR_DROP if mode is None else mode
    data, segment_ids = jnp.asarray(data), jnp.asarray(segment_ids)
    if num_segments is None:
        ids = core.concrete_or_error(segment_ids, f"{name}() `num_segments` argument.")
        num_segments = int(np.max(ids)) + 1
    num_segments = int(core.concrete_or_error(num_segments, f"{name}() `num_segments` argument."))
    if num_segments < 0:
        raise ValueError("num_segments must be non-negative.")
    fill = _identity(combine, data.dtype)
    flags = dict(
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, normalize_indices=False
    )
    if bucket_size is None:
        out = jnp.full((num_segments,) + data.shape[1:], fill, dtype=data.dtype)
        return scatter_update(out, segment_ids, data, combine, mode=mode, **flags)
    # One partial result per bucket of ``bucket_size`` consecutive rows, then reduced: shorter sums.
    num_buckets = -(-segment_ids.size // bucket_size)
    out = jnp.full((num_buckets, num_segments) + data.shape[1:], fill, dtype=data.dtype)
    index = (jnp.arange(segment_ids.shape[0]) // bucket_size, segment_ids[None, :])
    out = scatter_update(out, index, data, combine, mode=mode, **flags)
    return reducer(out, axis=0).astype(data.dtype)


def segment_sum(
    data,
    segment_ids,
    num_segments=None,
    indices_are_sorted=False,
    unique_indices=False,
    bucket_size=None,
    mode=None,
):
    """The sum of ``data``'s rows within each segment.

    Args:
      data: the values to sum, grouped along their leading axis.
      segment_ids: an integer array giving each row of ``data`` its segment.
      num_segments: the number of segments (static under ``jit``); default ``max(segment_ids) + 1``.
      indices_are_sorted, unique_indices: promises about ``segment_ids`` the scatter may use.
      bucket_size: sum buckets of this many rows separately, then add the buckets (more accurate).
      mode: a ``lax.GatherScatterMode``; by default ids outside ``[0, num_segments)`` are dropped.

    Returns:
      An array of shape ``(num_segments,) + data.shape[1:]``.

    >>> segment_sum(jnp.arange(4.0), jnp.array([1, 0, 1, 5]), num_segments=2)
    Array([1., 2.], dtype=float32)
    """
    return _segment_update(
        "segment_sum",
        data,
        segment_ids,
        lax.scatter_add,
        num_segments,
        indices_are_sorted,
        unique_indices,
        bucket_size,
        jnp.sum,
        mode,
    )


def segment_prod(
    data,
    segment_ids,
    num_segments=None,
    indices_are_sorted=False,
    unique_indices=False,
    bucket_size=None,
    mode=None,
):
    """The product of ``data``'s rows within each segment (arguments as in :func:`segment_sum`).

    >>> segment_prod(jnp.arange(6), jnp.array([0, 0, 1, 1, 2, 2]))
    Array([ 0,  6, 20], dtype=int32)
    """
    return _segment_update(
        "segment_prod",
        data,
        segment_ids,
        lax.scatter_mul,
        num_segments,
        indices_are_sorted,
        unique_indices,
        bucket_size,
        jnp.prod,
        mode,
    )


def segment_max(
    data,
    segment_ids,
    num_segments=None,
    indices_are_sorted=False,
    unique_indices=False,
    bucket_size=None,
    mode=None,
):
    """The maximum of ``data``'s rows within each segment; an empty segment holds the dtype's lowest
    value (``-inf`` for floats). Arguments as in :func:`segment_sum`.

    >>> segment_max(jnp.arange(6), jnp.array([0, 0, 1, 1, 2, 2]))
    Array([1, 3, 5], dtype=int32)
    """
    return _segment_update(
        "segment_max",
        data,
        segment_ids,
        lax.scatter_max,
        num_segments,
        indices_are_sorted,
        unique_indices,
        bucket_size,
        jnp.max,
        mode,
    )


def segment_min(
    data,
    segment_ids,
    num_segments=None,
    indices_are_sorted=False,
    unique_indices=False,
    bucket_size=None,
    mode=None,
):
    """The minimum of ``data``'s rows within each segment; an empty segment holds the dtype's highest
    value (``inf`` for floats). Arguments as in :func:`segment_sum`.

    >>> segment_min(jnp.arange(6), jnp.array([0, 0, 1, 1, 2, 2]))
    Array([0, 2, 4], dtype=int32)
    """
    return _segment_update(
        "segment_min",
        data,
        segment_ids,
        lax.scatter_min,
        num_segments,
        indices_are_sorted,
        unique_indices,
        bucket_size,
        jnp.min,
        mode,
    )
