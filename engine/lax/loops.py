"""``while_loop`` and ``fori_loop``: one ``while`` primitive with ``cond_jaxpr`` and ``body_jaxpr``.
Forward-mode differentiable only (the trip count is unknown): ``jvp`` and ``linearize`` (JAX's partial
eval: a known loop, and the whole loop staged again for the tangents), not transposable; ``fori_loop``
with concrete bounds is a ``scan``, so it differentiates in reverse mode too.
A vmapped loop with a batched predicate keeps it batched (as JAX stages it): the
``while`` primitive then loops while any example runs and keeps the carries of finished ones.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from .. import ad, ad_checkpoint, batching, core, transfers
from ..backends.rows import Special, lowerings
from ..batching import not_mapped
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr
from ..tree_util import tree_flatten, tree_unflatten
from ..tracer_origins import debug_info, save_wrapped
from ..narrow_dtypes import kind as dtype_kind
from ..state.discharge import RefOperandPrimitive
from . import api as lax
from .control_flow_errors import check_carry_type
from ..parallel import explicit_types
from .control_flow_common import (
    _trace,
    _avals,
    _run,
    _run_body,
    _with_weak_types,
    promote_weak_inits,
    _fixpoint_nonzero,
    _interleave_jvp,
    _batched_outs,
)
from . import control_flow_eager
from .scan import scan
from .scan_invariants import inlined as _inlined

while_p = RefOperandPrimitive("while", multiple_results=True)
while_p.weak_from_abstract_eval = True
lowerings[while_p] = Special(while_p.name)  # compiled code lowers control flow itself


def while_loop(cond_fun, body_fun, init_val):
    """Repeat ``val = body_fun(val)`` while ``cond_fun(val)``; forward-mode differentiable.

    >>> while_loop(lambda x: x < 10, lambda x: x * 2, 1)
    Array(16, dtype=int32, weak_type=True)
    """
    leaves, tree = tree_flatten(init_val)
    avals = [a.update(weak_type=False) if False else a for a in _avals(leaves)]

    def flat_cond(*xs):
        out = cond_fun(tree_unflatten(tree, xs))
        a = core.get_aval(out)
        if a.shape != () or a.dtype != np.bool_:
            raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) [{a!r}].")
        return [out]

    body_tree = []

    def flat_body(*xs):
        out_leaves, t = tree_flatten(body_fun(tree_unflatten(tree, xs)))
        body_tree.append(t)
        return out_leaves

    cond_dbg = debug_info("while_cond", cond_fun, (init_val,))
    body_dbg = debug_info("while_body", body_fun, (init_val,))
    cj, cconsts = _trace_cond(
        cond_fun, flat_cond, tree, avals, cond_dbg
    )  # the condition first, as JAX traces them
    bj, bconsts = _trace(flat_body, avals, body_dbg, leaves)
    if body_tree[0] != tree:
        check_carry_type("while_loop body", body_fun, tree, avals, body_tree[0], bj.out_avals)
    promoted = promote_weak_inits(leaves, avals, bj.out_avals)
    if promoted is not None:
        leaves, avals = promoted, _avals(promoted)
        cj, cconsts = _trace_cond(cond_fun, flat_cond, tree, avals, cond_dbg)
        bj, bconsts = _trace(flat_body, avals, body_dbg, leaves)
    check_carry_type("while_loop body", body_fun, tree, avals, body_tree[-1], bj.out_avals)
    typed = explicit_types.typed_avals(bj, [*bconsts, *leaves])
    if typed is not None:  # (on an explicit mesh: the carry's layout is part of its type)
        check_carry_type("while_loop body", body_fun, tree, typed[0][len(bconsts) :], body_tree[-1], typed[1])
    move = _forwarded_carries(cj.jaxpr, bj.jaxpr, len(cconsts), len(bconsts))
    if not any(move):
        outs = while_p.bind(
            *cconsts,
            *bconsts,
            *leaves,
            cond_jaxpr=cj,
            body_jaxpr=bj,
            cond_nconsts=len(cconsts),
            body_nconsts=len(bconsts),
        )
        return tree_unflatten(tree, outs)
    cj, bj = _carries_to_consts(cj, bj, len(cconsts), len(bconsts), move)
    moved = [x for x, m in zip(leaves, move) if m]
    outs = iter(
        while_p.bind(
            *cconsts,
            *moved,
            *bconsts,
            *[x for x, m in zip(leaves, move) if not m],
            cond_jaxpr=cj,
            body_jaxpr=bj,
            cond_nconsts=len(cconsts),
            body_nconsts=len(moved) + len(bconsts),
        )
    )
    return tree_unflatten(tree, [x if m else next(outs) for x, m in zip(leaves, move)])


def _forwarded_carries(cond: Jaxpr, body: Jaxpr, cond_nconsts: int, body_nconsts: int) -> list[bool]:
    """The carries JAX's while_loop makes body constants: returned unchanged by the body and not
    read by the condition (vmap then batches them only if they are batched)."""
    carries = body.in_binders[body_nconsts:]
    forwarded = [out is v for out, v in zip(body.outs, carries)]
    if not any(forwarded):
        return forwarded
    live = dce_jaxpr(cond)
    read = {x for e in live.eqns for x in e.inputs if type(x) is Var}
    read.update(x for x in live.outs if type(x) is Var)
    return [f and v not in read for f, v in zip(forwarded, cond.in_binders[cond_nconsts:])]


# A condition traced once per function and carry type, and its carries moved once per pattern (JAX
# memoizes both): fori_loop's condition, one module-level function, is one jaxpr across loops.
_traced_conds: "weakref.WeakKeyDictionary[Any, dict[Any, Any]]" = weakref.WeakKeyDictionary()
_moved_conds: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()
_batched_conds: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()


def _trace_cond(cond_fun, flat_cond, tree, avals, debug=None):
    key = (tree, tuple(avals))
    try:
        table = _traced_conds.setdefault(cond_fun, {})
        cached = table.get(key)
    except TypeError:  # (not weakly referenceable or hashable: traced each time)
        return _trace(flat_cond, avals, debug)
    if cached is None:
        cached = _trace(flat_cond, avals, debug)
        if cached[1]:  # (constants a closure captured belong to this call only)
            return cached
        table[key] = cached
    return cached


def _fori_cond(c):
    return lax.lt(c[0], c[1])


def _move_cond_carries(cj, cond_nconsts, move):
    table = _moved_conds.setdefault(cj, {})
    key = (cond_nconsts, tuple(move))
    if key not in table:
        cond = dce_jaxpr(cj.jaxpr)
        cond_carries = cond.in_binders[cond_nconsts:]
        cond = Jaxpr(
            cond.constvars,
            cond.in_binders[:cond_nconsts] + [v for v, m in zip(cond_carries, move) if not m],
            cond.eqns,
            cond.outs,
        )
        table[key] = ClosedJaxpr(cond, cj.consts)
    return table[key]


def _carries_to_consts(cj, bj, cond_nconsts, body_nconsts, move):
    cond_closed, body = _move_cond_carries(cj, cond_nconsts, move), bj.jaxpr
    carries = body.in_binders[body_nconsts:]
    body = Jaxpr(
        body.constvars,
        [v for v, m in zip(carries, move) if m]
        + body.in_binders[:body_nconsts]
        + [v for v, m in zip(carries, move) if not m],
        body.eqns,
        [o for o, m in zip(body.outs, move) if not m],
    )
    return cond_closed, ClosedJaxpr(body, bj.consts)


def _while_impl(*args, **params):
    return control_flow_eager.apply(while_p, _interpreted_while, args, params)


def _interpreted_while(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts, max_steps=None):
    """The loop run equation by equation; None where it has not ended after ``max_steps`` bodies
    (``control_flow_eager`` then runs it compiled from its start)."""
    cc, bc, carry = (
        args[:cond_nconsts],
        args[cond_nconsts : cond_nconsts + body_nconsts],
        list(args[cond_nconsts + body_nconsts :]),
    )
    steps = 0
    if cond_jaxpr.out_avals[0].shape == ():
        while bool(core.to_numpy(_run_body(cond_jaxpr, *cc, *carry)[0])):
            if steps == max_steps:
                return None
            carry = _run_body(body_jaxpr, *bc, *carry)
            steps += 1
        return _with_weak_types(carry, body_jaxpr.out_avals)
    # A batched predicate (a vmapped while, as JAX stages it): loop while any example runs;
    # finished examples keep their carry (the predicate's shape is a prefix of every carry's).
    while True:
        pred = np.asarray(core.to_numpy(_run_body(cond_jaxpr, *cc, *carry)[0]))
        if not pred.any():
            return _with_weak_types(carry, body_jaxpr.out_avals)
        if steps == max_steps:
            return None
        new = [core.to_numpy(v) for v in _run_body(body_jaxpr, *bc, *carry)]
        carry = [_select_by_prefix(pred, n, core.to_numpy(c)) for n, c in zip(new, carry)]
        steps += 1


def _select_by_prefix(pred, on_true, on_false):
    """``where(pred, on_true, on_false)`` with ``pred``'s shape a prefix of the others'."""
    return np.where(pred.reshape(pred.shape + (1,) * (np.ndim(on_true) - pred.ndim)), on_true, on_false)


while_p.def_impl(_while_impl)


# As in JAX, the loop's outputs take the body's output types: a weakly typed init (a Python scalar)
# whose carry the body makes strong gives a strong result.
while_p.def_abstract_eval(lambda *avals, body_jaxpr, **_: list(body_jaxpr.out_avals))


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cc, bc, carry = primals[:nc], primals[nc : nc + nb], primals[nc + nb :]
    bct, ct = tangents[nc : nc + nb], tangents[nc + nb :]
    bc_nz = [type(t) is not ad.Zero for t in bct]
    carry_nz = _fixpoint_nonzero(body_jaxpr, bc_nz, [type(t) is not ad.Zero for t in ct])
    body = _interleave_jvp(body_jaxpr, [bc_nz, carry_nz], [*carry_nz])
    # The new body's outputs are (carry, carry tangents): reorder cond to ignore tangents.
    cj = cond_jaxpr.jaxpr
    extra = [Var(ad.tangent_aval(a)) for a, nz in zip(cond_jaxpr.in_avals[nc:], carry_nz) if nz]
    cond_new = ClosedJaxpr(Jaxpr([], [*cj.in_binders, *extra], cj.eqns, cj.outs), [])
    bct_vals = [t for t in bct if type(t) is not ad.Zero]
    ct_vals = [ad.instantiate_zeros(t) if nz else None for t, nz in zip(ct, carry_nz)]
    ct_vals = [t for t in ct_vals if t is not None]
    outs = while_p.bind(
        *cc,
        *bc,
        *bct_vals,
        *carry,
        *ct_vals,
        cond_jaxpr=cond_new,
        body_jaxpr=body,
        cond_nconsts=nc,
        body_nconsts=nb + len(bct_vals),
    )
    n = len(carry)
    it = iter(outs[n:])
    return outs[:n], [
        next(it) if nz else ad.Zero(ad.tangent_aval(core.get_aval(c))) for c, nz in zip(carry, carry_nz)
    ]


def _while_transpose(*_, **__):
    raise ValueError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop "
        "with dynamic start/stop values. Try using lax.scan, or using fori_loop with "
        "static start/stop."
    )


def _while_split(cond_jaxpr, body_jaxpr, nc, nb, unknowns, rename=True):
    """JAX's split of a while: the carries unknown at the fixpoint of the body, and the known
    loop's condition and body (None when the predicate itself is unknown). The known body keeps
    the equations only residuals needed (JAX drops the outputs, not their computations).
    ``rename=False``: the known jaxprs keep the original's variables (a remat's split, JAX's
    _while_partial_eval_custom, takes the original equations)."""
    c_uk, b_uk, carry_uk = list(unknowns[:nc]), list(unknowns[nc : nc + nb]), list(unknowns[nc + nb :])
    while True:
        body1, _, out_uk, _ = ad.partial_eval_jaxpr(
            body_jaxpr.jaxpr, [*b_uk, *carry_uk], instantiate=carry_uk
        )
        new = [a or b for a, b in zip(carry_uk, out_uk)]
        if new == carry_uk:
            break
        carry_uk = new
    cond1, _, (pred_uk, *_), _ = ad.partial_eval_jaxpr(cond_jaxpr.jaxpr, [*c_uk, *carry_uk])
    if pred_uk:
        return carry_uk, None, None
    n_known = len(carry_uk) - sum(carry_uk)
    body1 = Jaxpr(body1.constvars, body1.in_binders, body1.eqns, body1.outs[:n_known])
    cond1 = Jaxpr(cond1.constvars, cond1.in_binders, cond1.eqns, cond1.outs[:1])
    if rename:
        body1, cond1 = _renamed(body1), _renamed(cond1)
    return carry_uk, ClosedJaxpr(cond1, cond_jaxpr.consts), ClosedJaxpr(body1, body_jaxpr.consts)


def _renamed(jaxpr: Jaxpr) -> Jaxpr:
    """``jaxpr`` under fresh variables: a split shares the original's, and a program printing both
    loops would name them alike (JAX's split traces new jaxprs)."""
    binders = [Var(v.aval) for v in jaxpr.in_binders]
    eqns, outs = _inlined(jaxpr, binders)
    return Jaxpr(jaxpr.constvars, binders, eqns, outs)


def _while_partial_eval(trace, tracers, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    """JAX's rule (what makes ``linearize`` of a loop work): the known carries come from a loop of
    the known part of the body; the unknown ones from the whole loop staged again, reading the
    known operands (it recomputes the known part, as a rematerialization: nothing is saved per
    iteration, the trip count being unknown). Its transpose then raises JAX's error."""
    params = dict(
        cond_jaxpr=cond_jaxpr, body_jaxpr=body_jaxpr, cond_nconsts=cond_nconsts, body_nconsts=body_nconsts
    )
    unknowns = [not t.pval.is_known for t in tracers]
    nc, nb = cond_nconsts, body_nconsts
    carry_uk, cond1, body1 = _while_split(cond_jaxpr, body_jaxpr, nc, nb, unknowns)
    if cond1 is None or all(unknowns):
        return trace.default_process_primitive(while_p, tracers, params)
    uk_all = [*unknowns[: nc + nb], *carry_uk]
    known = while_p.bind(
        *[t.pval.const for t, u in zip(tracers, uk_all) if not u],
        cond_jaxpr=cond1,
        body_jaxpr=body1,
        cond_nconsts=nc - sum(unknowns[:nc]),
        body_nconsts=nb - sum(unknowns[nc : nc + nb]),
    )
    staged = trace.default_process_primitive(while_p, tracers, params)
    known_it = iter(known)
    return [t if u else next(known_it) for t, u in zip(staged, carry_uk)]


def _while_partial_eval_jaxpr(unks_in, eqn, rename=True):
    """The same split on a jaxpr's equation (a jit's linearization): the known loop's equation,
    and the original one reading the known operands as residuals."""
    p = eqn.params
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    carry_uk, cond1, body1 = _while_split(p["cond_jaxpr"], p["body_jaxpr"], nc, nb, unks_in, rename)
    residuals = [x for x, u in zip(eqn.inputs, unks_in) if not u]
    if cond1 is None or all(unks_in):
        return None, eqn, [True] * len(eqn.out_binders), residuals
    uk_all = [*unks_in[: nc + nb], *carry_uk]
    eqn1 = JaxprEqn(
        while_p,
        [x for x, u in zip(eqn.inputs, uk_all) if not u],
        dict(
            p,
            cond_jaxpr=cond1,
            body_jaxpr=body1,
            cond_nconsts=nc - sum(unks_in[:nc]),
            body_nconsts=nb - sum(unks_in[nc : nc + nb]),
        ),
        [v for v, u in zip(eqn.out_binders, carry_uk) if not u],
        eqn.source_info,
    )
    # (the staged loop's known outputs are recomputed and dropped: fresh binders for them)
    outs2 = [v if u else Var(v.aval) for v, u in zip(eqn.out_binders, carry_uk)]
    eqn2 = JaxprEqn(while_p, eqn.inputs, p, outs2, eqn.source_info)
    return eqn1, eqn2, carry_uk, residuals


def _while_batch(axis_size, vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cdims, bdims, kdims = dims[:nc], dims[nc : nc + nb], list(dims[nc + nb :])
    cvals, bvals, kvals = vals[:nc], vals[nc : nc + nb], list(vals[nc + nb :])
    kb = [d is not not_mapped for d in kdims]
    # Carry batched-ness is a fixed point of the body; then the predicate (JAX's rule): batched, it
    # batches every carry at the front; else batched carries get their batch dimension after the
    # predicate's own dimensions (an inner vmap's), so that it stays their prefix.
    while True:
        out_b = _batched_outs(body_jaxpr, [d is not not_mapped for d in bdims] + kb, axis_size)
        new = [a or b for a, b in zip(kb, out_b)]
        if new == kb:
            break
        kb = new
    pred_b = _batched_outs(cond_jaxpr, [d is not not_mapped for d in cdims] + kb, axis_size)[0]
    if pred_b:
        kb = [True] * len(kb)
    # A batched predicate stays batched (JAX's rule): the while primitive loops while any
    # example runs and keeps the carries of finished ones (its impl and lowerings do).
    pos = 0 if pred_b else len(cond_jaxpr.out_avals[0].shape)
    kvals = [
        (batching.broadcast_at(v, axis_size, pos) if d is not_mapped else batching.moveaxis(v, d, pos))
        if b
        else v
        for v, d, b in zip(kvals, kdims, kb)
    ]
    c_in = [None if d is not_mapped else d for d in cdims] + [pos if b else None for b in kb]
    b_in = [None if d is not_mapped else d for d in bdims] + [pos if b else None for b in kb]
    spec = lambda n: [pos if b else None for b in kb]

    def body_b(*xs):
        return batching.vmap_flat(lambda *ys: _run(body_jaxpr, *ys), axis_size, None, b_in, xs, spec)

    def cond_b(*xs):
        return batching.vmap_flat(
            lambda *ys: _run(cond_jaxpr, *ys), axis_size, None, c_in, xs, lambda n: [0 if pred_b else None]
        )

    kavals = _avals(kvals)
    bj, bconsts = _trace(body_b, [*_avals(bvals), *kavals])
    c_avals = [*_avals(cvals), *kavals]
    # (one predicate batched the same way is one jaxpr, as JAX memoizes batch_jaxpr)
    key = (axis_size, tuple(c_in), pred_b, tuple(c_avals))
    table = _batched_conds.setdefault(cond_jaxpr, {})
    cached = table.get(key)
    if cached is None:
        cached = _trace(cond_b, c_avals)
        if not cached[1]:
            table[key] = cached
    cj, cconsts = cached
    outs = while_p.bind(
        *cconsts,
        *cvals,
        *bconsts,
        *bvals,
        *kvals,
        cond_jaxpr=cj,
        body_jaxpr=bj,
        cond_nconsts=len(cconsts) + nc,
        body_nconsts=len(bconsts) + nb,
    )
    return outs, [pos if b else not_mapped for b in kb]


ad.jvp_rules[while_p] = _while_jvp


ad.transpose_rules[while_p] = _while_transpose


ad.partial_eval_rules[while_p] = _while_partial_eval


ad.partial_eval_jaxpr_rules[while_p] = _while_partial_eval_jaxpr
# A remat's split keeps the loop's variables in the known loop (JAX's _while_partial_eval_custom
# builds it from the body's own equations), so both loops print with the same names.
ad_checkpoint.remat_split_rules[while_p] = lambda unks_in, eqn: _while_partial_eval_jaxpr(unks_in, eqn, False)


batching.batch_rules[while_p] = _while_batch


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``for i in range(lower, upper): val = body_fun(i, val)``.

    With concrete bounds this is a ``scan`` (reverse-differentiable; ``unroll`` is passed to it);
    otherwise a ``while_loop``.

    >>> fori_loop(0, 5, lambda i, x: x + i, 0)
    Array(10, dtype=int32, weak_type=True)
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    lo_aval, hi_aval = core.get_aval(lower), core.get_aval(upper)
    if lo_aval.dtype != hi_aval.dtype and not (
        # (JAX's special case: a weak integer bound takes the other, strong one's type)
        dtype_kind(lo_aval.dtype) == dtype_kind(hi_aval.dtype) == "i"
        and lo_aval.weak_type != hi_aval.weak_type
    ):
        raise TypeError(
            f"lower and upper arguments to fori_loop must have equal types, got {lo_aval.dtype.name} "
            f"and {hi_aval.dtype.name}"
        )
    if transfers.active[0]:  # (host bounds are transferred, as JAX's fori_loop does)
        for bound in (lower, upper):
            transfers.entering(bound)
    lo_c, hi_c = core.concrete_or_none(lower), core.concrete_or_none(upper)
    idx_dtype = (
        np.result_type(*(core.get_aval(b).dtype for b in (lower, upper)))
        if not (isinstance(lower, int) and isinstance(upper, int))
        else np.dtype(np.int32)
    )
    idx_dtype = core.canonical_dtype(idx_dtype)
    body_dbg = debug_info("fori_loop", body_fun, (0, init_val))
    if lo_c is not None and hi_c is not None:
        lo_i, hi_i = int(lo_c), int(hi_c)

        def step(loop_carry, _):  # (the carry's name in JAX's messages)
            i, x = loop_carry
            return (lax.add(i, lax.full_like(i, 1)), body_fun(i, x)), None

        save_wrapped(step, body_dbg)  # (its errors name the user's body, as JAX's do)

        # JAX's scan carries int(lower): a weak index of the default int dtype, whatever the bounds'
        # dtype (int64 with x64).
        start = core.Array(np.asarray(lo_i, core.canonical_dtype(np.int64)), True)
        length = max(hi_i - lo_i, 0)
        (_, out), _ = scan(
            step, (start, init_val), None, length=length, unroll=False if unroll is None else unroll
        )
        return out
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are statically known.")

    def body(loop_carry):  # (the carry's name in JAX's messages)
        i, hi, x = loop_carry
        return lax.add(i, lax.full_like(i, 1)), hi, body_fun(i, x)

    def carry_names() -> list[str]:  # (the upper bound the carry adds has no name)
        names = list(body_dbg.arg_names()) if body_dbg.arg_names else []
        return [*names[:1], "", *names[1:]]

    save_wrapped(body, body_dbg._replace(arg_names=carry_names))

    # As JAX: the bounds are converted only when their dtypes differ.
    same = core.canonical_dtype(core.get_aval(lower).dtype) == core.canonical_dtype(
        core.get_aval(upper).dtype
    )
    lo = lower if same else lax.convert_element_type(lower, idx_dtype)
    hi = upper if same else lax.convert_element_type(upper, idx_dtype)
    return while_loop(_fori_cond, body, (lo, hi, init_val))[2]
