"""``compute_on_p``: JAX 0.10.2's ``jax.experimental.compute_on.compute_on2``, a call primitive
whose body runs on another compute unit (``device_host``...) and whose results go to the memory
spaces it names (``out_memory_spaces``: a result typed ``f32<host>`` is put in pinned host memory).

The engine has one processor: the body is computed as any other, and only the results' memory
spaces (their types and, when run, their shardings' memory kinds) say where they went. Its
transformation rules follow JAX's: the JVP, linearization, transpose and batching of the body,
each a new ``compute_on`` of the same type whose extra results (tangents of device results,
residuals, cotangents) have the memory space JAX gives them.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import ad, batching, core, ir
from .backends.rows import Special, lowerings
from .core import Value
from .ir import ClosedJaxpr, JaxprEqn, Var, eval_jaxpr
from .jit_primitive import (
    _hoist_tracer_consts,
    _known_outputs_and_residuals,
    _split_for_partial_eval,
    _split_inner_jit,
    _stage_unknown_half,
)
from .staging import trace_to_jaxpr

compute_on_p = core.Primitive("compute_on", multiple_results=True)
DEVICE = core.MemorySpace.Device


def _has_compute_on(jaxpr: ir.Jaxpr) -> bool:
    return any(e.primitive is compute_on_p or any(map(_has_compute_on, ir.subjaxprs(e))) for e in jaxpr.eqns)


def _refuse_nesting(eqn: JaxprEqn) -> None:
    """JAX's lowering refuses a ``compute_on`` inside another."""
    if _has_compute_on(eqn.params["jaxpr"].jaxpr):
        raise ValueError("Nesting `compute_on` with different compute types is not allowed.")


ir.lowering_refusals[compute_on_p] = _refuse_nesting


@compute_on_p.def_impl
def _compute_on_impl(*args: Value, jaxpr: ClosedJaxpr, out_memory_spaces, **_: Any) -> list[Value]:
    _refuse_nesting(JaxprEqn(compute_on_p, [], {"jaxpr": jaxpr}, [], None))
    from .jit_primitive import bind_call

    # (run as a jit of its body: compiled, and its results placed in their memories)
    body = ClosedJaxpr(jaxpr.jaxpr, jaxpr.consts)
    typed = [a.update(memory_space=s) for a, s in zip(body.out_avals, out_memory_spaces)]
    return bind_call(_with_out_types(body, typed), args, "compute_on")


def _with_out_types(closed: ClosedJaxpr, avals: list) -> ClosedJaxpr:
    """``closed`` returning its results typed ``avals`` (in their memory spaces): each passes
    through a ``device_put`` to its space, as JAX's lowering annotates them."""
    from .device_put_primitive import ArrayCopySemantics, device_put_p

    j = closed.jaxpr
    eqns, outs = list(j.eqns), []
    for x, aval in zip(j.outs, avals):
        if aval.memory_space is DEVICE:
            outs.append(x)
            continue
        v = Var(aval)
        params = dict(
            devices=(aval.memory_space,), srcs=(None,), copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
        )
        eqns.append(JaxprEqn(device_put_p, [x], params, [v], None))
        outs.append(v)
    return ClosedJaxpr(ir.Jaxpr(j.constvars, j.in_binders, eqns, outs), closed.consts)


def _abstract_eval(*avals: Any, jaxpr: ClosedJaxpr, out_memory_spaces, **_: Any) -> list:
    return [a.update(memory_space=s) for a, s in zip(jaxpr.out_avals, out_memory_spaces)]


compute_on_p.def_abstract_eval(_abstract_eval)
lowerings[compute_on_p] = Special("inline")  # (compiled code runs its body in line)


def _bind(args: Sequence[Value], closed: ClosedJaxpr, spaces: Sequence, params: dict) -> list[Value]:
    closed, hoisted = _hoist_tracer_consts(closed)
    return compute_on_p.bind(*hoisted, *args, **dict(params, jaxpr=closed, out_memory_spaces=tuple(spaces)))


