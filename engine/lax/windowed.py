"""Window reductions: ``reduce_window`` (max/sum/min/product pooling).

``add`` from 0 and ``max``/``min`` from their identity are JAX's ``reduce_window_sum`` /
``reduce_window_max`` / ``reduce_window_min`` primitives (numpy's sliding windows evaluate them);
their derivatives are JAX's: the sum's transpose a ``pad`` and a ``reduce_window_sum``, max's and
min's ``select_and_gather_add`` / ``select_and_scatter_add`` (``window_select.py``). Other computations and inits are JAX's generic
``reduce_window``, its computation's jaxpr a param; its jvp is a ``reduce_window`` of the jvp of
that computation, which forward mode can use and reverse mode cannot (as in JAX). (Convolutions are
the ``conv_general_dilated`` primitive, in ``convolution.py``.)

  >>> reduce_window(jnp.arange(4.), -jnp.inf, lax.max, (2,), (1,), "VALID")
  Array([1., 2., 3.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core
from ..core import Primitive
from ..narrow_dtypes import kind as dtype_kind
from . import api
from .convolution import padtype_to_pads


def _out_size(n, k, s):
    return (n - k) // s + 1 if n >= k else 0


# --- reduce_window -------------------------------------------------------------------------------


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding, base_dilation=None,
                              window_dilation=None):  # fmt: skip
    """The output shape of ``reduce_window`` with explicit ``(low, high)`` padding."""
    nd = len(operand_shape)
    base_dilation = base_dilation or (1,) * nd
    window_dilation = window_dilation or (1,) * nd
    out = []
    for n, k, s, (lo, hi), bd, wd in zip(
        operand_shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    ):
        out.append(_out_size((n - 1) * bd + 1 + lo + hi, (k - 1) * wd + 1, s))
    return tuple(out)


def _identity(dtype, largest: bool):
    """The identity of max (``largest=False``) or min: what padding by it changes nothing."""
    if dtype_kind(dtype) == "f":
        return np.array(np.inf if largest else -np.inf, dtype)
    if dtype_kind(dtype) == "b":
        return np.array(largest, dtype)
    info = np.iinfo(dtype)
    return np.array(info.max if largest else info.min, dtype)


def _impl(kind):
    ufunc = {"sum": np.add, "max": np.maximum, "min": np.minimum}[kind]

    def impl(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        init = np.zeros((), x.dtype) if kind == "sum" else _identity(x.dtype, kind == "min")
        dilated = [(n - 1) * d + 1 if n else 0 for n, d in zip(x.shape, base_dilation)]
        grown = np.full([max(lo, 0) + n + max(hi, 0) for n, (lo, hi) in zip(dilated, padding)], init, x.dtype)
        grown[
            tuple(
                slice(max(lo, 0), max(lo, 0) + n, d) for n, (lo, _), d in zip(dilated, padding, base_dilation)
            )
        ] = x
        # (negative padding crops)
        padded = grown[
            tuple(slice(max(-lo, 0), g - max(-hi, 0)) for g, (lo, hi) in zip(grown.shape, padding))
        ]
        eff = [(k - 1) * d + 1 for k, d in zip(window_dimensions, window_dilation)]
        out_shape = reduce_window_shape_tuple(
            x.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
        )
        if 0 in out_shape:
            return np.zeros(out_shape, x.dtype)
        view = np.lib.stride_tricks.sliding_window_view(padded, eff)
        nd = x.ndim
        view = view[tuple(slice(None, None, s) for s in window_strides)]
        view = view[(slice(None),) * nd + tuple(slice(None, None, d) for d in window_dilation)]
        flat = view.reshape(*out_shape, -1)
        if kind != "sum":
            return np.asarray(ufunc.reduce(flat, axis=-1, initial=init), x.dtype)
        # XLA's loop adds a window's elements one by one in row-major order onto the init (numpy's
        # reduce of 9 or more elements is pairwise: a 3x3 average pool was an ulp off JAX)
        out = np.full(out_shape, init, x.dtype)
        for k in range(flat.shape[-1]):
            out = np.add(out, flat[..., k], dtype=x.dtype)
        return out

    return impl


def _abstract(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    given = {
        "window_strides": window_strides,
        "base_dilation": base_dilation,
        "window_dilation": window_dilation,
    }
    if x.ndim != len(window_dimensions):
        raise TypeError(
            f"reduce_window got the wrong number of window_dimensions for operand: got operand shape "
            f"{x.shape} with window_dimensions {window_dimensions}."
        )
    for what, v in given.items():
        if v is not None and len(v) != len(window_dimensions):
            raise TypeError(
                f"reduce_window got inconsistent {what} and window_dimensions: got {what} {v} and "
                f"window_dimensions {window_dimensions}."
            )
    shape = reduce_window_shape_tuple(
        x.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    return x.update(shape=shape)


def _batch(p):
    def rule(size, vals, dims, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        # JAX's rule: the batch dimension stays where it is, with a window of one along it.
        (x,), (d,) = vals, dims

        def at(params, one):
            return (*params[:d], one, *params[d:])

        out = p.bind(
            x,
            window_dimensions=at(window_dimensions, 1),
            window_strides=at(window_strides, 1),
            padding=at(padding, (0, 0)),
            base_dilation=at(base_dilation, 1),
            window_dilation=at(window_dilation, 1),
        )
        return out, d

    return rule


def _sum_transpose(ct, x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    """JAX's rule: the cotangent padded (by the padding of a convolution's input gradient, strides
    as interior padding), then summed over windows of the same size."""
    in_shape, ct = x.aval.shape, ad.instantiate_zeros(ct)
    lhs = [(n - 1) * d + 1 if n else 0 for n, d in zip(in_shape, base_dilation)]
    rhs = [(k - 1) * d + 1 if k else 0 for k, d in zip(window_dimensions, window_dilation)]
    out = [(n - 1) * s + 1 if n else 0 for n, s in zip(core.get_aval(ct).shape, window_strides)]
    before = np.subtract(rhs, [lo for lo, _ in padding]) - 1  # (numpy integers: JAX's print so)
    after = np.add(lhs, rhs) - 1 - out - before
    config = [(lo, hi, s - 1) for lo, hi, s in zip(before, after, window_strides)]
    padded = api.pad(ct, np.zeros((), core.get_aval(ct).dtype), config)
    ones = (1,) * len(in_shape)
    return [
        reduce_window_sum_p.bind(
            padded,
            window_dimensions=tuple(window_dimensions),
            window_strides=tuple(base_dilation),
            padding=((0, 0),) * len(in_shape),
            base_dilation=ones,
            window_dilation=tuple(window_dilation),
        )
    ]


reduce_window_sum_p = Primitive("reduce_window_sum")
reduce_window_max_p = Primitive("reduce_window_max")
reduce_window_min_p = Primitive("reduce_window_min")
for _kind, _p in (("sum", reduce_window_sum_p), ("max", reduce_window_max_p), ("min", reduce_window_min_p)):
    _p.def_impl(_impl(_kind))
    _p.def_abstract_eval(_abstract)
    core.eager_checked.add(_p)  # (the numpy impl zips the window's parameters: it would not refuse)
    batching.batch_rules[_p] = _batch(_p)
ad.deflinear(reduce_window_sum_p, _sum_transpose)
_PRIMITIVES = {api.add: reduce_window_sum_p, api.max: reduce_window_max_p, api.min: reduce_window_min_p}


def _monoid_primitive(computation, init_value, dtype):
    """The primitive of a window reduction JAX specialises: ``add`` from 0, ``max``/``min`` from
    their identity (a concrete scalar init)."""
    p = _PRIMITIVES.get(computation)
    if p is None or isinstance(init_value, core.Tracer) or np.ndim(init_value):
        return None
    init = np.asarray(core.to_numpy(init_value) if isinstance(init_value, core.Array) else init_value)
    want = 0 if p is reduce_window_sum_p else _identity(np.dtype(dtype), p is reduce_window_min_p)
    return p if init == want else None


# --- reduce_window: JAX's generic primitive (any computation, any init), its jaxpr as a param ------

reduce_window_p = Primitive("reduce_window", multiple_results=True)
core.eager_checked.add(reduce_window_p)


def _padded_windows(x, init, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    """``x`` padded (and base-dilated) with ``init``, as a view ``(*out_shape, K)`` of its windows."""
    dilated = [(n - 1) * d + 1 if n else 0 for n, d in zip(x.shape, base_dilation)]
    grown = np.full([max(lo, 0) + n + max(hi, 0) for n, (lo, hi) in zip(dilated, padding)], init, x.dtype)
    grown[
        tuple(slice(max(lo, 0), max(lo, 0) + n, d) for n, (lo, _), d in zip(dilated, padding, base_dilation))
    ] = x
    # (negative padding crops)
    padded = grown[tuple(slice(max(-lo, 0), g - max(-hi, 0)) for g, (lo, hi) in zip(grown.shape, padding))]
    out_shape = reduce_window_shape_tuple(
        x.shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    )
    if 0 in out_shape:
        return np.zeros((*out_shape, 0), x.dtype)
    eff = [(k - 1) * d + 1 for k, d in zip(window_dimensions, window_dilation)]
    view = np.lib.stride_tricks.sliding_window_view(padded, eff)
    view = view[tuple(slice(None, None, s) for s in window_strides)]
    view = view[(slice(None),) * x.ndim + tuple(slice(None, None, d) for d in window_dilation)]
    return view.reshape(*out_shape, -1)


@reduce_window_p.def_impl
def _reduce_window_impl(*args, jaxpr, consts, **params):
    from ..api import vmap
    from ..ir import eval_jaxpr

    n = len(args) // 2
    operands, inits = args[:n], args[n:]
    dtypes = [[core.get_aval(a).dtype for a in xs] for xs in (operands, inits)]
    if dtypes[0] != dtypes[1]:  # (JAX checks when it runs one, not when it stages one: x64's 1.0)
        raise TypeError(
            "reduce_window got inconsistent dtypes for operands and init_values: got operand dtypes "
            f"{dtypes[0]} and init_value dtypes {dtypes[1]}."
        )
    windows = [_padded_windows(x, i, **params) for x, i in zip(operands, inits)]
    out_shape = windows[0].shape[:-1]
    size = int(np.prod(out_shape, dtype=np.int64))
    acc = [np.full(size, i, x.dtype) for x, i in zip(operands, inits)]
    if size:
        # The computation (traced on scalars: vmapped over the windows) folds each window in order.
        step = vmap(lambda *xs: eval_jaxpr(jaxpr, xs, consts))
        for k in range(windows[0].shape[-1]):
            acc = [
                np.asarray(core.to_numpy(a)) for a in step(*acc, *[w[..., k].reshape(size) for w in windows])
            ]
    return [np.asarray(a, x.dtype).reshape(out_shape) for a, x in zip(acc, operands)]


@reduce_window_p.def_abstract_eval
def _reduce_window_abstract(*avals, jaxpr, consts, **params):
    return [_abstract(x, **params) for x in avals[: len(avals) // 2]]


def _reduce_window_batch(size, vals, dims, *, jaxpr, consts, **params):
    n = len(vals) // 2
    if any(d is not batching.not_mapped for d in dims[n:]):
        raise NotImplementedError("reduce_window with batched init values")
    xs = [batching.bdim_at_front(v, d, size) for v, d in zip(vals[:n], dims[:n])]
    out = reduce_window_p.bind(
        *xs,
        *vals[n:],
        jaxpr=jaxpr,
        consts=consts,
        window_dimensions=(1, *params["window_dimensions"]),
        window_strides=(1, *params["window_strides"]),
        padding=((0, 0), *params["padding"]),
        base_dilation=(1, *params["base_dilation"]),
        window_dilation=(1, *params["window_dilation"]),
    )
    return out, [0] * n


batching.batch_rules[reduce_window_p] = _reduce_window_batch


def _reduce_window_jvp(primals, tangents, *, jaxpr, consts, **params):
    """JAX's rule: one reduce_window over the operands and their tangents (inits: theirs and zeros)
    whose computation is the jvp of this one; its primal outputs then depend on the tangents, so
    linearizing it (grad, vjp) is refused as JAX refuses it."""
    from ..ir import eval_jaxpr
    from ..staging import trace_to_jaxpr

    n = len(primals) // 2
    if any(type(t) is not ad.Zero for t in tangents[n:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    operand_tangents = [ad.instantiate_zeros(t) for t in tangents[:n]]
    init_tangents = [ad.zeros_like_aval(ad.tangent_aval(core.get_aval(i))) for i in primals[n:]]

    def jvp_computation(*args):  # (left primals, left tangents, right primals, right tangents)
        pl, tl, pr, tr = args[:n], args[n : 2 * n], args[2 * n : 3 * n], args[3 * n :]
        outs, touts = ad.jvp_flat(lambda *xs: eval_jaxpr(jaxpr, xs, consts), [*pl, *pr], [*tl, *tr])
        return [*outs, *touts]

    scalars = [core.get_aval(x).update(shape=()) for x in [*primals[n:], *init_tangents]]
    closed = trace_to_jaxpr(jvp_computation, [*scalars, *scalars])
    outs = reduce_window_p.bind(
        *primals[:n],
        *operand_tangents,
        *primals[n:],
        *init_tangents,
        jaxpr=closed.jaxpr,
        consts=tuple(closed.consts),
        **params,
    )
    return outs[:n], outs[n:]


ad.jvp_rules[reduce_window_p] = _reduce_window_jvp
ad.partial_eval_rules[reduce_window_p] = ad.linearize_refused
ad.partial_eval_jaxpr_rules[reduce_window_p] = ad.linearize_refused  # (under a jit)


def _generic(operand, init_value, computation, params):
    """JAX's generic path: ``computation`` traced on scalars into the primitive's jaxpr."""
    from ..staging import trace_to_jaxpr

    dtype = core.get_aval(operand).dtype
    init = (
        init_value
        if isinstance(init_value, (core.Tracer, core.Array, float, int, bool))
        else np.asarray(init_value, dtype)
    )
    scalar = core.get_aval(init).update(shape=())
    closed = trace_to_jaxpr(lambda a, b: [computation(a, b)], [scalar, scalar])
    (out,) = reduce_window_p.bind(operand, init, jaxpr=closed.jaxpr, consts=tuple(closed.consts), **params)
    return out


def reduce_window(
    operand, init_value, computation, window_dimensions, window_strides=None, padding="VALID",
    base_dilation=None, window_dilation=None,
):  # fmt: skip
    """Reduce every window of ``operand`` with ``computation`` (``lax.max`` for max pooling,
    ``lax.add`` for sum pooling), starting from ``init_value``.

    >>> reduce_window(jnp.arange(4.), -jnp.inf, lax.max, (2,), (1,), "VALID")
    Array([1., 2., 3.], dtype=float32)
    """
    if isinstance(operand, (list, tuple)):
        raise NotImplementedError(
            "reduce_window over a pytree of operands is not supported by the engine yet"
        )
    shape = core.get_aval(operand).shape
    nd = len(shape)
    window_dimensions = tuple(window_dimensions)
    if isinstance(padding, str):  # (as JAX: SAME pads for the undilated operand)
        eff = window_dimensions
        if window_dilation is not None:
            eff = tuple((k - 1) * d + 1 for k, d in zip(window_dimensions, window_dilation))
        pads = tuple(tuple(pd) for pd in padtype_to_pads(shape, eff, window_strides or (1,) * nd, padding))
    else:
        pads = tuple((int(lo), int(hi)) for lo, hi in padding)
    window_strides = tuple(window_strides or (1,) * nd)  # (default: every window, as JAX)
    base_dilation = tuple(base_dilation or (1,) * nd)
    window_dilation = tuple(window_dilation or (1,) * nd)
    params = dict(
        window_dimensions=window_dimensions,
        window_strides=window_strides,
        padding=pads,
        base_dilation=base_dilation,
        window_dilation=window_dilation,
    )
    dtype = core.get_aval(operand).dtype
    p = _monoid_primitive(computation, init_value, dtype)
    if p is not None:
        return p.bind(operand, **params)
    return _generic(operand, init_value, computation, params)


from . import window_select  # noqa: E402,F401  (max and min pooling's derivatives: rows there)
