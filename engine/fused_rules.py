"""Differentiation inside the functions JAX jits: each rule's equations rounded as XLA compiles them.

Nearly every jnp function is a ``jax.jit`` in JAX (``jnp.tanh``, ``x * y``, ``jax.nn.relu``...),
and a transformation of a jit transforms its body as one program. So eagerly
``jax.jvp(jnp.tanh, (x,), (g,))`` runs tanh's JVP rule, ``(g + g*ans) * (1 - ans)``, as one
compiled kernel, where LLVM fuses ``g + g*ans`` into a multiply-add, while
``jax.jvp(lax.tanh, ...)`` runs each operation on its own and rounds twice: 42% of float32
tangents differ in the last bit between the two (JAX 0.10.2). ``grad`` likewise computes the
residuals and the cotangents of a jnp function in compiled programs (``jnp.arctan``'s
``1 + x*x``).

The engine runs jnp functions directly, for eager speed. While their operands are traced they
mark their body (``call``), and there the JVP trace and the eager tape evaluate each primitive's
rule in its ``compiled`` form: XLA's simplifications and fused multiply-adds, traced once per
signature. Rules with nothing to fuse run as they are. Each rule is compiled on its own, where
XLA compiles a multi-operation jnp function's rules together; the functions the engine stages as
jits (``numpy/_staged.py``: ``jax.nn.log_softmax``...) are instead called as jits when traced, so
their rules are compiled together; the ufuncs' single operations are compiled here.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import ad, algebraic_simplifier, core
from .batching import BatchTrace
from .tape import TapeTrace
from .ir import ClosedJaxpr, Jaxpr, Literal, dce_jaxpr, has_ref_effects, subjaxprs

# How many jnp bodies the current operations are inside, in this process (a plain cell: the JVP
# trace reads it on every operation). Only eager work reads it: staged programs are compiled whole.
inside = core.jitted_body
jet_active = [0]  # open jax.experimental.jet traces, in this process


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` as the body of a function JAX jits."""
    if jet_active[0] and not kwargs:  # (Taylor series through a jitted body: as XLA compiles it)
        from .experimental.jet import jitted_body_call

        out = jitted_body_call(fn, args)
        if out is not None:
            return out
    inside[0] += 1
    try:
        return fn(*args, **kwargs)
    finally:
        inside[0] -= 1


def _fused_primitives() -> tuple:
    from .backends.multiply_add import fma_chain_sum_p, fma_p, fma_sum_p
    from .backends.gathered_sums import gathered_sum_p
    from .backends.ynn_fusion import ynn_unary_p

    return (fma_p, fma_sum_p, fma_chain_sum_p, ynn_unary_p, gathered_sum_p)


def compiled(closed: ClosedJaxpr, rule: bool = False, body: bool = False) -> ClosedJaxpr:
    """``closed`` as XLA's CPU compiler runs it: simplified, unused work dropped, nested calls
    inlined and the multiply-adds LLVM contracts fused (the same object when nothing changes).
    ``rule``: a differentiation rule's program (see ``_compile``); ``body``: a loop's or a
    branch's body (``multiply_add.contract``)."""
    return _compile(closed, rule, body=body)[0]


def _compile(
    closed: ClosedJaxpr, rule: bool = False, simplify: bool = True, body: bool = False
) -> tuple[ClosedJaxpr, bool]:
    """``compiled(closed)`` (without XLA's simplifications unless ``simplify``), and whether a
    rewrite (beyond dropping unused work and inlining calls) applied. A ``rule``'s program keeps
    its sums of products as they are (no fused sum has derivative rules). Programs with refs are left
    as they are but for unused work; in programs with loops or branches the equations around them
    are contracted, the bodies not (each is its own computation: ``multiply_add.contract``)."""
    from .backends.flat_program import FlatProgram

    simplified = algebraic_simplifier.simplify(closed) if simplify else closed
    jaxpr = simplified.jaxpr
    if has_ref_effects(jaxpr):
        dced = dce_jaxpr(jaxpr)
        if len(dced.eqns) == len(jaxpr.eqns):
            return simplified, simplified is not closed
        return ClosedJaxpr(dced, simplified.consts), simplified is not closed
    flat = FlatProgram(simplified, sums=not rule, body=body)  # (nested jits inlined, then contracted)
    fused = flat.folded or any(e.primitive in _fused_primitives() for e in flat.eqns)
    if (
        not fused
        and len(flat.eqns) == len(jaxpr.eqns)
        and all(next(subjaxprs(e), None) is None for e in jaxpr.eqns)
    ):
        return simplified, simplified is not closed
    flat_jaxpr = dce_jaxpr(Jaxpr(list(flat.consts), flat.inputs, flat.eqns, flat.outs))
    return ClosedJaxpr(flat_jaxpr, list(flat.consts.values())), fused or simplified is not closed


