"""``scan`` and ``map``: one ``scan`` primitive carrying a state over the leading axis of its inputs.
Differentiable in both modes (reverse mode scans the transposed body backwards).
"""

from __future__ import annotations

import numpy as np

from .. import ad, ad_checkpoint, backward_pass, batching, core, ir
from ..staging import host_constant
from ..closed_call import call_of
from ..jit_primitive import _linearized_directly
from ..backends.rows import Special, lowerings
from ..batching import not_mapped
from ..ir import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_jaxpr
from ..tree_util import tree_flatten, tree_map, tree_unflatten
from .structural import folding_converts
from ..state.discharge import RefOperandPrimitive
from ..state.types import AbstractRef
from . import control_flow_eager
from ..tracer_origins import debug_info
from .control_flow_errors import check_carry_type
from ..parallel import explicit_types
from .scan_invariants import (
    hoisted as _hoisted,
    hoisting,
    inlined as _inlined,
    split_invariants as _split_invariants,
)
from .control_flow_common import (
    _trace,
    _avals,
    _run,
    _run_body,
    _jvp_closed,
    _stage,
    _with_weak_types,
    promote_weak_inits,
    _fixpoint_nonzero,
    _interleave_jvp,
    _batched_outs,
    in_trace_order,
)

scan_p = RefOperandPrimitive("scan", multiple_results=True)
scan_p.weak_from_abstract_eval = True
lowerings[scan_p] = Special(scan_p.name)  # compiled code lowers control flow itself

ir.pp_params_rules[scan_p] = lambda eqn: sorted({"unroll": 1, **eqn.params}.items())


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    """``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns ``(carry, stacked ys)``.
    (``_split_transpose``, JAX's experimental layout of the transposed scan, is accepted and
    unused: the values do not depend on it.)

    >>> scan(lambda c, x: (c + x, c * x), 0., jnp.arange(3.))
    (Array(3., dtype=float32), Array([0., 0., 2.], dtype=float32))
    """
    x_leaves, x_tree = tree_flatten(xs)
    scalars = [x for x in x_leaves if not hasattr(x, "shape")]
    if scalars:
        raise ValueError(
            f"scan got value with no leading axis to scan over: {', '.join(str(x) for x in scalars)}."
        )
    if any(core.get_aval(x).ndim == 0 for x in x_leaves):
        raise IndexError("tuple index out of range")  # (JAX reads x.shape[0] of each)
    n = _scan_length([core.get_aval(x).shape[0] for x in x_leaves], length)
    c_leaves, c_tree = tree_flatten(init)
    c_avals = _avals(c_leaves)
    x_avals = [core.get_aval(x).update(shape=core.get_aval(x).shape[1:]) for x in x_leaves]
    trees = []

    def flat(*args):
        c = tree_unflatten(c_tree, args[: len(c_leaves)])
        x = tree_unflatten(x_tree, args[len(c_leaves) :])
        out = f(c, x)
        if type(out) not in (tuple, list) or len(out) != 2:
            raise TypeError(f"scan body output must be a pair, got {_types_of(out)}.")
        carry, y = out
        cl, ct = tree_flatten(carry)
        yl, yt = tree_flatten(y)
        trees[:] = [ct, yt, type(out)]
        return [*cl, *yl]

    dbg = debug_info("scan", f, (init, xs))
    body, consts = _trace(flat, [*c_avals, *x_avals], dbg, [*c_leaves, *x_leaves], len(x_leaves))
    if trees[0] != c_tree:
        check_carry_type("scan body", f, c_tree, c_avals, trees[0], body.out_avals[: c_tree.num_leaves])
    promoted = promote_weak_inits(c_leaves, c_avals, body.out_avals[: len(c_avals)])
    if promoted is not None:
        c_leaves, c_avals = promoted, _avals(promoted)
        body, consts = _trace(flat, [*c_avals, *x_avals], dbg, [*c_leaves, *x_leaves], len(x_leaves))
    check_carry_type("scan body", f, c_tree, c_avals, trees[0], body.out_avals[: len(c_avals)])
    typed = explicit_types.typed_avals(body, [*consts, *c_leaves, *x_leaves], sliced=len(x_leaves))
    if typed is not None:  # (on an explicit mesh: the carry's layout is part of its type)
        ins, outs = typed[0][len(consts) : len(consts) + len(c_avals)], typed[1][: len(c_avals)]
        check_carry_type("scan body", f, c_tree, ins, trees[0], outs)
    body, moved, ys_from_xs = _forward_read_only(body, len(consts), len(c_leaves))
    kept = [c for c, m in zip(c_leaves, moved) if not m]
    outs = scan_p.bind(
        *[c for c, m in zip(c_leaves, moved) if m],
        *consts,
        *kept,
        *x_leaves,
        jaxpr=body,
        num_consts=len(c_leaves) - len(kept) + len(consts),
        num_carry=len(kept),
        length=n,
        reverse=bool(reverse),
        unroll=_unroll(unroll, n),
    )
    carry_it, ys_it = iter(outs[: len(kept)]), iter(outs[len(kept) :])
    carry = [c if m else next(carry_it) for c, m in zip(c_leaves, moved)]
    # (a stacked output that is a numpy xs is JAX's array of it: a copy, as its transfer; a read-only
    # carry comes back as the object given, as in JAX)
    ys = [next(ys_it) if k is None else _as_array(x_leaves[k]) for k in ys_from_xs]
    return trees[2]((tree_unflatten(c_tree, carry), tree_unflatten(trees[1], ys)))  # (a list if f's was)


