"""Partitioning rules for operations along one dimension, elementwise across the others:
cumulative reductions, ``sort``, ``top_k``, ``rev``, ``pad``, ``split``, ``stack``, ``unstack``
and ``tile``. Each device works on its blocks; the result is split as the operand (JAX types it so).

JAX's sharding-in-types rules: on ``Explicit`` axes a cumulative reduction, a sort and ``top_k``
refuse an operand split along the dimension they work on (``ShardingTypeError``, inside ``jit``
too); ``rev`` keeps the split (the blocks move); ``pad`` and ``split`` keep it where the new sizes
divide by the axes, else refuse (``_kept_spec``). On ``Auto`` axes the dimension is gathered first.
"""

from __future__ import annotations

from .. import core
from .partition import (
    MeshContext,
    Sharded,
    ShardingTypeError,
    _fallback,
    _to_spec,
    _type_str,
)
from .slicing_rules import _kept_spec, _laid_out, _typed
from .type_rules import _explicit_spec, _named


def _along(dims_of, refuse):
    """The rule of an operation along the dimensions ``dims_of(params, ndim)``: computed on each
    device's blocks with those dimensions whole (gathered on ``Auto`` axes; on ``Explicit`` ones
    ``refuse(ctx, x, d, params)`` raises JAX's error)."""

    def rule(ctx: MeshContext, prim, vals, params):
        x = vals[0]
        dims = dims_of(params, len(x.spec))
        for d in dims:
            if _typed(ctx, x.spec[d]):
                refuse(ctx, x, d, params)
        spec = tuple(() if d in dims else s for d, s in enumerate(x.spec))
        out = prim.bind(*[v.val if v.spec == spec else _to_spec(ctx, v, spec) for v in vals], **params)
        if prim.multiple_results:
            return [Sharded(o, spec) for o in out]
        return Sharded(out, spec)

    return rule


def _refuse_cumulative(ctx, x, d, params):
    raise ShardingTypeError(
        "Input should be unsharded over the axis being reduced. Got input "
        f"type={_type_str(ctx, x, long=True)} and axis={d}"
    )


def _refuse_top_k(ctx, x, d, params):
    raise ShardingTypeError(
        "The input should be unsharded over the axis along which to compute the top_k values. Got "
        f"input type={_type_str(ctx, x, long=True)} and axis={d}"
    )


def _refuse_sort(ctx, x, d, params):
    raise ShardingTypeError(
        "Arguments to sort must be unsharded over the sorting dimension. Got arg "
        f"sharding={_named(ctx, x)} and sorting dimension={d}"
    )


def _rev(ctx, prim, vals, params):
    """Reversed on the gathered dimensions it reverses, then split again as the operand."""
    (x,) = vals
    if not any(x.spec[d] for d in params["dimensions"]):
        return Sharded(prim.bind(x.val, **params), x.spec)
    return _laid_out(ctx, _fallback(ctx, prim, vals, params), x.spec)


def _pad(ctx, prim, vals, params):
    """Padded on each device's blocks where no split dimension is padded; else on the gathered
    operand, then split as the operand where the new sizes divide."""
    x, config = vals[0], params["padding_config"]
    padded = [d for d, c in enumerate(config) if any(c)]
    if not any(x.spec[d] for d in padded):
        return Sharded(prim.bind(*[v.val for v in vals], **params), x.spec)
    shape = ctx.global_shape(core.get_aval(x.val).shape, x.spec)
    out_shape = [lo + hi + n + max(0, n - 1) * inner for (lo, hi, inner), n in zip(config, shape)]
    return _laid_out(ctx, _fallback(ctx, prim, vals, params), _kept_spec(ctx, x, out_shape, "padding"))


def _split(ctx, prim, vals, params):
    """Each piece split as the operand where its size divides (JAX's rule, as a slice's)."""
    (x,) = vals
    axis = params["axis"]
    shape = ctx.global_shape(core.get_aval(x.val).shape, x.spec)
    specs = [_kept_spec(ctx, x, [*shape[:axis], n, *shape[axis + 1 :]], "split") for n in params["sizes"]]
    if not x.spec[axis]:
        return [Sharded(o, x.spec) for o in prim.bind(x.val, **params)]
    return [_laid_out(ctx, o, spec) for o, spec in zip(_fallback(ctx, prim, vals, params), specs)]


def _stack(ctx, prim, vals, params):
    """The operands laid out alike (the first split one's), a new whole dimension at ``axis``."""
    split = [x for x in vals if any(x.spec)]
    spec = split[0].spec if split else vals[0].spec
    if any(_explicit_spec(ctx, x) != _explicit_spec(ctx, vals[0]) for x in vals):
        shown = ", ".join(str(_named(ctx, x)) for x in vals)
        raise ShardingTypeError(f"All operands should have the same sharding. Got shardings {shown}")
    out = prim.bind(*[x.val if x.spec == spec else _to_spec(ctx, x, spec) for x in vals], **params)
    axis = params["axis"]
    return Sharded(out, (*spec[:axis], (), *spec[axis:]))


def _unstack(ctx, prim, vals, params):
    (x,) = vals
    axis = params["axis"]
    if _typed(ctx, x.spec[axis]):
        raise ShardingTypeError(
            f"unstack operand cannot be sharded on the unstacking axis {axis}. Got operand type={_type_str(ctx, x)}"
        )
    spec = (*x.spec[:axis], (), *x.spec[axis + 1 :])
    outs = prim.bind(x.val if x.spec == spec else _to_spec(ctx, x, spec), **params)
    return [Sharded(o, spec[:axis] + spec[axis + 1 :]) for o in outs]


def _tile(ctx, prim, vals, params):
    (x,) = vals
    reps = params["reps"]
    for d, r in enumerate(reps):
        if r != 1 and _typed(ctx, x.spec[d]):
            raise ShardingTypeError(
                f"Operand cannot be sharded on dimension {d} when the tiling is non-trivial. Got input "
                f"type: {_type_str(ctx, x, long=True)} with reps: {reps}"
            )
    spec = tuple(s if r == 1 else () for s, r in zip(x.spec, reps))
    return Sharded(prim.bind(x.val if x.spec == spec else _to_spec(ctx, x, spec), **params), spec)


def install(rules: dict) -> None:
    from ..lax import joining, reductions, sorting, structural
    from . import type_rules

    for p in (reductions.cumsum_p, reductions.cumprod_p, reductions.cummax_p, reductions.cummin_p):
        rules[p] = _along(lambda params, nd: (params["axis"],), _refuse_cumulative)
    rules[reductions.cumlogsumexp_p] = rules[reductions.cumsum_p]
    rules[sorting.sort_p] = _along(lambda params, nd: (params["dimension"],), _refuse_sort)
    rules[sorting.top_k_p] = _along(lambda params, nd: (params["axis"] % nd,), _refuse_top_k)
    rules[structural.rev_p] = _rev
    rules[structural.select_n_p] = type_rules.select_n
    rules[structural.pad_p] = _pad
    rules[joining.split_p] = _split
    rules[joining.stack_p] = _stack
    rules[joining.unstack_p] = _unstack
    rules[joining.tile_p] = _tile
