"""The combining functions of scatter-add, -sub, -mul, -min and -max as jaxprs: each equation's
``update_jaxpr``, made as JAX makes them. JAX traces one per operation and dtype and caches it,
keyed also by its trace context, which differs while a backward pass runs; so every scatter-add
of a program shares one jaxpr (printed once, as a shared ``let`` jaxpr when used twice) except
those its transposes make, which share another."""

from __future__ import annotations

import numpy as np

from .. import ad
from ..core import ShapedArray
from ..ir import ClosedJaxpr

_combiners: dict[tuple[str, np.dtype, bool], ClosedJaxpr] = {}


def combiner(op: str, dtype) -> ClosedJaxpr:
    """The jaxpr of ``lax.<op>`` on two scalars of ``dtype`` (a TypeError where ``lax.<op>`` refuses
    the dtype, as JAX's ``x.at[i].add`` of booleans)."""
    key = (op, np.dtype(dtype), ad.transposing[0] > 0)
    closed = _combiners.get(key)
    if closed is None:
        from ..staging import trace_to_jaxpr
        from . import api

        fn = getattr(api, op)
        scalar = ShapedArray((), np.dtype(dtype), False)
        closed = _combiners[key] = trace_to_jaxpr(lambda x, y: [fn(x, y)], [scalar, scalar])
    return closed
