"""Automatic differentiation: forward mode (JVP) with symbolic zeros, partial evaluation, and
reverse mode as linearize + transpose, so that grad, vjp and jacrev share one mechanism."""

from __future__ import annotations

import itertools
from typing import Any, Callable, Sequence, final

import numpy as np

from . import core
from .core import Params, ShapedArray, Trace, Tracer, Value, float0
from .class_paths import jax_class_path
from .errors import UnexpectedTracerError
from .ir import Atom, Jaxpr, JaxprEqn, Literal, Var, dce_jaxpr, ref_effects, with_fresh_vars
from .narrow_dtypes import kind as dtype_kind

# rule(primals, tangents, **params) -> (primal out, tangent out); lists of them for a primitive
# with multiple results.
jvp_rules: dict[core.Primitive, Callable[..., tuple[Any, Any]]] = {}
# rule(cotangent(s) out, *primals in (UndefPrimal for the linear ones), **params) -> cotangents in.
transpose_rules: dict[core.Primitive, Callable[..., Sequence[Any]]] = {}
# On tracers, during linearize: rule(trace, tracers, **params) -> out tracer(s).
partial_eval_rules: dict[core.Primitive, Callable[..., Value]] = {}
# rule(tracers, **params) -> an input tracer the output is (an identity operation), or None:
# partial evaluation of a linearization forwards it instead of recording an equation (JAX's
# pe.forwarding_rules). Kept apart from partial_eval_rules, which mark a primitive as special.
forwarding_rules: dict[core.Primitive, Callable[..., Value | None]] = {}
# On equations, splitting a jaxpr: rule(unknowns in, eqn) -> (known eqn (or a list of them, inlined),
# unknown eqn (or a list of them), unknowns out, residuals), or None: the equation staged whole.
_Eqns = JaxprEqn | list[JaxprEqn] | None
partial_eval_jaxpr_rules: dict[
    core.Primitive,
    Callable[[list[bool], JaxprEqn], tuple[_Eqns, _Eqns, Sequence[bool], Sequence[Atom]] | None],
] = {}
# On equations, splitting a jaxpr: rule(known eqn) -> (the eqn without the outputs that are just its
# inputs, {dropped output: the input it is}), or None: JAX's JaxprTrace rule for a jit passes such
# outputs on directly (not applied when a remat splits a jaxpr, whose rule keeps them).
known_output_forwarding_rules: dict[core.Primitive, Callable[[JaxprEqn], Any]] = {}
# On equations, splitting a jaxpr: how an all-known equation reads once the known jaxpr is traced
# again (JAX retraces it; a custom_jvp_call's constants then become ordinary operands).
known_eqn_rules: dict[core.Primitive, Callable[[JaxprEqn], JaxprEqn | list[JaxprEqn]]] = {}


# ---------------------------------------------------------------------------------------------
# Symbolic zeros.


@final  # so that the fast ``type(t) is Zero`` narrows for the checker
@jax_class_path("jax._src.ad_util.Zero")
class Zero:
    """A tangent or cotangent known to be zero; rules skip work on it. ``primal``: what it is the
    tangent of, where known (its zeros are laid out as it is, as JAX's tangent types say)."""

    __slots__ = ("aval", "primal")

    def __init__(self, aval: ShapedArray, primal: Value | None = None):
        self.aval = aval
        self.primal = primal

    def __repr__(self) -> str:  # JAX's: Zero(~float32[])
        return f"Zero({self.aval})"


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    if dtype_kind(aval.dtype) in "fc":  # (np.issubdtype is slow, and this is on every bind)
        return aval
    return ShapedArray(aval.shape, float0, False)


# A tangent or cotangent: a value, or a symbolic Zero.
Tangent = Value | Zero


def zeros_like_aval(aval: ShapedArray, like: Value | None = None) -> Value:
    """Zeros of type ``aval``; laid out as ``like`` (the primal they are a tangent of) where its
    staged layout on an explicit mesh says one."""
    from . import lax

    if aval.dtype == float0:  # (staged as JAX does: its scalar literal broadcast; eagerly, host zeros)
        if not aval.shape or core._state.dynamic is None:
            return np.zeros(aval.shape, float0)
        return lax.broadcast_in_dim(np.zeros((), float0), aval.shape, ())
    layout = getattr(aval, "sharding", None)  # (a typed aval's: JAX's zeros_like_aval)
    if layout is None and isinstance(like, Tracer):  # (a scalar's on the mesh: a reshard of 0.0)
        from .sharded_types import staged_layout, typed_layout

        layout = typed_layout(like) if aval.shape else staged_layout(like)
    zeros = lax.full(aval.shape, 0, aval.dtype, weak_type=aval.weak_type, sharding=layout)
    if core.vma_checking[0] and aval.vma:  # (in a checked shard_map: varying as aval is)
        from .lax.varying import pvary_to

        return pvary_to(zeros, aval.vma)
    return zeros


