"""MLIR's generic textual form for the IR of ``engine.extend.mlir.ir``: the printer, and a parser
that reads what it prints (``Module.parse``, and the text ``compile_and_load`` is given).

The generic form spells every operation the same way, so one grammar covers every dialect:

    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from . import ir

# ---------------------------------------------------------------------------------------------
# Printing.


class _Names:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.results = self.args = 0

    def of(self, v: ir.Value) -> str:
        name = self.names.get(id(v))
        if name is None:
            raise ValueError(f"a value is used outside the scope that defines it: {v!r}")
        return name

    def define_result(self, v: ir.Value) -> str:
        name = self.names[id(v)] = f"%{self.results}"
        self.results += 1
        return name

    def define_arg(self, v: ir.Value) -> str:
        name = self.names[id(v)] = f"%arg{self.args}"
        self.args += 1
        return name


def _types(ts: list) -> str:
    return ", ".join(map(str, ts))


def _print_op(op: ir.Operation, names: _Names, indent: str, out: list[str]) -> None:
    operands = ", ".join(names.of(v) for v in op.operands)
    lhs = ", ".join(names.define_result(r) for r in op.results)
    line = f'{indent}{lhs + " = " if lhs else ""}"{op.name}"({operands})'
    if op.regions:
        out.append(line + " (")
        for i, region in enumerate(op.regions):
            out.append(indent + "{")
            for block in region.blocks:
                args = ", ".join(f"{names.define_arg(a)}: {a.type}" for a in block.arguments)
                out.append(f"{indent}^bb0{'(' + args + ')' if args else ''}:")
                for inner in block.operations:
                    _print_op(inner, names, indent + "  ", out)
            out.append(indent + "}" + ("," if i + 1 < len(op.regions) else ""))
        line = indent + ")"
    if len(op.attributes):
        line += " {" + ", ".join(f"{k} = {v}" for k, v in sorted(op.attributes.items())) + "}"
    results = [r.type for r in op.results]
    res = str(results[0]) if len(results) == 1 else f"({_types(results)})"
    out.append(f"{line} : ({_types([v.type for v in op.operands])}) -> {res}")


def print_operation(op: ir.Operation) -> str:
    out: list[str] = []
    _print_op(op, _Names(), "", out)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Parsing.

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<str>"(?:[^"\\]|\\.)*")
    | (?P<name>[%@^][\w.$#-]+)
    | (?P<arrow>->)
    | (?P<num>[-+]?(?:0x[0-9a-fA-F]+|(?:\d+\.?\d*(?:[eE][-+]?\d+)?)|inf|nan))
    | (?P<word>[A-Za-z_][\w.]*)
    | (?P<punct>[()\[\]{}<>,:=#?*])
    )""",
    re.VERBOSE,
)


class ParseError(ValueError):
    pass


