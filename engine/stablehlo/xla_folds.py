"""What XLA's canonicalizer computes while converting StableHLO to HLO (``xla_canonical``): the value
of an elementwise operation of constants, and the names locations give the operations it rewrites.

Recorded from JAX 0.10.2 (tests/hlo_text): an operation of constants becomes a constant at the
operation's location (``neg``, ``div``, ...) when the canonicalizer evaluates it (negate, abs, sign,
sqrt, rsqrt, exp, log, sin, cos, tan, tanh, logistic; add, subtract, multiply, divide, remainder,
maximum, minimum; convert; compare); floor, ceil, cbrt, log1p, expm1, is_finite, power and atan2
of constants stay operations. A value is printed only when this module computes exactly XLA's:
IEEE operations (rounded once) are exact in numpy; a transcendental function of a float32 is
computed in double and rounded, and refused where float32 arithmetic would round it otherwise."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

# an operation of constants the canonicalizer leaves as it is (recorded)
KEPT = {
    "stablehlo.floor", "stablehlo.ceil", "stablehlo.cbrt", "stablehlo.log_plus_one",
    "stablehlo.exponential_minus_one", "stablehlo.is_finite", "stablehlo.power", "stablehlo.atan2",
}  # fmt: skip

# evaluated by a later pass than the binary operations, whose identities apply first (recorded)
LATE = {
    "stablehlo.negate", "stablehlo.abs", "stablehlo.sqrt", "stablehlo.sign", "stablehlo.exponential",
    "stablehlo.log", "stablehlo.sine", "stablehlo.cosine", "stablehlo.tan", "stablehlo.tanh",
    "stablehlo.rsqrt", "stablehlo.logistic", "stablehlo.convert",
}  # fmt: skip

# correctly rounded in IEEE arithmetic: numpy's result in the element type is XLA's
_EXACT_UNARY: dict[str, Callable] = {
    "stablehlo.negate": np.negative, "stablehlo.abs": np.abs, "stablehlo.sqrt": np.sqrt,
}  # fmt: skip
_TRANSCENDENTAL: dict[str, Callable] = {
    "stablehlo.exponential": np.exp, "stablehlo.log": np.log, "stablehlo.sine": np.sin,
    "stablehlo.cosine": np.cos, "stablehlo.tan": np.tan, "stablehlo.tanh": np.tanh,
    "stablehlo.rsqrt": lambda x: 1 / np.sqrt(x), "stablehlo.logistic": lambda x: 1 / (1 + np.exp(-x)),
}  # fmt: skip
_BINARY: dict[str, Callable] = {
    "stablehlo.add": np.add, "stablehlo.subtract": np.subtract, "stablehlo.multiply": np.multiply,
    "stablehlo.divide": np.divide, "stablehlo.maximum": np.maximum, "stablehlo.minimum": np.minimum,
    "stablehlo.remainder": np.fmod,
}  # fmt: skip
_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal, "GT": np.greater,
            "GE": np.greater_equal}  # fmt: skip


class Unknown(Exception):
    """The canonicalizer folds this, but to a value this module does not know exactly."""


def evaluate(name: str, attrs: dict, consts: Sequence[np.ndarray], dtype: np.dtype) -> np.ndarray | None:
    """The constant XLA's canonicalizer makes of ``name`` applied to ``consts`` (of result element
    type ``dtype``), or None when it keeps the operation; raises Unknown when it folds to a value
    this module cannot give exactly."""
    if name in KEPT:
        return None
    with np.errstate(all="ignore"):
        if name in _EXACT_UNARY and consts[0].dtype.kind in "fiu":
            if consts[0].dtype.kind in "iu" and name == "stablehlo.sqrt":
                raise Unknown(name)
            return np.asarray(_EXACT_UNARY[name](consts[0]), dtype)
        if name == "stablehlo.sign" and consts[0].dtype.kind == "f" and not np.isnan(consts[0]).any():
            return np.asarray(np.sign(consts[0]) + np.zeros_like(consts[0]), dtype)  # (-0 -> 0 too)
        if name in _TRANSCENDENTAL:
            return _transcendental(_TRANSCENDENTAL[name], consts[0], dtype)
        if name in _BINARY:
            return _binary(name, consts[0], consts[1], dtype)
        if name == "stablehlo.convert":
            return _convert(consts[0], dtype)
        if name == "stablehlo.clamp" and all(c.dtype.kind in "iu" for c in consts):  # (min, x, max)
            return np.asarray(np.minimum(np.maximum(consts[1], consts[0]), consts[2]), dtype)
        if name == "stablehlo.compare" and attrs.get("type") != "TOTALORDER":
            a, b = consts
            if a.dtype.kind == "f" and (np.isnan(a).any() or np.isnan(b).any()):
                raise Unknown(name)
            if a.dtype.kind not in "biuf":
                raise Unknown(name)
            return np.asarray(_COMPARE[attrs["direction"]](a, b), np.bool_)
    raise Unknown(name)


def _transcendental(fn: Callable, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if x.dtype != np.float32 or dtype != np.float32:
        raise Unknown("a transcendental function of a constant not of float32")
    wide = np.asarray(fn(x.astype(np.float64)), np.float64).astype(np.float32)
    if not np.array_equal(wide, np.asarray(fn(x), np.float32), equal_nan=True):
        raise Unknown("a transcendental function whose float32 value depends on how it is computed")
    return wide


def _binary(name: str, a: np.ndarray, b: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if a.dtype.kind == "f":
        if name in ("stablehlo.maximum", "stablehlo.minimum") and (np.isnan(a).any() or np.isnan(b).any()):
            raise Unknown(name)
        return np.asarray(_BINARY[name](a, b), dtype)
    if a.dtype.kind not in "iu":
        raise Unknown(name)
    if name in ("stablehlo.divide", "stablehlo.remainder"):
        if (b == 0).any() or (a.dtype.kind == "i" and ((a == np.iinfo(a.dtype).min) & (b == -1)).any()):
            raise Unknown(name)
        q = np.trunc(a.astype(np.float64) / b.astype(np.float64))  # (C's truncating division)
        if np.abs(a).max(initial=0) >= 2**52:
            raise Unknown(name)
        quotient = q.astype(a.dtype)
        return np.asarray(quotient if name == "stablehlo.divide" else a - quotient * b, dtype)
    return np.asarray(_BINARY[name](np.asarray(a), np.asarray(b)), dtype)  # (two's complement wraps)


def _convert(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Exact conversions only: integers to a float that holds them, floats to a wider float, bools."""
    if x.dtype.kind in "iub" and np.dtype(dtype).kind == "f":
        out = x.astype(dtype)
        if not np.array_equal(out.astype(np.float64), x.astype(np.float64)):
            raise Unknown("a convert of an integer a float does not hold")
        return out
    if x.dtype.kind == "f" and np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize >= x.dtype.itemsize:
        return x.astype(dtype)
    if x.dtype.kind in "iu" and np.dtype(dtype).kind in "iu":
        out = x.astype(dtype)
        if not np.array_equal(out.astype(np.int64), x.astype(np.int64)):
            raise Unknown("a convert of an integer its new type does not hold")
        return out
    if x.dtype.kind == "b" and np.dtype(dtype).kind in "iu":
        return x.astype(dtype)
    raise Unknown("a convert of a constant")


def location_name(parts: Sequence[str]) -> str:
    """The HLO name of an operation at a fused location of ``parts`` (each ``jit(f)/.../prim`` or
    ``jit(f)``): XLA joins their names with ``;`` (equal locations once) and keeps what follows the
    last ``/`` (recorded: ``mul`` fused with a literal's ``jit(f)`` names it ``mul;jit(f)``, with a
    folded ``neg`` it is ``neg``)."""
    unique = list(dict.fromkeys(parts))
    return ";".join(unique).rsplit("/", 1)[-1]
