"""StableHLO rules for PRNG keys of the default ``threefry2x32`` implementation: keys are their
uint32 data, ``random_bits`` is JAX's ``_threefry_random_bits_partitionable`` (counters from iotas,
one ``threefry2x32`` call, the two halves xor-ed) and ``threefry2x32`` JAX's rolled-loop lowering
(five trips of four rounds in a ``fori_loop``), each traced and inlined as JAX lowers them."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import prng
from ..random_primitives import (
    random_bits_p,
    random_clone_p,
    random_fold_in_p,
    random_seed_p,
    random_split_p,
    random_unwrap_p,
    random_wrap_p,
)
from ..lax.bit_generator import rng_bit_generator_p, rng_uniform_p
from . import literals
from .lowering import RuleContext, register
from .rules_control import while_loop
from .rules_elementwise import broadcast_in_dim, compare, hlo_op
from .rules_structural import concatenate, reshape, slice_op
from .syntax import Value

U32 = "tensor<ui32>"


@register(random_wrap_p)
@register(random_unwrap_p)
@register(random_clone_p)
def _identity(ctx: RuleContext, x: Value, **_: Any) -> list[Value]:
    return [x]


def _scalar_at(ctx: RuleContext, v: Value, k: int, n: int) -> Value:
    """``v[k]`` of a length-``n`` uint32 vector: a one-element slice, then a reshape."""
    return reshape(ctx, slice_op(ctx, v, [k], [k + 1], "tensor<1xui32>"), U32)


def _bcast(ctx: RuleContext, v: Value, shape: Sequence[int]) -> Value:
    return broadcast_in_dim(ctx, v, shape, ()) if shape else v


def _u32(ctx: RuleContext, value: int) -> Value:
    return ctx.constant(np.uint32(value), np.uint32)


def _rounds_call(ctx: RuleContext, shape: Sequence[int], carry_types: Sequence[str]) -> Any:
    """The fori_loop body JAX traces (``closed_call``): ``i + 1``, four rounds, the key schedule."""
    t = literals.tensor_type(shape, np.uint32)

    def body(c: RuleContext, args: Sequence[Value]) -> list[Value]:
        i, x0, x1, ks0, ks1, ks2, rot0, rot1 = args
        i1 = hlo_op(c, "stablehlo.add", i, c.constant(np.int32(1), np.int32), out_type="tensor<i32>")
        for k in range(4):
            r = _scalar_at(c, rot0, k, 4)
            x0 = hlo_op(c, "stablehlo.add", x0, x1, out_type=t)
            left = hlo_op(c, "stablehlo.shift_left", x1, _bcast(c, r, shape), out_type=t)
            back = hlo_op(c, "stablehlo.subtract", _u32(c, 32), r, out_type=U32)
            right = hlo_op(c, "stablehlo.shift_right_logical", x1, _bcast(c, back, shape), out_type=t)
            x1 = hlo_op(
                c, "stablehlo.xor", x0, hlo_op(c, "stablehlo.or", left, right, out_type=t), out_type=t
            )
        new0 = hlo_op(c, "stablehlo.add", x0, _bcast(c, ks0, shape), out_type=t)
        new1 = hlo_op(c, "stablehlo.add", x1, _bcast(c, ks1, shape), out_type=t)
        step = hlo_op(c, "stablehlo.add", i, c.constant(np.int32(1), np.int32), out_type="tensor<i32>")
        step = _bcast(c, hlo_op(c, "stablehlo.convert", step, out_type=U32), shape)
        new1 = hlo_op(c, "stablehlo.add", new1, step, out_type=t)
        return [i1, new0, new1, ks1, ks2, ks0, rot1, rot0]

    return ctx.module.function(
        ("closed_call", "threefry_rounds", t), "closed_call", carry_types, lambda b: body(ctx.at(b), b.args)
    )


def _threefry2x32(
    ctx: RuleContext, k1: Value, k2: Value, x0: Value, x1: Value, shape: Sequence[int]
) -> list[Value]:
    t = literals.tensor_type(shape, np.uint32)

    def body(c: RuleContext, args: Sequence[Value]) -> list[Value]:
        key1, key2, a, b = args
        rot0 = c.constant(np.array([13, 15, 26, 6], np.uint32), np.uint32)
        rot1 = c.constant(np.array([17, 29, 16, 24], np.uint32), np.uint32)
        key3 = hlo_op(
            c,
            "stablehlo.xor",
            hlo_op(c, "stablehlo.xor", key1, key2, out_type=U32),
            _u32(c, 0x1BD11BDA),
            out_type=U32,
        )
        a = hlo_op(c, "stablehlo.add", a, _bcast(c, key1, shape), out_type=t)
        b = hlo_op(c, "stablehlo.add", b, _bcast(c, key2, shape), out_type=t)
        i = c.constant(np.int32(0), np.int32)  # (the fori_loop's counter, a carry of its scan)
        init = [c.constant(np.int32(0), np.int32), i, a, b, key2, key3, key1, rot0, rot1]
        types = [v.type for v in init[1:]]

        def cond(cc: RuleContext, vals: list[Value]) -> Value:
            return compare(cc, "LT", vals[0], cc.constant(np.int32(5), np.int32), np.int32, "tensor<i1>")

        def step(cc: RuleContext, vals: list[Value]) -> list[Value]:
            outs = cc.call(_rounds_call(cc, shape, types), vals[1:])
            n = hlo_op(
                cc, "stablehlo.add", vals[0], cc.constant(np.int32(1), np.int32), out_type="tensor<i32>"
            )
            return [n, *outs]

        outs = while_loop(c, init, cond, step)
        return [outs[2], outs[3]]

    fn = ctx.module.function(
        ("threefry2x32", t), "threefry2x32", [U32, U32, t, t], lambda b: body(ctx.at(b), b.args)
    )
    return ctx.call(fn, [k1, k2, x0, x1])


def _check_partitionable(name: str) -> None:
    if not prng.partitionable():
        raise NotImplementedError(
            f"StableHLO text for {name} is implemented for jax_threefry_partitionable=True only"
        )


@register(random_bits_p)
def _random_bits(ctx: RuleContext, key: Value, *, bit_width: int, shape: Any) -> list[Value]:
    key_aval = ctx.avals_in[0]
    _check_partitionable("random_bits")
    if getattr(key_aval.dtype, "words", 2) != 2 or key_aval.shape != () or bit_width != 32 or not shape:
        raise NotImplementedError(
            "StableHLO text for random_bits is implemented for one threefry key and 32-bit, non-scalar "
            f"draws (got key shape {key_aval.shape}, bit_width={bit_width}, shape={tuple(shape)})"
        )
    k1, k2 = _scalar_at(ctx, key, 0, 2), _scalar_at(ctx, key, 1, 2)
    hi, lo = _iota_2x32(ctx, shape)
    bits1, bits2 = _threefry2x32(ctx, k1, k2, hi, lo, shape)
    return [hlo_op(ctx, "stablehlo.xor", bits1, bits2, out_type=literals.tensor_type(shape, np.uint32))]


def _iota_2x32(ctx: RuleContext, shape: Sequence[int]) -> tuple[Value, Value]:
    """JAX's ``iota_2x32_shape``: each element's flat index as (high, low) uint32 halves."""
    u64 = literals.tensor_type(shape, np.uint64)
    iotas = [ctx.emit([u64], _iota_render(d, u64))[0] for d in range(len(shape))]
    strides = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
    terms = []
    for io, stride in zip(iotas, strides):
        s = broadcast_in_dim(ctx, ctx.constant(np.uint64(stride), np.uint64), shape, ())
        terms.append(hlo_op(ctx, "stablehlo.multiply", s, io, out_type=u64))
    counts = terms[0]
    for term in terms[1:]:
        counts = hlo_op(ctx, "stablehlo.add", counts, term, out_type=u64)
    shift = broadcast_in_dim(ctx, ctx.constant(np.uint64(32), np.uint64), shape, ())
    shifted = hlo_op(ctx, "stablehlo.shift_right_logical", counts, shift, out_type=u64)
    t = literals.tensor_type(shape, np.uint32)
    lo = hlo_op(ctx, "stablehlo.convert", counts, out_type=t)
    return hlo_op(ctx, "stablehlo.convert", shifted, out_type=t), lo


def _iota_render(d: int, ty: str) -> Any:
    return lambda p: f"stablehlo.iota dim = {d} : {ty}"


@register(random_split_p)
def _random_split(ctx: RuleContext, key: Value, *, shape: Any) -> list[Value]:
    """JAX's jitted ``_threefry_split``: threefry of the counters, the halves stacked last."""
    _check_partitionable("random_split")
    if ctx.avals_in[0].shape != () or not shape or getattr(ctx.avals_in[0].dtype, "words", 2) != 2:
        raise NotImplementedError("StableHLO text for random_split is implemented for one threefry key")
    shape = tuple(shape)

    def body(c: RuleContext, args: Sequence[Value]) -> list[Value]:
        (k,) = args
        k1, k2 = _scalar_at(c, k, 0, 2), _scalar_at(c, k, 1, 2)
        hi, lo = _iota_2x32(c, shape)
        bits = _threefry2x32(c, k1, k2, hi, lo, shape)
        parts = [broadcast_in_dim(c, b, (*shape, 1), range(len(shape))) for b in bits]
        one = ctx.avals_in[0].update(shape=(*shape, 1), dtype=np.dtype(np.uint32))
        return [concatenate(c, parts, [one, one], len(shape))]

    return ctx.cached_call("_threefry_split", [key], body, key=("pjit", shape))


