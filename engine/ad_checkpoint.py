"""Gradient checkpointing (``jax.checkpoint`` / ``jax.remat``): the ``remat2`` call primitive,
``checkpoint_name`` (the ``name`` primitive) and the saving policies (``print_saved_residuals``
is in saved_residuals.py).

Differentiating a checkpointed function saves, for the backward pass, only its inputs and what the
policy allows; every other intermediate is recomputed there from them (the backward pass is a
``remat2`` with ``differentiated=True`` that reruns the primal equations it needs).
"""

from __future__ import annotations

import functools
import inspect
import re
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from . import ad, batching, core, ir
from .config import config
from .backends.rows import Scalar, Special, lowerings
from .checkpoint_policies import Offloadable, name_p, nothing_saveable
from .checkpoint_policies import checkpoint_policies  # noqa: F401  (jax.ad_checkpoint.checkpoint_policies)
from .ir import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Var, dce_jaxpr, eval_jaxpr
from .source_info import NO_SOURCE
from .staging import trace_to_jaxpr
from .state.checks import arg_names
from .tracer_origins import checkpoint_hint
from .tree_util import tree_flatten, tree_unflatten
from .narrow_dtypes import kind as dtype_kind

checkpoint_p = core.Primitive("remat2", multiple_results=True)


# ---------------------------------------------------------------------------------------------
# checkpoint_name: the identity, with a name a policy can look at.


def checkpoint_name(x: Any, name: str) -> Any:
    """Name the values of ``x`` (a pytree) for ``save_only_these_names`` and friends.

    >>> from engine.ad_checkpoint import checkpoint_name
    >>> policy = jax.checkpoint_policies.save_only_these_names("y")
    >>> f = jax.checkpoint(lambda x: jnp.cos(checkpoint_name(jnp.sin(x), "y")), policy=policy)
    >>> jax.grad(f)(0.0)  # sin(x) is saved under its name; cos is recomputed
    Array(-0., dtype=float32, weak_type=True)
    """
    leaves, tree = tree_flatten(x)
    return tree_unflatten(tree, [name_p.bind(v, name=name) for v in leaves])


name_p.def_impl(lambda x, *, name: x)
name_p.def_abstract_eval(lambda x, *, name: x)


def _name_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, name: str) -> tuple[Any, Any]:
    # The tangent is not named (as JAX's rule): a name marks a primal value for the policies, and
    # a named tangent would show in the linear jaxprs JAX prints.
    return name_p.bind(primals[0], name=name), tangents[0]


ad.jvp_rules[name_p] = _name_jvp
ad.transpose_rules[name_p] = lambda ct, x, *, name: [ct]
lowerings[name_p] = Scalar(lambda eqn, x: x)
batching.batch_rules[name_p] = lambda axis_size, vals, dims, *, name: (
    name_p.bind(vals[0], name=name),
    dims[0],
)


# ---------------------------------------------------------------------------------------------
# checkpoint / remat.


