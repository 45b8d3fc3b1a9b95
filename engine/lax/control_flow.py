"""Structured control flow: ``cond``/``switch``, ``while_loop``/``fori_loop``, ``scan``/``map``.

Each is one primitive whose bodies are closed jaxprs in its params (printed inline, inspectable):
``cond[branches]``, ``while[cond_jaxpr body_jaxpr]``, ``scan[jaxpr]``. Bodies are closure-converted:
whatever a body closes over becomes an explicit operand, so every rule (jvp, partial eval,
transpose, batching, lowering) sees all data flow. As in JAX, ``cond`` and ``scan`` are
differentiable in both modes, ``while_loop`` in forward mode only; ``fori_loop`` with concrete
bounds is a ``scan`` so that it differentiates in reverse mode too. ``vmap`` of a ``cond`` with a
batched predicate runs every branch and selects.
"""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core, ir
from ..backends.rows import Special, lowerings
from ..batching import not_mapped
from ..core import Primitive, ShapedArray
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_jaxpr
from ..staging import trace_to_jaxpr
from ..tree_util import tree_flatten, tree_unflatten
from . import api as lax

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "cond_p", "while_p", "scan_p"]

cond_p = Primitive("cond", multiple_results=True)
while_p = Primitive("while", multiple_results=True)
scan_p = Primitive("scan", multiple_results=True)
ir.pp_params_rules[scan_p] = lambda eqn: sorted({"unroll": 1, **eqn.params}.items())
cond_p.weak_from_abstract_eval = while_p.weak_from_abstract_eval = scan_p.weak_from_abstract_eval = True
# Compiled code lowers control flow itself (numba_jit: scalar loops, blocked kernels, host loops).
for _p in (cond_p, while_p, scan_p):
    lowerings[_p] = Special(_p.name)


# ---------------------------------------------------------------------------------------------
# Tracing bodies.


def _closure_convert(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """Constants become leading inputs, so the body is a pure function of its operands."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr([], [*j.constvars, *j.in_binders], j.eqns, j.outs), []), list(closed.consts)


def _trace(fun, avals) -> tuple[ClosedJaxpr, list]:
    return _closure_convert(trace_to_jaxpr(fun, list(avals)))


def _avals(xs):
    return [core.get_aval(x) for x in xs]


def _run(closed: ClosedJaxpr, *args):
    return eval_jaxpr(closed.jaxpr, args, closed.consts)


def _join_weak(avals_lists):
    return [
        a.update(weak_type=all(al[i].weak_type for al in avals_lists)) for i, a in enumerate(avals_lists[0])
    ]


def _check_same(what, a_avals, b_avals, a_tree=None, b_tree=None):
    if a_tree is not None and a_tree != b_tree:
        raise TypeError(f"{what} must have identical types; got output structures {a_tree} and {b_tree}.")
    for a, b in zip(a_avals, b_avals):
        if a.shape != b.shape or a.dtype != b.dtype:
            raise TypeError(f"{what} must have identical types, got {a.str_short()} and {b.str_short()}.")


# ---------------------------------------------------------------------------------------------
# cond / switch


def switch(index, branches, *operands):
    """Apply ``branches[index](*operands)``, the index clamped into range.

    >>> switch(1, [lambda x: x + 1., lambda x: x * 2.], 3.)
    Array(6., dtype=float32, weak_type=True)
    """
    return _switch(index, branches, operands, clamp_index=True)


def _switch(index, branches, operands, clamp_index, const_order=None):
    branches = list(branches)
    if not branches:
        raise ValueError("switch requires at least one branch")
    idx_aval = core.get_aval(index)
    if idx_aval.shape != () or idx_aval.dtype.kind not in "iub":
        raise TypeError(f"switch index must be a scalar integer, got {idx_aval.str_short()}")
    index = lax.convert_element_type(index, np.int32)
    if len(branches) > 1 and clamp_index:  # cond's index is 0 or 1 already
        index = lax.clamp(np.int32(0), index, np.int32(len(branches) - 1))
    leaves, in_tree = tree_flatten(operands)
    avals = _avals(leaves)
    closed, trees = [], []
    for br in branches:
        store = []

        def flat(*xs, br=br, store=store):
            out = br(*tree_unflatten(in_tree, xs))
            out_leaves, tree = tree_flatten(out)
            store.append(tree)
            return out_leaves

        closed.append(trace_to_jaxpr(flat, avals))
        trees.append(store[0])
    for c, t in zip(closed[1:], trees[1:]):
        _check_same("branches of cond/switch", closed[0].out_avals, c.out_avals, trees[0], t)
    # Every branch takes the union of all branches' constants, each once (JAX's order: cond's true
    # branch first), so operands line up.
    consts, position = [], {}
    for k in const_order or range(len(closed)):
        for x in closed[k].consts:
            if id(x) not in position:
                position[id(x)] = len(consts)
                consts.append(x)
    jaxprs = []
    for c in closed:
        j = c.jaxpr
        mine = {position[id(x)]: v for x, v in zip(c.consts, j.constvars)}
        binders = [mine.get(p) or Var(core.get_aval(x)) for p, x in enumerate(consts)]
        jaxprs.append(ClosedJaxpr(Jaxpr([], [*binders, *j.in_binders], j.eqns, j.outs), []))
    if len(branches) == 1:
        return tree_unflatten(trees[0], _run(jaxprs[0], *consts, *leaves))
    outs = cond_p.bind(index, *consts, *leaves, branches=tuple(jaxprs))
    return tree_unflatten(trees[0], outs)


def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged as one primitive.

    >>> x = jnp.array(-2.0)
    >>> cond(x > 0, lambda x: x, lambda x: -x, x)
    Array(2., dtype=float32, weak_type=True)
    """
    aval = core.get_aval(pred)
    if aval.shape != ():
        raise TypeError(f"Pred must be a scalar, got {pred!r} of shape {aval.shape}.")
    if aval.dtype.kind not in "biu" and aval.dtype.kind != "f":
        raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype.name}.")
    if aval.dtype != np.bool_:
        pred = lax.ne(pred, lax.full_like(pred, 0))
    return _switch(
        lax.convert_element_type(pred, np.int32), [false_fun, true_fun], operands, False, const_order=(1, 0)
    )


