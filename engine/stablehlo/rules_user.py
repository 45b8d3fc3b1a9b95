"""StableHLO text for a primitive a user lowers (``jax.interpreters.mlir.register_lowering``): the
operations its rule builds with ``engine.extend.mlir``, printed as MLIR prints them.

A ``stablehlo.custom_call`` prints in its custom form (its default-valued attributes elided, the
others sorted, as MLIR's attribute dictionaries are), ``mlir.lower_fun``'s traced function is
inlined (as JAX inlines it), constants and one-type elementwise operations print as the engine's
own rules print them; any other operation raises NotImplementedError naming it.

>>> import engine as jax
>>> from engine.extend.core import Primitive
>>> from engine.extend.mlir import lowering as mlir
>>> p = Primitive("doc_user_prim")
>>> _ = p.def_abstract_eval(lambda x: x)
>>> mlir.register_lowering(p, lambda ctx, x: mlir.custom_call("target", operands=[x], result_types=[x.type]).results)
>>> print(jax.jit(p.bind).lower(1.0).as_text().splitlines()[2])
    %0 = stablehlo.custom_call @target(%arg0) {api_version = 2 : i32, backend_config = ""} : (tensor<f32>) -> tensor<f32>
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import core
from .lowering import RuleContext, symbol_ref
from .rules_elementwise import hlo_op
from .syntax import Value, functional_type

# (the one-type elementwise operations a rule may build, printed as the engine's rules print them)
_ELEMENTWISE = {
    f"stablehlo.{n}"
    for n in [
        "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power", "and", "or",
        "xor", "negate", "abs", "exponential", "log", "sine", "cosine", "tanh", "sqrt", "rsqrt", "floor",
        "ceil", "sign", "not",
    ]
}  # fmt: skip


def user_rule(prim: core.Primitive) -> Callable[..., Sequence[Value]] | None:
    """The StableHLO rule for ``prim`` made from its user's lowering rule (None if it has none)."""
    from ..extend.mlir.lowering import lowering_rules

    rule = lowering_rules.get(prim)
    if rule is None:
        return None

    def lower(ctx: RuleContext, *ins: Value, **params: Any) -> list[Value]:
        from ..extend.mlir.lowering import build

        fn, values, _ = build(prim, rule, ctx.avals_in, ctx.avals_out, params)
        block = fn.operation.regions[0].blocks[0]
        env: dict[int, Value] = {id(a): v for a, v in zip(block.arguments, ins)}
        for op in block.operations:
            if op.name == "func.return":
                break
            outs = _operation(ctx, op, [env[id(v)] for v in op.operands])
            for r, v in zip(op.results, outs):
                env[id(r)] = v
        return [env[id(v)] for v in values]

    return lower


def _operation(ctx: RuleContext, op: Any, ins: list[Value]) -> list[Value]:
    name = op.name
    types = [str(r.type) for r in op.results]
    if name == "engine.jaxpr_call":  # (mlir.lower_fun: the traced function, inlined)
        return ctx.lower_jaxpr(ctx.block, op.attributes["jaxpr"].closed, ins)
    if name == "stablehlo.constant":
        arr = np.asarray(op.attributes["value"].array)
        return [ctx.constant(arr, arr.dtype, arr.shape)]
    if name in _ELEMENTWISE and len(set(types) | {v.type for v in ins}) == 1:
        return [hlo_op(ctx, name, *ins, out_type=types[0])]
    if name == "stablehlo.custom_call":
        return _custom_call(ctx, op, ins, types)
    raise NotImplementedError(
        f"StableHLO text for '{name}' built by the lowering rule of a user's primitive is not implemented "
        "in the engine"
    )


def _custom_call(ctx: RuleContext, op: Any, ins: list[Value], types: list[str]) -> list[Value]:
    attrs = dict(op.attributes.items())
    target = str(attrs.pop("call_target_name").value)
    if "has_side_effect" in attrs and not attrs["has_side_effect"].value:  # (defaults: not printed)
        del attrs["has_side_effect"]
    if "api_version" in attrs and int(attrs["api_version"]) == 1:
        del attrs["api_version"]
    text = " {" + ", ".join(f"{k} = {v}" for k, v in sorted(attrs.items())) + "}" if attrs else ""
    sig = functional_type([v.type for v in ins], types)
    head = f"stablehlo.custom_call {symbol_ref(target)}"
    return ctx.emit(types, lambda p: f"{head}({p.list(ins)}){text} : {sig}")
