"""Nested ``jit`` calls inlined into their caller before the algebraic simplifier runs, as XLA's
call inliner does before its simplifier: a rewrite then sees across the call, so
``jit(lambda k: 0.1 * random.normal(k))`` folds the sampler's ``sqrt(2) * erfinv(u)`` with the
caller's ``0.1`` into one product by ``fl(0.1 * sqrt(2))`` (``algebraic_simplifier._reassociate``),
as JAX's does.

A ``scan`` unrolled whole (``unroll`` at least its length) is inlined too: JAX lowers it as
straight-line code, one copy of the body per step (``_scan_impl``), so XLA simplifies and fuses
across the steps (the first step's ``0 + x`` is ``x``, whose product LLVM then contracts into the
next step's sum). Up to ``UNROLLED_EQNS_MAX`` equations; a longer one stays a loop.

Only calls that are plain functions are inlined: no constants of their own (they would have to
become the caller's), no shardings, donations or compiler options, and no effects inside.
A call of constants alone is left whole: constant folding computes it as the callee's program
(``jnp.mod`` of two closed-over arrays keeps XLA's NaNs where its parts' rewrites would not).

  >>> import engine, engine.numpy as jnp
  >>> j = engine.make_jaxpr(lambda x: 2.0 * engine.jit(jnp.sin)(x))(1.0).jaxpr
  >>> flat, origin = inlined(j)
  >>> [e.primitive.name for e in flat.eqns], origin
  (['sin', 'mul'], [0, 1])
"""

from __future__ import annotations

from .ir import Atom, Jaxpr, JaxprEqn, Var, effectful, ref_effects, subjaxprs

# (numba's compile time grows with a program's length: a longer unrolled scan runs as a loop)
UNROLLED_EQNS_MAX = 2000


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
        and _pure(closed.jaxpr)
    )


def _unrolled_scan(eqn: JaxprEqn) -> bool:
    from .lax.scan import scan_p

    if eqn.primitive is not scan_p:
        return False
    p = eqn.params
    n, unroll, body = p["length"], p.get("unroll", 1), p["jaxpr"]
    return (
        unroll != 1
        and 0 < n <= (unroll or n)
        and not body.consts
        and n * len(body.jaxpr.eqns) <= UNROLLED_EQNS_MAX
        and _pure(body.jaxpr)
    )


def _inlines(eqn: JaxprEqn) -> bool:
    return _plain_call(eqn) or _unrolled_scan(eqn)


def _of_constants(eqn: JaxprEqn, constants) -> bool:
    return all(type(x) is not Var or x in constants for x in eqn.inputs)


def _pure(jaxpr: Jaxpr) -> bool:
    return all(
        e.primitive not in effectful and e.primitive not in ref_effects and all(map(_pure, subjaxprs(e)))
        for e in jaxpr.eqns
    )


def inlined(jaxpr: Jaxpr, constants: frozenset | set = frozenset()) -> tuple[Jaxpr, list[int]] | None:
    """``jaxpr`` with its plain nested ``jit`` calls and whole-unrolled scans inlined (their
    variables renamed apart, a call may run the same jaxpr twice), and for each equation the index
    of the equation of ``jaxpr`` it comes from; None when nothing is inlined. A call whose inputs
    are all ``constants`` (or literals) stays a call."""
    top = {id(e) for e in jaxpr.eqns if _inlines(e) and not _of_constants(e, constants)}
    if not top:
        return None
    eqns: list[JaxprEqn] = []
    origin: list[int] = []

    def emit(prim, ins: list, params: dict, shape: tuple, like: Atom, at: int) -> Var:
        out = Var(like.aval.update(shape=shape))  # (its dtype, weak type and varying axes)
        eqns.append(JaxprEqn(prim, ins, params, [out], jaxpr.eqns[at].source_info))
        origin.append(at)
        return out

    def unroll(e: JaxprEqn, ins: list, at: int) -> list:
        from .lax.joining import concatenate_p
        from .lax.slicing import slice_p
        from .lax.structural import broadcast_in_dim_p, squeeze_p

        p, body = e.params, e.params["jaxpr"].jaxpr
        nc, nk, n = p["num_consts"], p["num_carry"], p["length"]
        consts, carry, xs = ins[:nc], ins[nc : nc + nk], ins[nc + nk :]

        def step(x: Atom, i: int) -> Var:
            shape = x.aval.shape
            box = {"start_indices": (i,) + (0,) * (len(shape) - 1), "limit_indices": (i + 1, *shape[1:])}
            row = emit(slice_p, [x], {**box, "strides": (1,) * len(shape)}, (1, *shape[1:]), x, at)
            return emit(squeeze_p, [row], {"dimensions": (0,)}, shape[1:], x, at)

        def stack(ys: list) -> Var:
            shape = ys[0].aval.shape
            dims = tuple(range(1, len(shape) + 1))
            params = {"shape": (1, *shape), "broadcast_dimensions": dims, "sharding": None}
            rows = [emit(broadcast_in_dim_p, [y], params, (1, *shape), y, at) for y in ys]
            return emit(concatenate_p, rows, {"dimension": 0}, (len(ys), *shape), ys[0], at)

        steps = []
        for i in reversed(range(n)) if p["reverse"] else range(n):
            outs = walk(body, dict(zip(body.in_binders, [*consts, *carry, *(step(x, i) for x in xs)])), at)
            carry = outs[:nk]
            steps.append(outs[nk:])
        if p["reverse"]:
            steps.reverse()
        return [*carry, *(stack(list(ys)) for ys in zip(*steps))]

    def walk(j: Jaxpr, sub: dict, index: int | None) -> list:
        read = lambda x: sub.get(x, x) if type(x) is Var else x
        for k, e in enumerate(j.eqns):
            at = k if index is None else index
            ins = [read(x) for x in e.inputs]
            if _unrolled_scan(e) and (id(e) in top or index is not None):
                outs = unroll(e, ins, at)
            elif id(e) in top if index is None else _plain_call(e):
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
