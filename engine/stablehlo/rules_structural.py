"""StableHLO rules for shape and data movement primitives, reductions and dot_general."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..lax.dot_general import dot_general_p
from ..lax import dynamic_slicing as ds
from ..lax.fft import FftType, fft_p
from ..lax import convolution, joining, reductions, slicing
from ..lax import structural as st
from . import literals
from .lowering import RuleContext, register
from .rules_elementwise import broadcast_in_dim, compare, convert, hlo_op
from .syntax import Block, Printer, Spec, Value


def ints(xs: Sequence[int]) -> str:
    return ", ".join(str(int(x)) for x in xs)


@register(st.broadcast_in_dim_p)
def _broadcast_in_dim(
    ctx: RuleContext, x: Value, *dyn: Value, shape: Any, broadcast_dimensions: Any, **_: Any
) -> list[Value]:
    return [broadcast_in_dim(ctx, x, shape, broadcast_dimensions)]


def reshape(ctx: RuleContext, x: Value, out_type: str) -> Value:
    return ctx.emit(
        [out_type],
        lambda p: f"stablehlo.reshape {p(x)} : ({x.type}) -> {out_type}",
        spec=Spec("stablehlo.reshape", [x]),
    )[0]


@register(st.reshape_p)
def _reshape(ctx: RuleContext, x: Value, *dyn: Value, dimensions: Any = None, **_: Any) -> list[Value]:
    if dimensions is not None and tuple(dimensions) != tuple(range(len(ctx.avals_in[0].shape))):
        x = transpose(ctx, x, dimensions, ctx.avals_in[0])
    return [reshape(ctx, x, ctx.out_types[0])]


@register(st.squeeze_p)
def _squeeze(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    return [reshape(ctx, x, ctx.out_types[0])]


def transpose(ctx: RuleContext, x: Value, perm: Sequence[int], aval: Any) -> Value:
    ty = literals.tensor_type([aval.shape[d] for d in perm], aval.dtype)
    return ctx.emit(
        [ty],
        lambda p: f"stablehlo.transpose {p(x)}, dims = [{ints(perm)}] : ({x.type}) -> {ty}",
        spec=Spec("stablehlo.transpose", [x], {"perm": tuple(perm)}),
    )[0]


@register(st.transpose_p)
def _transpose(ctx: RuleContext, x: Value, permutation: Any) -> list[Value]:
    return [transpose(ctx, x, permutation, ctx.avals_in[0])]


@register(slicing.slice_p)
def _slice(
    ctx: RuleContext, x: Value, start_indices: Any, limit_indices: Any, strides: Any = None
) -> list[Value]:
    ty = ctx.out_types[0]
    strides = list(strides or [1] * len(start_indices))
    extra = literals.physical_shape(ctx.avals_in[0])[len(start_indices) :]  # (a PRNG key's words)
    start_indices = [*start_indices, *(0 for _ in extra)]
    limit_indices = [*limit_indices, *extra]
    strides += [1] * len(extra)
    ranges = ", ".join(
        f"{a}:{b}" + (f":{s}" if s != 1 else "") for a, b, s in zip(start_indices, limit_indices, strides)
    )
    attrs = {"start": list(start_indices), "limit": list(limit_indices), "strides": strides}
    return ctx.emit(
        [ty],
        lambda p: f"stablehlo.slice {p(x)} [{ranges}] : ({x.type}) -> {ty}",
        spec=Spec("stablehlo.slice", [x], attrs),
    )


@register(ds.dynamic_slice_p)
def _dynamic_slice(ctx: RuleContext, x: Value, *idx: Value, slice_sizes: Any) -> list[Value]:
    ty = ctx.out_types[0]
    types = ", ".join(v.type for v in (x, *idx))
    return ctx.emit(
        [ty],
        lambda p: (
            f"stablehlo.dynamic_slice {p.list([x, *idx])}, sizes = [{ints(slice_sizes)}] : ({types}) -> {ty}"
        ),
        spec=Spec("stablehlo.dynamic_slice", [x, *idx], {"sizes": tuple(slice_sizes)}),
    )


@register(ds.dynamic_update_slice_p)
def _dynamic_update_slice(ctx: RuleContext, x: Value, update: Value, *idx: Value, **_: Any) -> list[Value]:
    ty = ctx.out_types[0]
    types = ", ".join(v.type for v in (x, update, *idx))
    return ctx.emit(
        [ty],
        lambda p: f"stablehlo.dynamic_update_slice {p.list([x, update, *idx])} : ({types}) -> {ty}",
        spec=Spec("stablehlo.dynamic_update_slice", [x, update, *idx]),
    )


def concatenate(ctx: RuleContext, xs: Sequence[Value], avals: Sequence[Any], dimension: int) -> Value:
    """JAX's ``_concatenate_tree``: at most 16 operands per ``stablehlo.concatenate``."""
    current = list(zip(xs, avals))
    while len(current) > 1:
        grouped = []
        for i in range(0, len(current), 16):
            group = current[i : i + 16]
            if len(group) == 1:
                grouped.append(group[0])
                continue
            shape = list(group[0][1].shape)
            shape[dimension] = sum(a.shape[dimension] for _, a in group)
            aval = group[0][1].update(shape=tuple(shape))
            ty = literals.aval_type(aval)
            vs = [v for v, _ in group]
            types = ", ".join(v.type for v in vs)
            spec = Spec("stablehlo.concatenate", vs, {"dimension": dimension})
            (out,) = ctx.emit([ty], _concat_render(vs, f"dim = {dimension} : ({types}) -> {ty}"), spec=spec)
            grouped.append((out, aval))
        current = grouped
    return current[0][0]


