"""StableHLO rules for call-like primitives: ``jit`` becomes a private function and a call; custom
derivatives and checkpoints are inlined (their primal computation), as JAX lowers them."""

from __future__ import annotations

from typing import Any

from ..ad_checkpoint import checkpoint_p, name_p
from ..custom_batching import custom_vmap_p
from ..custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from ..jit_primitive import jit_p
from ..linear_call import linear_call_p
from ..lax.solves import linear_solve_p
from .lowering import RuleContext, register
from .syntax import Value


@register(jit_p)
def _jit(ctx: RuleContext, *args: Value, jaxpr: Any, name: str, **_: Any) -> list[Value]:
    fn = ctx.module.private_function(jaxpr, name)
    return ctx.call(fn, args)


@register(custom_jvp_call_p)
@register(custom_vjp_call_p)
def _custom_call(ctx: RuleContext, *args: Value, call_jaxpr: Any, **_: Any) -> list[Value]:
    return ctx.lower_jaxpr(ctx.block, call_jaxpr, args)


@register(custom_vmap_p)
def _custom_vmap_call(ctx: RuleContext, *args: Value, call: Any, **_: Any) -> list[Value]:
    return ctx.lower_jaxpr(ctx.block, call, args)


@register(linear_call_p)
def _linear_call(ctx: RuleContext, *args: Value, callee: Any, **_: Any) -> list[Value]:
    return ctx.lower_jaxpr(ctx.block, callee, args)


@register(checkpoint_p)
def _checkpoint(
    ctx: RuleContext,
    *args: Value,
    jaxpr: Any,
    prevent_cse: bool = True,
    differentiated: bool = False,
    **_: Any,
) -> list[Value]:
    if differentiated and prevent_cse and args:
        # JAX keeps XLA from merging the recomputation with the forward pass: the arguments go
        # through an optimization barrier first
        types, ins = [a.type for a in args], args
        args = tuple(
            ctx.emit(types, lambda p: f"stablehlo.optimization_barrier {p.list(ins)} : {', '.join(types)}")
        )
    return ctx.lower_jaxpr(ctx.block, jaxpr, args)


@register(name_p)
def _name(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    return [x]


@register(linear_solve_p)
def _custom_linear_solve(
    ctx: RuleContext, *args: Value, const_lengths: Any, jaxprs: Any, **_: Any
) -> list[Value]:
    # JAX's _custom_linear_solve_impl, traced and inlined: the solve jaxpr applied to b
    n_before = const_lengths.matvec + const_lengths.vecmat
    solve_consts = args[n_before : n_before + const_lengths.solve]
    b = args[sum(const_lengths) :]
    return ctx.lower_jaxpr(ctx.block, jaxprs.solve, [*solve_consts, *b])
