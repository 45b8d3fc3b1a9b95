"""``jit_p``: the call primitive whose param is the closed jaxpr, its impl (run through
``jit_runtime``'s tiers, or per device for sharded arguments) and its rules, which transform the
inner jaxpr so that ``grad(jit(f))`` and ``vmap(jit(f))`` stay staged."""

from __future__ import annotations

import itertools
import sys
from contextlib import contextmanager
import weakref
from typing import Any, Iterator, Sequence


from . import ad, backward_pass, batching, core, ir
from .backends.rows import Special, lowerings
from .core import Array, Tracer, Value
from .ir import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr, eval_jaxpr
from .jit_params import (
    batched_sharding,
    carried,
    call_params,
    context_mesh,
    pp_jit_params,
    specified_shardings,
    unspecified,
    unspecified_n,
    with_body,
)
from .jit_runtime import _executables, _first_tier, _tier, compiled_form, result_weak_types, with_lowerings
from .staging import trace_to_jaxpr
from .state.discharge import RefOperandPrimitive
from .call_operands import _hoist_tracer_consts, _layouts_key, mesh_shardings
from .state.types import AbstractRef

jit_p = RefOperandPrimitive("jit", multiple_results=True)


ir.pp_params_rules[jit_p] = pp_jit_params


def _names_a_mesh(jaxpr: ClosedJaxpr) -> bool:
    part = sys.modules.get("engine.parallel.partition")  # not imported: no reshard was ever traced
    return part is not None and part.mesh_of_jaxpr(jaxpr) is not None


@jit_p.def_impl
def _jit_impl(*args: Value, jaxpr: ClosedJaxpr, name: str, **params: Any) -> list[Array]:
    sh = specified_shardings(params)
    if sh is None:
        return _run_call(args, jaxpr, name)
    from .parallel.sharded_jit import place_flat  # (arguments laid out first, results after)

    return place_flat(_run_call(place_flat(args, sh[0]), jaxpr, name), sh[1])


def _run_call(args: Sequence[Value], jaxpr: ClosedJaxpr, name: str) -> list[Array]:
    weak = [a.weak_type for a in jaxpr.out_avals]  # the traced program's (a rewrite may drop a convert)
    spaces = [getattr(a, "memory_space", core.DEVICE) for a in jaxpr.out_avals]
    traced = jaxpr
    jaxpr = compiled_form(jaxpr)
    placed = any(type(a) is not Array and isinstance(a, Array) for a in args)  # (committed ones)
    # Arguments sharded over a mesh run as one program per device, where their shards are.
    if placed or _names_a_mesh(jaxpr):
        from .parallel.partition import run_sharded

        # (partitioned before XLA's simplifier runs, which then sees each device's program: a
        # division by a sum over a split dimension divides there, on one device a product by the
        # sum's reciprocal)
        sharded_outs = run_sharded(args, with_lowerings(traced), name, checks="user")
        if sharded_outs is not None:
            return sharded_outs
    values = [a._value if isinstance(a, Array) else a for a in args]
    exe = _executables.get(jaxpr)
    if exe is None:
        inspecting = sys.modules.get("engine.inspect_sharding")
        if inspecting is not None:  # (jax.debug.inspect_array_sharding calls back when a program compiles)
            inspecting.at_compile(jaxpr)
        exe = _first_tier(jaxpr, name, values)
    outs = exe(*values)
    job = getattr(exe, "job", False)  # (a first tier's: the compile it waits for)
    # (a program the interpreter runs for good says so too: ``jit_runtime.interpreted_because``)
    interpreted = job is not False or hasattr(exe, "why_interpreted")
    _tier.last = ("interpreter", job or None) if interpreted else ("compiled", None)
    if ir.ref_effects and ir.has_ref_effects(traced.jaxpr):
        weak = result_weak_types(traced, jaxpr)
    results = [core.array_of(o, w) for o, w in zip(outs, weak)]
    if any(s is not core.DEVICE for s in spaces):
        results = [r if s is core.DEVICE else _in_memory(r, s) for r, s in zip(results, spaces)]
    if placed:  # (arguments on a one-device mesh: JAX reports the results on that mesh)
        from .parallel.result_shardings import place_jit_results

        results = place_jit_results(traced, args, results)
    return results


def _in_memory(x: Array, space: core.MemorySpace) -> Array:
    """A result the program typed in host memory, placed there (its sharding says the kind)."""
    from .parallel.named import put_in_memory

    return put_in_memory(x, core.mem_space_to_kind(space))


jit_p.def_abstract_eval(lambda *avals, jaxpr, **_: list(jaxpr.out_avals))
jit_p.takes_arrays = True  # device-resident (sharded) arguments reach the impl as they are

