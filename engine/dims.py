"""Dimension sizes that may be symbolic: what the engine's core needs to know about them.

A dimension is an ``int`` or a symbolic expression (``engine.export.shape_poly._DimExpr``, made by
``jax.export.symbolic_shape``). These helpers work on both without importing the export package.

  >>> is_constant_dim(3), max_dim(2, 5)
  (True, 5)
"""

from __future__ import annotations

import operator
from typing import Any


class InconclusiveDimensionOperation(Exception):
    """A comparison or operation on symbolic dimensions whose result is not the same for all
    values of the dimension variables."""


def is_constant_dim(d: Any) -> bool:
    """Whether ``d`` is an integer dimension (not a symbolic expression)."""
    try:
        operator.index(d)
        return True
    except Exception:
        return False


def is_symbolic_dim(d: Any) -> bool:
    return getattr(d, "_is_dim_expr", False)


def is_constant_shape(shape: tuple) -> bool:
    return all(type(d) is int or is_constant_dim(d) for d in shape)


def max_dim(d1: Any, d2: Any) -> Any:
    """``max(d1, d2)`` for dimensions; for symbolic ones a ``max(d1, d2)`` expression unless the
    answer is the same for every value of the variables."""
    if is_symbolic_dim(d1):
        return d1.max(d2)
    if is_symbolic_dim(d2):
        return d2.rmax(d1)
    return max(d1, d2)


def min_dim(d1: Any, d2: Any) -> Any:
    """``min(d1, d2)`` for dimensions, as ``max_dim``."""
    if is_symbolic_dim(d1):
        return d1.min(d2)
    if is_symbolic_dim(d2):
        return d2.rmin(d1)
    return min(d1, d2)


def definitely_equal(d1: Any, d2: Any) -> bool:
    """Equality of dimensions (symbolic ones are equal when equal for every valuation)."""
    return d1 == d2


def dim_product(shape: tuple) -> Any:
    """The number of elements of ``shape`` (an int, or an expression when symbolic)."""
    out: Any = 1
    for d in shape:
        out = d * out
    return out
