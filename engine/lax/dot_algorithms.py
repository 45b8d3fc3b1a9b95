"""Dot algorithms: the non-``Precision`` values of a contraction's ``precision`` (``lax.DotAlgorithm``,
``lax.DotAlgorithmPreset``, a preset's name), and what a CPU computes with them, as JAX 0.10.2's
CPU lowering: the operands rounded to the algorithm's input types, accumulated in its accumulation
type, then converted to the result's dtype. A CPU refuses every explicit ``DotAlgorithm`` and the
presets outside ``CPU_PRESETS`` (when the contraction runs: ``make_jaxpr`` shows them)."""

from __future__ import annotations

import enum
from typing import Any, NamedTuple, Sequence

import numpy as np

BFLOAT16 = "bfloat16"  # (no bfloat16 numpy dtype here: emulated by rounding float32s to its bits)


class DotAlgorithm(NamedTuple):
    """How a contraction computes: the types its operands are rounded to, the accumulation
    type, and how many pieces/products emulate a wider type (presets name the usual ones)."""

    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """Known dot algorithms, named ``LHS_RHS_ACCUMULATION`` (``_X3``: three products emulating a
    wider type); ``precision=`` takes a member or its name."""

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name

    @property
    def supported_lhs_types(self) -> tuple | None:
        """The operand types computed as they are; another is rounded to the first (``None``: any)."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16"):
            return (np.float16,)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (BFLOAT16, np.float32)
        if name == "F64_F64_F64":
            return (np.float64,)
        return (np.float32,)

    @property
    def supported_rhs_types(self) -> tuple | None:
        return self.supported_lhs_types

    @property
    def accumulation_type(self):
        name = self.name
        if name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        return {"F16_F16_F16": np.float16, "BF16_BF16_BF16": BFLOAT16, "F64_F64_F64": np.float64}.get(
            name, np.float32
        )

    def supported_output_types(self, lhs_dtype, rhs_dtype) -> tuple | None:
        name = self.name
        if name == "F16_F16_F32" and lhs_dtype == np.float16 and rhs_dtype == np.float16:
            return (np.float32, np.float16)
        if name == "BF16_BF16_F32" and BFLOAT16 == lhs_dtype == rhs_dtype:
            return (np.float32, BFLOAT16)
        acc = self.accumulation_type
        return None if acc is None else (acc,)


# What ``dimension_numbers=`` of dot_general takes (an annotation).
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]]

# The presets JAX 0.10.2 lets a CPU run (it ignores the algorithm otherwise, so refuses the rest).
CPU_PRESETS = frozenset(
    getattr(DotAlgorithmPreset, n)
    for n in "DEFAULT F16_F16_F16 F32_F32_F32 F64_F64_F64 BF16_BF16_F32 BF16_BF16_F32_X3 BF16_BF16_F32_X6".split()
)


def is_algorithm(precision) -> bool:
    return isinstance(precision, (DotAlgorithm, DotAlgorithmPreset))


def _pick(dtype, supported):
    if supported is None or dtype in supported:
        return dtype
    return supported[0]


def _round_to(x, dtype):
    if dtype == BFLOAT16:  # round-to-nearest-even to bfloat16's 8 exponent and 7 mantissa bits
        from .reduce_precision import reduce_precision_bits

        return reduce_precision_bits(np.asarray(x, np.float32), exponent_bits=8, mantissa_bits=7)
    return np.asarray(x).astype(dtype, copy=False)


def algorithm_operands(algorithm, x, y, out_dtype):
    """``x`` and ``y`` rounded as ``algorithm`` computes them, and the dtype to accumulate in; a
    ValueError (JAX's message) for an algorithm a CPU does not run."""
    if algorithm not in CPU_PRESETS:
        raise ValueError(f"The precision '{algorithm}' is not supported by dot_general on CPU")
    lt = _pick(x.dtype, algorithm.supported_lhs_types)
    rt = _pick(y.dtype, algorithm.supported_rhs_types)
    acc = _pick(np.dtype(out_dtype), algorithm.supported_output_types(lt, rt))
    x, y = _round_to(x, lt), _round_to(y, rt)
    acc = np.dtype(np.float32 if acc == BFLOAT16 else acc)
    return x.astype(acc, copy=False), y.astype(acc, copy=False), acc