def _types_of(out):
    """The types of what a body returned, as JAX's message shows them (a lone array: its short type)."""
    try:
        types = tree_map(core.get_aval, out)
    except TypeError:
        return out
    return str(types) if isinstance(types, core.ShapedArray) else types


def _scan_length(lengths: list, length) -> int:
    """The number of iterations: ``length`` or the common leading axis size of ``xs``, refused in
    JAX's words when they disagree or neither is given."""
    if length is not None:
        n = int(length)
        if any(n != k for k in lengths):
            raise ValueError(
                f"scan got `length` argument of {n} which disagrees with leading axis sizes {lengths}."
            )
        return n
    if len(set(lengths)) > 1:
        raise ValueError(
            f"scan got values with different leading axis sizes: {', '.join(str(k) for k in lengths)}."
        )
    if not lengths:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return lengths[0]


def _as_array(x):
    return host_constant(x) if type(x) is np.ndarray else x


def _forward_read_only(body, num_consts, num_carry):
    """JAX's scan staging: a carry the body returns unchanged is read-only and becomes a leading
    constant (its final value is its initial one), and a stacked output that is a scanned input
    is not computed (the input is returned). Returns the new body, which carries moved, and for
    each stacked output the index of the scanned input it is (or None)."""
    j = body.jaxpr
    index = {v: i for i, v in enumerate(j.in_binders)}
    carry_outs, y_outs = j.outs[:num_carry], j.outs[num_carry:]
    moved = [type(o) is Var and index.get(o) == num_consts + i for i, o in enumerate(carry_outs)]
    first_x = num_consts + num_carry
    ys_from_xs = [
        index[o] - first_x if type(o) is Var and index.get(o, -1) >= first_x else None for o in y_outs
    ]
    if not any(moved) and all(k is None for k in ys_from_xs):
        return body, moved, ys_from_xs
    carries = j.in_binders[num_consts:first_x]
    binders = [
        *[v for v, m in zip(carries, moved) if m],
        *j.in_binders[:num_consts],
        *[v for v, m in zip(carries, moved) if not m],
        *j.in_binders[first_x:],
    ]
    outs = [
        *[o for o, m in zip(carry_outs, moved) if not m],
        *[o for o, k in zip(y_outs, ys_from_xs) if k is None],
    ]
    return ClosedJaxpr(Jaxpr(j.constvars, binders, j.eqns, outs), body.consts), moved, ys_from_xs


def _unroll(unroll, length):
    # JAX's: True unrolls the whole loop, False not at all; the value only shapes compiled code.
    if isinstance(unroll, bool):
        return max(length, 1) if unroll else 1
    return int(unroll)


def map(f, xs, *, batch_size: int | None = None):
    """``f`` applied to each slice of ``xs`` along the leading axis, sequentially (a scan); with
    ``batch_size``, a scan over batches of that many slices, each mapped with ``vmap``, and the
    remainder mapped with one more ``vmap``, as JAX does.

    >>> map(lambda x: x * 2, jnp.arange(5.), batch_size=2)
    Array([0., 2., 4., 6., 8.], dtype=float32)
    """
    if batch_size is None:
        _, ys = scan(lambda c, x: (c, f(x)), (), xs)
        return ys
    from ..api import vmap
    from .api import concatenate, reshape

    leaves, tree = tree_flatten(xs)
    if not leaves:
        _, ys = scan(lambda c, x: (c, vmap(f)(x)), (), xs)
        return ys
    n = core.get_aval(leaves[0]).shape[0]
    batches, rest = divmod(n, batch_size) if batch_size else (0, n)
    elems = batches * batch_size
    # (indexed as JAX's: a slice covering the whole axis stages nothing; each leaf's batches are cut
    # before its remainder)
    scan_leaves, tail_leaves = [], []
    for x in leaves:
        if batches:
            scan_leaves.append(reshape(x[:elems], (batches, batch_size, *x.shape[1:])))
        if rest:
            tail_leaves.append(x[elems:])
    tail = tree_unflatten(tree, tail_leaves) if rest else None
    if not batches:
        return vmap(f)(tail)
    _, ys = scan(lambda c, x: (c, vmap(f)(x)), (), tree_unflatten(tree, scan_leaves))
    y_leaves, y_tree = tree_flatten(ys)
    tail_ys = tree_flatten(vmap(f)(tail))[0] if rest else [None] * len(y_leaves)
    y_leaves = [
        reshape(y, (elems, *y.shape[2:]))
        if t is None
        else concatenate([reshape(y, (elems, *y.shape[2:])), t], 0)
        for y, t in zip(y_leaves, tail_ys)
    ]
    return tree_unflatten(y_tree, y_leaves)


