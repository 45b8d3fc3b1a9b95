"""The layouts XLA's HLO text gives instructions (``f32[3,2]{0,1}``), from its shape inference as
the converter builds each instruction (recorded from JAX 0.10.2 in tests/hlo_text).

Every value starts in the default (major-to-minor) layout (a computation's parameters too). A transpose takes the layout that makes
it a bitcast of its operand; an elementwise operation, a convert, a reverse, a select, a
dynamic-update-slice keep their first operand's layout (a clamp its second's), a while its
operand's (a tuple's shape is its elements'), a get-tuple-element its element's; operations that make
a new shape (reshape, broadcast, dot, reduce, slice, pad, dynamic-slice, concatenate) are back in
the default layout, as are a computation's parameters; a call has its computation's root's shape. What else would read a value of another layout is refused.
"""

from __future__ import annotations

import re
from typing import Any

from .xla_canonical import _refuse

# opcode -> the operand whose layout its result keeps
_KEEPS_LAYOUT_OF = {
    **{op: 0 for op in [
        "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "atan2", "and", "or",
        "xor", "negate", "sign", "floor", "ceil", "exponential", "log", "tanh", "sine", "cosine", "tan",
        "sqrt", "rsqrt", "cbrt", "abs", "not", "power", "convert", "compare", "log-plus-one",
        "exponential-minus-one", "is-finite", "shift-left", "shift-right-logical",
        "shift-right-arithmetic", "popcnt", "count-leading-zeros", "round-nearest-even", "round-nearest-afz",
        "select",
        "reverse", "dynamic-update-slice",
    ]},
    "clamp": 1,
}  # fmt: skip
_NEW_SHAPE = {"reshape", "broadcast", "dot", "reduce", "slice", "pad", "dynamic-slice", "concatenate"}


def _layout(aval: str) -> list[int] | None:
    """The minor-to-major list of an array's shape text (None: a scalar)."""
    m = re.fullmatch(r"[a-z0-9]+\[[0-9,]*\]\{([0-9,]*)\}", aval)
    return [int(d) for d in m.group(1).split(",") if d] if m else None


def is_default(aval: str) -> bool:
    """Every array in the shape text (one, or a tuple's) in the default layout."""
    for layout in re.findall(r"\]\{([0-9,]*)\}", aval):
        dims = [int(d) for d in layout.split(",") if d]
        if dims != sorted(dims, reverse=True):
            return False
    return True


def _with_layout(aval: str, minor_to_major: list[int]) -> str:
    return aval[: aval.index("{")] + "{" + ",".join(map(str, minor_to_major)) + "}"


def assign(ins: Any, roots: dict[str, str]) -> str:
    """``ins``'s shape text with the layout XLA gives it, from its operands' (a call's: its
    computation's root's, ``roots`` by name)."""
    if getattr(ins, "own_layout", False):  # (a LAPACK call's result: column-major, as it says)
        return ins.aval
    if ins.opcode == "parameter":  # (recorded: a computation's parameters in the default layout)
        return _default(ins.aval)
    if ins.opcode == "transpose":
        perm = [int(d) for d in re.search(r"dimensions=\{([0-9,]*)\}", ins.attrs).group(1).split(",")]
        operand = _layout(ins.operands[0].aval)
        assert operand is not None
        return _with_layout(ins.aval, [perm.index(d) for d in operand])  # (a bitcast of its operand)
    if ins.opcode == "while" and len(ins.operands) == 1:  # (recorded: its operand's shape, layouts and all)
        return ins.operands[0].aval
    if ins.opcode == "call":  # (recorded: its computation's root's shape, layouts and all)
        return roots[re.search(r"to_apply=([^,\s]+)", ins.attrs).group(1)]
    if ins.opcode == "get-tuple-element":  # (the element's shape in the tuple's)
        if is_default(ins.operands[0].aval):
            return _default(ins.aval)
        elements = _tuple_elements(ins.operands[0].aval)
        return elements[int(re.search(r"index=(\d+)", ins.attrs).group(1))]
    if ins.opcode == "tuple":  # (its elements' shapes; what reads it is checked)
        from .xla_hlo import _tuple_text

        return _tuple_text([o.aval for o in ins.operands])
    if all(is_default(o.aval) for o in ins.operands) or ins.opcode in _NEW_SHAPE:
        return ins.aval
    k = _KEEPS_LAYOUT_OF.get(ins.opcode)
    if k is None or len(ins.operands) <= k:
        raise _refuse(f"a {ins.opcode} of a value in a transposed layout")
    kept = _layout(ins.operands[k].aval)
    return ins.aval if kept is None else _with_layout(ins.aval, kept)


def _tuple_elements(aval: str) -> list[str]:
    if not aval.startswith("(") or "(" in aval[1:]:
        raise _refuse("a nested tuple of a value in a transposed layout")
    return [re.sub(r"^/\*index=\d+\*/", "", e) for e in aval[1:-1].split(", ")]


def _default(aval: str) -> str:
    """The shape text (one, or a tuple's) with every array in the default layout."""

    def one(m: re.Match) -> str:
        rank = len([d for d in m.group(1).split(",") if d])
        return f"[{m.group(1)}]{{{','.join(str(d) for d in reversed(range(rank)))}}}"

    return re.sub(r"\[([0-9,]*)\]\{[0-9,]*\}", one, aval)
