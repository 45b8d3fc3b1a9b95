"""Transposition of a linear jaxpr (the backward pass of reverse mode).

Equations on residuals only are evaluated forward; the others, linear in the undefined inputs,
are transposed in reverse by ``ad.transpose_rules``, cotangents of values summed as they meet.

A linear program may make refs (a tangent ref of ``new_ref`` under ``grad``): a ref's cotangent is
not a value but an accumulator (``accumulators``, by the type of the ref's aval), which the rules of
the equations reading and writing the ref are given in its place and act on (JAX's ``RefAccum``):
a ``freeze`` transposes to a cotangent ref made from its cotangent, a read to an ``addupdate`` of
that ref, a write to a ``swap``, and the ``new_ref`` to a ``freeze`` of it.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from . import core
from .ad import UndefPrimal, Zero, add_jaxvals_p, is_undefined, transpose_rules, typed_undefined
from .core import Value
from .ir import Atom, Jaxpr, Literal, Var

# How many backward passes are running: JAX caches the jaxprs made there apart from others (its
# trace context differs), which shows in what a program shares (``lax.scatter_combiners``).
transposing = [0]


class CotangentAccumulator:
    """The cotangent of a linear value that is not summed but written into (a ref's)."""

    __slots__ = ()

    def project(self) -> Value:
        """What a call's transpose passes its body for it (JAX's ``project_accums``: the ref)."""
        raise NotImplementedError

    @classmethod
    def unproject(cls, aval: Any, value: Value) -> CotangentAccumulator:
        """The accumulator a transposed body gives its rules for the ``project``ed ``value``."""
        raise NotImplementedError


class ValueAccumulator(CotangentAccumulator):
    """The cotangent of an array input that is added into a ref the caller gave for it (JAX's
    ``RefAccum`` of ``VJP.with_refs``): rules in ``value_accumulating`` write into the ref where
    the cotangent arises (a slice's into its window); the others see an undefined primal, and what
    they return for it is added in whole."""

    __slots__ = ()
    aval: Any

    def accum(self, ct: Any) -> None:
        raise NotImplementedError


# primitive -> its transpose taking value accumulators in place of undefined operands (JAX's
# fancy transposes): ``rule(ct, *operands, **params)``, adding into them, returning nothing.
value_accumulating: dict[core.Primitive, Callable[..., None]] = {}
# Calls whose transpose passes a value accumulator into the transposed body (as a ref).
passes_value_accumulators: set[core.Primitive] = set()

# type of an aval -> the accumulator its linear values get (``state.transpose`` adds refs').
accumulators: dict[type, Callable[[Any], CotangentAccumulator]] = {}

# Calls whose transpose rule takes an accumulator among its operands (JAX's fancy transposes): a
# ref of ``grad`` given to one is passed in as a ref (``state.jvp.passes_refs``); given to another
# primitive, its value is threaded through (``state.discharge``).
takes_accumulators: set[core.Primitive] = set()


# The layouts of the results of the equation being transposed (on an explicit mesh, where the
# backward pass types its values), which its cotangents have: ``_unbroadcast`` compares them with
# an operand's (JAX's ``typeof(ct).sharding``), as the engine's tracers carry no layout.
_out_layouts: list[list[Any]] = []


def out_layout(k: int = 0) -> Any:
    """The layout of result ``k`` of the equation a transpose rule is running for, or None."""
    return _out_layouts[-1][k] if _out_layouts and _out_layouts[-1] else None


def backward_pass(
    jaxpr: Jaxpr,
    args: Sequence[Value],
    cotangents: Sequence[Any],
    seeds: Sequence[Any] = (),
    wanted: Sequence[bool] | None = None,
) -> list[Any]:
    """Transpose a jaxpr that is linear in its UndefPrimal arguments. ``seeds``: the cotangents
    the undefined arguments already have (None: none), which theirs here are summed into, in
    order, as in the backward pass of a program the jaxpr is inlined in (the eager tape's).
    ``wanted``: per undefined argument, whether its cotangent is wanted (None: all); equations
    that lead to none of the wanted ones are not transposed (their cotangents come back zero)."""
    # (counted as ir.eval_jaxpr counts replays: a bare try/finally, no shared context manager,
    # whose generator would cost every call of that hot path)
    transposing[0] += 1
    try:
        return _backward_pass(jaxpr, args, cotangents, seeds, wanted)
    finally:
        transposing[0] -= 1


def call_transpose(
    jaxpr: Jaxpr, args: Sequence[Value], cts: Sequence[Any]
) -> tuple[list[bool], list[Value], list[Any], Callable[..., list[Any]], list[Any]]:
    """The parts of a call primitive's transpose (JAX's ``call_transpose``): which operands are
    undefined, the defined ones, the output cotangents (zeros instantiated), and the body's transpose
    as a function of ``(*defined, *cts)`` returning the undefined operands' cotangents, with its
    operands' avals (to trace it into the transposed call's body)."""
    from .ad import instantiate_zeros

    undef = [is_undefined(a) for a in args]
    defined = [a for a, u in zip(args, undef) if not u]
    cts = [instantiate_zeros(c) for c in cts]
    nd = len(defined)

    def body(*xs: Any) -> list[Any]:
        it = iter(xs[:nd])
        full = [UndefPrimal(a.aval) if u else next(it) for a, u in zip(args, undef)]
        # (backward_pass returns the cotangents of the undefined operands only)
        return [instantiate_zeros(c) for c in backward_pass(jaxpr, full, list(xs[nd:]))]

    avals = [*[core.get_aval(a) for a in defined], *[core.get_aval(c) for c in cts]]
    return undef, defined, cts, body, avals


def _backward_pass(
    jaxpr: Jaxpr,
    args: Sequence[Value],
    cotangents: Sequence[Any],
    seeds: Sequence[Any] = (),
    wanted: Sequence[bool] | None = None,
) -> list[Any]:
    primal_env: dict[Var, Value] = {}
    ct_env: dict[Var, Value] = {}

    def read_primal(x: Atom) -> Value:
        return x.val if type(x) is Literal else primal_env[x]

    def write_cotangent(x: Atom, ct: Any) -> None:
        if type(x) is Var and ct is not None and type(ct) is not Zero:
            held = primal_env.get(x)
            if isinstance(held, ValueAccumulator):
                held.accum(ct)
                return
            prev = ct_env.get(x)
            ct_env[x] = ct if prev is None else add_jaxvals_p.bind(prev, ct)

    def read_cotangent(v: Var) -> Any:
        held = primal_env.get(v)
        if isinstance(held, CotangentAccumulator):
            return held
        ct = ct_env.pop(v, None)
        return Zero(typed.get(v, v.aval)) if ct is None else ct  # (a zero typed as its primal)

    def is_linear(x: Value) -> bool:
        return type(x) is UndefPrimal or isinstance(x, CotangentAccumulator)

    typed: dict = {}
    if typed_undefined[0] and _may_be_laid_out(args):
        from .parallel.explicit_types import typed_vars  # (a cycle if imported at the top)

        typed = typed_vars(jaxpr, args)  # (on an explicit mesh: what transpose rules lay out as)
    for v, a in zip(jaxpr.in_binders, args):
        primal_env[v] = a
    if seeds:
        undefined = [v for v, a in zip(jaxpr.in_binders, args) if is_undefined(a)]
        ct_env.update((v, s) for v, s in zip(undefined, seeds) if s is not None)
    for x, ct in zip(jaxpr.outs, cotangents):
        write_cotangent(x, ct)

    # Equations on residuals only are evaluated forward; the rest are linear in the unknowns (an
    # equation making a value with an accumulator, a ref, is linear whatever it reads, as JAX's).
    linear_eqns = []
    for eqn in jaxpr.eqns:
        ins = [read_primal(x) for x in eqn.inputs]
        makes = [accumulators.get(type(v.aval)) for v in eqn.out_binders] if accumulators else []
        if any(is_linear(x) for x in ins) or any(m is not None for m in makes):
            linear_eqns.append(eqn)
            for k, v in enumerate(eqn.out_binders):
                make = makes[k] if makes else None
                primal_env[v] = UndefPrimal(typed.get(v, v.aval)) if make is None else make(v.aval)
            continue
        with core.source_info_context(eqn.source_info):
            outs = eqn.primitive.bind(*ins, **eqn.params)
        outs = outs if eqn.primitive.multiple_results else [outs]
        for v, o in zip(eqn.out_binders, outs):
            primal_env[v] = o

    leads = None  # (with ``wanted``: the values that depend on a wanted argument)
    if wanted is not None:
        undefined = [
            v for v, a in zip(jaxpr.in_binders, args) if is_undefined(a) or isinstance(a, ValueAccumulator)
        ]
        leads = {v for v, w in zip(undefined, wanted) if w}
        for eqn in linear_eqns:
            if any(type(x) is Var and x in leads for x in eqn.inputs):
                leads.update(eqn.out_binders)
    for eqn in reversed(linear_eqns):
        if leads is not None and not any(type(x) is Var and x in leads for x in eqn.inputs):
            continue  # (its cotangents reach no wanted argument)
        cts_in = [read_cotangent(v) for v in eqn.out_binders]
        primals_in = [read_primal(x) for x in eqn.inputs]
        if all(type(c) is Zero for c in cts_in) and not any(
            isinstance(x, CotangentAccumulator) for x in primals_in
        ):
            continue  # (a read or write of a ref acts on its accumulator, whatever its cotangent)
        into = [isinstance(x, ValueAccumulator) for x in primals_in]
        fancy = value_accumulating.get(eqn.primitive) if any(into) else None
        if fancy is not None:
            with core.source_info_context(eqn.source_info):
                fancy(cts_in if eqn.primitive.multiple_results else cts_in[0], *primals_in, **eqn.params)
            continue
        if any(into) and eqn.primitive not in passes_value_accumulators:  # (added in whole, below)
            primals_in = [UndefPrimal(x.aval) if k else x for x, k in zip(primals_in, into)]
        rule = transpose_rules.get(eqn.primitive)
        if rule is None:
            raise NotImplementedError(
                f"Transpose rule (for reverse-mode differentiation) for '{eqn.primitive}' not implemented"
            )
        _out_layouts.append(
            [getattr(typed.get(v), "sharding", None) for v in eqn.out_binders] if typed else []
        )
        try:
            with core.source_info_context(eqn.source_info):
                if eqn.primitive.multiple_results:
                    cts_out = rule(cts_in, *primals_in, **eqn.params)
                else:
                    cts_out = rule(cts_in[0], *primals_in, **eqn.params)
        finally:
            _out_layouts.pop()
        with core.source_info_context(eqn.source_info):
            for x, ct in zip(eqn.inputs, cts_out):
                if type(x) is Var and (
                    type(primal_env[x]) is UndefPrimal or isinstance(primal_env[x], ValueAccumulator)
                ):
                    write_cotangent(x, ct)
    return [read_cotangent(v) for v, a in zip(jaxpr.in_binders, args) if is_undefined(a)]


def _may_be_laid_out(args) -> bool:
    """Whether any of a linear program's arguments may lie on an explicit mesh (a typed undefined
    primal, an array on a mesh, a value staged by a ``jit`` of sharded arguments or under a mesh
    context), so that its variables are worth typing: a replicated primal's cotangent is laid out
    by the residuals it meets (``x @ w``'s gradient in ``w``)."""
    from .sharding import get_abstract_mesh
    from .staging import staged_var

    if get_abstract_mesh().explicit_axes:
        return True
    for a in args:
        if type(a) is UndefPrimal:
            if hasattr(a.aval, "sharding"):
                return True
        elif isinstance(a, core.Tracer):
            staged = staged_var(a)
            if staged is not None and any(hasattr(s, "mesh") for s in staged[0].in_shardings.values()):
                return True
        elif getattr(a, "on_mesh", False):
            return True
    return False