def _scan_impl(*args, **params):
    return control_flow_eager.apply(scan_p, _interpreted_scan, args, params)


def _interpreted_scan(*args, jaxpr, num_consts, num_carry, length, reverse, unroll=1):
    consts, carry, xs = (
        args[:num_consts],
        list(args[num_consts : num_consts + num_carry]),
        args[num_consts + num_carry :],
    )
    y_avals = jaxpr.out_avals[num_carry:]
    ys = [np.empty((length, *a.shape), getattr(a.dtype, "numpy_dtype", a.dtype)) for a in y_avals]
    for k in range(length):
        i = length - 1 - k if reverse else k
        outs = _run_body(jaxpr, *consts, *carry, *[x[i] for x in xs])
        carry = outs[:num_carry]
        for y, o in zip(ys, outs[num_carry:]):
            y[i] = core.to_numpy(o)
    return _with_weak_types([*carry, *ys], jaxpr.out_avals)


def _scan_abstract(*avals, jaxpr, num_consts, num_carry, length, reverse, unroll=1):
    carry = list(jaxpr.out_avals[:num_carry])
    return [*carry, *[a.update(shape=(length, *a.shape)) for a in jaxpr.out_avals[num_carry:]]]


scan_p.def_impl(_scan_impl)


scan_p.def_abstract_eval(_scan_abstract)


def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length, reverse, unroll=1):
    nz = [type(t) is not ad.Zero for t in tangents]
    c_nz, k_nz, x_nz = nz[:num_consts], nz[num_consts : num_consts + num_carry], nz[num_consts + num_carry :]
    k_nz = _fixpoint_nonzero(jaxpr, c_nz, k_nz, x_nz)
    inst = [*k_nz, *[False] * (len(jaxpr.out_avals) - num_carry)]
    _, out_nz = _jvp_closed(jaxpr, [*c_nz, *k_nz, *x_nz], inst)
    body = _interleave_jvp(jaxpr, [c_nz, k_nz, x_nz], inst)
    # Outputs come as (carry, ys, carry tangents, y tangents); scan wants carries first.
    j = body.jaxpr
    ny = len(jaxpr.out_avals) - num_carry
    nkt = sum(k_nz)
    prim_outs, tan_outs = j.outs[: num_carry + ny], j.outs[num_carry + ny :]
    outs = [*prim_outs[:num_carry], *tan_outs[:nkt], *prim_outs[num_carry:], *tan_outs[nkt:]]
    body = ClosedJaxpr(Jaxpr([], j.in_binders, j.eqns, outs), [])
    p = primals
    consts, carry, xs = p[:num_consts], p[num_consts : num_consts + num_carry], p[num_consts + num_carry :]
    ct = [t for t in tangents[:num_consts] if type(t) is not ad.Zero]
    kt = [
        ad.instantiate_zeros_where(t, tangents)
        for t, z in zip(tangents[num_consts : num_consts + num_carry], k_nz)
        if z
    ]
    xt = [t for t in tangents[num_consts + num_carry :] if type(t) is not ad.Zero]
    res = scan_p.bind(
        *consts,
        *ct,
        *carry,
        *kt,
        *xs,
        *xt,
        jaxpr=body,
        num_consts=num_consts + len(ct),
        num_carry=num_carry + len(kt),
        length=length,
        reverse=reverse,
        unroll=unroll,
    )
    carry_out, carry_t = res[:num_carry], iter(res[num_carry : num_carry + nkt])
    ys, ys_t = res[num_carry + nkt : num_carry + nkt + ny], iter(res[num_carry + nkt + ny :])
    t_carry = [
        next(carry_t) if z else ad.Zero(ad.tangent_aval(core.get_aval(c))) for c, z in zip(carry_out, k_nz)
    ]
    t_ys = [
        next(ys_t) if z else ad.Zero(ad.tangent_aval(core.get_aval(y)))
        for y, z in zip(ys, out_nz[num_carry:])
    ]
    return [*carry_out, *ys], [*t_carry, *t_ys]


