"""StableHLO rules for the LAPACK-backed linear algebra primitives, lowered for the CPU as JAX's
``lax/linalg.py`` lowers them: ``lu`` is a ``lapack_?getrf_ffi`` custom call (column-major
layouts, batch dimensions announced to the partitioner), its 1-based pivots made 0-based, a failed
factorization's matrix replaced by NaNs, and the permutation JAX's generic
``lu_pivots_to_permutation`` computes (a ``fori_loop`` of row swaps), traced and inlined."""

from __future__ import annotations

import string
from typing import Any, Sequence

import numpy as np

from ..core import ShapedArray
from ..lax.linalg import lu_p, triangular_solve_p
from ..lax.linalg_pivots import lu_pivots_to_permutation, lu_pivots_to_permutation_p
from . import literals
from .lowering import RuleContext, register
from .rules_elementwise import broadcast_in_dim, compare, full_like, hlo_op, select
from .syntax import Spec, Value, functional_type

# LAPACK's type letter of each dtype (JAX's prepare_lapack_call)
_LAPACK_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}


def _column_major_layout(rank: int) -> tuple[int, ...]:
    """The minor-to-major layout of a batch of Fortran-ordered matrices."""
    return (rank - 2, rank - 1, *range(rank - 3, -1, -1))


def _row_major_layout(rank: int) -> tuple[int, ...]:
    return tuple(range(rank - 1, -1, -1))


def _layout_text(layout: Sequence[int]) -> str:
    arr = np.asarray(layout, np.int64)
    return f"{literals.dense_text(arr, np.int64)} : tensor<{arr.size}xindex>"


def _sharding_rule(n_batch: int, avals_in: Sequence[Any], avals_out: Sequence[Any]) -> str:
    """JAX's ``_build_sdy_sharding_rule``: the leading batch dimensions share one factor each across
    operands and results, every other dimension is a factor of its own; MLIR names the factors
    ``i``, ``j``, ... in the order they first appear and lists their sizes."""
    sizes: list[int] = []

    def dims(aval: Any) -> str:
        names = []
        for d, size in enumerate(aval.shape):
            if d < n_batch:
                index = d
            else:
                index = len(sizes)
                sizes.append(size)
            names.append(index)
        return "[" + ", ".join(string.ascii_lowercase[8 + k] for k in names) + "]"

    sizes.extend(avals_in[0].shape[:n_batch])  # (the batch factors come first: the operand leads)
    lhs = ", ".join(dims(a) for a in avals_in)
    rhs = ", ".join(dims(a) for a in avals_out)
    if len(sizes) > 18:  # (past ``z`` MLIR's names take another form)
        raise NotImplementedError("StableHLO text of a linalg custom call with over 18 factors")
    factors = ", ".join(f"{string.ascii_lowercase[8 + k]}={s}" for k, s in enumerate(sizes))
    return f"#sdy.op_sharding_rule<({lhs})->({rhs}) {{{factors}}}, custom>"


def lapack_call(
    ctx: RuleContext,
    target: str,
    operands: Sequence[Value],
    avals_in: Sequence[Any],
    avals_out: Sequence[Any],
    aliases: dict[int, int],
    chars: dict[str, str] | None = None,
    attrs: dict[str, str] | None = None,
) -> list[Value]:
    """JAX's ``_linalg_ffi_lowering``: the operands and results of the largest rank column-major,
    the others row-major, the leading dimensions the matrices' batch; ``chars`` are the call's
    one-character LAPACK options (``side = "L"``), passed as ``ui8`` attributes, ``attrs`` other
    options as MLIR prints them (``low = 1 : i32``, ``left = true``)."""
    rendered = {k: f"{ord(c)} : ui8" for k, c in (chars or {}).items()} | (attrs or {})
    rank = max(len(a.shape) for a in avals_in)
    n_batch = rank - 2

    def layout(aval: Any) -> str:
        r = len(aval.shape)
        return _layout_text(_column_major_layout(r) if r == rank else _row_major_layout(r))

    multi = len(avals_out) > 1
    alias_text = ", ".join(
        f"#stablehlo.output_operand_alias<output_tuple_indices = [{o if multi else ''}], "
        f"operand_index = {i}, operand_tuple_indices = []>"
        for i, o in aliases.items()
    )
    config = ", ".join(f"{k} = {v}" for k, v in sorted(rendered.items()))
    attrs = [
        'backend_config = ""',
        f"mhlo.backend_config = {{{config}}}",
        f'mhlo.frontend_attributes = {{num_batch_dims = "{n_batch}"}}',
        f"operand_layouts = [{', '.join(layout(a) for a in avals_in)}]",
    ]
    if aliases:
        attrs.append(f"output_operand_aliases = [{alias_text}]")
    attrs.append(f"result_layouts = [{', '.join(layout(a) for a in avals_out)}]")
    attrs.append(f"sdy.sharding_rule = {_sharding_rule(n_batch, avals_in, avals_out)}")
    types = [literals.aval_type(a) for a in avals_out]
    sig = functional_type([v.type for v in operands], types)
    text = "{" + ", ".join(attrs) + "}"
    minor_to_major = lambda a: (
        _column_major_layout(len(a.shape)) if len(a.shape) == rank else _row_major_layout(len(a.shape))
    )  # noqa: E731
    spec = Spec(  # (what the HLO printer reads)
        "stablehlo.custom_call",
        operands,
        {
            "target": target,
            "lapack": True,
            "backend_config": f"{{{config}}}",
            "operand_layouts": [minor_to_major(a) for a in avals_in],
            "result_layouts": [minor_to_major(a) for a in avals_out],
            "output_aliases": [(i, o if multi else None) for i, o in aliases.items()],
            "frontend": {
                "num_batch_dims": str(n_batch),
                "xla.sdy.sharding_rule": _sharding_rule(n_batch, avals_in, avals_out),
            },
        },
    )
    render = lambda p: f"stablehlo.custom_call @{target}({p.list(operands)}) {text} : {sig}"  # noqa: E731
    return ctx.emit(types, render, spec=spec)


