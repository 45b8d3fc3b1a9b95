"""``jax.extend.mlir.ir``: the subset of MLIR's Python IR classes that lowering rules and
Autodidax's XLA backend use, as plain Python objects.

Modules built here are not handed to a compiler: ``engine.extend.mlir.execute`` runs them by
translating each StableHLO operation to the engine's own primitives. Printing gives MLIR's
generic textual form, which ``Module.parse`` reads back.

>>> from engine.extend.mlir import ir
>>> with ir.Context(), ir.Location.unknown():
...     t = ir.RankedTensorType.get((2, 3), ir.F32Type.get())
>>> str(t)
'tensor<2x3xf32>'
"""

from __future__ import annotations

import io
import threading
from typing import Any, Sequence

from .attributes import (
    ArrayAttr,  # noqa: F401
    Attribute,  # noqa: F401
    BoolAttr,  # noqa: F401
    DenseBoolArrayAttr,  # noqa: F401
    DenseElementsAttr,  # noqa: F401
    DenseFPElementsAttr,  # noqa: F401
    DenseI32ArrayAttr,  # noqa: F401
    DenseI64ArrayAttr,  # noqa: F401
    DenseIntElementsAttr,  # noqa: F401
    DialectAttr,  # noqa: F401
    FlatSymbolRefAttr,  # noqa: F401
    FloatAttr,  # noqa: F401
    IntegerAttr,  # noqa: F401
    StringAttr,  # noqa: F401
    TypeAttr,  # noqa: F401
    UnitAttr,  # noqa: F401
    ints_of,  # noqa: F401
)
from .types import (
    BF16Type,  # noqa: F401
    ComplexType,  # noqa: F401
    F16Type,  # noqa: F401
    F32Type,  # noqa: F401
    F64Type,  # noqa: F401
    FloatType,  # noqa: F401
    FunctionType,  # noqa: F401
    IndexType,  # noqa: F401
    IntegerType,  # noqa: F401
    RankedTensorType,  # noqa: F401
    ShapedType,  # noqa: F401
    Type,  # noqa: F401
    element_type_of,  # noqa: F401
    numpy_dtype,  # noqa: F401
)


# ---------------------------------------------------------------------------------------------
# Contexts, locations and insertion points: stacks that the constructors below consult.

_stacks = threading.local()


def _stack(name: str) -> list:
    s = getattr(_stacks, name, None)
    if s is None:
        s = []
        setattr(_stacks, name, s)
    return s


class _Scoped:
    _stack_name = ""

    def __enter__(self):
        _stack(self._stack_name).append(self)
        return self

    def __exit__(self, *exc):
        _stack(self._stack_name).pop()
        return False


class Context(_Scoped):
    """Owns nothing here (the objects are plain Python); kept for the ``with`` structure."""

    _stack_name = "contexts"
    allow_unregistered_dialects = False

    class _Current:
        def __get__(self, obj, cls):
            s = _stack("contexts")
            return s[-1] if s else None

    current = _Current()

    def append_dialect_registry(self, registry: Any) -> None:
        del registry

    def load_all_available_dialects(self) -> None:
        pass


class Location(_Scoped):
    _stack_name = "locations"

    def __init__(self, text: str = "loc(unknown)"):
        self.text = text

    @classmethod
    def unknown(cls, context: Context | None = None) -> "Location":
        return cls()

    @classmethod
    def name(
        cls, name: str, childLoc: "Location | None" = None, context: Context | None = None
    ) -> "Location":
        return cls(f'loc("{name}")')

    @classmethod
    def file(cls, filename: str, line: int, col: int, context: Context | None = None) -> "Location":
        return cls(f'loc("{filename}":{line}:{col})')

    def __repr__(self) -> str:
        return self.text


# ---------------------------------------------------------------------------------------------
# Values, operations, blocks, regions.


class Value:
    def __init__(self, type: Type):
        self.type = type

    def set_type(self, type: Type) -> None:
        self.type = type

    @property
    def owner(self) -> Any:
        raise NotImplementedError


class OpResult(Value):
    def __init__(self, type: Type, op: "Operation", index: int):
        super().__init__(type)
        self._op, self.result_number = op, index

    @property
    def owner(self) -> "Operation":
        return self._op

    def __repr__(self) -> str:
        return f"OpResult(%{self.result_number} of {self._op.name}: {self.type})"


