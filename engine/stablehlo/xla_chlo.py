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

    def __init__(
        self, op: Op, out: list[Op], floats: dict[str, Any], splats: dict[Op, tuple[np.ndarray, str]]
    ):
        self.op, self.out, self.splats = op, out, splats
        self.type = op.results[0].type
        dims, el = _parse_type(self.type)
        if el not in floats or op.frontend:
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
        """A constant like the operand: a splat of its shape (recorded: hoisted with the constants,
        as a constant, where a broadcast of a scalar would wait to become a splat), which the
        converter prints as a scalar broadcast."""
        scalar = np.asarray(value, self.dtype)
        c = Op([self.type], lambda p: "")
        c.spec = Spec("stablehlo.constant", [], {"value": np.full(self.dims, scalar)})
        c.source = self.op.source
        self.out.append(c)
        if self.dims:
            self.splats[c] = (scalar, self.type)
        return c.results[0]

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


# The expansions of several constants: each constant is emitted where its place among the others
# comes out as recorded (the canonicalizer hoists each constant that follows another operation to
# the block's start, so they end up in the reverse of the order they are emitted in here).


def _sinh(b: _Builder, x: Value) -> Value:
    # |x| < 1 ? (e + e / (e + 1)) * 0.5 with e = expm1(x) : e^(x + log(1/2)) - e^(log(1/2) - x)
    # (the log of the constant 1/2 an operation, evaluated later in its place: recorded, its place
    # among the constants depends on whether an operation precedes the expansion)
    half = b.constant(0.5)
    log_half = b.emit("stablehlo.log", [half])
    up = b.emit("stablehlo.exponential", [b.emit("stablehlo.add", [x, log_half])])
    down = b.emit("stablehlo.exponential", [b.emit("stablehlo.subtract", [log_half, x])])
    large = b.emit("stablehlo.subtract", [up, down])
    one = b.constant(1.0)
    e = b.emit("stablehlo.exponential_minus_one", [x])
    ratio = b.emit("stablehlo.divide", [e, b.emit("stablehlo.add", [e, one])])
    small = b.emit("stablehlo.multiply", [b.emit("stablehlo.add", [e, ratio]), half])
    near = b.compare("LT", b.emit("stablehlo.abs", [x]), one)
    return b.emit("stablehlo.select", [near, small, large])


def _asinh(b: _Builder, x: Value) -> Value:
    # sign(x) * (|x| >= sqrt(max) ? log|x| + log 2 : log1p(|x| + x^2 / (1 + sqrt(1 + x^2))))
    one = b.constant(1.0)
    sign = b.emit("stablehlo.sign", [x])
    ax = b.emit("stablehlo.abs", [x])
    huge = b.compare("GE", ax, b.constant(np.sqrt(b.dtype(np.finfo(np.float32).max))))
    log = b.emit("stablehlo.log", [ax])
    large = b.emit("stablehlo.add", [log, b.constant(np.log(b.dtype(2.0)))])
    sq = b.emit("stablehlo.multiply", [ax, ax])
    root = b.emit("stablehlo.sqrt", [b.emit("stablehlo.add", [sq, one])])
    ratio = b.emit("stablehlo.divide", [sq, b.emit("stablehlo.add", [root, one])])
    small = b.emit("stablehlo.log_plus_one", [b.emit("stablehlo.add", [ax, ratio])])
    return b.emit("stablehlo.multiply", [sign, b.emit("stablehlo.select", [huge, large, small])])


def _atanh(b: _Builder, x: Value) -> Value:
    # |x| > 1 ? nan : (log1p(x) - log1p(-x)) * 0.5
    one = b.constant(1.0)
    outside = b.compare("GT", b.emit("stablehlo.abs", [x]), one)
    nan = b.constant(np.nan)
    up = b.emit("stablehlo.log_plus_one", [x])
    down = b.emit("stablehlo.log_plus_one", [b.emit("stablehlo.negate", [x])])
    diff = b.emit("stablehlo.subtract", [up, down])
    return b.emit("stablehlo.select", [outside, nan, b.emit("stablehlo.multiply", [diff, b.constant(0.5)])])


def _acosh(b: _Builder, x: Value) -> Value:
    # x >= max/2 ? log(x) + log 2 : log1p(sqrt(x - 1) * (sqrt(x + 1) + sqrt(x - 1)))
    huge = b.compare("GE", x, b.constant(np.finfo(np.float32).max / np.float32(2)))
    one = b.constant(1.0)
    large = b.emit("stablehlo.add", [b.emit("stablehlo.log", [x]), b.constant(np.log(b.dtype(2.0)))])
    below = b.emit("stablehlo.sqrt", [b.emit("stablehlo.subtract", [x, one])])
    above = b.emit("stablehlo.sqrt", [b.emit("stablehlo.add", [x, one])])
    product = b.emit("stablehlo.multiply", [below, b.emit("stablehlo.add", [above, below])])
    return b.emit("stablehlo.select", [huge, large, b.emit("stablehlo.log_plus_one", [product])])


# CHLO operation -> its expansion, and the element types it is known for (the several-constant ones
# recorded for f32 only)
_EXPANSIONS: dict[str, tuple[Callable[[_Builder, Value], Value], dict[str, Any]]] = {
    "chlo.cosh": (_cosh, _FLOATS),
    "chlo.atan": (_atan, _FLOATS),
    "chlo.asin": (_asin, _FLOATS),
    "chlo.acos": (_acos, _FLOATS),
    "chlo.sinh": (_sinh, {"f32": np.float32}),
    "chlo.asinh": (_asinh, {"f32": np.float32}),
    "chlo.atanh": (_atanh, {"f32": np.float32}),
    "chlo.acosh": (_acosh, {"f32": np.float32}),
}


def expand(
    block: list[Op],
    replaced: dict[Value, Value],
    value: Callable[[Value], Value],
    splats: dict[Op, tuple[np.ndarray, str]],
) -> tuple[list[Op], dict[Op, int]]:
    """``block`` with each CHLO operation known here expanded (its result recorded in ``replaced``,
    its splat constants in ``splats``), and the operations each expansion made -> the index of that
    expansion."""
    out: list[Op] = []
    made: dict[Op, int] = {}
    for op in block:
        known = _EXPANSIONS.get(op.spec.name) if op.spec is not None else None
        if known is None or op.spec is None:
            out.append(op)
            continue
        rule, floats = known
        (x,) = [value(v) for v in op.spec.operands]
        start, k = len(out), len(set(made.values()))
        replaced[op.results[0]] = rule(_Builder(op, out, floats, splats), x)
        made.update((o, k) for o in out[start:])
    return out, made