def _concat_render(vs: Sequence[Value], tail: str) -> Any:
    return lambda p: f"stablehlo.concatenate {p.list(vs)}, {tail}"


@register(joining.concatenate_p)
def _concatenate(ctx: RuleContext, *xs: Value, dimension: int) -> list[Value]:
    return [concatenate(ctx, xs, ctx.avals_in, dimension)]


@register(joining.stack_p)
def _stack(ctx: RuleContext, *xs: Value, axis: int) -> list[Value]:
    dims = [i for i in range(len(ctx.avals_in[0].shape) + 1) if i != axis]
    avals = []
    expanded = []
    for x, aval in zip(xs, ctx.avals_in):
        shape = list(aval.shape)
        shape.insert(axis, 1)
        expanded.append(broadcast_in_dim(ctx, x, shape, dims))
        avals.append(aval.update(shape=tuple(shape)))
    return [concatenate(ctx, expanded, avals, axis)]


@register(joining.unstack_p)
def _unstack(ctx: RuleContext, x: Value, *, axis: int) -> list[Value]:
    aval = ctx.avals_in[0]
    shape = literals.physical_shape(aval)
    element = literals.aval_type(aval).rsplit("x", 1)[-1] if shape else ""
    outs = []
    for k, ty in enumerate(ctx.out_types):
        start = [0] * len(shape)
        limit = list(shape)
        start[axis], limit[axis] = k, k + 1
        one = list(shape)
        one[axis] = 1
        sliced = slice_op(ctx, x, start, limit, "tensor<" + "".join(f"{d}x" for d in one) + element)
        outs.append(reshape(ctx, sliced, ty))
    return outs


@register(joining.tile_p)
def _tile(ctx: RuleContext, x: Value, *, reps: Any) -> list[Value]:
    aval = ctx.avals_in[0]
    expand = tuple(j for i in aval.shape for j in (1, i))
    r = reshape(ctx, x, literals.tensor_type(expand, aval.dtype))
    wide = tuple(k for pair in zip(reps, aval.shape) for k in pair)
    b = broadcast_in_dim(ctx, r, wide, range(2 * len(aval.shape)))
    return [reshape(ctx, b, ctx.out_types[0])]


def slice_op(ctx: RuleContext, x: Value, start: Sequence[int], limit: Sequence[int], ty: str) -> Value:
    ranges = ", ".join(f"{a}:{b}" for a, b in zip(start, limit))
    attrs = {"start": list(start), "limit": list(limit), "strides": [1] * len(start)}
    return ctx.emit(
        [ty],
        lambda p: f"stablehlo.slice {p(x)} [{ranges}] : ({x.type}) -> {ty}",
        spec=Spec("stablehlo.slice", [x], attrs),
    )[0]


