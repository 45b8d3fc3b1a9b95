"""StableHLO rules for gather/scatter, split, sort, cumulative reductions and small leftovers
(copy, reduce_precision, empty, empty2), printed in MLIR's generic form where StableHLO has no other."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..lax import array_creation
from ..lax import elementwise as ew
from ..lax import gather_scatter as gs
from ..lax import composites, joining, reductions, sorting
from ..lax import structural as st
from . import literals
from .lowering import RuleContext, register
from .rules_elementwise import broadcast_in_dim, compare, full_like, hlo_op, named, select
from .rules_structural import ints, reduce
from .syntax import Block, Printer, Spec, Value, functional_type


def i64_array(xs: Sequence[int]) -> str:
    """``array<i64: 1, 2>``, MLIR's dense i64 array attribute."""
    return f"array<i64: {ints(xs)}>" if len(xs) else "array<i64>"


def _fields(pairs: Sequence[tuple[str, Sequence[int]]]) -> str:
    return ", ".join(f"{k} = [{ints(v)}]" for k, v in pairs if len(v))


def generic(
    name: str, operands: Sequence[Value], result_types: Sequence[str], props: str, blocks: Sequence[Block]
):
    """A renderer of ``"name"(operands) <{props}> ({ ^bb0(args): ... }) : (types) -> types``."""

    def render(p: Printer) -> str:
        text = f'"{name}"({p.list(operands)}) <{{{props}}}>'
        for b in blocks:
            args = ", ".join(f"{p(a)}: {a.type}" for a in b.args)
            text += f" ({{\n{p.indent}^bb0({args}):\n{p.block(b, p.indent + '  ')}{p.indent}}})"
        return f"{text} : {functional_type([v.type for v in operands], result_types)}"

    return render


@register(gs.gather_p)
def _gather(
    ctx: RuleContext,
    operand: Value,
    indices: Value,
    *,
    dimension_numbers: Any,
    slice_sizes: Any,
    indices_are_sorted: bool,
    mode: Any,
    **_: Any,
) -> list[Value]:
    d = dimension_numbers
    if mode == gs.GatherScatterMode.FILL_OR_DROP:
        return [_gather_fill(ctx, operand, indices, d, slice_sizes, indices_are_sorted, _.get("fill_value"))]
    return [_gather_op(ctx, operand, indices, d, slice_sizes, indices_are_sorted, ctx.out_types[0])]


def _gather_op(
    ctx: RuleContext,
    operand: Value,
    indices: Value,
    d: Any,
    slice_sizes: Any,
    indices_are_sorted: bool,
    ty: str,
) -> Value:
    dnums = _fields(
        [
            ("offset_dims", d.offset_dims),
            ("collapsed_slice_dims", d.collapsed_slice_dims),
            ("operand_batching_dims", d.operand_batching_dims),
            ("start_indices_batching_dims", d.start_indices_batching_dims),
            ("start_index_map", d.start_index_map),
        ]
    )
    ivd = len(ctx.avals_in[1].shape) - 1
    dnums = ", ".join(x for x in (dnums, f"index_vector_dim = {ivd}" if ivd else "") if x)
    props = (
        f"dimension_numbers = #stablehlo.gather<{dnums}>, indices_are_sorted = {str(bool(indices_are_sorted)).lower()}, "
        f"slice_sizes = {i64_array(slice_sizes)}"
    )
    spec = Spec("stablehlo.gather", [operand, indices], {
        "offset_dims": d.offset_dims, "collapsed_slice_dims": d.collapsed_slice_dims,
        "start_index_map": d.start_index_map, "operand_batching_dims": d.operand_batching_dims,
        "start_indices_batching_dims": d.start_indices_batching_dims, "index_vector_dim": ivd,
        "slice_sizes": tuple(slice_sizes), "indices_are_sorted": bool(indices_are_sorted),
    })  # fmt: skip
    return ctx.emit([ty], generic("stablehlo.gather", [operand, indices], [ty], props, []), spec=spec)[0]


