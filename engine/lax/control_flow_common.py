"""What the control-flow primitives (``cond``, ``while``, ``scan``) share: tracing bodies to
closure-converted jaxprs, jvp of a body, staging a partially known equation, and the dependence
analyses (nonzero tangents, batched outputs) their rules iterate to a fixed point.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import ad, core
from ..core import ShapedArray
from ..ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, eval_jaxpr
from ..staging import trace_to_jaxpr
from ..tracer_origins import TraceDebug
from .structural import convert_element_type_p


def _closure_convert(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list]:
    """Constants become leading inputs, so the body is a pure function of its operands."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr([], [*j.constvars, *j.in_binders], j.eqns, j.outs), []), list(closed.consts)


def _trace(
    fun, avals, debug: TraceDebug | None = None, operands=None, sliced: int = 0
) -> tuple[ClosedJaxpr, list]:
    """``fun`` traced to a closure-converted jaxpr; given the ``operands`` it will be applied to
    (the last ``sliced`` scanned over), their layouts on an explicit mesh seed the trace's types."""
    seeds = None
    if operands is not None:
        from ..parallel.explicit_types import operand_layouts

        seeds = operand_layouts(operands, sliced)
    return _closure_convert(trace_to_jaxpr(fun, list(avals), seeds, debug=debug))


def _avals(xs):
    return [core.get_aval(x) for x in xs]


def promote_weak_inits(leaves, avals, out_avals) -> list | None:
    """JAX's ``_promote_weak_typed_inputs``: a weakly typed init whose carry the body makes another
    dtype (a Python 0 under x64 beside an int32 body) is converted to the joined dtype, and the
    body is traced again with it. None when no init changes."""
    from ..numpy._dtypes import promote_types_weak

    new, changed = list(leaves), False
    for i, (a, o) in enumerate(zip(avals, out_avals)):
        if a.weak_type and a.dtype != o.dtype:
            # (JAX promotes against the output's type as a strong one, and converts to that dtype:
            # the init becomes strongly typed, so a Python 0 carried as floats is float32)
            dtype, weak = promote_types_weak(((a.dtype, True), (o.dtype, False)))[0], False
            x = leaves[i]  # (a concrete init is converted on the host, as JAX's Python scalar is)
            new[i] = (
                convert_element_type_p.bind(x, new_dtype=dtype, weak_type=weak, sharding=None)
                if isinstance(x, core.Tracer)
                else core.array_of(np.asarray(core.to_numpy(x)).astype(dtype), weak)
            )
            changed = True
    return new if changed else None


def _run(closed: ClosedJaxpr, *args):
    return eval_jaxpr(closed.jaxpr, args, closed.consts)


_bodies: "weakref.WeakKeyDictionary[ClosedJaxpr, ClosedJaxpr]" = weakref.WeakKeyDictionary()
_bodies_by_structure: dict = {}  # (a loop traces its body again at every call)
_BODIES_MAX = 256


def _run_body(closed: ClosedJaxpr, *args):
    """A body run by an interpreted loop or branch, as XLA compiles it: its own computation, so
    its multiply-adds are contracted and its simplifications applied (``fused_rules.compiled``)
    as in the compiled loop's body, and the interpreted and compiled tiers round alike."""
    from ..fused_rules import compiled
    from .control_flow_eager import _value_key

    program = _bodies.get(closed)
    if program is None:
        key = _value_key(closed)
        program = _bodies_by_structure.get(key) if key is not None else None
        if program is None:
            program = compiled(closed, body=True)
            if key is not None:
                if len(_bodies_by_structure) >= _BODIES_MAX:
                    del _bodies_by_structure[next(iter(_bodies_by_structure))]
                _bodies_by_structure[key] = program
        _bodies[closed] = program
    return eval_jaxpr(program.jaxpr, args, program.consts)


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
    if consts:  # (a rule making an array constant; zero tangents, float0 ones too, are staged ops)
        raise NotImplementedError(
            "the JVP of this control-flow body closes over constants, which the engine cannot pass "
            "into the transformed body"
        )
    return jc, out_nz


def _stage(trace, prim, in_tracers, params, out_avals, known_outs, out_uk):
    outs2 = [ad.PartialEvalTracer(trace, ad.PartialVal.unknown(a), None) for a in out_avals]
    recipe = ad.JaxprEqnRecipe(prim, in_tracers, params, out_avals, outs2, core.current_source_info())
    for t in outs2:
        t.recipe = recipe
    trace.keep_effects(recipe)
    it1, it2 = iter(known_outs), iter(outs2)
    return [next(it2) if u else next(it1) for u in out_uk]


def _all_unknown(trace, prim, tracers, params):
    ins = [trace.instantiate_const(t) for t in tracers]
    out_avals = prim.abstract_eval(*[t.aval for t in ins], **params)
    return _stage(trace, prim, ins, params, out_avals, [], [True] * len(out_avals))


