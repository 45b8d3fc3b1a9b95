"""Lowering rules for primitives, as ``jax.interpreters.mlir.register_lowering`` registers them.

When ``jit`` runs a program, every equation whose primitive has a registered rule is lowered:
the rule builds StableHLO for it (``rule(ctx, *block_arguments, **params)``), and the module is
translated to the engine's primitives (``execute.Binding``), staged as a nested ``jit`` in
place of the equation. The numba backend or the interpreter then runs it like any other code.

A primitive made with ``jax.extend.core.Primitive`` must have a rule to run under ``jit``, as in
JAX (its ``impl`` is for eager calls); the engine's own primitives have their own backends.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from ... import core
from ...core import ShapedArray
from ...ir import ClosedJaxpr, Jaxpr, JaxprEqn
from . import execute, ir
from .dialects import func
from .dialects import stablehlo as hlo

# primitive -> rule(ctx, *ir values, **params) -> sequence of ir values
lowering_rules: dict[core.Primitive, Callable[..., Any]] = {}
# primitives defined through jax.extend.core (jit needs a lowering rule for them)
extension_primitives: "weakref.WeakSet[core.Primitive]" = weakref.WeakSet()


def register_lowering(
    prim: core.Primitive, rule: Callable[..., Any], platform: str | None = None, **_: Any
) -> None:
    """Use ``rule`` to lower ``prim`` when a ``jit`` program runs (CPU is the engine's platform;
    rules for other platforms are kept out of the way)."""
    if platform not in (None, "cpu"):
        return
    lowering_rules[prim] = rule
    _expanded.clear()  # (programs lowered before now used the previous rule)
    _unchanged.clear()


# ---------------------------------------------------------------------------------------------
# Types and constants, as jax.interpreters.mlir spells them.


def dtype_to_ir_type(dtype: Any) -> ir.Type:
    return ir.element_type_of(dtype)


def aval_to_ir_type(aval: ShapedArray) -> ir.RankedTensorType:
    return ir.RankedTensorType(aval.shape, dtype_to_ir_type(aval.dtype))


def aval_to_ir_types(aval: ShapedArray) -> tuple[ir.RankedTensorType]:
    return (aval_to_ir_type(aval),)


def ir_constant(val: Any) -> ir.Value:
    return hlo.constant(ir.DenseElementsAttr.get(np.asarray(val)))


def dense_int_array(xs: Sequence[int]) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr(xs)


def i32_attr(i: int) -> ir.IntegerAttr:
    return ir.IntegerAttr(ir.IntegerType(32), i)


def i64_attr(i: int) -> ir.IntegerAttr:
    return ir.IntegerAttr(ir.IntegerType(64), i)


@dataclasses.dataclass
class ModuleContext:
    context: ir.Context
    module: ir.Module
    ip: ir.InsertionPoint
    symbol_table: ir.SymbolTable
    platforms: tuple[str, ...] = ("cpu",)


@dataclasses.dataclass
class LoweringRuleContext:
    """What a lowering rule is told about the equation it lowers."""

    module_context: ModuleContext
    primitive: core.Primitive
    avals_in: Sequence[ShapedArray]
    avals_out: Sequence[ShapedArray]
    platforms: Sequence[str] | None = None

    def replace(self, **changes: Any) -> "LoweringRuleContext":
        return dataclasses.replace(self, **changes)


class JaxprAttr(ir.Attribute):
    """A traced jaxpr carried by an ``engine.jaxpr_call`` operation (what ``lower_fun`` emits).
    It prints, but text cannot carry it back: a parsed module holding one does not execute."""

    def __init__(self, closed: ClosedJaxpr):
        self.closed = closed

    def __str__(self) -> str:
        return str(ir.StringAttr(str(self.closed)))


class JaxprCallOp(ir.OpView):
    OPERATION_NAME = "engine.jaxpr_call"

    def __init__(self, closed: ClosedJaxpr, args: Sequence[Any], *, loc: Any = None, ip: Any = None):
        types = [aval_to_ir_type(a) for a in closed.out_avals]
        super().__init__(self.build(list(args), types, {"jaxpr": JaxprAttr(closed)}, ip=ip))


def lower_fun(fun: Callable[..., Any], multiple_results: bool = True) -> Callable[..., Any]:
    """A lowering rule that runs ``fun`` (written with jax.numpy/lax) on the operands: it is
    traced at the rule context's input avals and emitted as one ``engine.jaxpr_call``."""
    from ...staging import trace_to_jaxpr

    def rule(ctx: LoweringRuleContext, *args: Any, **params: Any) -> list[ir.Value]:
        def flat(*xs: Any) -> list[Any]:
            out = fun(*xs, **params)
            return list(out) if multiple_results else [out]

        closed = trace_to_jaxpr(flat, list(ctx.avals_in))
        return list(JaxprCallOp(closed, args).results)

    return rule


# ---------------------------------------------------------------------------------------------
# Lowering an equation to a jaxpr of engine primitives.


def _flat_values(outs: Any) -> list[ir.Value]:
    if isinstance(outs, (ir.Value, ir.Operation, ir.OpView)):
        return [ir.as_value(outs)]
    flat: list[ir.Value] = []
    for o in outs:
        flat.extend(_flat_values(o))
    return flat


