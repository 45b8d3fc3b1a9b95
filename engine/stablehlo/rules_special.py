"""StableHLO rules for the special functions JAX lowers to CHLO operations of two operands
(``polygamma``, ``zeta``: broadcast to the output's shape first) or of one (``bessel_i1e``), and
``bessel_i0e``, which JAX lowers by tracing Cephes' Chebyshev expansions (``mlir.lower_fun``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..lax import special
from ..lax.bessel import _I0E_A, _I0E_B, bessel_i0e_p, bessel_i1e_p  # (Cephes' coefficients: JAX's)
from .lowering import RuleContext, register
from .rules_elementwise import _chlo, broadcast_operands
from .rules_linalg import _inline
from .syntax import Spec, Value

_chlo(bessel_i1e_p, "chlo.bessel_i1e")


def _chlo_binary(prim: Any, name: str) -> None:
    def rule(ctx: RuleContext, x: Value, y: Value) -> list[Value]:
        x, y = broadcast_operands(ctx, [x, y])
        ty = ctx.out_types[0]
        text = lambda p: f"{name} {p(x)}, {p(y)} : {x.type}, {y.type} -> {ty}"  # noqa: E731
        return ctx.emit([ty], text, spec=Spec(name, [x, y]))

    register(prim)(rule)


_chlo_binary(special.polygamma_p, "chlo.polygamma")
_chlo_binary(special.zeta_p, "chlo.zeta")


def _chebyshev(x: Any, coefficients: tuple[float, ...]) -> Any:
    """JAX's ``evaluate_chebyshev_polynomial``: Clenshaw's recurrence, one ``full_like`` a term."""
    from ..lax.api import full_like

    b0 = full_like(x, 0)
    b1 = full_like(x, 0)
    b2 = full_like(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + full_like(x, np.float64(c))
    return 0.5 * (b0 - b2)


def _i0e(x: Any) -> Any:
    from ..lax.api import full_like, select, sqrt

    x = abs(x)
    half, two, thirty_two = full_like(x, 0.5), full_like(x, 2.0), full_like(x, 32.0)
    small = _chebyshev(half * x - two, _I0E_A)
    large = _chebyshev(thirty_two / x - two, _I0E_B) / sqrt(x)
    return select(x <= 8.0, small, large)


def _i0e_upcast(x: Any) -> Any:
    """JAX's ``bessel_i0e_impl`` of a narrow float: computed in float32 (Cephes' coefficients
    need its precision), then converted back."""
    from ..lax.api import convert_element_type

    return convert_element_type(_i0e(x.astype(np.float32)), x.dtype)


@register(bessel_i0e_p)
def _bessel_i0e(ctx: RuleContext, x: Value) -> list[Value]:
    dtype = np.dtype(ctx.avals_in[0].dtype)
    if dtype == np.float64:  # (JAX's float64 expansion has coefficients of its own)
        raise NotImplementedError("StableHLO text of bessel_i0e of float64 is not implemented")
    return [_inline(ctx, _i0e if dtype == np.float32 else _i0e_upcast, ctx.avals_in, [x])]
