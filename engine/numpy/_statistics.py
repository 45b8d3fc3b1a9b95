"""Order statistics and friends: median/quantile/percentile, differences, covariance, bincount, interp."""

from __future__ import annotations

import operator

import numpy as np

from .. import core, lax
from ..core import Array, Tracer
from ._promote import (
    as_operand,
    canonicalize_axis,
    check_arraylike,
    concrete_int,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
    to_inexact_dtype,
)
from ._staged import staged_as_jit
from ..narrow_dtypes import kind as dtype_kind


def quantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    interpolation=None,
):
    """The ``q``-th quantiles (``q`` in [0, 1], scalar or array) along ``axis``, by sorting.

    >>> jnp.quantile(jnp.arange(5.0), 0.5)
    Array(2., dtype=float32)
    """
    return _quantile(a, q, axis, method if interpolation is None else interpolation, keepdims, False)


def _quantile(a, q, axis, method, keepdims, ignore_nan):
    from ._shape import moveaxis, ravel
    from ._searching import sort
    from ._logic import isnan

    check_arraylike("quantile", a, q)
    (a,) = promote_dtypes_inexact(as_operand(a))
    q = convert(as_operand(q), a.dtype)
    if axis is None:
        nd = a.ndim
        a, ax = ravel(a), 0
    else:
        nd = a.ndim
        ax = canonicalize_axis(axis, a.ndim)
    x = sort(moveaxis(a, ax, -1), axis=-1)
    n = x.shape[-1]
    if ignore_nan:
        count = lax.reduce_sum(convert(lax.bitwise_not(isnan(x)), a.dtype), (x.ndim - 1,))
    else:
        count = lax.full(x.shape[:-1], n, a.dtype)
    # Positions per output element: q over the leading axes of the result.
    qb = lax.broadcast_in_dim(q, q.shape + count.shape, tuple(range(q.ndim)))
    cb = lax.broadcast_in_dim(count, q.shape + count.shape, tuple(range(q.ndim, q.ndim + count.ndim)))
    pos = lax.mul(qb, lax.sub(cb, lax.full_like(cb, 1)))
    lo, hi = lax.floor(pos), lax.ceil(pos)
    if method == "lower":
        pos = lo
    elif method == "higher":
        pos = hi
    elif method == "nearest":
        pos = lax.round(pos, 1)
    elif method == "midpoint":
        pass
    elif method != "linear":
        raise ValueError(f"method {method!r} not supported")
    xb = lax.broadcast_in_dim(x, q.shape + x.shape, tuple(range(q.ndim, q.ndim + x.ndim)))

    def at(p):
        i = lax.convert_element_type(lax.clamp(lax.full_like(p, 0), p, lax.full_like(p, n - 1)), np.int32)
        i = lax.reshape(i, i.shape + (1,))
        from ._take import take_along_axis

        return lax.squeeze(take_along_axis(xb, i, axis=-1), (xb.ndim - 1,))

    if method in ("lower", "higher", "nearest"):
        res = at(pos)
    else:
        vlo, vhi = at(lo), at(hi)
        w = lax.sub(pos, lo) if method == "linear" else lax.full_like(pos, 0.5)
        w = lax.select(lax.eq(lo, hi), lax.full_like(w, 0), w)
        res = lax.add(vlo, lax.mul(w, lax.sub(vhi, vlo)))
    if not ignore_nan:
        # numpy propagates NaN: sorted NaNs sit last, so any NaN shows in the maximum.
        last = lax.broadcast_in_dim(
            lax.squeeze(lax.slice_in_dim(x, n - 1, n, axis=x.ndim - 1), (x.ndim - 1,)),
            res.shape,
            tuple(range(q.ndim, res.ndim)),
        )
        res = lax.select(lax.ne(last, last), last, res)
    if keepdims:
        shape = list(res.shape[: q.ndim]) + (
            [1] * nd if axis is None else [1 if i == ax else d for i, d in enumerate(a.shape)]
        )
        res = lax.reshape(res, shape)
    return res


def percentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    interpolation=None,
):
    """``quantile`` with ``q`` in percent."""
    from ._ufuncs import true_divide

    return quantile(
        a,
        true_divide(q, 100.0),
        axis,
        method=method if interpolation is None else interpolation,
        keepdims=keepdims,
    )


