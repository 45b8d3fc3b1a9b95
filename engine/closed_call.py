"""``closed_call``: a call of a closed jaxpr, as JAX's ``core.closed_call_p``.

JAX's remat split of a scan runs the scan's known half (its loop invariants hoisted before it) in
one: ``lax.scan``'s row of ``ad_checkpoint.known_call_rules`` makes the equation, and these rules
carry it through the transformations that meet the known half afterwards (an outer jvp, grad,
vmap). The primitive object is the one a discharged jaxpr made for StableHLO text calls its body
with (``engine.state.jaxpr_discharge``); evaluation runs the body.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import ad, batching, core, ir
from .backends.rows import Special, lowerings
from .ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr, eval_jaxpr
from .staging import trace_to_jaxpr
from .state.jaxpr_discharge import closed_call_p

__all__ = ["closed_call_p", "call_of"]


def call_of(
    ins: Sequence[Any],
    binders: Sequence[Var],
    eqns: Sequence[JaxprEqn],
    outs: Sequence[Var],
    source_info: Any,
) -> JaxprEqn:
    """One ``closed_call`` equation on operands ``ins``, its body binding them to ``binders`` and
    running ``eqns`` (which read the binders), binding ``outs`` (variables the equations define)."""
    body = ir.with_fresh_vars(Jaxpr([], list(binders), list(eqns), list(outs)))
    return JaxprEqn(closed_call_p, list(ins), dict(call_jaxpr=ClosedJaxpr(body, [])), list(outs), source_info)


def _impl(*args: Any, call_jaxpr: ClosedJaxpr, **_: Any) -> list[Any]:
    return eval_jaxpr(call_jaxpr.jaxpr, args, call_jaxpr.consts)


def _jvp(
    primals: Sequence[Any], tangents: Sequence[ad.Tangent], *, call_jaxpr: ClosedJaxpr, **params: Any
) -> tuple[list[Any], list[ad.Tangent]]:
    # JAX's JVPTrace.process_call: a closed_call of the body's jvp, on the primals and the nonzero
    # tangents, returning the primal outputs and then the nonzero tangent outputs.
    nonzero = [type(t) is not ad.Zero for t in tangents]
    in_avals = list(call_jaxpr.in_avals)
    n = len(primals)
    out_nonzero: list[bool] = []

    def f(*args: Any) -> list[Any]:
        it = iter(args[n:])
        ts = [next(it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(nonzero, in_avals)]
        pout, tout = ad.jvp_flat(lambda *xs: _impl(*xs, call_jaxpr=call_jaxpr), args[:n], ts, False)
        out_nonzero[:] = [type(t) is not ad.Zero for t in tout]
        return [*pout, *[t for t in tout if type(t) is not ad.Zero]]

    t_avals = [ad.tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
    closed = trace_to_jaxpr(f, [*in_avals, *t_avals])
    outs = closed_call_p.bind(
        *primals, *[t for t in tangents if type(t) is not ad.Zero], call_jaxpr=closed, **params
    )
    m = len(call_jaxpr.out_avals)
    it = iter(outs[m:])
    return outs[:m], [
        next(it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(out_nonzero, call_jaxpr.out_avals)
    ]


def _partial_eval(
    trace: ad.PartialEvalTrace,
    tracers: Sequence[ad.PartialEvalTracer],
    *,
    call_jaxpr: ClosedJaxpr,
    **params: Any,
) -> list[Any]:
    # JAX's LinearizeTrace.process_call: the known call returns the residuals it computes first,
    # then the known outputs; residuals that are known inputs or outputs are passed on, not
    # returned; the unknown call takes the residuals, then the unknown inputs.
    in_unknowns = [not t.pval.is_known for t in tracers]
    j1, j2, out_unknowns, num_res = ad.partial_eval_jaxpr(call_jaxpr.jaxpr, in_unknowns)
    j2 = dce_jaxpr(j2)
    read = {x for e in j2.eqns for x in e.inputs if type(x) is Var} | {x for x in j2.outs if type(x) is Var}
    keep = [k for k, v in enumerate(j2.in_binders[:num_res]) if v in read]
    n_known = len(j1.outs) - num_res
    res_all = j1.outs[n_known:]
    res = [res_all[k] for k in keep]
    known_outs = list(j1.outs[:n_known])
    j2 = Jaxpr([], [*[j2.in_binders[k] for k in keep], *j2.in_binders[num_res:]], j2.eqns, j2.outs)
    computed = [
        r for r in dict.fromkeys(res) if type(r) is Var and r not in j1.in_binders and r not in known_outs
    ]
    j1 = dce_jaxpr(Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*computed, *known_outs]))
    known_vals = [t.pval.const for t, u in zip(tracers, in_unknowns) if not u]
    outs1 = closed_call_p.bind(*known_vals, call_jaxpr=ClosedJaxpr(j1, call_jaxpr.consts), **params)
    env: dict[Any, Any] = {
        **dict(zip(j1.in_binders, known_vals)),
        **dict(zip(computed, outs1[: len(computed)])),
        **dict(zip(known_outs, outs1[len(computed) :])),
    }
    res_vals = [r.val if type(r) is not Var else env[r] for r in res]
    res_tracers = [trace.instantiate_const(trace.full_raise(r)) for r in res_vals]
    unknown_tracers = [trace.instantiate_const(t) for t, u in zip(tracers, in_unknowns) if u]
    outs2 = [ad.PartialEvalTracer(trace, ad.PartialVal.unknown(x.aval), None) for x in j2.outs]
    recipe = ad.JaxprEqnRecipe(
        closed_call_p,
        [*res_tracers, *unknown_tracers],
        dict(params, call_jaxpr=ClosedJaxpr(j2, [])),
        [x.aval for x in j2.outs],
        outs2,
        core.current_source_info(),
    )
    for t in outs2:
        t.recipe = recipe
    it1, it2 = iter(outs1[len(computed) :]), iter(outs2)
    return [next(it2) if u else next(it1) for u in out_unknowns]


def _transpose(cts: Sequence[ad.Tangent], *args: Any, call_jaxpr: ClosedJaxpr, **params: Any) -> list[Any]:
    # JAX's call_transpose: a closed_call of the body's transpose, on the defined operands and the
    # output cotangents, returning the cotangents of the undefined ones.
    undef, defined, cts, f, avals = ad.call_transpose(call_jaxpr.jaxpr, args, cts)
    closed = trace_to_jaxpr(f, avals)
    outs = closed_call_p.bind(*defined, *cts, call_jaxpr=closed, **params)
    it = iter(outs)
    return [next(it) if u else None for u in undef]


def _batch(
    axis_size: int,
    vals: Sequence[Any],
    dims: Sequence[batching.BatchDim],
    *,
    call_jaxpr: ClosedJaxpr,
    **params: Any,
) -> tuple[list[Any], list[batching.BatchDim]]:
    # JAX's BatchTrace.process_call: the outputs keep the batch axis where the body put it, and the
    # call is named after the function it batched (jaxpr_as_fun's eval_jaxpr) if it had no name.
    axis_name = getattr(batching.current_batch_trace(), "axis_name", None)
    batched, out_dims = batching.batch_jaxpr(call_jaxpr, axis_size, dims, axis_name, keep_out_dims=True)
    params = {"name": "eval_jaxpr", **params}
    return closed_call_p.bind(*vals, call_jaxpr=batched, **params), out_dims


def _dce(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    # JAX's rule: the outputs nothing uses go, with the body work only they needed and then the
    # operands the body no longer reads.
    closed = eqn.params["call_jaxpr"]
    body, used_inputs = ir.prune_jaxpr(closed.jaxpr, used_outputs)
    return eqn._replace(
        inputs=[x for x, u in zip(eqn.inputs, used_inputs) if u],
        out_binders=[v for v, u in zip(eqn.out_binders, used_outputs) if u],
        params=dict(eqn.params, call_jaxpr=ClosedJaxpr(body, closed.consts)),
    )


core.impl_rules[closed_call_p] = _impl
ad.jvp_rules[closed_call_p] = _jvp
ad.partial_eval_rules[closed_call_p] = _partial_eval
ad.transpose_rules[closed_call_p] = _transpose
batching.batch_rules[closed_call_p] = _batch
ir.dce_rules[closed_call_p] = _dce
lowerings[closed_call_p] = Special("inline")  # its body is inlined into the caller's program