def _zero_var(aval, eqns):
    from .structural import broadcast_in_dim_p
    from ..ir import Literal

    v = Var(aval)
    zero = Literal(np.zeros((), aval.dtype), ShapedArray((), aval.dtype, aval.weak_type))
    eqns.append(
        JaxprEqn(
            broadcast_in_dim_p,
            [zero],
            dict(shape=aval.shape, broadcast_dimensions=(), sharding=None),
            [v],
            None,
        )
    )
    return v


def _with_weak_types(vals, avals):
    """Loop outputs as Arrays with the weak types the abstract rule gives them: the body's output
    types, as in JAX (whose loops ignore weak-type-only carry mismatches, core.typematch)."""
    return [core.array_of(core.to_numpy(v), a.weak_type) for v, a in zip(vals, avals)]


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


def _batched_outs(closed, in_batched, axis_size):
    """Which outputs of ``closed`` its equations' batch rules batch, given which inputs are batched.
    As JAX's fixed points ask batch_jaxpr: a control-flow or call equation with some operands batched
    batches only the outputs that depend on them (a body's cond or jit on a jvp's primal and tangent,
    with only the tangents batched under jacfwd, keeps its primal outputs unbatched)."""
    from .. import batching

    j = closed.jaxpr
    if any(in_batched) and any(_has_body(e) for e in j.eqns):
        dims = batching.batch_jaxpr(closed, axis_size, [0 if b else None for b in in_batched])[1]
        return [d is not batching.not_mapped for d in dims]
    # (no such equation: an output is batched iff it depends on a batched input; no tracing needed)
    batched = {v for v, b in zip(j.in_binders, in_batched) if b}
    for eqn in j.eqns:
        if any(type(x) is Var and x in batched for x in eqn.inputs):
            batched.update(eqn.out_binders)
    return [type(x) is Var and x in batched for x in j.outs]


def _has_body(eqn) -> bool:
    """Whether ``eqn`` runs a jaxpr of its own (a control-flow or call equation)."""
    return any(
        isinstance(p, (ClosedJaxpr, Jaxpr))
        or (isinstance(p, tuple) and any(isinstance(q, (ClosedJaxpr, Jaxpr)) for q in p))
        for p in eqn.params.values()
    )


def in_trace_order(j1: Jaxpr, j2: Jaxpr, out_uk, nres: int):
    """A split ``(known, unknown, out unknowns, residual count)`` of a branch or loop body with its
    residuals in the order JAX's JaxprTrace split of it (pe.partial_eval_jaxpr_nounits) makes them: tracers_to_jaxpr takes its constants in the order
    of util.toposort over the unknown tracers, each use of a known value by an unknown equation a
    constant tracer of its own (the same value once)."""
    res = {v: k for k, v in enumerate(j2.in_binders[:nres])}
    producer = {v: e for e in j2.eqns for v in e.out_binders}

    def parents(node):
        if node[0] != "var" or node[1] not in producer:
            return []
        e = producer[node[1]]
        return [
            ("const", id(e), k, x) if x in res else ("var", x)
            for k, x in enumerate(e.inputs)
            if type(x) is Var
        ]

    roots: list[tuple] = [("var", v) for v in j2.in_binders[nres:]]
    roots += [
        ("const", "out", k, x) if x in res else ("var", x) for k, x in enumerate(j2.outs) if type(x) is Var
    ]
    order: list[int] = []
    for node in _toposort(roots, parents):
        if node[0] == "const" and res[node[3]] not in order:
            order.append(res[node[3]])
    order += [k for k in range(nres) if k not in order]
    if order == list(range(nres)):
        return j1, j2, out_uk, nres
    n_out = len(j1.outs) - nres
    j1 = Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*j1.outs[:n_out], *[j1.outs[n_out + k] for k in order]])
    binders = [*[j2.in_binders[k] for k in order], *j2.in_binders[nres:]]
    return j1, Jaxpr(j2.constvars, binders, j2.eqns, j2.outs), out_uk, nres


def _toposort(end_nodes, parents):
    """JAX's util.toposort on hashable nodes: the end nodes and their ancestors, each after its
    parents, in the order its stack of childless nodes gives them."""
    end = list(dict.fromkeys(end_nodes))
    child_counts: dict = {}
    stack = list(end)
    while stack:
        node = stack.pop()
        if node in child_counts:
            child_counts[node] += 1
        else:
            child_counts[node] = 1
            stack.extend(parents(node))
    for node in end:
        child_counts[node] -= 1
    order = []
    childless = [node for node in end if child_counts[node] == 0]
    while childless:
        node = childless.pop()
        order.append(node)
        for p in parents(node):
            if child_counts[p] == 1:
                childless.append(p)
            else:
                child_counts[p] -= 1
    return order[::-1]
