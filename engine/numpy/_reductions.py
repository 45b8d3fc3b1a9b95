"""Reductions (sum, mean, var, max, argmax, any, ...) and cumulative scans, over any axes."""

from __future__ import annotations

import builtins
import functools

import numpy as np

from .. import core, dims, lax, transfers
from ..core import Array, Tracer
from . import _eager_reductions
from ._dtypes import to_dtype
from ..canonical_dtypes import user_dtype
from ..jitted_tangents import typed_as_primals
from ._promote import (
    as_operand,
    broadcast_to_shape,
    canonicalize_axes,
    check_axes_index,
    canonicalize_axis,
    check_arraylike,
    convert,
    promote_dtypes_inexact,
    promote_shapes,
    refuse_keys,
    to_inexact_dtype,
)
from ._staged import check_int_argument, jitted_inline, staged_as_jit
from ..narrow_dtypes import kind as dtype_kind


def _check_reducible(name: str, *args) -> None:
    """jnp's check of array arguments, and JAX's refusal of typed PRNG keys."""
    check_arraylike(name, *args)
    refuse_keys(*args)


def _reduce_dtype(x, dtype, promote_integers: bool, name: str = "") -> np.dtype:
    """The accumulation dtype: ``dtype`` if given, else narrower ints and bools widen to the default
    int's width (32 bits, 64 with x64). Reductions convert to it with convert_element_type, so a
    weakly-typed operand (a Python scalar, or built from one) reduces to a strongly-typed result."""
    if dtype is not None:  # (64 bits asked for without x64: JAX's warning, naming the function)
        return user_dtype(to_dtype(dtype), name)
    d = x.dtype
    if promote_integers:
        default = core.default_dtype(int)
        if d == np.bool_:
            return default
        if dtype_kind(d) == "i" and d.itemsize < default.itemsize:
            return default
        if dtype_kind(d) == "u" and d.itemsize < default.itemsize:
            return np.dtype(f"uint{8 * default.itemsize}")
    return d


def upcast_f16(d: np.dtype) -> np.dtype:
    """JAX sums, multiplies, averages float16 and bfloat16 values in float32 (rounding once, at the end)."""
    return np.dtype("float32") if d == np.float16 or d.name == "bfloat16" else d


def _keep(out, axes, ndim, keepdims):
    if not keepdims:
        return out
    return lax.expand_dims(out, tuple(axes))  # a broadcast_in_dim, as in JAX


def _masked(a, where, fill):
    """``a`` where ``where`` holds, else the reduction's identity ``fill``: JAX's jitted ``_where``
    on the scalar identity (broadcast inside it, with a mask that broadcasts to ``a``)."""
    if where is None:
        return a
    from ._selection import where as where_

    if np.broadcast_shapes(a.shape, np.shape(where)) != a.shape:
        a, where = promote_shapes(a, where)
    return where_(where, a, np.asarray(fill, a.dtype))


def _initial(initial, dtype):
    """``initial`` as the reduction's first operand (JAX's ``op(initial, result)``): a literal of
    ``dtype``, or a converted tracer."""
    if isinstance(initial, core.Tracer):
        return convert(initial, dtype)
    check_int_argument("initial", initial)  # (an argument of JAX's jitted reduction)
    # (converted as JAX's convert_element_type folds a constant: numpy's cast, wrapping; -inf
    # to an int is its least value, with numpy's warning)
    return np.asarray(initial).astype(dtype)


