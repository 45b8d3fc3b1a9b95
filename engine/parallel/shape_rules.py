"""Partitioning rules for operations that move values between dimensions: ``broadcast_in_dim``,
``reshape`` (a merge of split dimensions keeps their axes, as JAX types it), ``transpose``,
``squeeze`` and ``concatenate``. Each is ``rule(ctx, prim, vals, params)`` on ``Sharded`` operands (``partition.py``)."""

from __future__ import annotations

import math

from .. import core
from . import type_rules
from .partition import (
    Sharded,
    ShardingTypeError,
    _explicit,
    _fallback,
    _replicated,
    _to_spec,
    _type_str,
    laid_out,
)


def _broadcast_in_dim(ctx, prim, vals, params):
    """Split dimensions stay split where they are not widened."""
    x = vals[0]
    shape, dims = params["shape"], params["broadcast_dimensions"]
    in_shape = ctx.global_shape(core.get_aval(x.val).shape, x.spec)
    spec: list = [()] * len(shape)
    for i, d in enumerate(dims):
        if x.spec[i] and in_shape[i] == shape[d]:
            spec[d] = x.spec[i]
        elif x.spec[i]:
            return _fallback(ctx, prim, vals, params)
    local = dict(params, shape=ctx.local_shape(shape, spec))
    return Sharded(prim.bind(x.val, *[v.val for v in vals[1:]], **local), tuple(spec))


def _reshape(ctx, prim, vals, params):
    """On an explicit mesh, laid out as JAX types it (``type_rules.reshaped``); else as below."""
    x = vals[0]
    typed = None
    if params.get("sharding") is None:  # (else JAX's rule takes the layout said)
        gshape = ctx.global_shape(core.get_aval(x.val).shape, x.spec)
        typed = type_rules.reshaped(ctx, x, gshape, params["new_sizes"], params.get("dimensions"))
    out = _reshape_split(ctx, prim, vals, params)
    return out if typed is None or out.spec == typed else Sharded(_to_spec(ctx, out, typed), typed)


def _reshape_split(ctx, prim, vals, params):
    """Dimensions that survive the reshape keep their split; a split dimension that is divided
    into several keeps its split on the first (when it divides evenly); otherwise gather."""
    x = vals[0]
    new = tuple(params["new_sizes"])
    gshape = ctx.global_shape(core.get_aval(x.val).shape, x.spec)
    if not any(x.spec):
        return Sharded(prim.bind(*[v.val for v in vals], **params), _replicated(len(new)))
    if params.get("dimensions") is not None:
        return _fallback(ctx, prim, vals, params)
    spec: list = [()] * len(new)
    for d, s in enumerate(x.spec):
        if not s:
            continue
        before = math.prod(gshape[:d])
        match = [
            e
            for e in range(len(new))
            if math.prod(new[:e]) == before
            and (new[e] == gshape[d] or (gshape[d] % new[e] == 0 and new[e] % ctx.parts(s) == 0))
        ]
        if not match:
            return _merged(ctx, prim, vals, params, gshape)
        e = match[0]
        if new[e] != gshape[d] and any(x.spec[d + 1 :]):
            return _fallback(ctx, prim, vals, params)
        spec[e] = s
    local = dict(params, new_sizes=ctx.local_shape(new, spec))
    return Sharded(prim.bind(x.val, **local), tuple(spec))


def _merged(ctx, prim, vals, params, gshape):
    """A reshape merging runs of dimensions into one each, on an explicit mesh: as JAX types it, a
    merged dimension is split by the axes of the dimensions it merges, major first, when only
    leading ones of them are split (``f32[8@x,4@y]`` to ``f32[32@(x,y)]``); the blocks move there
    from the gathered result. Otherwise (or on ``Auto`` axes) the result is gathered."""
    (x,) = vals
    new = tuple(params["new_sizes"])
    spec, d = [], 0
    for n in new:
        group, size = [], 1
        while d < len(gshape) and size < n:  # (the run of dimensions whose sizes make up n)
            group.append(d)
            size *= gshape[d]
            d += 1
        if size != n:
            return _fallback(ctx, prim, vals, params)
        specs = [x.spec[g] for g in group]
        while specs and not specs[-1]:
            specs.pop()
        if any(not s for s in specs) or any(a not in ctx.typed for s in specs for a in s):
            if any(_explicit(ctx, s) for s in specs):  # (JAX's type has no such split: it refuses)
                raise ShardingTypeError(
                    "This reshape is not supported. Please specify the sharding of the output via the "
                    f"`out_sharding` argument of jax.lax.reshape. Got operand type: "
                    f"{_type_str(ctx, x, long=True)}, new sizes: {new}"
                )
            return _fallback(ctx, prim, vals, params)
        axes = tuple(a for s in specs for a in s)
        if axes and n % ctx.parts(axes):
            return _fallback(ctx, prim, vals, params)
        spec.append(axes)
    if d != len(gshape):
        return _fallback(ctx, prim, vals, params)
    out = _fallback(ctx, prim, vals, params)
    return Sharded(_to_spec(ctx, out, tuple(spec)), tuple(spec))


def _transpose(ctx, prim, vals, params):
    (x,) = vals
    perm = params["permutation"]
    return Sharded(prim.bind(x.val, **params), tuple(x.spec[p] for p in perm))


def _squeeze(ctx, prim, vals, params):
    (x,) = vals
    dims = {d % len(x.spec) for d in params["dimensions"]}
    return Sharded(prim.bind(x.val, **params), tuple(s for d, s in enumerate(x.spec) if d not in dims))


def _concatenate(ctx, prim, vals, params):
    """Concatenation along a dimension no operand splits: operands take one spec, blocks join."""
    d = params["dimension"]
    type_rules.check_concatenate(ctx, vals)
    if any(x.spec[d] for x in vals):
        # (on an explicit mesh JAX types the result as its operands, which agree: it stays split)
        same = all(x.spec == vals[0].spec for x in vals)
        out = _fallback(ctx, prim, vals, params)
        if not same or any(a not in ctx.typed for a in vals[0].spec[d]):
            return out
        return Sharded(_to_spec(ctx, out, vals[0].spec), vals[0].spec)
    target = next((x.spec for x in vals if any(x.spec)), vals[0].spec)
    args = [x.val if x.spec == target else _to_spec(ctx, x, target) for x in vals]
    return Sharded(prim.bind(*args, **params), target)


def install(rules: dict) -> None:
    from ..lax import structural

    rules[structural.broadcast_in_dim_p] = laid_out(_broadcast_in_dim, "sharding")
    rules[structural.reshape_p] = laid_out(_reshape, "sharding")
    rules[structural.transpose_p] = _transpose
    rules[structural.squeeze_p] = _squeeze
    rules[structural.concatenate_p] = _concatenate
