"""What every sparse format shares: ``JAXSparse`` (the base class) and ``SparseInfo`` (the static
description a primitive carries as its ``spinfo`` parameter)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from ... import core


class SparseInfo(NamedTuple):
    """The static part of a sparse array: printed in jaxprs as JAX prints it."""

    shape: tuple[int, ...]
    indices_sorted: bool = False
    unique_indices: bool = False


class JAXSparse:
    """Base class of the sparse array types (``BCOO``, ``BCSR``): array-like attributes over
    buffers (``data`` first), a pytree of those buffers."""

    data: Any
    shape: tuple[int, ...]
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, args, *, shape):
        self.shape = tuple(int(s) for s in shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def T(self):
        return self.transpose()

    def _repr_extra(self) -> str:
        return f", nse={self.nse}"

    def __repr__(self) -> str:
        name = type(self).__name__
        try:
            text = f"{name}({self.dtype}{list(self.shape)}{self._repr_extra()})"
        except Exception:  # a half-built object (a pytree of placeholders) still prints
            text = f"{name}(<invalid>)"
        if isinstance(self.data, core.Tracer):
            text = f"{type(self.data).__name__}[{text}]"  # (the tracer classes carry JAX's names)
        return text

    def block_until_ready(self):
        for buf in self.tree_flatten()[0]:
            buf.block_until_ready()
        return self

    def tree_flatten(self):
        raise NotImplementedError

    def transpose(self, axes=None):
        raise NotImplementedError(f"{type(self).__name__}.transpose")

    def todense(self):
        raise NotImplementedError(f"{type(self).__name__}.todense")

    # JAX's JAXSparse defines the operators, each raising NotImplementedError (BCOO and BCSR replace
    # some with sparsified ones), so ``BCSR * 2.0`` is a NotImplementedError as in JAX, not a TypeError.
    def sum(self, *args, **kwargs):
        raise NotImplementedError(f"{self.__class__}.sum")

    def __neg__(self):
        raise NotImplementedError(f"{self.__class__}.__neg__")

    def __pos__(self):
        raise NotImplementedError(f"{self.__class__}.__pos__")

    def __matmul__(self, other):
        raise NotImplementedError(f"{self.__class__}.__matmul__")

    def __rmatmul__(self, other):
        raise NotImplementedError(f"{self.__class__}.__rmatmul__")

    def __mul__(self, other):
        raise NotImplementedError(f"{self.__class__}.__mul__")

    def __rmul__(self, other):
        raise NotImplementedError(f"{self.__class__}.__rmul__")

    def __add__(self, other):
        raise NotImplementedError(f"{self.__class__}.__add__")

    def __radd__(self, other):
        raise NotImplementedError(f"{self.__class__}.__radd__")

    def __sub__(self, other):
        raise NotImplementedError(f"{self.__class__}.__sub__")

    def __rsub__(self, other):
        raise NotImplementedError(f"{self.__class__}.__rsub__")

    def __getitem__(self, item):
        raise NotImplementedError(f"{self.__class__}.__getitem__")