def no_out(name: str, out, end: str = ".") -> None:
    """JAX's arrays are immutable: an ``out`` array is refused (NotImplementedError), not ignored."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported{end}")


def sum(
    a,
    axis=None,
    dtype=None,
    out=None,
    keepdims: bool = False,
    initial=None,
    where=None,
    promote_integers: bool = True,
):
    """Sum over ``axis`` (int, tuple or None for all); bools and small ints accumulate as int32.

    >>> jnp.sum(jnp.ones((2, 3)), axis=1)
    Array([3., 3.], dtype=float32)
    """
    if dtype is None and out is None and initial is None and where is None:  # (an Array: arraylike)
        fast = _eager_reductions.sum(a, axis, keepdims)
        if fast is not None:
            return fast
    _check_reducible("sum", a)
    no_out("sum", out)
    (a,) = typed_as_primals((as_operand(a),))  # (jitted in JAX)
    axes = canonicalize_axes(axis, a.ndim)
    d = _reduce_dtype(a, dtype, promote_integers, "sum")
    if a.dtype == np.bool_:  # JAX counts bools as ints first (_cast_to_numeric), even for dtype=bool
        # (dtypes.to_numeric_dtype: int32 even with x64), with lax's convert: a constant array's
        # convert is bound, and staged under a trace, as JAX's is
        a = lax.convert_element_type(a, np.dtype(np.int32))
    a = convert(a, d)
    if dtype is None and upcast_f16(d) != d:
        a = convert(a, upcast_f16(d))
    # a sum of bools is their logical or (JAX's bool_op for sum: bitwise_or, a reduce_or)
    reduce, combine = (lax.reduce_or, lax.bitwise_or) if d == np.bool_ else (lax.reduce_sum, lax.add)
    a = _masked(a, where, 0)
    res = reduce(a, axes)  # (also over no axes, as JAX binds it)
    if initial is not None:
        res = combine(_initial(initial, res.dtype), res)
    return convert(_keep(res, axes, a.ndim, keepdims), d)


def prod(
    a,
    axis=None,
    dtype=None,
    out=None,
    keepdims: bool = False,
    initial=None,
    where=None,
    promote_integers: bool = True,
):
    """Product over ``axis``.

    >>> jnp.prod(jnp.arange(1, 5))
    Array(24, dtype=int32)
    """
    _check_reducible("prod", a)
    no_out("prod", out)
    a = as_operand(a)
    axes = canonicalize_axes(axis, a.ndim)
    d = _reduce_dtype(a, dtype, promote_integers, "prod")
    a = convert(a, d)
    if dtype is None and upcast_f16(d) != d:
        a = convert(a, upcast_f16(d))
    a = _masked(a, where, 1)
    # a product of bools is their logical and (JAX's bool_op for prod: bitwise_and, a reduce_and)
    reduce, combine = (lax.reduce_and, lax.bitwise_and) if d == np.bool_ else (lax.reduce_prod, lax.mul)
    res = reduce(a, axes)
    if initial is not None:
        res = combine(_initial(initial, res.dtype), res)
    return convert(_keep(res, axes, a.ndim, keepdims), d)


_STATIC = ("axis", "out", "keepdims")


def _extreme(name, lax_fn, identity_fn):
    def f(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
        if transfers.active[0]:  # (JAX's are jitted: initial and where are its arguments)
            return transfers.call_jitted(f, (a, axis, out, keepdims, initial, where), {}, _STATIC)
        _check_reducible(name, a)
        no_out(name, out)
        if where is None:
            fast = _eager_reductions.extreme(name, a, axis, keepdims, initial)
            if fast is not None:
                return fast
        (a,) = typed_as_primals((as_operand(a),))  # (jitted in JAX)
        a = convert(a, a.dtype)  # strong, as JAX's _reduction makes its operand
        axes = canonicalize_axes(axis, a.ndim)
        if where is not None:
            if initial is None:
                raise ValueError(
                    f"reduction operation {name} does not have an identity, so to use a "
                    f"where mask one has to specify 'initial'"
                )
            a = _masked(a, where, identity_fn(a.dtype))
        if initial is None and builtins.any(a.shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
        res = lax_fn(a, axes)
        if initial is not None:  # lax.max(initial, res), the scalar first, as JAX writes it
            combine = lax.max if name in ("max", "amax") else lax.min
            res = combine(_initial(initial, res.dtype), res)
        return _keep(res, axes, a.ndim, keepdims)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``{name}`` over ``axis`` (int, tuple or None for all)."
    return f


def _lowest(d):
    return -np.inf if dtype_kind(d) == "f" else (False if dtype_kind(d) == "b" else np.iinfo(d).min)


def _highest(d):
    return np.inf if dtype_kind(d) == "f" else (True if dtype_kind(d) == "b" else np.iinfo(d).max)


max = amax = _extreme("max", lax.reduce_max, _lowest)
min = amin = _extreme("min", lax.reduce_min, _highest)


def _logical_reduce(name, lax_fn):
    def f(a, axis=None, out=None, keepdims: bool = False, *, where=None):
        check_arraylike(name, a)
        no_out(name, out)
        a = as_operand(a)
        if dtype_kind(a.dtype) == "c":
            a = lax.real(a)
        a = convert(a, np.dtype(np.bool_))
        axes = canonicalize_axes(axis, a.ndim)
        a = _masked(a, where, name == "all")
        res = lax_fn(a, axes)
        return _keep(res, axes, a.ndim, keepdims)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Whether {'any' if name == 'any' else 'all'} elements along ``axis`` are true."
    return f


any = _logical_reduce("any", lax.reduce_or)
all = _logical_reduce("all", lax.reduce_and)


@staged_as_jit(static_argnames=("axis", "keepdims"))
def count_nonzero(a, axis=None, keepdims: bool = False):
    """The number of nonzero elements along ``axis`` (all of them by default).

    >>> jnp.count_nonzero(jnp.array([0, 1, 2]))
    Array(2, dtype=int32)
    """
    a = as_operand(a)
    nz = lax.ne(a, np.array(0, a.dtype))
    return sum(nz, axis=axis, dtype=core.default_dtype(int), keepdims=keepdims)


def _count(a, axes, where):
    if where is None:
        return dims.dim_product(tuple(a.shape[i] for i in axes))
    w = as_operand(where)
    w = promote_shapes(w, a)[0]
    return sum(w, axis=axes, dtype=a.dtype, keepdims=True)


def divide_by_constant(total, n):
    """``total / n`` for a count ``n`` that is a constant of the program JAX compiles for a jitted
    jnp function: XLA multiplies by the rounded reciprocal instead (``algebraic_simplifier``'s
    A / C rule), so ``jnp.mean`` of 3 floats is their sum times float32(1/3). Staged, it is the
    division JAX's jaxpr shows (and jit's simplifier rewrites it so)."""
    if core.staging_anywhere[0] or total.dtype not in (np.float32, np.float64):
        return lax.div(total, n)
    return lax.mul(total, lax.div(np.ones((), total.dtype), n))


@jitted_inline(static_argnames=("axis", "dtype", "keepdims"), eager=_eager_reductions.mean)
def mean(a, axis=None, dtype=None, out=None, keepdims: bool = False, *, where=None):
    """Arithmetic mean over ``axis``; integer inputs give float32.

    >>> jnp.mean(jnp.array([1, 2, 4]))
    Array(2.3333335, dtype=float32)
    """
    _check_reducible("mean", a)
    no_out("mean", out)
    a = as_operand(a)
    if where is None:
        check_axes_index(a.shape, axis)
    else:  # JAX's order: the count of the mask first (its _count), then the sum of ``a``
        d = to_inexact_dtype(a.dtype) if dtype is None else core.canonical_dtype(to_dtype(dtype))
        computation = upcast_f16(d) if dtype_kind(d) in "fc" else d
        axes = canonicalize_axes(axis, a.ndim)
        mask = broadcast_to_shape(as_operand(where), a.shape)
        n = sum(mask, axes, dtype=computation, keepdims=keepdims)
        return convert(lax.div(sum(a, axes, dtype=computation, keepdims=keepdims, where=where), n), d)
    if a.dtype == np.bool_:  # JAX's sum counts bools as ints first (its _cast_to_numeric)
        a = convert(a, np.dtype(np.int32))  # (dtypes.to_numeric_dtype: int32 even with x64)
    if dtype is not None:  # computed in ``dtype`` itself, even an integer one (no float16 upcast)
        d = core.canonical_dtype(to_dtype(dtype))
        a = convert(a, d)
        sum_dtype = d  # a sum told its dtype keeps float16 (JAX's mean passes it on)
    else:
        (a,) = promote_dtypes_inexact(a)
        d = a.dtype
        a = convert(a, upcast_f16(d))
        sum_dtype = None
    axes = canonicalize_axes(axis, a.ndim)
    n = _count(a, axes, where)
    symbolic_n = convert(n, a.dtype) if dims.is_symbolic_dim(n) else None  # (shape polymorphism)
    total = sum(a, axes, dtype=sum_dtype, keepdims=keepdims, where=where)
    if symbolic_n is not None:
        return lax.div(total, symbolic_n)
    if isinstance(n, int):  # JAX divides by the count as a scalar literal
        out = divide_by_constant(total, np.asarray(n, total.dtype))
    elif keepdims or n.shape == total.shape:
        out = lax.div(total, n)
    else:
        out = lax.div(total, lax.reshape(n, total.shape))
    return convert(out, d)


def _correction(name, ddof, correction):
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def _axis_arg(axis):
    return tuple(axis) if isinstance(axis, list) else axis  # (a static argument: hashable)


def var(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """Variance over ``axis``, dividing by ``N - ddof`` (``correction`` is another name for ``ddof``;
    ``mean`` a precomputed mean, kept dimensions; ``where`` a mask of the elements to count).

    >>> jnp.var(jnp.array([1.0, 2.0, 3.0, 4.0]))
    Array(1.25, dtype=float32)
    """
    _check_reducible("var", a)
    no_out("var", out)
    correction = _correction("var", ddof, correction)
    a = as_operand(a)
    return _var(
        a,
        axis=_axis_arg(axis),
        dtype=dtype,
        correction=correction,
        keepdims=keepdims,
        where=where,
        a_mean=mean,
    )


def _var_dtypes(a_dtype, dtype):
    """(the dtype var computes in, the dtype it returns): the real part's dtype of inexact input,
    JAX's inexact type of integers and bools (float32 but for 64-bit integers, x64 or not), or
    ``dtype`` when given; float16 computes in float32."""
    if dtype is not None:
        dtype = core.canonical_dtype(to_dtype(dtype))
        if dtype_kind(a_dtype) == "c" and dtype_kind(dtype) != "c":
            raise ValueError(
                "jax.numpy.var does not yet support real dtype parameters when computing the variance "
                "of an array of complex values."
            )
        computation = dtype
    elif dtype_kind(a_dtype) in "fc":
        computation, dtype = a_dtype, np.array(0, a_dtype).real.dtype
    else:
        computation = dtype = to_inexact_dtype(np.dtype(a_dtype))
    return upcast_f16(computation), np.dtype(dtype)


def squares_summed(x, axes, keepdims: bool, body: str):
    """The sum of ``x * x`` over ``axes`` as XLA's kernel of JAX's jitted jnp function adds it, the
    squares fused into the additions (``lax.sum_order``; ``body`` what the kernel computes before
    them), for a concrete float32 ``x`` of fewer than 4096 elements; else None (the caller sums
    the squares as traced, which the jit backend fuses the same way)."""
    from ..lax import sum_order

    if type(x) is not Array or x.dtype != np.float32 or not 0 < x.size < sum_order.TREE_LIMIT:
        return None
    v = np.asarray(x)
    out = sum_order.sum_f32(v, tuple(axes), v, square=True, body=body)
    if keepdims:
        out = np.expand_dims(out, tuple(axes))
    return Array(np.asarray(out, np.float32), x.weak_type)


@staged_as_jit(static_argnames=("axis", "dtype", "keepdims"))
def _var(a, *, axis=None, dtype=None, correction=0, keepdims=False, where=None, a_mean=None):
    # JAX's formulation: the squared deviations summed over the count less ``correction`` as a traced
    # normalizer, NaN where it is not positive.
    from ._selection import where as select

    computation, dtype = _var_dtypes(a.dtype, dtype)
    a = convert(a, computation)
    if where is None and a_mean is None:
        check_axes_index(a.shape, axis)
    axes = canonicalize_axes(axis, a.ndim)
    if a_mean is None:
        a_mean = mean(a, axes, dtype=computation, keepdims=True, where=where)
    else:
        a_mean = convert(as_operand(a_mean), computation)
    centered = lax.sub(a, a_mean)
    fused = squares_summed(centered, axes, keepdims, "light") if where is None else None
    if dtype_kind(computation) == "c":  # |z - mean|^2: the variance of complex values is real
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
        computation = centered.dtype
    else:
        centered = lax.square(centered)
    if where is None:
        n = dims.dim_product(tuple(a.shape[i] for i in axes))
        n = np.asarray(n, computation) if dims.is_constant_dim(n) else convert(n, computation)
    else:
        n = sum(promote_shapes(as_operand(where), a)[0], axes, dtype=computation, keepdims=keepdims)
    normalizer = lax.sub(n, lax.convert_element_type(correction, computation))
    # (JAX's _var takes the correction as an argument: no constant divisor, a true division)
    total = (
        fused if fused is not None else sum(centered, axes, dtype=computation, keepdims=keepdims, where=where)
    )
    result = lax.div(total, normalizer)
    result = convert(result, dtype)
    return select(lax.gt(normalizer, np.asarray(0, computation)), result, np.nan)


def std(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """Standard deviation over ``axis``: the square root of ``var`` (same arguments)."""
    no_out("std", out)
    correction = _correction("std", ddof, correction)
    _check_reducible("std", a)
    a = as_operand(a)
    return _std(
        a, axis=_axis_arg(axis), dtype=dtype, correction=correction, keepdims=keepdims, where=where, mean=mean
    )


@staged_as_jit(static_argnames=("axis", "dtype", "keepdims"))
def _std(a, *, axis=None, dtype=None, correction=0, keepdims=False, where=None, mean=None):
    if dtype is not None and dtype_kind(core.canonical_dtype(to_dtype(dtype))) not in "fc":
        raise ValueError(f"dtype argument to jnp.std must be inexact; got {to_dtype(dtype)}")
    return lax.sqrt(var(a, axis, dtype, None, 0, keepdims, where=where, mean=mean, correction=correction))


def ptp(a, axis=None, out=None, keepdims: bool = False):
    """Peak to peak: ``max - min`` along ``axis``.

    >>> jnp.ptp(jnp.array([[1, 5], [2, 3]]), axis=1)
    Array([4, 1], dtype=int32)
    """
    _check_reducible("ptp", a)
    no_out("ptp", out)
    return _ptp(as_operand(a), _axis_arg(axis), out, keepdims)


@staged_as_jit(static_argnames=("axis", "keepdims"))
def _ptp(a, axis=None, out=None, keepdims: bool = False):
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted mean over ``axis``; ``returned=True`` also gives the sum of weights (in the mean's
    shape)."""
    _check_reducible("average", a)
    if weights is None:
        (a,) = promote_dtypes_inexact(as_operand(a))
        avg = mean(a, axis, keepdims=keepdims)
        axes = canonicalize_axes(axis, a.ndim)
        n = int(np.prod([a.shape[i] for i in axes], dtype=np.int64))
        wsum = lax.full((), n, avg.dtype)
    else:
        from ._ufuncs import multiply, true_divide

        a, w = promote_dtypes_inexact(a, weights)
        if w.shape != a.shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            # (in the order given: weights' axes follow it)
            axes = tuple(
                canonicalize_axis(i, a.ndim) for i in (axis if isinstance(axis, (tuple, list)) else [axis])
            )
            if w.shape != tuple(a.shape[i] for i in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
            new_shape = tuple(d if i in axes else 1 for i, d in enumerate(a.shape))
            w = lax.reshape(w, new_shape, tuple(int(i) for i in np.argsort(axes)))
        wsum = sum(w, axis, keepdims=keepdims)
        avg = true_divide(sum(multiply(a, w), axis, keepdims=keepdims), wsum)
    if not returned:
        return avg
    if avg.shape != wsum.shape:
        wsum = lax.broadcast_in_dim(wsum, avg.shape, tuple(range(avg.ndim - wsum.ndim, avg.ndim)))
    return avg, wsum


def _arg_extreme(name, lax_fn):
    def f(a, axis=None, out=None, keepdims: bool = False):
        check_arraylike(name, a)
        no_out(name, out)
        a = as_operand(a)
        if axis is None:
            flat = lax.reshape(a, (a.size,))
            res = _arg_along(flat, 0)
            return lax.expand_dims(res, tuple(range(a.ndim))) if keepdims else res  # (JAX's expand_dims)
        check_axes_index(a.shape, axis)
        ax = canonicalize_axis(axis, a.ndim)
        if a.shape[ax] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        res = _arg_along(a, ax)
        return _keep(res, (ax,), a.ndim, keepdims)

    def _arg_along(a, ax):
        if a.shape[ax] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        return lax_fn(a, ax, core.default_dtype(int))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Index of the {'largest' if 'max' in name else 'smallest'} element along ``axis`` (first one on ties)."
    return f


argmax = _arg_extreme("argmax", lax.argmax)
argmin = _arg_extreme("argmin", lax.argmin)


# --- NaN-ignoring variants -------------------------------------------------------------------


def _nan_reduction(a, name, reduction, init_val, nan_if_all_nan, axis, keepdims, where, **kwargs):
    """``reduction`` of ``a`` with its NaNs replaced by ``init_val``; NaN where every element reduced is
    NaN when ``nan_if_all_nan`` (nanmax, nanmin: they have no other value to give there)."""
    from ._selection import _where

    _check_reducible(name, a)
    a = as_operand(a)
    if dtype_kind(a.dtype) not in "fc":
        return reduction(a, axis=axis, keepdims=keepdims, where=where, **kwargs)
    fill = np.asarray(init_val, a.dtype)  # strong, of a's dtype: no conversion in the jaxpr (as JAX)
    out = reduction(_where(lax.ne(a, a), fill, a), axis=axis, keepdims=keepdims, where=where, **kwargs)
    if not nan_if_all_nan:
        return out
    return _where(all(lax.ne(a, a), axis=axis, keepdims=keepdims), np.asarray(np.nan, a.dtype), out)


@staged_as_jit(static_argnames=("axis", "dtype", "keepdims"))
def nansum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``sum`` ignoring NaNs (they count as zero).

    >>> jnp.nansum(jnp.array([1.0, jnp.nan, 2.0]))
    Array(3., dtype=float32)
    """
    no_out("sum", out)
    return _nan_reduction(a, "nansum", sum, 0, False, axis, keepdims, where, dtype=dtype, initial=initial)


@staged_as_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``prod`` ignoring NaNs (they count as one)."""
    no_out("prod", out)
    return _nan_reduction(a, "nanprod", prod, 1, False, axis, keepdims, where, dtype=dtype, initial=initial)


@staged_as_jit(static_argnames=("axis", "keepdims"))
def nanmax(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``max`` ignoring NaNs; NaN where all are NaN (and no ``initial`` is given).

    >>> jnp.nanmax(jnp.array([[1.0, jnp.nan], [jnp.nan, jnp.nan]]), axis=1)
    Array([ 1., nan], dtype=float32)
    """
    no_out("max", out)
    a = as_operand(a)
    return _nan_reduction(a, "nanmax", max, -np.inf, initial is None, axis, keepdims, where, initial=initial)


@staged_as_jit(static_argnames=("axis", "keepdims"))
def nanmin(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``min`` ignoring NaNs; NaN where all are NaN (and no ``initial`` is given)."""
    no_out("min", out)
    a = as_operand(a)
    return _nan_reduction(a, "nanmin", min, np.inf, initial is None, axis, keepdims, where, initial=initial)


@staged_as_jit(static_argnames=("axis", "dtype", "keepdims"))
def nanmean(a, axis=None, dtype=None, out=None, keepdims: bool = False, where=None):
    """``mean`` of the non-NaN elements: NaN where there are none.

    >>> jnp.nanmean(jnp.array([1.0, jnp.nan, 2.0]))
    Array(1.5, dtype=float32)
    """
    _check_reducible("nanmean", a)
    no_out("nanmean", out)
    a = as_operand(a)
    if dtype_kind(a.dtype) in "biu":
        return mean(a, axis, dtype, keepdims=keepdims, where=where)
    dtype = a.dtype if dtype is None else core.canonical_dtype(to_dtype(dtype))
    count = sum(lax.not_(lax.ne(a, a)), axis, dtype, keepdims=keepdims, where=where)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), count)


