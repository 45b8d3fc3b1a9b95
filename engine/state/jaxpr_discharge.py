"""JAX's ``discharge_state`` on a jaxpr: a stateful jaxpr as a pure one, for lowering.

Each ref the jaxpr takes (where asked) becomes its value, each ``new_ref`` its initial value and each
``freeze`` the ref's value; reads and writes become the array operations JAX's discharge rules emit
(a static ``slice``, a ``dynamic_slice`` / ``dynamic_update_slice``, or a gather / scatter), and the
refs' final values are extra outputs after the jaxpr's own. ``jit`` bodies, ``cond`` branches and
``while`` / ``scan`` bodies that use refs are discharged by the rules in ``discharge_rules``.

This is what ``jit(f).lower(...)`` does before it prints StableHLO (``engine.stablehlo.refs``); the
engine's own runtime discharges refs as they are bound (``discharge``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import core, ir
from ..core import Tracer, Value
from ..ir import ClosedJaxpr, Jaxpr, Literal, Var
from ..staging import trace_to_jaxpr
from .primitives import addupdate_p, freeze_p, get_p, new_ref_p, swap_p
from .types import AbstractRef, Indexer, PyTreeDef, tree_indexer


def has_state(closed: ClosedJaxpr) -> bool:
    """Whether ``closed`` takes, holds or makes refs (JAX then discharges it before lowering)."""
    return (
        any(isinstance(a, AbstractRef) for a in closed.in_avals)
        or any(isinstance(getattr(v, "aval", None), AbstractRef) for v in closed.jaxpr.constvars)
        or ir.has_ref_effects(closed.jaxpr)
    )


def discharge_state(closed: ClosedJaxpr, should_discharge: Sequence[bool] | None = None) -> ClosedJaxpr:
    """``closed`` without state: the refs among its inputs (those ``should_discharge`` names, by
    default all) taken as values, their final values output after its own outputs."""
    j = closed.jaxpr
    if should_discharge is None:
        should_discharge = [True] * len(j.in_binders)
    mask = [isinstance(v.aval, AbstractRef) and d for v, d in zip(j.in_binders, should_discharge)]
    in_avals = [v.aval.inner_aval if m else v.aval for v, m in zip(j.in_binders, mask)]  # type: ignore[attr-defined]
    return trace_to_jaxpr(lambda *args: _eval(j, closed.consts, args, mask), in_avals)


def _eval(jaxpr: Jaxpr, consts: Sequence[Value], args: Sequence[Value], mask: Sequence[bool]) -> list[Value]:
    env: dict[Var, Value] = {}

    def read(x: Any) -> Value:
        return x.val if type(x) is Literal else env[x]

    for v, c in zip(jaxpr.constvars, consts):
        env[v] = c
    for v, a in zip(jaxpr.in_binders, args):
        env[v] = a
    refs = {v for v, m in zip(jaxpr.in_binders, mask) if m}  # the ref variables whose values env holds
    for eqn in jaxpr.eqns:
        ins = [read(x) for x in eqn.inputs]
        prim = eqn.primitive
        with core.source_info_context(eqn.source_info):
            if prim is new_ref_p:
                outs: Any = ins[0]
                refs.add(eqn.out_binders[0])
            elif prim is freeze_p:
                outs = ins[0]
            elif prim in (get_p, swap_p, addupdate_p) and eqn.inputs[0] in refs:
                new_ref_value, outs = _state_rules[prim](*ins, **eqn.params)
                if new_ref_value is not None:
                    env[eqn.inputs[0]] = new_ref_value
            elif prim.name in discharge_rules and (
                any(type(x) is Var and x in refs for x in eqn.inputs)
                or any(ir.has_ref_effects(s) for s in ir.subjaxprs(eqn))
            ):
                which = [type(x) is Var and x in refs for x in eqn.inputs]
                new_values, outs = discharge_rules[prim.name](which, ins, **eqn.params)
                for x, w, new in zip(eqn.inputs, which, new_values):
                    if w:
                        env[x] = new  # type: ignore[index]
            elif prim in (get_p, swap_p, addupdate_p) or any(
                type(x) is Var and x in refs for x in eqn.inputs
            ):
                raise NotImplementedError(
                    f"StableHLO text for refs used by '{prim.name}' is not implemented in the engine"
                )
            else:
                outs = prim.bind(*ins, **eqn.params)
        if prim.multiple_results:
            for v, o in zip(eqn.out_binders, outs):
                env[v] = o
        else:
            env[eqn.out_binders[0]] = outs
    return [*(read(x) for x in jaxpr.outs), *(env[v] for v, m in zip(jaxpr.in_binders, mask) if m)]


# ---------------------------------------------------------------------------------------------
# get / swap / addupdate: each returns (the ref's new value or None, the equation's outputs).


class _Slice:
    __slots__ = ("start", "size", "stride")

    def __init__(self, start: int, size: int, stride: int):
        self.start, self.size, self.stride = start, size, stride


def _indices(indexer: Indexer, operands: Sequence[Value]) -> list[Any]:
    """JAX's NDIndexer entries: a ``_Slice``, or an index (a scalar or an integer array)."""
    it = iter(operands)
    out: list[Any] = []
    for d in indexer.dims:
        if d[0] == "slice":
            out.append(_Slice(d[1], d[2], d[3]))
        elif d[0] == "dslice":
            out.append(_Slice(next(it), d[1], d[2]))  # (its start an operand)
        elif d[0] == "int":
            out.append(np.int32(d[1]))
        else:
            i = next(it)
            # (a constant index array is a numpy array in JAX's jaxpr: its ``< 0`` is computed then)
            out.append(i if isinstance(i, Tracer) else np.asarray(core.to_numpy(i)))
    return out


