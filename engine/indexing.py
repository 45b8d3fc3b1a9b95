"""``jax.ds`` (``dslice``): a slice given by its start and size, where the start may be traced.

``x[jax.ds(i, n)]`` is ``x[i:i + n]`` for a static ``i`` and a ``dynamic_slice`` of size ``n`` at a
traced one (a stride other than 1 gathers ``i, i + stride, ...``). The size and stride are static.

>>> x = jnp.arange(10)
>>> jax.jit(lambda x, i: x[jax.ds(i, 2)])(x, 4)
Array([4, 5], dtype=int32)
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any

from . import dims
from .tree_util import register_pytree_node_class

__all__ = ["Slice", "ds", "dslice"]


def _is_static(v: Any) -> bool:
    """Whether ``v`` is known at trace time: an integer, a symbolic dimension, a concrete scalar."""
    if dims.is_symbolic_dim(v):
        return True
    try:
        operator.index(v)
    except Exception:  # a tracer's __index__ refuses (its value is not known)
        return False
    return True


@register_pytree_node_class
@dataclasses.dataclass(slots=True)
class Slice:
    """``size`` elements from ``start``, every ``stride``-th; a traced start or size is a pytree
    child, a static one node data (as in JAX)."""

    start: Any
    size: Any
    stride: int = 1

    def __post_init__(self):
        if self.stride < 0:
            raise ValueError("`stride` must be >= 0.")

    @property
    def is_dynamic_start(self) -> bool:
        return not _is_static(self.start)

    @property
    def is_dynamic_size(self) -> bool:
        return not _is_static(self.size)

    def tree_flatten(self):
        dyn = (self.is_dynamic_start, self.is_dynamic_size)
        parts = (self.start, self.size)
        children = tuple(p if d else None for p, d in zip(parts, dyn))
        data = (*(None if d else p for p, d in zip(parts, dyn)), self.stride)
        return children, data

    @classmethod
    def tree_unflatten(cls, data, children) -> Slice:
        start, size = (c if c is not None else d for c, d in zip(children, data[:2]))
        return cls(start, size, data[2])


def dslice(start, size=None, stride=None) -> slice | Slice:
    """A slice by start and size, read as ``slice`` reads its arguments: ``dslice(None)`` is ``:``,
    ``dslice(j)`` is ``:j``, ``dslice(i, j)`` is ``i:i+j`` and ``dslice(i, j, s)`` is ``i:i+j:s``
    (``j`` elements).

    >>> dslice(3, 2), dslice(5), dslice(None)
    (Slice(start=3, size=2, stride=1), Slice(start=0, size=5, stride=1), slice(None, None, None))
    """
    if start is None:
        return slice(None)
    stride = 1 if stride is None else stride
    if not isinstance(stride, int):
        raise ValueError("Non-static stride in `dslice`")
    if size is None:
        start, size = 0, start
    return Slice(start, size, stride)


ds = dslice