def checkpoint(
    fun: Callable | None = None,
    *,
    prevent_cse: bool = True,
    policy: Callable[..., bool] | None = None,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    concrete: bool | None = None,
) -> Any:
    """Make ``fun`` recompute its intermediates in the backward pass instead of saving them.

    >>> f = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
    >>> jax.grad(f)(1.0)  # the backward pass recomputes sin(x)
    Array(0.36003947, dtype=float32, weak_type=True)
    """
    if concrete is not None:
        raise NotImplementedError(
            "The `concrete` option to `jax.checkpoint` was deprecated in JAX v0.8.2, and removed in JAX "
            "v0.10.0. In its place please use `static_argnums`; for details refer to "
            "https://docs.jax.dev/en/latest/jep/11830-new-remat-checkpoint.html."
        )
    if fun is None:
        return functools.partial(
            checkpoint,
            prevent_cse=prevent_cse,
            policy=policy,
            static_argnums=static_argnums,
            static_argnames=static_argnames,
        )
    # ``static_argnames`` is accepted and unused, as JAX 0.10.2's checkpoint leaves it (its
    # remat3 path alone reads it, off by default): a keyword argument is traced like the others.
    del static_argnames
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    try:
        traces = _traces.setdefault(fun, {})
    except TypeError:  # not weakly referenceable: this checkpoint keeps its own
        traces = {}

    @functools.wraps(fun)
    def remat_f(*args: Any, **kwargs: Any) -> Any:
        n = len(args)
        static_pos = {i % n if n else i for i in static}
        statics = {i: args[i] for i in static_pos if i < n}
        dyn_leaves, in_tree = tree_flatten(([a for i, a in enumerate(args) if i not in statics], kwargs))
        out_store: list[Any] = []

        def flat(*xs: Any) -> list[Any]:
            dyn, kw = tree_unflatten(in_tree, list(xs))
            it = iter(dyn)
            full = [statics[i] if i in statics else next(it) for i in range(n)]
            out_leaves, out_tree = tree_flatten(fun(*full, **kw))
            out_store[:] = [out_tree]
            return out_leaves

        avals = [core.get_aval(x) for x in dyn_leaves]
        try:  # (traced once per function and signature, as JAX caches it: see _traces)
            key: Any = (
                in_tree,
                tuple((a.shape, a.dtype, a.weak_type) for a in avals),
                tuple(statics.items()),
            )
            hash(key)
        except TypeError:  # unhashable static arguments
            key = None
        cached = traces.get(key) if key is not None else None
        if cached is None:
            names = functools.partial(arg_names, fun, args, kwargs, tuple(statics))
            with checkpoint_hint():
                jaxpr, consts = _open(trace_to_jaxpr(flat, avals, debug=(fun, "checkpoint / remat", names)))
            cached = (jaxpr, consts, out_store[0])
            if key is not None and not any(isinstance(c, core.Tracer) for c in consts):
                traces[key] = cached
        jaxpr, consts, out_tree = cached
        outs = checkpoint_p.bind(
            *consts, *dyn_leaves, jaxpr=jaxpr, prevent_cse=prevent_cse, differentiated=False, policy=policy
        )
        return tree_unflatten(out_tree, outs)

    if config.values.get("jax_remat3"):
        # (JAX's experimental remat3 checkpoint takes ``*args``: what it saves is named by position,
        # ``args[0]``, as its debug info says)
        remat_f.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [
                inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD),
            ]
        )
    return remat_f


remat = checkpoint

# The traces of checkpointed functions, per function (weakly) and signature, shared by every
# checkpoint of the same function as JAX's weakref-keyed trace cache is: a training loop does not
# retrace, and checkpoint(f, policy=p2) after checkpoint(f, policy=p1) reuses f's trace (the policy
# applies to the jaxpr), even if what f calls was redefined in between.
_traces: "weakref.WeakKeyDictionary[Callable, dict[Any, tuple[Jaxpr, list[Any], Any]]]" = (
    weakref.WeakKeyDictionary()
)


def _open(closed: ClosedJaxpr) -> tuple[Jaxpr, list[Any]]:
    """Constants become leading inputs (JAX's convert_constvars_jaxpr): the param is an open jaxpr."""
    j = closed.jaxpr
    return Jaxpr([], [*j.constvars, *j.in_binders], j.eqns, j.outs), list(closed.consts)


# A remat's derived jaxprs (its JVP, its transposes, its splits), once per jaxpr and signature, so
# that eager differentiation in a loop does not retrace them.
_derived: "weakref.WeakKeyDictionary[Jaxpr, dict[Any, Any]]" = weakref.WeakKeyDictionary()


def _memo(jaxpr: Jaxpr, key: Any, make: Callable[[], Any]) -> Any:
    table = _derived.get(jaxpr)
    if table is None:
        table = _derived[jaxpr] = {}
    try:
        hit = table.get(key)
    except TypeError:  # an unhashable policy
        return make()
    if hit is None:
        hit = make()
        if not any(isinstance(c, core.Tracer) for c in _consts_of(hit)):
            table[key] = hit
    return hit


def _consts_of(value: Any) -> list[Any]:
    return (
        [c for x in value if isinstance(x, ClosedJaxpr) for c in x.consts] if isinstance(value, tuple) else []
    )


def _bind_like(params: dict[str, Any], closed: ClosedJaxpr, args: Sequence[Any], **changes: Any) -> list[Any]:
    jaxpr, consts = _open(closed)
    return checkpoint_p.bind(*consts, *args, **dict(params, jaxpr=jaxpr, **changes))