# --- cumulative ------------------------------------------------------------------------------


def _cumulative_body(name, lax_fn, accumulates: bool, nan_fill=None, promote_integers: bool = False):
    """``name`` along ``axis`` (flattened when ``axis`` is None); ``promote_integers``: narrow
    ints accumulate in the default int (bools always do)."""

    def f(a, axis=None, dtype=None, out=None):
        _check_reducible(name, a)
        a = as_operand(a)
        if axis is None:
            a, axis = lax.reshape(a, (a.size,)), 0
        ax = canonicalize_axis(axis, a.ndim)
        if nan_fill is not None:  # as JAX, whatever the dtype (an int is never NaN)
            from ._selection import _where

            a = _where(lax.ne(a, a), np.asarray(nan_fill, a.dtype), a)
        if accumulates:  # as JAX: bools count as the default int; narrow ints keep their dtype
            a = convert(a, _reduce_dtype(a, dtype, promote_integers or a.dtype == np.bool_, name))
        return lax_fn(a, axis=ax)  # (bound on an empty axis too, as JAX binds it)

    f.__name__ = f.__qualname__ = name
    return f


def _cumulative(name, lax_fn, accumulates: bool, nan_fill=None):
    f = _cumulative_body(name, lax_fn, accumulates, nan_fill)
    f.__doc__ = f"``{name}`` along ``axis`` (flattened when ``axis`` is None)."
    staged = staged_as_jit(f, static_argnames=("axis", "dtype", "out"))

    def checked(*args, **kwargs):
        # Before the jit, whose static out an array could not be; the arguments reach the jit as
        # they were passed (JAX caches a trace per way of passing them, and prints each).
        no_out(name, kwargs.get("out", args[3] if len(args) > 3 else None), end="")
        return staged(*args, **kwargs)

    functools.update_wrapper(checked, f)  # (f's name, doc and signature)
    return checked


