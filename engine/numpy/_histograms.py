"""Histograms and binning: ``histogram`` (1-D, 2-D, N-D), ``histogram_bin_edges``, ``digitize``.

Counts are one scatter-add of weights at each sample's bin (found by ``searchsorted``), so they
trace and differentiate with respect to the weights; the number of bins must be static.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .. import core
from ._creation import asarray, linspace, ones_like, zeros, zeros_like
from ._index_tricks import ix_, ravel_multi_index
from ._promote import as_operand, check_arraylike, promote_dtypes_inexact, to_inexact_dtype
from ._reductions import ptp
from ._searching import searchsorted
from ._selection import where
from ._shape import reshape, transpose
from ._staged import staged_as_jit
from ._statistics import bincount, diff


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002  (numpy's name)
    """The edges of ``bins`` equal bins over ``range`` (default: the data's min to max), or ``bins``
    itself when it is an array of edges.

    >>> histogram_bin_edges(jnp.array([1.0, 2.0, 5.0]), bins=4)
    Array([1., 2., 3., 4., 5.], dtype=float32)
    """
    del weights  # only string bins (not supported) would use them
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    arr = as_operand(a)
    dtype = to_inexact_dtype(arr.dtype)
    if np.ndim(bins) == 1:
        return as_operand(bins).astype(dtype)
    n = core.concrete_or_error(bins, "bins argument of histogram_bin_edges")
    n = operator.index(n.item() if isinstance(n, np.ndarray) else n)
    if range is None:
        range = [arr.min(), arr.max()]  # noqa: A001
    lohi = asarray(range, dtype=dtype)
    if lohi.shape != (2,):
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    # a zero-width range widens to one unit, as numpy does (JAX takes the ptp for each end)
    lo = where(ptp(lohi) == 0, lohi[0] - 0.5, lohi[0])
    hi = where(ptp(lohi) == 0, lohi[1] + 0.5, lohi[1])
    return linspace(lo, hi, n + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """Counts (or summed ``weights``) of ``a``'s values in each bin, and the bin edges; the last bin
    includes its right edge. ``density`` normalises to a probability density.

    >>> histogram(jnp.array([1.0, 2.0, 2.5, 5.0]), bins=2)
    (Array([3., 1.], dtype=float32), Array([1., 3., 5.], dtype=float32))
    """
    if weights is None:
        check_arraylike("histogram", a, bins)
        (a,) = promote_dtypes_inexact(as_operand(a))
        weights = ones_like(a)
    else:
        check_arraylike("histogram", a, bins, weights)
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes_inexact(as_operand(a), as_operand(weights))
    edges = histogram_bin_edges(a, bins, range, weights)
    idx = searchsorted(edges, a, side="right")
    idx = where(a == edges[-1], len(edges) - 1, idx)
    counts = zeros(len(edges), weights.dtype).at[idx].add(weights)[1:]
    if density:
        counts = counts / diff(edges) / counts.sum()
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The N-D histogram of ``sample`` (N points of D coordinates): counts of shape (bins,) * D and
    the edges per dimension.

    >>> h, edges = histogramdd(jnp.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), bins=2)
    >>> h
    Array([[1, 0],
           [1, 1]], dtype=int32)
    """
    if weights is None:
        check_arraylike("histogramdd", sample)
        (sample,) = promote_dtypes_inexact(as_operand(sample))
    else:
        check_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes_inexact(as_operand(sample), as_operand(weights))
    N, D = np.shape(sample)
    if range is not None and (len(range) != D or any(r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(
            f"For sample.shape={(N, D)}, range must be a sequence of {D} pairs or Nones; got {range=}"
        )
    try:
        per_dim = list(bins)
    except TypeError:  # one bin count for every dimension
        per_dim = D * [bins]
    else:
        if len(per_dim) != D:
            raise ValueError("should be a bin for each dimension.")
    idx_by_dim, edges_by_dim = [], []
    for i in builtins.range(D):
        edges = histogram_bin_edges(sample[:, i], per_dim[i], None if range is None else range[i], weights)
        idx = searchsorted(edges, sample[:, i], side="right")
        idx_by_dim.append(where(sample[:, i] == edges[-1], idx - 1, idx))
        edges_by_dim.append(edges)
    nbins = tuple(len(e) + 1 for e in edges_by_dim)  # with an underflow and an overflow bin each
    widths = [diff(e) for e in edges_by_dim]  # (before the counting, used or not, as JAX stages them)
    flat = ravel_multi_index(tuple(idx_by_dim), nbins, mode="clip")
    hist = reshape(bincount(flat, weights, length=math.prod(nbins)), nbins)
    hist = hist[D * (slice(1, -1),)]
    if density:
        hist = hist.astype(sample.dtype)
        hist = hist / hist.sum()
        for width in ix_(*widths):
            hist = hist / width
    return hist, edges_by_dim


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """The 2-D histogram of points ``(x[i], y[i])``: counts, x edges, y edges.

    >>> histogram2d(jnp.array([0.0, 1.0]), jnp.array([0.0, 1.0]), bins=2)[0]
    Array([[1, 0],
           [0, 1]], dtype=int32)
    """
    check_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:  # one array of edges for both coordinates
        bins = [as_operand(bins), as_operand(bins)]
    hist, edges = histogramdd(transpose(asarray([x, y])), bins, range, weights, density)
    return hist, edges[0], edges[1]


@staged_as_jit(static_argnames=("right", "method"))
def digitize(x, bins, right: bool = False, *, method=None):
    """The index of the bin each ``x`` falls in (``bins`` increasing or decreasing), as numpy's.

    >>> digitize(jnp.array([0.5, 1.0, 3.0]), jnp.array([1.0, 2.0]))
    Array([0, 1, 2], dtype=int32)
    """
    check_arraylike("digitize", x, bins)
    x, edges = as_operand(x), as_operand(bins)
    right = bool(core.concrete_or_error(right, "right argument of jnp.digitize()"))
    if edges.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got {bins=}")
    if edges.shape[0] == 0:
        return zeros_like(x, dtype=np.int32)
    side = "left" if right else "right"
    kwds = {} if method is None else {"method": method}
    increasing = edges[-1] >= edges[0]
    rising = searchsorted(edges, x, side=side, **kwds)
    falling = edges.shape[0] - searchsorted(edges[::-1], x, side=side, **kwds)
    return where(increasing, rising, falling)