@checkpoint_p.def_impl
def _checkpoint_impl(*args: Any, jaxpr: Jaxpr, **_: Any) -> list[Any]:
    # The body sees its arguments with their traced weak types, so its outputs keep theirs (as jit's).
    ins = [
        core.array_of(a, v.aval.weak_type) if isinstance(a, np.ndarray) else a
        for a, v in zip(args, jaxpr.in_binders)
    ]
    outs = eval_jaxpr(jaxpr, ins)
    return [o if isinstance(o, core.Array) else core.to_numpy(o) for o in outs]


checkpoint_p.def_abstract_eval(lambda *avals, jaxpr, **_: [x.aval for x in jaxpr.outs])


# JAX prints the params sorted by name; policy=None unless one was given.
class _FunctionShown:
    """A policy that is a plain function, shown as JAX's jaxprs show it (its repr, the address
    masked as the engine masks every address it prints)."""

    def __init__(self, fn: Callable[..., Any]):
        self.text = re.sub(r" at 0x([0-9a-fA-F]+)", lambda m: " at 0x" + "X" * len(m.group(1)), repr(fn))

    def __str__(self) -> str:
        return self.text


ir.pp_params_rules[checkpoint_p] = lambda eqn: sorted(
    (k, _FunctionShown(v) if k == "policy" and inspect.isfunction(v) else v) for k, v in eqn.params.items()
)
# Compiled code runs the body once, inline (rematerialization is a memory schedule, not values).
lowerings[checkpoint_p] = Special("inline")