@register(random_fold_in_p)
def _random_fold_in(ctx: RuleContext, key: Value, data: Value) -> list[Value]:
    """JAX's jitted ``_threefry_fold_in``: threefry of the uint32 data's seed words (high, low)
    under the key, the two one-element halves concatenated."""
    _check_partitionable("random_fold_in")
    if (
        ctx.avals_in[0].shape != ()
        or ctx.avals_in[1].shape != ()
        or getattr(ctx.avals_in[0].dtype, "words", 2) != 2
    ):
        raise NotImplementedError(
            "StableHLO text for random_fold_in is implemented for one threefry key and datum"
        )

    def body(c: RuleContext, args: Sequence[Value]) -> list[Value]:
        k, d = args
        high = hlo_op(c, "stablehlo.shift_right_logical", d, _u32(c, 32), out_type=U32)
        high = broadcast_in_dim(c, high, (1,), ())
        low = broadcast_in_dim(c, hlo_op(c, "stablehlo.and", d, _u32(c, 0xFFFFFFFF), out_type=U32), (1,), ())
        one = ctx.avals_in[0].update(shape=(1,), dtype=np.dtype(np.uint32))
        seed = concatenate(c, [high, low], [one, one], 0)
        k1, k2 = _scalar_at(c, k, 0, 2), _scalar_at(c, k, 1, 2)
        x0, x1 = (slice_op(c, seed, [i], [i + 1], "tensor<1xui32>") for i in (0, 1))
        return [concatenate(c, _threefry2x32(c, k1, k2, x0, x1, (1,)), [one, one], 0)]

    return ctx.cached_call("_threefry_fold_in", [key, data], body, key=("pjit",))


