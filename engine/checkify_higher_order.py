"""``checkify``'s rows for higher-order primitives (``jit``, ``cond``, ``scan``, ``while``, ``pmap``,
``shard_map``, custom rules, ``checkpoint``): their bodies are checkified too. A body that takes an
error in and gives one back (a loop, a branch) must give back the structure it took, so the error
first gets placeholder slots for every category the body can add."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from . import core, ir
from .checkify import (
    Error,
    ErrorEffect,
    _flatten_error,
    _unflatten_error,
    check_p,
    checkify_jaxpr,
    error_checks,
)
from .core import Primitive
from .ir import ClosedJaxpr, Jaxpr, Var
from .staging import trace_to_jaxpr


def _checkified(
    closed: ClosedJaxpr, enabled: frozenset, error: Error, in_avals: Sequence[core.ShapedArray]
) -> tuple[ClosedJaxpr, tuple]:
    """``closed`` as a jaxpr ``(*error leaves, *args) -> (*error leaves, *outs)``, and the
    structure of the error it gives back (see ``_split``)."""
    err_leaves, err_aux = _flatten_error(error)
    n_err = len(err_leaves)
    store: list[tuple] = []

    def body(*xs: Any) -> list[Any]:
        e, outs = checkify_jaxpr(
            closed.jaxpr, closed.consts, enabled, _unflatten_error(err_aux, xs[:n_err]), xs[n_err:]
        )
        leaves, aux = _flatten_error(e)
        store.append(aux)
        return [*leaves, *outs]

    traced = trace_to_jaxpr(body, [*(core.get_aval(x) for x in err_leaves), *in_avals])
    return traced, store[0]


def _split(err_aux: tuple, outs: Sequence[Any]) -> tuple[Error, list[Any]]:
    n = sum(2 + len(e.shape_dtypes) for e in err_aux[0])
    return _unflatten_error(err_aux, outs[:n]), list(outs[n:])


def _effects_of(closed, enabled, error, in_avals) -> set[ErrorEffect]:
    return set(_checkified(closed, enabled, error, in_avals)[1][0])


def _closure_converted(closed: ClosedJaxpr) -> tuple[Jaxpr, list[Any]]:
    """The jaxpr with its constants as leading inputs, and those constants."""
    j = closed.jaxpr
    return Jaxpr([], [*j.constvars, *j.in_binders], j.eqns, j.outs), list(closed.consts)


def _silenced(closed: ClosedJaxpr) -> ClosedJaxpr:
    """The program with its checks made no-ops (``debug=True``), nested ones too: for a copy whose
    values are used while a checkified copy computes the errors."""

    def jaxpr(j: Jaxpr) -> Jaxpr:
        return Jaxpr(j.constvars, j.in_binders, [eqn(e) for e in j.eqns], j.outs)

    def param(v: Any) -> Any:
        if isinstance(v, ClosedJaxpr):
            return ClosedJaxpr(jaxpr(v.jaxpr), v.consts)
        if isinstance(v, Jaxpr):
            return jaxpr(v)
        if isinstance(v, tuple) and any(isinstance(w, (Jaxpr, ClosedJaxpr)) for w in v):
            new = tuple(param(w) for w in v)
            return type(v)(*new) if hasattr(v, "_fields") else new  # (a NamedTuple keeps its field names)
        return v

    def eqn(e: ir.JaxprEqn) -> ir.JaxprEqn:
        if e.primitive is check_p:
            return e._replace(params={**e.params, "debug": True})
        return e._replace(params={k: param(v) for k, v in e.params.items()})

    return ClosedJaxpr(jaxpr(closed.jaxpr), closed.consts)


def _jit_check(error, enabled, *args, jaxpr, name, **params):
    from .call_operands import _hoist_tracer_consts
    from .jit_primitive import jit_p, with_body

    traced, out_aux = _checkified(jaxpr, enabled, error, [core.get_aval(a) for a in args])
    closed, hoisted = _hoist_tracer_consts(traced)
    err_leaves, _ = _flatten_error(error)
    return _split(
        out_aux, jit_p.bind(*hoisted, *err_leaves, *args, **with_body({"name": name, **params}, closed))
    )


def _pmap_check(error, enabled, *args, jaxpr, in_axes, out_axes, axis_name, axis_size, **params):
    """Each device checks its own shard: the error comes back mapped over the devices."""
    from .call_operands import _hoist_tracer_consts
    from .lax import parallel as lax_parallel
    from .parallel.pmap_primitive import pmap_p

    with lax_parallel.extend_axis_env(axis_name, axis_size):
        traced, out_aux = _checkified(jaxpr, enabled, error, jaxpr.in_avals)
    closed, hoisted = _hoist_tracer_consts(traced)
    err_leaves, _ = _flatten_error(error)
    n_out_err = len(traced.jaxpr.outs) - len(jaxpr.out_avals)
    outs = pmap_p.bind(
        *hoisted,
        *err_leaves,
        *args,
        jaxpr=closed,
        in_axes=(None,) * (len(hoisted) + len(err_leaves)) + tuple(in_axes),
        out_axes=(0,) * n_out_err + tuple(out_axes),
        axis_name=axis_name,
        axis_size=axis_size,
        **params,
    )
    return _split(out_aux, outs)


def _shard_map_check(error, enabled, *args, jaxpr, mesh, in_specs, out_specs, **params):
    """Each device checks its blocks: errors go in replicated and come out with a leading axis
    split over the whole mesh (one entry per device), as JAX's rule gives them."""
    from .call_operands import _hoist_tracer_consts
    from .lax import api as lax_api
    from .parallel import spmd

    err_leaves, err_aux = _flatten_error(error)
    n_err, store = len(err_leaves), []

    def body(*xs: Any) -> list[Any]:
        e, outs = checkify_jaxpr(
            jaxpr.jaxpr, jaxpr.consts, enabled, _unflatten_error(err_aux, xs[:n_err]), xs[n_err:]
        )
        leaves, aux = _flatten_error(e)
        store.append(aux)
        return [*(lax_api.expand_dims(x, (0,)) for x in leaves), *outs]

    with spmd._manual_axes(mesh):
        traced = trace_to_jaxpr(body, [*(core.get_aval(x) for x in err_leaves), *jaxpr.in_avals])
    closed, hoisted = _hoist_tracer_consts(traced)
    out_err = traced.jaxpr.outs[: len(traced.jaxpr.outs) - len(jaxpr.out_avals)]
    every_device = tuple(mesh.axis_names)
    outs = spmd.shard_map_p.bind(
        *hoisted,
        *err_leaves,
        *args,
        jaxpr=closed,
        mesh=mesh,
        in_specs=tuple(spmd._replicated(core.get_aval(x).ndim) for x in (*hoisted, *err_leaves))
        + tuple(in_specs),
        out_specs=tuple((every_device,) + spmd._replicated(v.aval.ndim - 1) for v in out_err)
        + tuple(out_specs),
        **params,
    )
    return _split(store[0], outs)


