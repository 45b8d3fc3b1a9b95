"""``lax.optimization_barrier``: an identity XLA may not optimize across (no reordering, no CSE or
rematerialization through it). The engine's compiler does no such rewrites across a program's
equations, so the barrier only has to keep its values (and its place in the jaxpr, as JAX's).

``lax.dce_sink``: marks values used, so dead-code elimination keeps what computes them (checkify's
while loop sinks the test of the next carry in its body this way); it computes nothing."""

from __future__ import annotations

from .. import ad, batching, ir
from ..backends.rows import Special, lowerings
from ..core import Primitive
from ..tree_util import tree_flatten, tree_leaves, tree_unflatten

__all__ = ["optimization_barrier", "optimization_barrier_p", "dce_sink", "dce_sink_p"]

optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
optimization_barrier_p.weak_from_abstract_eval = True  # each output as weak as its own input
optimization_barrier_p.def_impl(lambda *xs: list(xs))
optimization_barrier_p.def_abstract_eval(lambda *avals: list(avals))


def _barrier_jvp(primals, tangents):
    # JAX's rule: the tangents behind a barrier of their own (zeros made arrays)
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    return optimization_barrier_p.bind(*primals), optimization_barrier_p.bind(*tangents)


def _barrier_transpose(cts, *primals):
    return optimization_barrier_p.bind(*(ad.instantiate_zeros(ct) for ct in cts))


ad.jvp_rules[optimization_barrier_p] = _barrier_jvp
ad.transpose_rules[optimization_barrier_p] = _barrier_transpose
batching.batch_rules[optimization_barrier_p] = lambda size, vals, dims: (
    optimization_barrier_p.bind(*vals),
    list(dims),
)


def optimization_barrier(operand, /):
    """The pytree ``operand`` unchanged, with a barrier XLA does not optimize across.

    >>> optimization_barrier((jnp.ones(2), 3.0))
    (Array([1., 1.], dtype=float32), Array(3., dtype=float32, weak_type=True))
    """
    leaves, tree = tree_flatten(operand)
    return tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


dce_sink_p = Primitive("dce_sink", multiple_results=True)
dce_sink_p.def_impl(lambda x, **_: [])
dce_sink_p.def_abstract_eval(lambda x, **_: [])
ir.effectful.add(dce_sink_p)  # (what it is for: no outputs, yet kept)
lowerings[dce_sink_p] = Special("compile_time")  # nothing to run


def _dce_sink_jvp(primals, tangents, **params):
    # JAX's rule for a linear primitive: the primal is sunk, and the tangent unless it is a zero
    dce_sink_p.bind(*primals, **params)
    if not all(type(t) is ad.Zero for t in tangents):
        dce_sink_p.bind(*(ad.instantiate_zeros(t) for t in tangents), **params)
    return [], []


ad.jvp_rules[dce_sink_p] = _dce_sink_jvp
ad.transpose_rules[dce_sink_p] = lambda cts, x, **params: [None]
batching.batch_rules[dce_sink_p] = lambda size, vals, dims, **params: ([], [])  # (JAX's rule binds nothing)


def dce_sink(val, *, prevent_mlir_dce: bool = False) -> None:
    """Keep every array of the pytree ``val`` (and what computes it) through dead-code elimination.

    >>> lax.dce_sink((jnp.ones(2), 1.0))
    """
    for leaf in tree_leaves(val):
        dce_sink_p.bind(leaf, prevent_mlir_dce=prevent_mlir_dce)
