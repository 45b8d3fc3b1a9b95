"""StableHLO rules for the reductions whose computation is a jaxpr param: JAX's generic ``reduce``
(``stablehlo.reduce`` with the computation as its reducer region) and ``reduce_window`` (its
generic form, the computation as the region's ``^bb0`` block), as JAX 0.10.2 prints them."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..lax import elementwise as ew
from ..lax.general_reduce import reduce_p
from ..lax.windowed import reduce_window_max_p, reduce_window_min_p, reduce_window_p, reduce_window_sum_p
from . import literals
from .lowering import RuleContext, register
from .rules_elementwise import full_like, hlo_op
from .rules_indexing import _max_identity, _min_identity, generic, i64_array
from .rules_structural import ints
from .syntax import Block, Printer, Spec, Value

# MLIR prints a reduce compactly (``applies stablehlo.add``) when its reducer is one commutative
# operation of the two block arguments, in order, returned; these are the primitives lowered so.
_COMMUTATIVE = {
    ew.add_p: "stablehlo.add",
    ew.mul_p: "stablehlo.multiply",
    ew.max_p: "stablehlo.maximum",
    ew.min_p: "stablehlo.minimum",
    ew.and_p: "stablehlo.and",
    ew.or_p: "stablehlo.or",
    ew.xor_p: "stablehlo.xor",
}


def _region(ctx: RuleContext, jaxpr: Any, consts: Sequence[Any], scalar_types: Sequence[str]) -> Block:
    """The computation lowered into a block of its two groups of scalar arguments."""
    block = Block([*scalar_types, *scalar_types])
    outs = ctx.lower_jaxpr(block, jaxpr, block.args, consts)
    ctx.at(block).emit(
        [],
        lambda p: f"stablehlo.return {p.list(outs)} : {', '.join(v.type for v in outs)}",
        spec=Spec("stablehlo.return", outs),
    )
    return block


def _compact_op(closed: Any, n: int) -> str | None:
    jaxpr = closed.jaxpr
    if n != 1 or len(jaxpr.eqns) != 1 or jaxpr.constvars:
        return None
    (eqn,) = jaxpr.eqns
    name = _COMMUTATIVE.get(eqn.primitive)
    if name is None or list(eqn.inputs) != list(jaxpr.in_binders) or list(jaxpr.outs) != eqn.out_binders:
        return None
    return name


@register(reduce_p)
def _reduce(ctx: RuleContext, *args: Value, computation: Any, jaxpr: Any, dimensions: Any) -> list[Value]:
    n = len(args) // 2
    xs, inits = args[:n], args[n:]
    types = ctx.out_types
    in_types = [v.type for v in args]
    result = types[0] if n == 1 else f"({', '.join(types)})"
    block = _region(ctx, jaxpr.jaxpr, jaxpr.consts, [i.type for i in inits])
    op = _compact_op(jaxpr, n)

    def render(p: Printer) -> str:
        head = "stablehlo.reduce" + ", ".join(f"({p(x)} init: {p(i)})" for x, i in zip(xs, inits))
        across = f"across dimensions = [{ints(dimensions)}] : ({', '.join(in_types)}) -> {result}"
        if op is not None:
            return f"{head} applies {op} {across}"
        a, b = block.args[:n], block.args[n:]
        groups = " ".join(f"({p(x)}: {x.type}, {p(y)}: {y.type})" for x, y in zip(a, b))
        return (
            f"{head} {across}\n{p.indent} reducer{groups}  {{\n{p.block(block, p.indent + '  ')}{p.indent}}}"
        )

    spec = Spec("stablehlo.reduce", args, {"dims": tuple(dimensions), "op": None})  # (op: not one operation)
    return ctx.emit(types, render, regions=[block], spec=spec)


@register(reduce_window_p)
def _reduce_window(ctx: RuleContext, *args: Value, jaxpr: Any, consts: Any, **window: Any) -> list[Value]:
    n = len(args) // 2
    block = _region(ctx, jaxpr, consts, [i.type for i in args[n:]])
    return _window_op(ctx, list(args), block, **window)  # (the window's parameters: _window_op's)


def _window_op(
    ctx: RuleContext,
    args: list[Value],
    block: Block,
    window_dimensions: Any,
    window_strides: Any,
    padding: Any,
    base_dilation: Any,
    window_dilation: Any,
) -> list[Value]:
    pads = np.asarray(padding, np.int64).reshape(len(padding), 2)
    props = (
        f"base_dilations = {i64_array(base_dilation)}, "
        f"padding = {literals.dense_text(pads, np.int64)} : tensor<{len(padding)}x2xi64>, "
        f"window_dilations = {i64_array(window_dilation)}, window_dimensions = {i64_array(window_dimensions)}, "
        f"window_strides = {i64_array(window_strides)}"
    )
    window = {
        "size": tuple(window_dimensions),
        "stride": tuple(window_strides),
        "pad": [tuple(p) for p in pads.tolist()],
        "lhs_dilate": tuple(base_dilation),
        "rhs_dilate": tuple(window_dilation),
    }
    spec = Spec("stablehlo.reduce_window", args, window)
    return ctx.emit(
        ctx.out_types,
        generic("stablehlo.reduce_window", args, ctx.out_types, props, [block]),
        [block],
        spec=spec,
    )


def _monoid_window(prim: Any, op: str, identity: Any) -> None:
    """JAX's ``_reduce_window_lower`` of reduce_window_sum/max/min: the identity made with
    ``full_like_aval`` (a broadcast even to a scalar), one operation in the region."""

    def rule(ctx: RuleContext, x: Value, **window: Any) -> list[Value]:
        aval = ctx.avals_in[0]
        init = full_like(ctx, identity(aval.dtype), aval.update(shape=()))
        block = Block([init.type, init.type])
        r = ctx.at(block)
        out = hlo_op(r, op, *block.args, out_type=init.type)
        r.emit([], lambda p: f"stablehlo.return {p(out)} : {init.type}", spec=Spec("stablehlo.return", [out]))
        return _window_op(ctx, [x, init], block, **window)

    register(prim)(rule)


_monoid_window(reduce_window_sum_p, "stablehlo.add", lambda dtype: np.zeros((), dtype))
_monoid_window(reduce_window_max_p, "stablehlo.maximum", _max_identity)
_monoid_window(reduce_window_min_p, "stablehlo.minimum", _min_identity)