def _gather_fill(
    ctx: RuleContext, operand: Value, indices: Value, d: Any, slice_sizes: Any, sorted_: bool, fill_value: Any
) -> Value:
    """JAX's ``_gather_fill``, traced and inlined: an in-bounds gather, then the out-of-bounds
    rows replaced by ``fill_value`` (NaN for floats by default)."""
    op_aval, idx_aval = ctx.avals_in
    out_aval = ctx.avals_out[0]
    i32, i1 = np.dtype(np.int32), np.dtype(np.bool_)
    nb = len(idx_aval.shape) - 1
    first = len(ctx.block.ops)
    starts = list(d.start_index_map)
    upper = np.array([op_aval.shape[k] - slice_sizes[k] for k in starts], np.int32)
    ub = ctx.constant(upper, np.int32)  # (a constant of the traced jaxpr: emitted first)
    if np.dtype(idx_aval.dtype) != i32:
        indices = hlo_op(
            ctx, "stablehlo.convert", indices, out_type=literals.tensor_type(idx_aval.shape, i32)
        )
    shape = idx_aval.shape
    mask_t = literals.tensor_type(shape, i1)
    zero = broadcast_in_dim(ctx, ctx.constant(np.int32(0), np.int32), shape, ())
    ge = compare(ctx, "GE", indices, zero, i32, mask_t)
    if nb:
        ub = broadcast_in_dim(ctx, ub, (1,) * nb + (len(starts),), [nb])
    if (1,) * nb + (len(starts),) != tuple(shape):
        ub = broadcast_in_dim(ctx, ub, shape, range(len(shape)))
    le = compare(ctx, "LE", indices, ub, i32, mask_t)
    both = hlo_op(ctx, "stablehlo.and", ge, le, out_type=mask_t)
    red = RuleContext(ctx.module, ctx.block, [idx_aval], [idx_aval.update(shape=shape[:nb], dtype=i1)], None)
    mask = reduce(red, both, ctx.constant(True, np.bool_), "stablehlo.and", [nb])
    out = _gather_op(ctx, operand, indices, d, slice_sizes, sorted_, ctx.out_types[0])
    batch_dims = [k for k in range(len(out_aval.shape)) if k not in d.offset_dims]
    if tuple(shape[:nb]) != tuple(out_aval.shape) or batch_dims != list(range(nb)):
        mask = broadcast_in_dim(ctx, mask, out_aval.shape, batch_dims)
    if fill_value is None:
        dt = np.dtype(out_aval.dtype)
        fill_value = (
            np.nan
            if dt.kind in "fc"
            else np.iinfo(dt).min
            if dt.kind == "i"
            else np.iinfo(dt).max
            if dt.kind == "u"
            else True
        )
    fill = ctx.constant(np.array(fill_value, out_aval.dtype), out_aval.dtype)
    if out_aval.shape:
        fill = broadcast_in_dim(ctx, fill, out_aval.shape, ())
    result = ctx.emit(
        [out.type],
        lambda p: f"stablehlo.select {p(mask)}, {p(out)}, {p(fill)} : {mask.type}, {out.type}",
        spec=Spec("stablehlo.select", [mask, out, fill]),
    )[0]
    for op in ctx.block.ops[first:]:  # (named after the traced function's equations, JAX's locations)
        if op.spec is not None and op.spec.name != "stablehlo.constant":
            spec = op.spec
            key = spec.attrs["direction"] if spec.name == "stablehlo.compare" else spec.name
            op.source = _GATHER_FILL_NAMES[key]
    return result


_GATHER_FILL_NAMES = {
    "stablehlo.convert": "convert_element_type", "stablehlo.broadcast_in_dim": "broadcast_in_dim",
    "GE": "ge", "LE": "le", "stablehlo.and": "and", "stablehlo.reduce": "reduce_and",
    "stablehlo.gather": "gather", "stablehlo.select": "select_n",
}  # fmt: skip


_SCATTER_COMBINE = {
    gs.scatter_add_p: "stablehlo.add",
    gs.scatter_sub_p: "stablehlo.subtract",
    gs.scatter_mul_p: "stablehlo.multiply",
    gs.scatter_min_p: "stablehlo.minimum",
    gs.scatter_max_p: "stablehlo.maximum",
}


_COMBINER_NAMES = {gs.scatter_add_p: "add", gs.scatter_sub_p: "sub", gs.scatter_mul_p: "mul",
                   gs.scatter_min_p: "min", gs.scatter_max_p: "max"}  # fmt: skip