def _checkpoint_jvp(
    primals: Sequence[Any], tangents: Sequence[ad.Tangent], *, jaxpr: Jaxpr, **params: Any
) -> tuple[list[Any], list[ad.Tangent]]:
    nonzero = [type(t) is not ad.Zero for t in tangents]
    in_avals = [v.aval for v in jaxpr.in_binders]
    n = len(primals)
    out_nonzero: list[bool] = []

    def f(*args: Any) -> list[Any]:
        it = iter(args[n:])
        ts = [next(it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(nonzero, in_avals)]
        pout, tout = ad.jvp_flat(lambda *xs: eval_jaxpr(jaxpr, xs), args[:n], ts, False)
        out_nonzero[:] = [type(t) is not ad.Zero for t in tout]
        return [*pout, *[t for t in tout if type(t) is not ad.Zero]]

    def make() -> tuple[ClosedJaxpr, list[bool]]:
        t_avals = [ad.tangent_aval(a) for a, nz in zip(in_avals, nonzero) if nz]
        return trace_to_jaxpr(f, [*in_avals, *t_avals]), list(out_nonzero)

    closed, out_nonzero = _memo(jaxpr, ("jvp", tuple(nonzero)), make)
    outs = _bind_like(params, closed, [*primals, *[t for t in tangents if type(t) is not ad.Zero]])
    m = len(jaxpr.outs)
    it = iter(outs[m:])
    out_avals = [x.aval for x in jaxpr.outs]
    return outs[:m], [
        next(it) if nz else ad.Zero(ad.tangent_aval(a)) for nz, a in zip(out_nonzero, out_avals)
    ]


def _checkpoint_transpose(cts: Sequence[ad.Tangent], *args: Any, jaxpr: Jaxpr, **params: Any) -> list[Any]:
    marks = _staged_whole.get(jaxpr)
    if marks:  # (split here, as JAX's remat_transpose partial-evaluates the staged jaxpr)
        lin = tuple(ad.is_undefined(a) for a in args)
        jaxpr = _memo(jaxpr, ("split_whole", lin), lambda: _split_whole(jaxpr, marks, lin))
    undef, defined, cts, f, avals = ad.call_transpose(jaxpr, args, cts)
    key = ("transpose", tuple(undef), tuple((a.shape, a.dtype, a.weak_type) for a in avals))
    (closed,) = _memo(jaxpr, key, lambda: (_split_by_trace(lambda: trace_to_jaxpr(f, avals)),))
    outs = _bind_like(params, closed, [*defined, *cts], differentiated=True)
    it = iter(outs)
    return [next(it) if u else None for u in undef]


def _split_by_trace(make: Callable[[], Any]) -> Any:
    """``make()`` with the jits it splits split as by JAX's JaxprTrace (remat_transpose partial-
    evaluates the staged body with partial_eval_jaxpr_nounits: a literal stays a literal, never a
    residual, unlike linearize_jaxpr's traced constants)."""
    from . import jit_primitive

    saved, jit_primitive._literal_residuals[0] = jit_primitive._literal_residuals[0], False
    try:
        return make()
    finally:
        jit_primitive._literal_residuals[0] = saved


def _checkpoint_batch(
    axis_size: int, vals: Sequence[Any], dims: Sequence[batching.BatchDim], *, jaxpr: Jaxpr, **params: Any
) -> tuple[list[Any], list[batching.BatchDim]]:
    axis_name = getattr(batching.current_batch_trace(), "axis_name", None)
    # Mapped outputs come out at axis 0, the others stay unmapped (JAX's instantiate=False).
    batched, out_dims = batching.batch_jaxpr(ClosedJaxpr(jaxpr, []), axis_size, dims, axis_name)
    return _bind_like(params, batched, vals), out_dims


# --- partial evaluation: what the policy saves, and what the backward pass recomputes --------


def _split(
    jaxpr: Jaxpr,
    in_unknowns: Sequence[bool],
    policy: Callable[..., bool] | None,
    loop_body: Sequence[bool] | None = None,
) -> tuple[Jaxpr, Jaxpr, list[bool], int, list[bool]]:
    # (JAX's partial_eval_jaxpr_custom: the jits it splits keep their literals)
    return _split_by_trace(lambda: _split_by_policy(jaxpr, in_unknowns, policy, loop_body))


def _split_by_policy(
    jaxpr: Jaxpr,
    in_unknowns: Sequence[bool],
    policy: Callable[..., bool] | None,
    loop_body: Sequence[bool] | None = None,
) -> tuple[Jaxpr, Jaxpr, list[bool], int, list[bool]]:
    """``(known, staged, out_unknowns, num_res, staged_inputs)``.

    ``known: known ins -> known outs + residuals``, the residuals being outputs of equations the
    policy saves; ``staged: residuals + the inputs it reads (staged_inputs) -> unknown outs``, which
    reruns every known equation it needs that the policy does not save.

    ``loop_body``: the split of a loop's body (JAX's rule for a scan splits it so), the outputs
    forced unknown (its carries made unknown): the staged part computes every output, the known
    ones too, and its split equations stay whole (the remat's transpose splits the loop).
    """
    saveable = policy or nothing_saveable
    unknown: dict[Var, bool] = {v: u for v, u in zip(jaxpr.in_binders, in_unknowns)}
    saved: set[Var] = set()
    recomputed: dict[Var, JaxprEqn] = {}  # known equations the staged part reruns, by output
    known_eqns: list[JaxprEqn] = []
    staged_eqns: list[JaxprEqn] = []
    rule_reads: dict[int, list[Atom]] = {}  # a split equation's unknown part -> what it reads, in order
    whole: dict[Var, Any] = {}  # outputs of the staged equations of policy_split_rules -> their rule
    for eqn in jaxpr.eqns:
        unks_in = [type(x) is Var and unknown[x] for x in eqn.inputs]
        rule = remat_split_rules.get(eqn.primitive) or ad.partial_eval_jaxpr_rules.get(eqn.primitive)
        if any(unks_in) and eqn.primitive is checkpoint_p:
            # A nested remat: its known part stays a remat here, and is inlined where recomputed.
            call, inlined, eqn2, unks_out, _ = _split_eqn(unks_in, eqn)
            known_eqns.append(call)
            unknown.update((v, False) for v in call.out_binders)
            if saveable(call.primitive, *[x.aval for x in call.inputs], **call.params):
                saved.update(call.out_binders)
            else:
                staged_eqns.extend(inlined or [call])
                recomputed.update((v, e) for e in inlined or [call] for v in e.out_binders)
            staged_eqns.append(eqn2)  # (after the recomputation of the residuals it reads)
            unknown.update(zip(eqn.out_binders, unks_out))
            continue
        custom = policy_split_rules.get(eqn.primitive) if any(unks_in) else None
        made = custom(saveable, unks_in, eqn) if custom is not None else None
        if made is not None:
            # The rule split the equation with the policy itself: its residuals are saved, and its
            # staged equation, computing every output, stays whole (the remat's transpose splits it).
            known_eqn, staged_eqn, unks_out, rule_res = made
            known_eqns.append(known_eqn)
            saved.update(rule_res)
            staged_eqns.append(staged_eqn)
            rule_reads[id(staged_eqn)] = [*eqn.inputs, *rule_res]
            whole.update(dict.fromkeys(staged_eqn.out_binders, custom))
            unknown.update(zip(eqn.out_binders, unks_out))
            continue
        unknown_part: JaxprEqn | list[JaxprEqn] | None = None
        split = rule(unks_in, eqn) if any(unks_in) and rule is not None else None
        if split is not None:  # (a nested jit, cond, scan: split it too)
            eqn1, unknown_part, unks_out, rule_res = split
            known_part = eqn1 if type(eqn1) is list else [] if eqn1 is None else [eqn1]
        elif any(unks_in):
            staged_eqns.append(eqn)
            unknown.update((v, True) for v in eqn.out_binders)
            continue
        else:
            known_part, unks_out = [eqn], [False] * len(eqn.out_binders)
        group_rule = known_call_rules.get(eqn.primitive)
        grouped = group_rule is not None and bool(known_part) and unknown_part is not None
        if group_rule is not None and grouped:
            known_eqns.append(group_rule(known_part, unknown_part, eqn, unks_in))
        offloads = []  # (after the grouped equation, or each after its own)
        for e in known_part:
            if not grouped:
                known_eqns.append(e)
            unknown.update((v, False) for v in e.out_binders)
            case = saveable(e.primitive, *[x.aval for x in e.inputs], **e.params)
            if isinstance(case, Offloadable):  # (saved in another memory: moved there and back)
                offload, reload = _offload_eqns(e.out_binders, case)
                (offloads if grouped else known_eqns).append(offload)
                saved.update(offload.out_binders)
                staged_eqns.append(reload)
            elif case:
                saved.update(e.out_binders)
            else:
                staged_eqns.append(e)
                recomputed.update(dict.fromkeys(e.out_binders, e))
        known_eqns.extend(offloads)
        if unknown_part is not None:  # (after the recomputation of the residuals it reads)
            parts = unknown_part if isinstance(unknown_part, list) else [unknown_part]
            # (JAX's rules give their residuals as the equation's known operands, then theirs)
            rule_reads[id(parts[0])] = [*eqn.inputs, *rule_res]
            staged_eqns.extend(parts)
        unknown.update(zip(eqn.out_binders, unks_out))
    out_unknowns = [type(x) is Var and unknown[x] for x in jaxpr.outs]
    if loop_body is not None:
        out_unknowns = [u or f for u, f in zip(out_unknowns, loop_body)]
    staged_outs = [x for x, u in zip(jaxpr.outs, out_unknowns) if u or loop_body is not None]
    staged = dce_jaxpr(Jaxpr([], [], staged_eqns, staged_outs))
    staged = Jaxpr([], [], [_recomputation(e, recomputed) for e in staged.eqns], staged.outs)
    # (which staged equations a rule staged whole: the remat's transpose splits them)
    marks = {k: whole[v] for k, e in enumerate(staged.eqns) for v in e.out_binders[:1] if v in whole}
    defined = {v for e in staged.eqns for v in e.out_binders}
    free = {x: None for e in staged.eqns for x in e.inputs if type(x) is Var and x not in defined}
    free.update({x: None for x in staged_outs if type(x) is Var and x not in defined})
    # (in the order the staged equations first read them, then the staged outputs: JAX's
    # partial_eval_jaxpr_custom adds a residual as it stages an equation reading it)
    first_read = [x for e in staged_eqns for x in rule_reads.get(id(e), e.inputs) if type(x) is Var]
    first_read += [x for x in staged_outs if type(x) is Var]
    res = [v for v in dict.fromkeys(first_read) if v in free and v in saved]
    staged_inputs = [v in free for v in jaxpr.in_binders]
    # (Vars of its own: the staged part binds the residuals the known part returns, and both are
    # independent jaxprs, as JAX's, traced apart, are)
    staged = ir.with_fresh_vars(
        Jaxpr([], [*res, *[v for v in jaxpr.in_binders if v in free]], staged.eqns, staged.outs)
    )
    if marks and loop_body is None:
        _staged_whole[staged] = marks
    known_outs = [x for x, u in zip(jaxpr.outs, out_unknowns) if not u]
    known_ins = [v for v, u in zip(jaxpr.in_binders, in_unknowns) if not u]
    known = dce_jaxpr(Jaxpr([], known_ins, known_eqns, [*known_outs, *res]))
    if loop_body is not None:  # (JAX's reduce_precision goes on the remat's residuals only)
        return known, staged, out_unknowns, len(res), staged_inputs
    return _reduce_precision_residuals(known, len(res)), staged, out_unknowns, len(res), staged_inputs


# A remat's staged jaxpr -> {index of an equation a policy_split_rules rule staged whole: the rule}.
# The remat's transpose splits those equations into their known and linear halves (JAX's
# remat_transpose partial-evaluates the staged jaxpr, partial_eval_jaxpr_nounits); until then
# (linearize, which never transposes) they stay whole, as JAX prints them.
_staged_whole: "weakref.WeakKeyDictionary[Jaxpr, dict[int, PolicySplitRule]]" = weakref.WeakKeyDictionary()


def same_staged_marks(new: Jaxpr, old: Jaxpr) -> None:
    """Mark ``new``, a rewrite of the staged remat body ``old`` that keeps its equations' results (a
    shard_map body typed with varying axes, which may add ``pvary`` equations), where ``old``'s
    marked equations now are, so its transpose still splits them."""
    marks = _staged_whole.get(old)
    if marks and new is not old:
        at = {e.out_binders[0]: k for k, e in enumerate(new.eqns) if e.out_binders}
        moved = {at[old.eqns[k].out_binders[0]]: r for k, r in marks.items() if old.eqns[k].out_binders}
        _staged_whole[new] = moved


def _split_whole(jaxpr: Jaxpr, marks: dict[int, PolicySplitRule], linear: Sequence[bool]) -> Jaxpr:
    """``jaxpr`` (a staged remat body) with each marked equation split by its rule, given which of
    its inputs are linear (undefined in the transpose): a value is linear if an input of the
    equation making it is."""
    unknown: dict[Var, bool] = dict(zip(jaxpr.in_binders, linear))
    eqns: list[JaxprEqn] = []
    for k, e in enumerate(jaxpr.eqns):
        rule = marks.get(k)
        unks = [type(x) is Var and unknown.get(x, False) for x in e.inputs]
        parts = rule.split_staged(unks, e) if rule is not None else [e]
        for p in parts:
            u = any(type(x) is Var and unknown.get(x, False) for x in p.inputs)
            unknown.update(dict.fromkeys(p.out_binders, u))
        eqns.extend(parts)
    return Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, jaxpr.outs)


