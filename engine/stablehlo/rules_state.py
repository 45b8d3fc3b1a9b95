"""StableHLO rules for what discharging refs leaves (``engine.state.jaxpr_discharge``): JAX's
``closed_call`` of a discharged scan body, a private function and a call."""

from __future__ import annotations

from typing import Any

from ..state.jaxpr_discharge import closed_call_p
from .lowering import RuleContext, register
from .syntax import Value


@register(closed_call_p)
def _closed_call(ctx: RuleContext, *args: Value, call_jaxpr: Any) -> list[Value]:
    return ctx.call(ctx.module.private_function(call_jaxpr, "closed_call"), args)