def _evaluate(closed: ClosedJaxpr, args: Sequence[Any]) -> list[Any]:
    """Bind each equation as the rule would have: the caller's source line and transfer checks
    stay in force (``eval_jaxpr`` would run it as a program, under the traced line)."""
    jaxpr = closed.jaxpr
    env: dict = dict(zip(jaxpr.constvars, closed.consts))
    env.update(zip(jaxpr.in_binders, args))
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(
            *[x.val if type(x) is Literal else env[x] for x in eqn.inputs], **eqn.params
        )
        env.update(zip(eqn.out_binders, outs if eqn.primitive.multiple_results else [outs]))
    return [x.val if type(x) is Literal else env[x] for x in jaxpr.outs]


# Traces whose tracers a compiled rule may meet: its fused multiply-adds have batching and JVP
# rules, and a transpose rule for what is linear (in the addend and one factor).
_EVALUATING = (core.EvalTrace, BatchTrace, ad.JVPTrace, TapeTrace)


def _is_program(v: Any) -> bool:
    return isinstance(v, (ClosedJaxpr, Jaxpr)) or (isinstance(v, tuple) and any(_is_program(w) for w in v))


def applies(linearizing: bool, level: int | None = None) -> str | None:
    """How this thread evaluates rules: None (as they are: outside a jnp body, while staging, or
    under a trace a compiled rule cannot meet), "compiled", or, when another differentiation will
    transform the values, "call" for a JVP rule: bound as the call JAX's jnp function is, a
    ``jit(inline=True)`` of the rule's JVP, which the outer transformations transform as JAX's
    rules transform that jit (``jvp(jvp(f))`` runs as one compiled program; linearize compiles its
    known part and inlines its linear part, ``tape._inline_call``); "contracted" for linearize's
    own rule there: only its multiply-adds are fused (their derivative is the product's and the
    sum's), not XLA's simplifications. ``linearizing``:
    linearize's own traces are open; its known part is compiled, while its linear part is inlined
    into the transposition, as JAX inlines a jnp function's. ``level``: the trace evaluating the
    rule. The traces above it do not see its values: they are an inner transformation's rule
    being evaluated (``jacfwd(jacrev(f))``: linearize's known part, which JAX runs as a jit that
    jacfwd's JVP transforms and XLA compiles whole)."""
    state = core._state
    if state.dynamic is not None:
        return None
    differentiating = 0
    linearize_below = False
    for main in state.stack if level is None else state.stack[: level + 1]:
        t = main.trace_type
        if t is ad.PartialEvalTrace:
            if linearizing:
                continue
            linearize_below = True
        elif not issubclass(t, _EVALUATING):
            return None
        differentiating += issubclass(t, (ad.JVPTrace, TapeTrace))
    if differentiating > 1:
        return "contracted" if linearizing else "call"
    return None if linearize_below else "compiled"


_jvps: dict = {}  # signature -> _Compiled or None (nothing to fuse)
_CACHE_MAX = 4096


class _Compiled:
    """A rule's JVP as a program: ``fwd`` (primals -> primal outputs, the tangent outputs it knows,
    residuals) compiled, then ``lin`` (residuals, tangents -> the other tangent outputs) as it is.
    Without linearizing, all of it is ``fwd`` and ``lin`` is None."""

    __slots__ = ("fwd", "lin", "num_outs", "tangent_outs", "unknown")

    def __init__(self, fwd, lin, num_outs, tangent_outs, unknown):
        self.fwd, self.lin, self.num_outs = fwd, lin, num_outs
        self.tangent_outs = tangent_outs  # which output tangents are not symbolic zeros
        self.unknown = unknown  # of those, which ``lin`` computes


