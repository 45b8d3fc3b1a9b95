"""What a call passes its body besides its arguments: the values a traced function closes over
(outer tracers, refs), as JAX's pjit passes them, and the layouts of its operands on a mesh,
which types in the body (and in bodies derived from it) depend on."""

from __future__ import annotations

from typing import Any, Sequence

from . import ad, core
from .core import Tracer
from .ir import ClosedJaxpr, Jaxpr
from .state.types import Ref


def mesh_shardings(leaves: Sequence[Any]) -> list[Any] | None:
    """The shardings of the arguments on a mesh (part of their types: ``jax.typeof`` inside a
    traced function sees them), None for the others; None when no argument is on a mesh. A mesh of
    one device types its arrays too (``f32[8,128@x]``: shard_map's in_specs are checked against it)."""
    shardings = [
        x.sharding if getattr(x, "on_mesh", False) or getattr(x, "on_one_device_mesh", False) else None
        for x in leaves
    ]
    if any(isinstance(x, core.Tracer) for x in leaves):  # (a jit inside a trace: typed as its operands)
        from .sharded_types import get_abstract_mesh, staged_layout

        if get_abstract_mesh().explicit_axes:  # (replicated ones too: their layout is known)
            shardings = [
                staged_layout(x) if isinstance(x, core.Tracer) else s for x, s in zip(leaves, shardings)
            ]
    return shardings if any(s is not None for s in shardings) else None


def _hoist_tracer_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    """Consts that are tracers of an outer transformation become explicit arguments, and so do
    mutable array refs the function closes over (as JAX passes them: the call's effects show)."""
    jaxpr = closed.jaxpr
    if not any(isinstance(c, (Tracer, Ref)) for c in closed.consts):
        return closed, []
    keep_v, keep_c, hoist_v, hoist_c = [], [], [], []
    for v, c in zip(jaxpr.constvars, closed.consts):
        if isinstance(c, (Tracer, Ref)):
            hoist_v.append(v)
            hoist_c.append(c)
        else:
            keep_v.append(v)
            keep_c.append(c)
    new = Jaxpr(keep_v, hoist_v + jaxpr.in_binders, jaxpr.eqns, jaxpr.outs)
    return ClosedJaxpr(new, keep_c), hoist_c


def hoist_call_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any], bool]:
    """A jitted call's constants as JAX's pjit passes them: when one is a tracer of an outer
    transformation, every constant becomes a leading argument (in the order traced); else refs
    it closes over become trailing arguments (JAX's ``_move_mutable_consts``), and the other
    constants stay. Returns the jaxpr, the values to pass, and whether they go last."""
    jaxpr = closed.jaxpr
    if any(isinstance(c, Tracer) for c in closed.consts):
        return (
            ClosedJaxpr(Jaxpr([], [*jaxpr.constvars, *jaxpr.in_binders], jaxpr.eqns, jaxpr.outs), []),
            list(closed.consts),
            False,
        )
    if not any(isinstance(c, Ref) for c in closed.consts):
        return closed, [], False
    is_ref = [isinstance(c, Ref) for c in closed.consts]
    keep_v = [v for v, r in zip(jaxpr.constvars, is_ref) if not r]
    ref_v = [v for v, r in zip(jaxpr.constvars, is_ref) if r]
    new = Jaxpr(keep_v, [*jaxpr.in_binders, *ref_v], jaxpr.eqns, jaxpr.outs)
    keep_c = [c for c, r in zip(closed.consts, is_ref) if not r]
    return ClosedJaxpr(new, keep_c), [c for c, r in zip(closed.consts, is_ref) if r], True


# --- rules of jit_p ---------------------------------------------------------------------------


def _layouts_key(args: Sequence[Any], cts: Sequence[Any]) -> tuple[Any, ...]:
    """On an explicit mesh, the layouts of a call's operands and cotangents, which the types in its
    transposed body depend on (JAX's avals carry them; the engine's cache keys add them)."""
    from .sharded_types import get_abstract_mesh, staged_layout

    if not get_abstract_mesh().explicit_axes:
        return ()
    return tuple(
        getattr(a.aval, "sharding", None)
        if ad.is_undefined(a)
        else staged_layout(a)
        if isinstance(a, Tracer)
        else None
        for a in (*args, *cts)
    )


def refs_go_last(hoisted: Sequence[Any]) -> bool:
    """Whether what ``hoist_call_consts`` hoisted goes after the arguments (refs alone do)."""
    return bool(hoisted) and not any(isinstance(h, Tracer) for h in hoisted)


def call_arguments(hoisted: Sequence[Any], leaves: Sequence[Any], donated, shardings):
    """A call's operands in the order its jaxpr takes them, with its donation flags (for the
    arguments) and flat shardings (hoisted values first) reordered alike."""
    if not refs_go_last(hoisted):
        return [*hoisted, *leaves], donated, shardings
    if donated is not None:
        donated = [*donated, *[False] * len(hoisted)]
    if shardings:
        ins, outs = shardings
        shardings = ((*ins[len(hoisted) :], *ins[: len(hoisted)]), outs)
    return [*leaves, *hoisted], donated, shardings