def instantiate_zeros(t: Tangent) -> Value:
    return zeros_like_aval(t.aval, t.primal) if type(t) is Zero else t


def zeros_eqns(aval: ShapedArray, like: Value | None = None) -> tuple[list[JaxprEqn], Atom]:
    """Equations making zeros of ``aval`` (laid out as ``like``) and their atom (a scalar's literal)."""
    from .staging import trace_to_jaxpr

    closed = trace_to_jaxpr(lambda: [zeros_like_aval(aval, like)], [])
    return list(closed.jaxpr.eqns), closed.jaxpr.outs[0]


def instantiate_zeros_where(t: Tangent, tangents: Sequence[Tangent]) -> Value:
    """``t`` instantiated beside ``tangents``: under linearization (the top trace of the tangents is
    a partial evaluation) a zero is made on the unknown side, as JAX's linearize rules (scan's)
    instantiate it in the tangent trace, so it is recomputed there, not saved as a residual."""
    if type(t) is not Zero:
        return t
    trace = core.find_top_trace([x for x in tangents if type(x) is not Zero])
    if isinstance(trace, PartialEvalTrace):
        return trace.stage_zeros(t.aval, t.primal)
    return zeros_like_aval(t.aval, t.primal)


def add_tangents(x: Tangent, y: Tangent) -> Tangent:
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_jaxvals_p.bind(x, y)


# Addition of tangents and cotangents: its own primitive (as in JAX) so that transposes of
# fan-out stay visible and never broadcast.
add_jaxvals_p = core.Primitive("add_any")
add_jaxvals_p.def_impl(lambda x, y: np.add(x, y))
add_jaxvals_p.def_abstract_eval(lambda x, y: x)  # the first operand's type, as JAX (staged sums keep it)


def _add_any_jvp(primals: Sequence[Value], tangents: Sequence[Tangent]) -> tuple[Value, Tangent]:
    # Linear (JAX's linear_jvp): a zero beside a nonzero tangent is instantiated, not skipped, so
    # forward-over-reverse programs (a hessian) stage the same add_any of zeros as JAX's.
    out = add_jaxvals_p.bind(*primals)
    if all(type(t) is Zero for t in tangents):
        return out, Zero(tangent_aval(core.get_aval(out)))
    return out, add_jaxvals_p.bind(*[instantiate_zeros(t) for t in tangents])


jvp_rules[add_jaxvals_p] = _add_any_jvp
transpose_rules[add_jaxvals_p] = lambda ct, x, y: [ct, ct]


# ---------------------------------------------------------------------------------------------
# Forward mode.


class PrimalTracer(Tracer):
    """A tracer that follows a primal value: its aval is the primal's (forward mode, the tape)."""

    __slots__ = ("primal", "_aval")
    primal: Any
    _aval: ShapedArray | None

    @property
    def aval(self) -> ShapedArray:
        aval = self._aval
        if aval is None:  # (once: a Python scalar's aval is a new object each time)
            aval = self._aval = core.get_aval(self.primal)
        return aval

    def concrete_value(self) -> Value | None:
        return core.concrete_or_none(self.primal)


@core.jax_class_path("jax._src.interpreters.ad.JVPTracer")
class JVPTracer(PrimalTracer):
    __slots__ = ("tangent",)

    def __init__(self, trace: JVPTrace, primal: Value, tangent: Tangent):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent
        self._aval = None

    def __repr__(self) -> str:
        tangent = self.tangent
        if type(tangent) is Zero:
            tangent = f"Zero({tangent.aval.str_short()})"
        return f"JVPTracer(primal={self.primal!s}, tangent={tangent!s})"

    def full_lower(self) -> Value:
        if type(self.tangent) is Zero:
            return core.full_lower(self.primal)
        return self