class PolicySplitRule:
    """A primitive's split under a remat's policy (JAX's partial_eval_jaxpr_custom rule), where it
    splits its sub-jaxprs with the policy: ``rule(policy, unknowns_in, eqn)`` gives ``(known
    equation, staged equation computing every output, unknowns out, residuals)``, or None to split
    it as ``remat_split_rules`` / ``ad.partial_eval_jaxpr_rules`` do; ``split_staged(unknowns_in,
    staged)`` the equations the remat's transpose splits the staged one into."""

    def __call__(self, policy: Callable[..., Any], unks_in: list[bool], eqn: JaxprEqn) -> Any:
        raise NotImplementedError

    def split_staged(self, unks_in: list[bool], eqn: JaxprEqn) -> list[JaxprEqn]:
        raise NotImplementedError


policy_split_rules: dict[core.Primitive, PolicySplitRule] = {}


# Primitive -> a rule as ``ad.partial_eval_jaxpr_rules``' for a remat's split of the equation, where
# it differs from that (JAX's partial_eval_jaxpr_custom_rules).
remat_split_rules: dict[core.Primitive, Callable[[list[bool], JaxprEqn], Any]] = {}


# Primitive -> (the known equations of its split, the unknown part, the equation, its unknown
# inputs) -> the one
# equation the forward pass runs them as: JAX's remat rule for a scan (_scan_partial_eval_custom)
# runs the known scan, after its hoisted loop invariants, in a closed_call. The staged part still
# reruns the equations one by one, as the policy says.
known_call_rules: dict[core.Primitive, Callable[[list[JaxprEqn], Any, JaxprEqn, list[bool]], JaxprEqn]] = {}