def _scatter(prim: Any) -> None:
    def rule(
        ctx: RuleContext,
        operand: Value,
        indices: Value,
        updates: Value,
        *,
        dimension_numbers: Any,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: Any,
        update_jaxpr: Any = None,
        **_: Any,
    ) -> list[Value]:
        d = dimension_numbers
        if mode == gs.GatherScatterMode.CLIP:
            indices = _clamp_scatter_indices(ctx, indices, d)
        ivd = len(ctx.avals_in[1].shape) - 1
        dnums = _fields(
            [
                ("update_window_dims", d.update_window_dims),
                ("inserted_window_dims", d.inserted_window_dims),
                ("input_batching_dims", d.operand_batching_dims),
                ("scatter_indices_batching_dims", d.scatter_indices_batching_dims),
                ("scatter_dims_to_operand_dims", d.scatter_dims_to_operand_dims),
            ]
        )
        dnums = ", ".join(x for x in (dnums, f"index_vector_dim = {ivd}" if ivd else "") if x)
        scalar = literals.tensor_type((), ctx.avals_in[0].dtype)
        block = Block([scalar, scalar])
        b = ctx.at(block)
        a0, a1 = block.args
        if update_jaxpr is not None and prim not in _SCATTER_COMBINE:  # (scatter_apply's function)
            (out,) = b.lower_jaxpr(block, update_jaxpr, [a0, a1])
        elif prim in _SCATTER_COMBINE:
            # (JAX lowers the combiner's jaxpr: its equation, add / mul / ..., names the operation)
            out = named(hlo_op(b, _SCATTER_COMBINE[prim], a0, a1, out_type=scalar), _COMBINER_NAMES[prim])
        else:  # plain scatter: the update replaces the operand
            out = a1
        b.emit([], lambda p: f"stablehlo.return {p(out)} : {scalar}", spec=Spec("stablehlo.return", [out]))
        props = (
            f"indices_are_sorted = {str(bool(indices_are_sorted)).lower()}, "
            f"scatter_dimension_numbers = #stablehlo.scatter<{dnums}>, "
            f"unique_indices = {str(bool(unique_indices)).lower()}"
        )
        types = ctx.out_types
        spec = Spec("stablehlo.scatter", [operand, indices, updates], {
            "update_window_dims": d.update_window_dims, "inserted_window_dims": d.inserted_window_dims,
            "scatter_dims_to_operand_dims": d.scatter_dims_to_operand_dims,
            "input_batching_dims": d.operand_batching_dims,
            "scatter_indices_batching_dims": d.scatter_indices_batching_dims, "index_vector_dim": ivd,
            "indices_are_sorted": bool(indices_are_sorted), "unique_indices": bool(unique_indices),
        })  # fmt: skip
        return ctx.emit(
            types,
            generic("stablehlo.scatter", [operand, indices, updates], types, props, [block]),
            [block],
            spec=spec,
        )

    register(prim)(rule)


def _clamp_scatter_indices(ctx: RuleContext, indices: Value, d: Any) -> Value:
    """JAX's ``_clamp_scatter_indices``, traced and inlined: indices clamped to where a whole
    update window fits."""
    op_aval, idx_aval, upd_aval = ctx.avals_in
    sizes, pos = [], 0
    for i in range(len(op_aval.shape)):
        if i in d.inserted_window_dims or i in d.operand_batching_dims:
            sizes.append(1)
        else:
            sizes.append(upd_aval.shape[d.update_window_dims[pos]])
            pos += 1
    bounds = np.array([op_aval.shape[i] - sizes[i] for i in d.scatter_dims_to_operand_dims], np.int32)
    i32 = np.dtype(np.int32)
    ub = ctx.constant(bounds, np.int32)
    cap = min(np.iinfo(np.int32).max, np.iinfo(idx_aval.dtype).max)
    bound_t = literals.tensor_type(bounds.shape, i32)
    ub = hlo_op(
        ctx,
        "stablehlo.minimum",
        ub,
        broadcast_in_dim(ctx, ctx.constant(np.int32(cap), i32), bounds.shape, ()),
        out_type=bound_t,
    )
    if np.dtype(idx_aval.dtype) != i32:
        ub = hlo_op(ctx, "stablehlo.convert", ub, out_type=literals.tensor_type(bounds.shape, idx_aval.dtype))
    shape = tuple(idx_aval.shape)
    if shape != bounds.shape:
        ub = broadcast_in_dim(ctx, ub, shape, (len(shape) - 1,))
    zero = ctx.constant(np.zeros((), idx_aval.dtype), idx_aval.dtype)
    zero = broadcast_in_dim(ctx, zero, shape, ()) if shape else zero
    clamped = ctx.emit(
        [indices.type],
        lambda p: f"stablehlo.clamp {p.list([zero, indices, ub])} : {indices.type}",
        spec=Spec("stablehlo.clamp", [zero, indices, ub]),
    )[0]
    assert clamped.op is not None
    clamped.op.source = "clamp"  # (JAX's location: the traced function's clamp equation)
    return clamped