class _Parser:
    def __init__(self, text: str):
        self.text, self.pos = text, 0
        self.values: dict[str, ir.Value] = {}

    # -- tokens --
    def _match(self) -> re.Match | None:
        return _TOKEN.match(self.text, self.pos)

    def peek(self) -> str:
        m = self._match()
        if m is None or m.end() == m.start() or not m.group().strip():
            rest = self.text[self.pos :].strip()
            if not rest:
                return ""
            raise ParseError(f"unexpected text at {self.pos}: {rest[:30]!r}")
        return m.group().strip()

    def next(self) -> str:
        m = self._match()
        tok = self.peek()
        assert m is not None
        self.pos = m.end()
        return tok

    def expect(self, tok: str) -> None:
        got = self.next()
        if got != tok:
            raise ParseError(f"expected {tok!r} at {self.pos}, found {got!r}")

    def accept(self, tok: str) -> bool:
        if self.peek() == tok:
            self.next()
            return True
        return False

    def raw_until_matching(self) -> str:
        """After an opening ``<``: the raw text up to its matching ``>`` (consumed)."""
        depth, start = 1, self.pos
        while depth:
            c = self.text[self.pos]
            depth += c == "<"
            depth -= c == ">"
            self.pos += 1
        return self.text[start : self.pos - 1]

    # -- types --
    def type(self) -> ir.Type:
        tok = self.next()
        if tok == "(":
            inputs = self._type_list(")")
            self.expect("->")
            if self.peek() == "(":
                self.next()
                return ir.FunctionType(inputs, self._type_list(")"))
            return ir.FunctionType(inputs, [self.type()])
        if tok == "tensor":
            self.expect("<")
            return _tensor_type(self.raw_until_matching())
        if tok == "complex":
            self.expect("<")
            return ir.ComplexType(_element_type(self.raw_until_matching()))
        return _element_type(tok)

    def _type_list(self, close: str) -> list[ir.Type]:
        out: list[ir.Type] = []
        while not self.accept(close):
            out.append(self.type())
            self.accept(",")
        return out

    # -- attributes --
    def attribute(self) -> ir.Attribute:
        tok = self.peek()
        if tok.startswith('"'):
            self.next()
            return ir.StringAttr(bytes(tok[1:-1], "utf-8").decode("unicode_escape"))
        if tok.startswith("@"):
            self.next()
            return ir.FlatSymbolRefAttr(tok[1:])
        if tok in ("true", "false"):
            self.next()
            return ir.BoolAttr(tok == "true")
        if tok == "unit":
            self.next()
            return ir.UnitAttr()
        if tok == "[":
            self.next()
            items = []
            while not self.accept("]"):
                items.append(self.attribute())
                self.accept(",")
            return ir.ArrayAttr(items)
        if tok == "#":
            self.next()
            m = re.match(r"[\w.]+<", self.text[self.pos :])
            if m is None:
                raise ParseError(f"a dialect attribute at {self.pos}")
            self.pos += m.end()
            return ir.DialectAttr("#" + m.group() + self.raw_until_matching() + ">")
        if tok == "dense":
            self.next()
            self.expect("<")
            body = self.raw_until_matching()
            self.expect(":")
            t = self.type()
            assert isinstance(t, ir.ShapedType)
            return ir.DenseElementsAttr(_dense_values(body, t), t)
        if tok == "array":
            self.next()
            self.expect("<")
            elem, _, items = self.raw_until_matching().partition(":")
            cls = {"i64": ir.DenseI64ArrayAttr, "i32": ir.DenseI32ArrayAttr, "i1": ir.DenseBoolArrayAttr}
            values = [
                v.strip() == "true" if elem.strip() == "i1" else int(v) for v in items.split(",") if v.strip()
            ]
            return cls[elem.strip()](values)
        if _TOKEN.match(tok) and _TOKEN.match(tok).group("num"):  # type: ignore[union-attr]
            self.next()
            self.expect(":")
            t = self.type()
            if isinstance(t, ir.IntegerType):
                return ir.IntegerAttr(t, int(tok, 0))
            return ir.FloatAttr(t, _float(tok, t))
        return ir.TypeAttr(self.type())

    # -- operations --
    def value(self, name: str) -> ir.Value:
        if name not in self.values:
            raise ParseError(f"use of an undefined value {name}")
        return self.values[name]

    def operation(self) -> ir.Operation:
        result_names: list[str] = []
        if self.peek().startswith("%"):
            while True:
                result_names.append(self.next())
                if not self.accept(","):
                    break
            self.expect("=")
        tok = self.next()
        if not tok.startswith('"'):
            raise ParseError(
                f"expected a quoted operation name (the generic form) at {self.pos}, found {tok!r}"
            )
        name = tok[1:-1]
        self.expect("(")
        operand_names = []
        while not self.accept(")"):
            operand_names.append(self.next())
            self.accept(",")
        blocks_text = []
        if self.peek() == "(":
            self.next()
            while not self.accept(")"):
                blocks_text.append(self._skip_region())
                self.accept(",")
        attrs: dict[str, ir.Attribute] = {}
        if self.accept("{"):
            while not self.accept("}"):
                key = self.next()
                self.expect("=")
                attrs[key] = self.attribute()
                self.accept(",")
        self.expect(":")
        ftype = self.type()
        assert isinstance(ftype, ir.FunctionType)
        operands = [self.value(n) for n in operand_names]
        op = ir.Operation(name, operands, ftype.results, attrs, num_regions=len(blocks_text))
        for region, (start, end) in zip(op.regions, blocks_text):
            self._parse_region(region, start, end)
        for n, r in zip(result_names, op.results):
            self.values[n] = r
        return op

    def _skip_region(self) -> tuple[int, int]:
        """Find a region's extent now (its values are parsed after the op's types are known)."""
        self.expect("{")
        start, depth = self.pos, 1
        while depth:
            tok = self.next()
            depth += tok == "{"
            depth -= tok == "}"
        return start, self.pos - 1

    def _parse_region(self, region: ir.Region, start: int, end: int) -> None:
        saved = self.pos, self.text
        self.pos, self.text = start, self.text[:end]
        while self.peek():
            label = self.next()
            if not label.startswith("^"):
                raise ParseError(f"expected a block label at {self.pos}")
            args: list[tuple[str, ir.Type]] = []
            if self.accept("("):
                while not self.accept(")"):
                    n = self.next()
                    self.expect(":")
                    args.append((n, self.type()))
                    self.accept(",")
            self.expect(":")
            block = region.blocks.append(*[t for _, t in args])
            for (n, _), a in zip(args, block.arguments):
                self.values[n] = a
            while self.peek() and not self.peek().startswith("^"):
                op = self.operation()
                op.move_to(block, len(block.operations))
        self.pos, self.text = saved[0], saved[1]