def _replace_not_ok_with_nan(
    ctx: RuleContext, batch: tuple[int, ...], ok: Value, x: Value, aval: Any
) -> Value:
    """Where ``ok`` is false (LAPACK's info < 0) the matrix is all NaN."""
    select_shape = (*batch, *(1,) * (len(aval.shape) - len(batch)))
    which = broadcast_in_dim(ctx, ok, select_shape, range(len(batch)))
    nan = complex(np.nan, np.nan) if np.dtype(aval.dtype).kind == "c" else np.nan
    nans = full_like(ctx, nan, aval)
    if select_shape != tuple(aval.shape):  # (JAX's multi_broadcast_in_dim)
        which = broadcast_in_dim(ctx, which, aval.shape, range(len(aval.shape)))
    return select(ctx, which, x, nans)


@register(lu_p)
def _lu(ctx: RuleContext, x: Value) -> list[Value]:
    aval = ctx.avals_in[0]
    out_aval, pivot_aval, perm_aval = ctx.avals_out
    prefix = _LAPACK_PREFIX.get(np.dtype(aval.dtype).name)
    if prefix is None:
        raise NotImplementedError(f"StableHLO text of lu of {np.dtype(aval.dtype).name} is not implemented")
    batch = tuple(aval.shape[:-2])
    info_aval = ShapedArray(batch, np.dtype(np.int32))
    lu, pivots, info = lapack_call(
        ctx, f"lapack_{prefix}getrf_ffi", [x], [aval], [out_aval, pivot_aval, info_aval], {0: 0}
    )
    pivots = hlo_op(ctx, "stablehlo.subtract", pivots, full_like(ctx, 1, pivot_aval), out_type=pivots.type)
    bool_type = literals.tensor_type(batch, np.bool_)
    ok = compare(ctx, "GE", info, full_like(ctx, 0, info_aval), np.int32, bool_type)
    lu = _replace_not_ok_with_nan(ctx, batch, ok, lu, out_aval)
    m = aval.shape[-2]
    perm = _inline(ctx, lambda p: lu_pivots_to_permutation(p, m), [pivot_aval], [pivots])
    return [lu, pivots, perm]


def _inline(ctx: RuleContext, fun: Any, avals: Sequence[Any], args: Sequence[Value]) -> Value:
    """JAX's ``mlir.lower_fun``: ``fun`` traced at ``avals`` and its equations emitted in place."""
    from ..staging import trace_to_jaxpr

    closed = trace_to_jaxpr(lambda *xs: [fun(*xs)], list(avals))
    return ctx.lower_jaxpr(ctx.block, closed, args)[0]


def _generic_pivots_to_permutation(swaps: Any, permutation_size: int) -> Any:
    """JAX's ``_generic_lu_pivots_to_permutation``: start from ``iota`` and, for each ``i`` in
    order, swap entries ``i`` and ``swaps[i]`` (vmapped over the batch)."""
    from ..api import vmap
    from ..lax.api import broadcasted_iota
    from ..lax.loops import fori_loop

    batch, k = swaps.shape[:-1], swaps.shape[-1]
    permutation = broadcasted_iota(np.int32, (*batch, permutation_size), len(batch))
    if permutation_size == 0 or k == 0:
        return permutation

    def swap(i: Any, perm: Any, sw: Any) -> Any:
        j = sw[i]
        a, b = perm[i], perm[j]
        return perm.at[i].set(b).at[j].set(a)

    def body(i: Any, carry: Any) -> Any:
        perm, sw = carry
        fn = swap
        for _ in batch:
            fn = vmap(fn, in_axes=(None, 0, 0), out_axes=0)
        return fn(i, perm, sw), sw

    out, _ = fori_loop(np.array(0, np.int32), np.array(k, np.int32), body, (permutation, swaps))
    return out


@register(lu_pivots_to_permutation_p)
def _lu_pivots_to_permutation(ctx: RuleContext, pivots: Value, *, permutation_size: int) -> list[Value]:
    fun = lambda p: _generic_pivots_to_permutation(p, permutation_size)  # noqa: E731
    return [_inline(ctx, fun, ctx.avals_in, [pivots])]


@register(triangular_solve_p)
def _triangular_solve(
    ctx: RuleContext,
    a: Value,
    b: Value,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> list[Value]:
    a_aval, b_aval = ctx.avals_in
    prefix = _LAPACK_PREFIX.get(np.dtype(a_aval.dtype).name)
    if prefix is None:
        raise NotImplementedError(
            f"StableHLO text of triangular_solve of {np.dtype(a_aval.dtype).name} is not implemented"
        )
    if conjugate_a and not transpose_a:  # (LAPACK conjugates only with a transpose)
        a_in = a
        a = ctx.emit([a.type], lambda p: f"chlo.conj {p(a_in)} : {a_in.type} -> {a_in.type}")[0]
        conjugate_a = False
    chars = {
        "side": "L" if left_side else "R",
        "uplo": "L" if lower else "U",
        "trans_x": ("C" if conjugate_a else "T") if transpose_a else "N",
        "diag": "U" if unit_diagonal else "N",
    }
    target = f"lapack_{prefix}trsm_ffi"
    return lapack_call(ctx, target, [a, b], [a_aval, b_aval], ctx.avals_out, {1: 0}, chars)