@core.jax_class_path("jax._src.interpreters.ad.LinearizeTracer")
class LinearizeTracer(JVPTracer):
    """A ``JVPTracer`` of ``linearize`` (so of ``grad`` and ``vjp`` when they linearize): its
    tangent is being staged for transposition. JAX's class of that part, and its repr."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"GradTracer(primal={self.primal!s}, typeof(tangent)={tangent_aval(self.aval).str_short()})"


class JVPTrace(Trace):
    tracer_type: type[JVPTracer] = JVPTracer

    def pure(self, val: Value) -> JVPTracer:
        return self.tracer_type(self, val, Zero(tangent_aval(core.get_aval(val)), val))

    lift = pure

    def process_primitive(self, primitive: core.Primitive, tracers: Sequence[Value], params: Params) -> Value:
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        for t in tangents:
            if type(t) is not Zero:
                break
        else:
            out = primitive.bind(*primals, **params)
            if primitive.multiple_results:
                return [self.tracer_type(self, o, Zero(tangent_aval(core.get_aval(o)), o)) for o in out]
            return self.tracer_type(self, out, Zero(tangent_aval(core.get_aval(out)), out))
        rule = jvp_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{primitive}' not implemented")
        if primitive.defined_outside_engine and self.tracer_type is LinearizeTracer:
            from .linearize_user_rule import linearize_from_jvp  # (it builds on this module)

            primal_out, tangent_out = linearize_from_jvp(rule, primitive, primals, tangents, params)
        else:
            fused = _fused_jvp(primitive, primals, tangents, params, self) if core.jitted_body[0] else None
            primal_out, tangent_out = rule(primals, tangents, **params) if fused is None else fused
        if primitive.multiple_results:
            return [self.tracer_type(self, p, t) for p, t in zip(primal_out, tangent_out)]
        return self.tracer_type(self, primal_out, tangent_out)


def _fused_jvp(
    primitive: core.Primitive,
    primals: Sequence[Value],
    tangents: Sequence[Tangent],
    params: Params,
    trace: JVPTrace,
) -> Any:
    """Inside a jnp body: the rule evaluated as XLA compiles it (``engine/fused_rules.py``)."""
    from . import fused_rules  # (it builds on this module)

    linearizing = trace.tracer_type is LinearizeTracer
    return fused_rules.jvp(primitive, primals, tangents, params, linearizing, trace.main.level)


class LinearizeTrace(JVPTrace):
    """``linearize``'s JVP: the tangents are partial-evaluation tracers (``linearize_flat``)."""

    tracer_type = LinearizeTracer


def jvp_flat(
    f: Callable[..., Sequence[Value]],
    primals: Sequence[Value],
    tangents: Sequence[Tangent],
    instantiate: bool = True,
    trace_type: type[JVPTrace] = JVPTrace,
) -> tuple[list[Value], list[Tangent]]:
    with core.new_main(trace_type) as main:
        trace = trace_type(main)
        # (a primal of zero tangent goes in as it is, as JAX's maybe_jvp_tracer: a Python int stays one)
        tracers_in = [
            p if type(t) is Zero else trace.tracer_type(trace, p, t) for p, t in zip(primals, tangents)
        ]
        outs = f(*tracers_in)
        tracers_out = [trace.full_raise(o) for o in outs]
        primals_out = [t.primal for t in tracers_out]
        tangents_out = [t.tangent for t in tracers_out]
    if instantiate:
        tangents_out = [instantiate_zeros(t) for t in tangents_out]
    return primals_out, tangents_out


# ---------------------------------------------------------------------------------------------
# Partial evaluation: run what is known, stage out what depends on unknowns.


class PartialVal:
    __slots__ = ("aval", "const", "is_known")

    def __init__(self, aval: ShapedArray, const: Value | None):
        self.aval, self.const = aval, const
        self.is_known = const is not None

    @classmethod
    def known(cls, val: Value) -> PartialVal:
        return cls(core.get_aval(val), val)

    @classmethod
    def unknown(cls, aval: ShapedArray) -> PartialVal:
        return cls(aval, None)


_recipe_serial = itertools.count()


class LambdaBindingRecipe:
    __slots__ = ()


class ConstRecipe:
    __slots__ = ("val", "serial")

    def __init__(self, val: Value):
        self.val = val
        self.serial = next(_recipe_serial)  # (linearize orders its residuals by first use: JAX's)


class LiteralRecipe:
    __slots__ = ("literal",)

    def __init__(self, literal: Literal):
        self.literal = literal


class JaxprEqnRecipe:
    __slots__ = ("prim", "tracers_in", "params", "avals_out", "tracers_out", "source_info", "serial")

    def __init__(
        self,
        prim: core.Primitive,
        tracers_in: list[PartialEvalTracer],
        params: Params,
        avals_out: list[ShapedArray],
        tracers_out: list[PartialEvalTracer],
        source_info: core.SourceInfo | None,
    ):
        self.prim, self.tracers_in, self.params = prim, tracers_in, params
        self.avals_out, self.tracers_out, self.source_info = avals_out, tracers_out, source_info
        # Equations are emitted in the order they were recorded (as JAX's jaxpr trace appends
        # them), which fixes the order the transpose walks them and so where cotangents meet.
        self.serial = next(_recipe_serial)