# The transformations JAX names a call of each traced jit body after, outermost first: () for a
# call of a jitted function staged as it is (JAX: jit(<name>)), ("transpose", "jvp") for the body
# a grad's backward pass made (transpose(jvp(jit(<name>)))); None once a call of it was staged in
# a context not modelled (a body staged as it is while jvp, vmap, ... trace, vmap of grad, ...).
# A body not here is not known either. (The HLO printer reads this to name calls, or refuse.)
_call_transforms: weakref.WeakKeyDictionary[ClosedJaxpr, tuple[str, ...] | None] = weakref.WeakKeyDictionary()


def bind_call(
    closed: ClosedJaxpr,
    args: Sequence[Value],
    name: str,
    donated: Sequence[bool] | None = None,
    keep_unused: bool = False,
    shardings: tuple[Sequence[Any], Sequence[Any]] | None = None,
) -> list[Value]:
    """A call of a jitted function: ``jit_p`` bound, noting which bodies calls stage as they are.
    ``donated``: which of the last arguments (after hoisted constants) the call donates;
    ``shardings``: its arguments' and results' (a traced call of a jit with shardings)."""
    tracing = core.tracing_active()
    if tracing:
        note_call(closed)
    n_in = len(closed.in_avals)
    flags = (*[False] * (n_in - len(donated)), *donated) if donated and any(donated) else None
    options = call_params(n_in, len(closed.out_avals), flags, keep_unused, ctx_mesh=context_mesh())
    if shardings is not None:
        options = {**options, "in_shardings": tuple(shardings[0]), "out_shardings": tuple(shardings[1])}
    outs: list[Value] = jit_p.bind(*args, jaxpr=closed, name=name, **options)
    if tracing:
        note_staged_call(closed, outs)
    return outs


def note_call(closed: ClosedJaxpr) -> None:
    """A call of a jitted function is about to stage ``closed`` (its rules then read it)."""
    _call_transforms.setdefault(closed, ())


def note_staged_call(closed: ClosedJaxpr, outs: Sequence[Value]) -> None:
    """After the call: ``closed`` staged as it is while a transformation traced is not named."""
    from .staging import JaxprTracer

    if not _context():
        return
    for o in outs:
        while isinstance(o, (ad.JVPTracer, batching.BatchTracer)):  # (to the staged value)
            o = o.primal if isinstance(o, ad.JVPTracer) else o.val
        if not isinstance(o, Tracer):
            continue
        if not isinstance(o, JaxprTracer):  # (a rule's: it made bodies of its own)
            continue
        builder: Any = o._trace.builder  # type: ignore[attr-defined]
        var = builder.tracer_to_var.get(id(o))
        made = next((e for e in reversed(builder.eqns) if var in e.out_binders), None)
        if made is None or made.params.get("jaxpr") is closed:  # (this body, under a transformation)
            _call_transforms[closed] = None
            return


def _context() -> tuple[str, ...]:
    """The traces above the innermost staging one (a jit body traced inside a transformation
    starts its names afresh), and "transposing" while a transpose rule runs (it has no trace of its
    own; JAX names its calls transpose(...))."""
    from .staging import JaxprTrace

    names: list[str] = []
    for m in core._state.stack:
        if m.trace_type is JaxprTrace:
            names = []
        elif m.trace_type is not core.EvalTrace:
            names.append(m.trace_type.__name__)
    return tuple(names) + ("transposing",) * ad.transposing[0]


# the contexts in which a rule's new body is named after its transformation alone (recorded:
# jax.grad, jax.jvp, jax.vmap on their own)
_RULE_CONTEXTS: dict[str, set[tuple[str, ...]]] = {
    "jvp": {("PartialEvalTrace", "LinearizeTrace"), ("JVPTrace",), ("LinearizeTrace",)},
    "transpose": {("transposing",)},
    "vmap": {("BatchTrace",)},
}


_rule_depth = [0]  # how many bodies the rules below are tracing


@contextmanager
def _in_rule_body() -> Iterator[None]:
    _rule_depth[0] += 1
    try:
        yield
    finally:
        _rule_depth[0] -= 1


def _note_rule_body(new: ClosedJaxpr, old: ClosedJaxpr, transform: str | None) -> None:
    """``new``, made by ``transform``'s rule from ``old`` (None: split from it, as partial
    evaluation's halves, in the transformation's context)."""
    base = _call_transforms.get(old)
    if _rule_depth[0] and base is not None:  # (inside a body a rule traces: JAX's names restart)
        transform, base = None, ()
    elif transform is None and base and base[0] != "jvp":  # (partial evaluation splits jvp bodies)
        base = None
    ok = base is not None and (_rule_depth[0] > 0 or _context() in _RULE_CONTEXTS[transform or "jvp"])
    if new in _call_transforms and _call_transforms[new] is None:
        return
    _call_transforms[new] = ((transform,) if transform else ()) + base if ok and base is not None else None


def staged_like(new: ClosedJaxpr, old: ClosedJaxpr) -> None:
    """``new`` (``old`` rewritten, e.g. pruned) is staged by the same calls as ``old``."""
    _call_transforms[new] = _call_transforms.get(old)