cumsum = _cumulative("cumsum", lax.cumsum, True)
cumprod = _cumulative("cumprod", lax.cumprod, True)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial: bool = False):
    """The array API's ``cumsum``: ``axis`` may be omitted for 1-D input only; ``include_initial``
    starts each sum with a 0.

    >>> jnp.cumulative_sum(jnp.array([1, 2, 3]), include_initial=True)
    Array([0, 1, 3, 6], dtype=int32)
    """
    return _cumulative_api("cumulative_sum", _cumsum_with_promotion, 0, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False):
    """The array API's ``cumprod``; ``include_initial`` starts each product with a 1."""
    return _cumulative_api("cumulative_prod", _cumulative_prod, 1, x, axis, dtype, include_initial)


# (as JAX's: cumulative_sum accumulates narrow ints in the default int, under a jit of its own;
# cumulative_prod is no jit)
_cumsum_with_promotion = staged_as_jit(
    _cumulative_body("_cumsum_with_promotion", lax.cumsum, True, promote_integers=True),
    static_argnames=("axis", "dtype", "out"),
)
_cumulative_prod = _cumulative_body("cumulative_prod", lax.cumprod, True)


def _cumulative_api(name, fn, initial, x, axis, dtype, include_initial):
    _check_reducible(name, x)
    x = as_operand(x)
    if x.ndim == 0:
        what = "sum" if name == "cumulative_sum" else "product"
        raise ValueError(
            f"The input must be non-scalar to take a cumulative {what}, however a scalar value or "
            "scalar array was given."
        )
    if axis is None:
        if x.ndim != 1:
            raise ValueError(
                f"The input array has rank {x.ndim}, however axis was not set to an explicit value. "
                "The axis argument is only optional for one-dimensional arrays."
            )
        axis = 0
    out = fn(x, axis=axis, dtype=dtype)
    if not include_initial:
        return out
    ax = canonicalize_axis(axis, out.ndim)
    shape = [1 if i == ax else d for i, d in enumerate(out.shape)]
    return lax.concatenate([lax.full(shape, initial, out.dtype), out], ax)