def _is_trivial(indexer: Indexer | None, shape: Sequence[int]) -> bool:
    if indexer is None:
        return True
    return all(d[0] == "slice" and d[1] == 0 and d[2] == n for d, n in zip(indexer.dims, shape))


def _as_slice(idx: list[Any]) -> list[tuple[int, int, int]] | None:
    if not all(type(i) is _Slice and type(i.start) is int for i in idx):
        return None
    return [(i.start, i.start + (i.size - 1) * i.stride + 1, i.stride) for i in idx]


def _to_i32(x: Any) -> Any:
    from .. import lax

    return lax.convert_element_type(x, np.int32)


def _as_dynamic_slice(idx: list[Any]) -> tuple[list[Any], list[int], tuple[int, ...]] | None:
    if not all(type(i) is _Slice or not np.shape(i) for i in idx):
        return None
    if any(type(i) is _Slice and i.stride > 1 for i in idx):
        return None
    starts = [
        _to_i32(np.int32(i.start) if type(i.start) is int else i.start) if type(i) is _Slice else _to_i32(i)
        for i in idx
    ]
    sizes = [i.size if type(i) is _Slice else 1 for i in idx]
    squeeze = tuple(k for k, i in enumerate(idx) if type(i) is not _Slice)
    return starts, sizes, squeeze


def _transpose_order(idx: list[Any]) -> tuple[int, ...] | None:
    ints = [k for k, i in enumerate(idx) if type(i) is not _Slice]
    if all(b - a == 1 for a, b in zip(ints, ints[1:])):
        return None
    return (*ints, *(k for k, i in enumerate(idx) if type(i) is _Slice))


def _gather_arrays(idx: list[Any]) -> tuple[Any, ...]:
    """JAX's ``_convert_to_gather_arrays``: every entry as an integer array, broadcasting to the
    indexed shape (the integer indices' shape where they stand, each slice's size in its place)."""
    from .. import lax

    is_int = [type(i) is not _Slice for i in idx]
    int_shape = np.broadcast_shapes(*(np.shape(i) for i, b in zip(idx, is_int) if b)) if any(is_int) else ()
    n = len(idx)
    if any(is_int):
        first = is_int.index(True)
        last = n - 1 - is_int[::-1].index(True)
        n_int = sum(is_int)
        total = [*(i.size for i in idx[:first]), *int_shape, *(i.size for i in idx[last + 1 :])]
    else:
        first = last = n_int = 0
        total = [i.size for i in idx]

    def position(k: int) -> int:
        return k if not any(is_int) or k < first else k - n_int + len(int_shape)

    arrays: list[Any] = []
    for k, i in enumerate(idx):
        if type(i) is _Slice:
            p = position(k)
            a = lax.iota(np.int32, total[p]) * i.stride + i.start
            arrays.append(a.reshape(a.shape + (1,) * (len(total) - p - 1)))
        else:
            arrays.append(i.reshape(np.shape(i) + (1,) * (n - 1 - last)))
    return tuple(arrays)


