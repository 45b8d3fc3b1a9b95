"""A program with refs lowered as JAX 0.10.2 lowers it: pruned, its closed-over refs moved after
its arguments (``_move_mutable_consts``), then discharged (``engine.state.jaxpr_discharge``): each
ref argument is an input whose final value is an extra output, aliased to it
(``tf.aliasing_output``) and pinned to the empty mesh; a closed-over ref carries its layout too.
Refs made and frozen inside the program leave no trace in the module's signature."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..ir import ClosedJaxpr, Jaxpr
from ..state.jaxpr_discharge import discharge_state, has_state
from ..state.types import AbstractRef
from .dce import Pruner


class Stateful(NamedTuple):
    closed: ClosedJaxpr  # discharged, not to be pruned again (JAX lowers it as it is)
    kept: list[int]  # the arguments @main takes
    arg_attrs: list[str] | None  # per kept argument; None: no ref arguments (no attributes at all)
    result_attrs: list[str] | None


def _sharding(aval: Any) -> str:
    return f"sdy.sharding = #sdy.sharding<@empty_mesh, [{', '.join('{}' for _ in aval.shape)}]>"


def _layout(aval: Any) -> str:
    return f'mhlo.layout_mode = "{{{",".join(str(d) for d in reversed(range(len(aval.shape))))}}}"'


def stateful(closed: ClosedJaxpr, keep_unused: bool) -> Stateful | None:
    """``closed`` ready to lower when it has state; None when it has none."""
    if not has_state(closed):
        return None
    jaxpr, used = Pruner().jaxpr(closed.jaxpr, [True] * len(closed.jaxpr.outs), prune_inputs=False)
    is_ref_const = [isinstance(v.aval, AbstractRef) for v in jaxpr.constvars]
    consts = [c for c, r in zip(closed.consts, is_ref_const) if not r]
    constvars = [v for v, r in zip(jaxpr.constvars, is_ref_const) if not r]
    moved = [v for v, r in zip(jaxpr.constvars, is_ref_const) if r]
    n_args = len(jaxpr.in_binders)
    hoisted = ClosedJaxpr(Jaxpr(constvars, [*jaxpr.in_binders, *moved], jaxpr.eqns, jaxpr.outs), consts)
    discharged = discharge_state(hoisted)
    kept = [i for i, u in enumerate(used) if u or keep_unused] + list(range(n_args, n_args + len(moved)))
    in_avals = hoisted.in_avals
    if not any(isinstance(a, AbstractRef) for a in in_avals):
        return Stateful(discharged, kept, None, None)
    n_out = len(jaxpr.outs)
    alias: dict[int, int] = {}
    for i, a in enumerate(in_avals):
        if isinstance(a, AbstractRef):
            alias[i] = n_out + len(alias)
    arg_attrs, result_attrs = [], ['jax.result_info = ""'] * n_out
    for i in kept:
        a = in_avals[i]
        if i not in alias:
            arg_attrs.append("")
            continue
        attrs = [_sharding(a), f"tf.aliasing_output = {alias[i]} : i32"]
        if i >= n_args:  # (a closed-over ref's layout is the array's own)
            attrs.insert(0, _layout(a))
        arg_attrs.append(", ".join(attrs))
        result_attrs.append(", ".join(['jax.result_info = ""', *attrs[:-1]]))
    return Stateful(discharged, kept, arg_attrs, result_attrs)
