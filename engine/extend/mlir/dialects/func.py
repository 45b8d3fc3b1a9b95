"""``jax.extend.mlir.dialects.func``: functions, calls and returns (``FuncOp``, ``CallOp``,
``ReturnOp``, and the ``@func.func(*input_types)`` decorator that builds a function from Python).

>>> from engine.extend.mlir import ir
>>> from engine.extend.mlir.dialects import func, stablehlo as hlo
>>> with ir.Context(), ir.Location.unknown():
...     m = ir.Module.create()
...     f32 = ir.RankedTensorType.get((), ir.F32Type.get())
...     with ir.InsertionPoint(m.body):
...         @func.func(f32)
...         def main(x):
...             return hlo.multiply(x, x)
>>> str(main.func_op.type)
'(tensor<f32>) -> tensor<f32>'
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from .. import ir
from ..ir import OpView, as_value


class FuncOp(OpView):
    OPERATION_NAME = "func.func"

    def __init__(
        self,
        name: str,
        type: ir.FunctionType | tuple[Sequence[ir.Type], Sequence[ir.Type]],
        *,
        visibility: str | None = None,
        body_builder: Callable[["FuncOp"], None] | None = None,
        loc: Any = None,
        ip: Any = None,
    ):
        if not isinstance(type, ir.FunctionType):
            type = ir.FunctionType(*type)
        attrs: dict[str, ir.Attribute] = {"sym_name": ir.StringAttr(name), "function_type": ir.TypeAttr(type)}
        if visibility is not None:
            attrs["sym_visibility"] = ir.StringAttr(visibility)
        super().__init__(self.build([], [], attrs, num_regions=1, ip=ip))
        if body_builder is not None:
            with ir.InsertionPoint(self.add_entry_block()):
                body_builder(self)

    @property
    def type(self) -> ir.FunctionType:
        t = self.attributes["function_type"]
        assert isinstance(t, ir.TypeAttr) and isinstance(t.value, ir.FunctionType)
        return t.value

    @property
    def name(self) -> ir.StringAttr:  # type: ignore[override]  # MLIR's FuncOp.name is the symbol
        attr = self.attributes["sym_name"]
        assert isinstance(attr, ir.StringAttr)
        return attr

    body = property(lambda self: self.operation.regions[0])
    entry_block = property(lambda self: self.operation.regions[0].blocks[0])
    arguments = property(lambda self: self.entry_block.arguments)

    def add_entry_block(self, arg_locs: Any = None) -> ir.Block:
        if len(self.body.blocks):
            raise IndexError("the function already has an entry block")
        return self.body.blocks.append(*self.type.inputs)

    @classmethod
    def from_py_func(
        cls, *inputs: ir.Type, results: Sequence[ir.Type] | None = None, name: str | None = None
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """A decorator: build a function whose body is what the Python function emits (called
        with the block arguments); the decorated name calls it (``func.call``)."""

        def decorator(f: Callable[..., Any]) -> Callable[..., Any]:
            op = cls(name or f.__name__, ir.FunctionType(inputs, results or []))
            with ir.InsertionPoint(op.add_entry_block()):
                outs = f(*op.arguments)
                values = _flat_values(outs)
                ReturnOp(values)
            if results is None:
                op.attributes["function_type"] = ir.TypeAttr(
                    ir.FunctionType(inputs, [v.type for v in values])
                )

            @functools.wraps(f)
            def call(*args: Any) -> Any:
                return _single_or_results(CallOp(op, list(args)))

            call.func_op = op  # type: ignore[attr-defined]
            return call

        return decorator


def _flat_values(outs: Any) -> list[ir.Value]:
    if outs is None:
        return []
    if isinstance(outs, ir.Value):
        return [outs]
    if isinstance(outs, (ir.Operation, OpView)):
        return list(outs.operation.results)
    out: list[ir.Value] = []
    for o in outs:
        out.extend(_flat_values(o))
    return out


def _single_or_results(op: OpView) -> Any:
    results = op.operation.results
    return results[0] if len(results) == 1 else (op if not results else results)


func = FuncOp.from_py_func


class CallOp(OpView):
    """``CallOp(func_op, arguments)`` or ``CallOp(result_types, callee, arguments)``."""

    OPERATION_NAME = "func.call"

    def __init__(
        self,
        callee_or_results: Any,
        arguments_or_callee: Any,
        arguments: Any = None,
        *,
        loc: Any = None,
        ip: Any = None,
    ):
        if isinstance(callee_or_results, FuncOp):
            results = callee_or_results.type.results
            callee = ir.FlatSymbolRefAttr(callee_or_results.name.value)
            args = arguments_or_callee
        else:
            results, callee, args = callee_or_results, arguments_or_callee, arguments
            if isinstance(callee, str):
                callee = ir.FlatSymbolRefAttr(callee)
        super().__init__(self.build([as_value(a) for a in args], list(results), {"callee": callee}, ip=ip))


class ReturnOp(OpView):
    OPERATION_NAME = "func.return"

    def __init__(self, operands: Sequence[Any], *, loc: Any = None, ip: Any = None):
        super().__init__(self.build(list(operands), [], ip=ip))


def call(
    result: Sequence[ir.Type], callee: Any, operands: Sequence[Any], *, loc: Any = None, ip: Any = None
) -> Any:
    return _single_or_results(CallOp(result, callee, operands, loc=loc, ip=ip))


def return_(operands: Sequence[Any], *, loc: Any = None, ip: Any = None) -> ReturnOp:
    return ReturnOp(operands, loc=loc, ip=ip)
