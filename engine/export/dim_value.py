"""``dim_as_value``: a symbolic dimension used as a number (``jnp.array(x.shape[0])``, ``5. + d``).

Staged, it is JAX's ``dim_as_value[dim=b]`` equation, an ``int32`` scalar; run on concrete shapes
(an exported function called), the dimension is an int by then. Eagerly, with no shapes to take
it from, it is JAX's error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import core
from .shape_poly import _DimExpr

dim_as_value_p = core.Primitive("dim_as_value")


@dim_as_value_p.def_abstract_eval
def _dim_as_value_abstract_eval(*, dim: Any) -> core.ShapedArray:
    return core.ShapedArray((), np.dtype("int32"), weak_type=True)


@dim_as_value_p.def_impl
def _dim_as_value_impl(*, dim: Any) -> np.ndarray:
    if not isinstance(dim, int):
        raise NotImplementedError(
            "Evaluation rule for 'dim_as_value' is not implemented. "
            "It seems that you are using shape polymorphism outside jax.export."
        )
    return np.asarray(dim, np.int32)


def _dim_aval(dim: Any) -> core.ShapedArray:
    return core.ShapedArray((), np.dtype("int32"), weak_type=True)


core.pytype_aval_mappings[_DimExpr] = _dim_aval


def dim_as_value(dim: Any) -> Any:
    """``dim`` as an ``int32`` scalar value."""
    if isinstance(dim, int):
        return np.int32(dim)
    return dim_as_value_p.bind(dim=dim)


def _dim_as_value_lowering(eqn: Any) -> Any:
    """A constant in compiled code; a program still symbolic declines (its impl raises)."""
    from ..backends.lowering import cast

    dim = eqn.params["dim"]
    if not isinstance(dim, int):
        return None
    return lambda read, idx: f"{cast(np.dtype('int32'))}({dim})"


def _register_lowering() -> None:
    from ..backends.rows import Index, lowerings

    lowerings[dim_as_value_p] = Index(_dim_as_value_lowering)


_register_lowering()
