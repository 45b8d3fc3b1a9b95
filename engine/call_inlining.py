"""Nested ``jit`` calls inlined into their caller before the algebraic simplifier runs, as XLA's
call inliner does before its simplifier: a rewrite then sees across the call, so
``jit(lambda k: 0.1 * random.normal(k))`` folds the sampler's ``sqrt(2) * erfinv(u)`` with the
caller's ``0.1`` into one product by ``fl(0.1 * sqrt(2))`` (``algebraic_simplifier._reassociate``),
as JAX's does.

Only calls that are plain functions are inlined: no constants of their own (they would have to
become the caller's), no shardings, donations, mesh or compiler options, and no effects inside.
A call of constants alone is left whole: constant folding computes it as the callee's program
(``jnp.mod`` of two closed-over arrays keeps XLA's NaNs where its parts' rewrites would not).

  >>> import engine, engine.numpy as jnp
  >>> j = engine.make_jaxpr(lambda x: 2.0 * engine.jit(jnp.sin)(x))(1.0).jaxpr
  >>> flat, origin = inlined(j)
  >>> [e.primitive.name for e in flat.eqns], origin
  (['sin', 'mul'], [0, 1])
"""

from __future__ import annotations

from .ir import Jaxpr, JaxprEqn, Var, effectful, ref_effects, subjaxprs


def _plain_call(eqn: JaxprEqn) -> bool:
    from .jit_primitive import jit_p

    if eqn.primitive is not jit_p:
        return False
    p = eqn.params
    closed = p["jaxpr"]
    unspecified = lambda s: type(s).__name__ == "UnspecifiedValue"
    return (
        not closed.consts
        and all(map(unspecified, (*p["in_shardings"], *p["out_shardings"])))
        and not any(p["donated_invars"])
        and not p.get("compiler_options_kvs")
        and not getattr(p.get("ctx_mesh"), "axis_names", ())
        and _pure(closed.jaxpr)
    )


def _of_constants(eqn: JaxprEqn, constants) -> bool:
    return all(type(x) is not Var or x in constants for x in eqn.inputs)


def _pure(jaxpr: Jaxpr) -> bool:
    return all(
        e.primitive not in effectful and e.primitive not in ref_effects and all(map(_pure, subjaxprs(e)))
        for e in jaxpr.eqns
    )


def inlined(jaxpr: Jaxpr, constants: frozenset | set = frozenset()) -> tuple[Jaxpr, list[int]] | None:
    """``jaxpr`` with its plain nested ``jit`` calls inlined (their variables renamed apart, a call
    may run the same jaxpr twice), and for each equation the index of the equation of ``jaxpr`` it
    comes from; None when no call is inlined. A call whose inputs are all ``constants`` (or
    literals) stays a call."""
    top = {id(e) for e in jaxpr.eqns if _plain_call(e) and not _of_constants(e, constants)}
    if not top:
        return None
    eqns: list[JaxprEqn] = []
    origin: list[int] = []

    def walk(j: Jaxpr, sub: dict, index: int | None) -> list:
        read = lambda x: sub.get(x, x) if type(x) is Var else x
        for k, e in enumerate(j.eqns):
            at = k if index is None else index
            ins = [read(x) for x in e.inputs]
            if id(e) in top if index is None else _plain_call(e):
                inner = e.params["jaxpr"].jaxpr
                outs = walk(inner, dict(zip(inner.in_binders, ins)), at)
            else:
                outs = [Var(v.aval) for v in e.out_binders] if index is not None else e.out_binders
                eqns.append(e._replace(inputs=ins, out_binders=outs))
                origin.append(at)
            sub.update(zip(e.out_binders, outs))
        return [read(x) for x in j.outs]

    outs = walk(jaxpr, {}, None)
    return Jaxpr(jaxpr.constvars, jaxpr.in_binders, eqns, outs), origin