def _scan_split(jaxpr, num_consts, num_carry, unknowns, trace_order=False):
    """Known scan (also emitting residuals as extra ys) and unknown scan (taking them as xs).
    ``trace_order``: the residuals in the order of JAX's JaxprTrace split of the body."""
    c_uk = list(unknowns[:num_consts])
    k_uk = list(unknowns[num_consts : num_consts + num_carry])
    x_uk = list(unknowns[num_consts + num_carry :])
    ny = len(jaxpr.out_avals) - num_carry
    while True:
        j1, j2, out_uk, nres = ad.partial_eval_jaxpr(
            jaxpr.jaxpr, [*c_uk, *k_uk, *x_uk], instantiate=[*k_uk, *[False] * ny]
        )
        new = [a or b for a, b in zip(k_uk, out_uk[:num_carry])]
        if new == k_uk:
            break
        k_uk = new
    if trace_order:
        j1, j2, out_uk, nres = in_trace_order(j1, j2, out_uk, nres)
    elif _linearized_directly():  # (JAX's linearize_jaxpr: the tangent body is auto-DCE'd, so
        # only the residuals it still reads are made, and the primal body is DCE'd after)
        j1, j2, nres = ir.prune_residuals(j1, j2, nres)
        j1 = ir.dce_jaxpr(j1)
    known = ClosedJaxpr(j1, [])
    res_binders, uk_ins = j2.in_binders[:nres], j2.in_binders[nres:]
    n_uc, n_uk = sum(c_uk), sum(k_uk)
    unknown = ClosedJaxpr(
        Jaxpr([], [*uk_ins[: n_uc + n_uk], *res_binders, *uk_ins[n_uc + n_uk :]], j2.eqns, j2.outs), []
    )
    return known, unknown, c_uk, k_uk, x_uk, out_uk, nres


def _forward_residuals(j1: Jaxpr, nres, n_kc, n_kk):
    """Residuals that are known const or xs inputs are those inputs (JAX's forwarding): drop them
    from the known body's outputs. ``fwd[k]``: the known input residual ``k`` is, or None."""
    n_known_out = len(j1.outs) - nres
    res_outs = j1.outs[n_known_out:]
    position = {v: i for i, v in enumerate(j1.in_binders)}
    fwd = [
        position.get(r) if type(r) is Var and not n_kc <= position.get(r, -1) < n_kc + n_kk else None
        for r in res_outs
    ]
    outs = [*j1.outs[:n_known_out], *[r for r, f in zip(res_outs, fwd) if f is None]]
    return Jaxpr([], j1.in_binders, j1.eqns, outs), fwd


def _arrange_unknown(unknown: ClosedJaxpr, n_lead, nres, intensive, extensive) -> ClosedJaxpr:
    """The unknown body's binders ``[*uk consts, *uk carry, *res, *uk xs]`` reordered to the scan
    convention ``[*intensive res, *uk consts, *uk carry, *uk xs, *extensive res]``."""
    j2 = unknown.jaxpr
    res_binders = j2.in_binders[n_lead : n_lead + nres]
    uk_binders = [*j2.in_binders[:n_lead], *j2.in_binders[n_lead + nres :]]
    binders = [*[res_binders[k] for k, _ in intensive], *uk_binders, *[res_binders[k] for k, _ in extensive]]
    return ClosedJaxpr(Jaxpr([], binders, j2.eqns, j2.outs), [])