# How an unknown partial-evaluation tracer came to be: an input, a constant, an equation.
Recipe = LambdaBindingRecipe | ConstRecipe | LiteralRecipe | JaxprEqnRecipe | None


@core.jax_class_path("jax._src.interpreters.partial_eval.JaxprTracer")
class PartialEvalTracer(Tracer):
    __slots__ = ("pval", "recipe")

    def __init__(self, trace: PartialEvalTrace, pval: PartialVal, recipe: Recipe):
        self._trace = trace
        self.pval = pval
        self.recipe = recipe

    @property
    def aval(self) -> ShapedArray:
        return self.pval.aval

    def concrete_value(self) -> Value | None:
        return core.concrete_or_none(self.pval.const) if self.pval.is_known else None

    def __repr__(self) -> str:
        # A known value (a primal under grad) prints as that value, as JAX's GradTracer shows it.
        return str(self.pval.const) if self.pval.is_known else f"Traced<{self.aval}:JaxprTrace>"

    def full_lower(self) -> Value:
        if self.pval.is_known:
            return core.full_lower(self.pval.const)
        return self


def _literalable(val: Value) -> bool:
    """A known value the staged program holds as a literal, not a constant (a residual): JAX
    0.10.2's ``is_literalable`` for AD, Python and numpy scalars and 0-d numpy arrays (a jax.Array
    never: the engine's Arrays standing for a Python scalar a lax op took, ``python_value``, are
    those scalars)."""
    t = type(val)
    if t in (int, float, complex, bool):
        return True
    if t is core.Array:
        return getattr(val, "python_value", None) is not None
    return isinstance(val, (np.ndarray, np.generic)) and np.ndim(val) == 0


def _unheld(val: Value) -> Value:
    """A literal's value: an Array standing for a Python scalar, made when nothing was staged, is
    still that scalar for a trace that reads the literal (``held_arrays``), not a constant."""
    if type(val) is core.Array and val.held:
        lit = core.Array(val._value, val.weak_type)
        lit.python_value = val.python_value  # type: ignore[attr-defined]  # (a slot set only on such)
        lit.held = False
        return lit
    return val


class PartialEvalTrace(Trace):
    def new_arg(self, pval: PartialVal) -> PartialEvalTracer:
        return PartialEvalTracer(self, pval, LambdaBindingRecipe())

    def pure(self, val: Value) -> PartialEvalTracer:
        return PartialEvalTracer(self, PartialVal.known(val), None)

    lift = pure

    def instantiate_const(self, tracer: PartialEvalTracer) -> PartialEvalTracer:
        if tracer.pval.is_known:
            val = tracer.pval.const
            aval = core.get_aval(val)
            if _literalable(val):
                return PartialEvalTracer(
                    self, PartialVal.unknown(aval), LiteralRecipe(Literal(_unheld(val), aval))
                )
            return PartialEvalTracer(self, PartialVal.unknown(aval), ConstRecipe(val))
        return tracer

    def stage_zeros(self, aval: ShapedArray, like: Value | None = None) -> PartialEvalTracer:
        """Zeros of ``aval`` (laid out as ``like``), unknown: their equations staged, not evaluated."""
        eqns, out = zeros_eqns(aval, like)
        env: dict[Var, PartialEvalTracer] = {}

        def read(x: Atom) -> PartialEvalTracer:
            if type(x) is Literal:
                return PartialEvalTracer(self, PartialVal.unknown(x.aval), LiteralRecipe(x))
            return env[x]

        for eqn in eqns:
            ins = [read(x) for x in eqn.inputs]
            avals = [v.aval for v in eqn.out_binders]
            outs = [PartialEvalTracer(self, PartialVal.unknown(a), None) for a in avals]
            recipe = JaxprEqnRecipe(eqn.primitive, ins, eqn.params, avals, outs, core.staging_source_info())
            for v, t in zip(eqn.out_binders, outs):
                t.recipe = recipe
                env[v] = t
        return read(out)

    def process_primitive(self, primitive: core.Primitive, tracers: Sequence[Value], params: Params) -> Value:
        for t in tracers:
            if not t.pval.is_known:
                break
        else:
            return primitive.bind(*[t.pval.const for t in tracers], **params)
        rule = partial_eval_rules.get(primitive)
        if rule is not None:
            return rule(self, tracers, **params)
        forward = forwarding_rules.get(primitive)
        if forward is not None and self.forwards_identities:
            same = forward(tracers, **params)
            if same is not None:
                return self.instantiate_const(same)
        return self.default_process_primitive(primitive, tracers, params)

    @property
    def forwards_identities(self) -> bool:
        """Whether an identity operation (a broadcast to its own shape) is its operand here, as
        JAX's jaxpr traces forward it; ``linear_transpose`` traces with JAX's older partial
        evaluation, which records it (so its transpose shows a ``reduce_sum`` over no axes)."""
        return bool(self.main.global_data != "records_identities")

    def default_process_primitive(
        self, primitive: core.Primitive, tracers: Sequence[Value], params: Params
    ) -> Value:
        tracers_in = [self.instantiate_const(t) for t in tracers]
        avals_in = [t.aval for t in tracers_in]
        avals_out = primitive.abstract_eval(*avals_in, **params)
        outs = avals_out if primitive.multiple_results else [avals_out]
        tracers_out = [PartialEvalTracer(self, PartialVal.unknown(a), None) for a in outs]
        recipe = JaxprEqnRecipe(primitive, tracers_in, params, outs, tracers_out, core.staging_source_info())
        for t in tracers_out:
            t.recipe = recipe
        self.keep_effects(recipe)
        return tracers_out if primitive.multiple_results else tracers_out[0]

    def keep_effects(self, recipe: JaxprEqnRecipe) -> None:
        """Keep a staged equation with state effects though nothing reads its outputs: a write
        into a tangent ref, a call or loop given one (its body writes it)."""
        from .state.types import AbstractRef

        if recipe.prim in ref_effects or any(isinstance(t.aval, AbstractRef) for t in recipe.tracers_in):
            self.main.effects.append(recipe)


