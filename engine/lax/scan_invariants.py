"""A scan's known body, split once more: what depends on its known consts alone (loop
invariants) runs once before the loop, as JAX's ``_scan_partial_eval`` hoists it; the rest is the
loop."""

from __future__ import annotations

from .. import ad, ir
from ..ir import Jaxpr, JaxprEqn, Var


def inlined(jaxpr: Jaxpr, args) -> tuple[list[JaxprEqn], list]:
    """``jaxpr``'s equations reading ``args`` for its binders, under fresh variables, and its outputs."""
    made = ir.inline_jaxpr(jaxpr, args)
    assert made is not None  # (no output is named)
    return made


def _reached_order(jaxpr: Jaxpr, binders) -> list[int]:
    """Positions of ``binders`` in the order a depth-first walk from ``jaxpr``'s outputs reaches
    them (the order JAX's partial evaluation makes residuals in; unreached ones last)."""
    producer = {v: e for e in jaxpr.eqns for v in e.out_binders}
    where = {v: i for i, v in enumerate(binders)}
    order: list[int] = []
    seen: set = set()
    stack = [x for x in reversed(jaxpr.outs) if type(x) is Var]
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if x in where:
            order.append(where[x])
        elif x in producer:
            stack.extend(y for y in reversed(producer[x].inputs) if type(y) is Var and y not in seen)
    return order + [i for i in range(len(binders)) if i not in order]


# Inside the split that hoists a known body's loop invariants (JAX's partial_eval_jaxpr_nounits
# over consts known, carries and xs unknown): a known carry the fixpoint made unknown is an
# ordinary known value there, its initial value a residual (so hoisted), not a zero tangent.
hoisting = [0]


def split_invariants(j1: Jaxpr, unknowns: list[bool], n_known_out: int):
    """``j1`` split with its known consts known (``unknowns``): ``(ja, jb, out unknowns, number of
    residuals)``, ``ja`` computing the known outputs and the loop invariants, residuals in the
    order JAX's split makes them (unknown jits reading theirs last)."""
    from .. import jit_primitive

    saved, jit_primitive.residuals_last[0] = jit_primitive.residuals_last[0], True
    # (a JaxprTrace split: literals stay literals and known jits keep their bodies whole)
    saved_literals, jit_primitive._literal_residuals[0] = jit_primitive._literal_residuals[0], False
    hoisting[0] += 1
    try:
        ja, jb, out_uk2, nres = ad.partial_eval_jaxpr(
            j1, unknowns, instantiate=[True] * n_known_out + [False] * (len(j1.outs) - n_known_out)
        )
    finally:
        jit_primitive.residuals_last[0] = saved
        jit_primitive._literal_residuals[0] = saved_literals
        hoisting[0] -= 1
    n_hoisted = len(ja.outs) - nres
    perm = _reached_order(jb, jb.in_binders[:nres])
    jb = Jaxpr(jb.constvars, [*[jb.in_binders[i] for i in perm], *jb.in_binders[nres:]], jb.eqns, jb.outs)
    ja = Jaxpr(
        ja.constvars, ja.in_binders, ja.eqns, [*ja.outs[:n_hoisted], *[ja.outs[n_hoisted + i] for i in perm]]
    )
    return ja, jb, out_uk2, nres


def hoisted(j1: Jaxpr, kin, n_kc, n_known_out):
    """What of the known body depends on known consts alone, as equations before the loop (JAX's
    loop-invariant hoisting): ``(equations, hoisted residuals, loop consts, loop body, which
    residual outputs of j1 are hoisted)``."""
    ja, jb, out_uk2, nres = split_invariants(
        j1, [False] * n_kc + [True] * (len(j1.in_binders) - n_kc), n_known_out
    )
    n_hoisted = len(ja.outs) - nres
    eqns, outer = inlined(ir.dce_jaxpr(ja), kin[:n_kc])
    return (
        eqns,
        outer[:n_hoisted],
        outer[n_hoisted:],
        ir.dce_jaxpr(jb),
        [not u for u in out_uk2[n_known_out:]],
    )