def median(a, axis=None, out=None, overwrite_input=False, keepdims: bool = False):
    """The median along ``axis`` (the mean of the two middle values for even sizes)."""
    return quantile(a, 0.5, axis, keepdims=keepdims)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    return _quantile(a, q, axis, method, keepdims, True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    from ._ufuncs import true_divide

    return _quantile(a, true_divide(q, 100.0), axis, method, keepdims, True)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _quantile(a, 0.5, axis, "linear", keepdims, True)


@staged_as_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """Variance of the non-NaN elements along ``axis``: NaN where fewer than ``ddof + 1`` remain.

    >>> jnp.nanvar(jnp.array([1.0, jnp.nan, 3.0]))
    Array(1., dtype=float32)
    """
    from ._dtypes import to_dtype
    from ._reductions import nanmean, sum, upcast_f16
    from ._selection import _where

    check_arraylike("nanvar", a)
    a = as_operand(a)
    if dtype is not None:
        dtype = core.canonical_dtype(to_dtype(dtype))
    if dtype is None and dtype_kind(a.dtype) not in "fc":
        dtype = to_inexact_dtype(a.dtype)
    computation = upcast_f16(dtype if dtype is not None else a.dtype)
    if dtype is None:  # the real dtype of a complex variance
        dtype = np.dtype(np.asarray(0, a.dtype).real.dtype)
    a = convert(a, computation)
    a_mean = nanmean(a, axis, dtype=computation, keepdims=True, where=where) if mean is None else mean
    a_mean = convert(as_operand(a_mean), computation)
    centered = _where(lax.ne(a, a), 0, lax.sub(a, a_mean))  # zero at NaNs: their gradient stays finite
    if dtype_kind(centered.dtype) == "c":
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        centered = lax.square(centered)
    normalizer = sum(lax.not_(lax.ne(a, a)), axis=axis, keepdims=keepdims, where=where) - ddof
    too_few = lax.le(normalizer, np.zeros((), normalizer.dtype))
    result = _where(too_few, np.nan, sum(centered, axis, keepdims=keepdims, where=where))
    divisor = _where(too_few, 1, normalizer)
    return convert(lax.div(result, convert(divisor, result.dtype)), dtype)


@staged_as_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """Standard deviation of the non-NaN elements along ``axis`` (square root of ``nanvar``)."""
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where, mean=mean))


def _nanarg(name, fill):
    def f(a, axis=None, keepdims=False):
        from ._reductions import all as all_, argmax, argmin
        from ._selection import _where

        arg = argmax if name == "_nanargmax" else argmin
        if dtype_kind(a.dtype) not in "fc":
            return arg(a, axis, keepdims=keepdims)
        nan_mask = lax.ne(a, a)
        res = arg(_where(nan_mask, fill, a), axis, keepdims=keepdims)
        return _where(all_(nan_mask, axis=axis, keepdims=keepdims), -1, res)  # -1: all of them NaN

    f.__name__ = f.__qualname__ = name
    return staged_as_jit(f, static_argnames=("axis", "keepdims"))


_nanargmax = _nanarg("_nanargmax", -np.inf)
_nanargmin = _nanarg("_nanargmin", np.inf)


def nanargmax(a, axis=None, out=None, keepdims=False):
    """Index of the largest non-NaN element along ``axis``; -1 where all are NaN.

    >>> jnp.nanargmax(jnp.array([1.0, jnp.nan, 3.0]))
    Array(2, dtype=int32)
    """
    check_arraylike("nanargmax", a)
    return _nanargmax(as_operand(a), None if axis is None else operator.index(axis), keepdims=bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=False):
    """Index of the smallest non-NaN element along ``axis``; -1 where all are NaN."""
    check_arraylike("nanargmin", a)
    return _nanargmin(as_operand(a), None if axis is None else operator.index(axis), keepdims=bool(keepdims))