def _gathered(x: Value, idx: list[Any]) -> tuple[Value, list[Any], tuple[int, ...] | None]:
    order = _transpose_order(idx)
    if order is not None:
        x = x.transpose(order)  # type: ignore[union-attr]
        idx = [idx[k] for k in order]
    return x, idx, order


def _read(x: Value, indexer: Indexer | None, operands: Sequence[Value]) -> Value:
    from .. import lax

    if _is_trivial(indexer, np.shape(x)):
        return x
    assert indexer is not None
    idx = _indices(indexer, operands)
    static = _as_slice(idx)
    if static is not None:
        starts, ends, strides = zip(*static)
        return lax.slice(x, starts, ends, strides)
    dyn = _as_dynamic_slice(idx)
    if dyn is not None:
        starts, sizes, squeeze = dyn
        y = lax.dynamic_slice(x, starts, sizes)
        return lax.squeeze(y, squeeze) if squeeze else y
    x, idx, _ = _gathered(x, idx)
    return x[_gather_arrays(idx)]  # type: ignore[index]


def _get(x: Value, *operands: Value, tree: PyTreeDef) -> tuple[None, Value]:
    indexer = tree_indexer(tree)
    return None, _read(x, indexer, operands)


def _swap(x: Value, val: Value, *operands: Value, tree: PyTreeDef) -> tuple[Value, Value]:
    from .. import lax

    indexer = tree_indexer(tree)

    if _is_trivial(indexer, np.shape(x)):
        return val, x
    assert indexer is not None
    idx = _indices(indexer, operands)
    dyn = _as_dynamic_slice(idx)
    if dyn is not None:
        starts, sizes, squeeze = dyn
        old = lax.dynamic_slice(x, starts, sizes)
        if squeeze:
            old = lax.squeeze(old, squeeze)
        starts2 = _as_dynamic_slice(idx)[0]  # type: ignore[index]  # (JAX converts the starts again)
        new = lax.expand_dims(val, squeeze) if squeeze else val
        return lax.dynamic_update_slice(x, new, starts2), old
    y, gidx, order = _gathered(x, idx)
    arrays = _gather_arrays(gidx)
    old = y[arrays]  # type: ignore[index]
    y2, gidx2, _ = _gathered(x, idx)
    new = y2.at[_gather_arrays(gidx2)].set(val)  # type: ignore[union-attr]
    if order is not None:
        new = new.transpose(tuple(np.argsort(order)))
    return new, old


def _addupdate(x: Value, val: Value, *operands: Value, tree: PyTreeDef) -> tuple[Value, list[Value]]:
    from .. import lax

    indexer = tree_indexer(tree)

    if _is_trivial(indexer, np.shape(x)):
        return x + val, []  # type: ignore[operator]
    assert indexer is not None
    idx = _indices(indexer, operands)
    dyn = _as_dynamic_slice(idx)
    if dyn is not None:
        starts, sizes, squeeze = dyn
        old = lax.dynamic_slice(x, starts, sizes)
        new = lax.expand_dims(val, squeeze) if squeeze else val
        return lax.dynamic_update_slice(x, old + new, starts), []
    y, gidx, order = _gathered(x, idx)
    y = y.at[_gather_arrays(gidx)].add(val)  # type: ignore[union-attr]
    if order is not None:
        y = y.transpose(tuple(np.argsort(order)))
    return y, []


_state_rules: dict[core.Primitive, Callable[..., tuple[Any, Any]]] = {
    get_p: _get,
    swap_p: _swap,
    addupdate_p: _addupdate,
}


# ---------------------------------------------------------------------------------------------
# Higher-order primitives: ``rule(which, args, **params)`` -> (each operand's new value where
# ``which`` marks a ref, the equation's outputs).


def _jit(which: Sequence[bool], args: Sequence[Value], *, jaxpr: ClosedJaxpr, **params: Any) -> Any:
    from ..jit_primitive import jit_p, staged_like, with_body

    inner = discharge_state(jaxpr, which)
    staged_like(inner, jaxpr)  # (the call is named as the one it discharges: jit(f), jvp(jit(f)))
    outs = jit_p.bind(*args, **with_body(params, inner))
    n = len(jaxpr.jaxpr.outs)
    finals = iter(outs[n:])
    return [next(finals) if w else None for w in which], outs[:n]