def _scan_partial_eval(trace, tracers, *, jaxpr, num_consts, num_carry, length, reverse, unroll=1):
    """JAX's rule: a known scan, then an unknown one reading the residuals. Residuals that are
    known consts or xs are passed on (not stacked); those computed from known consts alone are
    computed once before the loop (hoisted); the rest are stacked as extra ys of the known scan.
    The unknown scan takes consts ``[*intensive residuals, *unknown consts]`` and xs
    ``[*unknown xs, *extensive residuals]``."""
    unknowns = [not t.pval.is_known for t in tracers]
    known, unknown, c_uk, k_uk, x_uk, out_uk, nres = _scan_split(jaxpr, num_consts, num_carry, unknowns)
    uk_all = [*c_uk, *k_uk, *x_uk]
    n_uc, n_uk = sum(c_uk), sum(k_uk)
    n_kc, n_kk = num_consts - n_uc, num_carry - n_uk
    kvals = [t.pval.const for t, u in zip(tracers, uk_all) if not u]
    n_known_out = len(known.jaxpr.outs) - nres
    j1, fwd = _forward_residuals(known.jaxpr, nres, n_kc, n_kk)
    # Hoisting: what depends on known consts only runs once, before the loop. A ref const is not
    # hoisted from (the loop writes it): it follows the hoisted consts into the loop, as in JAX.
    is_ref = [type(core.get_aval(v)) is AbstractRef for v in kvals[:n_kc]]
    ja, jb, out_uk2, _ = _split_invariants(j1, [*is_ref, *[True] * (len(j1.in_binders) - n_kc)], n_known_out)
    outer = eval_jaxpr(*folding_converts(ja, [v for v, r in zip(kvals, is_ref) if not r]), [])
    n_hoisted = len(ja.outs) - (len(jb.in_binders) - (len(j1.in_binders) - n_kc + sum(is_ref)))
    hoisted, new_consts = list(outer[:n_hoisted]), list(outer[n_hoisted:])
    new_consts += [v for v, r in zip(kvals, is_ref) if r]
    # (dead code in nested branches goes, as in JAX; JAX's JaxprTrace split binds what nothing
    # reads, a swap's old value, to _)
    body = ir.drop_unused_binders(ir.dce_jaxpr(jb))
    outs1 = (
        scan_p.bind(
            *new_consts,
            *kvals[n_kc:],
            jaxpr=ClosedJaxpr(body, []),
            num_consts=len(new_consts),
            num_carry=n_kk,
            length=length,
            reverse=reverse,
            unroll=unroll,
        )
        if body.outs or ir.has_effects(body)
        else []  # (a known scan with no results is not run, as JAX's rule does not bind it)
    )
    known_outs, stacked = outs1[:n_known_out], iter(outs1[n_known_out:])
    hoisted_it = iter(hoisted)
    which_hoisted = iter([not u for u in out_uk2[n_known_out:]])
    intensive, extensive = [], []  # (residual index, value)
    for k, f in enumerate(fwd):
        if f is not None:
            (intensive if f < n_kc else extensive).append((k, kvals[f]))
        elif next(which_hoisted):
            intensive.append((k, next(hoisted_it)))
        else:
            extensive.append((k, next(stacked)))
    unknown = _arrange_unknown(unknown, n_uc + n_uk, nres, intensive, extensive)
    raise_ = lambda v: trace.instantiate_const(trace.full_raise(v))
    uk_t = [trace.instantiate_const(t) for t, u in zip(tracers, uk_all) if u]
    ins = [*[raise_(v) for _, v in intensive], *uk_t, *[raise_(v) for _, v in extensive]]
    params = dict(
        jaxpr=unknown,
        num_consts=len(intensive) + n_uc,
        num_carry=n_uk,
        length=length,
        reverse=reverse,
        unroll=unroll,
    )
    out_avals = _scan_abstract(*[t.aval for t in ins], **params)
    return _stage(trace, scan_p, ins, params, out_avals, known_outs, out_uk)


def _scan_partial_eval_jaxpr(unks_in, eqn, trace_order=False, forced_zero=True):
    # As the trace-level rule: residuals forwarded, and those of known consts alone hoisted (their
    # equations go before the known scan). ``forced_zero=False``: a known carry the fixpoint made
    # unknown keeps its known initial value (JAX's partial_eval_jaxpr_nounits, which a remat's
    # transpose runs, instantiates it as it is).
    p = eqn.params
    known, unknown, c_uk, k_uk, x_uk, out_uk, nres = _scan_split(
        p["jaxpr"], p["num_consts"], p["num_carry"], unks_in, trace_order
    )
    uk_all = [*c_uk, *k_uk, *x_uk]
    n_uc, n_uk = sum(c_uk), sum(k_uk)
    n_kc, n_kk = p["num_consts"] - n_uc, p["num_carry"] - n_uk
    kin = [x for x, u in zip(eqn.inputs, uk_all) if not u]
    uin = [x for x, u in zip(eqn.inputs, uk_all) if u]
    n_known_out = len(known.jaxpr.outs) - nres
    j1, fwd = _forward_residuals(known.jaxpr, nres, n_kc, n_kk)
    hoist_eqns, hoisted, loop_consts, body, which_hoisted = _hoisted(j1, kin, n_kc, n_known_out)
    stacked = [Var(v.aval.update(shape=(p["length"], *v.aval.shape))) for v in body.outs[n_known_out:]]
    eqn1 = JaxprEqn(
        scan_p,
        [*loop_consts, *kin[n_kc:]],
        dict(p, jaxpr=ClosedJaxpr(body, []), num_consts=len(loop_consts), num_carry=n_kk),
        [*[v for v, u in zip(eqn.out_binders, out_uk) if not u], *stacked],
        eqn.source_info,
    )
    it, hoisted_it, is_hoisted = iter(stacked), iter(hoisted), iter(which_hoisted)
    intensive, extensive = [], []
    for k, f in enumerate(fwd):
        if f is not None:
            (intensive if f < n_kc else extensive).append((k, kin[f]))
        elif next(is_hoisted):
            intensive.append((k, next(hoisted_it)))
        else:
            extensive.append((k, next(it)))
    # Known inputs the fixpoint made unknown are zero tangents of carries (a tangent that reads no
    # unknown is zero); JAX's linearization instantiates them on the unknown side, not as residuals.
    zeros: list[JaxprEqn] = []
    kept_known: list[Atom] = []  # (known initial values the unknown scan reads: residuals too)
    for k, (x, u, was) in enumerate(zip(eqn.inputs, uk_all, unks_in)):
        if u and not was and forced_zero and not hoisting[0]:
            made, atom = ad.zeros_eqns(x.aval)
            zeros.extend(made)
            uin[sum(uk_all[:k])] = atom
        elif u and not was:
            kept_known.append(x)
    eqn2 = JaxprEqn(
        scan_p,
        [*[v for _, v in intensive], *uin, *[v for _, v in extensive]],
        dict(
            p,
            jaxpr=_arrange_unknown(unknown, n_uc + n_uk, nres, intensive, extensive),
            num_consts=len(intensive) + n_uc,
            num_carry=n_uk,
        ),
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
        eqn.source_info,
    )
    return (
        # (a known scan with no results is not run, as JAX's rule does not bind it)
        [*hoist_eqns, eqn1] if eqn1.out_binders or ir.has_effects(body) else hoist_eqns,
        [*zeros, eqn2] if zeros else eqn2,
        out_uk,
        [*kept_known, *[v for _, v in [*intensive, *extensive]]],  # (instantiated first, as JAX's)
    )