def _jvp(primals, tangents, *, jaxpr: ClosedJaxpr, out_memory_spaces, **params):
    nonzero = [type(t) is not ad.Zero for t in tangents]
    n, out_nonzero = len(primals), []

    def f(*args: Value) -> list[Value]:
        ts_it = iter(args[n:])
        ts = [next(ts_it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(nonzero, jaxpr.in_avals)]
        pout, tout = ad.jvp_flat(lambda *xs: eval_jaxpr(jaxpr.jaxpr, xs, jaxpr.consts), args[:n], ts, False)
        out_nonzero[:] = [type(t) is not ad.Zero for t in tout]
        return [*pout, *[t for t in tout if type(t) is not ad.Zero]]

    tvals = [t for t in tangents if type(t) is not ad.Zero]
    t_avals = [ad.tangent_aval(a) for a, nz in zip(jaxpr.in_avals, nonzero) if nz]
    closed = trace_to_jaxpr(f, [*jaxpr.in_avals, *t_avals])
    spaces = [*out_memory_spaces, *[s for s, nz in zip(out_memory_spaces, out_nonzero) if nz]]
    outs = _bind([*primals, *tvals], closed, spaces, params)
    m = len(jaxpr.out_avals)
    t_it = iter(outs[m:])
    tout = [next(t_it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(out_nonzero, jaxpr.out_avals)]
    return outs[:m], tout


def _transpose(cts, *args, jaxpr: ClosedJaxpr, out_memory_spaces, **params):
    undef = [ad.is_undefined(a) for a in args]
    defined = [a for a, u in zip(args, undef) if not u]
    zero_avals = [c.aval if type(c) is ad.Zero else None for c in cts]
    cts = [c for c in cts if type(c) is not ad.Zero]
    nd = len(defined)

    def f(*xs: Value) -> list[Value]:
        it, ct = iter(xs[:nd]), iter(xs[nd:])
        full = [ad.UndefPrimal(a.aval) if u else next(it) for a, u in zip(args, undef)]
        all_ct = [next(ct) if z is None else ad.Zero(z) for z in zero_avals]
        outs = ad.backward_pass(jaxpr.jaxpr, [*jaxpr.consts, *full], all_ct)
        return [ad.instantiate_zeros(o) for o in outs]

    closed = trace_to_jaxpr(f, [*[core.get_aval(a) for a in defined], *[core.get_aval(c) for c in cts]])
    spaces = [a.aval.memory_space for a, u in zip(args, undef) if u]  # (each cotangent where its primal is)
    outs = iter(_bind([*defined, *cts], closed, spaces, params))
    return [next(outs) if u else None for u in undef]


def _batch(axis_size, vals, dims, *, jaxpr: ClosedJaxpr, out_memory_spaces, **params):
    axis_name = getattr(batching.current_batch_trace(), "axis_name", None)
    # (outputs keep the batch axes the body gives them, as JAX's rule: batch_jaxpr2)
    batched, out_dims = batching.batch_jaxpr(jaxpr, axis_size, dims, axis_name, keep_out_dims=True)
    return _bind(vals, batched, out_memory_spaces, params), list(out_dims)


def _partial_eval(trace, tracers, *, jaxpr: ClosedJaxpr, out_memory_spaces, **params):
    """JAX's rule: a known ``compute_on`` returning the known results and the residuals (in device
    memory), and an unknown one taking the residuals first."""
    in_unknowns = [not t.pval.is_known for t in tracers]
    known_vals = [t.pval.const for t, u in zip(tracers, in_unknowns) if not u]
    split = _split_for_partial_eval(jaxpr, in_unknowns, len(known_vals))
    known_closed, hoisted, closed2, out_unknowns = split[:4]
    forwarded = split[6]
    known_spaces = [s for s, u in zip(out_memory_spaces, out_unknowns) if not u]
    kept_spaces = [s for i, s in enumerate(known_spaces) if i not in forwarded["out"]]
    n_new = len(known_closed.jaxpr.outs) - len(kept_spaces)
    spaces = (*kept_spaces, *[DEVICE] * n_new)
    outs1_res = compute_on_p.bind(
        *hoisted, *known_vals, **dict(params, jaxpr=known_closed, out_memory_spaces=spaces)
    )
    outs1, res = _known_outputs_and_residuals(known_vals, outs1_res, split[4:], jaxpr.consts)
    closed2 = _fresh(closed2)
    out_avals = _unknown_avals(closed2.jaxpr, out_memory_spaces, out_unknowns)
    unknown_spaces = tuple(s for s, u in zip(out_memory_spaces, out_unknowns) if u)
    params = dict(params, jaxpr=closed2, out_memory_spaces=unknown_spaces)
    return _stage_unknown_half(trace, compute_on_p, params, out_avals, res, tracers, outs1, out_unknowns)


def _fresh(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with variables of its own: JAX's unknown half is traced anew, so its names do
    not repeat the known half's when printed."""
    j = closed.jaxpr
    new: dict = {v: Var(v.aval) for v in [*j.constvars, *j.in_binders]}

    def get(x):
        return new.get(x, x) if type(x) is Var else x

    eqns = []
    for e in j.eqns:
        ins = [get(x) for x in e.inputs]
        new.update((v, Var(v.aval)) for v in e.out_binders)
        eqns.append(e._replace(inputs=ins, out_binders=[new[v] for v in e.out_binders]))
    body = ir.Jaxpr(
        [new[v] for v in j.constvars], [new[v] for v in j.in_binders], eqns, [get(x) for x in j.outs]
    )
    return ClosedJaxpr(body, closed.consts)


def _unknown_avals(j2: ir.Jaxpr, spaces: Sequence, unknowns: Sequence[bool]) -> list:
    kept = [s for s, u in zip(spaces, unknowns) if u]
    return [v.aval.update(memory_space=s) for v, s in zip(j2.outs, kept)]


def _partial_eval_jaxpr(unks_in, eqn: JaxprEqn):
    """A ``compute_on`` inside a jaxpr being split (the JVP of an enclosing jit): a known one
    returning the residuals (device memory) and an unknown one taking them."""
    closed, spaces = eqn.params["jaxpr"], eqn.params["out_memory_spaces"]
    params = {k: v for k, v in eqn.params.items() if k not in ("jaxpr", "out_memory_spaces")}
    known_closed, unknown_closed, out_uk, sources = _split_inner_jit(closed, list(unks_in), True)
    known_ins = [x for x, u in zip(eqn.inputs, unks_in) if not u]
    known_outs = [v for v, u in zip(eqn.out_binders, out_uk) if not u]
    res_atoms = [
        known_ins[i] if kind == "in" else known_outs[i] if kind == "out" else Var(aval)
        for kind, i, aval in sources
    ]
    new_res = [a for a, (kind, _, _) in zip(res_atoms, sources) if kind == "new"]
    known_spaces = (*[s for s, u in zip(spaces, out_uk) if not u], *[DEVICE] * len(new_res))
    eqn1 = JaxprEqn(
        compute_on_p,
        known_ins,
        dict(params, jaxpr=known_closed, out_memory_spaces=known_spaces),
        [*known_outs, *new_res],
        eqn.source_info,
    )
    eqn2 = JaxprEqn(
        compute_on_p,
        [*res_atoms, *[x for x, u in zip(eqn.inputs, unks_in) if u]],
        dict(
            params,
            jaxpr=_fresh(unknown_closed),
            out_memory_spaces=tuple(s for s, u in zip(spaces, out_uk) if u),
        ),
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
        eqn.source_info,
    )
    return eqn1, eqn2, out_uk, res_atoms


def _dce(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    """JAX's rule: the outputs nothing uses, the body work only they needed, and the arguments
    the body no longer reads are dropped."""
    closed = eqn.params["jaxpr"]
    body, used_inputs = ir.prune_jaxpr(closed.jaxpr, used_outputs)
    spaces = tuple(s for s, u in zip(eqn.params["out_memory_spaces"], used_outputs) if u)
    return eqn._replace(
        inputs=[x for x, u in zip(eqn.inputs, used_inputs) if u],
        out_binders=[v for v, u in zip(eqn.out_binders, used_outputs) if u],
        params=dict(eqn.params, jaxpr=ClosedJaxpr(body, closed.consts), out_memory_spaces=spaces),
    )


ad.jvp_rules[compute_on_p] = _jvp
ad.transpose_rules[compute_on_p] = _transpose
ad.partial_eval_rules[compute_on_p] = _partial_eval
ad.partial_eval_jaxpr_rules[compute_on_p] = _partial_eval_jaxpr
batching.batch_rules[compute_on_p] = _batch
ir.dce_rules[compute_on_p] = _dce