@register(st.pad_p)
def _pad(ctx: RuleContext, x: Value, pad_value: Value, padding_config: Any) -> list[Value]:
    ty = ctx.out_types[0]
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    return ctx.emit(
        [ty],
        lambda p: (
            f"stablehlo.pad {p(x)}, {p(pad_value)}, low = [{ints(lo)}], high = [{ints(hi)}], "
            f"interior = [{ints(interior)}] : ({x.type}, {pad_value.type}) -> {ty}"
        ),
        spec=Spec("stablehlo.pad", [x, pad_value], {"config": [tuple(c) for c in padding_config]}),
    )


@register(st.rev_p)
def _rev(ctx: RuleContext, x: Value, dimensions: Any) -> list[Value]:
    return ctx.emit(
        [x.type],
        lambda p: f"stablehlo.reverse {p(x)}, dims = [{ints(dimensions)}] : {x.type}",
        spec=Spec("stablehlo.reverse", [x], {"dims": tuple(dimensions)}),
    )


@register(fft_p)
def _fft(ctx: RuleContext, x: Value, fft_type: Any, fft_lengths: Any) -> list[Value]:
    ty = ctx.out_types[0]
    kind = FftType(fft_type).name
    return ctx.emit(
        [ty],
        lambda p: f"stablehlo.fft {p(x)}, type = {kind}, length = [{ints(fft_lengths)}] : ({x.type}) -> {ty}",
    )


@register(st.iota_p)
def _iota(ctx: RuleContext, *dyn: Value, dimension: int, **_: Any) -> list[Value]:
    ty = ctx.out_types[0]
    return ctx.emit(
        [ty],
        lambda p: f"stablehlo.iota dim = {dimension} : {ty}",
        spec=Spec("stablehlo.iota", [], {"dimension": dimension}),
    )