def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse, unroll=1):
    consts, carry, xs = (
        args[:num_consts],
        args[num_consts : num_consts + num_carry],
        args[num_consts + num_carry :],
    )
    c_lin = [ad.is_undefined(c) for c in consts]
    # A const that is a ref's cotangent (an accumulator) is passed in as its ref, after the
    # residual consts, and the transposed body reads and writes it (JAX's mutable consts).
    c_acc = [type(c) if isinstance(c, backward_pass.CotangentAccumulator) else None for c in consts]
    ref_c = [c.project() for c in consts if isinstance(c, backward_pass.CotangentAccumulator)]
    x_lin = [ad.is_undefined(x) for x in xs]
    # The carry is linear even where its initial value is a known constant (a zero tangent
    # instantiated by the jvp): such a carry gets no cotangent back.
    k_lin = [ad.is_undefined(c) for c in carry]
    carry = [c if ad.is_undefined(c) else ad.UndefPrimal(core.get_aval(c)) for c in carry]
    ct_carry, ct_ys = cts[:num_carry], cts[num_carry:]
    ct_carry = [ad.instantiate_zeros(c) for c in ct_carry]
    ct_ys = [ad.instantiate_zeros(c) for c in ct_ys]
    res_c = [c for c, l, a in zip(consts, c_lin, c_acc) if not l and a is None]
    res_x = [x for x, l in zip(xs, x_lin) if not l]
    lin_c_avals = [c.aval for c, l in zip(consts, c_lin) if l]
    # The carry's cotangents keep the incoming cotangents' type (JAX's accumulators are typed by
    # them), so a weak carry gets no convert back to weak.
    carry_avals = [core.get_aval(c) for c in ct_carry]
    body_avals = jaxpr.in_avals

    def body_t(*vals):
        i = 0
        rc = vals[i : i + len(res_c)]
        i += len(res_c)
        refs = iter(vals[i : i + len(ref_c)])
        i += len(ref_c)
        acc = vals[i : i + len(lin_c_avals)]
        i += len(lin_c_avals)
        ctc = vals[i : i + num_carry]
        i += num_carry
        cty = vals[i : i + len(ct_ys)]
        i += len(ct_ys)
        rx = vals[i:]
        it_c, it_x = iter(rc), iter(rx)
        full = [
            ad.UndefPrimal(explicit_types.typed_like(a, c))
            if l
            else acc.unproject(a, next(refs))
            if acc
            else next(it_c)
            for a, c, l, acc in zip(body_avals[:num_consts], consts, c_lin, c_acc)
        ]
        full += [ad.UndefPrimal(a) for a in carry_avals]
        full += [
            ad.UndefPrimal(explicit_types.typed_like(a, x, sliced=True)) if l else next(it_x)
            for a, x, l in zip(body_avals[num_consts + num_carry :], xs, x_lin)
        ]
        # Each linear const's running sum enters as the cotangent of the const itself (an extra
        # output), so its contributions add onto it as they arise, as JAX accumulates them.
        j = jaxpr.jaxpr
        lin_consts = [v for v, l in zip(j.in_binders[:num_consts], c_lin) if l]
        j = Jaxpr(j.constvars, j.in_binders, j.eqns, [*j.outs, *lin_consts])
        outs = ad.backward_pass(j, full, [*ctc, *cty, *acc])
        outs = [ad.instantiate_zeros(o) for o in outs]
        n_lc = len(lin_c_avals)
        ct_c, ct_k, ct_x = outs[:n_lc], outs[n_lc : n_lc + num_carry], outs[n_lc + num_carry :]
        return [*ct_c, *ct_k, *ct_x]

    x_res_avals = [core.get_aval(x).update(shape=core.get_aval(x).shape[1:]) for x in res_x]
    cty_avals = [core.get_aval(c).update(shape=core.get_aval(c).shape[1:]) for c in ct_ys]
    # xs as JAX orders them: the ys' cotangents, then the extensive residuals.
    zeros_acc = [ad.zeros_like_aval(a) for a in lin_c_avals]
    bt, bconsts = _trace(
        body_t,
        [*_avals(res_c), *_avals(ref_c), *lin_c_avals, *carry_avals, *cty_avals, *x_res_avals],
        operands=[*res_c, *ref_c, *zeros_acc, *ct_carry, *ct_ys, *res_x],
        sliced=len(ct_ys) + len(res_x),
    )
    outs = scan_p.bind(
        *bconsts,
        *res_c,
        *ref_c,
        *zeros_acc,
        *ct_carry,
        *ct_ys,
        *res_x,
        jaxpr=bt,
        num_consts=len(bconsts) + len(res_c) + len(ref_c),
        num_carry=len(lin_c_avals) + num_carry,
        length=length,
        reverse=not reverse,
        unroll=unroll,
    )
    n_lc = len(lin_c_avals)
    ct_consts, ct_init, ct_xs = (
        iter(outs[:n_lc]),
        outs[n_lc : n_lc + num_carry],
        iter(outs[n_lc + num_carry :]),
    )
    return (
        [next(ct_consts) if l else None for l in c_lin]
        + [c if l else None for c, l in zip(ct_init, k_lin)]
        + [next(ct_xs) if l else None for l in x_lin]
    )


