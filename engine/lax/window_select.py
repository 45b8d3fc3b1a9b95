"""The derivatives of max and min pooling as JAX writes them: ``select_and_gather_add`` (a window's
tangent is that of the element its ``select_prim`` chooses: ``ge`` for max, ``le`` for min) and its
transpose ``select_and_scatter_add`` (each window's cotangent added where that element is).

Both choose as XLA does, scanning a window in row-major order: the first element in bounds, then
each next one that the chosen one does not ``select_prim`` (so the first of tied extremes; a NaN is
chosen, and replaced by the next element). ``select_and_gather_add`` starts from the identity (so a
window of padding gives 0), ``select_and_scatter_add`` skips padding (XLA's SelectAndScatter).

    >>> x = jnp.array([1., 3., 3., 2.])
    >>> jax.grad(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), "VALID").sum())(x)
    Array([0., 2., 1., 0.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core
from ..backends.rows import INTERPRETER_ONLY
from ..core import Primitive
from . import elementwise as ew
from .windowed import (
    _identity,
    _padded_windows,
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_shape_tuple,
)

select_and_gather_add_p = Primitive("select_and_gather_add")
select_and_scatter_add_p = Primitive("select_and_scatter_add")


def _choose(values, valid, select_prim, start=None):
    """Per window (last axis), the position chosen (XLA's scan; -1: none) given each element's
    value and whether it is in bounds; ``start``: an initial value chosen at position -1."""
    keep = np.greater_equal if select_prim is ew.ge_p else np.less_equal
    chosen = np.full(values.shape[:-1], -1)
    current = np.full(values.shape[:-1], start if start is not None else 0, values.dtype)
    has = np.full(values.shape[:-1], start is not None)
    with np.errstate(invalid="ignore"):
        for k in range(values.shape[-1]):
            v = values[..., k]
            take = valid[..., k] & (~has | ~keep(current, v))
            chosen, current, has = np.where(take, k, chosen), np.where(take, v, current), has | take
    return chosen


def _gather_impl(tangents, operand, *, select_prim, **params):
    init = _identity(operand.dtype, select_prim is ew.le_p)
    # (XLA's reduce_window of (value, tangent) pairs from (identity, 0): padding holds the identity,
    # which the initial identity keeps, so it is never chosen)
    values = _padded_windows(operand, init, **params)
    chosen = _choose(values, np.ones(values.shape, bool), select_prim, start=init)
    ts = _padded_windows(tangents, np.zeros((), tangents.dtype), **params)
    return _picked(ts, chosen)


def _picked(windows, chosen):
    """Each window's element at its chosen position (0 where none is)."""
    if windows.shape[-1] == 0:
        return np.zeros(windows.shape[:-1], windows.dtype)
    picked = np.take_along_axis(windows, np.maximum(chosen, 0)[..., None], -1)[..., 0]
    return np.where(chosen >= 0, picked, np.zeros((), windows.dtype)).astype(windows.dtype)


def _scatter_impl(source, operand, *, select_prim, window_dimensions, window_strides, padding):
    ones = (1,) * operand.ndim
    params = dict(
        window_dimensions=window_dimensions, window_strides=window_strides, padding=padding,
        base_dilation=ones, window_dilation=ones,
    )  # fmt: skip
    result = np.zeros(operand.shape, source.dtype)
    values = _padded_windows(operand, np.zeros((), operand.dtype), **params)
    where = _padded_windows(np.arange(operand.size).reshape(operand.shape), -1, **params)
    if values.shape[-1] == 0 or result.size == 0:
        return result
    chosen = _choose(values, where >= 0, select_prim)
    flat = _picked(where, chosen)
    found = chosen >= 0
    np.add.at(result.reshape(-1), flat[found], source[found])
    return result


def _gather_abstract(tangents, operand, *, window_dimensions, window_strides, padding, base_dilation,
                     window_dilation, **_):  # fmt: skip
    shape = reduce_window_shape_tuple(
        operand.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    return core.ShapedArray(shape, tangents.dtype, tangents.weak_type)


select_and_gather_add_p.def_impl(_gather_impl)
select_and_gather_add_p.def_abstract_eval(_gather_abstract)
select_and_scatter_add_p.def_impl(_scatter_impl)
select_and_scatter_add_p.def_abstract_eval(
    lambda source, operand, **_: core.ShapedArray(operand.shape, source.dtype, source.weak_type)
)
for _p in (select_and_gather_add_p, select_and_scatter_add_p):
    core.eager_checked.add(_p)
    INTERPRETER_ONLY[_p.name] = "pooling's derivative: numpy's sliding-window view, not a loop nest"


def _linear_in_first(p):
    def jvp(primals, tangents, **params):
        (source, operand), (g, _) = primals, tangents
        out = p.bind(source, operand, **params)
        if type(g) is ad.Zero:
            return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))
        return out, p.bind(g, operand, **params)

    return jvp