def jvp(
    primitive: core.Primitive,
    primals: Sequence[Any],
    tangents: Sequence[Any],
    params: dict,
    linearizing: bool,
    level: int,
) -> tuple[Any, Any] | None:
    """``primitive``'s JVP on these values, evaluated compiled: (primal out, tangent out), or None
    when the rule has nothing to fuse (or this signature cannot be cached): run it as it is.
    ``level``: the JVP trace's (``applies``)."""
    # (a rule with programs inside, cond's or a loop's, only as before: all open traces may see it;
    # evaluated under an outer vmap its compiled form met batching rules it cannot take)
    if primitive.name == "jit":  # (a call: its own rules transform its body whole, as JAX's)
        return None
    nested = any(_is_program(v) for v in params.values())
    mode = applies(linearizing, None if nested else level)
    if mode is None:
        return None
    nonzero = tuple(type(t) is not ad.Zero for t in tangents)
    try:
        avals = [core.get_aval(p) for p in primals]
        key = (
            primitive,
            tuple(params.items()),
            tuple((a.shape, a.dtype, a.weak_type) for a in avals),
            tuple(
                (a.shape, a.dtype, a.weak_type) if nz else None
                for a, nz in zip(map(_aval, tangents), nonzero)
            ),
            linearizing,
            mode,
        )
        found = _jvps.get(key, False)
    except TypeError:  # unhashable params
        return None
    if found is False:
        found = _jvps[key] = _compiled_jvp(primitive, params, avals, tangents, nonzero, linearizing, mode)
        if len(_jvps) > _CACHE_MAX:
            _jvps.clear()
    if found is None:
        return None
    ts = [t for t in tangents if type(t) is not ad.Zero]
    if type(found) is _AsCall:
        from .jit_primitive import call_params, jit_p

        closed = found.closed
        params = call_params(len(closed.in_avals), len(closed.out_avals), inline=True)
        outs = jit_p.bind(*primals, *ts, jaxpr=closed, name=primitive.name, **params)
        return _with_tangents(primitive, found, outs[: found.num_outs], outs[found.num_outs :])
    m = found.num_outs
    if found.lin is None:
        outs = _evaluate(found.fwd, [*primals, *ts])
        known = iter(outs[m:])
    else:
        outs = _evaluate(found.fwd, primals)
        n_known = len(found.unknown) - sum(found.unknown)
        known = iter(outs[m : m + n_known])
        unknown = iter(_evaluate(found.lin, [*outs[m + n_known :], *ts]))
    computed = [next(unknown) if u else next(known) for u in found.unknown]
    return _with_tangents(primitive, found, outs[:m], computed)


def _with_tangents(primitive, found, primal_outs, nonzero):
    """The rule's result: its primal outputs, and their tangents (symbolic zeros where the rule has
    none, the values of ``nonzero`` in turn elsewhere)."""
    it = iter(nonzero)
    touts = [
        next(it) if nz else ad.Zero(ad.tangent_aval(core.get_aval(o)))
        for o, nz in zip(primal_outs, found.tangent_outs)
    ]
    if primitive.multiple_results:
        return list(primal_outs), touts
    return primal_outs[0], touts[0]


class _AsCall:
    """A JVP rule to bind as a call (``applies``'s "call"): its program as traced."""

    __slots__ = ("closed", "num_outs", "tangent_outs")

    def __init__(self, closed, num_outs, tangent_outs):
        self.closed, self.num_outs, self.tangent_outs = closed, num_outs, tangent_outs


def _aval(t: Any) -> Any:
    return t.aval if type(t) is ad.Zero else core.get_aval(t)


def _compiled_jvp(primitive, params, avals, tangents, nonzero, linearizing, mode) -> _Compiled | None:
    from .staging import trace_to_jaxpr

    if primitive.defined_outside_engine or ad.jvp_rules.get(primitive) is None:
        return None
    n = len(avals)
    out_nonzero: list[bool] = []

    def f(*args: Any) -> list[Any]:
        it = iter(args[n:])
        ts = [next(it) if nz else t for t, nz in zip(tangents, nonzero)]

        def g(*xs: Any) -> list[Any]:
            out = primitive.bind(*xs, **params)
            return list(out) if primitive.multiple_results else [out]

        outs, touts = ad.jvp_flat(g, args[:n], ts, instantiate=False)
        out_nonzero[:] = [type(t) is not ad.Zero for t in touts]
        return [*outs, *[t for t in touts if type(t) is not ad.Zero]]

    t_avals = [_aval(t) for t, nz in zip(tangents, nonzero) if nz]
    try:
        closed = trace_to_jaxpr(f, [*avals, *t_avals])
    except Exception:  # noqa: BLE001 - a rule that needs concrete values runs as it is
        return None
    m = len(closed.jaxpr.outs) - sum(out_nonzero)
    if mode == "call":
        return _AsCall(closed, m, list(out_nonzero))
    if not linearizing:
        fused, rewritten = _compile(closed, True, mode == "compiled")
        return _Compiled(fused, None, m, out_nonzero, [False] * sum(out_nonzero)) if rewritten else None
    j1, j2, out_unknowns, num_res = ad.partial_eval_jaxpr(closed.jaxpr, [False] * n + [True] * len(t_avals))
    if any(out_unknowns[:m]):
        return None  # (a primal output that depends on tangents: the general rule says why)
    fwd, rewritten = _compile(ClosedJaxpr(j1, closed.consts), True, mode == "compiled")
    if not rewritten:
        return None
    lin = ClosedJaxpr(j2, [])
    return _Compiled(fwd, lin, m, out_nonzero, list(out_unknowns[m:]))
