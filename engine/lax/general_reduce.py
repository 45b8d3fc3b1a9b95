"""``reduce`` with any computation: JAX's generic ``reduce`` primitive.

``lax.reduce`` binds it when the computation and init are not one of the monoids with a primitive
of their own (``reduce_sum``, ``reduce_max``...): the computation, traced on scalars like the
inits, is its ``jaxpr`` param (a closed jaxpr), beside the Python ``computation`` itself and the
reduced ``dimensions``. Values are folded in the order XLA's CPU backend folds them (``fold``: index
order, in windows of 32 first for a long one-operand reduce), which decides the value of a
non-associative computation: the interpreter evaluates the computation batched over every row of
elements at once, one step per element of a row; numba compiles a kernel of the scalar
computation (``backends/numba_loops``). Its derivative is JAX's: the reduced axes flattened to the
front, then the computation applied to halves pairwise (vmapped over the rest), that tree
differentiated.

  >>> lax.reduce(jnp.array([3, 1, 2]), jnp.int32(2), lax.max, (0,))
  Array(3, dtype=int32)
"""

from __future__ import annotations

import re
import weakref
from functools import partial
from typing import Any

import numpy as np

from .. import ad, batching, core, ir, narrow_dtypes
from ..backends.rows import Special, lowerings
from ..core import Primitive, ShapedArray

reduce_p = Primitive("reduce", multiple_results=True)
lowerings[reduce_p] = Special("reduce")  # (numba: a kernel of the scalar computation; else the impl)


def _split(xs):
    n = len(xs) // 2
    return list(xs[:n]), list(xs[n:])


def _vmapped(fn, times):
    from ..api import vmap

    for _ in range(times):
        fn = vmap(fn)
    return fn


@reduce_p.def_impl
def _reduce_impl(*args, computation, jaxpr, dimensions):
    _reduce_abstract(*map(core.get_aval, args), computation=computation, jaxpr=jaxpr, dimensions=dimensions)
    operands, inits = _split([np.asarray(core.to_numpy(a)) for a in args])
    return fold(operands, inits, dimensions, partial(_fold_rows_numpy, jaxpr))


# XLA's CPU pipeline rewrites a one-operand reduce with a reduced dimension longer than this into a
# reduce_window of windows this long (SAME padding) and a reduce of their results, again and again
# (its TreeReductionRewriter); a window's padding is skipped, not folded in as the init.
WINDOW = 32


def fold(operands, inits, dimensions, fold_rows):
    """The reduce's results, folded in the order XLA's CPU backend folds them (which decides the
    value of a non-associative computation): elements in index order, one at a time, except that a
    one-operand reduce over a dimension longer than ``WINDOW`` is folded window by window first, the
    windows' results then folded the same way. ``fold_rows(rows, valid, inits)`` folds each row of
    the 2-d ``rows`` (one per operand) left to right from the inits, skipping the columns
    ``valid[row % len(valid)]`` marks False (``valid`` None: none skipped); one call per level.
    """
    shape = operands[0].shape
    dims = sorted(dimensions)
    keep = [d for d in range(len(shape)) if d not in dims]
    out_shape = tuple(shape[d] for d in keep)
    count = int(np.prod([shape[d] for d in dims], dtype=np.int64))
    if count == 0 or 0 in out_shape:
        return [np.full(out_shape, i, x.dtype) for x, i in zip(operands, inits)]
    if count == 1:  # (XLA's simplifier makes this a reshape, init and computation unused, as JAX shows)
        return [x.reshape(out_shape) for x in operands]
    size = int(np.prod(out_shape, dtype=np.int64))
    xs = [np.transpose(x, keep + dims).reshape(size, *[shape[d] for d in dims]) for x in operands]
    while len(xs) == 1 and max(xs[0].shape[1:]) > WINDOW:
        rows, valid, windows = _windowed(xs[0], inits[0])
        xs = [out.reshape(size, *windows) for out in fold_rows([rows], valid, inits)]
    outs = fold_rows([x.reshape(size, -1) for x in xs], None, inits)
    return [np.asarray(o).reshape(out_shape).astype(x.dtype, copy=False) for o, x in zip(outs, operands)]


