"""``lax.optimization_barrier``: an identity XLA may not optimize across (no reordering, no CSE or
rematerialization through it). The engine's compiler does no such rewrites across a program's
equations, so the barrier only has to keep its values (and its place in the jaxpr, as JAX's)."""

from __future__ import annotations

from .. import ad, batching
from ..core import Primitive
from ..tree_util import tree_flatten, tree_unflatten

__all__ = ["optimization_barrier", "optimization_barrier_p"]

optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
optimization_barrier_p.weak_from_abstract_eval = True  # each output as weak as its own input
optimization_barrier_p.def_impl(lambda *xs: list(xs))
optimization_barrier_p.def_abstract_eval(lambda *avals: list(avals))


def _barrier_jvp(primals, tangents):
    # The tangents pass as they are: the barrier orders evaluation, it computes nothing.
    return optimization_barrier_p.bind(*primals), list(tangents)


ad.jvp_rules[optimization_barrier_p] = _barrier_jvp
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