def call_transforms(closed: ClosedJaxpr) -> tuple[str, ...] | None:
    """The transformations JAX names a call of ``closed`` after (None: not known)."""
    return _call_transforms.get(closed)


def _known_tangents_as_zeros(
    closed: ClosedJaxpr, n_primals: int, out_nonzero: list[bool]
) -> tuple[ClosedJaxpr, list[bool]]:
    """Under linearization, a tangent output that reads no input tangent (a custom JVP rule's
    ``zeros_like``) is a symbolic zero, as in JAX's linearize of a jit (``linearize_from_jvp``
    takes known tangent outputs for zeros): it leaves the call instead of being computed."""
    j = closed.jaxpr
    _, _, unknown, _ = ad.partial_eval_jaxpr(j, [k >= n_primals for k in range(len(j.in_binders))])
    m = len(j.outs) - sum(out_nonzero)
    if all(unknown[m:]):
        return closed, out_nonzero
    body = dce_jaxpr(j, [True] * m + unknown[m:])
    it = iter(unknown[m:])
    return ClosedJaxpr(body, closed.consts), [nz and next(it) for nz in out_nonzero]


def _refuse_what_discharge_refuses(jaxpr: ClosedJaxpr) -> None:
    """A jitted program with state, differentiated: JAX discharges the differentiated program when
    it runs, so refuses what a discharge refuses (a ref used after ``free_ref``) even though the
    engine differentiates it with functional refs. Checked once per program."""
    from . import jit_runtime
    from .state import discharge

    if ir.has_ref_effects(jaxpr.jaxpr) and jaxpr not in jit_runtime._discharged:
        jit_runtime._discharged[jaxpr] = discharge.discharge_program(jaxpr)