def _cond(
    which: Sequence[bool], args: Sequence[Value], *, branches: tuple[ClosedJaxpr, ...], **params: Any
) -> Any:
    """Each branch discharged; a ref no branch changes (every branch returns its input) is not
    threaded through the cond."""
    from ..lax.cond import cond_p

    index, ops = args[0], args[1:]
    done = [discharge_state(b, which[1:]) for b in branches]
    n = len(branches[0].jaxpr.outs)
    forwarded: list[int | None] | None = None
    for b in done:
        pos = {v: k for k, v in enumerate(b.jaxpr.in_binders)}
        fwd = [pos.get(v) if type(v) is Var else None for v in b.jaxpr.outs[n:]]
        forwarded = fwd if forwarded is None else [i if i == j else None for i, j in zip(forwarded, fwd)]
    assert forwarded is not None
    keep = [True] * n + [f is None for f in forwarded]
    new = tuple(
        ClosedJaxpr(
            Jaxpr(
                b.jaxpr.constvars,
                b.jaxpr.in_binders,
                b.jaxpr.eqns,
                [o for o, k in zip(b.jaxpr.outs, keep) if k],
            ),
            b.consts,
        )
        for b in done
    )
    outs = cond_p.bind(index, *ops, branches=new, **params)
    rest = iter(outs[n:])
    finals = iter([next(rest) if f is None else ops[f] for f in forwarded])
    return [None, *(next(finals) if w else None for w in which[1:])], outs[:n]


def _while(
    which: Sequence[bool],
    args: Sequence[Value],
    *,
    cond_jaxpr: ClosedJaxpr,
    body_jaxpr: ClosedJaxpr,
    cond_nconsts: int,
    body_nconsts: int,
) -> Any:
    """JAX's rule: the body's refs (then the cond's) become carries ahead of the loop's own; the
    cond reads its refs' values and writes none."""
    from ..lax.loops import while_p

    nc, nb = cond_nconsts, body_nconsts
    cw, bw = list(which[:nc]), list(which[nc : nc + nb])
    if any(which[nc + nb :]):
        raise NotImplementedError(
            "StableHLO text for a while loop carrying a ref is not implemented in the engine"
        )
    cc, bc, carry = args[:nc], args[nc : nc + nb], args[nc + nb :]
    dcond = discharge_state(cond_jaxpr, [*cw, *[False] * len(carry)])
    dbody = discharge_state(body_jaxpr, [*bw, *[False] * len(carry)])
    if len(dcond.jaxpr.outs) > 1 and any(
        o is not v for o, v in zip(dcond.jaxpr.outs[1:], [v for v, w in zip(dcond.jaxpr.in_binders, cw) if w])
    ):
        raise NotImplementedError(
            "StableHLO text for a while loop whose cond writes a ref is not implemented in the engine"
        )
    c_pure = [a for a, w in zip(cc, cw) if not w]
    b_pure = [a for a, w in zip(bc, bw) if not w]
    b_refs = [a for a, w in zip(bc, bw) if w]
    c_refs = [a for a, w in zip(cc, cw) if w]
    nbr, ncr = len(b_refs), len(c_refs)

    def merge(mask: Sequence[bool], pure: Sequence[Any], refs: Sequence[Any]) -> list[Any]:
        p, r = iter(pure), iter(refs)
        return [next(r) if m else next(p) for m in mask]

    def body(*xs: Value) -> list[Value]:
        consts, brefs, crefs, c = (
            xs[: len(b_pure)],
            xs[len(b_pure) : len(b_pure) + nbr],
            xs[len(b_pure) + nbr : len(b_pure) + nbr + ncr],
            xs[len(b_pure) + nbr + ncr :],
        )
        outs = ir.eval_jaxpr(dbody.jaxpr, [*merge(bw, consts, brefs), *c], dbody.consts)
        return [*outs[len(c) :], *crefs, *outs[: len(c)]]

    def cond(*xs: Value) -> list[Value]:
        consts, crefs, c = (
            xs[: len(c_pure)],
            xs[len(c_pure) + nbr : len(c_pure) + nbr + ncr],
            xs[len(c_pure) + nbr + ncr :],
        )
        return ir.eval_jaxpr(dcond.jaxpr, [*merge(cw, consts, crefs), *c], dcond.consts)[:1]

    ref_avals = [core.get_aval(a) for a in [*b_refs, *c_refs]]
    carry_avals = [core.get_aval(a) for a in carry]
    new_body = trace_to_jaxpr(body, [*(core.get_aval(a) for a in b_pure), *ref_avals, *carry_avals])
    new_cond = trace_to_jaxpr(cond, [*(core.get_aval(a) for a in c_pure), *ref_avals, *carry_avals])
    outs = while_p.bind(
        *c_pure,
        *b_pure,
        *b_refs,
        *c_refs,
        *carry,
        cond_jaxpr=new_cond,
        body_jaxpr=new_body,
        cond_nconsts=len(c_pure),
        body_nconsts=len(b_pure),
    )
    b_out, c_out, carry_out = outs[:nbr], outs[nbr : nbr + ncr], outs[nbr + ncr :]
    new_values = [*merge(cw, [None] * len(c_pure), c_out), *merge(bw, [None] * len(b_pure), b_out)]
    return [*new_values, *[None] * len(carry)], carry_out


