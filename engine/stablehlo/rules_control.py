"""StableHLO rules for control flow: ``cond`` (``stablehlo.case``), ``while`` (``stablehlo.while``)
and ``scan``, which JAX lowers as the while loop its ``_scan_impl`` traces to (slices of the
scanned arrays through ``dynamic_index_in_dim``, the body as ``closed_call``, outputs written back
through ``dynamic_update_index_in_dim``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import core
from ..ir import ClosedJaxpr
from ..lax.cond import cond_p
from ..lax.loops import while_p
from ..lax.scan import scan_p
from . import literals
from .lowering import RuleContext, register
from .rules_elementwise import broadcast_in_dim, compare, hlo_op, named, select
from .rules_structural import concatenate, reduce, reshape, slice_op
from .syntax import Block, Printer, Spec, Value


def _results(types: Sequence[str]) -> str:
    return types[0] if len(types) == 1 else f"({', '.join(types)})"


def _regions_text(p: Printer, blocks: Sequence[Block]) -> str:
    inner = p.indent + "  "
    return ", ".join("{\n" + p.block(b, inner) + p.indent + "}" for b in blocks)


def _return(ctx: RuleContext, values: Sequence[Value]) -> None:
    vs = list(values)
    ctx.emit(
        [],
        lambda p: f"stablehlo.return {p.list(vs)} : {', '.join(v.type for v in vs)}",
        spec=Spec("stablehlo.return", vs),
    )


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

    return ctx.emit(types, render, regions=blocks, spec=Spec("stablehlo.case", [index]))


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

    return ctx.emit([i32], render, regions=blocks, spec=Spec("stablehlo.case", [index]))[0], [branches[kept]]


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

    spec = Spec("stablehlo.while", list(init))
    return ctx.emit(types, render, regions=[cond_block, body_block], arg_hint="iterArg", spec=spec)


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
    for block in outs[0].op.regions if outs and outs[0].op else []:  # (JAX's location: the rule's own ops)
        for o in block.ops:
            o.source = o.source or "while"
    return outs[cond_nconsts + body_nconsts :]


# --- scan --------------------------------------------------------------------------------------


def _index(ctx: RuleContext, value: int) -> Value:
    """A Python int as JAX stages it: the default integer type (int64 with x64)."""
    dtype = np.dtype(core.canonical_dtype(np.int64))
    return ctx.constant(dtype.type(value), dtype)


def _dynamic_index_in_dim(ctx: RuleContext, x: Value, i: Value, aval: Any) -> Value:
    """JAX's jitted ``dynamic_index_in_dim(x, i, keepdims=False)`` on axis 0: a private function."""

    def body(c: RuleContext, args: Sequence[Value]) -> list[Value]:
        operand, index = args
        starts = [index] + [_index(c, 0) for _ in aval.shape[1:]]
        sizes = ", ".join(str(d) for d in (1, *aval.shape[1:]))
        sliced = literals.tensor_type((1, *aval.shape[1:]), aval.dtype)
        types = ", ".join(v.type for v in (operand, *starts))
        (s,) = c.emit(
            [sliced],
            lambda p: (
                f"stablehlo.dynamic_slice {p.list([operand, *starts])}, sizes = [{sizes}] : ({types}) -> {sliced}"
            ),
            spec=Spec("stablehlo.dynamic_slice", [operand, *starts], {"sizes": (1, *aval.shape[1:])}),
        )
        return [
            named(
                reshape(c, named(s, "dynamic_slice"), literals.tensor_type(aval.shape[1:], aval.dtype)),
                "squeeze",
            )
        ]

    # (JAX traces the jitted helper once per argument type, weak types included)
    return _jitted_call(ctx, "dynamic_index_in_dim", [x, i], body, ("pjit", aval.weak_type))[0]


def _dynamic_update_index_in_dim(
    ctx: RuleContext, y: Value, update: Value, i: Value, aval: Any, update_aval: Any
) -> Value:
    """JAX's jitted ``dynamic_update_index_in_dim(y, update, i, 0)``: a private function."""

    def body(c: RuleContext, args: Sequence[Value]) -> list[Value]:
        operand, upd, index = args
        expanded = broadcast_in_dim(c, upd, (1, *aval.shape[1:]), range(1, len(aval.shape)))
        starts = [index] + [_index(c, 0) for _ in aval.shape[1:]]
        types = ", ".join(v.type for v in (operand, expanded, *starts))
        (out,) = c.emit(
            [operand.type],
            lambda p: (
                f"stablehlo.dynamic_update_slice {p.list([operand, expanded, *starts])} : ({types}) -> {operand.type}"
            ),
            spec=Spec("stablehlo.dynamic_update_slice", [operand, expanded, *starts]),
        )
        named(expanded, "broadcast_in_dim")
        return [named(out, "dynamic_update_slice")]

    key = ("pjit", update_aval.weak_type)
    return _jitted_call(ctx, "dynamic_update_index_in_dim", [y, update, i], body, key)[0]