@register(st.bitcast_convert_type_p)
def _bitcast(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    return [hlo_op(ctx, "stablehlo.bitcast_convert", x)]


# --- reductions --------------------------------------------------------------------------------


def _max_identity(dtype: Any) -> Any:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return -np.inf
    if dt.kind in "iu":
        return np.iinfo(dt).min
    return False


def _min_identity(dtype: Any) -> Any:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return np.inf
    if dt.kind in "iu":
        return np.iinfo(dt).max
    return True


def reduce(ctx: RuleContext, x: Value, init: Value, op: str, axes: Sequence[int]) -> Value:
    """``stablehlo.reduce(%x init: %c) applies <op> across dimensions = [...]`` (MLIR's compact form)."""
    ty = ctx.out_types[0]
    scalar = init.type
    body = Block([scalar, scalar])
    a, b = body.args
    ctx.at(body).emit([scalar], lambda p: f"{op} {p(a)}, {p(b)} : {scalar}")
    return ctx.emit(
        [ty],
        lambda p: (
            f"stablehlo.reduce({p(x)} init: {p(init)}) applies {op} across dimensions = [{ints(axes)}] : "
            f"({x.type}, {init.type}) -> {ty}"
        ),
        regions=[body],
        spec=Spec("stablehlo.reduce", [x, init], {"dims": tuple(axes), "op": op}),
    )[0]


def _reduction(prim: Any, op: str, identity: Any) -> None:
    def rule(ctx: RuleContext, x: Value, axes: Any, **_: Any) -> list[Value]:
        dtype = ctx.avals_in[0].dtype
        init = ctx.constant(identity(dtype), dtype)
        return [reduce(ctx, x, init, op, axes)]

    register(prim)(rule)


_reduction(reductions.reduce_sum_p, "stablehlo.add", lambda dt: 0)
_reduction(reductions.reduce_prod_p, "stablehlo.multiply", lambda dt: 1)
_reduction(reductions.reduce_max_p, "stablehlo.maximum", _max_identity)
_reduction(reductions.reduce_min_p, "stablehlo.minimum", _min_identity)
_reduction(reductions.reduce_and_p, "stablehlo.and", lambda dt: True if np.dtype(dt) == np.bool_ else -1)
_reduction(reductions.reduce_or_p, "stablehlo.or", lambda dt: 0)
_reduction(reductions.reduce_xor_p, "stablehlo.xor", lambda dt: 0)


def _argminmax(prim: Any, direction: str, identity: Any) -> None:
    """JAX lowers argmax/argmin once per signature as a private function of a two-operand reduce
    (its operations located as the traced function's: ``iota``, ``reduce``, the reducer's ``gt``,
    ``ne``, ``or``, ``select_n``, ...; what the HLO printer names them after)."""

    def named(v: Value, source: str) -> Value:
        assert v.op is not None
        v.op.source = source
        return v

    def body(ctx: RuleContext, x: Value, axes: Any, index_dtype: Any) -> list[Value]:
        aval = ctx.avals_in[0]
        (axis,) = axes
        idx_type = literals.tensor_type(aval.shape, index_dtype)
        iota_spec = Spec("stablehlo.iota", [], {"dimension": axis})
        iota = ctx.emit([idx_type], lambda p: f"stablehlo.iota dim = {axis} : {idx_type}", spec=iota_spec)[0]
        named(iota, "iota")
        init_v = ctx.constant(identity(aval.dtype), aval.dtype)
        init_i = ctx.constant(0, index_dtype)
        vt, it = init_v.type, init_i.type
        blk = Block([vt, it, vt, it])
        b = ctx.at(blk)
        ov, oi, av, ai = blk.args
        i1 = "tensor<i1>"

        def cmp(d: str, p: Value, q: Value, dtype: Any) -> Value:
            return named(compare(b, d, p, q, dtype, i1), d.lower())

        pick_val = named(
            hlo_op(
                b,
                "stablehlo.or",
                cmp(direction, ov, av, aval.dtype),
                cmp("NE", ov, ov, aval.dtype),
                out_type=i1,
            ),
            "or",
        )
        tie = named(
            hlo_op(
                b, "stablehlo.and", cmp("EQ", ov, av, aval.dtype), cmp("LT", oi, ai, index_dtype), out_type=i1
            ),
            "and",
        )
        pick_idx = named(hlo_op(b, "stablehlo.or", pick_val, tie, out_type=i1), "or")
        val = b.emit(
            [vt],
            lambda p: f"stablehlo.select {p(pick_val)}, {p(ov)}, {p(av)} : {i1}, {vt}",
            spec=Spec("stablehlo.select", [pick_val, ov, av]),
        )[0]
        idx = b.emit(
            [it],
            lambda p: f"stablehlo.select {p(pick_idx)}, {p(oi)}, {p(ai)} : {i1}, {it}",
            spec=Spec("stablehlo.select", [pick_idx, oi, ai]),
        )[0]
        named(val, "select_n"), named(idx, "select_n")
        b.emit(
            [],
            lambda p: f"stablehlo.return {p(val)}, {p(idx)} : {vt}, {it}",
            spec=Spec("stablehlo.return", [val, idx]),
        )
        out_v = literals.tensor_type(ctx.avals_out[0].shape, aval.dtype)
        out_i = ctx.out_types[0]

        def render(p: Printer) -> str:
            return (
                f"stablehlo.reduce({p(x)} init: {p(init_v)}), ({p(iota)} init: {p(init_i)}) across dimensions = "
                f"[{axis}] : ({x.type}, {iota.type}, {vt}, {it}) -> ({out_v}, {out_i})\n"
                f"{p.indent} reducer({p(ov)}: {vt}, {p(av)}: {vt}) ({p(oi)}: {it}, {p(ai)}: {it})  {{\n"
                f"{p.block(blk, p.indent + '  ')}{p.indent}}}"
            )

        reduce_spec = Spec("stablehlo.reduce", [x, iota, init_v, init_i], {"op": None, "dims": (axis,)})
        outs = ctx.emit([out_v, out_i], render, regions=[blk], spec=reduce_spec)
        named(outs[0], "reduce")
        return [outs[1]]

    def rule(ctx: RuleContext, x: Value, axes: Any, index_dtype: Any) -> list[Value]:
        outs = ctx.cached_call(
            prim.name,
            [x],
            lambda c, args: body(c, args[0], axes, index_dtype),
            key=(tuple(axes), np.dtype(index_dtype).name),
        )
        if np.dtype(ctx.avals_in[0].dtype).kind != "f" and outs[0].op is not None:  # (XLA's text differs)
            outs[0].op.spec = None
        return outs

    register(prim)(rule)


_argminmax(reductions.argmax_p, "GT", _max_identity)
_argminmax(reductions.argmin_p, "LT", _min_identity)


# --- dot_general -------------------------------------------------------------------------------


@register(dot_general_p)
def _dot_general(
    ctx: RuleContext, x: Value, y: Value, dimension_numbers: Any, precision: Any = None, **_: Any
) -> list[Value]:
    (lc, rc), (lb, rb) = dimension_numbers
    ty = ctx.out_types[0]
    (x_aval, y_aval), out_aval = ctx.avals_in, ctx.avals_out[0]
    if x_aval.dtype != y_aval.dtype:  # mixed operands: both converted to the result's dtype (JAX on CPU)
        x = convert(ctx, x, x_aval, x_aval.update(dtype=out_aval.dtype))
        y = convert(ctx, y, y_aval, y_aval.update(dtype=out_aval.dtype))
    parts = []
    if lb or rb:
        parts.append(f"batching_dims = [{ints(lb)}] x [{ints(rb)}]")
    parts.append(f"contracting_dims = [{ints(lc)}] x [{ints(rc)}]")
    parts.append(f"precision = [{_precision(precision)}]")
    attrs = ", ".join(parts)
    spec = Spec(
        "stablehlo.dot_general",
        [x, y],
        {"contracting": (lc, rc), "batch": (lb, rb), "precision": _precision(precision).split(", ")},
    )
    return ctx.emit(
        [ty],
        lambda p: f"stablehlo.dot_general {p(x)}, {p(y)}, {attrs} : ({x.type}, {y.type}) -> {ty}",
        spec=spec,
    )


def _precision(precision: Any) -> str:
    if precision is None:
        return "DEFAULT, DEFAULT"
    if not isinstance(precision, (tuple, list)):
        precision = (precision, precision)
    names = [str(getattr(q, "name", q) or "DEFAULT").upper().split(".")[-1] for q in precision]
    return ", ".join(names)


# --- convolution -------------------------------------------------------------------------------


def _conv_layout(spec: Sequence[int], first: str, second: str) -> str:
    """``[b, f, 0, 1]``: which logical dimension each position of the operand holds."""
    names = [""] * len(spec)
    names[spec[0]], names[spec[1]] = first, second
    for k, d in enumerate(spec[2:]):
        names[d] = str(k)
    return "[" + ", ".join(names) + "]"


@register(convolution.conv_general_dilated_p)
def _conv_general_dilated(
    ctx: RuleContext,
    lhs: Value,
    rhs: Value,
    *,
    window_strides: Any,
    padding: Any,
    lhs_dilation: Any,
    rhs_dilation: Any,
    dimension_numbers: Any,
    feature_group_count: int,
    batch_group_count: int,
    precision: Any = None,
    **_: Any,
) -> list[Value]:
    d = dimension_numbers
    dims = (
        f"{_conv_layout(d.lhs_spec, 'b', 'f')}x{_conv_layout(d.rhs_spec, 'o', 'i')}->"
        f"{_conv_layout(d.out_spec, 'b', 'f')}"
    )
    pad = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + "]"
    window = (
        f"stride = [{ints(window_strides)}], pad = {pad}, lhs_dilate = [{ints(lhs_dilation)}], "
        f"rhs_dilate = [{ints(rhs_dilation)}], reverse = [{', '.join('false' for _ in window_strides)}]"
    )
    prec = ", ".join(f"#stablehlo<precision {q.strip()}>" for q in _precision(precision).split(","))
    attrs = (
        f"{{batch_group_count = {batch_group_count} : i64, feature_group_count = {feature_group_count} : i64, "
        f"precision_config = [{prec}]}}"
    )
    ty = ctx.out_types[0]
    spec = Spec("stablehlo.convolution", [lhs, rhs], {
        "lhs_spec": tuple(d.lhs_spec), "rhs_spec": tuple(d.rhs_spec), "out_spec": tuple(d.out_spec),
        "strides": tuple(window_strides), "padding": tuple(tuple(p) for p in padding),
        "lhs_dilation": tuple(lhs_dilation), "rhs_dilation": tuple(rhs_dilation),
        "feature_group_count": feature_group_count, "batch_group_count": batch_group_count,
        "precision": tuple(q.strip() for q in _precision(precision).split(",")),
    })  # fmt: skip
    return ctx.emit(
        [ty],
        lambda p: (
            f"stablehlo.convolution({p(lhs)}, {p(rhs)}) dim_numbers = {dims}, window = {{{window}}} {attrs} : "
            f"({lhs.type}, {rhs.type}) -> {ty}"
        ),
        spec=spec,
    )
