"""Dead-code elimination before lowering, as JAX's ``pe.dce_jaxpr`` does for ``jit``: a ``jit``
call keeps only the outputs something uses and the inputs its pruned body still reads (so the
private function JAX emits for it has exactly those), and unused equations go away."""

from __future__ import annotations

from typing import Sequence

from ..ir import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Var,
    dce_rules,
    effectful,
    has_effects,
    has_ref_effects,
    ref_effects,
    subjaxprs,
)
from ..jit_params import carried, specified_shardings
from ..jit_primitive import jit_p, staged_like, with_body
from ..lax.cond import cond_p
from ..parallel.spmd import shard_map_p


class Pruner:
    """Prunes jaxprs; a ``jit`` body pruned the same way twice is the same object (JAX caches
    it, so calls of one function with the same used outputs share one private function)."""

    def __init__(self) -> None:
        self._bodies: dict[tuple[int, tuple[bool, ...]], tuple[ClosedJaxpr, list[bool]]] = {}
        self._keep: list[ClosedJaxpr] = []

    def jaxpr(
        self, jaxpr: Jaxpr, used_outputs: Sequence[bool], prune_inputs: bool
    ) -> tuple[Jaxpr, list[bool]]:
        """``jaxpr`` without what the used outputs do not need, and which inputs it reads."""
        outs = [o for o, u in zip(jaxpr.outs, used_outputs) if u]
        live = {x for x in outs if type(x) is Var}
        kept: list[JaxprEqn] = []
        for eqn in reversed(jaxpr.eqns):
            used = [v in live for v in eqn.out_binders]
            keep = (
                eqn.primitive in effectful
                or any(used)
                or any(has_effects(j) or (bool(ref_effects) and has_ref_effects(j)) for j in subjaxprs(eqn))
            )
            if not keep:
                continue
            if eqn.primitive is jit_p:
                eqn = self._jit(eqn, used)
            elif eqn.primitive is cond_p:
                eqn = self._cond(eqn, used)
            elif eqn.primitive is shard_map_p:
                eqn = self._shard_map(eqn, used)
            else:
                rule = dce_rules.get(eqn.primitive)
                if rule is not None:
                    eqn = rule(eqn, used)
            kept.append(eqn)
            live.update(x for x in eqn.inputs if type(x) is Var)
        kept.reverse()
        used_inputs = [v in live for v in jaxpr.in_binders]
        binders = (
            [v for v, u in zip(jaxpr.in_binders, used_inputs) if u] if prune_inputs else jaxpr.in_binders
        )
        return Jaxpr(jaxpr.constvars, binders, kept, outs), used_inputs

    def _cond(self, eqn: JaxprEqn, used: list[bool]) -> JaxprEqn:
        """JAX's cond rule: unused outputs leave every branch; inputs no branch reads leave too."""
        branches = eqn.params["branches"]
        pruned = [self.jaxpr(b.jaxpr, used, prune_inputs=False) for b in branches]
        used_in = [any(u) for u in zip(*(u for _, u in pruned))] if pruned else []
        new = tuple(
            ClosedJaxpr(
                Jaxpr(j.constvars, [v for v, u in zip(j.in_binders, used_in) if u], j.eqns, j.outs), b.consts
            )
            for (j, _), b in zip(pruned, branches)
        )
        index, *args = eqn.inputs
        return JaxprEqn(
            cond_p,
            [index, *(x for x, u in zip(args, used_in) if u)],
            {**eqn.params, "branches": new},
            [v for v, u in zip(eqn.out_binders, used) if u],
            eqn.source_info,
        )

    def _shard_map(self, eqn: JaxprEqn, used: list[bool]) -> JaxprEqn:
        """JAX's shard_map rule: the unused outputs leave with their specs, and so do the inputs
        the pruned body no longer reads."""
        closed = eqn.params["jaxpr"]
        body, used_in = self.jaxpr(closed.jaxpr, used, prune_inputs=True)
        p = eqn.params
        return JaxprEqn(
            shard_map_p,
            [x for x, u in zip(eqn.inputs, used_in) if u],
            {
                **p,
                "jaxpr": ClosedJaxpr(body, closed.consts),
                "in_specs": tuple(s for s, u in zip(p["in_specs"], used_in) if u),
                "out_specs": tuple(s for s, u in zip(p["out_specs"], used) if u),
            },
            [v for v, u in zip(eqn.out_binders, used) if u],
            eqn.source_info,
        )

    def _jit(self, eqn: JaxprEqn, used: list[bool]) -> JaxprEqn:
        closed = eqn.params["jaxpr"]
        key = (id(closed), tuple(used))
        if key not in self._bodies:
            body, used_in = self.jaxpr(closed.jaxpr, used, prune_inputs=True)
            self._bodies[key] = (ClosedJaxpr(body, closed.consts), used_in)
            staged_like(self._bodies[key][0], closed)
            self._keep.append(closed)
        body_closed, used_in = self._bodies[key]
        return JaxprEqn(
            jit_p,
            [x for x, u in zip(eqn.inputs, used_in) if u],
            with_body(
                eqn.params,
                body_closed,
                [d for d, u in zip(eqn.params["donated_invars"], used_in) if u],
                carried(specified_shardings(eqn.params), [(0, used_in)], [(1, used)]),
            ),
            [v for v, u in zip(eqn.out_binders, used) if u],
            eqn.source_info,
        )