# Primitive -> (known equation, which of its outputs the staged part reads) -> the equation the
# staged part reruns, where that is not the known one pruned: JAX stages the whole equation and
# splits it only when transposing, so a cond's rerun keeps its residual branches' empty2 fill.
recompute_rules: dict[core.Primitive, Callable[[JaxprEqn, list[bool]], JaxprEqn]] = {}


def _recomputation(eqn: JaxprEqn, recomputed: dict[Var, JaxprEqn]) -> JaxprEqn:
    """A staged equation, or, if it reruns a known one, that rerun with sub-jaxprs of its own
    (JAX traces it anew: its variables print apart from the known equation's)."""
    known = next((recomputed[v] for v in eqn.out_binders if v in recomputed), None)
    if known is None:
        return eqn
    rule = recompute_rules.get(eqn.primitive)
    if rule is not None:
        live = set(eqn.out_binders)
        eqn = rule(known, [v in live for v in known.out_binders])
    return ir.with_fresh_subjaxprs(eqn)


def _offload_eqns(outs: list[Var], case: Offloadable) -> tuple[JaxprEqn, JaxprEqn]:
    """JAX's pair of ``device_put`` equations for residuals ``outs`` kept in ``case.dst`` memory:
    the forward pass's move there (into new variables, the residuals) and the backward pass's
    move back into ``outs``."""
    from .device_put_primitive import ArrayCopySemantics, device_put_p

    dst, src = core.mem_kind_to_space(case.dst), core.mem_kind_to_space(case.src)
    moved = [Var(v.aval.update(memory_space=dst)) for v in outs]
    n = len(outs)
    copy = (ArrayCopySemantics.ALWAYS_COPY,)  # (JAX's: one entry, whatever the count)
    info = NO_SOURCE  # (JAX's: a new, empty source info; print_saved_residuals shows no line)
    there = JaxprEqn(
        device_put_p, list(outs), dict(devices=(dst,) * n, srcs=(None,), copy_semantics=copy), moved, info
    )
    back = JaxprEqn(
        device_put_p,
        list(moved),
        dict(devices=(src,) * n, srcs=(None,), copy_semantics=copy),
        list(outs),
        info,
    )
    return there, back