def _gather_transpose(t, tangents, operand, *, select_prim, window_dimensions, window_strides, padding,
                      base_dilation, window_dilation):  # fmt: skip
    # JAX's rule: base dilation as interior padding of the operand by the identity, sliced away after
    if any(d != 1 for d in window_dilation):
        raise NotImplementedError(
            "VJP not implemented for select_and_gather (MaxPool) with window dilation, got "
            f"window_dilation={window_dilation}."
        )
    if type(t) is ad.Zero:
        return [ad.Zero(tangents.aval), None]
    from . import api

    dilated = any(d != 1 for d in base_dilation)
    if dilated:
        init = _identity(core.get_aval(operand).dtype, select_prim is ew.le_p)
        operand = api.pad(operand, init, tuple((0, 0, d - 1) for d in base_dilation))
    out = select_and_scatter_add_p.bind(
        t, operand, select_prim=select_prim, window_dimensions=window_dimensions,
        window_strides=window_strides, padding=padding,
    )  # fmt: skip
    if dilated:
        shape = core.get_aval(out).shape
        out = api.slice(out, (0,) * len(shape), shape, base_dilation)
    return [out, None]


def _scatter_transpose(t, source, operand, *, select_prim, window_dimensions, window_strides, padding):
    if type(t) is ad.Zero:
        return [ad.Zero(source.aval), None]
    ones = (1,) * len(window_dimensions)
    out = select_and_gather_add_p.bind(
        t, operand, select_prim=select_prim, window_dimensions=window_dimensions,
        window_strides=window_strides, padding=padding, base_dilation=ones, window_dilation=ones,
    )  # fmt: skip
    return [out, None]


def _at_front(p, extra):
    """JAX's batching rule: both operands' batch dimensions at the front, a window of one there."""

    def rule(size, vals, dims, **params):
        t, x = (batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims))
        params = dict(params, window_dimensions=(1, *params["window_dimensions"]))
        params["window_strides"] = (1, *params["window_strides"])
        params["padding"] = ((0, 0), *params["padding"])
        for name in extra:
            params[name] = (1, *params[name])
        return p.bind(t, x, **params), 0

    return rule


ad.jvp_rules[select_and_gather_add_p] = _linear_in_first(select_and_gather_add_p)
ad.jvp_rules[select_and_scatter_add_p] = _linear_in_first(select_and_scatter_add_p)
ad.transpose_rules[select_and_gather_add_p] = _gather_transpose
ad.transpose_rules[select_and_scatter_add_p] = _scatter_transpose
batching.batch_rules[select_and_gather_add_p] = _at_front(
    select_and_gather_add_p, ("base_dilation", "window_dilation")
)
batching.batch_rules[select_and_scatter_add_p] = _at_front(select_and_scatter_add_p, ())


def _chooser_jvp(p, select_prim):
    """reduce_window_max's (``ge``) or reduce_window_min's (``le``) JVP rule, JAX's."""

    def rule(primals, tangents, **params):
        (x,), (t,) = primals, tangents
        out = p.bind(x, **params)
        if type(t) is ad.Zero:
            return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))
        return out, select_and_gather_add_p.bind(t, x, select_prim=select_prim, **params)

    return rule


ad.jvp_rules[reduce_window_max_p] = _chooser_jvp(reduce_window_max_p, ew.ge_p)
ad.jvp_rules[reduce_window_min_p] = _chooser_jvp(reduce_window_min_p, ew.le_p)
