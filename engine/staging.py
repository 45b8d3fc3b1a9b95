"""Staging Python functions out to jaxprs: the trace behind ``make_jaxpr`` and ``jit``."""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence, cast

import numpy as np

from . import core, held_arrays, leak_check
from .core import Params, ShapedArray, Trace, Tracer, Value
from .errors import UnexpectedTracerError
from .source_info import in_backward
from .ir import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var, drop_unused_binders, sharded_types
from .tracer_origins import TraceDebug, staged_origin_msg


@core.jax_class_path("jax._src.interpreters.partial_eval.DynamicJaxprTracer")
class JaxprTracer(Tracer):
    __slots__ = ("_aval",)

    def __init__(self, trace: JaxprTrace, aval: ShapedArray):
        self._trace = trace
        self._aval = aval

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    def __repr__(self) -> str:  # as JAX 0.10 prints a tracer under jit: JitTracer(~float32[]) when weak
        a = self._aval
        if type(a).__name__ == "AbstractRef":  # a mutable array ref: JitTracer(Ref{float32[]})
            return f"JitTracer({a})"
        return f"JitTracer({'~' if a.weak_type else ''}{a.dtype.name}[{','.join(map(str, a.shape))}])"

    def _origin_msg(self) -> str:  # (found when an error is written: engine.tracer_origins)
        trace = self._trace
        return staged_origin_msg(trace.builder, self) if isinstance(trace, JaxprTrace) else ""


# Rules that let a primitive stage itself in a custom way (e.g. to inline or to record effects).
# Called as rule(trace, tracers, **params).
staging_rules: dict[core.Primitive, Callable[..., Value]] = {}

# The outputs (Var counts) of equations staged under no transformation and no named scope, for the
# primitives ``record_plain_stagings`` names: JAX names the call of their cached lowering after
# where they are staged (``jit(f)``), which the HLO printer needs to know (an equation rewritten
# with new variables is not known, and refused there).
plain_stagings: set[int] = set()


def record_plain_stagings(*primitives: core.Primitive) -> None:
    def rule(prim: core.Primitive) -> Callable[..., Value]:
        def stage(trace: "JaxprTrace", tracers: Sequence[Value], **params: Any) -> Value:
            from .jit_primitive import _context

            plain = not _context() and not getattr(core.current_source_info(), "scope", "")
            out = trace.default_process_primitive(prim, tracers, params)
            if plain:
                plain_stagings.update(v.count for v in trace.builder.eqns[-1].out_binders)
            return out

        return stage

    for p in primitives:
        staging_rules[p] = rule(p)


class JaxprTrace(Trace):
    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        tracer = self.builder.new_tracer(self, aval)
        self.builder.tracer_to_var[id(tracer)] = Var(aval)
        return tracer

    def get_or_make_const_tracer(self, val: Value) -> JaxprTracer:
        builder = self.builder
        if type(val) is np.ndarray:  # a caller's numpy array: the trace's own copy (JAX's transfer)
            val = held_arrays.trace_copy(val, host_constant)
        tracer = builder.const_tracers.get(id(val))
        if tracer is None:
            tracer = builder.const_tracers.get(_buffer_key(val))
        if tracer is None:
            if getattr(val, "_is_dim_expr", False):  # a symbolic dimension used as a value
                from .export.dim_value import dim_as_value_p

                return self.default_process_primitive(dim_as_value_p, [], {"dim": val})  # type: ignore[no-any-return]
            aval = core.get_aval(val)
            tracer = builder.new_tracer(self, aval)
            builder.add_const(tracer, val)
        return tracer

    pure = lift = get_or_make_const_tracer

    def process_primitive(self, primitive: core.Primitive, tracers: Sequence[Value], params: Params) -> Value:
        rule = staging_rules.get(primitive)
        if rule is not None:
            return rule(self, tracers, **params)
        return self.default_process_primitive(primitive, tracers, params)

    def default_process_primitive(
        self, primitive: core.Primitive, tracers: Sequence[Value], params: Params
    ) -> Value:
        avals_in = [t.aval for t in tracers]
        avals_out = primitive.abstract_eval(*avals_in, **params)
        multiple = primitive.multiple_results
        out_list = avals_out if multiple else [avals_out]
        out_tracers = [self.builder.new_tracer(self, a) for a in out_list]
        self.builder.add_eqn(primitive, tracers, params, out_tracers)
        return out_tracers if multiple else out_tracers[0]

    @property
    def builder(self) -> "JaxprBuilder":
        builder: JaxprBuilder = self.main.global_data  # what ``trace_to_jaxpr`` made the main with
        return builder


def host_constant(x: np.ndarray) -> core.Array:
    """A caller's numpy array as the engine holds it: a copy (its canonical dtype's, or itself if it
    is read-only). Made once per numpy array throughout a staging trace (``held_arrays.trace_copy``),
    so the trace holds one constant of it however often it is used, as JAX's trace keys a numpy
    constant by its identity."""
    return core.Array(core.host_copy(x) if x.dtype == core.canonical_dtype(x.dtype) else x)