def _windowed(x, init):
    """``x`` (kept elements, then the reduced dimensions) as rows of windows, the reduce_window of
    XLA's rewrite: ``(rows (kept * windows, window size), valid (windows, window size), windows per
    dimension)``."""
    dims = x.shape[1:]
    w = [min(n, WINDOW) for n in dims]
    m = [-(-n // k) for n, k in zip(dims, w)]
    lo = [(j * k - n) // 2 for n, k, j in zip(dims, w, m)]  # (SAME padding: the smaller half first)
    pads = [(0, 0)] + [(a, j * k - n - a) for n, k, j, a in zip(dims, w, m, lo)]
    split = [x.shape[0]] + [d for j, k in zip(m, w) for d in (j, k)]
    nd = len(dims)
    order = [0, *range(1, 2 * nd, 2), *range(2, 2 * nd + 1, 2)]  # (kept, windows..., positions...)
    padded = np.pad(x, pads, constant_values=init).reshape(split).transpose(order)
    rows = padded.reshape(x.shape[0] * int(np.prod(m)), int(np.prod(w)))
    inside = np.ones([d for j, k in zip(m, w) for d in (j, k)], bool)
    for i, (n, k, j, a) in enumerate(zip(dims, w, m, lo)):
        pos = np.arange(j)[:, None] * k + np.arange(k)[None, :] - a
        shape = [1] * (2 * nd)
        shape[2 * i], shape[2 * i + 1] = j, k
        inside = inside & ((pos >= 0) & (pos < n)).reshape(shape)
    valid = inside.transpose([o - 1 for o in order[1:]]).reshape(int(np.prod(m)), int(np.prod(w)))
    return rows, valid, m


def _fold_rows_numpy(jaxpr, rows, valid, inits):
    """``fold``'s rows folded by the computation batched over them: one evaluation per column."""
    n, width = rows[0].shape
    step = _batched_step(jaxpr, n)
    cols = [np.ascontiguousarray(r.T) for r in rows]
    mask = (
        None if valid is None else np.broadcast_to(valid, (n // len(valid), *valid.shape)).reshape(n, width)
    )
    mask = None if mask is None or mask.all() else np.ascontiguousarray(mask.T)
    acc = [np.full(n, i, r.dtype) for r, i in zip(rows, inits)]
    with np.errstate(all="ignore"):  # (padding is folded too, then dropped)
        for k in range(width):
            new = step(*acc, *[c[k] for c in cols])
            acc = new if mask is None else [np.where(mask[k], a1, a0) for a1, a0 in zip(new, acc)]
    return acc


# The computation batched over a row of elements, once per jaxpr and row length.
_steps: "weakref.WeakKeyDictionary[ir.ClosedJaxpr, dict[int, Any]]" = weakref.WeakKeyDictionary()


def _batched_step(jaxpr, n):
    table = _steps.setdefault(jaxpr, {})
    step = table.get(n)
    if step is None:
        k = len(jaxpr.out_avals)
        batched, _ = batching.batch_jaxpr(jaxpr, n, [0] * (2 * k), force_out=[True] * k)
        step = table[n] = _direct(batched)
    return step


def _direct(closed):
    """``closed`` as a function of numpy arrays calling each equation's impl directly: no tracing
    machinery per operation (the fold evaluates it once per element of a row). Programs the
    evaluation trace handles specially (narrow dtypes, impls that take Arrays) go through it."""
    jaxpr = closed.jaxpr
    special = [
        e
        for e in jaxpr.eqns
        if e.primitive.takes_arrays
        or e.primitive not in core.impl_rules
        or any(narrow_dtypes.is_narrow(v.aval.dtype) for v in [*e.out_binders, *jaxpr.in_binders])
    ]
    if special:
        return lambda *xs: [np.asarray(core.to_numpy(o)) for o in ir.eval_jaxpr(jaxpr, xs, closed.consts)]

    def const(x):  # (a literal as an array of its type, made once)
        return (
            ir.Literal(np.asarray(core.to_numpy(x.val), x.aval.dtype), x.aval) if type(x) is ir.Literal else x
        )

    plan = [
        (core.impl_rules[e.primitive], [const(x) for x in e.inputs], e.params, e.out_binders, e.primitive)
        for e in jaxpr.eqns
    ]
    outs_ = [const(x) for x in jaxpr.outs]
    consts = [np.asarray(core.to_numpy(c)) for c in closed.consts]

    def run(*xs):
        env = dict(zip(jaxpr.constvars, consts))
        env.update(zip(jaxpr.in_binders, xs))
        read = lambda x: x.val if type(x) is ir.Literal else env[x]
        for impl, ins, params, outs, prim in plan:
            res = impl(*[read(x) for x in ins], **params)
            for v, r in zip(outs, res if prim.multiple_results else [res]):
                env[v] = r if type(r) is np.ndarray else np.asarray(core.to_numpy(r), v.aval.dtype)
        return [read(x) for x in outs_]

    return run


@reduce_p.def_abstract_eval
def _reduce_abstract(*avals, computation, jaxpr, dimensions):
    operands, inits = _split(avals)
    if any(i.shape != () for i in inits):
        raise ValueError(f"reduce found non-scalar initial value: {[i.shape for i in inits]}")
    if [x.dtype for x in operands] != [i.dtype for i in inits]:
        raise TypeError(
            "reduce operand dtypes should match corresponding initial value dtypes, "
            f"got operands={operands} and initial_values={inits}"
        )
    return [
        ShapedArray(tuple(np.delete(x.shape, dimensions)), x.dtype, x.weak_type and i.weak_type)
        for x, i in zip(operands, inits)
    ]


def _reduce_batch(size, vals, dims, *, computation, jaxpr, dimensions):
    operands, inits = _split(vals)
    operand_dims, init_dims = _split(dims)
    if any(d is not batching.not_mapped for d in init_dims):
        raise NotImplementedError  # (as JAX's rule: batched inits are not supported)
    operands = [batching.bdim_at_front(x, d, size) for x, d in zip(operands, operand_dims)]
    outs = reduce_p.bind(
        *operands, *inits, computation=computation, jaxpr=jaxpr, dimensions=tuple(d + 1 for d in dimensions)
    )
    return outs, [0] * len(outs)


batching.batch_rules[reduce_p] = _reduce_batch


def _reduce_jvp(primals, tangents, *, computation, jaxpr, dimensions):
    from . import api as lax

    xs, inits = _split(primals)
    txs, tinits = _split(tangents)
    if any(type(t) is not ad.Zero for t in tinits):
        raise NotImplementedError(
            "Gradient of general lax.reduce with non-zero tangents for initial values to reduction not "
            "implemented"
        )
    for t in txs:  # (JAX reshapes the tangents as they come: a symbolic zero is no array)
        if type(t) is ad.Zero:
            raise TypeError(
                "Error interpreting argument to reshape as a JAX value. The problematic value is of "
                f"type {type(t)} and was passed to reshape at position 0."
            )
    shape = core.get_aval(xs[0]).shape
    non_axes = [d for d in range(len(shape)) if d not in dimensions]
    n = int(np.prod([shape[d] for d in dimensions], dtype=np.int64))
    new_shape = (n, *[shape[d] for d in non_axes])
    permutation = (*dimensions, *non_axes)
    xs = [lax.reshape(x, new_shape, permutation) for x in xs]
    txs = [lax.reshape(t, new_shape, permutation) for t in txs]
    pair = _vmapped(ir.jaxpr_as_fun(jaxpr), len(non_axes) + 1)

    def tree(*xs):
        # Halves combined pairwise until one row is left (the shorter half padded with the init).
        while xs[0].shape[0] > 1:
            n = xs[0].shape[0]
            n1 = (n + 1) // 2
            xs1 = [lax.slice_in_dim(x, 0, n1) for x in xs]
            xs2 = [lax.slice_in_dim(x, n1, None) for x in xs]
            if n - n1 != n1:
                pads = [(0, 1, 0)] + [(0, 0, 0)] * (len(new_shape) - 1)
                xs2 = [lax.pad(x2, i, pads) for x2, i in zip(xs2, inits)]
            xs = pair(*xs1, *xs2)
        if xs[0].shape[0] == 0:
            return [lax.full(new_shape[1:], i) for i in inits]
        return [lax.squeeze(x, (0,)) for x in xs]

    return ad.jvp_flat(tree, xs, txs)


ad.jvp_rules[reduce_p] = _reduce_jvp


def _function_text(fn) -> str:
    """``fn`` as JAX's jaxprs show a function param: its repr, the address masked."""
    return re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), repr(fn))


class _Shown:
    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text


ir.pp_params_rules[reduce_p] = lambda eqn: [
    ("computation", _Shown(_function_text(eqn.params["computation"]))),
    ("dimensions", eqn.params["dimensions"]),
    ("jaxpr", eqn.params["jaxpr"]),
]


def bind_reduce(operands, inits, tree, computation, dimensions):
    """The generic path of ``lax.reduce``: ``computation`` (on pytrees like ``tree``) traced on the
    inits' avals into the primitive's jaxpr; the flat outputs."""
    from ..staging import trace_to_jaxpr
    from ..tree_util import tree_flatten, tree_unflatten

    def flat_computation(*args):
        a, b = tree_unflatten(tree, args[: len(inits)]), tree_unflatten(tree, args[len(inits) :])
        out, out_tree = tree_flatten(computation(a, b))
        if out_tree != tree:
            raise TypeError(f"reduce computation returned a {out_tree}; expected a {tree}")
        return out

    avals = [core.get_aval(i) for i in inits]
    closed = trace_to_jaxpr(flat_computation, [*avals, *avals])
    if any(isinstance(c, core.Tracer) for c in closed.consts):
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an issue at "
            "https://github.com/jax-ml/jax."
        )
    return reduce_p.bind(*operands, *inits, computation=computation, jaxpr=closed, dimensions=dimensions)
