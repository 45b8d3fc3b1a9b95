"""A StableHLO module as text-producing objects, and MLIR's way of naming and printing its values.

Operations are kept as small records: typed results, the operand values, a ``render`` function
that writes the operation's custom syntax once value names are known, and regions (blocks of
operations). Names follow MLIR's ``SSANameState``: a region's values are numbered before the
regions nested in it, each nested region starts from the counters its parent ended with, and a
name hint (``%c``, ``%cst``, ``%iterArg``) already used in an enclosing region gets ``_N``.
"""

from __future__ import annotations

from typing import Callable, Sequence


class Value:
    """An SSA value: a block argument or one result of an operation."""

    __slots__ = ("type", "op", "index")

    def __init__(self, type: str, op: "Op | None" = None, index: int = 0):
        self.type, self.op, self.index = type, op, index


class Block:
    def __init__(self, arg_types: Sequence[str] = (), function_body: bool = False):
        self.args = [Value(t) for t in arg_types]
        self.ops: list[Op] = []
        # ops of the func dialect print without their "func." prefix directly in a function's body
        self.function_body = function_body


# render(p) -> the operation's text after "%x = "; p names values and prints nested blocks
Render = Callable[["Printer"], str]


class Spec:
    """What an operation is, for readers other than its text (the HLO printer): its StableHLO
    name, operands and attributes (values as Python data)."""

    __slots__ = ("name", "operands", "attrs")

    def __init__(self, name: str, operands: Sequence["Value"], attrs: dict | None = None):
        self.name, self.operands, self.attrs = name, list(operands), attrs or {}


class Op:
    __slots__ = (
        "results", "render", "regions", "hint", "arg_hint", "result_hints", "spec", "source", "frontend",
    )  # fmt: skip

    def __init__(
        self,
        result_types: Sequence[str],
        render: Render,
        regions: Sequence[Block] = (),
        hint: str | None = None,
        arg_hint: str | None = None,
    ):
        self.results = [Value(t, self, i) for i, t in enumerate(result_types)]
        self.render = render
        self.regions = list(regions)
        self.hint = hint  # the name MLIR suggests for the result (constants: c / cst)
        self.arg_hint = arg_hint  # ... and for its regions' block arguments (while: iterArg)
        self.result_hints: Sequence[str] | None = None  # one name per result (chlo.top_k: values, indices)
        self.spec: Spec | None = None  # (set by the rules whose operations the HLO printer reads)
        self.source: str | None = None  # the primitive of the equation it lowers (JAX's location name)
        self.frontend: dict[str, str] = {}  # mhlo.frontend_attributes (jax.experimental.xla_metadata)


class Printer:
    """Names the values of one function (MLIR's numbering) and prints its operations."""

    def __init__(self, body: Block):
        self.names: dict[Value, str] = {}
        self.indent = ""  # the indentation of the operation being printed
        self._number_region([body], next_value=0, next_arg=0, next_conflict=0, used=set(), arg_hint=None)

    # --- naming -------------------------------------------------------------------------------

    def _number_region(
        self,
        blocks: Sequence[Block],
        next_value: int,
        next_arg: int,
        next_conflict: int,
        used: set[str],
        arg_hint: str | None,
    ) -> None:
        used = set(used)

        def unique(name: str) -> str:
            nonlocal next_conflict
            if name in used:
                while f"{name}_{next_conflict}" in used:
                    next_conflict += 1
                name = f"{name}_{next_conflict}"
                next_conflict += 1
            used.add(name)
            return name

        for block in blocks:
            for a in block.args:
                if arg_hint is not None:
                    self.names[a] = "%" + unique(arg_hint)
                else:
                    self.names[a] = f"%arg{next_arg}"
                    next_arg += 1
            for op in block.ops:
                if not op.results:
                    continue
                if op.result_hints is not None:
                    for r, h in zip(op.results, op.result_hints):
                        self.names[r] = "%" + unique(h)
                    continue
                if op.hint is not None and len(op.results) == 1:
                    name = "%" + unique(op.hint)
                else:
                    name = f"%{next_value}"
                    next_value += 1
                if len(op.results) == 1:
                    self.names[op.results[0]] = name
                else:
                    for r in op.results:
                        self.names[r] = f"{name}#{r.index}"
        for block in blocks:
            for op in block.ops:
                for region in op.regions:
                    self._number_region([region], next_value, next_arg, next_conflict, used, op.arg_hint)

    def __call__(self, v: Value) -> str:
        return self.names[v]

    def list(self, vs: Sequence[Value]) -> str:
        return ", ".join(self.names[v] for v in vs)

    # --- printing -----------------------------------------------------------------------------

    def op_line(self, op: Op, indent: str) -> str:
        self.indent = indent
        text = op.render(self)
        self.indent = indent
        if op.frontend:
            text = _with_frontend_attributes(text, op.frontend)
        if not op.results:
            return indent + text
        first = self.names[op.results[0]]
        if op.result_hints is not None:
            return f"{indent}{self.list(op.results)} = {text}"
        lhs = first.split("#")[0] + (f":{len(op.results)}" if len(op.results) > 1 else "")
        return f"{indent}{lhs} = {text}"

    def block(self, block: Block, indent: str) -> str:
        """The block's operations, one per line (each line ends with a newline)."""
        outer = self.indent
        text = "".join(self.op_line(op, indent) + "\n" for op in block.ops)
        self.indent = outer
        return text


def _with_frontend_attributes(text: str, attrs: dict[str, str]) -> str:
    """The operation's text with its attribute dictionary before the type, as MLIR prints it (only
    for operations printed on one line without a dictionary of their own)."""
    if "\n" in text or "{" in text or " : " not in text:
        raise NotImplementedError(
            f"StableHLO text of mhlo.frontend_attributes on '{text.split()[0]}' is not implemented in the engine"
        )
    items = ", ".join(f"{k} = {_string(v)}" for k, v in sorted(attrs.items()))
    head, _, tail = text.rpartition(" : ")
    return f"{head} {{mhlo.frontend_attributes = {{{items}}}}} : {tail}"


def _string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def types_text(types: Sequence[str]) -> str:
    return ", ".join(types)


def functional_type(ins: Sequence[str], outs: Sequence[str]) -> str:
    """``(a, b) -> c``, MLIR's function type (several results in parentheses)."""
    out = outs[0] if len(outs) == 1 else f"({types_text(outs)})"
    return f"({types_text(ins)}) -> {out}"


def same_or_functional(ins: Sequence[str], outs: Sequence[str]) -> str:
    """StableHLO's ``SameOperandsAndResultType`` printing: one type when all agree."""
    if len(set(ins) | set(outs)) == 1:
        return ins[0] if ins else outs[0]
    return functional_type(ins, outs)
