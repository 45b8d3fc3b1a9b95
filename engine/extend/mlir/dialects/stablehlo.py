"""``jax.extend.mlir.dialects.stablehlo`` (also ``jax._src.lib.mlir.dialects.hlo``): builders of
the StableHLO operations the engine can execute, with MLIR's Python names (``AddOp`` /
``add``). Result types are inferred where StableHLO infers them; the others take the result
type first, as MLIR's generated builders do.

Operations the engine cannot execute (``custom_call``, ``gather``, ``sort``, collectives, ...)
raise NotImplementedError naming the operation when built.

>>> import numpy as np
>>> from engine.extend.mlir import ir
>>> from engine.extend.mlir.dialects import stablehlo as hlo
>>> with ir.Context(), ir.Location.unknown():
...     m = ir.Module.create()
...     with ir.InsertionPoint(m.body):
...         x = hlo.constant(ir.DenseElementsAttr.get(np.float32([1, 2])))
...         y = hlo.add(x, x)
>>> str(y.type)
'tensor<2xf32>'
"""

from __future__ import annotations

from typing import Any, Sequence

from .. import ir
from ..ir import OpView, as_value, ints_of


def register_dialect(context: Any = None, load: bool = True) -> None:
    """Nothing to register: the builders below are always available."""


def _single_or_op(op: OpView) -> Any:
    results = op.operation.results
    if len(results) == 1:
        return results[0]
    return op if not results else results


def _tensor(shape: Sequence[int], like: ir.Type) -> ir.RankedTensorType:
    assert isinstance(like, ir.ShapedType)
    return ir.RankedTensorType(shape, like.element_type)


def _i64s(v: Any) -> ir.DenseI64ArrayAttr:
    return v if isinstance(v, ir.DenseI64ArrayAttr) else ir.DenseI64ArrayAttr(ints_of(v))


def _functional(cls: type, name: str) -> Any:
    def build(*args: Any, **kwargs: Any) -> Any:
        return _single_or_op(cls(*args, **kwargs))

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"``{cls.__name__}(...)``'s result (its results if several)."
    return build


# ---------------------------------------------------------------------------------------------
# Elementwise operations: the result has the (first) operand's type.


def _elementwise_class(class_name: str, mnemonic: str, arity: int) -> type:
    def __init__(self, *operands: Any, loc: Any = None, ip: Any = None) -> None:
        if len(operands) != arity:
            raise TypeError(f"{class_name} takes {arity} operands, got {len(operands)}")
        vals = [as_value(o) for o in operands]
        OpView.__init__(self, self.build(vals, [vals[1 if mnemonic == "clamp" else 0].type], ip=ip))

    return type(class_name, (OpView,), {"OPERATION_NAME": f"stablehlo.{mnemonic}", "__init__": __init__})


_ELEMENTWISE = [
    # (class, mnemonic, functional name, arity)
    ("AbsOp", "abs", "abs", 1),
    ("CbrtOp", "cbrt", "cbrt", 1),
    ("CeilOp", "ceil", "ceil", 1),
    ("CosineOp", "cosine", "cosine", 1),
    ("ExpOp", "exponential", "exponential", 1),
    ("Expm1Op", "exponential_minus_one", "exponential_minus_one", 1),
    ("FloorOp", "floor", "floor", 1),
    ("LogOp", "log", "log", 1),
    ("Log1pOp", "log_plus_one", "log_plus_one", 1),
    ("LogisticOp", "logistic", "logistic", 1),
    ("NegOp", "negate", "negate", 1),
    ("NotOp", "not", "not_", 1),
    ("PopulationCountOp", "popcnt", "popcnt", 1),
    ("RoundOp", "round_nearest_afz", "round_nearest_afz", 1),
    ("RoundNearestEvenOp", "round_nearest_even", "round_nearest_even", 1),
    ("RsqrtOp", "rsqrt", "rsqrt", 1),
    ("SignOp", "sign", "sign", 1),
    ("SineOp", "sine", "sine", 1),
    ("SqrtOp", "sqrt", "sqrt", 1),
    ("TanOp", "tan", "tan", 1),
    ("TanhOp", "tanh", "tanh", 1),
    ("AddOp", "add", "add", 2),
    ("AndOp", "and", "and_", 2),
    ("Atan2Op", "atan2", "atan2", 2),
    ("DivOp", "divide", "divide", 2),
    ("MaxOp", "maximum", "maximum", 2),
    ("MinOp", "minimum", "minimum", 2),
    ("MulOp", "multiply", "multiply", 2),
    ("OrOp", "or", "or_", 2),
    ("PowOp", "power", "power", 2),
    ("RemOp", "remainder", "remainder", 2),
    ("ShiftLeftOp", "shift_left", "shift_left", 2),
    ("ShiftRightArithmeticOp", "shift_right_arithmetic", "shift_right_arithmetic", 2),
    ("ShiftRightLogicalOp", "shift_right_logical", "shift_right_logical", 2),
    ("SubtractOp", "subtract", "subtract", 2),
    ("XorOp", "xor", "xor", 2),
    ("ClampOp", "clamp", "clamp", 3),
]