def _cond_check(error, enabled, index, *ops, branches, branches_platforms=None):
    from .lax.cond import cond_p

    avals = [core.get_aval(x) for x in ops]
    error = error._with_placeholders(set().union(*(_effects_of(b, enabled, error, avals) for b in branches)))
    err_leaves, _ = _flatten_error(error)
    traced = [_checkified(b, enabled, error, avals) for b in branches]
    converted = [_closure_converted(t) for t, _ in traced]
    # Every branch takes all branches' constants: its own, and unused binders for the others'.
    all_consts = [c for _, cs in converted for c in cs]
    new_branches, before = [], 0
    for j, cs in converted:
        fresh = [Var(core.get_aval(c)) for c in all_consts]
        mine = slice(before, before + len(cs))
        binders = [
            *fresh[: mine.start],
            *j.in_binders[: len(cs)],
            *fresh[mine.stop :],
            *j.in_binders[len(cs) :],
        ]
        new_branches.append(ClosedJaxpr(Jaxpr([], binders, j.eqns, j.outs), []))
        before = mine.stop
    outs = cond_p.bind(index, *all_consts, *err_leaves, *ops, branches=tuple(new_branches))
    out_err, out_vals = _split(traced[0][1], outs)
    metadata = {k: v for _, aux in traced for k, v in aux[1]}  # whichever branch ran, its messages
    return dataclasses.replace(out_err, _metadata={**out_err._metadata, **metadata}), out_vals


def _scan_check(error, enabled, *args, jaxpr, num_consts, num_carry, **params):
    from .lax.scan import scan_p

    consts, rest = args[:num_consts], args[num_consts:]
    carry, xs = rest[:num_carry], rest[num_carry:]
    x_avals = [core.get_aval(x).update(shape=core.get_aval(x).shape[1:]) for x in xs]
    in_avals = [*(core.get_aval(c) for c in (*consts, *carry)), *x_avals]
    error = error._with_placeholders(_effects_of(jaxpr, enabled, error, in_avals))
    err_leaves, _ = _flatten_error(error)
    traced, out_aux = _checkified(jaxpr, enabled, error, in_avals)
    j, body_consts = _closure_converted(traced)
    nb, ne = len(body_consts), len(err_leaves)
    b = j.in_binders  # (body consts, error, scan consts, carry, xs) -> error joins the carry
    binders = [*b[:nb], *b[nb + ne : nb + ne + num_consts], *b[nb : nb + ne], *b[nb + ne + num_consts :]]
    outs = scan_p.bind(
        *body_consts,
        *consts,
        *err_leaves,
        *carry,
        *xs,
        jaxpr=ClosedJaxpr(Jaxpr([], binders, j.eqns, j.outs), []),
        num_consts=nb + num_consts,
        num_carry=ne + num_carry,
        **params,
    )
    return _split(out_aux, outs)


