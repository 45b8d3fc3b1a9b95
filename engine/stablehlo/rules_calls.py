"""StableHLO rules for call-like primitives: ``jit`` becomes a private function and a call; custom
derivatives and checkpoints are inlined (their primal computation), as JAX lowers them; a composite
is a ``stablehlo.composite`` calling its decomposition."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ad_checkpoint import checkpoint_p, name_p
from ..experimental.xla_metadata import attribute_text, xla_metadata_value_p
from ..custom_batching import custom_vmap_p
from ..custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from ..device_put_primitive import device_put_p
from ..jit_params import specified_shardings
from ..jit_primitive import call_transforms, jit_p
from ..linear_call import linear_call_p
from ..lax.barrier import dce_sink_p, optimization_barrier_p
from ..lax.composite_call import attribute_values, check_composite_name, composite_p
from ..lax.solves import linear_solve_p
from . import literals
from .lowering import RuleContext, register, symbol_ref
from .syntax import Spec, Value, functional_type


@register(jit_p)
def _jit(ctx: RuleContext, *args: Value, jaxpr: Any, name: str, **params: Any) -> list[Value]:
    if specified_shardings(params) is not None:  # (JAX's text annotates the call's values with them)
        raise NotImplementedError(
            "StableHLO text of a nested jit with in_shardings/out_shardings is not implemented"
        )
    fn = ctx.module.private_function(jaxpr, name)
    outs = ctx.call(fn, args)
    if outs:  # (what the HLO printer reads: the callee, and whether JAX names the call jit(<name>))
        transforms = call_transforms(jaxpr)
        attrs = {"callee": fn, "name": name, "transforms": transforms}
        outs[0].op.spec = Spec("func.call", args, attrs)  # type: ignore[union-attr]
    return outs


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
        args = tuple(_optimization_barrier(ctx, *args))
    return ctx.lower_jaxpr(ctx.block, jaxpr, args)


@register(optimization_barrier_p)
def _optimization_barrier(ctx: RuleContext, *args: Value) -> list[Value]:
    if not args:  # (MLIR prints no operands differently; JAX's barrier of nothing is not lowered so)
        raise NotImplementedError("StableHLO text of an optimization_barrier of no values is not implemented")
    types, ins = [a.type for a in args], args
    return ctx.emit(
        types,
        lambda p: f"stablehlo.optimization_barrier {p.list(ins)} : {', '.join(types)}",
        spec=Spec("stablehlo.optimization_barrier", ins),
    )


@register(name_p)
def _name(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    return [x]


@register(dce_sink_p)
def _dce_sink(ctx: RuleContext, x: Value, *, prevent_mlir_dce: bool) -> list[Value]:
    if prevent_mlir_dce:  # (JAX's: a side-effecting custom call the engine has no lowering for)
        raise NotImplementedError("StableHLO text for dce_sink(prevent_mlir_dce=True) is not implemented")
    return []  # JAX emits nothing: the sink only steers jaxpr-level DCE


@register(xla_metadata_value_p)
def _xla_metadata_value(ctx: RuleContext, x: Value, *, xla_metadata_kvs: Any) -> list[Value]:
    """JAX's: the pairs go on the operation computing ``x`` (its own pairs win); an argument of
    the function has no operation, and is left as it is."""
    if x.op is not None:
        pairs = {k: attribute_text(v) for k, v in xla_metadata_kvs}
        x.op.frontend = {**pairs, **x.op.frontend}
    return [x]


@register(device_put_p)
def _device_put(ctx: RuleContext, *xs: Value, **_: Any) -> list[Value]:
    return list(xs)  # (JAX's CPU lowering: the operands, on the default memory)


@register(linear_solve_p)
def _custom_linear_solve(
    ctx: RuleContext, *args: Value, const_lengths: Any, jaxprs: Any, **_: Any
) -> list[Value]:
    # JAX's _custom_linear_solve_impl, traced and inlined: the solve jaxpr applied to b
    n_before = const_lengths.matvec + const_lengths.vecmat
    solve_consts = args[n_before : n_before + const_lengths.solve]
    b = args[sum(const_lengths) :]
    return ctx.lower_jaxpr(ctx.block, jaxprs.solve, [*solve_consts, *b])


@register(composite_p)
def _composite(
    ctx: RuleContext, *args: Value, name: str, attributes: Any, version: int, jaxpr: Any
) -> list[Value]:
    check_composite_name(name)
    fn = ctx.module.private_function(jaxpr, name)
    attrs = attribute_values(attributes)
    parts = []
    if attrs:
        items = ", ".join(f"{k} = {_attribute_text(v, True)}" for k, v in sorted(attrs.items()))
        parts.append(f"composite_attributes = {{{items}}}")
    parts.append(f"decomposition = {symbol_ref(fn.name)}")
    if version:
        parts.append(f"version = {version} : i32")
    types = functional_type([a.type for a in args], fn.result_types)
    return ctx.emit(
        fn.result_types,
        lambda p: f'stablehlo.composite "{name}" {p.list(args)} {{{", ".join(parts)}}} : {types}',
    )


def _attribute_text(v: Any, typed: bool) -> str:
    """A composite attribute as MLIR prints it (JAX's ``ir_attribute``): a scalar's type is shown
    in the attribute dictionary and elided inside an array."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return f"{int(v)} : i64" if typed else str(int(v))
    if isinstance(v, (float, np.floating)):
        text = literals.float_text(np.float64(v))
        return f"{text} : f64" if typed else text
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, np.ndarray):
        return f"{literals.dense_text(v, v.dtype)} : {literals.tensor_type(v.shape, v.dtype)}"
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_attribute_text(x, False) for x in v) + "]"
    raise NotImplementedError(
        f"a composite attribute of type {type(v).__name__} has no StableHLO text in the engine"
    )
