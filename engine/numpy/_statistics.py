"""Order statistics and friends: median/quantile/percentile, differences, covariance, bincount, interp."""

from __future__ import annotations

import functools
import operator

import numpy as np

from .. import core, lax
from ..constant_staging import staged
from ..core import Array, Tracer
from ._promote import (
    as_operand,
    canonicalize_axis,
    check_arraylike,
    check_axes_index,
    concrete_int,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
    to_inexact_dtype,
)
from ..lax.elementwise import _const
from ._staged import staged_as_jit
from ..narrow_dtypes import kind as dtype_kind


@staged_as_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def quantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input=False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights=None,
):
    """The ``q``-th quantiles (``q`` in [0, 1], scalar or 1-d array) along ``axis``, by sorting;
    ``weights`` (with ``method='inverted_cdf'``) weigh each element.

    >>> jnp.quantile(jnp.arange(5.0), 0.5)
    Array(2., dtype=float32)
    >>> jnp.quantile(jnp.arange(5.0), 0.5, weights=jnp.array([1., 1., 1., 4., 1.]), method='inverted_cdf')
    Array(3., dtype=float32)
    """
    check_arraylike("quantile", a, q, *(() if weights is None else (weights,)))
    _check_no_output("quantile", out, overwrite_input)
    return _quantile(as_operand(a), as_operand(q), axis, method, keepdims, False, _operand(weights))


@staged_as_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanquantile(
    a, q, axis=None, out=None, overwrite_input=False, method: str = "linear", keepdims=False, *, weights=None
):
    """``quantile`` ignoring NaNs (all-NaN slices give NaN).

    >>> jnp.nanquantile(jnp.array([1.0, jnp.nan, 3.0]), 0.5)
    Array(2., dtype=float32)
    """
    check_arraylike("nanquantile", a, q, *(() if weights is None else (weights,)))
    _check_no_output("nanquantile", out, overwrite_input)
    return _quantile(as_operand(a), as_operand(q), axis, method, keepdims, True, _operand(weights))


def _operand(x):
    return None if x is None else as_operand(x)


