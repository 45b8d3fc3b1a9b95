"""Running StableHLO modules on the engine: each operation is translated to one of the engine's
primitives (``stablehlo.add`` is ``add_p``, ``stablehlo.reduce`` with an ``add`` body is
``reduce_sum_p``, ``stablehlo.if`` is ``lax.cond``, ...).

Two evaluators apply the primitives:

- ``Binding`` binds them, so a module runs inside whatever transformation is active: a custom
  primitive's lowering rule runs inside the engine's ``jit`` (staged into its jaxpr, compiled
  with numba or interpreted), under ``grad`` or ``vmap``.
- ``Concrete`` calls their numpy implementations on numpy arrays of exactly the module's
  types (``tensor<f64>`` stays float64), for modules compiled and executed as programs
  (``jax._src.lib.xla_client``).

An operation without a translation raises NotImplementedError naming it; nothing is guessed.

>>> import numpy as np
>>> from engine.extend.mlir import ir
>>> from engine.extend.mlir.dialects import func, stablehlo as hlo
>>> with ir.Context(), ir.Location.unknown():
...     m = ir.Module.create()
...     f64 = ir.RankedTensorType.get((), ir.F64Type.get())
...     with ir.InsertionPoint(m.body):
...         @func.func(f64, f64)
...         def main(x, y):
...             return hlo.add(hlo.sine(x), y)
>>> run_module(m, [np.float64(1.0), np.float64(2.0)])
[array(2.84147098)]
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from ... import core
from ...lax.dot_general import dot_general_p
from ...lax import complex_numbers as cx
from ...lax.accuracy import OPS as ACCURACY_OPS
from ...lax import dynamic_slicing as ds
from ...lax import elementwise as ew
from ...lax import joining as jn
from ...lax import reductions as rd
from ...lax import slicing as sl
from ...lax import sorting as so
from ...lax import structural as st
from . import ir

# ---------------------------------------------------------------------------------------------
# Evaluators.


class Binding:
    """Binds the engine's primitives: traceable (jit, grad, vmap see ordinary primitives)."""

    def apply(self, prim: core.Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        return prim.bind(*args, **params)

    def dtype(self, t: ir.Type) -> np.dtype:
        return core.canonical_dtype(ir.numpy_dtype(t))

    def constant(self, a: np.ndarray) -> Any:
        return core.Array(a)

    def cond(self, pred: Any, true_fn: Callable[[], list], false_fn: Callable[[], list]) -> list:
        from ... import lax

        return list(lax.cond(pred, true_fn, false_fn))

    def while_loop(self, cond_fn: Callable[[list], Any], body_fn: Callable[[list], list], init: list) -> list:
        from ... import lax

        out = lax.while_loop(lambda c: cond_fn(list(c)), lambda c: tuple(body_fn(list(c))), tuple(init))
        return list(out)


class Concrete:
    """Calls the primitives' numpy implementations on numpy arrays of the module's own dtypes."""

    def apply(self, prim: core.Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
        return np.asarray(core.impl_rules[prim](*args, **params))

    def dtype(self, t: ir.Type) -> np.dtype:
        return ir.numpy_dtype(t)

    def constant(self, a: np.ndarray) -> Any:
        return a

    def cond(self, pred: Any, true_fn: Callable[[], list], false_fn: Callable[[], list]) -> list:
        return true_fn() if bool(pred) else false_fn()

    def while_loop(self, cond_fn: Callable[[list], Any], body_fn: Callable[[list], list], init: list) -> list:
        carry = init
        while bool(cond_fn(carry)):
            carry = body_fn(carry)
        return carry


Evaluator = Binding | Concrete


# ---------------------------------------------------------------------------------------------
# Running functions and blocks.


def _module_of(op: ir.Operation) -> ir.Operation:
    while op.parent is not None and op.parent.owner is not None:
        op = op.parent.owner
    return op


def _function(module_op: ir.Operation, name: str) -> ir.Operation:
    for op in module_op.regions[0].blocks[0].operations:
        if ir.symbol_name(op) == name:
            if op.name != "func.func":
                raise NotImplementedError(f"calling {op.name} @{name}: only func.func is supported")
            return op
    raise ValueError(f"no function @{name} in the module")


def run_function(fn: ir.Operation | ir.OpView, args: Sequence[Any], ev: Evaluator) -> list:
    """The results of a ``func.func`` applied to ``args`` (values of the evaluator's kind)."""
    fn = fn.operation
    block = fn.regions[0].blocks[0]
    if len(args) != len(block.arguments):
        raise TypeError(f"@{ir.symbol_name(fn)} takes {len(block.arguments)} arguments, got {len(args)}")
    return run_block(block, list(args), ev)


def run_block(block: ir.Block, args: Sequence[Any], ev: Evaluator, env: dict | None = None) -> list:
    env = dict(env or {})
    for a, v in zip(block.arguments, args):
        env[a] = v
    for op in block.operations:
        ins = [env[v] for v in op.operands]
        if op.name in ("func.return", "stablehlo.return"):
            return ins
        rule = _rules.get(op.name)
        if rule is None:
            raise NotImplementedError(
                f"{op.name} is not supported by the engine's StableHLO executor (no translation "
                "to the engine's primitives)"
            )
        outs = rule(ev, op, ins, env)
        if len(outs) != len(op.results):
            raise AssertionError(f"{op.name}: {len(outs)} results for {len(op.results)}")
        for r, o in zip(op.results, outs):
            env[r] = o
    raise ValueError("a block does not end with a return")


def run_module(module: ir.Module, args: Sequence[Any], name: str = "main") -> list[np.ndarray]:
    """Execute a module's function (``main`` by default) on concrete arguments, computing in
    the module's own dtypes; numpy results."""
    fn = _function(module.operation, name)
    block = fn.regions[0].blocks[0]
    if len(args) != len(block.arguments):
        raise TypeError(f"@{name} takes {len(block.arguments)} arguments, got {len(args)}")
    typed = []
    for a, x in zip(block.arguments, args):
        x = np.asarray(x)
        t = a.type
        assert isinstance(t, ir.ShapedType)
        if tuple(x.shape) != t.shape:
            raise TypeError(f"@{name}: an argument of shape {x.shape} for a parameter of type {t}")
        typed.append(x.astype(ir.numpy_dtype(t), copy=False))
    return [np.asarray(o) for o in run_function(fn, typed, Concrete())]


# ---------------------------------------------------------------------------------------------
# The translation table: operation name -> rule(evaluator, op, operand values, env) -> results.

_rules: dict[str, Callable[[Evaluator, ir.Operation, list, dict], list]] = {}


def _attr_ints(op: ir.Operation, name: str) -> tuple[int, ...]:
    return ir.ints_of(op.attributes[name])


def _result_type(op: ir.Operation, i: int = 0) -> ir.RankedTensorType:
    t = op.results[i].type
    assert isinstance(t, ir.RankedTensorType)
    return t


_ELEMENTWISE = {
    "abs": ew.abs_p,
    "cbrt": ew.cbrt_p,
    "ceil": ew.ceil_p,
    "cosine": ew.cos_p,
    "exponential": ew.exp_p,
    "exponential_minus_one": ew.expm1_p,
    "floor": ew.floor_p,
    "is_finite": ew.is_finite_p,
    "log": ew.log_p,
    "log_plus_one": ew.log1p_p,
    "logistic": ew.logistic_p,
    "negate": ew.neg_p,
    "not": ew.not_p,
    "popcnt": ew.population_count_p,
    "rsqrt": ew.rsqrt_p,
    "sign": ew.sign_p,
    "sine": ew.sin_p,
    "sqrt": ew.sqrt_p,
    "tan": ew.tan_p,
    "tanh": ew.tanh_p,
    "add": ew.add_p,
    "and": ew.and_p,
    "atan2": ew.atan2_p,
    "divide": ew.div_p,
    "maximum": ew.max_p,
    "minimum": ew.min_p,
    "multiply": ew.mul_p,
    "or": ew.or_p,
    "power": ew.pow_p,
    "remainder": ew.rem_p,
    "shift_left": ew.shift_left_p,
    "shift_right_arithmetic": ew.shift_right_arithmetic_p,
    "shift_right_logical": ew.shift_right_logical_p,
    "subtract": ew.sub_p,
    "xor": ew.xor_p,
    "clamp": ew.clamp_p,
}


def _elementwise(prim: core.Primitive) -> Callable:
    params = _DEFAULT_PARAMS.get(prim.name, {})  # (JAX's defaults, which its lax binders add)
    return lambda ev, op, xs, env: [ev.apply(prim, xs, params)]


_DEFAULT_PARAMS: dict[str, dict] = {
    **{n: {"accuracy": None} for n in ACCURACY_OPS},
    "mul": {"out_dtype": None},
}


for _name, _prim in _ELEMENTWISE.items():
    _rules[f"stablehlo.{_name}"] = _elementwise(_prim)
_rules["stablehlo.round_nearest_afz"] = lambda ev, op, xs, env: [
    ev.apply(ew.round_p, xs, {"rounding_method": 0})
]
_rules["stablehlo.round_nearest_even"] = lambda ev, op, xs, env: [
    ev.apply(ew.round_p, xs, {"rounding_method": 1})
]

_COMPARE = {"EQ": ew.eq_p, "NE": ew.ne_p, "LT": ew.lt_p, "LE": ew.le_p, "GT": ew.gt_p, "GE": ew.ge_p}
_TOTAL_ORDER = {
    "EQ": (so.eq_to_p, False),
    "NE": (so.eq_to_p, False),
    "LT": (so.lt_to_p, False),
    "LE": (so.le_to_p, False),
    "GT": (so.lt_to_p, True),
    "GE": (so.le_to_p, True),
}


def _compare(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    m = re.search(r"comparison_direction (\w+)", str(op.attributes["comparison_direction"]))
    if m is None or m.group(1) not in _COMPARE:
        raise NotImplementedError(f"stablehlo.compare with {op.attributes['comparison_direction']}")
    kind = str(op.attributes.get("compare_type", ""))
    if "TOTALORDER" in kind:  # the total-order primitives; GT/GE swap operands, NE negates EQ
        direction = m.group(1)
        prim, swap = _TOTAL_ORDER[direction]
        out = ev.apply(prim, xs[::-1] if swap else xs, {})
        return [ev.apply(ew.not_p, [out], {}) if direction == "NE" else out]
    signed = ir.numpy_dtype(op.operands[0].type).kind == "i"
    if ("UNSIGNED" in kind and signed) or (
        kind.endswith("SIGNED>") and "UNSIGNED" not in kind and not signed
    ):
        # (signless integers hold numpy's signed values: comparing them as unsigned would differ)
        raise NotImplementedError(f"stablehlo.compare of {op.operands[0].type} with {kind}")
    return [ev.apply(_COMPARE[m.group(1)], xs, {})]


_rules["stablehlo.compare"] = _compare
_rules["stablehlo.select"] = lambda ev, op, xs, env: [ev.apply(st.select_n_p, [xs[0], xs[2], xs[1]], {})]


def _constant(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    attr = op.attributes["value"]
    assert isinstance(attr, ir.DenseElementsAttr)
    return [ev.constant(attr.array)]


_rules["stablehlo.constant"] = _constant
_rules["stablehlo.convert"] = lambda ev, op, xs, env: [
    ev.apply(
        st.convert_element_type_p,
        xs,
        {"new_dtype": ev.dtype(_result_type(op)), "weak_type": False, "sharding": None},
    )
]
_rules["stablehlo.bitcast_convert"] = lambda ev, op, xs, env: [
    ev.apply(st.bitcast_convert_type_p, xs, {"new_dtype": ev.dtype(_result_type(op))})
]
_rules["stablehlo.reshape"] = lambda ev, op, xs, env: [
    ev.apply(st.reshape_p, xs, {"new_sizes": _result_type(op).shape, "dimensions": None, "sharding": None})
]
_rules["stablehlo.broadcast_in_dim"] = lambda ev, op, xs, env: [
    ev.apply(
        st.broadcast_in_dim_p,
        xs,
        {
            "shape": _result_type(op).shape,
            "broadcast_dimensions": _attr_ints(op, "broadcast_dimensions"),
            "sharding": None,
        },
    )
]
_rules["stablehlo.transpose"] = lambda ev, op, xs, env: [
    ev.apply(st.transpose_p, xs, {"permutation": _attr_ints(op, "permutation")})
]
_rules["stablehlo.reverse"] = lambda ev, op, xs, env: [
    ev.apply(st.rev_p, xs, {"dimensions": _attr_ints(op, "dimensions")})
]


def _iota(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    t = _result_type(op)
    params = {
        "dtype": ev.dtype(t),
        "shape": t.shape,
        "dimension": _attr_ints(op, "iota_dimension")[0],
        "sharding": None,
    }
    return [ev.apply(st.iota_p, [], params)]


_rules["stablehlo.iota"] = _iota


def _slice(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    strides = _attr_ints(op, "strides") if "strides" in op.attributes else None
    params = {
        "start_indices": _attr_ints(op, "start_indices"),
        "limit_indices": _attr_ints(op, "limit_indices"),
        "strides": None if strides is None or all(s == 1 for s in strides) else strides,
    }
    return [ev.apply(sl.slice_p, xs, params)]


_rules["stablehlo.slice"] = _slice
_rules["stablehlo.dynamic_slice"] = lambda ev, op, xs, env: [
    ev.apply(ds.dynamic_slice_p, xs, {"slice_sizes": _attr_ints(op, "slice_sizes")})
]
_rules["stablehlo.dynamic_update_slice"] = lambda ev, op, xs, env: [
    ev.apply(ds.dynamic_update_slice_p, xs, {})
]
_rules["stablehlo.concatenate"] = lambda ev, op, xs, env: [
    ev.apply(jn.concatenate_p, xs, {"dimension": _attr_ints(op, "dimension")[0]})
]
_rules["stablehlo.pad"] = lambda ev, op, xs, env: [
    ev.apply(
        st.pad_p,
        xs,
        {
            "padding_config": tuple(
                zip(
                    _attr_ints(op, "edge_padding_low"),
                    _attr_ints(op, "edge_padding_high"),
                    _attr_ints(op, "interior_padding"),
                )
            )
        },
    )
]


_DOT_DEFAULTS = {"precision": None, "preferred_element_type": None, "out_sharding": None}
_REDUCER_DEFAULTS = {rd.reduce_sum_p: {"out_sharding": None}}


def _dot_general(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    text = str(op.attributes["dot_dimension_numbers"])

    def dims(field: str) -> tuple[int, ...]:
        m = re.search(field + r"\s*=\s*\[([^\]]*)\]", text)
        return tuple(int(d) for d in m.group(1).split(",") if d.strip()) if m else ()

    dnums = (
        (dims("lhs_contracting_dimensions"), dims("rhs_contracting_dimensions")),
        (dims("lhs_batching_dimensions"), dims("rhs_batching_dimensions")),
    )
    out = ev.apply(dot_general_p, xs, _DOT_DEFAULTS | {"dimension_numbers": dnums})
    want = ev.dtype(_result_type(op))
    if np.dtype(out.dtype) != want:
        out = ev.apply(
            st.convert_element_type_p, [out], {"new_dtype": want, "weak_type": False, "sharding": None}
        )
    return [out]


_rules["stablehlo.dot_general"] = _dot_general


def _dot(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    lhs_t, rhs_t = op.operands[0].type, op.operands[1].type
    assert isinstance(lhs_t, ir.ShapedType) and isinstance(rhs_t, ir.ShapedType)
    if not (1 <= lhs_t.rank <= 2 and 1 <= rhs_t.rank <= 2):
        raise NotImplementedError(f"stablehlo.dot of ranks {lhs_t.rank} and {rhs_t.rank} (1 or 2 each)")
    dnums = (((lhs_t.rank - 1,), (0,)), ((), ()))
    return [ev.apply(dot_general_p, xs, _DOT_DEFAULTS | {"dimension_numbers": dnums})]


def _broadcast(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    t = _result_type(op)
    rank = len(op.operands[0].type.shape)  # type: ignore[attr-defined]
    dims = tuple(range(t.rank - rank, t.rank))
    return [
        ev.apply(
            st.broadcast_in_dim_p, xs, {"shape": t.shape, "broadcast_dimensions": dims, "sharding": None}
        )
    ]


_rules["stablehlo.dot"] = _dot
_rules["stablehlo.broadcast"] = _broadcast
_rules["stablehlo.real"] = lambda ev, op, xs, env: [ev.apply(cx.real_p, xs, {})]
_rules["stablehlo.imag"] = lambda ev, op, xs, env: [ev.apply(cx.imag_p, xs, {})]
_rules["stablehlo.complex"] = lambda ev, op, xs, env: [ev.apply(cx.complex_p, xs, {})]

# A reduce whose body combines its two scalar arguments with one of these is that reduction.
_REDUCERS = {
    "stablehlo.add": (rd.reduce_sum_p, ew.add_p),
    "stablehlo.multiply": (rd.reduce_prod_p, ew.mul_p),
    "stablehlo.maximum": (rd.reduce_max_p, ew.max_p),
    "stablehlo.minimum": (rd.reduce_min_p, ew.min_p),
    "stablehlo.and": (rd.reduce_and_p, ew.and_p),
    "stablehlo.or": (rd.reduce_or_p, ew.or_p),
}


def _reduce(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    body = op.regions[0].blocks[0]
    ops = body.operations
    if (
        len(xs) != 2
        or len(ops) != 2
        or ops[0].name not in _REDUCERS
        or set(map(id, ops[0].operands)) != set(map(id, body.arguments))
        or ops[1].name != "stablehlo.return"
        or ops[1].operands != [ops[0].results[0]]
    ):
        names = [o.name for o in ops]
        raise NotImplementedError(
            f"stablehlo.reduce of {len(xs) // 2} operand(s) with the body {names}: the engine executes "
            "single-operand reductions whose body is one add, multiply, maximum, minimum, and or or"
        )
    reduce_p, combine_p = _REDUCERS[ops[0].name]
    x, init = xs
    out_t = _result_type(op)
    r = ev.apply(reduce_p, [x], {"axes": _attr_ints(op, "dimensions"), **_REDUCER_DEFAULTS.get(reduce_p, {})})
    # XLA folds the init value in as one more operand of the combiner.
    init_b = ev.apply(
        st.broadcast_in_dim_p, [init], {"shape": out_t.shape, "broadcast_dimensions": (), "sharding": None}
    )
    return [ev.apply(combine_p, [r, init_b], _DEFAULT_PARAMS.get(combine_p.name, {}))]


_rules["stablehlo.reduce"] = _reduce


def _if(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    true_block, false_block = op.regions[0].blocks[0], op.regions[1].blocks[0]
    # Branches see the enclosing values (StableHLO regions capture implicitly).
    return ev.cond(
        xs[0], lambda: run_block(true_block, [], ev, env), lambda: run_block(false_block, [], ev, env)
    )


def _while(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    cond_block, body_block = op.regions[0].blocks[0], op.regions[1].blocks[0]
    return ev.while_loop(
        lambda c: run_block(cond_block, c, ev, env)[0], lambda c: run_block(body_block, c, ev, env), xs
    )


_rules["stablehlo.if"] = _if
_rules["stablehlo.while"] = _while


def _call(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    callee = op.attributes["callee"]
    assert isinstance(callee, ir.FlatSymbolRefAttr)
    return run_function(_function(_module_of(op), callee.value), xs, ev)


_rules["func.call"] = _call


def _jaxpr_call(ev: Evaluator, op: ir.Operation, xs: list, env: dict) -> list:
    from ...ir import eval_jaxpr

    closed = getattr(op.attributes["jaxpr"], "closed", None)
    if closed is None:  # parsed from text: the jaxpr itself did not come along
        raise NotImplementedError(
            "engine.jaxpr_call (from mlir.lower_fun) runs only in the module built in this process, "
            "not in one parsed from text"
        )
    if isinstance(ev, Concrete):
        outs = eval_jaxpr(closed.jaxpr, [core.Array(x) for x in xs], closed.consts)
        return [core.to_numpy(o) for o in outs]
    return eval_jaxpr(closed.jaxpr, xs, closed.consts)


_rules["engine.jaxpr_call"] = _jaxpr_call
