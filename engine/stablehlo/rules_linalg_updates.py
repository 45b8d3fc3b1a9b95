"""StableHLO rules for ``tridiagonal``, ``tridiagonal_solve``, ``symmetric_product`` and
``cholesky_update``, lowered for the CPU as JAX's ``lax/linalg.py`` lowers them: the first two are
one LAPACK custom call each (``sytrd``/``hetrd``, ``gtsv``), every result NaN where LAPACK's info is
not 0; the other two are JAX functions traced and inlined (``mlir.lower_fun``): ``alpha a a^T +
beta c`` with a HIGHEST-precision product, and Givens rotations applied row by row, each rotation's
coefficients chosen by a ``cond``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import ShapedArray
from ..lax.linalg_tridiagonal import tridiagonal_p, tridiagonal_solve_p
from ..lax.linalg_updates import cholesky_update_p, symmetric_product_p
from .lowering import RuleContext, register
from .rules_linalg import _inline, _replace_not_ok_with_nan, lapack_call
from .rules_linalg_factorizations import _info_ok, _prefix
from .syntax import Value


@register(tridiagonal_p)
def _tridiagonal(ctx: RuleContext, a: Value, *, lower: bool) -> list[Value]:
    aval = ctx.avals_in[0]
    batch = tuple(aval.shape[:-2])
    kind = "sy" if np.dtype(aval.dtype).kind == "f" else "he"
    target = f"lapack_{_prefix('tridiagonal', aval)}{kind}trd_ffi"
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    chars = {"uplo": "L" if lower else "U"}
    *outs, info = lapack_call(ctx, target, [a], [aval], [*ctx.avals_out, info_aval], {0: 0}, chars)
    ok = _info_ok(ctx, info, batch)
    return [_replace_not_ok_with_nan(ctx, batch, ok, x, x_aval) for x, x_aval in zip(outs, ctx.avals_out)]


@register(tridiagonal_solve_p)
def _tridiagonal_solve(
    ctx: RuleContext, dl: Value, d: Value, du: Value, b: Value, *, perturb_singular: bool
) -> list[Value]:
    b_aval = ctx.avals_in[-1]
    if perturb_singular:  # (JAX calls jaxlib's own kernel, tridiagonal_solve_perturbed_ffi)
        raise NotImplementedError(
            "StableHLO text of tridiagonal_solve with perturb_singular=True is not implemented "
            "(the engine has no perturbing solver)"
        )
    batch = tuple(b_aval.shape[:-2])
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    target = f"lapack_{_prefix('tridiagonal_solve', b_aval)}gtsv_ffi"
    avals = list(ctx.avals_in)
    *_, x, info = lapack_call(
        ctx, target, [dl, d, du, b], avals, [*avals, info_aval], {k: k for k in range(4)}
    )
    return [_replace_not_ok_with_nan(ctx, batch, _info_ok(ctx, info, batch), x, b_aval)]


@register(symmetric_product_p)
def _symmetric_product(ctx: RuleContext, a: Value, c: Value, *, alpha: Any, beta: Any) -> list[Value]:
    from ..lax.api import transpose
    from ..lax.composites import batch_matmul
    from ..lax.dot_general import Precision

    def product(a: Any, c: Any) -> Any:  # JAX's _symmetric_product_jax_fn
        a_t = transpose(a, (*range(a.ndim - 2), a.ndim - 1, a.ndim - 2))
        return alpha * batch_matmul(a, a_t, precision=Precision.HIGHEST) + beta * c

    return [_inline(ctx, product, ctx.avals_in, [a, c])]


def _givens(x: Any, y: Any) -> Any:
    """JAX's ``_drotg``: the rotation's ``(c, s)``, by a ``cond`` on ``y == 0``."""
    from ..lax.api import select, sqrt
    from ..lax.cond import cond

    def nonzero(x: Any, y: Any) -> Any:
        abs_x, abs_y = abs(x), abs(y)
        denominator = select(abs_x > abs_y, abs_x, abs_y)
        x, y = x / denominator, y / denominator
        rh = 1 / sqrt(x**2 + y**2)
        return x * rh, -y * rh

    one_and_zero = (np.array(1.0, x.dtype), np.array(0.0, x.dtype))
    return cond(y == 0, lambda x, y: one_and_zero, nonzero, x, y)


@register(cholesky_update_p)
def _cholesky_update(ctx: RuleContext, r: Value, w: Value) -> list[Value]:
    def update(r: Any, z: Any) -> Any:  # JAX's _cholesky_update_jax_fn
        for k in range(z.shape[0]):
            c, s = _givens(r[k, k], z[k])
            row = r[k, :]
            row, z = c * row - s * z, c * z + s * row
            r = r.at[k, :].set(row)
        return r

    return [_inline(ctx, update, ctx.avals_in, [r, w])]