def _check_no_output(name, out, overwrite_input):
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or out != None")


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(a, q, axis, method, keepdims, squash_nans, weights=None):
    # JAX's construction: sort along the axis, then gather the values either side of q * (n - 1).
    from ._reductions import any as any_, sum as sum_
    from ._selection import _where
    from ._shape import ravel

    if method not in _METHODS + ("inverted_cdf",):
        raise ValueError(
            "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'"
        )
    if weights is not None:
        if dtype_kind(weights.dtype) == "c":
            raise ValueError("Weights cannot be complex types.")
        if method != "inverted_cdf":
            raise NotImplementedError(
                f"{method} doesn't support weights. Only method 'inverted_cdf' supports weights."
            )
        a, weights = promote_dtypes_inexact(a, weights)
        if weights.shape != a.shape:
            if axis is None:
                raise ValueError("Weights shape must match 'a' shape when axis is None.")
            axes = tuple(
                canonicalize_axis(ax, a.ndim) for ax in (axis if isinstance(axis, tuple) else (axis,))
            )
            if weights.shape != tuple(a.shape[ax] for ax in axes):
                raise ValueError(
                    f"Weights shape {weights.shape} must match reduction axes {tuple(a.shape[ax] for ax in axes)}"
                )
            weights = lax.broadcast_in_dim(weights, a.shape, axes)
    else:
        (a,) = promote_dtypes_inexact(a)
    if dtype_kind(a.dtype) == "c":
        raise ValueError("quantile does not support complex input, as the operation is poorly defined.")
    keepdim = []
    if axis is None:
        if keepdims:
            keepdim = [1] * a.ndim
        a, axis = ravel(a), 0
        weights = None if weights is None else ravel(weights)
    elif isinstance(axis, tuple):
        nd = a.ndim
        axis = tuple(canonicalize_axis(ax, nd) for ax in axis)
        if len(set(axis)) != len(axis):
            raise ValueError("repeated axis")
        keepdim = [1 if i in axis else d for i, d in enumerate(a.shape)]
        dims = list(range(nd))
        for i, s in enumerate(sorted(set(range(nd)) - set(axis))):
            dims[i], dims[s] = dims[s], dims[i]
        kept = tuple(d for i, d in enumerate(a.shape) if i not in axis)
        folded = int(np.prod([d for i, d in enumerate(a.shape) if i in axis]))
        a = lax.reshape(a, kept + (folded,), dims)
        weights = None if weights is None else lax.reshape(weights, kept + (folded,), dims)
        axis = a.ndim - 1
    else:
        axis = canonicalize_axis(axis, a.ndim)
    if q.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {q.shape}")
    if not squash_nans and weights is None and a.shape[axis] == 0:
        # JAX gathers a slice of size 1 from the empty axis and raises its gather's TypeError
        raise TypeError(
            "quantile/median of an empty axis: Slice size at index 0 in gather op is out of range, "
            "must be within [0, 0 + 1), got 1."
        )
    q_shape, q_ndim, a_shape, q_orig = q.shape, q.ndim, a.shape, q
    if squash_nans:
        a = _where(lax.ne(a, a), np.nan, a)  # NaNs positive, so that they sort last
        a, weights = _sort(a, weights, axis)
        counts = sum_(lax.bitwise_not(lax.ne(a, a)), axis=axis, dtype=q.dtype, keepdims=keepdims)
        reduced_shape = counts.shape
        q = lax.expand_dims(q, tuple(range(q_ndim, len(reduced_shape) + q_ndim)))
        counts = lax.expand_dims(counts, tuple(range(q_ndim)))
        q = lax.mul(q, lax.sub(counts, _const(q, 1)))
        low, high = lax.floor(q), lax.ceil(q)
        high_weight = lax.sub(q, low)
        low_weight = lax.sub(_const(high_weight, 1), high_weight)
        low = lax.max(_const(low, 0), lax.min(low, counts - 1))
        high = lax.max(_const(high, 0), lax.min(high, counts - 1))
        low = lax.convert_element_type(low, core.default_dtype(int))
        high = lax.convert_element_type(high, core.default_dtype(int))
        out_shape = q_shape + reduced_shape
        index = [
            lax.broadcasted_iota(core.default_dtype(int), out_shape, d + q_ndim)
            for d in range(len(reduced_shape))
        ]
        if keepdims:
            index[axis] = low
        else:
            index.insert(axis, low)
        low_value = a[tuple(index)]
        index[axis] = high
        high_value = a[tuple(index)]
    else:
        a = _where(any_(lax.ne(a, a), axis=axis, keepdims=True), np.nan, a)
        a, weights = _sort(a, weights, axis)
        n = convert(a_shape[axis], q.dtype)  # (a constant, as JAX's folded conversion)
        q = lax.mul(q, n - 1)
        low, high = lax.floor(q), lax.ceil(q)
        high_weight = lax.sub(q, low)
        low_weight = lax.sub(_const(high_weight, 1), high_weight)
        low = lax.clamp(_const(low, 0), low, n - 1)
        high = lax.clamp(_const(high, 0), high, n - 1)
        low = lax.convert_element_type(low, core.default_dtype(int))
        high = lax.convert_element_type(high, core.default_dtype(int))
        slice_sizes = list(a_shape)
        slice_sizes[axis] = 1
        last = len(a_shape) + q_ndim if keepdims else len(a_shape) + q_ndim - 1
        dnums = lax.GatherDimensionNumbers(
            offset_dims=tuple(range(q_ndim, last)),
            collapsed_slice_dims=() if keepdims else (axis,),
            start_index_map=(axis,),
        )
        low_value = lax.gather(a, low[..., None], dimension_numbers=dnums, slice_sizes=slice_sizes)
        high_value = lax.gather(a, high[..., None], dimension_numbers=dnums, slice_sizes=slice_sizes)
        if q_ndim == 1:
            low_weight = lax.broadcast_in_dim(low_weight, low_value.shape, (0,))
            high_weight = lax.broadcast_in_dim(high_weight, high_value.shape, (0,))
    if method == "linear":
        result = lax.add(
            lax.mul(low_value.astype(q.dtype), low_weight), lax.mul(high_value.astype(q.dtype), high_weight)
        )
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = lax.select(lax.le(high_weight, _const(high_weight, 0.5)), low_value, high_value)
    elif method == "midpoint":
        result = lax.mul(lax.add(low_value, high_value), _const(low_value, 0.5))
    else:
        from ._inverted_cdf import inverted_cdf

        result = inverted_cdf(a, weights, q_orig, axis, keepdims, squash_nans, a_shape[axis])
    if keepdims and keepdim:
        result = result.reshape(([q_shape[0]] if q_ndim else []) + keepdim)
    return lax.convert_element_type(result, a.dtype)