def _jitted_call(
    ctx: RuleContext, name: str, args: list[Value], body: Callable[..., Sequence[Value]], key: Any
) -> list[Value]:
    """``ctx.cached_call`` of a helper JAX jits (the HLO printer names the call ``jit(name)``)."""
    types = [a.type for a in args]
    fn = ctx.module.function(
        ("cached", name, tuple(types), key), name, types, lambda block: body(ctx.at(block), block.args)
    )
    outs = ctx.call(fn, args)
    outs[0].op.spec = Spec("func.call", args, {"callee": fn, "name": name, "transforms": ()})  # type: ignore[union-attr]
    return outs


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
    """JAX's ``_scan_impl``, traced and inlined: a while loop over ``num_trips`` steps of ``unroll``
    body calls each, and the remaining steps (or all of them, fully unrolled) after it."""
    unroll = int(unroll)
    first = len(ctx.block.ops)
    consts = list(args[:num_consts])
    carry = list(args[num_consts : num_consts + num_carry])
    xs = list(args[num_consts + num_carry :])
    xs_avals = list(ctx.avals_in[num_consts + num_carry :])
    y_avals = jaxpr.out_avals[num_carry:]
    num_trips, remainder = (0, length) if unroll == 0 else divmod(length, unroll)
    if unroll != 1 and num_trips == 1 and remainder == 0:
        num_trips, remainder = 0, length
    xs_rem: list[tuple[Value, Any]] = []
    if unroll == 1:
        xss = list(zip(xs, xs_avals))
        prefix: tuple[int, ...] = (length,)
    else:
        if remainder:
            cut = num_trips * unroll if not reverse else remainder
            heads, tails = [], []
            for x, a in zip(xs, xs_avals):  # JAX's _split_leading
                heads.append(_slice_leading(ctx, x, a, 0, cut))
                tails.append(_slice_leading(ctx, x, a, cut, a.shape[0]))
            xs_main, xs_rem = (heads, tails) if not reverse else (tails, heads)
        else:
            xs_main = list(zip(xs, xs_avals))
        if num_trips:
            xss = []
            for x, a in xs_main:
                b = a.update(shape=(num_trips, unroll, *a.shape[1:]))
                xss.append((reshape(ctx, x, literals.aval_type(b)), b))
            prefix = (num_trips, unroll)
        else:
            xss, prefix = [], (0,)
    ys: list[Value] = []
    for aval in y_avals:  # JAX's _empty_array: a zero scalar broadcast to the stacked shape
        zero = ctx.constant(np.zeros((), aval.dtype), aval.dtype)
        ys.append(broadcast_in_dim(ctx, zero, (*prefix, *aval.shape), ()))
    stacked = [a.update(shape=(*prefix, *a.shape)) for a in y_avals]
    if num_trips or unroll == 1:
        trips = length if unroll == 1 else num_trips
        carry, ys = _scan_loop(ctx, jaxpr, trips, unroll, reverse, consts, carry, xss, ys, stacked, num_carry)
    if unroll != 1 and num_trips:
        ys = [
            reshape(ctx, y, literals.aval_type(a.update(shape=(num_trips * unroll, *a.shape))))
            for y, a in zip(ys, y_avals)
        ]
    if remainder and unroll != 1:
        carry, ys_rem = _scan_inner(ctx, jaxpr, remainder, reverse, consts, carry, xs_rem, num_carry)
        out_ys = []
        for y, r, a in zip(ys, ys_rem, y_avals):
            pair = [y, r] if not reverse else [r, y]
            shape0 = num_trips * unroll if num_trips else 0
            pair_avals = [a.update(shape=(shape0, *a.shape)), a.update(shape=(remainder, *a.shape))]
            out_ys.append(
                named(
                    concatenate(ctx, pair, pair_avals if not reverse else pair_avals[::-1], 0), "concatenate"
                )
            )
        ys = out_ys
    for op in ctx.block.ops[first:]:  # (the constants and empty outputs; what else it made stays "scan")
        if op.source is None and op.spec is not None and op.spec.name == "stablehlo.constant":
            op.source = "constant"
        elif op.source is None and op.spec is not None and op.spec.name == "stablehlo.broadcast_in_dim":
            made_by = op.spec.operands[0].op  # (an empty output: a broadcast zero, XLA's splat)
            if made_by is not None and made_by.spec is not None and made_by.spec.name == "stablehlo.constant":
                op.source = "broadcast_in_dim"
    return [*carry, *ys]


def _slice_leading(ctx: RuleContext, x: Value, aval: Any, start: int, stop: int) -> tuple[Value, Any]:
    b = aval.update(shape=(stop - start, *aval.shape[1:]))
    st = [start] + [0] * (len(aval.shape) - 1)
    lim = [stop, *aval.shape[1:]]
    return slice_op(ctx, x, st, lim, literals.aval_type(b)), b