for _p in (gs.scatter_p, *_SCATTER_COMBINE):
    _scatter(_p)


@register(joining.split_p)
def _split(ctx: RuleContext, x: Value, *, sizes: Any, axis: int) -> list[Value]:
    shape = ctx.avals_in[0].shape
    start = [0] * len(shape)
    outs = []
    for aval, ty in zip(ctx.avals_out, ctx.out_types):
        limit = list(shape)
        limit[axis] = start[axis] + aval.shape[axis]
        ranges = ", ".join(f"{a}:{b}" for a, b in zip(start, limit))
        text = f"[{ranges}] : ({x.type}) -> {ty}"
        attrs = {"start": list(start), "limit": limit, "strides": [1] * len(shape)}
        outs += ctx.emit([ty], _slice_render(x, text), spec=Spec("stablehlo.slice", [x], attrs))
        start = list(start)
        start[axis] = limit[axis]
    return outs


def _slice_render(x: Value, text: str) -> Any:
    return lambda p: f"stablehlo.slice {p(x)} {text}"


@register(ew.copy_p)
def _copy(ctx: RuleContext, x: Value) -> list[Value]:
    return [x]


@register(ew.reduce_precision_p)
def _reduce_precision(ctx: RuleContext, x: Value, *, exponent_bits: int, mantissa_bits: int) -> list[Value]:
    fmt = f"e{exponent_bits}m{mantissa_bits}"
    spec = Spec(
        "stablehlo.reduce_precision", [x], {"exponent_bits": exponent_bits, "mantissa_bits": mantissa_bits}
    )
    return ctx.emit(
        [x.type], lambda p: f"stablehlo.reduce_precision {p(x)}, format = {fmt} : {x.type}", spec=spec
    )


@register(st.empty2_p)
def _empty2(ctx: RuleContext, *, dtype: Any, **_: Any) -> list[Value]:
    return [ctx.constant(np.zeros((), dtype), dtype)]


@register(array_creation.empty_p)
def _empty(ctx: RuleContext, **_: Any) -> list[Value]:
    """JAX's CPU lowering: a zero, broadcast to the shape (TPU/GPU allocate an uninitialized buffer)."""
    return [full_like(ctx, 0, ctx.avals_out[0])]


# --- cumulative reductions: JAX's cached lowering, a reduce_window over a padded window ----------


def _cumulative(prim: Any, op: str, identity: Any) -> None:
    def body(c: RuleContext, args: Sequence[Value], axis: int, reverse: bool) -> list[Value]:
        (x,) = args
        aval = c.avals_in[0]
        n = aval.shape[axis]
        scalar = aval.update(shape=())
        if prim in (
            reductions.cumprod_p,
            reductions.cumlogsumexp_p,
        ):  # (JAX's generic reduce_window: the init is a literal)
            init = c.constant(np.array(identity(aval.dtype), aval.dtype), aval.dtype)
        else:  # (reduce_window_sum/max/min lower their init with full_like_aval)
            init = full_like(c, identity(aval.dtype), scalar)
        padding = [[0, 0] for _ in aval.shape]
        padding[axis] = [0, n - 1] if reverse else [n - 1, 0]
        window = [1] * len(aval.shape)
        window[axis] = n
        ones = [1] * len(aval.shape)
        pad_text = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + "]"
        props = (
            f"base_dilations = {i64_array(ones)}, padding = dense<{pad_text}> : tensor<{len(padding)}x2xi64>, "
            f"window_dilations = {i64_array(ones)}, window_dimensions = {i64_array(window)}, "
            f"window_strides = {i64_array(ones)}"
        )
        st_type = init.type
        block = Block([st_type, st_type])
        r = c.at(block)
        if prim is reductions.cumlogsumexp_p:  # (JAX's logaddexp, traced into the reducer)
            from ..staging import trace_to_jaxpr

            logaddexp = reductions._logaddexp_custom_jvp()
            closed = trace_to_jaxpr(lambda a, b: [logaddexp(a, b)], [scalar, scalar])
            (out,) = r.lower_jaxpr(block, closed, block.args)
        else:
            out = hlo_op(r, op, *block.args, out_type=st_type)
        r.emit([], lambda p: f"stablehlo.return {p(out)} : {st_type}")
        ty = c.out_types[0]
        return c.emit([ty], generic("stablehlo.reduce_window", [x, init], [ty], props, [block]), [block])

    def rule(ctx: RuleContext, x: Value, *, axis: int, reverse: bool) -> list[Value]:
        if ctx.avals_in[0].shape[axis] == 0:
            return [x]
        return ctx.cached_call(prim.name, [x], lambda c, a: body(c, a, axis, reverse), key=(axis, reverse))

    register(prim)(rule)


