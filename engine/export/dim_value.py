"""``dim_as_value``: a symbolic dimension used as a number (``jnp.array(x.shape[0])``, ``5. + d``).

Staged, it is JAX's ``dim_as_value[dim=b]`` equation, a weakly typed scalar of the default int
dtype (``int32``, ``int64`` with x64), as JAX's; run on concrete shapes
(an exported function called), the dimension is an int by then. Eagerly, with no shapes to take
it from, it is JAX's error.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import core
from ..canonical_dtypes import default_dtype
from .shape_poly import _DimExpr

dim_as_value_p = core.Primitive("dim_as_value")


def _dim_aval(dim: Any = None) -> core.ShapedArray:
    return core.ShapedArray((), default_dtype(int), weak_type=True)


@dim_as_value_p.def_abstract_eval
def _dim_as_value_abstract_eval(*, dim: Any) -> core.ShapedArray:
    return _dim_aval()


@dim_as_value_p.def_impl
def _dim_as_value_impl(*, dim: Any) -> np.ndarray:
    if not isinstance(dim, int):
        raise NotImplementedError(
            "Evaluation rule for 'dim_as_value' is not implemented. "
            "It seems that you are using shape polymorphism outside jax.export."
        )
    return np.asarray(dim, default_dtype(int))


core.pytype_aval_mappings[_DimExpr] = _dim_aval


def dim_as_value(dim: Any) -> Any:
    """``dim`` as a scalar value of the default int dtype."""
    if isinstance(dim, int):
        return np.asarray(dim, default_dtype(int))[()]
    return dim_as_value_p.bind(dim=dim)


def _dim_as_value_lowering(eqn: Any) -> Any:
    """A constant in compiled code; a program still symbolic declines (its impl raises)."""
    from ..backends.lowering import cast

    dim = eqn.params["dim"]
    if not isinstance(dim, int):
        return None
    dtype = eqn.out_binders[0].aval.dtype
    return lambda read, idx: f"{cast(dtype)}({dim})"


def _register_lowering() -> None:
    from ..backends.rows import Index, lowerings

    lowerings[dim_as_value_p] = Index(_dim_as_value_lowering)


_register_lowering()