# JAX's ``eval_jaxpr_p``, which its scan rule binds on the discharged body: lowered as a call of a
# private function ``closed_call`` (``engine.stablehlo.rules_state``). Its other rules, for the
# known half of a remat'ed scan that JAX runs in one: ``engine.closed_call``.
closed_call_p = core.Primitive("closed_call", multiple_results=True)
core.abstract_eval_rules[closed_call_p] = lambda *avals, call_jaxpr, **_: list(call_jaxpr.out_avals)


def _scan(
    which: Sequence[bool],
    args: Sequence[Value],
    *,
    jaxpr: ClosedJaxpr,
    num_consts: int,
    num_carry: int,
    length: int,
    reverse: bool,
    **params: Any,
) -> Any:
    """JAX's rule: the refs among the consts become carries after a step counter (that JAX adds for
    refs among the scanned arrays), the discharged body a ``closed_call`` inside the new body."""
    from ..lax.scan import scan_p

    if any(which[num_consts:]):
        raise NotImplementedError(
            "StableHLO text for a scan carrying or scanning a ref is not implemented in the engine"
        )
    cw = list(which[:num_consts])
    dis = discharge_state(jaxpr, which)
    consts, carry, xs = (
        args[:num_consts],
        args[num_consts : num_consts + num_carry],
        args[num_consts + num_carry :],
    )
    pure = [a for a, w in zip(consts, cw) if not w]
    refs = [a for a, w in zip(consts, cw) if w]
    n_ys = len(jaxpr.jaxpr.outs) - num_carry

    def body(*vals: Value) -> list[Value]:
        p, i_ = vals[: len(pure)], vals[len(pure)]
        r = vals[len(pure) + 1 : len(pure) + 1 + len(refs)]
        rest = vals[len(pure) + 1 + len(refs) :]
        c, x = rest[:num_carry], rest[num_carry:]
        pi, ri = iter(p), iter(r)
        merged = [next(ri) if w else next(pi) for w in cw]
        outs = closed_call_p.bind(*merged, *c, *x, call_jaxpr=dis)
        new_c, ys, new_r = outs[:num_carry], outs[num_carry : num_carry + n_ys], outs[num_carry + n_ys :]
        return [i_ + 1, *new_r, *new_c, *ys]  # type: ignore[operator]

    counter = core.ShapedArray((), np.dtype(np.int32), weak_type=True)
    x_avals = [core.get_aval(a).update(shape=core.get_aval(a).shape[1:]) for a in xs]
    avals = [
        *(core.get_aval(a) for a in pure),
        counter,
        *(core.get_aval(a) for a in [*refs, *carry]),
        *x_avals,
    ]
    new = trace_to_jaxpr(body, avals)
    outs = scan_p.bind(
        *pure,
        np.int32(0),
        *refs,
        *carry,
        *xs,
        jaxpr=new,
        num_consts=len(pure),
        num_carry=1 + len(refs) + num_carry,
        length=length,
        reverse=reverse,
        **params,
    )
    finals = iter(outs[1 : 1 + len(refs)])
    return [*(next(finals) if w else None for w in cw), *[None] * (len(args) - num_consts)], outs[
        1 + len(refs) :
    ]


discharge_rules: dict[str, Callable[..., tuple[list[Any], Any]]] = {
    "jit": _jit,
    "cond": _cond,
    "while": _while,
    "scan": _scan,
}
