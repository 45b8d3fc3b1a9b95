"""StableHLO rules for the LAPACK factorizations JAX's ``lax/linalg.py`` lowers for the CPU as one
custom call each (Cholesky ``potrf``, symmetric eigendecomposition ``syevd``/``heevd``, SVD
``gesdd``), their results replaced by NaNs where LAPACK's info is not 0, and QR, whose lowering is
a traced function: ``geqrf``, then ``orgqr``/``ungqr`` of the reflectors, and the upper triangle.
So are the Hessenberg reduction (``gehrd``), the Schur decomposition (``gees``), and the packed QR
(``geqrf``) with its uses (``orgqr``/``ungqr``, ``ormqr``/``unmqr``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import ShapedArray
from ..lax.linalg import cholesky_p, eigh_p, svd_p
from ..lax.linalg_eig import eig_p
from ..lax.linalg_qr import qr_p
from ..lax.linalg_schur import geqrf_p, hessenberg_p, householder_product_p, ormqr_p, schur_p
from . import literals
from .lowering import RuleContext, register
from .rules_elementwise import broadcast_in_dim, compare, full_like, hlo_op, make_complex, select
from .rules_linalg import _LAPACK_PREFIX, _replace_not_ok_with_nan, lapack_call
from .rules_structural import ints, slice_op
from .syntax import Spec, Value


def _prefix(name: str, aval: Any) -> str:
    prefix = _LAPACK_PREFIX.get(np.dtype(aval.dtype).name)
    if prefix is None:
        raise NotImplementedError(
            f"StableHLO text of {name} of {np.dtype(aval.dtype).name} is not implemented"
        )
    return prefix


def _info_ok(ctx: RuleContext, info: Value, batch: tuple[int, ...]) -> Value:
    """``info == 0`` (JAX compares with a broadcast zero, even of a scalar)."""
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    return compare(
        ctx, "EQ", info, full_like(ctx, 0, info_aval), np.int32, literals.tensor_type(batch, np.bool_)
    )


@register(cholesky_p)
def _cholesky(ctx: RuleContext, x: Value) -> list[Value]:
    aval, (out_aval,) = ctx.avals_in[0], ctx.avals_out
    batch = tuple(aval.shape[:-2])
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    target = f"lapack_{_prefix('cholesky', aval)}potrf_ffi"
    result, info = lapack_call(ctx, target, [x], [aval], [aval, info_aval], {0: 0}, {"uplo": "L"})
    return [_replace_not_ok_with_nan(ctx, batch, _info_ok(ctx, info, batch), result, out_aval)]


@register(eigh_p)
def _eigh(
    ctx: RuleContext, x: Value, *, lower: bool, sort_eigenvalues: bool, **_defaults: None
) -> list[Value]:
    del sort_eigenvalues  # (LAPACK sorts them anyway; _defaults: subset_by_index, algorithm)
    aval = ctx.avals_in[0]
    v_aval, w_aval = ctx.avals_out
    batch = tuple(aval.shape[:-2])
    kind = "he" if np.dtype(aval.dtype).kind == "c" else "sy"
    target = f"lapack_{_prefix('eigh', aval)}{kind}evd_ffi"
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    chars = {"mode": "V", "uplo": "L" if lower else "U"}
    v, w, info = lapack_call(ctx, target, [x], [aval], [v_aval, w_aval, info_aval], {0: 0}, chars)
    ok = _info_ok(ctx, info, batch)
    return [
        _replace_not_ok_with_nan(ctx, batch, ok, v, v_aval),
        _replace_not_ok_with_nan(ctx, batch, ok, w, w_aval),
    ]


@register(svd_p)
def _svd(
    ctx: RuleContext, x: Value, *, full_matrices: bool, compute_uv: bool, **_defaults: None
) -> list[Value]:
    aval = ctx.avals_in[0]
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    if m == 0 or n == 0:
        raise NotImplementedError("StableHLO text of the svd of an empty matrix is not implemented")
    target = f"lapack_{_prefix('svd', aval)}gesdd_ffi"
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    if compute_uv:
        s_aval, u_aval, vt_aval = ctx.avals_out
    else:  # (LAPACK's results still have their shapes)
        (s_aval,), k = ctx.avals_out, min(m, n)
        u_aval = ShapedArray((*batch, m, m if full_matrices else k), aval.dtype)
        vt_aval = ShapedArray((*batch, n if full_matrices else k, n), aval.dtype)
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    outs = [aval, s_aval, u_aval, vt_aval, info_aval]
    _, s, u, vt, info = lapack_call(ctx, target, [x], [aval], outs, {0: 0}, {"mode": mode})
    ok = _info_ok(ctx, info, batch)
    result = [_replace_not_ok_with_nan(ctx, batch, ok, s, s_aval)]
    if compute_uv:
        result += [_replace_not_ok_with_nan(ctx, batch, ok, u, u_aval)]
        result += [_replace_not_ok_with_nan(ctx, batch, ok, vt, vt_aval)]
    return result


@register(eig_p)
def _eig(
    ctx: RuleContext, x: Value, *, compute_left_eigenvectors: bool, compute_right_eigenvectors: bool, **_: Any
) -> list[Value]:
    """JAX's ``_eig_cpu_lowering``: ``geev`` (no aliasing; a real matrix's eigenvalues come as real
    and imaginary parts, made complex), each result NaN where info is not 0."""
    if _.get("implementation") is not None:
        raise NotImplementedError("StableHLO text of eig with an implementation= is not implemented")
    aval = ctx.avals_in[0]
    batch = tuple(aval.shape[:-2])
    real = np.dtype(aval.dtype).kind == "f"
    w_aval, *vec_avals = ctx.avals_out
    values = ShapedArray(aval.shape[:-1], aval.dtype)
    vectors = ShapedArray(aval.shape, w_aval.dtype)
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    outs = [values, values, vectors, vectors, info_aval] if real else [values, vectors, vectors, info_aval]
    chars = {
        "compute_left": "V" if compute_left_eigenvectors else "N",
        "compute_right": "V" if compute_right_eigenvectors else "N",
    }
    *w, vl, vr, info = lapack_call(
        ctx, f"lapack_{_prefix('eig', aval)}geev_ffi", [x], [aval], outs, {}, chars
    )
    w = make_complex(ctx, w[0], w[1], literals.aval_type(w_aval)) if real else w[0]
    ok = _info_ok(ctx, info, batch)
    result = [_replace_not_ok_with_nan(ctx, batch, ok, w, w_aval)]
    for wanted, v in ((compute_left_eigenvectors, vl), (compute_right_eigenvectors, vr)):
        if wanted:
            result.append(_replace_not_ok_with_nan(ctx, batch, ok, v, vec_avals[len(result) - 1]))
    return result


def _iota(ctx: RuleContext, shape: tuple[int, ...], dimension: int) -> Value:
    ty = literals.tensor_type(shape, np.int32)
    spec = Spec("stablehlo.iota", [], {"dimension": dimension})
    return ctx.emit([ty], lambda p: f"stablehlo.iota dim = {dimension} : {ty}", spec=spec)[0]


def _upper_triangle(ctx: RuleContext, r: Value, aval: Any) -> Value:
    """JAX's ``_triu``: zeros where ``row - 1 >= column`` (its ``_tri`` mask, broadcast over the
    batch), the matrix elsewhere."""
    *batch, rows, cols = aval.shape
    shape = (rows, cols)
    below = hlo_op(
        ctx,
        "stablehlo.add",
        _iota(ctx, shape, 0),
        full_like(ctx, -1, ShapedArray(shape, np.dtype(np.int32))),
        out_type=literals.tensor_type(shape, np.int32),
    )
    mask = compare(ctx, "GE", below, _iota(ctx, shape, 1), np.int32, literals.tensor_type(shape, np.bool_))
    if batch:
        mask = broadcast_in_dim(ctx, mask, aval.shape, range(len(batch), len(aval.shape)))
    return select(ctx, mask, full_like(ctx, 0, aval), r)


def _pad_columns(ctx: RuleContext, x: Value, aval: Any, extra: int) -> tuple[Value, Any]:
    out = aval.update(shape=(*aval.shape[:-1], aval.shape[-1] + extra))
    ty, zero = literals.aval_type(out), ctx.constant(np.zeros((), aval.dtype), aval.dtype)
    lo, hi, interior = [0] * len(aval.shape), [0] * (len(aval.shape) - 1) + [extra], [0] * len(aval.shape)
    config = [(0, h, 0) for h in hi]
    text = (
        f"stablehlo.pad {{}}, {{}}, low = [{ints(lo)}], high = [{ints(hi)}], interior = [{ints(interior)}] "
        f": ({x.type}, {zero.type}) -> {ty}"
    )
    spec = Spec("stablehlo.pad", [x, zero], {"config": config})
    return ctx.emit([ty], lambda p: text.format(p(x), p(zero)), spec=spec)[0], out


@register(qr_p)
def _qr(
    ctx: RuleContext, x: Value, *, full_matrices: bool, pivoting: bool, use_magma: None = None
) -> list[Value]:
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    if pivoting or m == 0 or n == 0:
        raise NotImplementedError("StableHLO text of a pivoted qr, or of an empty matrix, is not implemented")
    prefix = _prefix("qr", aval)
    taus_aval = ShapedArray((*batch, min(m, n)), aval.dtype)
    r, taus = lapack_call(ctx, f"lapack_{prefix}geqrf_ffi", [x], [aval], [aval, taus_aval], {0: 0})
    r_aval = aval
    product = f"lapack_{prefix}{'un' if np.dtype(aval.dtype).kind == 'c' else 'or'}gqr_ffi"

    def householder(a: Value, a_aval: Any) -> Value:
        return lapack_call(ctx, product, [a, taus], [a_aval, taus_aval], [a_aval], {0: 0})[0]

    def corner(v: Value, size: int) -> tuple[Value, Any]:
        out = aval.update(shape=(*batch, size, size))
        start, limit = [0] * len(aval.shape), [*batch, size, size]
        return slice_op(ctx, v, start, limit, literals.aval_type(out)), out

    if m < n:
        q = householder(*corner(r, m))
    elif full_matrices:
        q = householder(*_pad_columns(ctx, r, aval, m - n))
    else:
        q = householder(r, aval)
        r, r_aval = corner(r, n)
    return [q, _upper_triangle(ctx, r, r_aval)]


def _or_un(aval: Any) -> str:
    return "un" if np.dtype(aval.dtype).kind == "c" else "or"


@register(geqrf_p)
def _geqrf(ctx: RuleContext, a: Value) -> list[Value]:
    aval = ctx.avals_in[0]
    return lapack_call(ctx, f"lapack_{_prefix('geqrf', aval)}geqrf_ffi", [a], [aval], ctx.avals_out, {0: 0})


@register(householder_product_p)
def _householder_product(ctx: RuleContext, a: Value, taus: Value) -> list[Value]:
    aval = ctx.avals_in[0]
    target = f"lapack_{_prefix('householder_product', aval)}{_or_un(aval)}gqr_ffi"
    return lapack_call(ctx, target, [a, taus], ctx.avals_in, ctx.avals_out, {0: 0})


@register(ormqr_p)
def _ormqr(ctx: RuleContext, a: Value, taus: Value, c: Value, *, left: bool, transpose: bool) -> list[Value]:
    aval = ctx.avals_in[0]
    target = f"lapack_{_prefix('ormqr', aval)}{_or_un(aval)}mqr_ffi"
    attrs = {"left": str(left).lower(), "transpose": str(transpose).lower()}
    return lapack_call(ctx, target, [a, taus, c], ctx.avals_in, ctx.avals_out, {2: 0}, attrs=attrs)


@register(hessenberg_p)
def _hessenberg(ctx: RuleContext, a: Value) -> list[Value]:
    aval = ctx.avals_in[0]
    batch = tuple(aval.shape[:-2])
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    target = f"lapack_{_prefix('hessenberg', aval)}gehrd_ffi"
    attrs = {"low": "1 : i32", "high": f"{aval.shape[-1]} : i32"}
    *outs, info = lapack_call(ctx, target, [a], [aval], [*ctx.avals_out, info_aval], {0: 0}, attrs=attrs)
    ok = _info_ok(ctx, info, batch)
    return [_replace_not_ok_with_nan(ctx, batch, ok, x, x_aval) for x, x_aval in zip(outs, ctx.avals_out)]


@register(schur_p)
def _schur(
    ctx: RuleContext, x: Value, *, compute_schur_vectors: bool, sort_eig_vals: bool, select_callable: Any
) -> list[Value]:
    if sort_eig_vals:  # (JAX refuses it too)
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
    aval = ctx.avals_in[0]
    batch = tuple(aval.shape[:-2])
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    values = ShapedArray(aval.shape[:-1], aval.dtype)
    real = np.dtype(aval.dtype).kind == "f"
    outs = [aval, aval, values, values] if real else [aval, aval, values]
    chars = {"mode": "V" if compute_schur_vectors else "N", "sort": "N"}
    target = f"lapack_{_prefix('schur', aval)}gees_ffi"
    t, z, *_, info = lapack_call(ctx, target, [x], [aval], [*outs, info_aval, info_aval], {0: 0}, chars)
    ok = _info_ok(ctx, info, batch)
    result = [_replace_not_ok_with_nan(ctx, batch, ok, t, ctx.avals_out[0])]
    if compute_schur_vectors:
        result.append(_replace_not_ok_with_nan(ctx, batch, ok, z, ctx.avals_out[1]))
    return result