class BlockArgument(Value):
    def __init__(self, type: Type, block: "Block", index: int):
        super().__init__(type)
        self._block, self.arg_number = block, index

    @property
    def owner(self) -> "Block":
        return self._block

    def __repr__(self) -> str:
        return f"BlockArgument(<block argument> of type '{self.type}' at index: {self.arg_number})"


class Block:
    def __init__(self, region: "Region | None", arg_types: Sequence[Type]):
        self.region = region
        self.arguments: list[BlockArgument] = []
        self.operations: list[Operation] = []
        for t in arg_types:
            self.add_argument(t)

    @property
    def owner(self) -> "Operation | None":
        return None if self.region is None else self.region.owner

    def add_argument(self, type: Type, loc: Any = None) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.arguments))
        self.arguments.append(arg)
        return arg

    @classmethod
    def create_at_start(
        cls, parent: "Region", arg_types: Sequence[Type] = (), arg_locs: Any = None
    ) -> "Block":
        block = cls(parent, arg_types)
        parent.blocks._blocks.insert(0, block)
        return block

    def append(self, op: "Operation | OpView") -> None:
        _operation(op).move_to(self, len(self.operations))


class BlockList:
    def __init__(self, region: "Region"):
        self._region = region
        self._blocks: list[Block] = []

    def append(self, *arg_types: Type, arg_locs: Any = None) -> Block:
        block = Block(self._region, arg_types)
        self._blocks.append(block)
        return block

    def __iter__(self):
        return iter(self._blocks)

    def __len__(self) -> int:
        return len(self._blocks)

    def __getitem__(self, i: int) -> Block:
        return self._blocks[i]


class Region:
    def __init__(self, owner: "Operation"):
        self.owner = owner
        self.blocks = BlockList(self)

    def __iter__(self):
        return iter(self.blocks)


class _Attributes:
    """An operation's attributes by name (MLIR's ``OpAttributeMap``)."""

    def __init__(self) -> None:
        self._d: dict[str, Attribute] = {}

    def __getitem__(self, name: str) -> Attribute:
        return self._d[name]

    def __setitem__(self, name: str, value: Attribute) -> None:
        self._d[name] = value

    def __delitem__(self, name: str) -> None:
        del self._d[name]

    def __contains__(self, name: object) -> bool:
        return name in self._d

    def __len__(self) -> int:
        return len(self._d)

    def __iter__(self):
        return iter(self._d)

    def items(self):
        return self._d.items()

    def get(self, name: str, default: Any = None) -> Any:
        return self._d.get(name, default)


class Operation:
    """One operation: a name, operands, attributes, regions and typed results."""

    def __init__(
        self,
        name: str,
        operands: Sequence[Value],
        result_types: Sequence[Type],
        attributes: dict[str, Attribute] | None = None,
        num_regions: int = 0,
    ):
        self.name = name
        self.operands = list(operands)
        for v in self.operands:
            if not isinstance(v, Value):
                raise TypeError(f"{name}: an operand is {type(v).__name__}, not an ir.Value")
        self.results = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attributes = _Attributes()
        for k, v in (attributes or {}).items():
            self.attributes[k] = v
        self.regions = [Region(self) for _ in range(num_regions)]
        self.parent: Block | None = None
        self._view: OpView | None = None

    @classmethod
    def create(
        cls,
        name: str,
        results: Sequence[Type] | None = None,
        operands: Sequence[Value] | None = None,
        attributes: dict[str, Attribute] | None = None,
        regions: int = 0,
        loc: Any = None,
        ip: "InsertionPoint | None" = None,
        **_: Any,
    ) -> "Operation":
        """Any operation by name (executing one the engine cannot translate raises)."""
        op = cls(name, list(operands or []), list(results or []), attributes, regions)
        point = ip if ip is not None else InsertionPoint.current
        if point is not None:
            point.insert(op)
        return op

    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def opview(self) -> "OpView":
        return self._view if self._view is not None else OpView(self)

    @property
    def operation(self) -> "Operation":
        return self

    def move_to(self, block: Block, index: int) -> None:
        if self.parent is not None:
            self.parent.operations.remove(self)
        block.operations.insert(index, self)
        self.parent = block

    def erase(self) -> None:
        if self.parent is not None:
            self.parent.operations.remove(self)
            self.parent = None

    def verify(self) -> bool:
        return True

    def print(self, file: Any = None, **options: Any) -> None:
        from .parse import print_operation

        text = print_operation(self)
        if file is None:
            print(text)
        else:
            file.write(text)

    def get_asm(self, **options: Any) -> str:
        out = io.StringIO()
        self.print(file=out)
        return out.getvalue()

    def __str__(self) -> str:
        return self.get_asm()