def _reduce_precision_residuals(known: Jaxpr, num_res: int) -> Jaxpr:
    # As JAX does, a saved float intermediate goes through reduce_precision at its own precision,
    # so that the forward and the backward pass see the same value whatever the compiler fuses.
    from .lax.elementwise import reduce_precision_p

    res = known.outs[len(known.outs) - num_res :]
    produced = {v: k for k, e in enumerate(known.eqns) for v in e.out_binders}
    # (only where the forward pass itself reads the residual: one it merely saves has one value)
    used = {x for e in known.eqns for x in e.inputs if type(x) is Var}
    eqns = list(known.eqns)
    for v in res:
        if type(v) is not Var or v not in produced or v not in used or dtype_kind(v.aval.dtype) not in "fc":
            continue
        if v.aval.memory_space is not core.DEVICE:  # (an offloaded residual: moved, as JAX leaves it)
            continue
        k = produced[v]
        eqn = eqns[k]
        finfo = np.finfo(v.aval.dtype)
        params = dict(exponent_bits=finfo.nexp, mantissa_bits=finfo.nmant)
        if eqn.primitive is reduce_precision_p and eqn.params == params:
            continue
        pre = Var(v.aval)
        outs = [pre if o is v else o for o in eqn.out_binders]
        eqns[k] = JaxprEqn(eqn.primitive, eqn.inputs, eqn.params, outs, eqn.source_info)
        eqns.insert(k + 1, JaxprEqn(reduce_precision_p, [pre], params, [v], eqn.source_info))
        produced = {w: j for j, e in enumerate(eqns) for w in e.out_binders}
    return Jaxpr(known.constvars, known.in_binders, eqns, known.outs)


