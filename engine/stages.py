"""``jax.stages``: the types of ``jit``'s stages — a wrapped function, its trace, its lowering and
its compiled form — for annotations and ``isinstance`` checks.

>>> import engine as jax
>>> f = jax.jit(lambda x: x + 1)
>>> isinstance(f, Wrapped), isinstance(f.lower(1.0), Lowered), isinstance(f.lower(1.0).compile(), Compiled)
(True, True, True)
"""

from __future__ import annotations

import dataclasses
from typing import Any, Union

from .jit import Compiled, JitFunction, Lowered, Traced

__all__ = ["ArgInfo", "Compiled", "CompilerOptions", "Lowered", "Traced", "Wrapped"]

CompilerOptions = dict[str, Union[str, bool]]


class _WrappedMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, JitFunction)


class Wrapped(metaclass=_WrappedMeta):
    """A function ready to be traced, lowered and compiled: what ``jax.jit`` returns."""

    def __call__(self, *args, **kwargs) -> Any:
        raise NotImplementedError

    def trace(self, *args, **kwargs) -> Traced:
        raise NotImplementedError

    def lower(self, *args, **kwargs) -> Lowered:
        raise NotImplementedError


@dataclasses.dataclass(frozen=True)
class ArgInfo:
    """An argument of a staged function: its abstract value and whether it is donated."""

    _aval: Any
    donated: bool

    @property
    def shape(self):
        if not hasattr(self._aval, "shape"):
            raise TypeError(f"No shape attribute with aval of type {type(self._aval)}")
        return self._aval.shape

    @property
    def dtype(self):
        if not hasattr(self._aval, "dtype"):
            raise TypeError(f"No dtype attribute with aval of type {type(self._aval)}")
        return self._aval.dtype