def partial_eval_flat(
    f: Callable[..., Sequence[Value]], pvals_in: list[PartialVal]
) -> tuple[Jaxpr, list[PartialVal], list[Value]]:
    with core.new_main(PartialEvalTrace, "records_identities") as main:
        trace = PartialEvalTrace(main)
        tracers_in = [trace.new_arg(pval) for pval in pvals_in]
        outs = f(*tracers_in)
        tracers_out = [trace.full_raise(o) for o in outs]
        pvals_out = [t.pval for t in tracers_out]
        unk_tracers_in = [t for t in tracers_in if t.pval.const is None]
        unk_tracers_out = [t for t in tracers_out if t.pval.const is None]
        jaxpr, consts = tracers_to_jaxpr(unk_tracers_in, unk_tracers_out)
    return jaxpr, pvals_out, consts


def tracers_to_jaxpr(
    tracers_in: Sequence[PartialEvalTracer],
    tracers_out: Sequence[PartialEvalTracer],
    effects: Sequence[JaxprEqnRecipe] = (),
    consts_by_first_use: bool = False,
) -> tuple[Jaxpr, list[Value]]:
    """The jaxpr of the recipes ``tracers_out`` need, and of the ``effects`` (kept unread).
    Its constants come in the order the outputs reach them, as JAX's older partial evaluation
    orders them, or with ``consts_by_first_use`` in the order the trace first used each (JAX's
    linearize: its tangent trace makes a constvar at a value's first use), so that ``jax.vjp``'s
    residuals come in JAX's order."""
    binders = [Var(t.aval) for t in tracers_in]
    tracer_to_var: dict[int, Atom] = {id(t): v for t, v in zip(tracers_in, binders)}
    constvar_to_val: dict[int, tuple[Var, Any]] = {}
    first_use: dict[int, int] = {}
    recipes: dict[int, JaxprEqnRecipe] = {id(r): r for r in effects}
    roots = [*tracers_out, *(t for r in effects for t in r.tracers_in)]
    for t in _toposort(roots):  # what the outputs need (dead recipes are dropped)
        r = t.recipe
        if isinstance(r, LambdaBindingRecipe):
            assert id(t) in tracer_to_var, "unexpected input tracer"
        elif isinstance(r, ConstRecipe):
            key = id(r.val)
            if key not in constvar_to_val:
                constvar_to_val[key] = (Var(t.aval), r.val)
            # (the first use the outputs need: an earlier one in dead code is not seen)
            first_use[key] = min(first_use.get(key, r.serial), r.serial)
            tracer_to_var[id(t)] = constvar_to_val[key][0]
        elif isinstance(r, LiteralRecipe):
            tracer_to_var[id(t)] = r.literal
        elif isinstance(r, JaxprEqnRecipe):
            recipes[id(r)] = r
        else:
            raise TypeError(r)
    eqns = []
    for r in sorted(recipes.values(), key=lambda r: r.serial):  # in recording order
        ins: list[Atom] = [tracer_to_var[id(x)] for x in r.tracers_in]
        outs = [Var(a) for a in r.avals_out]
        for x, v in zip(r.tracers_out, outs):
            tracer_to_var[id(x)] = v
        eqns.append(JaxprEqn(r.prim, ins, r.params, outs, r.source_info))
    consts = list(constvar_to_val.values())
    if consts_by_first_use:
        consts.sort(key=lambda vc: first_use[id(vc[1])])
    constvars = [v for v, _ in consts]
    constvals = [c for _, c in consts]
    in_binders = constvars + binders
    out_vars: list[Atom] = [tracer_to_var[id(t)] for t in tracers_out]
    return Jaxpr([], in_binders, eqns, out_vars), constvals