def _max_identity(dtype: Any) -> Any:
    dt = np.dtype(dtype)
    return -np.inf if dt.kind == "f" else np.iinfo(dt).min if dt.kind in "iu" else False


def _min_identity(dtype: Any) -> Any:
    dt = np.dtype(dtype)
    return np.inf if dt.kind == "f" else np.iinfo(dt).max if dt.kind in "iu" else True


_cumulative(reductions.cumsum_p, "stablehlo.add", lambda dt: 0)
_cumulative(reductions.cumprod_p, "stablehlo.multiply", lambda dt: 1)
_cumulative(reductions.cummax_p, "stablehlo.maximum", _max_identity)
_cumulative(reductions.cummin_p, "stablehlo.minimum", _min_identity)
_cumulative(reductions.cumlogsumexp_p, "", lambda dt: -np.inf)


# --- sort ---------------------------------------------------------------------------------------


def _sort_key(ctx: RuleContext, v: Value, dtype: Any) -> Value:
    """JAX's key for a total order: a float's -0 made 0 and its NaNs one NaN (named after the
    functions JAX traces for it, as in HLO)."""
    if np.dtype(dtype).kind != "f":
        return v
    i1 = "tensor<i1>"
    is_zero = named(compare(ctx, "EQ", v, ctx.constant(np.zeros((), dtype), dtype), dtype, i1), "eq")
    w = named(select(ctx, is_zero, ctx.constant(np.zeros((), dtype), dtype), v), "select_n")
    is_nan = named(compare(ctx, "NE", v, v, dtype, i1), "ne")
    return named(select(ctx, is_nan, ctx.constant(np.array(np.nan, dtype), dtype), w), "select_n")


def _total_order_compare(ctx: RuleContext, direction: str, x: Value, y: Value, dtype: Any) -> Value:
    """JAX's lt_to / eq_to of two keys."""
    i1 = "tensor<i1>"
    name = {"LT": "lt_to", "EQ": "eq_to"}[direction]
    if np.dtype(dtype).kind != "f":
        return named(compare(ctx, direction, x, y, dtype, i1), name)
    ty = functional_type([x.type, y.type], [i1])
    spec = Spec("stablehlo.compare", [x, y], {"direction": direction, "type": "TOTALORDER"})
    out = ctx.emit(
        [i1], lambda p: f"stablehlo.compare {direction}, {p(x)}, {p(y)}, TOTALORDER : {ty}", spec=spec
    )[0]
    return named(out, name)