def _scan_batch(axis_size, vals, dims, *, jaxpr, num_consts, num_carry, length, reverse, unroll=1):
    nc, nk = num_consts, num_carry
    cb = [d is not not_mapped for d in dims[:nc]]
    kb = [d is not not_mapped for d in dims[nc : nc + nk]]
    xb = [d is not not_mapped for d in dims[nc + nk :]]
    while True:
        out_b = _batched_outs(jaxpr, [*cb, *kb, *xb], axis_size)
        new = [a or b for a, b in zip(kb, out_b[:nk])]
        if new == kb:
            break
        kb = new
    consts = [
        batching.bdim_at_front(v, d, axis_size) if b else v for v, d, b in zip(vals[:nc], dims[:nc], cb)
    ]
    carry = [
        batching.bdim_at_front(v, d, axis_size) if b else v
        for v, d, b in zip(vals[nc : nc + nk], dims[nc : nc + nk], kb)
    ]
    xs = [batching.moveaxis(v, d, 1) if b else v for v, d, b in zip(vals[nc + nk :], dims[nc + nk :], xb)]
    y_b = _batched_outs(jaxpr, [*cb, *kb, *xb], axis_size)[nk:]
    in_dims = [0 if b else None for b in [*cb, *kb, *xb]]
    spec = lambda n: [0 if b else None for b in [*kb, *y_b]]

    def body(*args):
        return batching.vmap_flat(lambda *ys: _run(jaxpr, *ys), axis_size, None, in_dims, args, spec)

    x_avals = [core.get_aval(x).update(shape=core.get_aval(x).shape[1:]) for x in xs]
    bj, bconsts = _trace(body, [*_avals(consts), *_avals(carry), *x_avals])
    outs = scan_p.bind(
        *bconsts,
        *consts,
        *carry,
        *xs,
        jaxpr=bj,
        num_consts=len(bconsts) + nc,
        num_carry=nk,
        length=length,
        reverse=reverse,
        unroll=unroll,
    )
    return outs, [*[0 if b else not_mapped for b in kb], *[1 if b else not_mapped for b in y_b]]


