"""StableHLO rules for what discharging refs leaves (``engine.state.jaxpr_discharge``): JAX's
``closed_call`` of a discharged scan body, a private function and a call."""

from __future__ import annotations

from typing import Any

from ..state.jaxpr_discharge import closed_call_p
from .lowering import RuleContext, register
from .syntax import Spec, Value


@register(closed_call_p)
def _closed_call(ctx: RuleContext, *args: Value, call_jaxpr: Any, **_: Any) -> list[Value]:
    fn = ctx.module.private_function(call_jaxpr, "closed_call")
    outs = ctx.call(fn, args)
    if outs:  # (what the HLO printer reads: a call located closed_call, as JAX's closed_call_p)
        attrs = {"callee": fn, "name": "closed_call", "transforms": (), "location": "closed_call"}
        outs[0].op.spec = Spec("func.call", list(args), attrs)  # type: ignore[union-attr]
    return outs
