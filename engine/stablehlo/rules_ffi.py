"""StableHLO rules for ``jax.ffi`` calls (``stablehlo.custom_call``) and platform-dependent code
(``platform_index`` and a ``cond`` over per-platform branches), lowered for the CPU as JAX does."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..debug import debug_callback_p, debug_print_p, ordered_debug_effect
from ..inspect_sharding import inspect_sharding_p
from ..ffi import ffi_call_p
from ..lax.cond import _platform_index, platform_index_p
from . import literals
from .lowering import RuleContext, register
from .syntax import Spec, Value, functional_type


@register(platform_index_p)
def _platform_index_rule(ctx: RuleContext, *, platforms: Any, **_: Any) -> list[Value]:
    return [ctx.constant(np.int32(_platform_index(platforms)), np.int32)]


def attribute_text(value: Any) -> str:
    """How MLIR prints the attribute JAX's ``ir_attribute`` makes of a Python value."""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = np.array(value, np.int64 if isinstance(value, int) else np.float64)[()]
    if isinstance(value, np.generic) and np.ndim(value) == 0:
        ty = literals.element_type(value.dtype)
        return f"{literals.element_text(value)} : {ty}"
    if isinstance(value, np.ndarray):
        return f"{literals.dense_text(value, value.dtype)} : {literals.tensor_type(value.shape, value.dtype)}"
    if isinstance(value, (str, bytes)):
        s = value.decode() if isinstance(value, bytes) else value
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {attribute_text(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(attribute_text(v) for v in value) + "]"
    raise NotImplementedError(f"StableHLO text for an ffi attribute of type {type(value).__name__}")


def _layout_text(layout: Any) -> str:
    """A minor-to-major layout as MLIR prints the dense index attribute (one element: a splat)."""
    arr = np.asarray(layout, np.int64).reshape(-1)
    return f"{literals.dense_text(arr, np.int64)} : tensor<{arr.size}xindex>"


@register(ffi_call_p)
def _ffi_call(
    ctx: RuleContext,
    *operands: Value,
    target_name: str,
    attributes: Any = (),
    custom_call_api_version: int = 4,
    has_side_effect: bool = False,
    input_layouts: Any = (),
    output_layouts: Any = (),
    input_output_aliases: Any = (),
    legacy_backend_config: Any = None,
    **_: Any,
) -> list[Value]:
    if custom_call_api_version < 4 or legacy_backend_config is not None:
        raise NotImplementedError("StableHLO text for a legacy (api_version < 4) ffi_call is not implemented")
    attrs = ['backend_config = ""']
    if has_side_effect:
        attrs.append("has_side_effect = true")
    attrs.append(f"mhlo.backend_config = {attribute_text(dict(attributes))}")
    attrs.append(f"operand_layouts = [{', '.join(_layout_text(lay) for lay in input_layouts)}]")
    if input_output_aliases:
        multi = len(ctx.avals_out) > 1
        aliases = ", ".join(
            "#stablehlo.output_operand_alias<"
            + (f"output_tuple_indices = [{o}], " if multi else "")
            + f"operand_index = {i}, operand_tuple_indices = []>"
            for i, o in input_output_aliases
        )
        attrs.append(f"output_operand_aliases = [{aliases}]")
    attrs.append(f"result_layouts = [{', '.join(_layout_text(lay) for lay in output_layouts)}]")
    types = ctx.out_types
    sig = functional_type([v.type for v in operands], types)
    target = target_name if target_name.replace("_", "a").isalnum() else f'"{target_name}"'
    text = "{" + ", ".join(attrs) + "}"
    spec = Spec(
        "stablehlo.custom_call",
        operands,
        {
            "target": target_name,
            "backend_config": attribute_text(dict(attributes)),
            "operand_layouts": [tuple(lay) for lay in input_layouts],
            "has_side_effect": has_side_effect,
            "aliases": bool(input_output_aliases),
        },
    )
    if len(types) != 1:
        spec = None  # (a tuple-shaped custom call: not printed as HLO)
    return ctx.emit(
        types, lambda p: f"stablehlo.custom_call @{target}({p.list(operands)}) {text} : {sig}", spec=spec
    )


@register(debug_callback_p)
@register(debug_print_p)
def _debug_callback(ctx: RuleContext, *args: Value, **params: Any) -> list[Value]:
    """JAX's host callback on the CPU: a side-effecting custom call numbered per module, placed on
    the one-device mesh the module then declares."""
    if params.get("ordered") or params.get("effect") is ordered_debug_effect:
        raise NotImplementedError("StableHLO text for an ordered debug callback (tokens) is not implemented")
    index = ctx.module.callbacks
    ctx.module.callbacks += 1
    layouts = ", ".join(_layout_text(tuple(range(len(a.shape) - 1, -1, -1))) for a in ctx.avals_in)
    attrs = (
        f'{{backend_config = "", has_side_effect = true, mhlo.backend_config = {{index = {index} : ui64}}, '
        f"operand_layouts = [{layouts}], result_layouts = [], "
        f"sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>}}"
    )
    sig = functional_type([v.type for v in args], [])
    ctx.emit(
        [], lambda p: f"stablehlo.custom_call @xla_ffi_python_cpu_callback({p.list(args)}) {attrs} : {sig}"
    )
    return []


@register(inspect_sharding_p)
def _inspect_sharding(ctx: RuleContext, *args: Value, **_: Any) -> list[Value]:
    """On one device JAX calls back while lowering and emits nothing (on several, a custom call
    the SPMD partitioner answers; the engine's partitioner calls back itself)."""
    return []
