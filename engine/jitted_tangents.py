"""The tangents a jnp function sees: JAX jits its jnp functions, and jit's JVP rule traces the
function with each tangent typed as its primal's tangent (same dtype, same weak type). So in JAX a
strong tangent of a weak primal (``jax.jvp(jnp.sin, (2.0,), (jnp.float32(1.0),))``) is weak inside
``jnp.sin`` and its tangent out is weak; a Python float tangent is an array there. lax functions are
not jitted: ``jax.jvp(lax.sin, ...)`` keeps the tangent's own type, and so does the engine.

The engine runs jnp functions directly (unjitted) for speed, so their entry points call
``typed_as_primals`` on their operands: a JVP tracer whose tangent is typed otherwise than its
primal gets a tangent retyped without computing anything (eagerly the same buffer, staged the same
variable, as the inlined jit of JAX prints no conversion).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import core
from .ad import JVPTracer, Zero, tangent_aval
from .core import Array, ShapedArray, Tracer, Value


def typed_as_primals(args: Sequence[Value]) -> Sequence[Value]:
    """``args`` with each JVP tracer's tangent typed as its primal's tangent (``args`` itself when
    all are; cheap for operands that are not JVP tracers)."""
    for a in args:
        if isinstance(a, JVPTracer) and mistyped(a):
            break
    else:
        return args
    return [_retyped(a) if isinstance(a, JVPTracer) and mistyped(a) else a for a in args]


def mistyped(x: JVPTracer) -> bool:
    """Whether ``x``'s tangent is typed otherwise than its primal's tangent (or is no array)."""
    t = x.tangent
    if type(t) is Zero:
        return False
    if not isinstance(t, (Array, Tracer)):  # a Python scalar or numpy value given as a tangent
        return True
    want = tangent_aval(x.aval)
    got = core.get_aval(t)
    return bool(got.weak_type != want.weak_type and got.dtype == want.dtype)


def _retyped(x: JVPTracer) -> JVPTracer:
    want = tangent_aval(x.aval)
    return type(x)(x._trace, x.primal, retype(x.tangent, want))


def retype(t: Value, aval: ShapedArray) -> Value:
    """``t`` (of ``aval``'s dtype) with ``aval``'s weak type, computing nothing."""
    from .staging import JaxprTracer, retyped_tracer

    if isinstance(t, JaxprTracer):
        return retyped_tracer(t, aval)
    if isinstance(t, Tracer):  # (under vmap: the batched value, converted where it lives)
        from .lax.structural import convert_element_type_p

        return convert_element_type_p.bind(t, new_dtype=aval.dtype, weak_type=aval.weak_type, sharding=None)
    value = core.to_numpy(t) if isinstance(t, Array) else np.asarray(t, aval.dtype)
    return Array(value, aval.weak_type)