@register(random_seed_p)
def _random_seed(ctx: RuleContext, seed: Value, **_: Any) -> list[Value]:
    """JAX's ``threefry_seed`` for an int32 seed: its high and low words as the key (each operation
    located as the traced function's equation that makes it, which names it in HLO)."""
    if ctx.avals_in[0].shape != () or np.dtype(ctx.avals_in[0].dtype) != np.int32:
        raise NotImplementedError("StableHLO text for random_seed is implemented for one int32 seed")
    i32 = "tensor<i32>"

    def at(v: Value, source: str) -> Value:
        assert v.op is not None
        v.op.source = source
        return v

    def const(value: Any, dtype: Any) -> Value:
        return at(ctx.constant(value, dtype), "constant")

    def convert(x: Value) -> Value:
        return at(hlo_op(ctx, "stablehlo.convert", x, out_type=U32), "convert_element_type")

    high = hlo_op(ctx, "stablehlo.shift_right_logical", seed, const(np.int32(32), np.int32), out_type=i32)
    at(high, "shift_right_logical")
    k1 = at(broadcast_in_dim(ctx, convert(high), (1,), ()), "broadcast_in_dim")
    if ctx.avals_in[0].weak_type:  # (seed & uint32(0xFFFFFFFF) promotes a weak int to uint32)
        low = convert(seed)
        mask = at(_u32(ctx, 0xFFFFFFFF), "constant")
        low = at(hlo_op(ctx, "stablehlo.and", low, mask, out_type=U32), "and")
    else:  # (... and an int32 to int32, the mask wrapping to -1, converted after)
        low = at(hlo_op(ctx, "stablehlo.and", seed, const(np.int32(-1), np.int32), out_type=i32), "and")
        low = convert(low)
    k2 = at(broadcast_in_dim(ctx, low, (1,), ()), "broadcast_in_dim")
    one = ctx.avals_in[0].update(shape=(1,), dtype=np.dtype(np.uint32))
    return [at(concatenate(ctx, [k1, k2], [one, one], 0), "concatenate")]