def _sort(a, weights, axis):
    """``a`` sorted along ``axis``, and ``weights`` (if any) in the same order."""
    if weights is None:
        return lax.sort(a, dimension=axis), None
    return lax.sort_key_val(a, weights, dimension=axis)


def percentile(
    a, q, axis=None, out=None, overwrite_input=False, method: str = "linear", keepdims=False, *, weights=None,
    out_sharding=None,
):  # fmt: skip
    """``quantile`` with ``q`` in percent; ``out_sharding`` lays the result out (``reshard``).

    >>> jnp.percentile(jnp.arange(5.0), 25.0)
    Array(1., dtype=float32)
    """
    result = _percentile(
        a, q, axis=axis, out=out, overwrite_input=overwrite_input, method=method, keepdims=keepdims,
        weights=weights,
    )  # fmt: skip
    if out_sharding is None:  # (laid out after the jit: a nested jit's result keeps its body's type)
        return result
    from ..sharding import reshard

    return reshard(result, out_sharding)


@staged_as_jit(name="percentile", static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def _percentile(a, q, axis, out, overwrite_input, method, keepdims, *, weights):
    from ._ufuncs import true_divide

    check_arraylike("percentile", a, q)
    (q,) = promote_dtypes_inexact(as_operand(q))
    return quantile(
        a, true_divide(q, 100), axis=axis, out=out, overwrite_input=overwrite_input, method=method,
        keepdims=keepdims, weights=weights,
    )  # fmt: skip


@staged_as_jit(static_argnames=("axis", "overwrite_input", "keepdims", "method"))
def nanpercentile(
    a, q, axis=None, out=None, overwrite_input=False, method: str = "linear", keepdims=False, *, weights=None
):
    """``nanquantile`` with ``q`` in percent."""
    from ._ufuncs import true_divide

    check_arraylike("nanpercentile", a, q)
    (q,) = promote_dtypes_inexact(as_operand(q))
    return nanquantile(
        a, true_divide(q, 100), axis=axis, out=out, overwrite_input=overwrite_input, method=method,
        keepdims=keepdims, weights=weights,
    )  # fmt: skip


@staged_as_jit(static_argnames=("axis", "overwrite_input", "keepdims"))
def median(a, axis=None, out=None, overwrite_input=False, keepdims: bool = False):
    """The median along ``axis`` (the mean of the two middle values for even sizes).

    >>> jnp.median(jnp.array([3.0, 1.0, 4.0, 2.0]))
    Array(2.5, dtype=float32)
    """
    check_arraylike("median", a)
    return quantile(
        a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims, method="midpoint"
    )


@staged_as_jit(static_argnames=("axis", "overwrite_input", "keepdims"))
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median ignoring NaNs."""
    check_arraylike("nanmedian", a)
    return nanquantile(
        a, 0.5, axis=axis, out=out, overwrite_input=overwrite_input, keepdims=keepdims, method="midpoint"
    )


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
    _no_out("nanvar", out)
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
    _no_out("nanstd", out)
    return lax.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where, mean=mean))


def _no_out(name, out):
    from ._reductions import no_out

    no_out(name, out)


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
    _no_out("nanargmax", out)
    a = as_operand(a)
    check_axes_index(a.shape, axis)
    return _nanargmax(a, None if axis is None else operator.index(axis), keepdims=bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=False):
    """Index of the smallest non-NaN element along ``axis``; -1 where all are NaN."""
    check_arraylike("nanargmin", a)
    _no_out("nanargmin", out)
    a = as_operand(a)
    check_axes_index(a.shape, axis)
    return _nanargmin(a, None if axis is None else operator.index(axis), keepdims=bool(keepdims))


@staged_as_jit(static_argnames=("n", "axis"))
def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
    """``n``-th discrete difference along ``axis``."""
    from ._shape import concatenate, slice_axis
    from ._logic import not_equal
    from ._ufuncs import subtract

    a = as_operand(a)
    n = operator.index(n)
    if n == 0:  # (as JAX: a itself, prepend and append ignored)
        return a
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if a.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
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
    for _ in range(n):
        m = a.shape[ax]
        # (clamped as Python slices are: once empty, a difference is empty)
        hi, lo = slice_axis(a, ax, min(1, m), m), slice_axis(a, ax, 0, max(m - 1, 0))
        a = not_equal(hi, lo) if a.dtype == np.bool_ else subtract(hi, lo)
    return a


@staged_as_jit
def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of ``ary`` flattened, with ``to_begin`` and ``to_end``
    joined on (one concatenation each, as JAX's).

    >>> jnp.ediff1d(jnp.array([1, 2, 4]), to_end=jnp.array([0]))
    Array([1, 2, 0], dtype=int32)
    """
    from ._shape import concatenate, ravel

    check_arraylike("ediff1d", ary)
    arr = ravel(ary)
    result = lax.sub(arr[1:], arr[:-1])
    if to_begin is not None:
        check_arraylike("ediff1d", to_begin)
        result = concatenate((ravel(as_operand(to_begin).astype(arr.dtype)), result))
    if to_end is not None:
        check_arraylike("ediff1d", to_end)
        result = concatenate((result, ravel(as_operand(to_end).astype(arr.dtype))))
    return result


@staged_as_jit(static_argnames=("axis",))
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule, as JAX computes it: a constant
    spacing takes the sum less half the end points, a varying one the mean of neighbours.

    >>> jnp.trapezoid(jnp.array([1.0, 2.0, 3.0]))
    Array(4., dtype=float32)
    """
    from ._creation import asarray
    from ._shape import moveaxis

    if x is None:
        check_arraylike("trapezoid", y)
        (y_arr,) = promote_dtypes_inexact(as_operand(y))
        dx_array = asarray(dx)
        if dx_array.ndim > 0:
            dx_array = lax.expand_dims(dx_array, tuple(range(y_arr.ndim - dx_array.ndim)))
            dx_array = moveaxis(dx_array, axis, -1)
    else:
        check_arraylike("trapezoid", y, x)
        y_arr, x_arr = promote_dtypes_inexact(as_operand(y), as_operand(x))
        dx_array = diff(x_arr) if x_arr.ndim == 1 else moveaxis(diff(x_arr, axis=axis), axis, -1)
    y_arr = moveaxis(y_arr, axis, -1)
    if dx_array.ndim == 0 or dx_array.shape[-1] == 1:  # a constant spacing
        dx_reduced = dx_array if dx_array.ndim == 0 else dx_array[..., 0]
        return dx_reduced * (y_arr.sum(-1) - 0.5 * (y_arr[..., 0] + y_arr[..., -1]))
    return 0.5 * (dx_array * (y_arr[..., 1:] + y_arr[..., :-1])).sum(-1)


def _sample_weights(name: str, w, n: int):
    w = as_operand(w)
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    return w


@staged_as_jit(static_argnames=("rowvar", "bias", "ddof", "dtype"))
def cov(
    m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None, aweights=None, dtype=None
):
    """Covariance matrix of the variables in the rows (or columns, with ``rowvar=False``) of ``m``,
    optionally weighted by frequency (``fweights``) and analytic (``aweights``) weights."""
    from ._contract import dot
    from ._creation import full, zeros
    from ._reductions import average
    from ._reductions import sum as total
    from ._shape import atleast_2d, concatenate
    from ._ufuncs import abs as absolute, true_divide

    if y is not None:
        m, y = promote_dtypes_inexact(m, y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        (m,) = promote_dtypes_inexact(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is not None and dtype_kind(np.dtype(dtype)) not in "fc":
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got {dtype=}")
    x = atleast_2d(m)
    if not rowvar and m.ndim != 1:
        x = x.T
    if x.shape[0] == 0:
        return zeros((0, 0), core.default_dtype(float))
    if y is not None:
        yy = atleast_2d(y)
        if not rowvar and yy.shape[0] != 1:
            yy = yy.T
        x = concatenate((x, yy), axis=0)
    if x.shape[1] == 0:
        return full(() if x.shape[0] == 1 else (x.shape[0], x.shape[0]), np.nan, dtype=x.dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    if fweights is not None:
        fweights = _sample_weights("fweights", fweights, x.shape[1])
        if dtype_kind(fweights.dtype) not in "iu":
            raise TypeError("fweights must be integer.")
        w = absolute(fweights)  # (numpy rejects negative weights; these count as positive)
    if aweights is not None:
        aweights = absolute(_sample_weights("aweights", aweights, x.shape[1]))
        w = aweights if w is None else w * aweights
    if dtype is not None:
        x = x.astype(dtype)
        w = w.astype(dtype) if w is not None else w
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    # numpy's normalisation: sum(w) - ddof * sum(w * a) / sum(w), or n - ddof unweighted
    if w is None:
        f = x.shape[1] - ddof
    elif ddof == 0:
        f = w_sum
    elif aweights is None:
        f = w_sum - ddof
    else:
        f = w_sum - ddof * total(w * aweights) / w_sum
    x = x - avg[:, None]
    x_t = (
        x.T
        if w is None
        else (
            x
            * lax.broadcast_in_dim(
                w, (1,) * (x.ndim - w.ndim) + w.shape, tuple(range(x.ndim - w.ndim, x.ndim))
            )
        ).T
    )
    return true_divide(dot(x, x_t.conj()), f).squeeze()


@staged_as_jit(static_argnames=("rowvar", "dtype"))
def corrcoef(x, y=None, rowvar: bool = True, dtype=None):
    """Pearson correlation coefficients: ``cov`` scaled by the standard deviations, clipped to
    [-1, 1] (each part of a complex one), as JAX's."""
    from ._complex_parts import imag, real
    from ._diagonal import diag
    from ._selection import clip
    from ._ufuncs import divide, sqrt

    check_arraylike("corrcoef", x)
    if dtype is not None and dtype_kind(np.dtype(dtype)) not in "fc":
        raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got {dtype=}")
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:  # (nan for nan/nan, inf/inf, 0/0; 1 otherwise)
        return divide(c, c)
    stddev = sqrt(real(diag(c))).astype(c.dtype)
    c = c / stddev[:, None] / stddev[None, :]
    real_part = clip(real(c), -1, 1)
    if dtype_kind(c.dtype) == "c":
        return lax.complex(real_part, clip(imag(c), -1, 1))
    return real_part


def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None, out_sharding=None):
    """Counts of each non-negative int in ``x``; under tracing ``length`` must be given.
    ``out_sharding`` lays the counts out: replicated only (``P()``), as JAX's."""
    if out_sharding is not None:
        _check_replicated(out_sharding)
    x = staged(as_operand(x))
    if dtype_kind(x.dtype) not in "iu":
        raise TypeError(f"bincount requires integer input, got {x.dtype.name}")
    if length is None:
        if isinstance(x, Tracer):
            raise core.ConcretizationTypeError(x, "bincount's output size depends on max(x); pass length=")
        v = core.to_numpy(x)
        length = max(int(minlength), int(v.max()) + 1 if v.size else 0)
    length = concrete_int(length, "bincount length")
    # (unit weights stay a scalar, broadcast by the scatter, as JAX builds it)
    w = np.ones((), core.default_dtype(int)) if weights is None else promote_dtypes(as_operand(weights))[0]
    from ._creation import zeros
    from ._selection import clip

    # negative values count in bin 0 and values past length in none, as in JAX
    return zeros(length, w.dtype, out_sharding=out_sharding).at[clip(x, 0)].add(w, mode="drop")


