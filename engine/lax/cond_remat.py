"""A remat'ed ``cond`` split with the remat's policy (JAX's ``_cond_partial_eval_custom``).

Each branch is split with the policy (as ``scan_remat`` splits a loop's body): the known cond also
returns what the policy saves in the branch taken, in residual slots merged across branches by
type (a branch fills the slots it does not use with ``empty2`` values), and the staged cond takes
every slot and every operand, recomputing the rest of the branch; the remat's transpose then
splits the staged cond as it splits any (``cond``'s rule of ``ad.partial_eval_jaxpr_rules``).
"""

from __future__ import annotations

from typing import Any, Callable

from .. import ad_checkpoint
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from ..staging import trace_to_jaxpr
from ..state.types import is_ref_aval
from . import structural
from .cond import _cond_partial_eval_jaxpr, _merge_branch_residuals, cond_p


class _CondPolicySplit(ad_checkpoint.PolicySplitRule):
    def __call__(self, policy: Callable[..., Any], unks_in: list[bool], eqn: JaxprEqn) -> Any:
        idx_uk, *ops_uk = unks_in
        branches = eqn.params["branches"]
        if idx_uk or any(b.consts or b.jaxpr.constvars for b in branches):
            return None  # (staged whole, or constants of its own: remat_split_rules' row)
        if any(is_ref_aval(x.aval) for x in eqn.inputs):
            return None
        n_out = len(eqn.out_binders)
        # An output is unknown if it is in any branch.
        out_uk = [False] * n_out
        for b in branches:
            _, _, uk, _, _ = ad_checkpoint._split(b.jaxpr, ops_uk, policy, [False] * n_out)
            out_uk = [a or c for a, c in zip(out_uk, uk)]
        splits = [ad_checkpoint._split(b.jaxpr, ops_uk, policy, out_uk) for b in branches]
        res_avals = [[v.aval for v in s[1].in_binders[: s[3]]] for s in splits]
        all_res, slots = _merge_branch_residuals(res_avals)
        n_known = n_out - sum(out_uk)
        known, staged = [], []
        for (k, st, _, nres, st_in), own, b in zip(splits, slots, branches):
            fill = trace_to_jaxpr(lambda: [structural.empty_like(a) for a in all_res], [])
            res_outs = list(fill.jaxpr.outs)
            for slot, v in zip(own, k.outs[n_known:]):
                res_outs[slot] = v
            known.append(
                ClosedJaxpr(
                    Jaxpr([], k.in_binders, [*k.eqns, *fill.jaxpr.eqns], [*k.outs[:n_known], *res_outs]), []
                )
            )
            res_b = [Var(a) for a in all_res]
            for slot, v in zip(own, st.in_binders[:nres]):
                res_b[slot] = v
            rest = iter(st.in_binders[nres:])
            ops_b = [next(rest) if s else Var(v.aval) for v, s in zip(b.jaxpr.in_binders, st_in)]
            staged.append(ClosedJaxpr(Jaxpr([], [*res_b, *ops_b], st.eqns, st.outs), []))
        res_vars = [Var(a) for a in all_res]
        ins = eqn.inputs[1:]
        eqn_known = JaxprEqn(
            cond_p,
            [eqn.inputs[0], *[x for x, u in zip(ins, ops_uk) if not u]],
            dict(eqn.params, branches=tuple(known)),
            [*[v for v, u in zip(eqn.out_binders, out_uk) if not u], *res_vars],
            eqn.source_info,
        )
        eqn_staged = JaxprEqn(
            cond_p,
            [eqn.inputs[0], *res_vars, *ins],
            dict(eqn.params, branches=tuple(staged)),
            list(eqn.out_binders),
            eqn.source_info,
        )
        return eqn_known, eqn_staged, out_uk, res_vars

    def split_staged(self, unks_in: list[bool], eqn: JaxprEqn) -> list[JaxprEqn]:
        if not any(unks_in):
            return [eqn]
        eqn1, eqn2, _, _ = _cond_partial_eval_jaxpr(unks_in, eqn, True)
        return [e for e in (eqn1, eqn2) if e is not None and e.out_binders]


ad_checkpoint.policy_split_rules[cond_p] = _CondPolicySplit()
