"""How ``linearize`` (so ``grad`` and ``vjp``) applies the JVP rule of a primitive made with
``jax.extend.core.Primitive``: as JAX's fallback linearization does.

JAX does not run such a rule on the tangents it is linearizing. It traces the rule on fresh
tangent inputs of a partial-evaluation trace of its own, keeps the tangent equations as a jaxpr
(their known operands are its residuals), and then evaluates that jaxpr into the linearization's
tangent trace. Each tangent equation is therefore bound twice, and a user's abstract evaluation
rule runs twice (once while the rule runs, once more, in equation order, after it has returned):
the JAX primitives tutorial prints both. The engine's own primitives skip the detour (their rules
are pure, and it would only cost time).

JAX's tangent trace caches abstract evaluation by (primitive, input types, params), so a replay
whose equation was seen before calls no rule: the tutorial's second ``grad`` prints no replay.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Sequence

from . import core
from .ad import (
    PartialEvalTrace,
    PartialEvalTracer,
    PartialVal,
    Zero,
    linearize_refused,
    tangent_aval,
    tracers_to_jaxpr,
)
from .core import Params, ShapedArray, Value
from .ir import eval_jaxpr

# Whether a tangent jaxpr is being replayed, and what the user's abstract rules gave there.
replaying = [0]
_abstract_evals: weakref.WeakKeyDictionary[core.Primitive, dict[Any, Any]] = weakref.WeakKeyDictionary()


def linearize_from_jvp(
    rule: Callable[..., tuple[Value, Value]],
    primitive: core.Primitive,
    primals: Sequence[Value],
    tangents: Sequence[Value],
    params: Params,
) -> tuple[Value, Value]:
    """``rule(primals, tangents, **params)``, its tangent equations staged apart and replayed."""
    with core.new_main(PartialEvalTrace) as main:
        trace = PartialEvalTrace(main)
        fresh = [t if type(t) is Zero else trace.new_arg(PartialVal.unknown(t.aval)) for t in tangents]
        primal_out, tangent_out = rule(primals, fresh, **params)
        if not primitive.multiple_results:
            primal_out, tangent_out = [primal_out], [tangent_out]
        primal_out = [_known(main, p) for p in primal_out]
        # A tangent that is not an unknown of this trace (a symbolic zero, or a value computed
        # from primals alone) is a zero to JAX: only the unknowns are outputs of the jaxpr.
        nonzero = [
            isinstance(t, PartialEvalTracer) and t._trace.main is main and not t.pval.is_known
            for t in tangent_out
        ]
        ins = [t for t in fresh if type(t) is not Zero]
        jaxpr, residuals = tracers_to_jaxpr(ins, [t for t, nz in zip(tangent_out, nonzero) if nz])
    replaying[0] += 1
    try:
        replayed = iter(eval_jaxpr(jaxpr, [*residuals, *[t for t in tangents if type(t) is not Zero]]))
    finally:
        replaying[0] -= 1
    tangent_out = [
        next(replayed) if nz else Zero(tangent_aval(core.get_aval(p))) for p, nz in zip(primal_out, nonzero)
    ]
    if primitive.multiple_results:
        return primal_out, tangent_out
    return primal_out[0], tangent_out[0]


def _known(main: core.MainTrace, p: Value) -> Value:
    if isinstance(p, PartialEvalTracer) and p._trace.main is main:
        if not p.pval.is_known:
            linearize_refused()  # (JAX's words)
        return p.pval.const
    return p


def cached_abstract_eval(
    primitive: core.Primitive, rule: Callable[..., Any], avals: Sequence[ShapedArray], params: Params
) -> Any:
    """``rule(*avals, **params)``, once per (primitive, avals, params) while replaying."""
    try:
        key = (tuple(avals), tuple(sorted(params.items())))
        seen = _abstract_evals.setdefault(primitive, {})
        return seen[key]
    except TypeError:  # unhashable params: not cached (JAX would refuse them)
        return rule(*avals, **params)
    except KeyError:
        out = seen[key] = rule(*avals, **params)
        return out
