"""Varying manual axes (``core.vma_checking``): which mesh axes a value inside a shard_map body
whose varying axes are checked varies over, and the ``pvary`` that makes an operation's operands
agree first, as JAX's lax wrappers insert it (``insert_collective_pvary`` for a collective's
operand). Importing this module installs the hooks ``Primitive.bind`` and ``abstract_eval`` call
while such a body is traced or run."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from .. import core
from .. import ad, batching
from ..avals import PartialAxis, axis_kind, merged_axes
from ..core import ShapedArray
from ..ir import holds_jaxprs
from ..tree_util import tree_map
from . import parallel as lp
from .all_gather_typed import TYPED_GATHERS, result_vma
from .parallel import _names, _pmap_axes


def vma_rule(prim, params, in_vmas) -> set:
    """The axes an equation's results vary over, given its operands'."""
    union: set = set(merged_axes(*in_vmas).values())
    if prim in (lp.psum_p, lp.pmax_p, lp.pmin_p, lp.psum_invariant_p):
        return union - set(params["axes"])
    if prim in (lp.all_gather_p, lp.psum_scatter_p, lp.ppermute_p, lp.all_to_all_p):
        return union | set(params["axis_name"])
    if prim in TYPED_GATHERS:
        return result_vma(prim, union, params["axis_name"])
    if prim is lp.axis_index_p:
        return set(_names(params["axis_name"]))
    if prim is lp.pvary_p:
        return union | set(params["axes"])
    kind = _CAST_KINDS.get(prim)
    if kind is not None:  # (a cast: its axes take the state it casts to)
        axes = set(params["axes"])
        return {a for a in union if a not in axes} | {
            a if kind == "V" else PartialAxis(a, kind) for a in axes
        }
    return union


def mesh_order(axes) -> tuple:
    """``axes`` in the order of the body's mesh (shard_map binds its axes in that order)."""
    order = [n for n, _ in _pmap_axes]
    named = merged_axes(axes).values()  # (an axis's partial state kept)
    return tuple(sorted(named, key=lambda n: order.index(n) if n in order else len(order)))


def _vma_of(x) -> tuple:
    return getattr(x.aval, "vma", ()) if isinstance(x, core.Tracer) else ()


def pvary_to(x: Any, axes: Any) -> Any:
    missing = mesh_order(set(axes) - set(_vma_of(x)))
    return lp.pvary_p.bind(x, axes=missing)[0] if missing else x


# collective -> the param naming the axes its operand varies over first (JAX's
# insert_collective_pvary)
_COLLECTIVE_AXES = {
    lp.pmax_p: "axes",
    lp.pmin_p: "axes",
    lp.all_gather_p: "axis_name",
    **{p: "axis_name" for p in TYPED_GATHERS},
    lp.psum_scatter_p: "axis_name",
    lp.ppermute_p: "axis_name",
    lp.all_to_all_p: "axis_name",
}


def _match_vma(prim, args, params):
    key = _COLLECTIVE_AXES.get(prim)
    if key is not None:
        return [pvary_to(a, _names(params[key])) for a in args]
    if len(args) < 2 or prim is lp.pvary_p or prim.results_vary_as_operands or holds_jaxprs(params):
        return args  # (calls and control flow: their bodies' operations match their own operands)
    vmas = [_vma_of(a) for a in args]
    merged = merged_axes(*vmas)
    # (a reduced operand meeting a varying one is cast to varying first: JAX's reduced_vary_cast)
    args = [_unreduce(a, v, merged) for a, v in zip(args, vmas)]
    vmas = [_vma_of(a) for a in args]
    union = set().union(*vmas)
    if all(len(v) == len(union) for v in vmas):
        return args
    return [pvary_to(a, union) for a in args]


def _unreduce(x, vma, merged):
    axes = [a for a in vma if axis_kind(a) == "R" and axis_kind(merged[a]) == "V"]
    return reduced_vary_cast_p.bind(x, axes=mesh_order(str(a) for a in axes)) if axes else x


def _vma_out(prim, avals, params, out):
    if prim.results_vary_as_operands:
        return [o.update(vma=a.vma) if type(o) is ShapedArray else o for o, a in zip(out, avals)]
    if holds_jaxprs(params):  # (calls and control flow: their results vary as their bodies' do)
        return out
    vma = mesh_order(vma_rule(prim, params, [getattr(a, "vma", ()) for a in avals]))

    def typed(o):
        same = o.vma == vma and list(map(axis_kind, o.vma)) == list(map(axis_kind, vma))
        return o.update(vma=vma) if type(o) is ShapedArray and not same else o

    return [typed(o) for o in out] if prim.multiple_results else typed(out)