def _buffer_key(val: object) -> tuple[str, int, bool] | None:
    """Arrays wrapping one numpy array (a closed-over numpy constant each jnp call wraps anew) are
    one constant, and one with that numpy array itself (which lax functions take as it is), as
    JAX's trace keys a numpy constant by its identity."""
    buf: object
    if type(val) is np.ndarray:
        buf, weak = val, False
    elif type(val) is core.Array:
        buf, weak = getattr(val, "_value", None), val.weak_type
    else:
        return None
    if type(buf) is not np.ndarray or not buf.shape:
        return None
    return ("buffer", id(buf), weak)


def retyped_tracer(t: JaxprTracer, aval: ShapedArray) -> JaxprTracer:
    """``t``'s variable seen with ``aval`` (its weak type changed): no equation. What an inlined
    jit's equations show when it typed an operand otherwise (engine.jitted_tangents)."""
    trace = t._trace
    assert isinstance(trace, JaxprTrace)
    builder = trace.builder
    new = builder.new_tracer(trace, aval)
    builder.tracer_to_var[id(new)] = builder.getvar(t)
    return new


class JaxprBuilder:
    def __init__(self) -> None:
        self.eqns: list[JaxprEqn] = []
        self.tracer_to_var: dict[int, Var] = {}
        self.const_tracers: dict[object, JaxprTracer] = {}  # by id, and by numpy buffer (_buffer_key)
        self.constvals: dict[Var, Value] = {}
        self.tracers: list[JaxprTracer] = []
        # arguments' shardings (a jit of arrays on an explicit mesh): what jax.typeof shows
        self.in_shardings: dict[Var, object] = {}
        # what an error about one of its tracers says of the trace: the function traced and its
        # arguments' variables, in order (trace_to_jaxpr's caller names them)
        self.debug: TraceDebug | None = None
        self.arg_vars: list[Var] = []

    def new_tracer(self, trace: JaxprTrace, aval: ShapedArray) -> JaxprTracer:
        t = JaxprTracer(trace, aval)
        self.tracers.append(t)
        return t

    def add_eqn(
        self,
        primitive: core.Primitive,
        in_tracers: Sequence[Value],
        params: Params,
        out_tracers: Sequence[JaxprTracer],
    ) -> None:
        info = core.current_source_info()
        if in_backward[0] and info is not None:
            info = info.made_by_rule()
        inputs: list[Atom] = [self.getvar(t) for t in in_tracers]
        outs = [self.add_var(t) for t in out_tracers]
        self.eqns.append(JaxprEqn(primitive, inputs, params, outs, info))

    def add_var(self, tracer: JaxprTracer) -> Var:
        v = Var(tracer.aval)
        self.tracer_to_var[id(tracer)] = v
        return v

    def getvar(self, tracer: object) -> Var:
        """The variable of a tracer of this trace (looked up by identity)."""
        v = self.tracer_to_var.get(id(tracer))
        if v is None:
            raise UnexpectedTracerError(
                "A tracer from a finished transformation was used in a jit/make_jaxpr trace. "
                "Pass it in as an argument instead of closing over it."
            )
        return v

    def add_const(self, tracer: JaxprTracer, val: Value) -> Var:
        var = self.add_var(tracer)
        self.const_tracers[id(val)] = tracer
        key = _buffer_key(val)
        if key is not None:
            self.const_tracers[key] = tracer
        self.constvals[var] = val
        return var

    def const_value(self, tracer: object) -> Value | None:
        """The value of a constant of this trace (None for any other tracer)."""
        v = self.tracer_to_var.get(id(tracer))
        return None if v is None else self.constvals.get(v)

    def build(self, in_tracers: Sequence[Value], out_tracers: Sequence[Value]) -> tuple[Jaxpr, list[Value]]:
        # (a constant nothing reads, such as an array made and dropped, is not one of the jaxpr's: JAX's)
        used = {id(x) for e in self.eqns for x in e.inputs} | {id(self.getvar(t)) for t in out_tracers}
        kept = {v: c for v, c in self.constvals.items() if id(v) in used}
        constvars, constvals = list(kept), list(kept.values())
        in_binders = constvars + [self.getvar(t) for t in in_tracers]
        out_vars: list[Atom] = [self.getvar(t) for t in out_tracers]
        jaxpr = Jaxpr([], in_binders, self.eqns, out_vars)
        jaxpr, constvals = _inline_literals(jaxpr, constvals)
        return jaxpr, constvals


def staged_var(tracer: object) -> tuple[JaxprBuilder, Var] | None:
    """The builder staging ``tracer`` and the variable it stands for there; None for a value that
    is not one of a staging trace's variables."""
    if not isinstance(tracer, JaxprTracer):
        return None
    builder = cast(JaxprTrace, tracer._trace).builder
    var = builder.tracer_to_var.get(id(tracer))
    return None if var is None else (builder, var)


def inlines_as_literal(val: Value) -> bool:
    """A constant the built jaxpr shows as a literal (``3.0:f32[]``)."""
    return _is_scalar_literal(val) and not isinstance(val, Tracer)