@register(sorting.sort_p)
def _sort(ctx: RuleContext, *operands: Value, dimension: int, is_stable: bool, num_keys: int) -> list[Value]:
    avals = ctx.avals_in
    if any(np.dtype(a.dtype).kind == "c" for a in avals[:num_keys]):
        raise NotImplementedError("StableHLO text for sorting complex keys is not implemented in the engine")
    scalars = [literals.tensor_type((), a.dtype) for a in avals]
    block = Block([t for t in scalars for _ in (0, 1)])
    c = ctx.at(block)
    keys = [[_sort_key(c, v, avals[k].dtype) for v in block.args[2 * k : 2 * k + 2]] for k in range(num_keys)]
    pred = None
    for k in reversed(range(num_keys)):  # (JAX's _sort_lt_comparator: the first key decides, then the next)
        (x, y), dtype = keys[k], avals[k].dtype
        lt = _total_order_compare(c, "LT", x, y, dtype)
        if pred is None:
            pred = lt
        else:
            eq = _total_order_compare(c, "EQ", x, y, dtype)
            both = named(hlo_op(c, "stablehlo.and", eq, pred, out_type="tensor<i1>"), "and")
            pred = named(hlo_op(c, "stablehlo.or", lt, both, out_type="tensor<i1>"), "or")
    assert pred is not None
    final = pred
    c.emit([], lambda p: f"stablehlo.return {p(final)} : tensor<i1>", spec=Spec("stablehlo.return", [final]))
    props = f"dimension = {dimension} : i64, is_stable = {str(bool(is_stable)).lower()}"
    types = ctx.out_types
    spec = Spec("stablehlo.sort", operands, {"dimension": dimension, "is_stable": bool(is_stable)})
    return ctx.emit(
        types, generic("stablehlo.sort", list(operands), types, props, [block]), [block], spec=spec
    )


@register(sorting.top_k_p)
def _top_k(ctx: RuleContext, x: Value, *, k: int, axis: int, **_: Any) -> list[Value]:
    if axis != len(ctx.avals_in[0].shape) - 1:
        raise NotImplementedError("the engine lowers top_k along the last axis only (JAX transposes)")
    types = ctx.out_types
    text = f"k = {k}) : {x.type} -> ({', '.join(types)})"
    # (chlo.top_k names its results %values and %indices)
    return ctx.emit(types, lambda p: f"chlo.top_k({p(x)}, {text}", result_hints=("values", "indices"))


@register(composites.approx_top_k_p)
def _approx_top_k(
    ctx: RuleContext,
    x: Value,
    *,
    k: int,
    reduction_dimension: int,
    recall_target: float,
    is_max_k: bool,
    reduction_input_size_override: int,
    aggregate_to_topk: bool,
) -> list[Value]:
    """JAX's CPU lowering: an ``ApproxTopK`` custom call (XLA's exact fallback) of the operand and
    its indices along the dimension, ordered by a comparator function JAX puts first in the module."""
    aval = ctx.avals_in[0]
    dtype = np.dtype(aval.dtype)
    element = literals.tensor_type((), dtype)[len("tensor<") : -1]
    direction = "GT" if is_max_k else "LT"
    scalar, index = f"tensor<{element}>", "tensor<i32>"
    comparator = ctx.module.add_function(
        f"top_k_{direction.lower()}_{element}_comparator", None, [scalar, scalar, index, index], first=True
    )
    a, b = comparator.body.args[:2]
    c = ctx.at(comparator.body)
    cmp = c.emit(
        ["tensor<i1>"],
        lambda p: f"stablehlo.compare {direction}, {p(a)}, {p(b)} : ({scalar}, {scalar}) -> tensor<i1>",
    )[0]
    c.emit([], lambda p: f"stablehlo.return {p(cmp)} : tensor<i1>")
    comparator.result_types = ["tensor<i1>"]
    dim = reduction_dimension % len(aval.shape)
    iota_type = literals.tensor_type(aval.shape, np.int32)
    iota_spec = Spec("stablehlo.iota", [], {"dimension": dim})
    iota = ctx.emit([iota_type], lambda p: f"stablehlo.iota dim = {dim} : {iota_type}", spec=iota_spec)[0]
    init_arg = ctx.constant(np.array(-1, np.int32), np.int32)
    init_val = ctx.constant(np.array(-np.inf if is_max_k else np.inf, dtype), dtype)
    config = (
        f"aggregate_to_topk = {str(bool(aggregate_to_topk)).lower()}, is_fallback = true, "
        f"recall_target = {literals.float_text(np.float32(recall_target))} : f32, reduction_dim = {dim} : i64, "
        f"reduction_input_size_override = {int(reduction_input_size_override)} : i64, top_k = {int(k)} : i64"
    )
    operands = [x, iota, init_val, init_arg]
    types = ctx.out_types
    sig = functional_type([v.type for v in operands], types)
    attrs = (
        f'backend_config = "", called_computations = [@{comparator.name}], mhlo.backend_config = {{{config}}}'
    )
    return ctx.emit(
        types, lambda p: f"stablehlo.custom_call @ApproxTopK({p.list(operands)}) {{{attrs}}} : {sig}"
    )
