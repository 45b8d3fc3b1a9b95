"""Refs made inside ``vmap``, as JAX batches them: the ref itself is batched (``new_ref`` of the
batched value; an unbatched value is broadcast first, since a batched value may be written into it
later), so ``make_jaxpr(vmap(f))`` prints ``new_ref`` / ``freeze`` and reads and writes whose index
gains the batch dimension (``b[:,1]``). JAX's ``_array_ref_batched`` and its get / swap / addupdate
batching of a static index.

An index with traced operands that are batched, or integer arrays, keeps the general rule of
``primitives`` (read the whole ref, index each member, write it back whole).
"""

from __future__ import annotations

import weakref
from typing import Any, Sequence

from .. import batching
from ..batching import BatchTracer, not_mapped
from ..core import Value
from .jvp import _busy
from .primitives import _get_batch, _write_batch, addupdate_p, get_p, new_ref_p, swap_p
from .types import Indexer, PyTreeDef, Ref, index_tree, tree_indexer

# Eager refs a vmap made (batched buffers): writes into them are the vmap's own.
made_inside: "weakref.WeakSet[Ref]" = weakref.WeakSet()


def is_batching(main: Any) -> bool:
    """A ``vmap`` trace above any discharge, inside no linearization (one inside it, as the vmap
    of a ``grad``, makes its primal refs here)."""
    from .jvp import linearizing
    from .primitives import discharging

    return (
        main.trace_type is batching.BatchTrace
        and main.level > max(discharging, default=0)
        and not linearizing(main.level)
    )


def new_ref_vmap(main: Any, x: Value, params: dict[str, Any]) -> Value:
    trace = main.trace or main.trace_type(main)
    t = trace.full_raise(x)
    _busy.append(main.level)
    try:
        if t.batch_dim is not_mapped:
            val, dim = batching.broadcast_at(t.val, trace.axis_size, 0), 0
        else:
            val, dim = t.val, t.batch_dim
        ref = new_ref_p.bind(val, **params)
    finally:
        _busy.pop()
    return BatchTracer(trace, ref, dim)


def _with_batch_dim(
    indexer: Indexer, operands: Sequence[Value], rd: int, size: int
) -> tuple[Indexer, int] | None:
    """``indexer`` with a whole slice of the batch dimension at ``rd``, and where that dimension is
    in the result; None for an index with an integer array (its dimensions go elsewhere)."""
    dims = list(indexer.dims)
    it = iter(operands)
    for d in dims:
        if d[0] in ("array", "dslice"):  # (each takes an operand; a dslice's start is a scalar)
            operand = next(it)
            if d[0] == "array" and getattr(operand, "ndim", 0) != 0:
                return None
    dims.insert(rd, ("slice", 0, size, 1))
    out_dim = sum(1 for d in dims[:rd] if d[0] == "slice")
    return Indexer(dims), out_dim


def _static_case(
    size: int, vals: Sequence[Value], dims: Sequence[Any], n_lead: int, indexer: Indexer | None
) -> Any:
    idx, rd = vals[n_lead:], dims[0]
    if rd is not_mapped or any(d is not not_mapped for d in dims[n_lead:]):
        return None
    if indexer is None:
        return None, rd
    return _with_batch_dim(indexer, idx, rd, size)


def _refuse_batched_starts(indexer: Indexer | None, idx: Sequence[Value], dims: Sequence[Any]) -> None:
    """JAX's refusal of a ``jax.ds`` whose start differs per member."""
    if indexer is None:
        return
    operand_dims = [d for d in indexer.dims if d[0] in ("array", "dslice")]
    for d, v, bd in zip(operand_dims, idx, dims):
        if d[0] == "dslice" and bd is not not_mapped:
            raise NotImplementedError(
                f"No support for vmapping over nontrivial slices just yet: Slice(start={v!r}, size={d[1]}, "
                f"stride={d[2]})"
            )


def _get_vmap(size: int, vals: Sequence[Value], dims: Sequence[Any], *, tree: PyTreeDef) -> Any:
    indexer = tree_indexer(tree)
    _refuse_batched_starts(indexer, vals[1:], dims[1:])
    case = _static_case(size, vals, dims, 1, indexer)
    if case is None:
        return _get_batch(size, vals, dims, tree=tree)
    new, out_dim = case
    return get_p.bind(vals[0], *vals[1:], tree=index_tree(new)), out_dim


def _write_vmap(prim: Any) -> Any:
    general = _write_batch(prim)

    def rule(size: int, vals: Sequence[Value], dims: Sequence[Any], *, tree: PyTreeDef) -> Any:
        indexer = tree_indexer(tree)
        _refuse_batched_starts(indexer, vals[2:], dims[2:])
        case = _static_case(size, vals, dims, 2, indexer)
        if case is None:
            return general(size, vals, dims, tree=tree)
        new, out_dim = case
        val, vd = vals[1], dims[1]
        if vd is not_mapped:
            val = batching.broadcast_at(val, size, out_dim)
        else:
            val = batching.moveaxis(val, vd, out_dim)
        if prim is swap_p:
            return swap_p.bind(vals[0], val, *vals[2:], tree=index_tree(new)), out_dim
        return addupdate_p.bind(vals[0], val, *vals[2:], tree=index_tree(new)), []

    return rule


batching.batch_rules[get_p] = _get_vmap
batching.batch_rules[swap_p] = _write_vmap(swap_p)
batching.batch_rules[addupdate_p] = _write_vmap(addupdate_p)