@register(rng_bit_generator_p)
def _rng_bit_generator(
    ctx: RuleContext, key: Value, *, shape: Any, dtype: Any, algorithm: Any, out_sharding: Any
) -> list[Value]:
    """JAX's lowering: a ``uint32[4]`` key goes to XLA as ``uint64[2]`` (reshaped, bitcast) and the
    advanced key comes back the same way."""
    key_aval, bits_aval = ctx.avals_in[0], ctx.avals_out[1]
    if out_sharding is not None or key_aval.shape != (4,) or np.dtype(key_aval.dtype) != np.uint32:
        raise NotImplementedError(
            "StableHLO text of rng_bit_generator is implemented for a uint32[4] key and no out_sharding"
        )
    u64 = literals.tensor_type((2,), np.uint64)
    pairs = literals.tensor_type((2, 2), np.uint32)
    key = hlo_op(ctx, "stablehlo.bitcast_convert", reshape(ctx, key, pairs), out_type=u64)
    name = {0: "DEFAULT", 1: "THREE_FRY", 2: "PHILOX"}[int(algorithm)]
    bits_type = literals.aval_type(bits_aval)
    new_key, bits = ctx.emit(
        [u64, bits_type],
        lambda p: (
            f"stablehlo.rng_bit_generator {p(key)}, algorithm = {name} : ({u64}) -> ({u64}, {bits_type})"
        ),
        result_hints=("output_state", "output"),
    )
    new_key = hlo_op(ctx, "stablehlo.bitcast_convert", new_key, out_type=pairs)
    return [reshape(ctx, new_key, literals.aval_type(key_aval)), bits]


@register(rng_uniform_p)
def _rng_uniform(ctx: RuleContext, a: Value, b: Value, *, shape: Any) -> list[Value]:
    """XLA's stateful ``rng`` of the output's shape (an int64 constant)."""
    dims = ctx.constant(np.array(ctx.avals_out[0].shape, np.int64), np.int64)
    ty = ctx.out_types[0]
    sig = f"({a.type}, {b.type}, {dims.type}) -> {ty}"
    return ctx.emit(
        [ty], lambda p: f"stablehlo.rng {p(a)}, {p(b)}, {p(dims)}, distribution = UNIFORM : {sig}"
    )
