"""``reduce`` with any computation: JAX's generic ``reduce`` primitive.

``lax.reduce`` binds it when the computation and init are not one of the monoids with a primitive
of their own (``reduce_sum``, ``reduce_max``...): the computation, traced on scalars like the
inits, is its ``jaxpr`` param (a closed jaxpr), beside the Python ``computation`` itself and the
reduced ``dimensions``. The interpreter folds the elements into the accumulator one at a time, in
the operand's index order (XLA's CPU loop, which decides the value of a non-associative
computation). Its derivative is JAX's: the reduced axes flattened to the front, then the
computation applied to halves pairwise (vmapped over the rest), that tree differentiated.

  >>> lax.reduce(jnp.array([3, 1, 2]), jnp.int32(2), lax.max, (0,))
  Array(3, dtype=int32)
"""

from __future__ import annotations

import re

import numpy as np

from .. import ad, batching, core, ir
from ..backends.rows import INTERPRETER_ONLY
from ..core import Primitive, ShapedArray

reduce_p = Primitive("reduce", multiple_results=True)
INTERPRETER_ONLY["reduce"] = "any computation: its jaxpr folded over the reduced elements one by one"


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
    shape = operands[0].shape
    dims = sorted(dimensions)
    keep = [d for d in range(len(shape)) if d not in dims]
    out_shape = tuple(shape[d] for d in keep)
    count = int(np.prod([shape[d] for d in dims], dtype=np.int64))
    acc = [np.full(out_shape, i, x.dtype) for x, i in zip(operands, inits)]
    if count == 0 or 0 in out_shape:
        return acc
    if count == 1:  # (XLA's simplifier makes this a reshape, init and computation unused, as JAX shows)
        return [x.reshape(out_shape) for x in operands]
    # Each element of the reduced axes, in index order, folded into every output element at once.
    rows = [np.transpose(x, dims + keep).reshape(count, *out_shape) for x in operands]
    step = _vmapped(ir.jaxpr_as_fun(jaxpr), len(keep))
    for k in range(count):
        acc = [np.asarray(core.to_numpy(a)) for a in step(*acc, *[r[k] for r in rows])]
    return [a.astype(x.dtype, copy=False) for a, x in zip(acc, operands)]


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
