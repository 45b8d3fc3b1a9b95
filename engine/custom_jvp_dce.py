"""DCE of a ``custom_jvp`` call (JAX's rule): its function DCE'd, and the outputs nothing uses
dropped, with the rule rewrapped to give only the others."""

from __future__ import annotations

import weakref

from . import ir
from .custom_derivatives import _named, custom_jvp_call_p
from .ir import ClosedJaxpr

_dced_call_jaxprs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def _custom_jvp_call_dce(eqn, used_outputs):
    """A kept call's function is DCE'd (JAX's rule), as a new jaxpr memoized per function and
    outputs kept (its jits DCE'd in turn); its inputs all stay (the rule may read them). Outputs
    nothing uses are dropped, and the rule rewrapped to give only the others (and their tangents).
    JAX DCEs only where it linearizes a jit directly (a split inside a custom_jvp rule keeps the
    function whole, see jit_primitive._split_for_partial_eval)."""
    closed = eqn.params["call_jaxpr"]
    table = _dced_call_jaxprs.get(closed)
    if table is None:
        table = _dced_call_jaxprs[closed] = {}
    key = tuple(used_outputs)
    dced = table.get(key)
    if dced is None:
        dced = table[key] = ClosedJaxpr(ir.dce_jaxpr(closed.jaxpr, used_outputs), closed.consts)
    if all(used_outputs):
        return eqn._replace(params=dict(eqn.params, call_jaxpr=dced))
    jvp = eqn.params["jvp_jaxpr_fun"]

    def pruned(ps, ts, consts=None):
        outs, touts = jvp(ps, ts, consts=consts)
        return [o for o, u in zip(outs, used_outputs) if u], [t for t, u in zip(touts, used_outputs) if u]

    _named(pruned, jvp, "jvp", jvp.fun_name)
    return eqn._replace(
        out_binders=[v for v, u in zip(eqn.out_binders, used_outputs) if u],
        params=dict(eqn.params, call_jaxpr=dced, jvp_jaxpr_fun=pruned),
    )


ir.dce_rules[custom_jvp_call_p] = _custom_jvp_call_dce