def _is_scalar_literal(val: Value) -> bool:
    if isinstance(val, (bool, int, float, complex)):
        return True
    if isinstance(val, core.Array) and val.ndim == 0:
        if held_arrays.held(val):  # a jax.Array the function closes over: JAX's constvar
            return False
        return not isinstance(val.dtype, core.ExtendedDType)  # (a key stays a constant, as in JAX)
    if isinstance(val, (np.ndarray, np.generic)) and np.ndim(val) == 0:
        return True
    return False


def _inline_literals(jaxpr: Jaxpr, consts: list[Value]) -> tuple[Jaxpr, list[Value]]:
    """Scalars become literals in the printed jaxpr; arrays stay constants."""
    const_binders, other_binders = jaxpr.in_binders[: len(consts)], jaxpr.in_binders[len(consts) :]
    literals: dict[Var, Atom] = {}
    new_constvars, new_consts = [], []
    for v, val in zip(const_binders, consts):
        if inlines_as_literal(val):
            literals[v] = Literal(val, v.aval)
        else:
            new_constvars.append(v)
            new_consts.append(val)
    if not literals:
        return Jaxpr(const_binders, other_binders, jaxpr.eqns, jaxpr.outs), consts

    def lit(x: Atom) -> Atom:
        return literals.get(x, x) if type(x) is Var else x

    eqns = [
        JaxprEqn(e.primitive, [lit(x) for x in e.inputs], e.params, e.out_binders, e.source_info)
        for e in jaxpr.eqns
    ]
    return Jaxpr(new_constvars, other_binders, eqns, [lit(x) for x in jaxpr.outs]), new_consts


_display = threading.local()


@contextmanager
def staging_for_display(on: bool = True) -> Iterator[None]:
    """Traces made to be shown (``make_jaxpr``, the page's stages), not run: ``pmap`` stages JAX's
    ``jit(shard_map)`` in them, also inside a ``jit`` (which then does not cache that program)."""
    prev: bool = getattr(_display, "on", False)
    _display.on = on
    try:
        yield
    finally:
        _display.on = prev


def displaying() -> bool:
    return bool(getattr(_display, "on", False))


def note_staged_pmap() -> None:
    """A ``pmap`` was staged, as the runtime's ``xla_pmap`` or as the form made to be shown (JAX's
    ``jit(shard_map)``): a program ``jit`` stages with one differs between the two."""
    _display.pmaps = staged_pmaps() + 1


def staged_pmaps() -> int:
    return int(getattr(_display, "pmaps", 0))


def trace_to_jaxpr(
    fun: Callable[..., Sequence[Value]],
    in_avals: Sequence[ShapedArray],
    in_shardings: Sequence[object] | None = None,
    debug: tuple[Callable[..., Any], str, Callable[[], Sequence[str]] | None] | None = None,
) -> ClosedJaxpr:
    """Trace a flat function (list of arrays -> list of arrays) to a closed jaxpr.

    Constants the function closes over that are themselves tracers of an outer transformation stay
    as constants of the closed jaxpr, so the outer transformation still sees them. ``debug`` names
    the function for errors about its traced values.
    """
    builder = JaxprBuilder()
    builder.debug = TraceDebug(*debug) if debug is not None else None
    with held_arrays.staging_trace(), core.new_main(JaxprTrace, builder) as main:
        with core.new_dynamic(main):
            trace = JaxprTrace(main)
            tracers_in = [trace.new_arg(a) for a in in_avals]
            builder.arg_vars = [builder.getvar(t) for t in tracers_in]
            for t, s in zip(tracers_in, in_shardings or ()):
                if s is not None:
                    builder.in_shardings[builder.getvar(t)] = s
            outs = fun(*tracers_in)
            tracers_out = [trace.full_raise(o) for o in outs]
            jaxpr, consts = builder.build(tracers_in, tracers_out)
    del builder
    if leak_check.enabled():
        del trace, tracers_in, tracers_out, outs
        leak_check.check(main)
    return ClosedJaxpr(jaxpr, consts)


def as_shown(closed: ClosedJaxpr, leaves: Sequence[Any], on_mesh: bool) -> ClosedJaxpr:
    """``closed``, traced for display from arguments ``leaves``, as ``make_jaxpr`` prints it:
    results nothing reads bound to ``_`` and, on a mesh with explicit axes, each variable typed
    with its sharding (JAX's types show them). The page's IR stages are shown so too."""
    types = None
    if on_mesh or "engine.parallel.partition" in sys.modules:
        from .parallel.partition import annotate_types

        types = annotate_types(closed, leaves)
    dropped = drop_unused_binders(closed.jaxpr)
    if types:
        for old, new in zip(closed.jaxpr.eqns, dropped.eqns):  # (an unread result: typed as it was)
            types.update((b, types[a]) for a, b in zip(old.out_binders, new.out_binders) if a in types)
        sharded_types[dropped] = types
    return ClosedJaxpr(dropped, closed.consts)