def _element_type(tok: str) -> ir.Type:
    tok = tok.strip()
    floats = {"f16": ir.F16Type, "bf16": ir.BF16Type, "f32": ir.F32Type, "f64": ir.F64Type}
    if tok in floats:
        return floats[tok]()
    if tok == "index":
        return ir.IndexType()
    m = re.fullmatch(r"(s|u)?i(\d+)", tok)
    if m:
        return ir.IntegerType(int(m.group(2)), m.group(1) or "")
    if tok.startswith("complex<"):
        return ir.ComplexType(_element_type(tok[8:-1]))
    raise ParseError(f"unknown type {tok!r}")


def _tensor_type(body: str) -> ir.RankedTensorType:
    parts = body.split("x")
    shape = []
    while len(parts) > 1 and parts[0].strip().isdigit():
        shape.append(int(parts.pop(0)))
    return ir.RankedTensorType(shape, _element_type("x".join(parts)))


def _float(tok: str, t: Any) -> float:
    if tok.startswith("0x"):
        bits = int(tok, 16)
        dtype = ir.numpy_dtype(t)
        ints = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
        return float(np.array(bits, ints).view(dtype))
    return float(tok)


def _dense_values(body: str, t: ir.ShapedType) -> np.ndarray:
    dtype = ir.numpy_dtype(t)
    text = body.replace("true", "1").replace("false", "0")
    if dtype.kind == "c":
        pairs = re.findall(r"\(([^,()]+),([^,()]+)\)", text)
        flat: list[Any] = [complex(float(a), float(b)) for a, b in pairs]
    else:
        flat = [_float(x, t) if dtype.kind == "f" else int(x, 0) for x in re.findall(r"[-+]?[\w.]+", text)]
    a = np.array(flat, dtype)
    if a.size == 1 and int(np.prod(t.shape)) != 1:
        return np.full(t.shape, a[0], dtype)
    return a.reshape(t.shape)


def parse_module(text: str) -> ir.Module:
    p = _Parser(text)
    op = p.operation()
    if p.peek():
        raise ParseError(f"text after the module at {p.pos}")
    if op.name != "builtin.module":
        module = ir.Module.create()
        op.move_to(module.body, 0)
        return module
    return ir.Module(op)


def parse_type(text: str) -> ir.Type:
    return _Parser(text).type()


def parse_attribute(text: str) -> ir.Attribute:
    return _Parser(text).attribute()