def _parents(t: PartialEvalTracer) -> list[PartialEvalTracer]:
    r = t.recipe
    return r.tracers_in if isinstance(r, JaxprEqnRecipe) else []


def _toposort(out_nodes: Sequence[PartialEvalTracer]) -> list[PartialEvalTracer]:
    # Iterative DFS post-order (deep programs would overflow Python's recursion limit).
    order: list[PartialEvalTracer] = []
    seen: set[int] = set()
    for root in out_nodes:
        if id(root) in seen:
            continue
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            for p in reversed(_parents(node)):
                if id(p) not in seen:
                    stack.append((p, False))
    return order


def partial_eval_jaxpr(
    jaxpr: Jaxpr,
    in_unknowns: Sequence[bool],
    instantiate: Sequence[bool] | None = None,
    op_literal_residuals: bool = False,
) -> tuple[Jaxpr, Jaxpr, list[bool], int]:
    """Split a jaxpr into a known part (which also returns residuals) and an unknown part.

    ``jaxpr1: known_ins -> known_outs + residuals``; ``jaxpr2: residuals + unknown_ins -> unknown_outs``.
    Constvars count as known inputs of jaxpr1. ``op_literal_residuals``: literals that JAX would
    hold in tracers (``Array.op_result``, e.g. an instantiated zero tangent) and that unknown
    equations read become residuals too, returned as literals by jaxpr1, as JAX's linearization
    of a jit (which traces) makes them.
    """
    env: dict[Var, bool] = {}
    residuals: dict[Var, None] = {}
    literal_residuals: dict[int, tuple[Var, Literal]] = {}

    def read(x: Atom) -> bool:
        return type(x) is Var and env[x]

    def new_res(x: Atom) -> Atom:
        if type(x) is not Literal:
            residuals[x] = None
        elif op_literal_residuals and getattr(x.val, "op_result", False):
            v, _ = literal_residuals.setdefault(id(x.val), (Var(x.aval), x))
            residuals[v] = None
            return v
        return x

    for v in jaxpr.constvars:
        env[v] = False
    for v, unk in zip(jaxpr.in_binders, in_unknowns):
        env[v] = unk
    made_unknown = _refs_made_unknown(jaxpr, in_unknowns)
    eqns1, eqns2 = [], []
    alias: dict[Var, Atom] = {}  # known outputs forwarded from known inputs

    def renamed(xs: Sequence[Atom]) -> list[Atom]:
        return [alias.get(x, x) if type(x) is Var else x for x in xs]

    for eqn in jaxpr.eqns:
        if alias:
            eqn = eqn._replace(inputs=renamed(eqn.inputs))
        unks_in = [read(x) for x in eqn.inputs]
        rule = partial_eval_jaxpr_rules.get(eqn.primitive)
        split = rule(unks_in, eqn) if rule is not None and any(unks_in) else None  # (None: staged whole)
        if split is not None:
            eqn1, eqn2, unks_out, eqn_res = split
            forward = known_output_forwarding_rules.get(eqn.primitive)
            forwarded = forward(eqn1) if forward is not None and isinstance(eqn1, JaxprEqn) else None
            if forwarded is not None:
                eqn1, dropped = forwarded
                alias.update(dropped)
                eqn_res = renamed(eqn_res)
                if isinstance(eqn2, JaxprEqn):
                    eqn2 = eqn2._replace(inputs=renamed(eqn2.inputs))
            if isinstance(eqn1, list):  # a known part inlined (as JAX hoists a remat's)
                eqns1.extend(eqn1)
            elif eqn1 is not None:
                eqns1.append(eqn1)
            if isinstance(eqn2, list):  # equations the unknown part recomputes, then it
                eqns2.extend(eqn2)
            elif eqn2 is not None:
                eqns2.append(eqn2)
            for r in eqn_res:
                new_res(r)
            for v, u in zip(eqn.out_binders, unks_out):
                env[v] = u
        elif any(unks_in) or (made_unknown and any(v in made_unknown for v in eqn.out_binders)):
            ins = [x if unk else new_res(x) for x, unk in zip(eqn.inputs, unks_in)]
            eqns2.append(JaxprEqn(eqn.primitive, ins, eqn.params, eqn.out_binders, eqn.source_info))
            for v in eqn.out_binders:
                env[v] = True
        else:
            known_rule = known_eqn_rules.get(eqn.primitive)
            known = eqn if known_rule is None else known_rule(eqn)
            eqns1.extend(known) if isinstance(known, list) else eqns1.append(known)
            for v in eqn.out_binders:
                env[v] = False
    jaxpr_outs = renamed(jaxpr.outs) if alias else jaxpr.outs
    out_unknowns = [read(x) for x in jaxpr_outs]
    if instantiate is not None:
        # (an instantiated output that is a traced literal is the residual it became, as JAX's
        # linearized jaxpr returns the constant its tangent trace captured)
        jaxpr_outs = [
            new_res(x) if inst and not uk else x for x, uk, inst in zip(jaxpr_outs, out_unknowns, instantiate)
        ]
        out_unknowns = [a or b for a, b in zip(out_unknowns, instantiate)]
    # A residual that is an output-literal or known input is fine; ordering is deterministic.
    res = list(residuals)
    ins1 = [v for v, u in zip(jaxpr.in_binders, in_unknowns) if not u]
    ins2 = [v for v, u in zip(jaxpr.in_binders, in_unknowns) if u]
    outs1 = [x for x, u in zip(jaxpr_outs, out_unknowns) if not u]
    outs2 = [x for x, u in zip(jaxpr_outs, out_unknowns) if u]
    returned = {id(v): lit for v, lit in literal_residuals.values()}
    jaxpr1 = Jaxpr(jaxpr.constvars, ins1, eqns1, outs1 + [returned.get(id(r), r) for r in res])
    # The unknown part gets Vars of its own (the residuals become its binders): the two parts are
    # independent jaxprs, each binding a Var once, as JAX's, which traces each part anew, are.
    jaxpr2 = with_fresh_vars(Jaxpr([], res + ins2, eqns2, outs2))
    return jaxpr1, jaxpr2, out_unknowns, len(res)