def _checkpoint_partial_eval(
    trace: ad.PartialEvalTrace, tracers: Sequence[ad.PartialEvalTracer], *, jaxpr: Jaxpr, **params: Any
) -> list[Any]:
    in_unknowns = [not t.pval.is_known for t in tracers]
    policy = params["policy"]
    known, staged, out_unknowns, num_res, staged_inputs = _memo(
        jaxpr, ("split", tuple(in_unknowns), policy), lambda: _split(jaxpr, in_unknowns, policy)
    )
    # The known part runs here, inline (JAX hoists it out of the remat), the rest is recorded.
    known_vals = [t.pval.const for t, u in zip(tracers, in_unknowns) if not u]
    known_outs_res = eval_jaxpr(known, known_vals)
    n_known = len(known_outs_res) - num_res
    res_tracers = [trace.instantiate_const(trace.full_raise(r)) for r in known_outs_res[n_known:]]
    in_tracers = [trace.instantiate_const(t) for t, s in zip(tracers, staged_inputs) if s]
    outs2 = [ad.PartialEvalTracer(trace, ad.PartialVal.unknown(x.aval), None) for x in staged.outs]
    recipe = ad.JaxprEqnRecipe(
        checkpoint_p,
        [*res_tracers, *in_tracers],
        dict(params, jaxpr=staged, differentiated=True),
        [x.aval for x in staged.outs],
        outs2,
        core.current_source_info(),
    )
    for t in outs2:
        t.recipe = recipe
    it1, it2 = iter(known_outs_res[:n_known]), iter(outs2)
    return [next(it2) if u else next(it1) for u in out_unknowns]


def _split_eqn(
    unks_in: Sequence[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn, list[JaxprEqn] | None, JaxprEqn, list[bool], list[Atom]]:
    """A remat equation split: ``(known part as a remat, the same inlined (or None), unknown part,
    unknowns out, residuals)``."""
    params = {k: v for k, v in eqn.params.items() if k != "jaxpr"}
    known, staged, out_uk, num_res, staged_inputs = _split(eqn.params["jaxpr"], unks_in, params["policy"])
    res = [Var(v.aval) for v in staged.in_binders[:num_res]]
    known_outs = [*[v for v, u in zip(eqn.out_binders, out_uk) if not u], *res]
    known_ins = [x for x, u in zip(eqn.inputs, unks_in) if not u]
    call = JaxprEqn(checkpoint_p, known_ins, dict(params, jaxpr=known), known_outs, eqn.source_info)
    eqn2 = JaxprEqn(
        checkpoint_p,
        [*res, *[x for x, s in zip(eqn.inputs, staged_inputs) if s]],
        dict(params, jaxpr=staged, differentiated=True),
        [v for v, u in zip(eqn.out_binders, out_uk) if u],
        eqn.source_info,
    )
    # The known inputs the staged part reads are residuals of the outer split too.
    known_read = [x for x, s, u in zip(eqn.inputs, staged_inputs, unks_in) if s and not u]
    inlined = ir.inline_jaxpr(known, known_ins, known_outs)
    return call, None if inlined is None else inlined[0], eqn2, out_uk, [*res, *known_read]


def _checkpoint_partial_eval_jaxpr(
    unks_in: Sequence[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn | list[JaxprEqn], JaxprEqn, list[bool], list[Atom]]:
    # Inside a jaxpr being split (grad of a jit around it): the known part is inlined, as JAX's
    # partial evaluation of the jit's body runs it outside the remat.
    call, inlined, eqn2, out_uk, res = _split_eqn(unks_in, eqn)
    return inlined or call, eqn2, out_uk, res


ad.jvp_rules[checkpoint_p] = _checkpoint_jvp
ad.transpose_rules[checkpoint_p] = _checkpoint_transpose
ad.partial_eval_rules[checkpoint_p] = _checkpoint_partial_eval
ad.partial_eval_jaxpr_rules[checkpoint_p] = _checkpoint_partial_eval_jaxpr
batching.batch_rules[checkpoint_p] = _checkpoint_batch


# What reverse mode saves: in its own module (it reads name_p, defined above).
from .saved_residuals import print_saved_residuals, saved_residuals  # noqa: E402, F401