def _cond_impl(index, *args, branches):
    i = int(np.clip(int(index), 0, len(branches) - 1))
    return [core.to_numpy(o) for o in _run(branches[i], *args)]


cond_p.def_impl(_cond_impl)
cond_p.def_abstract_eval(lambda index, *args, branches: _join_weak([b.out_avals for b in branches]))


def _jvp_closed(closed: ClosedJaxpr, nonzeros, instantiate):
    """The jvp of a closure-free jaxpr: ``(primals, nonzero tangents) -> (outs, tangents)``."""
    avals = closed.in_avals
    n = len(avals)
    out_nz = []

    def f(*args):
        ps, it = args[:n], iter(args[n:])
        ts = [next(it) if nz else ad.Zero(ad.tangent_aval(a)) for a, nz in zip(avals, nonzeros)]
        po, to = ad.jvp_flat(lambda *xs: _run(closed, *xs), ps, ts, instantiate=False)
        inst = instantiate if isinstance(instantiate, (list, tuple)) else [instantiate] * len(to)
        to = [ad.instantiate_zeros(t) if i or type(t) is not ad.Zero else t for t, i in zip(to, inst)]
        out_nz[:] = [type(t) is not ad.Zero for t in to]
        return [*po, *[t for t in to if type(t) is not ad.Zero]]

    t_avals = [ad.tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    jc, consts = _trace(f, [*avals, *t_avals])
    assert not consts
    return jc, out_nz


def _cond_jvp(primals, tangents, *, branches):
    index, *args = primals
    nz = [type(t) is not ad.Zero for t in tangents[1:]]
    new = [_jvp_closed(b, nz, True)[0] for b in branches]
    ts = [t for t in tangents[1:] if type(t) is not ad.Zero]
    outs = cond_p.bind(index, *args, *ts, branches=tuple(new))
    m = len(branches[0].out_avals)
    return outs[:m], outs[m:]


def _cond_split(branches, unknowns):
    """Partial-evaluate every branch alike: known branches also return the union of residuals."""
    out_uk = [False] * len(branches[0].out_avals)
    for _ in range(2):
        splits = [ad.partial_eval_jaxpr(b.jaxpr, unknowns, instantiate=out_uk) for b in branches]
        new_uk = [any(s[2][i] for s in splits) for i in range(len(out_uk))]
        if new_uk == out_uk:
            break
        out_uk = new_uk
    res_avals = [[v.aval for v in s[0].outs[len(s[0].outs) - s[3] :]] for s in splits]
    known, unknown = [], []
    for k, (j1, j2, _, nres) in enumerate(splits):
        n_out = len(j1.outs) - nres
        own = j1.outs[n_out:]
        # Residual slots of other branches are filled with zeros.
        pads_eqns, outs_res = [], []
        for i, avs in enumerate(res_avals):
            if i == k:
                outs_res += own
                continue
            for a in avs:
                outs_res.append(_zero_var(a, pads_eqns))
        known.append(
            ClosedJaxpr(Jaxpr([], j1.in_binders, [*j1.eqns, *pads_eqns], [*j1.outs[:n_out], *outs_res]), [])
        )
        res_vars = [[Var(a) for a in avs] for avs in res_avals]
        res_vars[k] = list(j2.in_binders[:nres])
        unknown.append(
            ClosedJaxpr(
                Jaxpr([], [*[v for rv in res_vars for v in rv], *j2.in_binders[nres:]], j2.eqns, j2.outs), []
            )
        )
    return known, unknown, out_uk, sum(len(r) for r in res_avals)


def _zero_var(aval, eqns):
    from .structural import broadcast_in_dim_p
    from ..ir import Literal

    v = Var(aval)
    zero = Literal(np.zeros((), aval.dtype), ShapedArray((), aval.dtype, aval.weak_type))
    eqns.append(
        JaxprEqn(broadcast_in_dim_p, [zero], dict(shape=aval.shape, broadcast_dimensions=()), [v], None)
    )
    return v


def _cond_partial_eval(trace, tracers, *, branches):
    index, *args = tracers
    if not index.pval.is_known:
        return _all_unknown(trace, cond_p, tracers, dict(branches=branches))
    unknowns = [not t.pval.is_known for t in args]
    known, unknown, out_uk, nres = _cond_split(branches, unknowns)
    kvals = [t.pval.const for t, u in zip(args, unknowns) if not u]
    outs1 = cond_p.bind(core.full_lower(index), *kvals, branches=tuple(known))
    n_known = len(outs1) - nres
    res = outs1[n_known:]
    idx_t = trace.instantiate_const(trace.full_raise(index.pval.const))
    res_t = [trace.instantiate_const(trace.full_raise(r)) for r in res]
    uk_t = [trace.instantiate_const(t) for t, u in zip(args, unknowns) if u]
    return _stage(
        trace,
        cond_p,
        [idx_t, *res_t, *uk_t],
        dict(branches=tuple(unknown)),
        [a for a, u in zip(branches[0].out_avals, out_uk) if u],
        outs1[:n_known],
        out_uk,
    )


def _stage(trace, prim, in_tracers, params, out_avals, known_outs, out_uk):
    outs2 = [ad.PartialEvalTracer(trace, ad.PartialVal.unknown(a), None) for a in out_avals]
    recipe = ad.JaxprEqnRecipe(prim, in_tracers, params, out_avals, outs2, core.current_source_info())
    for t in outs2:
        t.recipe = recipe
    it1, it2 = iter(known_outs), iter(outs2)
    return [next(it2) if u else next(it1) for u in out_uk]


def _all_unknown(trace, prim, tracers, params):
    ins = [trace.instantiate_const(t) for t in tracers]
    out_avals = prim.abstract_eval(*[t.aval for t in ins], **params)
    return _stage(trace, prim, ins, params, out_avals, [], [True] * len(out_avals))


def _cond_partial_eval_jaxpr(unks_in, eqn):
    idx_uk, *unknowns = unks_in
    branches = eqn.params["branches"]
    if idx_uk:
        return None, eqn, [True] * len(eqn.out_binders), [x for x, u in zip(eqn.inputs, unks_in) if not u]
    known, unknown, out_uk, nres = _cond_split(branches, unknowns)
    res_vars = [Var(a) for k in known[:1] for a in k.out_avals[len(k.out_avals) - nres :]]
    known_outs = [v for v, u in zip(eqn.out_binders, out_uk) if not u]
    ins = eqn.inputs[1:]
    eqn1 = JaxprEqn(
        cond_p,
        [eqn.inputs[0], *[x for x, u in zip(ins, unknowns) if not u]],
        dict(branches=tuple(known)),
        [*known_outs, *res_vars],
        eqn.source_info,
    )
    eqn2 = JaxprEqn(
        cond_p,
        [eqn.inputs[0], *res_vars, *[x for x, u in zip(ins, unknowns) if u]],
        dict(branches=tuple(unknown)),
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
        eqn.source_info,
    )
    return eqn1, eqn2, out_uk, [eqn.inputs[0], *res_vars]


def _cond_transpose(cts, index, *args, branches):
    assert not ad.is_undefined(index)
    undef = [ad.is_undefined(a) for a in args]
    defined = [a for a in args if not ad.is_undefined(a)]
    cts = [ad.instantiate_zeros(c) for c in cts]
    d_avals, ct_avals = _avals(defined), _avals(cts)
    nd = len(defined)

    def transposed(b):
        def f(*xs):
            it = iter(xs[:nd])
            full = [ad.UndefPrimal(a.aval) if u else next(it) for a, u in zip(args, undef)]
            outs = ad.backward_pass(b.jaxpr, full, list(xs[nd:]))
            return [ad.instantiate_zeros(o) for o in outs]

        jc, consts = _trace(f, [*d_avals, *ct_avals])
        return jc, consts

    traced = [transposed(b) for b in branches]
    # Constants captured while transposing (rare) become operands shared by all branches.
    allc = [c for _, cs in traced for c in cs]
    new = []
    for k, (jc, cs) in enumerate(traced):
        j = jc.jaxpr
        pre = [Var(core.get_aval(c)) for i in range(k) for c in traced[i][1]]
        post = [Var(core.get_aval(c)) for i in range(k + 1, len(traced)) for c in traced[i][1]]
        new.append(
            ClosedJaxpr(
                Jaxpr([], [*pre, *j.in_binders[: len(cs)], *post, *j.in_binders[len(cs) :]], j.eqns, j.outs),
                [],
            )
        )
    outs = cond_p.bind(index, *allc, *defined, *cts, branches=tuple(new))
    it = iter(outs)
    return [None] + [next(it) if u else None for u in undef]


def _bcast_to(pred, x):
    # A per-example predicate broadcast over the rest of x's axes (JAX's _bcast_select).
    p_nd, shape = core.get_aval(pred).ndim, core.get_aval(x).shape
    return lax.broadcast_in_dim(pred, shape, tuple(range(p_nd))) if p_nd != len(shape) else pred


def _cond_batch(axis_size, vals, dims, *, branches):
    index, *args = vals
    idim, *adims = dims
    if idim is not not_mapped:
        # A batched index becomes a select, as in JAX: every branch runs on the whole batch, its
        # operands stop_gradient'ed where it is not taken (safe reverse mode, jax#1052).
        idx = batching.bdim_at_front(index, idim, axis_size)
        ops = [batching.bdim_at_front(a, d, axis_size) for a, d in zip(args, adims)]
        branch_outs = []
        for i, b in enumerate(branches):
            taken = lax.eq(idx, np.array(i, core.get_aval(idx).dtype))
            ops_i = [lax.select(_bcast_to(taken, x), x, lax.stop_gradient(x)) for x in ops]
            branch_outs.append(
                batching.vmap_flat(
                    lambda *xs, b=b: _run(b, *xs), axis_size, None, [0] * len(ops_i), ops_i, lambda n: [0] * n
                )
            )
        res = [lax.select_n(_bcast_to(idx, outs[0]), *outs) for outs in zip(*branch_outs)]
        return res, [0] * len(res)
    in_dims = [None if d is not_mapped else d for d in adims]
    new = []
    for b in branches:
        jc, consts = _trace(
            lambda *xs, b=b: batching.vmap_flat(
                lambda *ys: _run(b, *ys), axis_size, None, in_dims, xs, lambda n: [0] * n
            ),
            _avals(args),
        )
        assert not consts
        new.append(jc)
    return cond_p.bind(index, *args, branches=tuple(new)), [0] * len(new[0].out_avals)


ad.jvp_rules[cond_p] = _cond_jvp
ad.partial_eval_rules[cond_p] = _cond_partial_eval
ad.partial_eval_jaxpr_rules[cond_p] = _cond_partial_eval_jaxpr
ad.transpose_rules[cond_p] = _cond_transpose
batching.batch_rules[cond_p] = _cond_batch


# ---------------------------------------------------------------------------------------------
# while_loop / fori_loop


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
            raise TypeError(
                f"cond_fun must return a boolean scalar, but got output type(s) [{a.str_short()}]."
            )
        return [out]

    body_tree = []

    def flat_body(*xs):
        out_leaves, t = tree_flatten(body_fun(tree_unflatten(tree, xs)))
        body_tree.append(t)
        return out_leaves

    bj, bconsts = _trace(flat_body, avals)
    cj, cconsts = _trace(flat_cond, avals)
    if body_tree[0] != tree:
        raise TypeError(
            f"body_fun output and input must have identical types, got {body_tree[0]} and {tree}."
        )
    _check_same("body_fun output and input", avals, bj.out_avals)
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


def _while_impl(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc, carry = (
        args[:cond_nconsts],
        args[cond_nconsts : cond_nconsts + body_nconsts],
        list(args[cond_nconsts + body_nconsts :]),
    )
    while bool(core.to_numpy(_run(cond_jaxpr, *cc, *carry)[0])):
        carry = _run(body_jaxpr, *bc, *carry)
    return _with_weak_types(carry, body_jaxpr.out_avals)


def _with_weak_types(vals, avals):
    """Loop outputs as Arrays with the weak types the abstract rule gives them: the body's output
    types, as in JAX (whose loops ignore weak-type-only carry mismatches, core.typematch)."""
    return [core.Array(core.to_numpy(v), a.weak_type) for v, a in zip(vals, avals)]


while_p.def_impl(_while_impl)
# As in JAX, the loop's outputs take the body's output types: a weakly typed init (a Python scalar)
# whose carry the body makes strong gives a strong result.
while_p.def_abstract_eval(lambda *avals, body_jaxpr, **_: list(body_jaxpr.out_avals))


def _fixpoint_nonzero(body: ClosedJaxpr, const_nz, carry_nz, xs_nz=(), ys=0):
    carry_nz = list(carry_nz)
    while True:
        _, out_nz = _jvp_closed(body, [*const_nz, *carry_nz, *xs_nz], False)
        new = [a or b for a, b in zip(carry_nz, out_nz[: len(carry_nz)])]
        if new == carry_nz:
            return carry_nz
        carry_nz = new


def _interleave_jvp(body, nz_groups, inst):
    """jvp of ``body`` with binders grouped as (g1, g1_tangents, g2, g2_tangents, ...)."""
    jc, _ = _jvp_closed(body, [nz for g in nz_groups for nz in g], inst)
    j = jc.jaxpr
    n = sum(len(g) for g in nz_groups)
    prim, tans = j.in_binders[:n], iter(j.in_binders[n:])
    binders, start = [], 0
    for g in nz_groups:
        binders += prim[start : start + len(g)]
        binders += [next(tans) for nz in g if nz]
        start += len(g)
    return ClosedJaxpr(Jaxpr([], binders, j.eqns, j.outs), [])


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


def _while_partial_eval(trace, tracers, **params):
    if all(t.pval.is_known for t in tracers):
        return while_p.bind(*[core.full_lower(t) for t in tracers], **params)
    _while_transpose()  # reverse mode needs the trip count: JAX's error, raised where JAX does


def _while_batch(axis_size, vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    cdims, bdims, kdims = dims[:nc], dims[nc : nc + nb], list(dims[nc + nb :])
    cvals, bvals, kvals = vals[:nc], vals[nc : nc + nb], list(vals[nc + nb :])
    kb = [d is not not_mapped for d in kdims]
    # Carry batched-ness is a fixed point of the body (and of the predicate, below).
    while True:
        out_b = _batched_outs(body_jaxpr, [d is not not_mapped for d in bdims] + kb, axis_size)
        new = [a or b for a, b in zip(kb, out_b)]
        pred_b = _batched_outs(cond_jaxpr, [d is not not_mapped for d in cdims] + new, axis_size)[0]
        if pred_b:
            new = [True] * len(new)
        if new == kb:
            break
        kb = new
    kvals = [batching.bdim_at_front(v, d, axis_size) if b else v for v, d, b in zip(kvals, kdims, kb)]
    c_in = [None if d is not_mapped else d for d in cdims] + [0 if b else None for b in kb]
    b_in = [None if d is not_mapped else d for d in bdims] + [0 if b else None for b in kb]
    spec = lambda n: [0 if b else None for b in kb]

    def body_b(*xs):
        return batching.vmap_flat(lambda *ys: _run(body_jaxpr, *ys), axis_size, None, b_in, xs, spec)

    def cond_b(*xs):
        return batching.vmap_flat(
            lambda *ys: _run(cond_jaxpr, *ys), axis_size, None, c_in, xs, lambda n: [0 if pred_b else None]
        )

    kavals = _avals(kvals)
    if pred_b:
        # Examples finish at different steps: loop while any runs, freeze finished ones.
        def body_sel(*xs):
            cvs, bvs, ks = xs[:nc], xs[nc : nc + nb], xs[nc + nb :]
            p = cond_b(*cvs, *ks)[0]
            new = body_b(*bvs, *ks)
            outs = []
            for n_, o in zip(new, ks):
                shape = core.get_aval(o).shape
                w = lax.broadcast_in_dim(p, shape, (0,)) if len(shape) > 1 else p
                outs.append(lax.select(w, n_, o))
            return outs

        bj, bconsts = _trace(body_sel, [*_avals(cvals), *_avals(bvals), *kavals])
        cj, cconsts = _trace(
            lambda *xs: (
                [lax.reduce_or(cond_b(*xs)[0], (0,))]
                if hasattr(lax, "reduce_or")
                else [
                    lax.gt(
                        lax.reduce_max(lax.convert_element_type(cond_b(*xs)[0], np.int32), (0,)), np.int32(0)
                    )
                ]
            ),
            [*_avals(cvals), *kavals],
        )
        outs = while_p.bind(
            *cconsts,
            *cvals,
            *bconsts,
            *cvals,
            *bvals,
            *kvals,
            cond_jaxpr=cj,
            body_jaxpr=bj,
            cond_nconsts=len(cconsts) + nc,
            body_nconsts=len(bconsts) + nc + nb,
        )
    else:
        bj, bconsts = _trace(body_b, [*_avals(bvals), *kavals])
        cj, cconsts = _trace(cond_b, [*_avals(cvals), *kavals])
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
    return outs, [0 if b else not_mapped for b in kb]


def _batched_outs(closed, in_batched, axis_size):
    """Which outputs of ``closed`` depend on batched inputs (a dependence analysis on the jaxpr)."""
    j = closed.jaxpr
    batched = {v for v, b in zip(j.in_binders, in_batched) if b}
    for eqn in j.eqns:
        if any(type(x) is Var and x in batched for x in eqn.inputs):
            batched.update(eqn.out_binders)
    return [type(x) is Var and x in batched for x in j.outs]


ad.jvp_rules[while_p] = _while_jvp
ad.transpose_rules[while_p] = _while_transpose
ad.partial_eval_rules[while_p] = _while_partial_eval
batching.batch_rules[while_p] = _while_batch


def fori_loop(lower, upper, body_fun, init_val):
    """``for i in range(lower, upper): val = body_fun(i, val)``.

    With concrete bounds this is a ``scan`` (reverse-differentiable); otherwise a ``while_loop``.

    >>> fori_loop(0, 5, lambda i, x: x + i, 0)
    Array(10, dtype=int32, weak_type=True)
    """
    lo_c, hi_c = core.concrete_or_none(lower), core.concrete_or_none(upper)
    idx_dtype = (
        np.result_type(*(core.get_aval(b).dtype for b in (lower, upper)))
        if not (isinstance(lower, int) and isinstance(upper, int))
        else np.dtype(np.int32)
    )
    idx_dtype = core.canonical_dtype(idx_dtype)
    if lo_c is not None and hi_c is not None:
        lo_i, hi_i = int(lo_c), int(hi_c)

        def step(carry, _):
            i, x = carry
            return (lax.add(i, lax.full_like(i, 1)), body_fun(i, x)), None

        # Python int bounds give a weakly typed index, as in JAX (whose scan carries the int).
        start = core.Array(np.asarray(lo_i, idx_dtype), isinstance(lower, int) and isinstance(upper, int))
        (_, out), _ = scan(step, (start, init_val), None, length=max(hi_i - lo_i, 0))
        return out

    def cond_fun(c):
        return lax.lt(c[0], c[1])

    def body(c):
        i, hi, x = c
        return lax.add(i, lax.full_like(i, 1)), hi, body_fun(i, x)

    lo = lax.convert_element_type(lower, idx_dtype)
    hi = lax.convert_element_type(upper, idx_dtype)
    return while_loop(cond_fun, body, (lo, hi, init_val))[2]


# ---------------------------------------------------------------------------------------------
# scan / map


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``carry, y = f(carry, x)`` over the leading axis of ``xs``; returns ``(carry, stacked ys)``.

    >>> scan(lambda c, x: (c + x, c * x), 0., jnp.arange(3.))
    (Array(3., dtype=float32), Array([0., 0., 2.], dtype=float32))
    """
    x_leaves, x_tree = tree_flatten(xs)
    lengths = {core.get_aval(x).shape[0] for x in x_leaves if core.get_aval(x).ndim}
    if any(core.get_aval(x).ndim == 0 for x in x_leaves):
        raise ValueError("scan got value with no leading axis to scan over.")
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError(
            f"scan got {'no' if not lengths else 'inconsistent'} lengths for the leading "
            f"axis of xs: {sorted(lengths)}; pass length= when xs is None."
        )
    n = lengths.pop()
    c_leaves, c_tree = tree_flatten(init)
    c_avals = _avals(c_leaves)
    x_avals = [core.get_aval(x).update(shape=core.get_aval(x).shape[1:]) for x in x_leaves]
    trees = []

    def flat(*args):
        c = tree_unflatten(c_tree, args[: len(c_leaves)])
        x = tree_unflatten(x_tree, args[len(c_leaves) :])
        carry, y = f(c, x)
        cl, ct = tree_flatten(carry)
        yl, yt = tree_flatten(y)
        trees[:] = [ct, yt]
        return [*cl, *yl]

    body, consts = _trace(flat, [*c_avals, *x_avals])
    if trees[0] != c_tree:
        raise TypeError(
            f"scan body function carry input and carry output must have the same pytree "
            f"structure, but they differ: {c_tree} and {trees[0]}."
        )
    _check_same("scan carry output and input", c_avals, body.out_avals[: len(c_avals)])
    outs = scan_p.bind(
        *consts,
        *c_leaves,
        *x_leaves,
        jaxpr=body,
        num_consts=len(consts),
        num_carry=len(c_leaves),
        length=n,
        reverse=bool(reverse),
    )
    return tree_unflatten(c_tree, outs[: len(c_leaves)]), tree_unflatten(trees[1], outs[len(c_leaves) :])


def map(f, xs):
    """``f`` applied to each slice of ``xs`` along the leading axis, sequentially (a scan)."""
    _, ys = scan(lambda c, x: (c, f(x)), (), xs)
    return ys


def _scan_impl(*args, jaxpr, num_consts, num_carry, length, reverse):
    consts, carry, xs = (
        args[:num_consts],
        list(args[num_consts : num_consts + num_carry]),
        args[num_consts + num_carry :],
    )
    y_avals = jaxpr.out_avals[num_carry:]
    ys = [np.empty((length, *a.shape), a.dtype) for a in y_avals]
    for k in range(length):
        i = length - 1 - k if reverse else k
        outs = _run(jaxpr, *consts, *carry, *[x[i] for x in xs])
        carry = outs[:num_carry]
        for y, o in zip(ys, outs[num_carry:]):
            y[i] = core.to_numpy(o)
    return _with_weak_types([*carry, *ys], jaxpr.out_avals)


def _scan_abstract(*avals, jaxpr, num_consts, num_carry, length, reverse):
    carry = list(jaxpr.out_avals[:num_carry])
    return [*carry, *[a.update(shape=(length, *a.shape)) for a in jaxpr.out_avals[num_carry:]]]


scan_p.def_impl(_scan_impl)
scan_p.def_abstract_eval(_scan_abstract)


def _scan_jvp(primals, tangents, *, jaxpr, num_consts, num_carry, length, reverse):
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
    kt = [ad.instantiate_zeros(t) for t, z in zip(tangents[num_consts : num_consts + num_carry], k_nz) if z]
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


def _scan_split(jaxpr, num_consts, num_carry, unknowns):
    """Known scan (also emitting residuals as extra ys) and unknown scan (taking them as xs)."""
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
    known = ClosedJaxpr(j1, [])
    res_binders, uk_ins = j2.in_binders[:nres], j2.in_binders[nres:]
    n_uc, n_uk = sum(c_uk), sum(k_uk)
    unknown = ClosedJaxpr(
        Jaxpr([], [*uk_ins[: n_uc + n_uk], *res_binders, *uk_ins[n_uc + n_uk :]], j2.eqns, j2.outs), []
    )
    return known, unknown, c_uk, k_uk, x_uk, out_uk, nres


def _scan_partial_eval(trace, tracers, *, jaxpr, num_consts, num_carry, length, reverse):
    unknowns = [not t.pval.is_known for t in tracers]
    known, unknown, c_uk, k_uk, x_uk, out_uk, nres = _scan_split(jaxpr, num_consts, num_carry, unknowns)
    uk_all = [*c_uk, *k_uk, *x_uk]
    kvals = [t.pval.const for t, u in zip(tracers, uk_all) if not u]
    n_kc = num_consts - sum(c_uk)
    n_kk = num_carry - sum(k_uk)
    outs1 = scan_p.bind(*kvals, jaxpr=known, num_consts=n_kc, num_carry=n_kk, length=length, reverse=reverse)
    n_known = len(outs1) - nres
    res = outs1[n_known:]
    res_t = [trace.instantiate_const(trace.full_raise(r)) for r in res]
    uk_t = [trace.instantiate_const(t) for t, u in zip(tracers, uk_all) if u]
    n_uc, n_uk = sum(c_uk), sum(k_uk)
    ins = [*uk_t[: n_uc + n_uk], *res_t, *uk_t[n_uc + n_uk :]]
    params = dict(jaxpr=unknown, num_consts=n_uc, num_carry=n_uk, length=length, reverse=reverse)
    out_avals = _scan_abstract(*[t.aval for t in ins], **params)
    return _stage(trace, scan_p, ins, params, out_avals, outs1[:n_known], out_uk)


def _scan_partial_eval_jaxpr(unks_in, eqn):
    p = eqn.params
    known, unknown, c_uk, k_uk, x_uk, out_uk, nres = _scan_split(
        p["jaxpr"], p["num_consts"], p["num_carry"], unks_in
    )
    uk_all = [*c_uk, *k_uk, *x_uk]
    res_vars = [
        Var(a.update(shape=(p["length"], *a.shape))) for a in known.out_avals[len(known.out_avals) - nres :]
    ]
    n_uc, n_uk = sum(c_uk), sum(k_uk)
    kin = [x for x, u in zip(eqn.inputs, uk_all) if not u]
    uin = [x for x, u in zip(eqn.inputs, uk_all) if u]
    eqn1 = JaxprEqn(
        scan_p,
        kin,
        dict(p, jaxpr=known, num_consts=p["num_consts"] - n_uc, num_carry=p["num_carry"] - n_uk),
        [*[v for v, u in zip(eqn.out_binders, out_uk) if not u], *res_vars],
        eqn.source_info,
    )
    eqn2 = JaxprEqn(
        scan_p,
        [*uin[: n_uc + n_uk], *res_vars, *uin[n_uc + n_uk :]],
        dict(p, jaxpr=unknown, num_consts=n_uc, num_carry=n_uk),
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
        eqn.source_info,
    )
    return eqn1, eqn2, out_uk, res_vars


def _scan_transpose(cts, *args, jaxpr, num_consts, num_carry, length, reverse):
    consts, carry, xs = (
        args[:num_consts],
        args[num_consts : num_consts + num_carry],
        args[num_consts + num_carry :],
    )
    c_lin = [ad.is_undefined(c) for c in consts]
    x_lin = [ad.is_undefined(x) for x in xs]
    # The carry is linear even where its initial value is a known constant (a zero tangent
    # instantiated by the jvp): such a carry gets no cotangent back.
    k_lin = [ad.is_undefined(c) for c in carry]
    carry = [c if ad.is_undefined(c) else ad.UndefPrimal(core.get_aval(c)) for c in carry]
    ct_carry, ct_ys = cts[:num_carry], cts[num_carry:]
    ct_carry = [ad.instantiate_zeros(c) for c in ct_carry]
    ct_ys = [ad.instantiate_zeros(c) for c in ct_ys]
    res_c = [c for c, l in zip(consts, c_lin) if not l]
    res_x = [x for x, l in zip(xs, x_lin) if not l]
    lin_c_avals = [c.aval for c, l in zip(consts, c_lin) if l]
    carry_avals = [c.aval for c in carry]
    body_avals = jaxpr.in_avals

    def body_t(*vals):
        i = 0
        rc = vals[i : i + len(res_c)]
        i += len(res_c)
        acc = vals[i : i + len(lin_c_avals)]
        i += len(lin_c_avals)
        ctc = vals[i : i + num_carry]
        i += num_carry
        rx = vals[i : i + len(res_x)]
        i += len(res_x)
        cty = vals[i:]
        it_c, it_x = iter(rc), iter(rx)
        full = [ad.UndefPrimal(a) if l else next(it_c) for a, l in zip(body_avals[:num_consts], c_lin)]
        full += [ad.UndefPrimal(a) for a in body_avals[num_consts : num_consts + num_carry]]
        full += [
            ad.UndefPrimal(a) if l else next(it_x)
            for a, l in zip(body_avals[num_consts + num_carry :], x_lin)
        ]
        outs = ad.backward_pass(jaxpr.jaxpr, full, [*ctc, *cty])
        outs = [ad.instantiate_zeros(o) for o in outs]
        n_lc = len(lin_c_avals)
        ct_c, ct_k, ct_x = outs[:n_lc], outs[n_lc : n_lc + num_carry], outs[n_lc + num_carry :]
        new_acc = [ad.add_jaxvals_p.bind(a, c) for a, c in zip(acc, ct_c)]
        return [*new_acc, *ct_k, *ct_x]

    x_res_avals = [core.get_aval(x).update(shape=core.get_aval(x).shape[1:]) for x in res_x]
    cty_avals = [core.get_aval(c).update(shape=core.get_aval(c).shape[1:]) for c in ct_ys]
    bt, bconsts = _trace(body_t, [*_avals(res_c), *lin_c_avals, *carry_avals, *x_res_avals, *cty_avals])
    zeros_acc = [ad.zeros_like_aval(a) for a in lin_c_avals]
    outs = scan_p.bind(
        *bconsts,
        *res_c,
        *zeros_acc,
        *ct_carry,
        *res_x,
        *ct_ys,
        jaxpr=bt,
        num_consts=len(bconsts) + len(res_c),
        num_carry=len(lin_c_avals) + num_carry,
        length=length,
        reverse=not reverse,
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


def _scan_batch(axis_size, vals, dims, *, jaxpr, num_consts, num_carry, length, reverse):
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
    )
    return outs, [*[0 if b else not_mapped for b in kb], *[1 if b else not_mapped for b in y_b]]


ad.jvp_rules[scan_p] = _scan_jvp
ad.partial_eval_rules[scan_p] = _scan_partial_eval
ad.partial_eval_jaxpr_rules[scan_p] = _scan_partial_eval_jaxpr
ad.transpose_rules[scan_p] = _scan_transpose
batching.batch_rules[scan_p] = _scan_batch