for _cls, _mn, _fn, _n in _ELEMENTWISE:
    globals()[_cls] = _elementwise_class(_cls, _mn, _n)
    globals()[_fn] = _functional(globals()[_cls], _fn)
ELEMENTWISE_MNEMONICS = frozenset(mn for _, mn, _, _ in _ELEMENTWISE)


class IsFiniteOp(OpView):
    OPERATION_NAME = "stablehlo.is_finite"

    def __init__(self, x: Any, *, loc: Any = None, ip: Any = None):
        x = as_value(x)
        super().__init__(
            self.build([x], [_tensor(x.type.shape, ir.RankedTensorType((), ir.IntegerType(1)))], ip=ip)
        )


# ---------------------------------------------------------------------------------------------
# Comparison and selection.


class ComparisonDirectionAttr(ir.DialectAttr):
    def __init__(self, value: str):
        super().__init__(f"#stablehlo<comparison_direction {value}>")
        self.value = value

    @classmethod
    def get(cls, value: str, context: Any = None) -> "ComparisonDirectionAttr":
        if value not in ("EQ", "NE", "LT", "LE", "GT", "GE"):
            raise ValueError(f"unknown comparison direction {value!r}")
        return cls(value)


class ComparisonTypeAttr(ir.DialectAttr):
    def __init__(self, value: str):
        super().__init__(f"#stablehlo<comparison_type {value}>")
        self.value = value

    @classmethod
    def get(cls, value: str, context: Any = None) -> "ComparisonTypeAttr":
        return cls(value)


class CompareOp(OpView):
    OPERATION_NAME = "stablehlo.compare"

    def __init__(
        self,
        lhs: Any,
        rhs: Any,
        comparison_direction: Any,
        *,
        compare_type: Any = None,
        loc: Any = None,
        ip: Any = None,
    ):
        lhs, rhs = as_value(lhs), as_value(rhs)
        if isinstance(comparison_direction, str):
            comparison_direction = ComparisonDirectionAttr.get(comparison_direction)
        attrs: dict[str, ir.Attribute] = {"comparison_direction": comparison_direction}
        if compare_type is not None:
            attrs["compare_type"] = compare_type
        i1 = ir.RankedTensorType(lhs.type.shape, ir.IntegerType(1))
        super().__init__(self.build([lhs, rhs], [i1], attrs, ip=ip))


class SelectOp(OpView):
    OPERATION_NAME = "stablehlo.select"

    def __init__(self, pred: Any, on_true: Any, on_false: Any, *, loc: Any = None, ip: Any = None):
        t = as_value(on_true)
        super().__init__(self.build([pred, t, on_false], [t.type], ip=ip))


# ---------------------------------------------------------------------------------------------
# Constants, conversions and shapes.


class ConstantOp(OpView):
    OPERATION_NAME = "stablehlo.constant"

    def __init__(self, value: ir.DenseElementsAttr, *, loc: Any = None, ip: Any = None):
        if not isinstance(value, ir.DenseElementsAttr):
            raise TypeError(f"stablehlo.constant takes a DenseElementsAttr, got {type(value).__name__}")
        super().__init__(self.build([], [value.type], {"value": value}, ip=ip))


def _typed_unary(class_name: str, mnemonic: str) -> type:
    """An operation whose result type is given first: ``Op(result_type, operand)``."""

    def __init__(self, result: ir.Type, operand: Any, *, loc: Any = None, ip: Any = None) -> None:
        OpView.__init__(self, self.build([operand], [result], ip=ip))

    return type(class_name, (OpView,), {"OPERATION_NAME": f"stablehlo.{mnemonic}", "__init__": __init__})


ConvertOp = _typed_unary("ConvertOp", "convert")
BitcastConvertOp = _typed_unary("BitcastConvertOp", "bitcast_convert")
ReshapeOp = _typed_unary("ReshapeOp", "reshape")


