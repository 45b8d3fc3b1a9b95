"""What ``jax.jvp`` and the function ``jax.linearize`` returns take as tangents, and JAX's errors
for the rest: a float primal's tangent has its dtype; an int or bool primal's is float0 (JAX's
``primal_dtype_to_tangent_dtype``), so an int tangent of an int primal is refused, not dropped."""

from __future__ import annotations

from . import core
from .ad import tangent_aval
from .core import ShapedArray
from .narrow_dtypes import kind as dtype_kind


def check_jvp_tangent(primal: ShapedArray, tangent: ShapedArray) -> None:
    if isinstance(primal.dtype, core.ExtendedDType):  # (keys: their tangents are dropped)
        return
    pd = core.canonical_dtype(primal.dtype)
    want = pd if dtype_kind(pd) in "fc" else core.float0
    td = (
        tangent.dtype
        if isinstance(tangent.dtype, core.ExtendedDType)
        else core.canonical_dtype(tangent.dtype)
    )
    if want != td:
        raise TypeError(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case "
            f"of int/bool primal dtype the tangent dtype must be float0.Got primal dtype {pd} and so "
            f"expected tangent dtype {want}, but got tangent dtype {td} instead."
        )
    if primal.shape != tangent.shape:
        raise ValueError(
            "jvp called with different primal and tangent shapes;"
            f"Got primal shape {primal.shape} and tangent shape as {tangent.shape}"
        )


def check_linearized_tangent(primal: ShapedArray, tangent: ShapedArray) -> None:
    """Of the primal's tangent shape and dtype (weak types aside), else JAX's ValueError."""
    if isinstance(primal.dtype, core.ExtendedDType):
        return
    want = tangent_aval(primal)
    if (tangent.shape, tangent.dtype) != (want.shape, want.dtype):
        raise ValueError(
            "linearized function called on tangent values inconsistent with the original primal values:\n"
            f"Got tangent aval {tangent} for primal aval {primal} but expected {want}."
        )