def _jit_jvp(
    primals: Sequence[Value], tangents: Sequence[ad.Tangent], *, jaxpr: ClosedJaxpr, name: str, **params: Any
) -> tuple[list[Value], list[ad.Tangent]]:
    _refuse_what_discharge_refuses(jaxpr)
    nonzero = [type(t) is not ad.Zero for t in tangents]
    in_avals = jaxpr.in_avals
    n = len(primals)
    out_nonzero: list[bool] = []

    def f(*args: Value) -> list[Value]:
        ps = args[:n]
        ts_it = iter(args[n:])
        ts = [next(ts_it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(nonzero, in_avals)]
        pout, tout = ad.jvp_flat(lambda *xs: eval_jaxpr(jaxpr.jaxpr, xs, jaxpr.consts), ps, ts, False)
        # Symbolically zero output tangents stay outside the call (JAX's jvp_jaxpr, instantiate=False).
        out_nonzero[:] = [type(t) is not ad.Zero for t in tout]
        return [*pout, *[t for t in tout if type(t) is not ad.Zero]]

    tvals = [t for t in tangents if type(t) is not ad.Zero]
    linearizing = bool(tvals) and isinstance(core.find_top_trace(tvals), ad.PartialEvalTrace)
    # (on a mesh the body is typed as its operands are, tangents as their primals: a key part)
    p_sh = mesh_shardings(primals)
    key = (tuple(nonzero), linearizing, None if p_sh is None else tuple(p_sh))
    cached = _linearized_cache(_jvp_jaxprs, jaxpr).get(key)
    if cached is None:
        t_avals = [ad.tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
        sh = None if p_sh is None else [*p_sh, *[s for s, nz in zip(p_sh, nonzero) if nz]]
        with _in_rule_body():
            closed, hoisted = _hoist_tracer_consts(trace_to_jaxpr(f, [*in_avals, *t_avals], sh))
        if linearizing:
            closed, out_nonzero[:] = _known_tangents_as_zeros(closed, len(hoisted) + n, out_nonzero)
        cached = (closed, hoisted, list(out_nonzero))
        if not hoisted:  # (tracer constants belong to this call only)
            _jvp_jaxprs[jaxpr][key] = cached
    closed, hoisted, out_nonzero = cached
    _note_rule_body(closed, jaxpr, "jvp")
    donated = [False] * len(hoisted) + list(params.get("donated_invars", ())) + [False] * len(tvals)
    # (tangents are laid out as their primals: JAX's _pjit_jvp)
    sh = carried(
        specified_shardings(params), [len(hoisted), (0, None), (0, nonzero)], [(1, None), (1, out_nonzero)]
    )
    outs = jit_p.bind(*hoisted, *primals, *tvals, **with_body({"name": name, **params}, closed, donated, sh))
    m = len(jaxpr.out_avals)
    t_it = iter(outs[m:])
    tout = [next(t_it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(out_nonzero, jaxpr.out_avals)]
    return outs[:m], tout


def _jit_transpose(
    cts: Sequence[ad.Tangent], *args: Value, jaxpr: ClosedJaxpr, name: str, **params: Any
) -> list[Value | None]:
    undef = [ad.is_undefined(a) for a in args]
    # A ref's cotangent (an accumulator) is passed as its ref, in the argument's place, and the
    # transposed body reads and writes that ref (JAX's project_accums).
    accs = [type(a) if isinstance(a, backward_pass.CotangentAccumulator) else None for a in args]
    projected = [a.project() if c is not None else a for a, c in zip(args, accs)]
    defined_avals = [core.get_aval(a) for a, u in zip(projected, undef) if not u]
    # Zero cotangents stay symbolic: the transposed jit takes only the others (as JAX's, whose
    # Zero flattens to no leaf), so work on outputs nobody differentiates is not transposed.
    zero_avals = [c.aval if type(c) is ad.Zero else None for c in cts]
    cts = [c for c in cts if type(c) is not ad.Zero]
    ct_avals = [core.get_aval(c) for c in cts]
    nd = len(defined_avals)

    def f(*xs: Value) -> list[Value]:
        defined, ct = xs[:nd], iter(xs[nd:])
        it = iter(defined)
        full = [
            ad.UndefPrimal(a.aval) if u else c.unproject(core.get_aval(a), next(it)) if c else next(it)
            for a, u, c in zip(projected, undef, accs)
        ]
        all_ct = [next(ct) if z is None else ad.Zero(z) for z in zero_avals]
        outs = ad.backward_pass(jaxpr.jaxpr, [*jaxpr.consts, *full], all_ct)
        # (a cotangent that stays a symbolic zero is no output: JAX's accumulator that nothing
        # reached flattens to no leaf, and the caller gets the zero outside the jit)
        zero_outs[:] = [type(o) is ad.Zero for o in outs]
        return [o for o in outs if type(o) is not ad.Zero]

    zero_outs: list[bool] = []

    key = (
        tuple(undef),
        tuple(defined_avals),
        tuple(ct_avals),
        tuple(z is None for z in zero_avals),
        tuple(accs),
        _layouts_key(args, cts),
    )
    cached = _linearized_cache(_transposed_jaxprs, jaxpr).get(key)
    if cached is None:
        with _in_rule_body():
            cached = (*_hoist_tracer_consts(trace_to_jaxpr(f, [*defined_avals, *ct_avals])), zero_outs)
        if not cached[1]:
            _transposed_jaxprs[jaxpr][key] = cached
    closed, hoisted, zero_outs = cached
    _note_rule_body(closed, jaxpr, "transpose")
    defined_vals = [a for a, u in zip(projected, undef) if not u]
    # (a cotangent is laid out as its primal: JAX's transpose)
    defined, nonzero = [not u for u in undef], [z is None for z in zero_avals]
    zeros_at = iter(zero_outs)
    given = [u and not next(zeros_at) for u in undef]
    sh = carried(specified_shardings(params), [len(hoisted), (0, defined), (1, nonzero)], [(0, given)])
    outs = jit_p.bind(*hoisted, *defined_vals, *cts, **with_body({"name": name, **params}, closed, None, sh))
    it, zeros = iter(outs), iter(zero_outs)
    return [(ad.Zero(a.aval) if next(zeros) else next(it)) if u else None for a, u in zip(args, undef)]


def _jit_batch(
    axis_size: int,
    vals: Sequence[Value],
    dims: Sequence[batching.BatchDim],
    *,
    jaxpr: ClosedJaxpr,
    name: str,
    **params: Any,
) -> tuple[list[Value], list[batching.BatchDim]]:
    # Keep the vmap's axis name, so collectives over it inside the jit reduce the batch axis.
    axis_name = getattr(batching.current_batch_trace(), "axis_name", None)
    # The same jaxpr batched the same way is one jaxpr (JAX memoizes batch_jaxpr), so two calls
    # of one jitted function under vmap print as one shared ``let``.
    key = (axis_size, tuple(dims), axis_name, ir.replaying[0] > 0)
    table = _linearized_cache(_batched_jaxprs, jaxpr)
    cached = table.get(key)
    if cached is None:
        # Outputs keep the batch axes the body gives them (JAX's pjit batching, batch_jaxpr2).
        with _in_rule_body():
            batched, out_dims = batching.batch_jaxpr(jaxpr, axis_size, dims, axis_name, keep_out_dims=True)
        closed, hoisted = _hoist_tracer_consts(batched)
        cached = (closed, hoisted, out_dims)
        if not hoisted:
            table[key] = cached
    closed, hoisted, out_dims = cached
    _note_rule_body(closed, jaxpr, "vmap")
    donated = [False] * len(hoisted) + list(params.get("donated_invars", ()))
    sh = specified_shardings(params)  # (the batch axis is not split: JAX's _pjit_batcher_for_sharding)
    if sh is not None:
        n_h, ins, outs_ = len(hoisted), closed.in_avals, closed.out_avals
        sh = (
            (
                *unspecified_n(n_h),
                *[batched_sharding(s, d, a.ndim) for s, d, a in zip(sh[0], dims, ins[n_h:])],
            ),
            tuple(batched_sharding(s, d, a.ndim) for s, d, a in zip(sh[1], out_dims, outs_)),
        )
    outs = jit_p.bind(*hoisted, *vals, **with_body({"name": name, **params}, closed, donated, sh))
    return outs, list(out_dims)


def _jit_partial_eval(
    trace: ad.PartialEvalTrace,
    tracers: Sequence[ad.PartialEvalTracer],
    *,
    jaxpr: ClosedJaxpr,
    name: str,
    **params: Any,
) -> list[Value]:
    _refuse_what_discharge_refuses(jaxpr)
    in_unknowns = [not t.pval.is_known for t in tracers]
    known_vals = [t.pval.const for t, u in zip(tracers, in_unknowns) if not u]
    literal_residuals = _linearized_directly()
    sh = specified_shardings(params)
    # (a known result laid out by out_shardings is returned even when it is an argument, as JAX's)
    pinned = () if sh is None else tuple(not unspecified(s) for s in sh[1])
    key = (tuple(in_unknowns), literal_residuals, pinned)
    cached = _linearized_cache(_split_jaxprs, jaxpr).get(key)
    if cached is None:
        with _in_rule_body():
            cached = _split_for_partial_eval(jaxpr, in_unknowns, len(known_vals), literal_residuals, pinned)
        if not cached[1]:
            _split_jaxprs[jaxpr][key] = cached
    known_closed, hoisted, closed2, out_unknowns = cached[:4]
    _note_rule_body(known_closed, jaxpr, None)
    _note_rule_body(closed2, jaxpr, None)
    j2 = closed2.jaxpr
    params = {"name": name, **params}
    # (residuals unspecified, known results forwarded from arguments dropped; JAX's _pjit_partial_eval)
    known_in, known_position = [not u for u in in_unknowns], itertools.count()
    kept = [not u and next(known_position) not in cached[6]["out"] for u in out_unknowns]
    n_res1, n_res2 = len(known_closed.out_avals) - sum(kept), len(closed2.in_avals) - sum(in_unknowns)
    sh1 = carried(sh, [len(hoisted), (0, known_in)], [(1, kept), n_res1])
    sh2 = carried(sh, [n_res2, (0, in_unknowns)], [(1, out_unknowns)])
    outs1_res = jit_p.bind(*hoisted, *known_vals, **with_body(params, known_closed, None, sh1))
    outs1, res = _known_outputs_and_residuals(known_vals, outs1_res, cached[4:], jaxpr.consts)
    if params["inline"]:  # (staged as its equations, as JAX stages an inline jit's: fused_rules.jvp's)
        res_tracers = [trace.instantiate_const(trace.full_raise(r)) for r in res]
        outs2 = iter(
            eval_jaxpr(j2, [*res_tracers, *[t for t in tracers if not t.pval.is_known]], closed2.consts)
        )
        known = iter(outs1)
        return [next(outs2) if u else next(known) for u in out_unknowns]
    out_avals = [v.aval for v in j2.outs]
    params = with_body(params, closed2, None, sh2)
    return _stage_unknown_half(trace, jit_p, params, out_avals, res, tracers, outs1, out_unknowns)


def _known_outputs_and_residuals(
    known_vals: Sequence[Value],
    outs1_res: Sequence[Value],
    split: tuple[Any, ...],
    consts: Sequence[Value] = (),
) -> tuple[list[Value], list[Value]]:
    """The known half's outputs and the residuals from what its call returned (the outputs it
    computes, then the residuals it computes): those ``_split_for_partial_eval`` forwards from a
    known input, or a residual that is a known output, are put back in their places."""
    n_known_out, num_res, forwarded, out_forwarded = split
    n_kept_out = n_known_out - len(forwarded["out"])
    kept_it, res_it = iter(outs1_res[:n_kept_out]), iter(outs1_res[n_kept_out:])
    outs1 = [
        known_vals[forwarded["out"][i]] if i in forwarded["out"] else next(kept_it)
        for i in range(n_known_out)
    ]
    res = [
        consts[forwarded["const"][k]]
        if k in forwarded.get("const", ())
        else known_vals[forwarded["res"][k]]
        if k in forwarded["res"]
        else outs1[out_forwarded[k]]
        if k in out_forwarded
        else next(res_it)
        for k in range(num_res)
    ]
    return outs1, res


def _stage_unknown_half(
    trace: ad.PartialEvalTrace,
    primitive: core.Primitive,
    params: dict[str, Any],
    out_avals: Sequence[Any],
    res: Sequence[Value],
    tracers: Sequence[ad.PartialEvalTracer],
    outs1: Sequence[Value],
    out_unknowns: Sequence[bool],
) -> list[Value]:
    """Stage the unknown half (``params`` hold its jaxpr) on the residuals and the unknown inputs;
    the call's outputs are the known half's ``outs1`` and the staged ones, in their order."""
    res_tracers = [trace.instantiate_const(trace.full_raise(r)) for r in res]
    unknown_tracers = [trace.instantiate_const(t) for t in tracers if not t.pval.is_known]
    outs2 = [ad.PartialEvalTracer(trace, ad.PartialVal.unknown(a), None) for a in out_avals]
    recipe = ad.JaxprEqnRecipe(
        primitive, res_tracers + unknown_tracers, params, list(out_avals), outs2, core.current_source_info()
    )
    for t in outs2:
        t.recipe = recipe
    trace.keep_effects(recipe)
    it1, it2 = iter(outs1), iter(outs2)
    return [next(it2) if u else next(it1) for u in out_unknowns]


def _linearized_directly() -> bool:
    """Whether a jit met now is linearized as JAX's linearize_jaxpr does (scalar constants it
    computes are traced values, so residuals), not split by a JaxprTrace as in a custom_jvp rule
    running under differentiation (JAX's partial_eval_jaxpr_nounits: literals stay literals)."""
    from .custom_derivatives import _in_rule

    return not _in_rule and _literal_residuals[0]


_literal_residuals = [True]  # False while the body of a jit split without them is split


def _split_for_partial_eval(
    jaxpr: ClosedJaxpr,
    in_unknowns: list[bool],
    num_known: int,
    literal_residuals: bool = True,
    pinned: Sequence[bool] = (),
) -> tuple[Any, ...]:
    saved, _literal_residuals[0] = _literal_residuals[0], literal_residuals
    try:
        j1, j2, out_unknowns, num_res = ad.partial_eval_jaxpr(
            jaxpr.jaxpr, in_unknowns, op_literal_residuals=literal_residuals
        )
    finally:
        _literal_residuals[0] = saved
    j1, j2, num_res = ir.prune_residuals(j1, j2, num_res)
    if literal_residuals:  # (JAX's linearize_jaxpr DCEs the primal side; a JaxprTrace split keeps it)
        j1 = dce_jaxpr(j1)
    # Known outputs and residuals that are known inputs are passed on directly, not returned
    # (JAX's input forwarding: a jit that returns its argument has no output for it).
    n_known_out = len(j1.outs) - num_res
    forwarded: dict[str, dict[int, int]] = {"out": {}, "res": {}}
    # Residuals that are the body's closed-over constants are passed from those, not returned
    # (JAX hands a jit's captured array to its unknown half as an input).
    const_position = {v: i for i, v in enumerate(j1.constvars)}
    forwarded["const"] = {
        k: const_position[r] for k, r in enumerate(j1.outs[len(j1.outs) - num_res :]) if r in const_position
    }
    if len(j1.in_binders) == num_known:
        position = {v: i for i, v in enumerate(j1.in_binders)}
        outs, res_outs = j1.outs[:n_known_out], j1.outs[n_known_out:]
        known_pinned = [p for p, u in zip(pinned, out_unknowns) if not u] or [False] * n_known_out
        forwarded["out"] = {
            i: position[v]
            for i, (v, p) in enumerate(zip(outs, known_pinned))
            if type(v) is Var and v in position and not p
        }
        forwarded["res"] = {
            k: position[r] for k, r in enumerate(res_outs) if r in position and k not in forwarded["const"]
        }
    # Residuals that are known outputs too are taken from those (JAX's output forwarding).
    out_position = {
        v: i for i, v in enumerate(j1.outs[:n_known_out]) if type(v) is Var and i not in forwarded["out"]
    }
    out_forwarded = {
        k: out_position[r]
        for k, r in enumerate(j1.outs[n_known_out:])
        if k not in forwarded["res"] and k not in forwarded["const"] and type(r) is Var and r in out_position
    }
    if forwarded["out"] or forwarded["res"] or forwarded["const"] or out_forwarded:
        kept_outs = [v for i, v in enumerate(j1.outs[:n_known_out]) if i not in forwarded["out"]]
        kept = [
            r
            for k, r in enumerate(j1.outs[n_known_out:])
            if k not in forwarded["res"] and k not in forwarded["const"] and k not in out_forwarded
        ]
        j1 = Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*kept_outs, *kept])
    known_closed, hoisted = _hoist_tracer_consts(ClosedJaxpr(j1, jaxpr.consts))
    closed2 = ClosedJaxpr(j2, [])
    return known_closed, hoisted, closed2, out_unknowns, n_known_out, num_res, forwarded, out_forwarded


# A jit's linearization (its JVP, the split into known and unknown parts, the transposes), once per
# jaxpr and signature, as JAX caches them: the same jitted function differentiated twice shows
# the same sub-jaxprs (printed once, as shared `let` jaxprs), and reruns skip the tracing.
_jvp_jaxprs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()
_split_jaxprs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()
_transposed_jaxprs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()
_batched_jaxprs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()
_dced_jaxprs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()
_split_inner_jaxprs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()


def _linearized_cache(
    table: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]", jaxpr: ClosedJaxpr
) -> dict[Any, Any]:
    entry: dict[Any, Any] | None = table.get(jaxpr)
    if entry is None:
        entry = table[jaxpr] = {}
    return entry