class BroadcastInDimOp(OpView):
    OPERATION_NAME = "stablehlo.broadcast_in_dim"

    def __init__(
        self, result: ir.Type, operand: Any, broadcast_dimensions: Any, *, loc: Any = None, ip: Any = None
    ):
        attrs = {"broadcast_dimensions": _i64s(broadcast_dimensions)}
        super().__init__(self.build([operand], [result], attrs, ip=ip))


class TransposeOp(OpView):
    OPERATION_NAME = "stablehlo.transpose"

    def __init__(self, operand: Any, permutation: Any, *, loc: Any = None, ip: Any = None):
        x = as_value(operand)
        perm = ints_of(permutation)
        shape = [x.type.shape[p] for p in perm]
        super().__init__(self.build([x], [_tensor(shape, x.type)], {"permutation": _i64s(perm)}, ip=ip))


class ReverseOp(OpView):
    OPERATION_NAME = "stablehlo.reverse"

    def __init__(self, operand: Any, dimensions: Any, *, loc: Any = None, ip: Any = None):
        x = as_value(operand)
        super().__init__(self.build([x], [x.type], {"dimensions": _i64s(dimensions)}, ip=ip))


class IotaOp(OpView):
    OPERATION_NAME = "stablehlo.iota"

    def __init__(self, output: ir.Type, iota_dimension: Any, *, loc: Any = None, ip: Any = None):
        dim = ir.IntegerAttr(ir.IntegerType(64), ints_of(iota_dimension)[0])
        super().__init__(self.build([], [output], {"iota_dimension": dim}, ip=ip))