def _scan_dce(eqn, used_outputs):
    """JAX's rule: drop unused ys and the carries nothing needs (a fixed point: a carry is needed
    if its output is used or a needed output reads it), then the inputs nothing reads."""
    p = eqn.params
    j, nc, nk = p["jaxpr"].jaxpr, p["num_consts"], p["num_carry"]
    used_carry, used_ys = list(used_outputs[:nk]), list(used_outputs[nk:])
    while True:
        body = ir.dce_jaxpr(j, [*used_carry, *used_ys])
        read = {x for e in body.eqns for x in e.inputs if type(x) is Var}
        read.update(x for x in body.outs if type(x) is Var)
        used_in = [v in read for v in j.in_binders]
        carry_in = [a or b for a, b in zip(used_in[nc : nc + nk], used_carry)]
        if carry_in == used_carry:
            break
        used_carry = carry_in
    used_in[nc : nc + nk] = used_carry
    used_out = [*used_carry, *used_ys]
    body = ir.same_types(Jaxpr([], [v for v, u in zip(j.in_binders, used_in) if u], body.eqns, body.outs), j)
    return eqn._replace(
        inputs=[x for x, u in zip(eqn.inputs, used_in) if u],
        out_binders=[v for v, u in zip(eqn.out_binders, used_out) if u],
        params=dict(p, jaxpr=ClosedJaxpr(body, []), num_consts=sum(used_in[:nc]), num_carry=sum(used_carry)),
    )


ir.dce_rules[scan_p] = _scan_dce
ad.jvp_rules[scan_p] = _scan_jvp


ad.partial_eval_rules[scan_p] = _scan_partial_eval
backward_pass.takes_accumulators.add(scan_p)


def _known_scan_hoisted(eqn: JaxprEqn) -> JaxprEqn | list[JaxprEqn]:
    """A scan the partial evaluation of a jit finds known, as JAX's rule leaves it: what its body
    computes from the consts alone runs once before the loop (the equations returned first), the
    body reads those values as its consts, and its dead code goes."""
    body, nc = eqn.params["jaxpr"], eqn.params["num_consts"]
    j = body.jaxpr
    if body.consts or j.constvars:
        return eqn
    rest = len(j.in_binders) - nc
    ja, jb, _, nres = ad.partial_eval_jaxpr(j, [False] * nc + [True] * rest, instantiate=[True] * len(j.outs))
    if not ja.eqns:
        return eqn
    hoisted, res = _inlined(ja, eqn.inputs[:nc])
    loop = ClosedJaxpr(ir.drop_unused_binders(ir.dce_jaxpr(jb)), [])  # (unread outputs print as _)
    params = {**eqn.params, "jaxpr": loop, "num_consts": nres}
    return [*hoisted, JaxprEqn(scan_p, [*res, *eqn.inputs[nc:]], params, eqn.out_binders, eqn.source_info)]


ad.known_eqn_rules[scan_p] = _known_scan_hoisted


ad.partial_eval_jaxpr_rules[scan_p] = _scan_partial_eval_jaxpr
# A remat stages a mixed scan whole and JAX's transpose of it splits it with a JaxprTrace: the
# residuals of the known scan the staged part reruns come in that split's order.
ad_checkpoint.remat_split_rules[scan_p] = lambda unks_in, eqn: _scan_partial_eval_jaxpr(unks_in, eqn, True)


ad.transpose_rules[scan_p] = _scan_transpose


batching.batch_rules[scan_p] = _scan_batch


def _known_scan_call(known: list[JaxprEqn], unknown, eqn: JaxprEqn, unks_in) -> JaxprEqn:
    """The known half of a remat'ed scan as JAX's _scan_partial_eval_custom runs it: one
    closed_call on the scan's known operands, of the hoisted loop invariants and the known scan,
    returning the invariants the unknown scan reads (its intensive residuals), then the known
    scan's outputs."""
    # (its operands: the known consts, then the known carries and xs, as the fixpoint on the
    # carries left them, which the known scan reads last)
    loop = known[-1]
    n_kc = sum(not u for u in unks_in[: eqn.params["num_consts"]])
    tail = len(loop.inputs) - loop.params["num_consts"]
    consts = [x for x, u in zip(eqn.inputs[: eqn.params["num_consts"]], unks_in) if not u]
    kin = [*consts, *loop.inputs[len(loop.inputs) - tail :]]
    binders = [Var(x.aval) for x in kin]
    first: dict = {}
    for x, b in zip(kin[:n_kc], binders):
        if type(x) is Var:
            first.setdefault(x, b)

    def renamed(e: JaxprEqn, tail: int = 0) -> JaxprEqn:
        head = e.inputs[: len(e.inputs) - tail]
        ins = [first.get(x, x) if type(x) is Var else x for x in head]
        return e._replace(inputs=[*ins, *binders[len(binders) - tail :]])

    # (the known scan reads the known carries and xs positionally: a value passed twice is two binders)
    loop = renamed(loop, tail)
    hoisted = {v for e in known[:-1] for v in e.out_binders}
    staged = unknown if isinstance(unknown, list) else [unknown]
    intensive = dict.fromkeys(x for e in staged for x in e.inputs if type(x) is Var and x in hoisted)
    body = [*[renamed(e) for e in known[:-1]], loop]
    return call_of(kin, binders, body, [*intensive, *loop.out_binders], eqn.source_info)


ad_checkpoint.known_call_rules[scan_p] = _known_scan_call
