"""``cond`` and ``switch``: one ``cond`` primitive whose ``branches`` are closed jaxprs, selected by an
index (clamped into range). Differentiable in both modes; ``vmap`` with a batched index runs every
branch and selects, as JAX does.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import ad, ad_checkpoint, batching, core, ir
from ..backends.rows import Index, Special, lowerings
from ..batching import not_mapped
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from ..jit_primitive import _linearized_directly
from ..staging import trace_to_jaxpr
from ..tracer_origins import debug_info
from ..tree_util import tree_flatten, tree_unflatten
from ..state.discharge import RefOperandPrimitive
from ..state.primitives import bound_inside_vmap, vmapped_branch_levels
from ..state.types import is_ref_aval
from . import api as lax, structural
from . import control_flow_eager
from .control_flow_errors import check_branch_outputs
from ..parallel import explicit_types
from .control_flow_common import (
    _trace,
    _avals,
    _run,
    _run_body,
    _jvp_closed,
    _stage,
    _all_unknown,
    in_trace_order,
)
from ..narrow_dtypes import kind as dtype_kind

cond_p = RefOperandPrimitive("cond", multiple_results=True)
cond_p.weak_from_abstract_eval = True
lowerings[cond_p] = Special(cond_p.name)  # compiled code lowers control flow itself


_NO_OPERAND = object()


def _keyword_operand(operands, operand):
    """JAX's ``operand=`` keyword: a single (pytree) operand passed by name."""
    if operand is _NO_OPERAND:
        return operands
    if operands:
        raise TypeError(
            "if 'operand' keyword is passed then no positional operands can be passed, "
            f"got {operand=} and positional operands {operands}"
        )
    return (operand,)


def switch(index, branches, *operands, operand=_NO_OPERAND):
    """Apply ``branches[index](*operands)``, the index clamped into range.

    >>> switch(1, [lambda x: x + 1., lambda x: x * 2.], 3.)
    Array(6., dtype=float32, weak_type=True)
    """
    operands = _keyword_operand(operands, operand)
    if np.ndim(index) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {np.shape(index)}.")
    index_dtype = core.get_aval(index).dtype
    if dtype_kind(index_dtype) not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    return _switch(index, branches, operands, clamp_index=True, traced_for="switch")


def _switch(index, branches, operands, clamp_index, const_order=None, traced_for=None, **params):
    branches = list(branches)
    if not branches:
        raise ValueError("Empty branch sequence")  # (JAX's words)
    idx_aval = core.get_aval(index)
    if idx_aval.shape != () or dtype_kind(idx_aval.dtype) not in "iub":
        raise TypeError(f"switch index must be a scalar integer, got {idx_aval.str_short()}")
    index = lax.convert_element_type(index, np.int32)
    if len(branches) > 1 and clamp_index:  # cond's index is 0 or 1 already
        index = lax.clamp(np.int32(0), index, np.int32(len(branches) - 1))
    leaves, in_tree = tree_flatten(operands)
    avals = _avals(leaves)
    seeds = explicit_types.operand_layouts(leaves)
    closed, trees = [], []
    for br in branches:
        store = []

        def flat(*xs, br=br, store=store):
            out = br(*tree_unflatten(in_tree, xs))
            out_leaves, tree = tree_flatten(out)
            store.append(tree)
            return out_leaves

        under_vmap = bound_inside_vmap()
        if under_vmap:  # (the branch's trace is the next level)
            vmapped_branch_levels.append(len(core._state.stack))
        try:
            debug = debug_info(traced_for, br, operands) if traced_for else None
            closed.append(trace_to_jaxpr(flat, avals, seeds, debug=debug))
        finally:
            if under_vmap:
                vmapped_branch_levels.pop()
        trees.append(store[0])
    _check_branches(traced_for, branches, trees, [c.out_avals for c in closed])
    typed = [explicit_types.typed_avals(c, leaves) for c in closed]
    if all(t is not None for t in typed):  # (on an explicit mesh: the results' layouts are their types)
        _check_branches(traced_for, branches, trees, [t[1] for t in typed])  # type: ignore[index]
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
    # An output every branch passes straight through from the same input is that input, not an
    # output of the cond (JAX prunes these passthroughs before binding).
    inputs = [*consts, *leaves]
    fwd = [ws[0] if len(set(ws)) == 1 else None for ws in zip(*(_forwarded(j.jaxpr) for j in jaxprs))]
    if any(i is not None for i in fwd):
        jaxprs = [
            ClosedJaxpr(
                Jaxpr(
                    [], j.jaxpr.in_binders, j.jaxpr.eqns, [o for o, i in zip(j.jaxpr.outs, fwd) if i is None]
                ),
                [],
            )
            for j in jaxprs
        ]
    if bound_inside_vmap():  # (JAX's batching rule runs even when no operand is batched)
        refuse_vmap_of_ref_cond(jaxprs)
    outs = iter(cond_p.bind(index, *consts, *leaves, branches=tuple(jaxprs), **params))
    return tree_unflatten(trees[0], [next(outs) if i is None else _as_array(inputs[i]) for i in fwd])