def _check_replicated(out_sharding) -> None:
    """JAX's refusal of a ``bincount`` layout that splits the counts (any ``PartitionSpec`` entry,
    ``P(None)`` included, or unreduced over only some mesh axes)."""
    from ..parallel.partition import ShardingTypeError
    from ..sharding import as_sharding

    sharding = as_sharding(out_sharding, "jnp.bincount")
    spec = getattr(sharding, "spec", None)
    if spec is not None and (
        spec.partitions or (spec.unreduced and spec.unreduced != set(sharding.mesh.axis_names))
    ):
        raise ShardingTypeError(
            "out_sharding passed to `jnp.bincount` can only be fully replicated or fully unreduced along "
            "all mesh axes"
        )


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of ``(xp, fp)`` (``xp`` increasing) at ``x``; ``left`` /
    ``right``: the value past either end (``'extrapolate'`` continues the end segments), ``period``:
    ``xp`` taken as periodic.

    >>> jnp.interp(jnp.array([0.5, 3.0]), jnp.array([0.0, 1.0, 2.0]), jnp.array([0.0, 10.0, 0.0]))
    Array([5., 0.], dtype=float32)
    """
    # (as JAX's: a jit of _interp whose left / right are static when strings or None, period when None)
    static = tuple(
        name for name, v in (("left", left), ("right", right)) if v is None or isinstance(v, str)
    ) + (("period",) if period is None else ())
    return _jitted_interp(static)(x, xp, fp, left, right, period)


@functools.lru_cache(maxsize=None)
def _jitted_interp(static_argnames):
    return staged_as_jit(_interp_body, name="_interp", static_argnames=static_argnames)


def _end_option(value, side):
    """``(extrapolate, value)`` of ``left`` / ``right``: a string must be 'extrapolate'."""
    if isinstance(value, str):
        if value != "extrapolate":
            raise ValueError(f"the only valid string value of `{side}` is 'extrapolate', but got: {value!r}")
        return True, None
    return False, value


def _interp_body(x, xp, fp, left=None, right=None, period=None):
    from ._searching import searchsorted
    from ._selection import clip, where

    check_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = promote_dtypes_inexact(as_operand(x), as_operand(xp))
    (fp,) = promote_dtypes_inexact(as_operand(fp))
    extrapolate_left, left = _end_option(left, "left")
    extrapolate_right, right = _end_option(right, "right")
    if dtype_kind(x.dtype) == "c":
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:  # one period of xp (sorted), extended by a point either side, as numpy
        from ._shape import concatenate
        from ._ufuncs import abs as abs_

        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = abs_(period)
        x, xp = x % period, xp % period
        xp, fp = lax.sort_key_val(xp, fp)
        xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    i = clip(searchsorted(xp, x, side="right"), 1, len(xp) - 1)
    df = fp[i] - fp[i - 1]
    dx = xp[i] - xp[i - 1]
    delta = x - xp[i - 1]
    # (a segment no wider than this takes its left value: no NaN gradient through the division)
    dx0 = lax.abs(dx) <= np.spacing(np.finfo(xp.dtype).eps)
    f = where(dx0, fp[i - 1], fp[i - 1] + (delta / where(dx0, 1, dx)) * df)
    if not extrapolate_left:
        left = fp[0] if left is None else left
        if period is None:
            f = where(x < xp[0], left, f)
    if not extrapolate_right:
        right = fp[-1] if right is None else right
        if period is None:
            f = where(x > xp[-1], right, f)
    return f


del Array
