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


def canonicalize_axis(axis: Any, ndim: int) -> int:
    """``axis`` in ``[0, ndim)``, a negative one counted from the end; JAX's ValueError outside.

    >>> canonicalize_axis(-1, 3)
    2
    """
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def is_constant_dim(d: Any) -> bool:
    """Whether ``d`` is an integer dimension (not a symbolic expression)."""
    try:
        operator.index(d)
        return True
    except Exception:
        return False


def is_symbolic_dim(d: Any) -> bool:
    return getattr(d, "_is_dim_expr", False)


def as_dim(d: Any) -> Any:
    """``d`` as a dimension: a symbolic expression as it is, anything else as an ``int``."""
    return d if getattr(d, "_is_dim_expr", False) else operator.index(d)  # (2.0 is no dimension)


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


def dimension_as_value(d: Any) -> Any:
    """A dimension as a value to compute with: an int as it is, a symbolic one as JAX's
    ``dim_as_value`` (an ``int32`` scalar)."""
    return d.dimension_as_value() if is_symbolic_dim(d) else d


def broadcast_shapes(*shapes: tuple) -> tuple:
    """numpy's broadcasting of shapes, with symbolic dimensions (equal ones, or one of them 1)."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        sizes = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        big = [d for d in sizes if not (is_constant_dim(d) and d == 1)]
        if any(d != big[0] for d in big[1:]):
            raise TypeError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}")
        out.append(big[0] if big else 1)
    return tuple(out)


def slice_indices(start: Any, stop: Any, step: Any, size: Any) -> tuple:
    """``slice(start, stop, step).indices(size)``, where the size or bounds may be symbolic (then
    the step must be a positive int; bounds are clamped with ``max``/``min`` expressions)."""
    parts = (start, stop, step, size)
    if not any(is_symbolic_dim(p) for p in parts):
        return slice(start, stop, step).indices(size)
    step = 1 if step is None else step
    if not is_constant_dim(step) or step == 0 or (step < 0 and not (start is None and stop is None)):
        raise NotImplementedError(
            f"slicing with step {step} along an axis of symbolic size {size} is not supported; "
            "use a positive integer step, or a negative one without bounds"
        )
    if step < 0:  # (Python's bounds for ``[::step]``: from the last element down past the first)
        return size - 1, -1, step

    def bound(i: Any, default: Any) -> Any:
        if i is None:
            return default
        if i < 0:  # (inconclusive for a symbolic bound that may be negative, as in JAX)
            i = i + size
        return max_dim(0, min_dim(i, size))

    return bound(start, 0), bound(stop, size), step


def dim_product(shape: tuple) -> Any:
    """The number of elements of ``shape`` (an int, or an expression when symbolic)."""
    out: Any = 1
    for d in shape:
        out = (d if type(d) is int or is_symbolic_dim(d) else int(d)) * out
    return out