def _forwarded(jaxpr: Jaxpr) -> list[int | None]:
    """For each output: the index of the input it is, if it is one."""
    where = {id(v): k for k, v in enumerate(jaxpr.in_binders)}
    return [None if type(o) is not Var else where.get(id(o)) for o in jaxpr.outs]


def _as_array(x):
    from ..numpy import asarray

    return x if isinstance(x, (core.Tracer, core.Array)) else asarray(x)


def _check_branches(traced_for, branches, trees, out_avals):
    """JAX's checks: cond's true_fun against its false_fun (branches[1] and [0] here), switch's
    branch 0 against each other branch in turn."""
    if traced_for == "cond":
        check_branch_outputs(
            "cond",
            ("true_fun", "false_fun"),
            (branches[1], branches[0]),
            (trees[1], trees[0]),
            (out_avals[1], out_avals[0]),
        )
        return
    for i in range(1, len(branches)):  # (JAX's names: "branch 0" but "branch1", unspaced)
        check_branch_outputs(
            "switch",
            ("branch 0", f"branch{i}"),
            (branches[0], branches[i]),
            (trees[0], trees[i]),
            (out_avals[0], out_avals[i]),
        )


def cond(pred, true_fun, false_fun, *operands, operand=_NO_OPERAND):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, staged as one primitive.

    >>> x = jnp.array(-2.0)
    >>> cond(x > 0, lambda x: x, lambda x: -x, x)
    Array(2., dtype=float32, weak_type=True)
    """
    operands = _keyword_operand(operands, operand)
    aval = core.get_aval(pred)
    if aval.shape != ():
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {aval.shape}.")
    if dtype_kind(aval.dtype) not in "biu" and dtype_kind(aval.dtype) != "f":
        raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype.name}.")
    if type(pred) in (int, float) or isinstance(pred, np.generic):
        pred = bool(pred != 0)  # (a host value compares on the host, as JAX's: no equation)
    elif aval.dtype != np.bool_:
        pred = lax.ne(pred, lax.full_like(pred, 0))
    return _switch(
        lax.convert_element_type(pred, np.int32),
        [false_fun, true_fun],
        operands,
        False,
        const_order=(1, 0),
        traced_for="cond",
    )


def _cond_impl(*args, **params):
    return control_flow_eager.apply(cond_p, _interpreted_cond, args, params)


def _interpreted_cond(index, *args, branches, branches_platforms=None):
    i = int(np.clip(int(index), 0, len(branches) - 1))
    return [core.to_numpy(o) for o in _run_body(branches[i], *args)]


cond_p.def_impl(_cond_impl)


# The outputs are typed as the first branch's, weak types included, as in JAX (whose branches need
# only agree up to weak type): a cond whose branch 0 returns a Python-scalar result is weak.
cond_p.def_abstract_eval(lambda index, *args, branches, branches_platforms=None: list(branches[0].out_avals))


def _platforms(branches_platforms):
    """The ``branches_platforms`` parameter a rule passes on (a platform_dependent's cond keeps it
    through every transformation, as in JAX)."""
    return {} if branches_platforms is None else {"branches_platforms": branches_platforms}


def _cond_jvp(primals, tangents, *, branches, branches_platforms=None):
    index, *args = primals
    nz = [type(t) is not ad.Zero for t in tangents[1:]]
    # As JAX's rule: an output's tangent is computed where some branch makes it nonzero, and is a
    # symbolic zero otherwise (an integer output's float0 tangent, say: no branch passes one out).
    out_nz = [any(z) for z in zip(*[_jvp_closed(b, nz, False)[1] for b in branches])]
    new = [_jvp_closed(b, nz, out_nz)[0] for b in branches]
    ts = [t for t in tangents[1:] if type(t) is not ad.Zero]
    outs = cond_p.bind(index, *args, *ts, branches=tuple(new), **_platforms(branches_platforms))
    m = len(branches[0].out_avals)
    it = iter(outs[m:])
    avals = branches[0].out_avals
    return outs[:m], [next(it) if z else ad.Zero(ad.tangent_aval(a)) for z, a in zip(out_nz, avals)]


def _cond_split(branches, unknowns, literal_residuals=False, trace_order=False, known_operands=None):
    """Partial-evaluate every branch alike (JAX's _cond_partial_eval): known branches also return
    the residuals, in slots merged across branches by type; a branch fills the slots it does not
    use with ``empty2`` values (on an explicit mesh, given the ``known_operands``, laid out as the
    branch that makes the residual lays it out), and the unknown branches take every slot as an
    input. ``trace_order``: each branch's residuals in the order of JAX's JaxprTrace split."""
    out_uk = [False] * len(branches[0].out_avals)
    for _ in range(2):
        splits = [
            ad.partial_eval_jaxpr(
                b.jaxpr, unknowns, instantiate=out_uk, op_literal_residuals=literal_residuals
            )
            for b in branches
        ]
        new_uk = [any(s[2][i] for s in splits) for i in range(len(out_uk))]
        if new_uk == out_uk:
            break
        out_uk = new_uk
    if literal_residuals:  # (JAX's linearize_jaxpr: each branch's tangent side is auto-DCE'd, so
        # only the residuals it still reads are made, and the primal side is DCE'd after)
        pruned = [(ir.prune_residuals(j1, j2, nres), uk) for j1, j2, uk, nres in splits]
        splits = [(ir.dce_jaxpr(j1), j2, uk, nres) for (j1, j2, nres), uk in pruned]
    if trace_order:
        splits = [in_trace_order(*s) for s in splits]
    res_avals = [[v.aval for v in s[0].outs[len(s[0].outs) - s[3] :]] for s in splits]
    all_res, slots = _merge_branch_residuals(res_avals)
    fill_types = _typed_residuals(splits, slots, all_res, known_operands)
    known, unknown = [], []
    unused = [Var(a) for a in all_res]  # (one binder per slot, in every branch that does not read it)
    for (j1, j2, _, nres), own in zip(splits, slots):
        n_out = len(j1.outs) - nres
        fill = trace_to_jaxpr(lambda: [structural.empty_like(a) for a in fill_types], [])
        empties = list(fill.jaxpr.outs)
        res_outs = list(empties)
        for slot, v in zip(own, j1.outs[n_out:]):
            res_outs[slot] = v
        known.append(
            ClosedJaxpr(
                Jaxpr([], j1.in_binders, [*j1.eqns, *fill.jaxpr.eqns], [*j1.outs[:n_out], *res_outs]), []
            )
        )
        _fill_counts[known[-1]] = len(fill.jaxpr.eqns)
        res_vars = list(unused)
        for slot, v in zip(own, j2.in_binders[:nres]):
            res_vars[slot] = v
        j2 = Jaxpr([], [*res_vars, *j2.in_binders[nres:]], j2.eqns, j2.outs)
        unknown.append(ClosedJaxpr(j2, []))
    return known, unknown, out_uk, all_res


def _typed_residuals(splits, slots, all_res, known_operands) -> list:
    """Each residual slot's aval, typed by its layout on an explicit mesh where the branch that
    makes it says one (so that another branch's fill agrees with it, as JAX's typed empties do)."""
    typed = list(all_res)
    if known_operands is None or explicit_types.operand_layouts(known_operands) is None:
        return typed
    for (j1, _, _, nres), own in zip(splits, slots):
        outs = explicit_types.typed_avals(ClosedJaxpr(j1, []), known_operands)
        if outs is not None:
            for slot, a in zip(own, outs[1][len(j1.outs) - nres :]):
                typed[slot] = a
    return typed


# A known branch -> how many empty2 equations end it (the fill), for a remat's rerun of it.
_fill_counts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _merge_branch_residuals(res_avals):
    """One slot per (type, k-th occurrence in a branch); each branch's residuals' slot indices."""
    tagged = []
    for avals in res_avals:
        seen: dict = {}
        row = []
        for a in avals:
            key = (a.shape, a.dtype, a.weak_type)
            row.append((key, seen.setdefault(key, 0)))
            seen[key] += 1
        tagged.append(row)
    order: dict = {}
    all_res = []
    for row, avals in zip(tagged, res_avals):
        for t, a in zip(row, avals):
            if t not in order:
                order[t] = len(order)
                all_res.append(a)
    return all_res, [[order[t] for t in row] for row in tagged]


def _cond_partial_eval(trace, tracers, *, branches, branches_platforms=None):
    index, *args = tracers
    if not index.pval.is_known:
        return _all_unknown(trace, cond_p, tracers, dict(branches=branches, **_platforms(branches_platforms)))
    unknowns = [not t.pval.is_known for t in args]
    kvals = [t.pval.const for t, u in zip(args, unknowns) if not u]
    known, unknown, out_uk, all_res = _cond_split(
        branches, unknowns, _linearized_directly(), known_operands=kvals
    )
    nres = len(all_res)
    outs1 = cond_p.bind(
        core.full_lower(index), *kvals, branches=tuple(known), **_platforms(branches_platforms)
    )
    n_known = len(outs1) - nres
    res = outs1[n_known:]
    idx_t = trace.instantiate_const(trace.full_raise(index.pval.const))
    res_t = [trace.instantiate_const(trace.full_raise(r)) for r in res]
    uk_t = [trace.instantiate_const(t) for t, u in zip(args, unknowns) if u]
    return _stage(
        trace,
        cond_p,
        [idx_t, *res_t, *uk_t],
        dict(branches=tuple(unknown), **_platforms(branches_platforms)),
        [a for a, u in zip(branches[0].out_avals, out_uk) if u],
        outs1[:n_known],
        out_uk,
    )


def _cond_partial_eval_jaxpr(unks_in, eqn, trace_order=False):
    idx_uk, *unknowns = unks_in
    branches = eqn.params["branches"]
    if idx_uk:
        return None, eqn, [True] * len(eqn.out_binders), [x for x, u in zip(eqn.inputs, unks_in) if not u]
    direct = not trace_order and _linearized_directly()
    known, unknown, out_uk, all_res = _cond_split(branches, unknowns, direct, trace_order)
    res_vars = [Var(a) for a in all_res]  # (typed as the slots: a branch's fill may not say how they vary)
    known_outs = [v for v, u in zip(eqn.out_binders, out_uk) if not u]
    ins = eqn.inputs[1:]
    eqn1 = JaxprEqn(
        cond_p,
        [eqn.inputs[0], *[x for x, u in zip(ins, unknowns) if not u]],
        dict(eqn.params, branches=tuple(known)),
        [*known_outs, *res_vars],
        eqn.source_info,
    )
    eqn2 = JaxprEqn(
        cond_p,
        [eqn.inputs[0], *res_vars, *[x for x, u in zip(ins, unknowns) if u]],
        dict(eqn.params, branches=tuple(unknown)),
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
        eqn.source_info,
    )
    return eqn1, eqn2, out_uk, [eqn.inputs[0], *res_vars]


def _cond_transpose(cts, index, *args, branches, branches_platforms=None):
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

        jc, consts = _trace(f, [*d_avals, *ct_avals], operands=[*defined, *cts])
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
    outs = cond_p.bind(index, *allc, *defined, *cts, branches=tuple(new), **_platforms(branches_platforms))
    it = iter(outs)
    return [None] + [next(it) if u else None for u in undef]


def _bcast_to(pred, x):
    # A per-example predicate broadcast over the rest of x's axes (JAX's _bcast_select).
    p_nd, shape = core.get_aval(pred).ndim, core.get_aval(x).shape
    return lax.broadcast_in_dim(pred, shape, tuple(range(p_nd))) if p_nd != len(shape) else pred


def _select_taken(taken, x, stopped):
    # (stop_gradient staged before the predicate's broadcast, the order of JAX's _bcast_select)
    return lax.select(_bcast_to(taken, x), x, stopped)


def _touches_refs(branches) -> bool:
    """Whether a branch reads or writes a ref it takes (JAX's ``RefEffect`` on a branch: a ref the
    branch makes and uses itself has none)."""
    for b in branches:
        refs = {v for v in b.jaxpr.in_binders if is_ref_aval(v.aval)}
        if refs and any(type(x) is Var and x in refs for e in b.jaxpr.eqns for x in e.inputs):
            return True
    return False


def refuse_vmap_of_ref_cond(branches) -> None:
    if _touches_refs(branches):
        raise NotImplementedError("State effect not supported in vmap-of-cond.")


def _cond_batch(axis_size, vals, dims, *, branches, branches_platforms=None):
    refuse_vmap_of_ref_cond(branches)  # (as JAX's rule, whatever is batched)
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
            ops_i = [_select_taken(taken, x, lax.stop_gradient(x)) for x in ops]
            branch_outs.append(
                batching.vmap_flat(
                    lambda *xs, b=b: _run(b, *xs), axis_size, None, [0] * len(ops_i), ops_i, lambda n: [0] * n
                )
            )
        res = [lax.select_n(_bcast_to(idx, outs[0]), *outs) for outs in zip(*branch_outs)]
        return res, [0] * len(res)
    # (JAX's rule: batched operands' batch dimensions moved to the front first)
    args = [a if d is not_mapped else batching.moveaxis(a, d, 0) for a, d in zip(args, adims)]
    in_dims = [None if d is not_mapped else 0 for d in adims]
    # As JAX's rule: an output is batched if any branch batches it, and only then (so the primal
    # outputs of a jvp under jacfwd stay unmapped when only tangents are batched).
    branch_dims = [batching.batch_jaxpr(b, axis_size, in_dims)[1] for b in branches]
    out_axes = [
        0 if any(d[i] is not not_mapped for d in branch_dims) else None for i in range(len(branch_dims[0]))
    ]
    new = []
    for b in branches:
        jc, consts = _trace(
            lambda *xs, b=b: batching.vmap_flat(
                lambda *ys: _run(b, *ys), axis_size, None, in_dims, xs, lambda n: out_axes
            ),
            _avals(args),
        )
        assert not consts
        new.append(jc)
    outs = cond_p.bind(index, *args, branches=tuple(new), **_platforms(branches_platforms))
    return outs, [not_mapped if a is None else 0 for a in out_axes]


def _cond_dce(eqn, used_outputs):
    """JAX's rule: drop the outputs nothing uses, the branch code only they needed, then the
    operands no branch reads any more (the index stays)."""
    return _with_bodies(
        eqn, [ir.dce_jaxpr(b.jaxpr, used_outputs) for b in eqn.params["branches"]], used_outputs
    )


def _cond_rerun(eqn, used_outputs):
    """A known cond a remat reruns, as JAX's split of the cond it stages makes it when transposing:
    the branch code the used outputs need, then the whole empty2 fill, which nothing prunes."""
    bodies = []
    for b in eqn.params["branches"]:
        n_fill = _fill_counts.get(b)
        if n_fill is None:
            return _cond_dce(eqn, used_outputs)
        j = b.jaxpr
        code, fill = j.eqns[: len(j.eqns) - n_fill], j.eqns[len(j.eqns) - n_fill :]
        filled = {v for e in fill for v in e.out_binders}
        outs = [o for o, u in zip(j.outs, used_outputs) if u]
        pruned = ir.dce_jaxpr(Jaxpr(j.constvars, j.in_binders, code, [o for o in outs if o not in filled]))
        bodies.append(Jaxpr(j.constvars, j.in_binders, [*pruned.eqns, *fill], outs))
    return _with_bodies(eqn, bodies, used_outputs)


def _with_bodies(eqn, bodies, used_outputs):
    read = {x for j in bodies for x in [*(y for e in j.eqns for y in e.inputs), *j.outs] if type(x) is Var}
    used_in = [any(j.in_binders[i] in read for j in bodies) for i in range(len(eqn.inputs) - 1)]
    branches = tuple(
        ClosedJaxpr(
            ir.same_types(
                Jaxpr(j.constvars, [v for v, u in zip(j.in_binders, used_in) if u], j.eqns, j.outs), j
            ),
            b.consts,
        )
        for j, b in zip(bodies, eqn.params["branches"])
    )
    return eqn._replace(
        inputs=[eqn.inputs[0], *[x for x, u in zip(eqn.inputs[1:], used_in) if u]],
        out_binders=[v for v, u in zip(eqn.out_binders, used_outputs) if u],
        params=dict(eqn.params, branches=branches),
    )


ir.dce_rules[cond_p] = _cond_dce
ad_checkpoint.recompute_rules[cond_p] = _cond_rerun
ad.jvp_rules[cond_p] = _cond_jvp


ad.partial_eval_rules[cond_p] = _cond_partial_eval


ad.partial_eval_jaxpr_rules[cond_p] = _cond_partial_eval_jaxpr
# A remat stages a mixed cond whole and JAX's transpose of it splits it with a JaxprTrace: the
# residuals of the cond the staged part reruns come in that split's order.
ad_checkpoint.remat_split_rules[cond_p] = lambda unks_in, eqn: _cond_partial_eval_jaxpr(unks_in, eqn, True)


ad.transpose_rules[cond_p] = _cond_transpose


batching.batch_rules[cond_p] = _cond_batch


# The index of the branch for the platform the code runs on, among ``platforms`` (a tuple of
# platform-name tuples, ``None`` for the default): the engine's one platform is the CPU.
platform_index_p = core.Primitive("platform_index")


def _platform_index(platforms) -> int:
    for k, names in enumerate(platforms):
        if names is None or "cpu" in names:
            return k
    raise NotImplementedError(
        f"platform_dependent has no branch for cpu (branches for: {platforms}) and no default"
    )


platform_index_p.def_impl(lambda *, platforms: np.int32(_platform_index(platforms)))
platform_index_p.def_abstract_eval(lambda *, platforms: core.ShapedArray((), np.dtype(np.int32), False))
lowerings[platform_index_p] = Index(
    lambda eqn: lambda read, idx: f"np.int32({_platform_index(eqn.params['platforms'])})"
)


def platform_dependent(*args, default=None, **per_platform):
    """``per_platform[p](*args)`` for the platform the code runs on (the engine's is the CPU).
    Eagerly the ``cpu`` branch (else ``default``) runs; traced, a ``platform_index`` picks among
    every branch in a ``cond``, as JAX stages it.

    >>> platform_dependent(2.0, cpu=lambda x: x + 1, cuda=lambda x: x - 1)
    3.0
    """
    grouped: list[tuple[list[str], object]] = []  # platforms sharing one branch share a cond branch
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for names, b in grouped:
            if b == branch:
                names.append(name)
                break
        else:
            grouped.append(([name], branch))
    platforms: tuple = tuple(tuple(names) for names, _ in grouped)
    branches = [b for _, b in grouped]
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        branches.append(default)
        platforms += (None,)
    index = platform_index_p.bind(platforms=platforms)
    if not isinstance(index, core.Tracer):
        return branches[int(core.to_numpy(index))](*args)
    return _switch(index, branches, args, clamp_index=False, branches_platforms=platforms)
