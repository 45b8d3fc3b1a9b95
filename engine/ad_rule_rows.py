"""Helpers that write a primitive's rows of ``engine.ad``'s rule tables, in JAX's manner (``ad.defjvp``
and the others are these functions)."""

from __future__ import annotations

from typing import Any, Callable, NoReturn, Sequence

from . import core
from .ad import Tangent, Zero, add_tangents, instantiate_zeros, jvp_rules, tangent_aval, transpose_rules
from .core import Value


def defjvp(primitive: core.Primitive, *jvp_fns: Callable[..., Value] | None) -> None:
    """One function per argument: ``fn(tangent, *primals, **params) -> output tangent``."""

    def rule(primals: Sequence[Value], tangents: Sequence[Tangent], **params: Any) -> tuple[Value, Tangent]:
        out = primitive.bind(*primals, **params)
        acc: Tangent = Zero(tangent_aval(core.get_aval(out)))
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and type(t) is not Zero:
                acc = add_tangents(acc, fn(t, *primals, **params))
        return out, acc

    jvp_rules[primitive] = rule


def defjvp2(primitive: core.Primitive, *jvp_fns: Callable[..., Value] | None) -> None:
    """Like defjvp, but each function also receives the primal output: ``fn(g, ans, *primals)``."""

    def rule(primals: Sequence[Value], tangents: Sequence[Tangent], **params: Any) -> tuple[Value, Tangent]:
        out = primitive.bind(*primals, **params)
        acc: Tangent = Zero(tangent_aval(core.get_aval(out)))
        for fn, t in zip(jvp_fns, tangents):
            if fn is not None and type(t) is not Zero:
                acc = add_tangents(acc, fn(t, out, *primals, **params))
        return out, acc

    jvp_rules[primitive] = rule


def deflinear(primitive: core.Primitive, transpose_rule: Callable[..., Sequence[Any]]) -> None:
    """A primitive linear in all its arguments: its JVP is itself applied to the tangents."""

    def rule(primals: Sequence[Value], tangents: Sequence[Tangent], **params: Any) -> tuple[Value, Value]:
        out = primitive.bind(*primals, **params)
        return out, primitive.bind(*[instantiate_zeros(t) for t in tangents], **params)

    jvp_rules[primitive] = rule
    transpose_rules[primitive] = transpose_rule


def defzero(primitive: core.Primitive) -> None:
    """Outputs whose derivative is zero everywhere (comparisons, integer ops, argmax...)."""

    def rule(primals: Sequence[Value], tangents: Sequence[Tangent], **params: Any) -> tuple[Value, Any]:
        out = primitive.bind(*primals, **params)
        if primitive.multiple_results:
            return out, [Zero(tangent_aval(core.get_aval(o))) for o in out]
        return out, Zero(tangent_aval(core.get_aval(out)))

    jvp_rules[primitive] = rule


def linearize_refused(*_: object, **__: object) -> NoReturn:
    """A ``partial_eval_rules`` (and ``partial_eval_jaxpr_rules``) row for a primitive whose jvp makes
    its primal outputs depend on the tangents: JAX's refusal, word for word."""
    raise ValueError(
        "Linearization failed to produce known values for all output primals. This is typically "
        "caused by attempting to differentiate a function uses an operation that does not support "
        "reverse-mode autodiff."
    )