def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
    """``n``-th discrete difference along ``axis``."""
    from ._shape import concatenate, slice_axis
    from ._logic import not_equal
    from ._ufuncs import subtract

    a = as_operand(a)
    ax = canonicalize_axis(axis, a.ndim)
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        e = as_operand(extra)
        if e.ndim == 0:
            shape = list(a.shape)
            shape[ax] = 1
            e = lax.broadcast_in_dim(e, shape, ())
        parts.append(e)
    if parts[0] is not None or parts[1] is not None:
        a = concatenate([p for p in (parts[0], a, parts[1]) if p is not None], ax)
    for _ in range(int(n)):
        m = a.shape[ax]
        hi, lo = slice_axis(a, ax, 1, m), slice_axis(a, ax, 0, m - 1)
        a = not_equal(hi, lo) if a.dtype == np.bool_ else subtract(hi, lo)
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    from ._shape import concatenate, ravel

    d = diff(ravel(ary))
    parts = [
        ravel(as_operand(to_begin)) if to_begin is not None else None,
        d,
        ravel(as_operand(to_end)) if to_end is not None else None,
    ]
    return (
        concatenate([p for p in parts if p is not None])
        if len([p for p in parts if p is not None]) > 1
        else d
    )


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule."""
    from ._reductions import sum
    from ._shape import slice_axis
    from ._ufuncs import multiply

    (y,) = promote_dtypes_inexact(as_operand(y))
    ax = canonicalize_axis(axis, y.ndim)
    m = y.shape[ax]
    avg = lax.mul(lax.add(slice_axis(y, ax, 1, m), slice_axis(y, ax, 0, m - 1)), lax.full((), 0.5, y.dtype))
    if x is None:
        return multiply(sum(avg, axis=ax), dx)
    d = diff(x, axis=-1 if np.ndim(x) == 1 else ax)
    if np.ndim(x) == 1 and y.ndim > 1:
        d = lax.broadcast_in_dim(convert(as_operand(d), y.dtype), avg.shape, (ax,))
    return sum(multiply(avg, d), axis=ax)


def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows (or columns, with ``rowvar=False``) of ``m``."""
    from ._contract import matmul
    from ._reductions import mean
    from ._shape import atleast_2d, concatenate

    (m,) = promote_dtypes_inexact(as_operand(m))
    x = atleast_2d(m)
    if not rowvar and x.shape[0] != 1:
        x = lax.transpose(x, (1, 0))
    if y is not None:
        yy = atleast_2d(promote_dtypes_inexact(as_operand(y))[0])
        if not rowvar and yy.shape[0] != 1:
            yy = lax.transpose(yy, (1, 0))
        x = concatenate([x, convert(yy, x.dtype)], axis=0)
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov weights are not supported")
    n = x.shape[1]
    ddof = (0 if bias else 1) if ddof is None else ddof
    xc = x - mean(x, axis=1, keepdims=True)
    c = matmul(xc, lax.transpose(xc, (1, 0))) / (n - ddof)
    return lax.squeeze(c, (0, 1)) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar: bool = True):
    from ._diagonal import diagonal

    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = lax.sqrt(diagonal(c))
    return c / d[:, None] / d[None, :]


def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None):
    """Counts of each non-negative int in ``x``; under tracing ``length`` must be given."""
    x = as_operand(x)
    if dtype_kind(x.dtype) not in "iu":
        raise TypeError(f"bincount requires integer input, got {x.dtype.name}")
    if length is None:
        if isinstance(x, Tracer):
            raise core.ConcretizationTypeError(x, "bincount's output size depends on max(x); pass length=")
        v = core.to_numpy(x)
        length = max(int(minlength), int(v.max()) + 1 if v.size else 0)
    length = concrete_int(length, "bincount length")
    w = (
        lax.full(x.shape, 1, core.default_dtype(int))
        if weights is None
        else promote_dtypes(as_operand(weights))[0]
    )
    from ._creation import zeros

    return zeros(length, w.dtype).at[x].add(w, mode="drop")


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of ``(xp, fp)`` (``xp`` increasing) at ``x``."""
    from ._searching import searchsorted
    from ._selection import where

    x, xp, fp = promote_dtypes_inexact(as_operand(x), as_operand(xp), as_operand(fp))
    if period is not None:
        raise NotImplementedError("interp period is not supported")
    n = xp.shape[0]
    i = lax.clamp(lax.full((), 1, np.int32), searchsorted(xp, x, side="right"), lax.full((), n - 1, np.int32))
    from ._take import take

    x0, x1 = take(xp, i - 1, mode="clip"), take(xp, i, mode="clip")
    f0, f1 = take(fp, i - 1, mode="clip"), take(fp, i, mode="clip")
    dx = x1 - x0
    t = where(dx == 0, 0.0, (x - x0) / where(dx == 0, 1.0, dx))
    out = f0 + t * (f1 - f0)
    out = where(x < xp[0], fp[0] if left is None else left, out)
    return where(x > xp[-1], fp[-1] if right is None else right, out)


del Array
