"""Tracing a function along the path its concrete inputs take.

A function that branches in Python on a traced value (``if x > 0:``) cannot be traced abstractly:
JAX raises ``TracerBoolConversionError``. Yet ``grad`` of it runs eagerly, because JAX linearizes
with concrete primals and Python sees real numbers. This trace does the same for the report: it
stages every equation as ``make_jaxpr`` does and also evaluates it on the concrete inputs, so
control flow sees values and the jaxpr holds the equations that ran for these inputs (and is
valid for them only).
"""

from __future__ import annotations

from typing import Callable

from engine import core, held_arrays, narrow_dtypes
from engine.core import Tracer
from engine.ir import ClosedJaxpr
from engine.staging import JaxprBuilder, JaxprTrace, JaxprTracer


@core.jax_class_path("jax._src.interpreters.partial_eval.DynamicJaxprTracer")  # (it stages as jit does)
class PathTracer(JaxprTracer):
    __slots__ = ("val",)

    def __init__(self, trace, aval, val=None):
        super().__init__(trace, aval)
        self.val = val

    def concrete_value(self):
        return self.val


class PathBuilder(JaxprBuilder):
    def new_tracer(self, trace, aval):
        t = PathTracer(trace, aval)
        self.tracers.append(t)
        return t


class PathTrace(JaxprTrace):
    def get_or_make_const_tracer(self, val):
        tracer = super().get_or_make_const_tracer(val)
        if tracer.val is None and not isinstance(val, Tracer):
            stored = self.builder.const_value(tracer)  # (a float64 numpy constant is kept as float32)
            tracer.val = core.to_numpy(val if stored is None else stored)
        return tracer

    pure = lift = get_or_make_const_tracer

    def process_primitive(self, primitive, tracers, params):
        out = super().process_primitive(primitive, tracers, params)
        vals = [t.val for t in tracers]
        if all(v is not None for v in vals):
            args = [core.Array(v) for v in vals] if primitive.takes_arrays else vals
            outs = out if primitive.multiple_results else [out]
            with core.new_dynamic(None):  # the impl's own binds run eagerly, not into this trace
                impl = narrow_dtypes.impl_for(
                    primitive,
                    core.impl_rules[primitive],
                    [getattr(v, "dtype", None) for v in vals],
                    [core.get_aval(t).dtype for t in outs],
                    params,
                )
                res = impl(*args, **params)
            for t, v in zip(outs, res if primitive.multiple_results else [res]):
                if isinstance(t, PathTracer) and t.val is None:
                    t.val = core.to_numpy(v)
        return out


def trace_on_path(fun: Callable, args: list) -> ClosedJaxpr:
    """The jaxpr of the flat function ``fun`` (list of arrays -> list of arrays) along the path
    ``args`` take through its Python control flow."""
    builder = PathBuilder()
    # (a staging trace: arrays made on the way are the trace's, literals, as under make_jaxpr)
    with held_arrays.staging_trace(), core.new_main(PathTrace, builder) as main:
        with core.new_dynamic(main):
            trace = PathTrace(main)
            tracers_in = []
            for a in args:
                t = trace.new_arg(core.get_aval(a))
                assert isinstance(t, PathTracer)  # PathBuilder makes every tracer
                t.val = core.to_numpy(a)
                tracers_in.append(t)
            outs = fun(*tracers_in)
            tracers_out = [trace.full_raise(o) for o in outs]
            jaxpr, consts = builder.build(tracers_in, tracers_out)
    return ClosedJaxpr(jaxpr, consts)
