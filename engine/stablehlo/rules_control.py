"""StableHLO rules for control flow: ``cond`` (``stablehlo.case``), ``while`` (``stablehlo.while``)
and ``scan``, which JAX lowers as the while loop its ``_scan_impl`` traces to (slices of the
scanned arrays through ``dynamic_index_in_dim``, the body as ``closed_call``, outputs written back
through ``dynamic_update_index_in_dim``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..ir import ClosedJaxpr
from ..lax.cond import cond_p
from ..lax.loops import while_p
from ..lax.scan import scan_p
from . import literals
from .lowering import RuleContext, register
from .rules_elementwise import broadcast_in_dim, compare, hlo_op
from .rules_structural import reduce, reshape
from .syntax import Block, Printer, Value


def _results(types: Sequence[str]) -> str:
    return types[0] if len(types) == 1 else f"({', '.join(types)})"


def _regions_text(p: Printer, blocks: Sequence[Block]) -> str:
    inner = p.indent + "  "
    return ", ".join("{\n" + p.block(b, inner) + p.indent + "}" for b in blocks)


def _return(ctx: RuleContext, values: Sequence[Value]) -> None:
    vs = list(values)
    ctx.emit([], lambda p: f"stablehlo.return {p.list(vs)} : {', '.join(v.type for v in vs)}")


@register(cond_p)
def _cond(
    ctx: RuleContext,
    index: Value,
    *args: Value,
    branches: Sequence[ClosedJaxpr],
    branches_platforms: Any = None,
    **_: Any,
) -> list[Value]:
    if branches_platforms is not None:
        index, branches = _cpu_branches(ctx, index, branches, branches_platforms)
    types = ctx.out_types
    blocks = []
    for branch in branches:
        block = Block()
        _return(ctx.at(block), ctx.lower_jaxpr(block, branch, args))
        blocks.append(block)

    def render(p: Printer) -> str:
        return (
            f'"stablehlo.case"({p(index)}) ({_regions_text(p, blocks)}) : ({index.type}) -> {_results(types)}'
        )

    return ctx.emit(types, render, regions=blocks)


def _cpu_branches(
    ctx: RuleContext, index: Value, branches: Sequence[ClosedJaxpr], platforms: Sequence[Any]
) -> tuple[Value, list[ClosedJaxpr]]:
    """JAX keeps the branches of the platforms it lowers for (here the CPU) and maps the index to
    them with a case of constants."""
    kept = next(i for i, ps in enumerate(platforms) if ps is None or "cpu" in ps)
    blocks = []
    for _ in branches:
        block = Block()
        c = ctx.at(block)
        _return(c, [c.constant(np.int32(0), np.int32)])  # (every branch maps to the one kept)
        blocks.append(block)
    i32 = "tensor<i32>"

    def render(p: Printer) -> str:
        return f'"stablehlo.case"({p(index)}) ({_regions_text(p, blocks)}) : ({index.type}) -> {i32}'

    return ctx.emit([i32], render, regions=blocks)[0], [branches[kept]]


def while_loop(
    ctx: RuleContext,
    init: Sequence[Value],
    cond: Callable[[RuleContext, list[Value]], Value],
    body: Callable[[RuleContext, list[Value]], Sequence[Value]],
) -> list[Value]:
    """``stablehlo.while`` over ``init``: ``cond`` and ``body`` emit their region's operations."""
    types = [v.type for v in init]
    cond_block, body_block = Block(types), Block(types)
    _return(ctx.at(cond_block), [cond(ctx.at(cond_block), cond_block.args)])
    _return(ctx.at(body_block), list(body(ctx.at(body_block), body_block.args)))

    def render(p: Printer) -> str:
        carried = ", ".join(f"{p(a)} = {p(v)}" for a, v in zip(cond_block.args, init))
        return (
            f"stablehlo.while({carried}) : {', '.join(types)}\n"
            f"{p.indent}cond {{\n{p.block(cond_block, p.indent + '  ')}{p.indent}}} "
            f"do {{\n{p.block(body_block, p.indent + '  ')}{p.indent}}}"
        )

    return ctx.emit(types, render, regions=[cond_block, body_block], arg_hint="iterArg")


