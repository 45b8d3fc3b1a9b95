"""MLIR attributes (dense constants, integer arrays, symbols, dialect enums) for
``engine.extend.mlir.ir``."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from .types import F32Type, F64Type, RankedTensorType, ShapedType, Type, element_type_of, numpy_dtype

Context = Any  # (accepted and ignored: the objects are plain Python)


class Attribute:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Attribute) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self})"

    @staticmethod
    def parse(text: str, context: Context | None = None) -> "Attribute":
        from .parse import parse_attribute

        return parse_attribute(text)


def _format_scalar(v: Any, kind: str) -> str:
    if kind == "b":
        return "true" if v else "false"
    if kind == "c":
        return f"({_format_scalar(v.real, 'f')}, {_format_scalar(v.imag, 'f')})"
    if kind == "f":
        v = float(v)
        if not np.isfinite(v):
            return {"inf": "inf", "-inf": "-inf"}.get(repr(v), "nan")
        text = repr(v)
        return text if ("." in text or "e" in text) else text + ".0"
    return str(int(v))


class DenseElementsAttr(Attribute):
    """A constant tensor: its value is ``self.array`` (numpy, of the type's dtype)."""

    def __init__(self, array: np.ndarray, type: ShapedType):
        self.array = array
        self.type = type

    @classmethod
    def get(
        cls,
        array: Any,
        signless: bool = True,
        type: Type | None = None,
        shape: Sequence[int] | None = None,
        context: Context | None = None,
    ) -> "DenseElementsAttr":
        a = np.asarray(array)
        if shape is not None:
            a = a.reshape(shape)
        elem = type if type is not None else element_type_of(a.dtype)
        if isinstance(elem, ShapedType):
            elem = elem.element_type
        a = np.array(a, numpy_dtype(elem))
        return cls(a, RankedTensorType(a.shape, elem))

    @classmethod
    def get_splat(cls, shaped_type: ShapedType, element_attr: "Attribute") -> "DenseElementsAttr":
        value = element_attr.value
        return cls(np.full(shaped_type.shape, value, numpy_dtype(shaped_type)), shaped_type)

    @property
    def is_splat(self) -> bool:
        return self.array.size > 0 and bool(np.all(self.array == self.array.flat[0]))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.array if dtype is None else self.array.astype(dtype)

    def __len__(self) -> int:
        return self.array.size

    def __str__(self) -> str:
        kind = self.array.dtype.kind
        if self.is_splat:
            body = _format_scalar(self.array.flat[0], kind)
        else:
            body = _nested(self.array, kind)
        return f"dense<{body}> : {self.type}"


def _nested(a: np.ndarray, kind: str) -> str:
    if a.ndim == 0:
        return _format_scalar(a.item(), kind)
    return "[" + ", ".join(_nested(x, kind) for x in a) + "]"


DenseIntElementsAttr = DenseElementsAttr
DenseFPElementsAttr = DenseElementsAttr


class IntegerAttr(Attribute):
    def __init__(self, type: Type, value: int):
        self.type, self.value = type, int(value)

    @classmethod
    def get(cls, type: Type, value: int) -> "IntegerAttr":
        return cls(type, value)

    def __int__(self) -> int:
        return self.value

    def __str__(self) -> str:
        return f"{self.value} : {self.type}"


class FloatAttr(Attribute):
    def __init__(self, type: Type, value: float):
        self.type, self.value = type, float(value)

    @classmethod
    def get(cls, type: Type, value: float, loc: Any = None) -> "FloatAttr":
        return cls(type, value)

    @classmethod
    def get_f32(cls, value: float) -> "FloatAttr":
        return cls(F32Type(), value)

    @classmethod
    def get_f64(cls, value: float) -> "FloatAttr":
        return cls(F64Type(), value)

    def __float__(self) -> float:
        return self.value

    def __str__(self) -> str:
        return f"{_format_scalar(self.value, 'f')} : {self.type}"


class BoolAttr(Attribute):
    def __init__(self, value: bool):
        self.value = bool(value)

    @classmethod
    def get(cls, value: bool, context: Context | None = None) -> "BoolAttr":
        return cls(value)

    def __bool__(self) -> bool:
        return self.value

    def __str__(self) -> str:
        return "true" if self.value else "false"


class StringAttr(Attribute):
    def __init__(self, value: str):
        self.value = value

    @classmethod
    def get(cls, value: str, context: Context | None = None) -> "StringAttr":
        return cls(value)

    def __str__(self) -> str:
        escaped = self.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'


class UnitAttr(Attribute):
    @classmethod
    def get(cls, context: Context | None = None) -> "UnitAttr":
        return cls()

    def __str__(self) -> str:
        return "unit"


class TypeAttr(Attribute):
    def __init__(self, value: Type):
        self.value = value

    @classmethod
    def get(cls, value: Type, context: Context | None = None) -> "TypeAttr":
        return cls(value)

    def __str__(self) -> str:
        return str(self.value)


class FlatSymbolRefAttr(Attribute):
    def __init__(self, value: str):
        self.value = value

    @classmethod
    def get(cls, value: str, context: Context | None = None) -> "FlatSymbolRefAttr":
        return cls(value)

    def __str__(self) -> str:
        return f"@{self.value}"


class ArrayAttr(Attribute):
    def __init__(self, items: Sequence[Attribute]):
        self.items = list(items)

    @classmethod
    def get(cls, items: Sequence[Attribute], context: Context | None = None) -> "ArrayAttr":
        return cls(items)

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> Attribute:
        return self.items[i]

    def __str__(self) -> str:
        return "[" + ", ".join(map(str, self.items)) + "]"


class _DenseArrayAttr(Attribute):
    element = ""

    def __init__(self, values: Iterable[Any]):
        self.values = [bool(v) if self.element == "i1" else int(v) for v in values]

    @classmethod
    def get(cls, values: Iterable[Any], context: Context | None = None) -> "_DenseArrayAttr":
        return cls(values)

    def __iter__(self):
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i: int) -> Any:
        return self.values[i]

    def __str__(self) -> str:
        if not self.values:
            return f"array<{self.element}>"
        items = ", ".join(("true" if v else "false") if self.element == "i1" else str(v) for v in self.values)
        return f"array<{self.element}: {items}>"


class DenseI64ArrayAttr(_DenseArrayAttr):
    element = "i64"


class DenseI32ArrayAttr(_DenseArrayAttr):
    element = "i32"


class DenseBoolArrayAttr(_DenseArrayAttr):
    element = "i1"


class DialectAttr(Attribute):
    """A dialect's attribute, kept as its text (``#stablehlo<comparison_direction GT>``)."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text


def ints_of(value: Any) -> tuple[int, ...]:
    """A list of integers given as a Python sequence or as any integer-array attribute."""
    if isinstance(value, DenseElementsAttr):
        return tuple(int(v) for v in value.array.ravel())
    if isinstance(value, ArrayAttr):
        return tuple(int(v.value) for v in value)
    if isinstance(value, IntegerAttr):
        return (value.value,)
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    return tuple(int(v) for v in value)