class SliceOp(OpView):
    OPERATION_NAME = "stablehlo.slice"

    def __init__(
        self,
        operand: Any,
        start_indices: Any,
        limit_indices: Any,
        strides: Any = None,
        *,
        loc: Any = None,
        ip: Any = None,
    ):
        x = as_value(operand)
        start, limit = ints_of(start_indices), ints_of(limit_indices)
        step = ints_of(strides) if strides is not None else (1,) * len(start)
        shape = [max(0, -(-(hi - lo) // s)) for lo, hi, s in zip(start, limit, step)]
        attrs = {"start_indices": _i64s(start), "limit_indices": _i64s(limit), "strides": _i64s(step)}
        super().__init__(self.build([x], [_tensor(shape, x.type)], attrs, ip=ip))


class DynamicSliceOp(OpView):
    OPERATION_NAME = "stablehlo.dynamic_slice"

    def __init__(
        self, operand: Any, start_indices: Sequence[Any], slice_sizes: Any, *, loc: Any = None, ip: Any = None
    ):
        x = as_value(operand)
        sizes = ints_of(slice_sizes)
        attrs = {"slice_sizes": _i64s(sizes)}
        super().__init__(self.build([x, *start_indices], [_tensor(sizes, x.type)], attrs, ip=ip))


class DynamicUpdateSliceOp(OpView):
    OPERATION_NAME = "stablehlo.dynamic_update_slice"

    def __init__(
        self, operand: Any, update: Any, start_indices: Sequence[Any], *, loc: Any = None, ip: Any = None
    ):
        x = as_value(operand)
        super().__init__(self.build([x, update, *start_indices], [x.type], ip=ip))


class ConcatenateOp(OpView):
    OPERATION_NAME = "stablehlo.concatenate"

    def __init__(self, inputs: Sequence[Any], dimension: Any, *, loc: Any = None, ip: Any = None):
        xs = [as_value(v) for v in inputs]
        d = ints_of(dimension)[0]
        shape = list(xs[0].type.shape)
        shape[d] = sum(v.type.shape[d] for v in xs)
        attrs = {"dimension": ir.IntegerAttr(ir.IntegerType(64), d)}
        super().__init__(self.build(xs, [_tensor(shape, xs[0].type)], attrs, ip=ip))


class PadOp(OpView):
    OPERATION_NAME = "stablehlo.pad"

    def __init__(
        self,
        operand: Any,
        padding_value: Any,
        edge_padding_low: Any,
        edge_padding_high: Any,
        interior_padding: Any,
        *,
        loc: Any = None,
        ip: Any = None,
    ):
        x = as_value(operand)
        lo, hi, inner = ints_of(edge_padding_low), ints_of(edge_padding_high), ints_of(interior_padding)
        shape = [l + h + n + max(0, n - 1) * i for n, l, h, i in zip(x.type.shape, lo, hi, inner)]
        attrs = {
            "edge_padding_low": _i64s(lo),
            "edge_padding_high": _i64s(hi),
            "interior_padding": _i64s(inner),
        }
        super().__init__(self.build([x, padding_value], [_tensor(shape, x.type)], attrs, ip=ip))


class DotDimensionNumbers(ir.DialectAttr):
    FIELDS = (
        "lhs_batching_dimensions",
        "rhs_batching_dimensions",
        "lhs_contracting_dimensions",
        "rhs_contracting_dimensions",
    )

    @classmethod
    def get(cls, context: Any = None, **dims: Sequence[int]) -> "DotDimensionNumbers":
        body = ", ".join(f"{f} = [{', '.join(map(str, dims.get(f, ())))}]" for f in cls.FIELDS)
        return cls(f"#stablehlo.dot<{body}>")


class DotGeneralOp(OpView):
    OPERATION_NAME = "stablehlo.dot_general"

    def __init__(
        self,
        result: ir.Type,
        lhs: Any,
        rhs: Any,
        dot_dimension_numbers: Any,
        *,
        precision_config: Any = None,
        algorithm: Any = None,
        loc: Any = None,
        ip: Any = None,
    ):
        if algorithm is not None:
            raise NotImplementedError("stablehlo.dot_general with an algorithm is not supported")
        attrs = {"dot_dimension_numbers": dot_dimension_numbers}
        super().__init__(self.build([lhs, rhs], [result], attrs, ip=ip))


class DotOp(OpView):
    """The legacy ``dot``: contracts ``lhs``'s last axis with ``rhs``'s first (ranks 1 and 2)."""

    OPERATION_NAME = "stablehlo.dot"

    def __init__(
        self,
        result: ir.Type,
        lhs: Any,
        rhs: Any,
        *,
        precision_config: Any = None,
        loc: Any = None,
        ip: Any = None,
    ):
        super().__init__(self.build([lhs, rhs], [result], ip=ip))


class BroadcastOp(OpView):
    OPERATION_NAME = "stablehlo.broadcast"

    def __init__(self, operand: Any, broadcast_sizes: Any, *, loc: Any = None, ip: Any = None):
        x = as_value(operand)
        sizes = ints_of(broadcast_sizes)
        attrs = {"broadcast_sizes": _i64s(sizes)}
        super().__init__(self.build([x], [_tensor([*sizes, *x.type.shape], x.type)], attrs, ip=ip))


def _part_type(t: ir.Type) -> ir.RankedTensorType:
    assert isinstance(t, ir.RankedTensorType) and isinstance(t.element_type, ir.ComplexType)
    return ir.RankedTensorType(t.shape, t.element_type.element_type)


class RealOp(OpView):
    OPERATION_NAME = "stablehlo.real"

    def __init__(self, operand: Any, *, loc: Any = None, ip: Any = None):
        x = as_value(operand)
        super().__init__(self.build([x], [_part_type(x.type)], ip=ip))


class ImagOp(OpView):
    OPERATION_NAME = "stablehlo.imag"

    def __init__(self, operand: Any, *, loc: Any = None, ip: Any = None):
        x = as_value(operand)
        super().__init__(self.build([x], [_part_type(x.type)], ip=ip))


class ComplexOp(OpView):
    OPERATION_NAME = "stablehlo.complex"

    def __init__(self, lhs: Any, rhs: Any, *, loc: Any = None, ip: Any = None):
        x = as_value(lhs)
        t = ir.RankedTensorType(x.type.shape, ir.ComplexType(x.type.element_type))
        super().__init__(self.build([x, rhs], [t], ip=ip))


# ---------------------------------------------------------------------------------------------
# Operations with regions.


class ReturnOp(OpView):
    OPERATION_NAME = "stablehlo.return"

    def __init__(self, results: Sequence[Any], *, loc: Any = None, ip: Any = None):
        super().__init__(self.build(list(results), [], ip=ip))


class ReduceOp(OpView):
    """``ReduceOp(result_types, inputs, init_values, dimensions)``; fill ``body`` with the
    combining function (a block of scalar arguments ending in ``return``)."""

    OPERATION_NAME = "stablehlo.reduce"

    def __init__(
        self,
        result: Sequence[ir.Type],
        inputs: Sequence[Any],
        init_values: Sequence[Any],
        dimensions: Any,
        *,
        loc: Any = None,
        ip: Any = None,
    ):
        attrs = {"dimensions": _i64s(dimensions)}
        super().__init__(self.build([*inputs, *init_values], list(result), attrs, num_regions=1, ip=ip))

    body = property(lambda self: self.operation.regions[0])


class IfOp(OpView):
    OPERATION_NAME = "stablehlo.if"

    def __init__(self, result: Sequence[ir.Type], pred: Any, *, loc: Any = None, ip: Any = None):
        super().__init__(self.build([pred], list(result), num_regions=2, ip=ip))

    true_branch = property(lambda self: self.operation.regions[0])
    false_branch = property(lambda self: self.operation.regions[1])


class WhileOp(OpView):
    """``WhileOp(result_types, operands)``: ``cond`` and ``body`` take the carried values."""

    OPERATION_NAME = "stablehlo.while"

    def __init__(self, result: Sequence[ir.Type], operand: Sequence[Any], *, loc: Any = None, ip: Any = None):
        super().__init__(self.build(list(operand), list(result), num_regions=2, ip=ip))

    cond = property(lambda self: self.operation.regions[0])
    body = property(lambda self: self.operation.regions[1])


for _cls, _fn in [
    (IsFiniteOp, "is_finite"),
    (CompareOp, "compare"),
    (SelectOp, "select"),
    (ConstantOp, "constant"),
    (ConvertOp, "convert"),
    (BitcastConvertOp, "bitcast_convert"),
    (ReshapeOp, "reshape"),
    (BroadcastInDimOp, "broadcast_in_dim"),
    (TransposeOp, "transpose"),
    (ReverseOp, "reverse"),
    (IotaOp, "iota"),
    (SliceOp, "slice"),
    (DynamicSliceOp, "dynamic_slice"),
    (DynamicUpdateSliceOp, "dynamic_update_slice"),
    (ConcatenateOp, "concatenate"),
    (PadOp, "pad"),
    (DotGeneralOp, "dot_general"),
    (DotOp, "dot"),
    (BroadcastOp, "broadcast"),
    (RealOp, "real"),
    (ImagOp, "imag"),
    (ComplexOp, "complex"),
    (ReturnOp, "return_"),
    (ReduceOp, "reduce"),
    (IfOp, "if_"),
    (WhileOp, "while_"),
]:
    globals()[_fn] = _functional(_cls, _fn)


# ---------------------------------------------------------------------------------------------
# StableHLO operations the engine does not execute: building one says so.


def _unsupported(class_name: str, mnemonic: str) -> type:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"stablehlo.{mnemonic} is not supported by the engine's StableHLO builder (the engine "
            "executes modules by translating each operation to its own primitives)"
        )

    return type(class_name, (OpView,), {"OPERATION_NAME": f"stablehlo.{mnemonic}", "__init__": __init__})


for _cls, _mn in [
    ("CustomCallOp", "custom_call"),
    ("GatherOp", "gather"),
    ("ScatterOp", "scatter"),
    ("SortOp", "sort"),
    ("ConvolutionOp", "convolution"),
    ("FftOp", "fft"),
    ("RngOp", "rng"),
    ("RngBitGeneratorOp", "rng_bit_generator"),
    ("ReduceWindowOp", "reduce_window"),
    ("SelectAndScatterOp", "select_and_scatter"),
    ("CaseOp", "case"),
    ("TupleOp", "tuple"),
    ("GetTupleElementOp", "get_tuple_element"),
    ("OptimizationBarrierOp", "optimization_barrier"),
    ("CholeskyOp", "cholesky"),
    ("TriangularSolveOp", "triangular_solve"),
    ("ReducePrecisionOp", "reduce_precision"),
    ("AllReduceOp", "all_reduce"),
    ("AllGatherOp", "all_gather"),
    ("AllToAllOp", "all_to_all"),
    ("CollectivePermuteOp", "collective_permute"),
    ("ReduceScatterOp", "reduce_scatter"),
    ("DynamicBroadcastInDimOp", "dynamic_broadcast_in_dim"),
    ("DynamicReshapeOp", "dynamic_reshape"),
    ("DynamicIotaOp", "dynamic_iota"),
    ("CompositeOp", "composite"),
    ("MapOp", "map"),
]:
    globals()[_cls] = _unsupported(_cls, _mn)
    globals()[_mn if _mn not in ("tuple", "map", "complex") else _mn + "_"] = _functional(
        globals()[_cls], _mn
    )