def _jit_partial_eval_jaxpr(
    unks_in: Sequence[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn, JaxprEqn, list[bool], list[Atom]]:
    # A jit inside a jaxpr being split (the jvp of an outer jit): split its body the same way,
    # into a known jit returning residuals and an unknown jit consuming them.
    closed, params = eqn.params["jaxpr"], {k: v for k, v in eqn.params.items() if k != "jaxpr"}
    from .lax.scan_invariants import hoisting

    key = (tuple(unks_in), _literal_residuals[0], residuals_last[0], bool(hoisting[0]))
    cached = _linearized_cache(_split_inner_jaxprs, closed).get(key)
    if cached is None:
        cached = _split_inner_jit(
            closed, list(unks_in), _literal_residuals[0], residuals_last[0], bool(hoisting[0])
        )
        _split_inner_jaxprs[closed][key] = cached
    known_closed, unknown_closed, out_uk, sources = cached
    _note_rule_body(known_closed, closed, None)
    _note_rule_body(unknown_closed, closed, None)
    known_ins = [x for x, u in zip(eqn.inputs, unks_in) if not u]
    known_outs = [v for v, u in zip(eqn.out_binders, out_uk) if not u]
    res_atoms: list[Atom] = [
        known_ins[i] if kind == "in" else known_outs[i] if kind == "out" else Var(aval)
        for kind, i, aval in sources
    ]
    new_res = [a for a, (kind, _, _) in zip(res_atoms, sources) if kind == "new" and type(a) is Var]
    sh = specified_shardings(params)  # (residuals unspecified, as in JAX's rule)
    sh1 = carried(sh, [(0, [not u for u in unks_in])], [(1, [not u for u in out_uk]), len(new_res)])
    unknown_sh = [(0, unks_in), len(res_atoms)]
    sh2 = carried(sh, unknown_sh if residuals_last[0] else unknown_sh[::-1], [(1, out_uk)])
    eqn1 = JaxprEqn(
        jit_p, known_ins, with_body(params, known_closed, None, sh1), [*known_outs, *new_res], eqn.source_info
    )
    unknown_ins = [x for x, u in zip(eqn.inputs, unks_in) if u]
    eqn2 = JaxprEqn(
        jit_p,
        [*unknown_ins, *res_atoms] if residuals_last[0] else [*res_atoms, *unknown_ins],
        with_body(params, unknown_closed, None, sh2),
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
        eqn.source_info,
    )
    return eqn1, eqn2, out_uk, res_atoms


def _jit_dce(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    """JAX's rule: a kept jit drops the outputs nothing uses, the body work only they needed and
    then the arguments the body no longer reads (so a linearized jit whose tangent output is
    unused stops taking the residuals that output needed). Bodies with ref effects stay whole."""
    closed = eqn.params["jaxpr"]
    if ir.has_ref_effects(closed.jaxpr) or any(type(a) is AbstractRef for a in closed.in_avals):
        return eqn
    key = tuple(used_outputs)
    table = _linearized_cache(_dced_jaxprs, closed)
    cached = table.get(key)
    if cached is None:  # memoized, as JAX's: the same jit DCE'd the same way is one shared jaxpr
        body, used_inputs = ir.prune_jaxpr(closed.jaxpr, used_outputs)
        cached = table[key] = (ClosedJaxpr(body, closed.consts), used_inputs)
    dced, used_inputs = cached
    staged_like(dced, closed)  # (the same call sites, pruned)
    sh = carried(specified_shardings(eqn.params), [(0, used_inputs)], [(1, used_outputs)])
    # (a new jaxpr even when nothing is dropped, as JAX's: a jit body inside a DCE'd known side is
    # not the jaxpr traced for a direct call)
    return eqn._replace(
        inputs=[x for x, u in zip(eqn.inputs, used_inputs) if u],
        out_binders=[v for v, u in zip(eqn.out_binders, used_outputs) if u],
        params=with_body(
            eqn.params, dced, [d for d, u in zip(eqn.params.get("donated_invars", ()), used_inputs) if u], sh
        ),
    )


ir.dce_rules[jit_p] = _jit_dce


# True while a scan body's loop invariants are split off (JAX traces that split with its JaxprTrace,
# whose jit rule moves the residuals behind the unknown inputs of the unknown jit).
residuals_last = [False]


def _split_inner_jit(
    closed: ClosedJaxpr,
    unks_in: list[bool],
    literal_residuals: bool,
    res_last: bool = False,
    traced: bool = False,
) -> tuple[Any, ...]:
    """The known and unknown jaxprs of a nested jit, and where each residual comes from: a known
    input (``("in", i)``, JAX's forwarding), a known output (``("out", i)``), or a new output of
    the known jit (``("new", _, aval)``). The unknown jaxpr takes the residuals first, or last
    with ``res_last``."""
    j1, j2, out_uk, num_res = ad.partial_eval_jaxpr(
        closed.jaxpr, unks_in, op_literal_residuals=literal_residuals
    )
    j1, j2, num_res = ir.prune_residuals(j1, j2, num_res)
    if literal_residuals:  # (JAX's linearize_jaxpr DCEs the primal side; a JaxprTrace split keeps it)
        j1 = dce_jaxpr(j1)
    if traced:  # (a JaxprTrace split, as a loop's hoisting runs: residuals in its toposort's order)
        from .lax.control_flow_common import in_trace_order

        j1, j2, out_uk, num_res = in_trace_order(j1, j2, out_uk, num_res)
    n_known_out = len(j1.outs) - num_res
    num_known = sum(not u for u in unks_in)
    position = {v: i for i, v in enumerate(j1.in_binders)} if len(j1.in_binders) == num_known else {}
    out_position = {v: i for i, v in enumerate(j1.outs[:n_known_out]) if type(v) is Var}
    sources: list[tuple[str, int, Any]] = []
    kept: list[Atom] = []
    for r in j1.outs[n_known_out:]:
        if r in position:
            sources.append(("in", position[r], None))
        elif r in out_position:
            sources.append(("out", out_position[r], None))
        else:
            sources.append(("new", 0, r.aval))
            kept.append(r)
    j1 = Jaxpr(j1.constvars, j1.in_binders, j1.eqns, [*j1.outs[:n_known_out], *kept])
    if res_last:  # (under fresh binders, as a separate trace makes them)
        fresh = {v: Var(v.aval) for v in j2.in_binders[:num_res]}
        eqns = [
            e._replace(inputs=[fresh.get(x, x) if type(x) is Var else x for x in e.inputs]) for e in j2.eqns
        ]
        outs = [fresh.get(x, x) if type(x) is Var else x for x in j2.outs]
        j2 = Jaxpr(j2.constvars, [*j2.in_binders[num_res:], *fresh.values()], eqns, outs)
    return ClosedJaxpr(j1, closed.consts), ClosedJaxpr(j2, []), out_uk, sources


_forwarding_jaxprs: "weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()


def _jit_forward_known_outputs(eqn: JaxprEqn) -> tuple[JaxprEqn, dict[Var, Atom]] | None:
    """The known half of a split jit without the outputs its body returns straight from an argument
    (JAX's rule passes those arguments on instead); memoized, so one jit split twice stays one."""
    closed = eqn.params["jaxpr"]
    sh = specified_shardings(eqn.params)
    # (a result laid out by out_shardings is returned even when it is an argument, as JAX's)
    pinned = () if sh is None else tuple(not unspecified(s) for s in sh[1])
    table = _linearized_cache(_forwarding_jaxprs, closed)
    cached = table.get(pinned)
    if cached is None:
        body = closed.jaxpr
        position = {v: i for i, v in enumerate(body.in_binders)}
        from_input = {
            k: position[v]
            for k, v in enumerate(body.outs)
            if type(v) is Var and v in position and not (pinned and pinned[k])
        }
        kept = Jaxpr(
            body.constvars,
            body.in_binders,
            body.eqns,
            [v for k, v in enumerate(body.outs) if k not in from_input],
        )
        cached = table[pinned] = (ClosedJaxpr(kept, closed.consts) if from_input else None, from_input)
    pruned, from_input = cached
    if pruned is None:
        return None
    dropped = {eqn.out_binders[k]: eqn.inputs[i] for k, i in from_input.items()}
    outs = [v for k, v in enumerate(eqn.out_binders) if k not in from_input]
    sh = carried(sh, [(0, None)], [(1, [k not in from_input for k in range(len(eqn.out_binders))])])
    params = with_body(eqn.params, pruned, eqn.params.get("donated_invars"), sh)
    return eqn._replace(out_binders=outs, params=params), dropped


ad.jvp_rules[jit_p] = _jit_jvp
ad.partial_eval_jaxpr_rules[jit_p] = _jit_partial_eval_jaxpr
ad.known_output_forwarding_rules[jit_p] = _jit_forward_known_outputs
ad.transpose_rules[jit_p] = _jit_transpose
backward_pass.takes_accumulators.add(jit_p)
backward_pass.passes_value_accumulators.add(jit_p)
batching.batch_rules[jit_p] = _jit_batch
ad.partial_eval_rules[jit_p] = _jit_partial_eval
lowerings[jit_p] = Special("inline")  # its body is inlined into the caller's program