nancumsum = _cumulative("nancumsum", lax.cumsum, True, nan_fill=0)
nancumprod = _cumulative("nancumprod", lax.cumprod, True, nan_fill=1)


del Tracer


# --- closeness and equality --------------------------------------------------------------------


@staged_as_jit(static_argnames=("equal_nan",))
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """Elementwise ``|a - b| <= atol + rtol * |b|`` or ``a == b`` (so infinities equal only
    themselves), in JAX's order of operations (integers compare as floats)."""
    from ._promote import promote_args, promote_args_inexact
    from ._logic import isfinite, isnan, logical_and, logical_or

    a, b = promote_args("isclose", a, b)
    if isinstance(a.dtype, core.ExtendedDType):
        return lax.eq(a, b)
    a, b = promote_args_inexact("isclose", a, b)
    dtype = a.dtype
    if dtype_kind(dtype) == "c":
        dtype = np.array(0, dtype).real.dtype
    rtol, atol = _tolerance(rtol, dtype), _tolerance(atol, dtype)
    both_nan = logical_and(isnan(a), isnan(b))
    check_fin = isfinite(b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(check_fin, in_range))
    return logical_or(out, both_nan) if equal_nan else out


def _tolerance(tol, dtype):
    """``tol`` as ``dtype``: a number becomes a typed constant (JAX's convert_element_type folds a
    Python or numpy scalar made strong), an array is converted."""
    if isinstance(tol, (bool, int, float, complex, np.generic)):
        return Array(np.asarray(tol).astype(dtype))
    return lax.convert_element_type(tol, dtype)


@staged_as_jit(static_argnames=("equal_nan",))
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """Whether all elements are ``isclose`` (a 0-d bool array).

    >>> jnp.allclose(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0 + 1e-7]))
    Array(True, dtype=bool)
    """
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False):
    """Same shape and elements (a 0-d bool array)."""
    from ._promote import shape_of
    from ._logic import isnan, logical_and, logical_or

    if shape_of(a1) != shape_of(a2):
        return Array(np.asarray(False))
    from ._promote import promote_args

    a1, a2 = promote_args("array_equal", a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan:
        eq = logical_or(eq, logical_and(isnan(a1), isnan(a2)))
    return all(eq)


def array_equiv(a1, a2):
    from ._promote import promote_args

    try:
        a1, a2 = promote_args("array_equiv", a1, a2)
    except ValueError:
        return Array(np.asarray(False))
    return all(lax.eq(a1, a2))
