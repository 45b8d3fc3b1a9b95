"""XLA's expansion of CHLO operations (``chlo.cosh``, ``chlo.atan``, ...) into StableHLO ones before
canonicalization, as JAX 0.10.2's HLO text shows it (recorded in tests/hlo_text): each operation
replaced in place by the operations its legalization pattern builds, in the order it builds them,
all located as the CHLO operation was (``cosh.5``); a constant it makes is a splat of the operand's
shape (a scalar broadcast, as the converter prints it), and one the pattern computes from another
(``log(0.5)``) is the folded value. ``xla_canonical`` then treats them as any other operations.

Only the expansions recorded are known; another CHLO operation stays as it is (and is refused).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .syntax import Op, Spec, Value
from .xla_canonical import _parse_type, _refuse

_FLOATS = {"f32": np.float32, "f64": np.float64}


class _Builder:
    """Emits the operations of one expansion into ``out``, located as ``op``."""

    def __init__(self, op: Op, out: list[Op]):
        self.op, self.out = op, out
        self.type = op.results[0].type
        dims, el = _parse_type(self.type)
        if el not in _FLOATS or op.frontend:
            raise _refuse(f"'{op.spec.name if op.spec else '?'}' of {el} or with frontend attributes")
        self.dims, self.el, self.dtype = dims, el, _FLOATS[el]

    def emit(
        self, name: str, operands: list[Value], attrs: dict | None = None, type: str | None = None
    ) -> Value:
        new = Op([type or self.type], lambda p: "")
        new.spec = Spec(name, operands, attrs or {})
        new.source = self.op.source
        self.out.append(new)
        return new.results[0]

    def constant(self, value: Any) -> Value:
        """A constant like the operand (a scalar, broadcast to its shape)."""
        scalar = Op([f"tensor<{self.el}>"], lambda p: "")
        scalar.spec = Spec("stablehlo.constant", [], {"value": np.asarray(value, self.dtype)})
        self.out.append(scalar)
        if not self.dims:
            return scalar.results[0]
        return self.emit("stablehlo.broadcast_in_dim", [scalar.results[0]], {"dims": ()})

    def compare(self, direction: str, x: Value, y: Value) -> Value:
        pred = self.type[: self.type.rindex(self.el)] + "i1>"
        return self.emit("stablehlo.compare", [x, y], {"direction": direction, "type": "FLOAT"}, pred)


def _cosh(b: _Builder, x: Value) -> Value:
    # e^(x + log(1/2)) + e^(-x + log(1/2))
    log_half = b.constant(np.log(b.dtype(0.5)))
    up = b.emit("stablehlo.exponential", [b.emit("stablehlo.add", [x, log_half])])
    down = b.emit("stablehlo.exponential", [b.emit("stablehlo.subtract", [log_half, x])])
    return b.emit("stablehlo.add", [up, down])


def _atan(b: _Builder, x: Value) -> Value:
    return b.emit("stablehlo.atan2", [x, b.constant(1.0)])


def _one_minus_square(b: _Builder, x: Value, one: Value) -> Value:
    # (1 - x) * (1 + x), as the legalization computes 1 - x^2 (XLA's operand order: x + 1)
    return b.emit(
        "stablehlo.multiply", [b.emit("stablehlo.subtract", [one, x]), b.emit("stablehlo.add", [x, one])]
    )


def _asin(b: _Builder, x: Value) -> Value:
    # 2 * atan2(x, 1 + sqrt(1 - x^2)), the doubling an add
    one = b.constant(1.0)
    root = b.emit("stablehlo.sqrt", [_one_minus_square(b, x, one)])
    half = b.emit("stablehlo.atan2", [x, b.emit("stablehlo.add", [root, one])])
    return b.emit("stablehlo.add", [half, half])


def _acos(b: _Builder, x: Value) -> Value:
    # atan2(sqrt(1 - x^2), x)
    one = b.constant(1.0)
    return b.emit("stablehlo.atan2", [b.emit("stablehlo.sqrt", [_one_minus_square(b, x, one)]), x])


_EXPANSIONS: dict[str, Callable[[_Builder, Value], Value]] = {
    "chlo.cosh": _cosh,
    "chlo.atan": _atan,
    "chlo.asin": _asin,
    "chlo.acos": _acos,
}


def expand(block: list[Op], replaced: dict[Value, Value], value: Callable[[Value], Value]) -> list[Op]:
    """``block`` with each CHLO operation known here expanded (its result recorded in ``replaced``)."""
    out: list[Op] = []
    expanded = False
    for op in block:
        rule = _EXPANSIONS.get(op.spec.name) if op.spec is not None else None
        if rule is None or op.spec is None:
            out.append(op)
            continue
        (x,) = [value(v) for v in op.spec.operands]
        replaced[op.results[0]] = rule(_Builder(op, out), x)
        expanded = True
    # (where the canonicalizer puts an expansion's constants among others, or another's: not modelled)
    if expanded and sum(o.spec is not None and o.spec.name == "stablehlo.constant" for o in out) > 1:
        raise _refuse("the constants of an expanded CHLO operation among other constants")
    return out