def _refs_made_unknown(jaxpr: Jaxpr, in_unknowns: Sequence[bool]) -> set[Var]:
    """The refs ``jaxpr`` makes of known values (a tangent ref of zeros, an ``empty_ref``) that
    unknown equations read or write, and the constants they are made of: a ref is never a
    residual, so these are made on the unknown side (as JAX's linearization stages a tangent ref,
    and the zeros it holds, in the tangent program)."""
    from .backward_pass import accumulators  # (the types of refs)

    if not accumulators or not ref_effects:
        return set()
    makers = {v: e for e in jaxpr.eqns for v in e.out_binders}
    forced: set[Var] = set()
    while True:
        unknown = {v for v, u in zip(jaxpr.in_binders, in_unknowns) if u}
        new: set[Var] = set()
        for e in jaxpr.eqns:
            is_forced = any(v in forced for v in e.out_binders)
            if is_forced or any(type(x) is Var and x in unknown for x in e.inputs):
                unknown.update(e.out_binders)
                for x in e.inputs:
                    if type(x) is not Var or x in unknown or x not in makers:
                        continue
                    if type(x.aval) in accumulators:  # a known ref an unknown equation uses
                        new.add(x)
                    elif is_forced and not any(type(y) is Var for y in makers[x].inputs):
                        new.add(x)  # (a constant it is made of)
        if new <= forced:
            return forced
        forced |= new


# ---------------------------------------------------------------------------------------------
# Linearize, and reverse mode by transposition.


# A linearization: (linear jaxpr, its residual consts, the tangent outputs' partial values,
# which inputs are differentiable, the tangent input avals).
Linearized = tuple[Jaxpr, list[Value], list[PartialVal], list[bool], list[ShapedArray]]