def custom_call(
    call_target_name: str,
    *,
    result_types: Sequence[ir.Type],
    operands: Sequence[ir.Value],
    backend_config: str = "",
    has_side_effect: bool = False,
    api_version: int = 2,
    **_: Any,
) -> ir.Operation:
    """``mlir.custom_call``: a ``stablehlo.custom_call`` to an XLA target. The engine has no such
    targets: the operation can be built (``jax.export`` sees and refuses it, as JAX's does), and
    running it raises NotImplementedError naming it."""
    i32 = ir.IntegerType.get_signless(32)
    attributes = {
        "call_target_name": ir.StringAttr.get(call_target_name),
        "api_version": ir.IntegerAttr.get(i32, api_version),
        "backend_config": ir.StringAttr.get(backend_config),
        "has_side_effect": ir.BoolAttr.get(has_side_effect),
    }
    return ir.Operation.create(
        "stablehlo.custom_call", results=list(result_types), operands=list(operands), attributes=attributes
    )


def custom_call_targets(jaxpr: Jaxpr) -> list[str]:
    """The custom call targets the lowering rules of ``jaxpr``'s equations build (nested jaxprs too)."""
    from ...ir import subjaxprs

    found: list[str] = []

    def walk_ops(ops: Sequence[ir.Operation]) -> None:
        for op in ops:
            if op.name == "stablehlo.custom_call":
                found.append(str(op.attributes["call_target_name"].value))
            for region in op.regions:
                for block in region.blocks:
                    walk_ops(block.operations)

    for eqn in jaxpr.eqns:
        rule = lowering_rules.get(eqn.primitive)
        if rule is not None:
            fn, _, _ = build(eqn.primitive, rule, *_avals_and_params(eqn))
            walk_ops(fn.operation.regions[0].blocks[0].operations)
        for sub in subjaxprs(eqn):
            found.extend(custom_call_targets(sub))
    return found


def _avals_and_params(eqn: JaxprEqn) -> tuple[list, list, dict]:
    return [x.aval for x in eqn.inputs], [v.aval for v in eqn.out_binders], eqn.params


def build(
    prim: core.Primitive,
    rule: Callable[..., Any],
    avals_in: Sequence[Any],
    avals_out: Sequence[Any],
    params: Any,
) -> tuple[Any, list, list]:
    """An equation's lowering built by its rule: ``(func @main, its result values, result types)``."""
    with ir.Context() as context, ir.Location.unknown():
        module = ir.Module.create()
        types = ir.FunctionType(
            [aval_to_ir_type(a) for a in avals_in], [aval_to_ir_type(a) for a in avals_out]
        )
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("main", types)
        block = fn.add_entry_block()
        ip = ir.InsertionPoint(block)
        mctx = ModuleContext(context, module, ip, ir.SymbolTable(module.operation))
        with ip:
            outs = rule(LoweringRuleContext(mctx, prim, avals_in, avals_out), *block.arguments, **params)
            values = _flat_values(outs)
            func.ReturnOp(values)
    return fn, values, list(types.results)


def lower_equation(prim: core.Primitive, rule: Callable[..., Any], eqn: JaxprEqn) -> ClosedJaxpr:
    """The equation's lowering, as a closed jaxpr of engine primitives."""
    from ...staging import trace_to_jaxpr

    fn, values, result_types = build(prim, rule, *_avals_and_params(eqn))
    avals_in = [x.aval for x in eqn.inputs]
    got = [str(v.type) for v in values]
    want = [str(t) for t in result_types]
    if got != want:
        raise TypeError(
            f"the lowering rule of '{prim}' returned values of types {got}; its abstract evaluation says {want}"
        )
    return trace_to_jaxpr(lambda *xs: execute.run_function(fn, xs, execute.Binding()), avals_in)


def _jit_eqn(prim: core.Primitive, eqn: JaxprEqn) -> JaxprEqn:
    from ...jit_primitive import jit_p, with_body

    rule = lowering_rules.get(prim)
    if rule is None:
        raise NotImplementedError(
            f"MLIR translation rule for primitive '{prim.name}' not found for platform cpu"
        )
    lowered = lower_equation(prim, rule, eqn)
    return JaxprEqn(
        jit_p, eqn.inputs, with_body({"name": prim.name}, lowered), eqn.out_binders, eqn.source_info
    )


def _expand_param(v: Any) -> Any:
    if isinstance(v, ClosedJaxpr):
        return expand(v)
    if isinstance(v, Jaxpr):
        return _expand_jaxpr(v)
    if isinstance(v, tuple) and any(isinstance(w, (ClosedJaxpr, Jaxpr)) for w in v):
        new = tuple(_expand_param(w) for w in v)
        return v if all(a is b for a, b in zip(new, v)) else new
    return v


def _expand_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    eqns, changed = [], False
    for eqn in jaxpr.eqns:
        new = eqn
        if eqn.primitive in lowering_rules or eqn.primitive in extension_primitives:
            new = _jit_eqn(eqn.primitive, eqn)
        else:
            params = {k: _expand_param(v) for k, v in eqn.params.items()}
            if any(params[k] is not v for k, v in eqn.params.items()):
                new = eqn._replace(params=params)
        changed |= new is not eqn
        eqns.append(new)
    return Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, jaxpr.outs) if changed else jaxpr


_expanded: "weakref.WeakKeyDictionary[ClosedJaxpr, ClosedJaxpr]" = weakref.WeakKeyDictionary()
_unchanged: "weakref.WeakSet[ClosedJaxpr]" = weakref.WeakSet()


def expand(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with each equation that has a lowering rule replaced by its lowering (the same
    object when there is none)."""
    if not lowering_rules and not extension_primitives:
        return closed
    if closed in _unchanged:
        return closed
    got = _expanded.get(closed)
    if got is not None:
        return got
    jaxpr = _expand_jaxpr(closed.jaxpr)
    if jaxpr is closed.jaxpr:
        _unchanged.add(closed)
        return closed
    new = _expanded[closed] = ClosedJaxpr(jaxpr, closed.consts)
    return new
