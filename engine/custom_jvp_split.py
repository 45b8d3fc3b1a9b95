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
    j1, j2, out_uk, nres = ad.partial_eval_jaxpr(closed.jaxpr, unks_in)
    n_known_out = len(j1.outs) - nres
    known = _inline_into(j1, known_ins, [v for v, u in zip(eqn.out_binders, out_uk) if not u], n_known_out)
    if known is None:
        return None
    eqns1, res = known
    unknown = _inline_into(
        j2,
        [*res, *[x for x, u in zip(eqn.inputs, unks_in) if u]],
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
    )
    if unknown is None:
        return None
    return eqns1, unknown[0], out_uk, res


def _inline_into(jaxpr, args, targets, n_targets=None):
    """``jaxpr``'s equations reading ``args``, its first ``n_targets`` outputs bound to ``targets``:
    ``(equations, the other outputs)``, or None where an output is no equation's own result."""
    n = len(jaxpr.outs) if n_targets is None else n_targets
    produced = {v for e in jaxpr.eqns for v in e.out_binders}
    named = jaxpr.outs[:n]
    if any(type(v) is not ir.Var or v not in produced or named.count(v) > 1 for v in named):
        return None
    env = dict(zip(jaxpr.in_binders, args))
    env.update(zip(named, targets))
    read = lambda x: env.get(x, x) if type(x) is ir.Var else x
    eqns = []
    for e in jaxpr.eqns:
        outs = [env.get(v) or ir.Var(v.aval) for v in e.out_binders]
        env.update(zip(e.out_binders, outs))
        eqns.append(e._replace(inputs=[read(x) for x in e.inputs], out_binders=outs))
    return eqns, [read(x) for x in jaxpr.outs[n:]]


ad.partial_eval_jaxpr_rules[custom_jvp_call_p] = _partial_eval_jaxpr