core.vma_hooks[:] = [_match_vma, _vma_out]


@contextmanager
def checking_vma(on: bool):
    """Trace or run a shard_map body with its varying axes checked (``on``) or not."""
    prev, core.vma_checking[0] = core.vma_checking[0], int(on)
    try:
        yield
    finally:
        core.vma_checking[0] = prev


def pcast(x, axis_name, *, to):
    """Change how ``x`` relates to its copies along mesh axes inside ``shard_map`` (a type change:
    no data moves): ``to='varying'`` makes an invarying value vary over ``axis_name`` (each device
    may then change its copy independently), or a reduced one; ``to='unreduced'`` declares a
    varying value a partial sum (the true value is the sum of the devices'); ``to='reduced'`` marks
    an invarying value reduced (its cotangent is then unreduced).

    >>> from engine.sharding import PartitionSpec as P
    >>> mesh = jax.make_mesh((2,), ("i",))
    >>> f = jax.shard_map(lambda y: pcast(y, "i", to="varying") + jax.lax.axis_index("i"),
    ...                   mesh=mesh, in_specs=P(), out_specs=P("i"))
    >>> f(jnp.zeros(1))
    Array([0., 1.], dtype=float32)
    """
    if isinstance(axis_name, (set, frozenset)):
        raise TypeError(f"axis_name={axis_name!r} must be a tuple or a str. Got {axis_name}")
    if not axis_name:
        return x
    if to not in _CASTS_TO:
        raise ValueError(f"Got unexpected `to` value. Allowed `to` values are: {set(_CASTS_TO)}")
    axes = _names(axis_name)

    def cast(v):  # (outside a body whose varying axes are checked no type changes: JAX binds nothing)
        aval = core.get_aval(v)
        vma = {str(a): axis_kind(a) for a in getattr(aval, "vma", ())}
        states = {_STATES[vma.get(a, "I")] for a in axes}
        if len(states) > 1:
            raise ValueError(
                "jax.lax.pcast can only accept axis_name which corresponds to one of varying, unreduced, "
                f"reduced or invarying state of the input. Got input type: {aval}, axes: {axes} and input "
                f"state: {states}"
            )
        (state,) = states
        prim = _CASTS_TO[to].get(state)
        if prim is None:
            raise ValueError(f"Unsupported pcast from={state}, to={to!r}")
        if not core.vma_checking[0]:
            return v
        out = prim.bind(v, axes=mesh_order(axes))
        return out[0] if prim.multiple_results else out

    return tree_map(cast, x)


# The casts between the states of a value along manual mesh axes (JAX's): no data moves, only the
# type changes. Transposes pair them: a cast to unreduced becomes one from reduced and the other way
# round; a cast to reduced (of an invarying value) becomes a psum of the unreduced cotangent.
vary_unreduced_cast_p = core.Primitive("vary_unreduced_cast_p")
reduced_vary_cast_p = core.Primitive("reduced_vary_cast_p")
preduced_p = core.Primitive("preduced")
_STATES = {"V": "varying", "U": "unreduced", "R": "reduced", "I": "invarying"}


for _prim, _back in (
    (vary_unreduced_cast_p, reduced_vary_cast_p),
    (reduced_vary_cast_p, vary_unreduced_cast_p),
    (preduced_p, None),
):
    _prim.def_impl(lambda x, *, axes: x)
    _prim.def_abstract_eval(lambda aval, *, axes: aval)  # (the vma hook types the result)
    batching.vectorized_batcher(_prim)
    if _back is not None:
        ad.deflinear(_prim, lambda ct, x, *, axes, _back=_back: [_back.bind(ct, axes=axes)])
ad.deflinear(preduced_p, lambda ct, x, *, axes: [lp.psum_p.bind(ct, axes=axes, axis_index_groups=None)[0]])
_CAST_KINDS = {vary_unreduced_cast_p: "U", reduced_vary_cast_p: "V", preduced_p: "R"}
_CASTS_TO = {
    "varying": {"invarying": lp.pvary_p, "reduced": reduced_vary_cast_p},
    "unreduced": {"varying": vary_unreduced_cast_p},
    "reduced": {"invarying": preduced_p},
}
