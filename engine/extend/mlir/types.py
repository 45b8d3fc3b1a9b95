"""MLIR types (``tensor<2x3xf32>``, ``i1``, ``f64``, function types) for ``engine.extend.mlir.ir``,
and their numpy dtypes."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

Context = Any  # (accepted and ignored: the objects are plain Python)


class Type:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Type) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self})"

    @staticmethod
    def parse(text: str, context: Context | None = None) -> "Type":
        from .parse import parse_type

        return parse_type(text)


class IntegerType(Type):
    def __init__(self, width: int, signedness: str = ""):
        self.width, self.signedness = width, signedness  # "", "s" or "u"

    @classmethod
    def get_signless(cls, width: int, context: Context | None = None) -> "IntegerType":
        return cls(width)

    @classmethod
    def get_signed(cls, width: int, context: Context | None = None) -> "IntegerType":
        return cls(width, "s")

    @classmethod
    def get_unsigned(cls, width: int, context: Context | None = None) -> "IntegerType":
        return cls(width, "u")

    @staticmethod
    def isinstance(t: object) -> bool:
        return isinstance(t, IntegerType)

    is_signless = property(lambda self: self.signedness == "")
    is_signed = property(lambda self: self.signedness == "s")
    is_unsigned = property(lambda self: self.signedness == "u")

    def __str__(self) -> str:
        return f"{self.signedness}i{self.width}"


class FloatType(Type):
    name = ""
    width = 0

    @classmethod
    def get(cls, context: Context | None = None) -> "FloatType":
        return cls()

    @classmethod
    def isinstance(cls, t: object) -> bool:
        return isinstance(t, cls)

    def __str__(self) -> str:
        return self.name


class F16Type(FloatType):
    name, width = "f16", 16


class BF16Type(FloatType):
    name, width = "bf16", 16


class F32Type(FloatType):
    name, width = "f32", 32


class F64Type(FloatType):
    name, width = "f64", 64


class IndexType(Type):
    @classmethod
    def get(cls, context: Context | None = None) -> "IndexType":
        return cls()

    def __str__(self) -> str:
        return "index"


class ComplexType(Type):
    def __init__(self, element_type: Type):
        self.element_type = element_type

    @classmethod
    def get(cls, element_type: Type) -> "ComplexType":
        return cls(element_type)

    def __str__(self) -> str:
        return f"complex<{self.element_type}>"


class ShapedType(Type):
    shape: tuple[int, ...] = ()
    element_type: Type

    @property
    def rank(self) -> int:
        return len(self.shape)

    def get_dim_size(self, dim: int) -> int:
        return self.shape[dim]

    def has_static_shape(self) -> bool:
        return True


class RankedTensorType(ShapedType):
    def __init__(self, shape: "Sequence[int] | Type", element_type: Type | None = None):
        if element_type is None:  # MLIR's cast: RankedTensorType(value.type)
            if not isinstance(shape, ShapedType):
                raise ValueError(f"{shape} is not a ranked tensor type")
            shape, element_type = shape.shape, shape.element_type
        assert not isinstance(shape, Type)
        self.shape = tuple(int(d) for d in shape)
        self.element_type = element_type

    @classmethod
    def get(
        cls, shape: Sequence[int], element_type: Type, encoding: Any = None, loc: Any = None
    ) -> "RankedTensorType":
        if any(d < 0 for d in shape):
            raise NotImplementedError("dynamic dimensions (tensor<?x...>) are not supported")
        return cls(shape, element_type)

    @staticmethod
    def isinstance(t: object) -> bool:
        return isinstance(t, RankedTensorType)

    def __str__(self) -> str:
        return "tensor<" + "".join(f"{d}x" for d in self.shape) + f"{self.element_type}>"


class FunctionType(Type):
    def __init__(self, inputs: Sequence[Type], results: Sequence[Type]):
        self.inputs, self.results = list(inputs), list(results)

    @classmethod
    def get(
        cls, inputs: Sequence[Type], results: Sequence[Type], context: Context | None = None
    ) -> "FunctionType":
        return cls(inputs, results)

    def __str__(self) -> str:
        res = ", ".join(map(str, self.results))
        return f"({', '.join(map(str, self.inputs))}) -> " + (res if len(self.results) == 1 else f"({res})")


_NP_OF = {
    "i1": np.bool_,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "ui8": np.uint8,
    "ui16": np.uint16,
    "ui32": np.uint32,
    "ui64": np.uint64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
}


def numpy_dtype(t: Type) -> np.dtype:
    """The numpy dtype of an element type (``tensor<..xT>`` gives T's)."""
    if isinstance(t, ShapedType):
        t = t.element_type
    name = str(t)
    if name.startswith("si"):  # signed and signless integers hold the same values
        name = name[1:]
    if name not in _NP_OF:
        raise NotImplementedError(f"element type {name} is not supported by the engine's StableHLO executor")
    return np.dtype(_NP_OF[name])


def element_type_of(dtype: Any) -> Type:
    """The MLIR element type of a numpy dtype (``bool`` is ``i1``, unsigned ints are ``ui``)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return IntegerType(1)
    if dtype.kind == "i":
        return IntegerType(dtype.itemsize * 8)
    if dtype.kind == "u":
        return IntegerType(dtype.itemsize * 8, "u")
    if dtype.kind == "c":
        return ComplexType(element_type_of(np.float32 if dtype.itemsize == 8 else np.float64))
    floats = {2: F16Type, 4: F32Type, 8: F64Type}
    if dtype.kind == "f" and dtype.itemsize in floats:
        return floats[dtype.itemsize]()
    raise NotImplementedError(f"dtype {dtype} has no MLIR element type here")
