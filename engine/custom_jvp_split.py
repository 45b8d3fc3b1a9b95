"""How a split of a jaxpr (partial evaluation) meets a ``custom_jvp`` call with an unknown operand:
inlined where JAX's JaxprTrace splits (its function is all a linear function needs), staged
whole elsewhere."""

from __future__ import annotations

from . import ad, ir
from .custom_derivatives import custom_jvp_call_p


def _partial_eval_jaxpr(unks_in, eqn):
    """A call with an unknown operand, split as JAX's JaxprTrace splits it (partial_eval_jaxpr_nounits,
    which a scan's loop-invariant hoisting runs): its function inlined, the rule dropped (a split
    builds a linear function, which needs none). Elsewhere the call is staged whole, as JAX's
    partial_eval_jaxpr_custom stages it."""
    from .lax.scan_invariants import hoisting

    closed = eqn.params["call_jaxpr"]
    if not hoisting[0] or closed.consts:
        return None
    known_ins = [x for x, u in zip(eqn.inputs, unks_in) if not u]
    j1, j2, out_uk, _ = ad.partial_eval_jaxpr(closed.jaxpr, unks_in)
    known = ir.inline_jaxpr(j1, known_ins, [v for v, u in zip(eqn.out_binders, out_uk) if not u])
    if known is None:
        return None
    eqns1, res = known
    unknown = ir.inline_jaxpr(
        j2,
        [*res, *[x for x, u in zip(eqn.inputs, unks_in) if u]],
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
    )
    if unknown is None:
        return None
    return eqns1, unknown[0], out_uk, res


ad.partial_eval_jaxpr_rules[custom_jvp_call_p] = _partial_eval_jaxpr