def _operation(x: "Operation | OpView") -> Operation:
    return x if isinstance(x, Operation) else x.operation


class OpView:
    """A typed view of an operation (``hlo.AddOp(...)``); ``.operation`` is the operation."""

    OPERATION_NAME = ""

    def __init__(self, operation: Operation):
        self.operation = operation
        operation._view = self

    @classmethod
    def build(
        cls,
        operands: Sequence[Any],
        result_types: Sequence[Type],
        attributes: dict[str, Attribute] | None = None,
        num_regions: int = 0,
        ip: "InsertionPoint | None" = None,
    ) -> Operation:
        op = Operation(
            cls.OPERATION_NAME, [as_value(v) for v in operands], result_types, attributes, num_regions
        )
        point = ip if ip is not None else InsertionPoint.current
        if point is not None:
            point.insert(op)
        return op

    name = property(lambda self: self.operation.name)
    results = property(lambda self: self.operation.results)
    result = property(lambda self: self.operation.result)
    operands = property(lambda self: self.operation.operands)
    attributes = property(lambda self: self.operation.attributes)
    regions = property(lambda self: self.operation.regions)
    parent = property(lambda self: self.operation.parent)

    def __str__(self) -> str:
        return str(self.operation)

    def print(self, file: Any = None, **options: Any) -> None:
        self.operation.print(file=file, **options)


def as_value(x: Any) -> Value:
    """An operand: a Value, or an operation (or its view) with exactly one result."""
    if isinstance(x, Value):
        return x
    if isinstance(x, (Operation, OpView)):
        return _operation(x).result
    raise TypeError(f"expected an ir.Value, got {type(x).__name__}")


class InsertionPoint(_Scoped):
    """Where new operations go: the end of a block, or before a given operation."""

    _stack_name = "insertion_points"

    def __init__(self, block: Block, before: Operation | None = None):
        self.block, self.before = block, before

    class _Current:
        def __get__(self, obj, cls):
            s = _stack("insertion_points")
            return s[-1] if s else None

    current = _Current()

    @classmethod
    def at_block_begin(cls, block: Block) -> "InsertionPoint":
        return cls(block, block.operations[0] if block.operations else None)

    @classmethod
    def at_block_terminator(cls, block: Block) -> "InsertionPoint":
        return cls(block, block.operations[-1])

    def insert(self, op: Operation | OpView) -> None:
        op = _operation(op)
        index = (
            len(self.block.operations) if self.before is None else self.block.operations.index(self.before)
        )
        op.move_to(self.block, index)


# ---------------------------------------------------------------------------------------------
# Modules and symbols.


class Module:
    def __init__(self, operation: Operation):
        self.operation = operation

    @classmethod
    def create(cls, loc: Location | None = None) -> "Module":
        op = Operation("builtin.module", [], [], num_regions=1)
        op.regions[0].blocks.append()
        return cls(op)

    @classmethod
    def parse(cls, text: str, context: Context | None = None) -> "Module":
        from .parse import parse_module

        return parse_module(text)

    @property
    def body(self) -> Block:
        return self.operation.regions[0].blocks[0]

    def __str__(self) -> str:
        return str(self.operation)


def symbol_name(op: Operation | OpView) -> str | None:
    attr = _operation(op).attributes.get("sym_name")
    return None if attr is None else attr.value


class SymbolTable:
    """The named operations (functions) directly inside an operation's first block."""

    def __init__(self, operation: Operation | OpView):
        self.block = _operation(operation).regions[0].blocks[0]

    def _names(self) -> dict[str, Operation]:
        out = {}
        for op in self.block.operations:
            name = symbol_name(op)
            if name is not None:
                out[name] = op
        return out

    def __getitem__(self, name: str) -> OpView:
        return self._names()[name].opview

    def __contains__(self, name: str) -> bool:
        return name in self._names()

    def insert(self, operation: Operation | OpView) -> StringAttr:
        """Add the operation to the table's block (if elsewhere), renaming it if its name is taken."""
        op = _operation(operation)
        if op.parent is not self.block:
            op.move_to(self.block, len(self.block.operations))
        name = symbol_name(op)
        assert name is not None, "SymbolTable.insert: the operation has no sym_name"
        others = {symbol_name(o) for o in self.block.operations if o is not op}
        if name in others:
            i = 0
            while f"{name}_{i}" in others:
                i += 1
            name = f"{name}_{i}"
            op.attributes["sym_name"] = StringAttr(name)
        return StringAttr(name)