def _while_check(error, enabled, *args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    from .lax.loops import while_p

    if cond_jaxpr.out_avals[0].shape:
        raise ValueError(
            "Checkify does not support batched while-loops (checkify-of-vmap-of-while). \nHint: if "
            "possible, move the vmap to the outer level to get vmap-of-checkify-of-while."
        )
    nc, nbc = cond_nconsts, body_nconsts
    cconsts, bconsts, carry = args[:nc], args[nc : nc + nbc], args[nc + nbc :]
    # The first test of the condition may fail a check; each step then tests the next carry.
    error, _ = checkify_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, enabled, error, [*cconsts, *carry])

    def step(*xs: Any) -> list[Any]:
        from .lax import dce_sink

        out = ir.eval_jaxpr(body_jaxpr.jaxpr, xs[nc:], body_jaxpr.consts)
        dce_sink(ir.eval_jaxpr(cond_jaxpr.jaxpr, [*xs[:nc], *out], cond_jaxpr.consts))  # (JAX's: kept)
        return out

    avals = [core.get_aval(x) for x in args]
    step_jaxpr = trace_to_jaxpr(step, avals)
    error = error._with_placeholders(_effects_of(step_jaxpr, enabled, error, avals))
    err_leaves, _ = _flatten_error(error)
    traced, out_aux = _checkified(step_jaxpr, enabled, error, avals)
    j, step_consts = _closure_converted(traced)
    ns, ne = len(step_consts), len(err_leaves)
    b = j.in_binders  # (step consts, error, cond consts, body consts, carry) -> error joins the carry
    body_binders = [*b[:ns], *b[ns + ne : ns + ne + nc + nbc], *b[ns : ns + ne], *b[ns + ne + nc + nbc :]]
    cj = _silenced(cond_jaxpr).jaxpr  # the loop's own test: its checks are the step's
    cond_binders = [*cj.in_binders[:nc], *(Var(core.get_aval(x)) for x in err_leaves), *cj.in_binders[nc:]]
    outs = while_p.bind(
        *cconsts,
        *step_consts,
        *cconsts,
        *bconsts,
        *err_leaves,
        *carry,
        cond_jaxpr=ClosedJaxpr(Jaxpr(cj.constvars, cond_binders, cj.eqns, cj.outs), cond_jaxpr.consts),
        body_jaxpr=ClosedJaxpr(Jaxpr([], body_binders, j.eqns, j.outs), []),
        cond_nconsts=nc,
        body_nconsts=ns + nc + nbc,
    )
    return _split(out_aux, outs)


def _errors_alongside(prim: Primitive, body_param: str):
    """For call primitives with rules of their own (custom_jvp/vjp, checkpoint): the values come
    from the primitive as bound, the errors from a checkified copy of its body if it has any."""

    def rule(error, enabled, *args, **params):
        body = params[body_param]
        closed = body if isinstance(body, ClosedJaxpr) else ClosedJaxpr(body, [])
        outs = prim.bind(
            *args,
            **{
                **params,
                body_param: _silenced(closed) if isinstance(body, ClosedJaxpr) else _silenced(closed).jaxpr,
            },
        )
        traced, _ = _checkified(closed, enabled, error, [core.get_aval(a) for a in args])
        n_in = len(_flatten_error(error)[0])
        j = traced.jaxpr
        passes_through = len(j.outs) - len(closed.out_avals) == n_in and all(
            o is b for o, b in zip(j.outs[:n_in], j.in_binders[len(j.constvars) :][:n_in])
        )
        if not passes_through:
            error, _ = checkify_jaxpr(closed.jaxpr, closed.consts, enabled, error, args)
        return error, outs

    return rule


def _register() -> None:
    from . import ad_checkpoint, custom_derivatives
    from .jit_primitive import jit_p
    from .lax.cond import cond_p
    from .lax.loops import while_p
    from .lax.scan import scan_p

    error_checks[jit_p] = _jit_check
    error_checks[cond_p] = _cond_check
    error_checks[scan_p] = _scan_check
    error_checks[while_p] = _while_check
    from .parallel.pmap_primitive import pmap_p

    error_checks[pmap_p] = _pmap_check
    from .parallel import spmd

    error_checks[spmd.shard_map_p] = _shard_map_check
    for prim, param in (
        (custom_derivatives.custom_jvp_call_p, "call_jaxpr"),
        (custom_derivatives.custom_vjp_call_p, "call_jaxpr"),
        (ad_checkpoint.checkpoint_p, "jaxpr"),
    ):
        error_checks[prim] = _errors_alongside(prim, param)


_register()
