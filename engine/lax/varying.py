"""Varying manual axes (``core.vma_checking``): which mesh axes a value inside a shard_map body
whose varying axes are checked varies over, and the ``pvary`` that makes an operation's operands
agree first, as JAX's lax wrappers insert it (``insert_collective_pvary`` for a collective's
operand). Importing this module installs the hooks ``Primitive.bind`` and ``abstract_eval`` call
while such a body is traced or run."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from .. import core
from ..core import ShapedArray
from ..ir import holds_jaxprs
from ..tree_util import tree_map
from . import parallel as lp
from .parallel import _names, _pmap_axes


def vma_rule(prim, params, in_vmas) -> set:
    """The axes an equation's results vary over, given its operands'."""
    union: set = set().union(*in_vmas) if in_vmas else set()
    if prim in (lp.psum_p, lp.pmax_p, lp.pmin_p, lp.psum_invariant_p):
        return union - set(params["axes"])
    if prim in (lp.all_gather_p, lp.psum_scatter_p, lp.ppermute_p, lp.all_to_all_p):
        return union | set(params["axis_name"])
    if prim is lp.axis_index_p:
        return set(_names(params["axis_name"]))
    if prim is lp.pvary_p:
        return union | set(params["axes"])
    return union


def mesh_order(axes) -> tuple:
    """``axes`` in the order of the body's mesh (shard_map binds its axes in that order)."""
    order = [n for n, _ in _pmap_axes]
    return tuple(sorted(set(axes), key=lambda n: order.index(n) if n in order else len(order)))


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
    union = set().union(*vmas)
    if all(len(v) == len(union) for v in vmas):
        return args
    return [pvary_to(a, union) for a in args]


def _vma_out(prim, avals, params, out):
    if prim.results_vary_as_operands:
        return [o.update(vma=a.vma) if type(o) is ShapedArray else o for o, a in zip(out, avals)]
    vma = mesh_order(vma_rule(prim, params, [getattr(a, "vma", ()) for a in avals]))

    def typed(o):
        return o.update(vma=vma) if type(o) is ShapedArray and o.vma != vma else o

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
    """Change which mesh axes ``x`` varies over inside ``shard_map``: ``to='varying'`` makes it
    vary over ``axis_name`` (each device may then change its copy independently).

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
    if to != "varying":
        raise NotImplementedError(f"lax.pcast(..., to={to!r}): the engine supports to='varying' only")
    axes = _names(axis_name)

    def cast(v):  # (outside a body whose varying axes are checked no type changes: JAX binds nothing)
        aval = core.get_aval(v)
        states = {"varying" if a in getattr(aval, "vma", ()) else "invarying" for a in axes}
        if states != {"invarying"}:
            raise ValueError(
                f"Unsupported pcast from=varying, to={to!r}"
                if len(states) == 1
                else "jax.lax.pcast can only accept axis_name which corresponds to one of varying, unreduced, "
                f"reduced or invarying state of the input. Got input type: {aval}, axes: {axes} and input "
                f"state: {states}"
            )
        return lp.pvary_p.bind(v, axes=axes)[0] if core.vma_checking[0] else v

    return tree_map(cast, x)