def _scan_inner(
    ctx: RuleContext,
    jaxpr: ClosedJaxpr,
    n: int,
    reverse: bool,
    consts: Sequence[Value],
    carry: Sequence[Value],
    xs: Sequence[tuple[Value, Any]],
    num_carry: int,
) -> tuple[list[Value], list[Value]]:
    """``n`` body calls on static slices of ``xs``, the per-step outputs stacked (JAX's ``inner``)."""
    steps = []
    carry = list(carry)
    for k in range(n):
        i = n - k - 1 if reverse else k
        x = []
        for v, a in xs:  # JAX's index_in_dim(x, i, keepdims=False): a slice, then a reshape
            s, _a = _slice_leading(ctx, v, a, i, i + 1)
            named(s, "slice")  # (JAX's lowering traces _scan_impl: its primitives name the operations)
            x.append(named(reshape(ctx, s, literals.aval_type(a.update(shape=a.shape[1:]))), "squeeze"))
        fn = ctx.module.private_function(jaxpr, "closed_call")
        args = [*consts, *carry, *x]
        outs = ctx.call(fn, args)
        if outs:  # (as the loop's body calls it: eval_jaxpr_p, located closed_call)
            attrs = {"callee": fn, "name": "closed_call", "transforms": (), "location": "closed_call"}
            outs[0].op.spec = Spec("func.call", args, attrs)  # type: ignore[union-attr]
        carry, y = list(outs[:num_carry]), list(outs[num_carry:])
        steps.append(y)
    if reverse:
        steps.reverse()
    stacked = []
    for j, aval in enumerate(jaxpr.out_avals[num_carry:]):  # JAX's _stack: expand_dims, concatenate
        parts = [
            named(
                broadcast_in_dim(ctx, y[j], (1, *aval.shape), range(1, len(aval.shape) + 1)),
                "broadcast_in_dim",
            )
            for y in steps
        ]
        one = aval.update(shape=(1, *aval.shape))
        stacked.append(named(concatenate(ctx, parts, [one] * len(parts), 0), "concatenate"))
    return carry, stacked


def _scan_loop(
    ctx: RuleContext,
    jaxpr: ClosedJaxpr,
    trips: int,
    unroll: int,
    reverse: bool,
    consts: Sequence[Value],
    carry: Sequence[Value],
    xss: Sequence[tuple[Value, Any]],
    ys_init: Sequence[Value],
    stacked_avals: Sequence[Any],
    num_carry: int,
) -> tuple[list[Value], list[Value]]:
    """The while loop of ``_scan_impl``: it carries the body's captured values first (the scanned
    arrays, then the consts), the counter, the carry and the stacked outputs."""
    captured = list(dict.fromkeys([*(x for x, _ in xss), *consts]))
    index = np.dtype(core.canonical_dtype(np.int64))  # (JAX counts in int(length)'s dtype)
    i_type = literals.tensor_type((), index)
    init = [*captured, _index(ctx, 0), *carry, *ys_init]
    n_cap = len(captured)
    y_avals = jaxpr.out_avals[num_carry:]

    def cond(c: RuleContext, vals: list[Value]) -> Value:
        return named(compare(c, "LT", vals[n_cap], _index(c, trips), index, "tensor<i1>"), "lt")

    def body(c: RuleContext, vals: list[Value]) -> list[Value]:
        cap = dict(zip(captured, vals[:n_cap]))
        i_ = i = vals[n_cap]
        if reverse:  # i = num_trips - i_ - 1
            i = named(hlo_op(c, "stablehlo.subtract", _index(c, trips), i_, out_type=i_type), "sub")
            i = named(hlo_op(c, "stablehlo.subtract", i, _index(c, 1), out_type=i_type), "sub")
        cs, ys = vals[n_cap + 1 : n_cap + 1 + num_carry], vals[n_cap + 1 + num_carry :]
        x_slices = [_dynamic_index_in_dim(c, cap[x], i, a) for x, a in xss]
        if unroll == 1:
            closed_call = c.module.private_function(jaxpr, "closed_call")
            args = [*(cap[k] for k in consts), *cs, *x_slices]
            outs = c.call(closed_call, args)
            if outs:  # (JAX's eval_jaxpr_p: a call located closed_call)
                attrs = {
                    "callee": closed_call,
                    "name": "closed_call",
                    "transforms": (),
                    "location": "closed_call",
                }
                outs[0].op.spec = Spec("func.call", args, attrs)  # type: ignore[union-attr]
            new_carry, new_ys = outs[:num_carry], outs[num_carry:]
        else:
            slice_avals = [a.update(shape=a.shape[1:]) for _, a in xss]
            new_carry, new_ys = _scan_inner(
                c,
                jaxpr,
                unroll,
                reverse,
                [cap[k] for k in consts],
                cs,
                list(zip(x_slices, slice_avals)),
                num_carry,
            )
        ys = [
            _dynamic_update_index_in_dim(c, y, u, i, a, ua)
            for y, u, a, ua in zip(ys, new_ys, stacked_avals, y_avals)
        ]
        i_next = named(hlo_op(c, "stablehlo.add", i_, _index(c, 1), out_type=i_type), "add")
        return [*vals[:n_cap], i_next, *new_carry, *ys]

    outs = while_loop(ctx, init, cond, body)
    named(outs[0], "while")
    return outs[n_cap + 1 : n_cap + 1 + num_carry], outs[n_cap + 1 + num_carry :]