def linearize_flat(
    f: Callable[..., Sequence[Value]], primals: Sequence[Value], n_main: Callable[[], int] | None = None
) -> tuple[list[Value], Linearized]:
    """Returns ``(primals_out, linear_jaxpr, residual_consts, tangent_out_avals)``.

    Direct linearize: the JVP runs on the primals as they are (concrete values eagerly, or an
    outer transformation's tracers) and only the tangents are partial-evaluation tracers, so
    each primal operation is bound once, straight to whatever computes it, and each tangent
    operation is recorded as a linear equation as the forward pass goes (no known-value tracers).
    ``n_main`` (asked once ``f`` has run): how many outputs are differentiated; the rest are
    ``has_aux`` outputs, whose tangents JAX does not linearize (so nor keeps residuals for).
    """
    tangent_avals = [tangent_aval(core.get_aval(p)) for p in primals]
    differentiable = [a.dtype != float0 for a in tangent_avals]
    with core.new_main(PartialEvalTrace) as main:
        trace = PartialEvalTrace(main)
        tracers_in = [
            trace.new_arg(PartialVal.unknown(a)) for a, d in zip(tangent_avals, differentiable) if d
        ]
        it = iter(tracers_in)
        ts = [next(it) if d else Zero(a) for a, d in zip(tangent_avals, differentiable)]
        primals_out, tangents_out = jvp_flat(f, primals, ts, instantiate=False, trace_type=LinearizeTrace)
        k = n_main() if n_main is not None else len(primals_out)
        primals_out = [_known_primal(trace, p) for p in primals_out]
        # (a symbolic zero tangent: known, staged nowhere, as JAX's tangent-trace zeros are)
        tracers_out = [t if type(t) is Zero else trace.full_raise(t) for t in tangents_out[:k]]
        tangent_pvals = [PartialVal.known(_zeros(t.aval)) if type(t) is Zero else t.pval for t in tracers_out]
        unk_tracers_out = [t for t in tracers_out if type(t) is not Zero and t.pval.const is None]
        jaxpr, consts = tracers_to_jaxpr(tracers_in, unk_tracers_out, main.effects, True)
    # (the aux outputs' tangents too: JAX stages none for them)
    tangent_pvals += [PartialVal.known(_zeros(tangent_aval(core.get_aval(p)))) for p in primals_out[k:]]
    # Tangent work no output reads is dead, as in JAX's auto-DCE'd tangent trace (a scan's unused
    # tangent ys go, so its transpose reads no zero cotangent for them).
    jaxpr = dce_jaxpr(jaxpr)
    # Tangent outputs that partial eval found known (zeros) become constants of the linear jaxpr.
    return primals_out, (jaxpr, consts, tangent_pvals, differentiable, tangent_avals)


def _zeros(aval: ShapedArray) -> Value:
    dtype = aval.dtype if isinstance(aval.dtype, np.dtype) else float0  # (a key's tangent is float0)
    return core.Array(np.broadcast_to(np.zeros((), dtype), aval.shape), aval.weak_type)  # (no copies)


def _known_primal(trace: PartialEvalTrace, p: Value) -> Value:
    if isinstance(p, PartialEvalTracer) and p._trace.main is trace.main:
        if not p.pval.is_known:
            raise UnexpectedTracerError("primal output depends on tangents; engine bug")
        return p.pval.const
    return p


@final  # so that the fast ``type(x) is UndefPrimal`` narrows for the checker
class UndefPrimal:
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval})"  # JAX's name and aval text


# set once an undefined primal was typed by its layout on an explicit mesh (parallel.explicit_types)
typed_undefined = [False]


def is_undefined(x: object) -> bool:
    return type(x) is UndefPrimal


from .ad_rule_rows import (  # noqa: E402  (the helpers that write rows of the tables above)
    defjvp as defjvp,
    defjvp2 as defjvp2,
    deflinear as deflinear,
    defzero as defzero,
    linearize_refused as linearize_refused,
)
from .backward_pass import backward_pass as backward_pass, call_transpose as call_transpose  # noqa: E402
from .backward_pass import transposing as transposing  # noqa: E402

# (last: reverse mode and the eager tape it uses build on this module)
from .pullback import VJP as VJP, Pullback as Pullback, linear_transpose_flat as linear_transpose_flat  # noqa: E402
from .pullback import linearize_vjp_flat as linearize_vjp_flat, vjp_flat as vjp_flat  # noqa: E402
from .vjp_function import DidntWant, DontWant, GradRef, GradValue  # noqa: E402,F401  (jax.ad's)
