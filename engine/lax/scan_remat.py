"""A remat'ed ``scan`` split with the remat's policy (JAX's ``_scan_partial_eval_custom``).

Under a policy that saves values inside the loop's body (``dots_saveable``, ``save_only_these_names``
...), the body itself is split with the policy: the known scan (in a ``closed_call``, after its
hoisted loop invariants) also returns the values the policy saves, stacked (or once, if loop
invariant), and the staged scan reads them and recomputes the rest of the body it needs, rather
than the whole known scan being recomputed. (The policy is asked about the body's equations, never
about the scan itself, as JAX's rule asks it.)

The staged scan computes every output (JAX's ``ensure_out_inst``) and stays whole in the remat's
staged jaxpr (what linearize prints); the remat's transpose splits it (JAX's
``partial_eval_jaxpr_nounits``): a known scan recomputing the residuals from the saved values, and
the linear one.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import ad_checkpoint
from ..closed_call import call_of
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from ..state.types import AbstractRef
from .scan import _scan_partial_eval_jaxpr, scan_p
from .scan_invariants import hoisted as _hoisted


class _ScanPolicySplit(ad_checkpoint.PolicySplitRule):
    def __call__(self, policy: Callable[..., Any], unks_in: list[bool], eqn: JaxprEqn) -> Any:
        p = eqn.params
        body = p["jaxpr"]
        if body.consts or body.jaxpr.constvars or any(isinstance(x.aval, AbstractRef) for x in eqn.inputs):
            return None  # (constants of its own, or refs: split whole, by remat_split_rules' row)
        j, nc, nk = body.jaxpr, p["num_consts"], p["num_carry"]
        ny = len(j.outs) - nk
        c_uk, k_uk, x_uk = list(unks_in[:nc]), list(unks_in[nc : nc + nk]), list(unks_in[nc + nk :])
        # (the fixpoint on the carries: a carry whose new value is unknown is unknown)
        for _ in range(1 + nk):
            known, staged, out_uk, nres, staged_in = ad_checkpoint._split(
                j, [*c_uk, *k_uk, *x_uk], policy, [*k_uk, *[False] * ny]
            )
            new = [a or b for a, b in zip(k_uk, out_uk[:nk])]
            if new == k_uk:
                break
            k_uk = new
        uk_all = [*c_uk, *k_uk, *x_uk]
        n_kc = nc - sum(c_uk)
        kin = [x for x, u in zip(eqn.inputs, uk_all) if not u]
        binders = [Var(x.aval) for x in kin]
        n_known_out = len(known.outs) - nres
        # Loop invariants of the known body run once, before the loop (intensive residuals).
        hoist_eqns, hoisted, loop_consts, loop_body, which_hoisted = _hoisted(
            known, binders, n_kc, n_known_out
        )
        stacked = [
            Var(v.aval.update(shape=(p["length"], *v.aval.shape))) for v in loop_body.outs[n_known_out:]
        ]
        loop = JaxprEqn(
            scan_p,
            [*loop_consts, *binders[n_kc:]],
            dict(p, jaxpr=ClosedJaxpr(loop_body, []), num_consts=len(loop_consts), num_carry=nk - sum(k_uk)),
            [*[v for v, u in zip(eqn.out_binders, out_uk) if not u], *stacked],
            eqn.source_info,
        )
        call = call_of(kin, binders, [*hoist_eqns, loop], [*hoisted, *loop.out_binders], eqn.source_info)
        # The staged body takes every operand (what it does not read too), the intensive residuals
        # first, the extensive ones last.
        res_b, rest = staged.in_binders[:nres], iter(staged.in_binders[nres:])
        operands = [next(rest) if s else Var(v.aval) for v, s in zip(j.in_binders, staged_in)]
        intensive = [b for b, h in zip(res_b, which_hoisted) if h]
        extensive = [b for b, h in zip(res_b, which_hoisted) if not h]
        mixed = JaxprEqn(
            scan_p,
            [*hoisted, *eqn.inputs, *stacked],
            dict(
                p,
                jaxpr=ClosedJaxpr(
                    Jaxpr([], [*intensive, *operands, *extensive], staged.eqns, staged.outs), []
                ),
                num_consts=len(hoisted) + nc,
            ),
            list(eqn.out_binders),
            eqn.source_info,
        )
        return call, mixed, out_uk, [*hoisted, *stacked]

    def split_staged(self, unks_in: list[bool], eqn: JaxprEqn) -> list[JaxprEqn]:
        if not any(unks_in):
            return [eqn]
        known, unknown, _, _ = _scan_partial_eval_jaxpr(unks_in, eqn, True, forced_zero=False)
        staged = unknown if isinstance(unknown, list) else [unknown]
        # (a known scan left with no outputs goes, with what only it read: JAX's never shows)
        read = {x for e in staged for x in e.inputs if type(x) is Var} | set(eqn.out_binders)
        kept: list[JaxprEqn] = []
        for e in reversed(known):
            if any(v in read for v in e.out_binders):
                kept.insert(0, e)
                read.update(x for x in e.inputs if type(x) is Var)
        return [*kept, *staged]


ad_checkpoint.policy_split_rules[scan_p] = _ScanPolicySplit()