@register(while_p)
def _while(
    ctx: RuleContext,
    *args: Value,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> list[Value]:
    pred_aval = cond_jaxpr.out_avals[0]

    def split(vals: list[Value]) -> tuple[list[Value], list[Value], list[Value]]:
        return (
            vals[:cond_nconsts],
            vals[cond_nconsts : cond_nconsts + body_nconsts],
            vals[cond_nconsts + body_nconsts :],
        )

    def cond(c: RuleContext, vals: list[Value]) -> Value:
        x, _, z = split(vals)
        (pred,) = c.lower_jaxpr(c.block, cond_jaxpr, x + z)
        if pred_aval.shape:  # batched predicate: any element
            init = c.constant(False, np.bool_)
            c2 = RuleContext(c.module, c.block, [pred_aval], [pred_aval.update(shape=())], None)
            pred = reduce(c2, pred, init, "stablehlo.or", range(len(pred_aval.shape)))
        return pred

    def body(c: RuleContext, vals: list[Value]) -> list[Value]:
        x, y, z = split(vals)
        new_z = c.lower_jaxpr(c.block, body_jaxpr, y + z)
        if pred_aval.shape:
            (pred,) = c.lower_jaxpr(c.block, cond_jaxpr, x + z)
            out = []
            for new, old, aval in zip(new_z, z, body_jaxpr.out_avals):
                bpred = broadcast_in_dim(c, pred, aval.shape, range(len(pred_aval.shape)))
                out.append(select(c, bpred, new, old))
            new_z = out
        return [*x, *y, *new_z]

    outs = while_loop(ctx, args, cond, body)
    return outs[cond_nconsts + body_nconsts :]


def select(ctx: RuleContext, pred: Value, a: Value, b: Value) -> Value:
    return ctx.emit(
        [a.type], lambda p: f"stablehlo.select {p(pred)}, {p(a)}, {p(b)} : {pred.type}, {a.type}"
    )[0]


# --- scan --------------------------------------------------------------------------------------


def _i32(ctx: RuleContext, value: int) -> Value:
    return ctx.constant(np.int32(value), np.int32)


def _dynamic_index_in_dim(ctx: RuleContext, x: Value, i: Value, aval: Any) -> Value:
    """JAX's jitted ``dynamic_index_in_dim(x, i, keepdims=False)`` on axis 0: a private function."""

    def body(c: RuleContext, args: Sequence[Value]) -> list[Value]:
        operand, index = args
        starts = [index] + [_i32(c, 0) for _ in aval.shape[1:]]
        sizes = ", ".join(str(d) for d in (1, *aval.shape[1:]))
        sliced = literals.tensor_type((1, *aval.shape[1:]), aval.dtype)
        types = ", ".join(v.type for v in (operand, *starts))
        (s,) = c.emit(
            [sliced],
            lambda p: (
                f"stablehlo.dynamic_slice {p.list([operand, *starts])}, sizes = [{sizes}] : ({types}) -> {sliced}"
            ),
        )
        return [reshape(c, s, literals.tensor_type(aval.shape[1:], aval.dtype))]

    # (JAX traces the jitted helper once per argument type, weak types included)
    return ctx.cached_call("dynamic_index_in_dim", [x, i], body, key=("pjit", aval.weak_type))[0]


def _dynamic_update_index_in_dim(
    ctx: RuleContext, y: Value, update: Value, i: Value, aval: Any, update_aval: Any
) -> Value:
    """JAX's jitted ``dynamic_update_index_in_dim(y, update, i, 0)``: a private function."""

    def body(c: RuleContext, args: Sequence[Value]) -> list[Value]:
        operand, upd, index = args
        expanded = broadcast_in_dim(c, upd, (1, *aval.shape[1:]), range(1, len(aval.shape)))
        starts = [index] + [_i32(c, 0) for _ in aval.shape[1:]]
        types = ", ".join(v.type for v in (operand, expanded, *starts))
        return c.emit(
            [operand.type],
            lambda p: (
                f"stablehlo.dynamic_update_slice {p.list([operand, expanded, *starts])} : ({types}) -> {operand.type}"
            ),
        )

    key = ("pjit", update_aval.weak_type)
    return ctx.cached_call("dynamic_update_index_in_dim", [y, update, i], body, key=key)[0]


@register(scan_p)
def _scan(
    ctx: RuleContext,
    *args: Value,
    reverse: bool,
    length: int,
    num_consts: int,
    num_carry: int,
    jaxpr: ClosedJaxpr,
    unroll: Any = 1,
    **_: Any,
) -> list[Value]:
    if unroll not in (1, False):
        raise NotImplementedError(
            f"StableHLO text for scan with unroll={unroll!r} is not implemented in the engine"
        )
    consts, carry, xs = (
        args[:num_consts],
        args[num_consts : num_consts + num_carry],
        args[num_consts + num_carry :],
    )
    xs_avals = ctx.avals_in[num_consts + num_carry :]
    y_avals = jaxpr.out_avals[num_carry:]
    ys_init = []
    for aval in y_avals:  # JAX's _empty_array: a zero scalar broadcast to the stacked shape
        zero = ctx.constant(np.zeros((), aval.dtype), aval.dtype)
        ys_init.append(broadcast_in_dim(ctx, zero, (length, *aval.shape), ()))
    # the while loop carries the body's captured values first: the scanned arrays, then the consts
    captured = list(dict.fromkeys([*xs, *consts]))
    i0 = _i32(ctx, 0)
    init = [*captured, i0, *carry, *ys_init]
    n_cap = len(captured)
    stacked_avals = [a.update(shape=(length, *a.shape)) for a in y_avals]

    def cond(c: RuleContext, vals: list[Value]) -> Value:
        return compare(c, "LT", vals[n_cap], _i32(c, length), np.int32, "tensor<i1>")

    def body(c: RuleContext, vals: list[Value]) -> list[Value]:
        cap = dict(zip(captured, vals[:n_cap]))
        i_ = i = vals[n_cap]
        if reverse:  # i = num_trips - i_ - 1
            i = hlo_op(c, "stablehlo.subtract", _i32(c, length), i_, out_type="tensor<i32>")
            i = hlo_op(c, "stablehlo.subtract", i, _i32(c, 1), out_type="tensor<i32>")
        cs, ys = vals[n_cap + 1 : n_cap + 1 + num_carry], vals[n_cap + 1 + num_carry :]
        x_slices = [_dynamic_index_in_dim(c, cap[x], i, a) for x, a in zip(xs, xs_avals)]
        closed_call = c.module.private_function(jaxpr, "closed_call")
        outs = c.call(closed_call, [*(cap[k] for k in consts), *cs, *x_slices])
        new_carry, new_ys = outs[:num_carry], outs[num_carry:]
        ys = [
            _dynamic_update_index_in_dim(c, y, u, i, a, ua)
            for y, u, a, ua in zip(ys, new_ys, stacked_avals, y_avals)
        ]
        i_next = hlo_op(c, "stablehlo.add", i_, _i32(c, 1), out_type="tensor<i32>")
        return [*vals[:n_cap], i_next, *new_carry, *ys]

    outs = while_loop(ctx, init, cond, body)
    return outs[n_cap + 1 :]
