"""Values unreduced or reduced over mesh axes, as JAX's explicit-mode types say them.

An array *unreduced* over mesh axis ``X`` (``float32[2,2]{U:X}``) is a sum not yet taken: each
device along ``X`` holds a full-shape partial sum, and the value is their sum (a contraction over a
dimension split by ``X`` with ``out_sharding=P(..., unreduced={'X'})`` stops before its ``psum``).
An array *reduced* over ``X`` (``{R:X}``) is held whole by every device along ``X``, as a replicated
one is; only its cotangent differs: it is unreduced, so a cast to reduced in the forward pass places
the backward pass's ``psum`` (the transposed cast).

The partitioner's spec of such a value is a ``PartialSpec``: the per-dimension axes (a tuple, as
every spec) plus the two sets. After each equation ``typed_outs`` applies the primitive's row of
``ur_rules`` (JAX's ``ur_rule``s): linear operations keep a value unreduced (``add`` of two
unreduced alike, ``mul`` of an unreduced by a reduced, ``transpose``, ``reduce_sum``...), anything
else refuses one in JAX's words; reduced flows through elementwise operations. ``convert`` moves a
value's data between the states where a sharding is asked for (``reshard``, ``out_sharding``).
"""

from __future__ import annotations

import numpy as np

from typing import Callable

from .. import batching, core
from ..lax import parallel as lax_parallel

_EMPTY: frozenset = frozenset()


class PartialSpec(tuple):
    """A spec (per dimension, the mesh axes splitting it) of a value unreduced or reduced over
    some mesh axes; equal only to a spec with the same sets."""

    unreduced: frozenset
    reduced: frozenset

    def __eq__(self, other):
        return tuple.__eq__(self, other) and (unreduced_of(other), reduced_of(other)) == (
            self.unreduced,
            self.reduced,
        )

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((tuple(self), self.unreduced, self.reduced))

    def __reduce__(self):
        return (with_partial, (tuple(self), self.unreduced, self.reduced))

    def __repr__(self):
        return f"PartialSpec({tuple(self)!r}, unreduced={set(self.unreduced)}, reduced={set(self.reduced)})"


def with_partial(spec, unreduced=_EMPTY, reduced=_EMPTY) -> tuple:
    """``spec`` unreduced and reduced over the axes given (a plain tuple when there are none)."""
    if not unreduced and not reduced:
        return tuple(spec)
    out = PartialSpec(spec)
    out.unreduced, out.reduced = frozenset(unreduced), frozenset(reduced)
    return out


def unreduced_of(spec) -> frozenset:
    return getattr(spec, "unreduced", _EMPTY)


def reduced_of(spec) -> frozenset:
    return getattr(spec, "reduced", _EMPTY)


def convert(ctx, val, have, want):
    """The local piece ``val`` of a value specced ``have`` (laid out as ``want`` already) as
    ``want``'s states say: a ``psum`` over the axes it stops being unreduced over; over the axes it
    becomes unreduced, the devices at coordinate 0 keep it and the others hold zeros (the pieces
    add up to it). Reduced is a state of the type only: no data moves."""
    from .. import lax

    summed = tuple(a for a in ctx.mesh.axis_names if a in unreduced_of(have) - unreduced_of(want))
    if summed:
        val = lax_parallel.psum(val, summed[0] if len(summed) == 1 else summed)
    split = tuple(a for a in ctx.mesh.axis_names if a in unreduced_of(want) - unreduced_of(have))
    if split:
        first = lax.eq(lax_parallel.axis_index(split[0] if len(split) == 1 else split), np.int32(0))
        val = lax.select(
            lax.broadcast_in_dim(first, core.get_aval(val).shape, ()), val, lax.full_like(val, 0)
        )
    return val


def convert_first(ctx, x, want):
    """``x`` (a ``Sharded``) summed over the unreduced axes ``want`` drops, before any layout
    change (a sum after slicing would add different blocks)."""
    summed = unreduced_of(x.spec) - unreduced_of(want)
    if not summed:
        return x
    keep = with_partial(x.spec, unreduced_of(x.spec) - summed, reduced_of(x.spec))
    return x._replace(val=convert(ctx, x.val, x.spec, keep), spec=keep)


# --- JAX's rules: which states an operation's result is in ----------------------------------

UrRule = Callable[..., "tuple[frozenset, frozenset]"]
ur_rules: dict[core.Primitive, UrRule] = {}


def _not_implemented(name: str, what: str = "unreduced") -> NotImplementedError:
    return NotImplementedError(
        f"{what} rule for {name} is not implemented. Please file an issue at https://github.com/jax-ml/jax/issues"
    )


def _type(ctx, x) -> str:
    from .partition import _type_str

    return _type_str(ctx, x, long=True) + states_str(ctx, x.spec)


def states_str(ctx, spec) -> str:
    """``{U:X}``/``{R:X}``: the states of a value specced ``spec`` as its type prints them."""
    from ..sharded_types import partial_str
    from ..sharding import NamedSharding, PartitionSpec

    u, r = unreduced_of(spec), reduced_of(spec)
    return partial_str(NamedSharding(ctx.mesh, PartitionSpec(unreduced=u, reduced=r))) if u or r else ""


def _nary_reduced(ctx, vals) -> frozenset:
    """JAX's ``default_nary_reduced_rule``: the one set the operands are reduced over, none of
    them replicated or split over it (a scalar operand is let through: it is broadcast)."""
    from .partition import ShardingTypeError

    sets = {reduced_of(x.spec) for x in vals if reduced_of(x.spec)}
    if len(sets) > 1:
        raise ShardingTypeError(f"All inputs should be reduced across the same mesh axes. Got specs: {sets}")
    reduced = sets.pop() if sets else _EMPTY
    for x in vals if reduced else ():
        split = {a for axes in x.spec for a in axes}
        if split & reduced:
            raise ShardingTypeError(
                "Inputs cannot be sharded/varying on the same axes that another input is reduced on. "
                "Reshard the input which is reduced to be sharded on the mesh axes it is reduced on via "
                f"`jax.sharding.reshard(inp, jax.P(...))`. Got input type: {_type(ctx, x)} and reduced "
                f"spec: {reduced}"
            )
        if len(x.spec) and not (reduced_of(x.spec) | unreduced_of(x.spec)) & reduced:
            raise ShardingTypeError(
                "Inputs cannot be replicated on the same axes that another input is reduced on. Got "
                f"input type: {_type(ctx, x)} and reduced spec: {reduced}"
            )
    return reduced


def _elementwise(name):
    def rule(ctx, vals, params):
        reduced = _nary_reduced(ctx, vals)
        if any(unreduced_of(x.spec) for x in vals):
            raise _not_implemented(name)
        return _EMPTY, reduced

    return rule


def _add(ctx, vals, params):
    from .partition import ShardingTypeError

    x, y = vals
    reduced = _nary_reduced(ctx, vals)
    xu, yu = unreduced_of(x.spec), unreduced_of(y.spec)
    if xu and yu and xu != yu:
        raise ShardingTypeError(
            f"lhs and rhs to `add` must be unreduced along the same mesh axes. Got lhs={xu}, rhs={yu}"
        )
    if bool(xu) != bool(yu):
        this, that = ("lhs", "rhs") if xu else ("rhs", "lhs")
        raise ShardingTypeError(
            f"{this} is unreduced while {that} is not. `add` operation does not allow this because there "
            f"will be implicit communication. Please reduce {this} via `reshard` before calling `add`."
        )
    return xu, reduced


def _mul(ctx, vals, params):
    from .partition import ShardingTypeError

    x, y = vals
    xu, yu = unreduced_of(x.spec), unreduced_of(y.spec)
    if xu and yu:
        raise ShardingTypeError(
            f"lhs and rhs to `mul` cannot be unreduced since mul is bilinear. Got lhs={xu}, rhs={yu}"
        )
    if xu or yu:
        (u, other, side, other_side) = (xu, y, "RHS", "LHS") if xu else (yu, x, "LHS", "RHS")
        if reduced_of(other.spec) != u:
            raise ShardingTypeError(
                f"{side} should be reduced along the same axes {other_side} is unreduced on. Got "
                f"lhs={_type(ctx, x)} and rhs={_type(ctx, y)}"
            )
        return u, _EMPTY
    return _EMPTY, _nary_reduced(ctx, vals)


def _kept(ctx, vals, params):
    """A linear operation of one operand (``transpose``, ``squeeze``, a slice...): as it is."""
    return unreduced_of(vals[0].spec), reduced_of(vals[0].spec)


def _laid_out(key: str):
    """An operation whose ``key`` parameter may say its result's states (``convert_element_type``'s
    ``sharding``, ``reduce_sum``'s ``out_sharding``): those, else its operand's."""

    def rule(ctx, vals, params):
        target = params.get(key)
        spec = getattr(target, "spec", None)
        u = spec.unreduced if spec is not None and spec.unreduced else unreduced_of(vals[0].spec)
        r = spec.reduced if spec is not None and spec.reduced else reduced_of(vals[0].spec)
        return u, r

    return rule


def _same_sets(what: str):
    """``concatenate``-like: every operand unreduced (and reduced) over the same axes, or none."""

    def rule(ctx, vals, params):
        from .partition import ShardingTypeError

        out = []
        for state, of in (("unreduced", unreduced_of), ("reduced", reduced_of)):
            sets = {of(x.spec) for x in vals if of(x.spec)}
            if len(sets) > 1:
                raise ShardingTypeError(
                    f"All {what} should be {state} along the same mesh axes. Got {state} specs: {sets}"
                )
            out.append(sets.pop() if sets else _EMPTY)
        return out[0], out[1]

    return rule


def _dot_general(ctx, vals, params):
    from .partition import ShardingTypeError, _entry, _explicit

    lhs, rhs = vals
    if unreduced_of(lhs.spec) or unreduced_of(rhs.spec):
        raise ShardingTypeError(
            f"lhs or rhs passed to dot_general cannot be unreduced. Got lhs={_type(ctx, lhs)} and "
            f"rhs={_type(ctx, rhs)}"
        )
    out_sharding = params.get("out_sharding")
    unreduced = getattr(getattr(out_sharding, "spec", None), "unreduced", _EMPTY)
    if unreduced and ctx.explicit:
        (lc, rc), _ = params["dimension_numbers"]
        lspec = tuple(_entry(_explicit(ctx, lhs.spec[d])) for d in lc)
        rspec = tuple(_entry(_explicit(ctx, rhs.spec[d])) for d in rc)
        if lspec != rspec:
            raise ShardingTypeError(
                "lhs and rhs contracting dims should be sharded identically when out_sharding provided to "
                f"dot_general mentions unreduced_axes. Got lhs_contracting_spec={lspec}, "
                f"rhs_contracting_spec={rspec}"
            )
        if unreduced != {a for d in lc for a in lhs.spec[d]}:
            raise ShardingTypeError(
                "out_sharding's unreduced axes should be equal to the contracting specs. Got unreduced "
                f"axes={unreduced} and contracting spec={lspec}"
            )
    return unreduced, _EMPTY  # (JAX's rule does not pass reduced on yet)


def _install():
    from .. import ad
    from ..lax import dynamic_slicing, elementwise, joining, reductions, slicing, structural
    from ..lax.dot_general import dot_general_p

    s = structural
    for prim in (elementwise.add_p, ad.add_jaxvals_p):
        ur_rules[prim] = _add
    ur_rules[elementwise.mul_p] = _mul
    for prim in (s.transpose_p, s.squeeze_p, s.pad_p, elementwise.reduce_precision_p, slicing.slice_p):
        ur_rules[prim] = _kept
    ur_rules[s.convert_element_type_p] = _laid_out("sharding")
    ur_rules[reductions.reduce_sum_p] = _laid_out("out_sharding")
    ur_rules[s.reshape_p] = _laid_out("sharding")
    ur_rules[s.broadcast_in_dim_p] = _laid_out("sharding")
    ur_rules[joining.concatenate_p] = _same_sets("operands")
    ur_rules[s.select_n_p] = lambda ctx, vals, params: _same_sets("cases")(ctx, vals[1:], params)
    ur_rules[dynamic_slicing.dynamic_update_slice_p] = lambda ctx, vals, params: _same_sets("operands")(
        ctx, vals[:2], params
    )
    ur_rules[dot_general_p] = _dot_general


def _rule(prim: core.Primitive) -> UrRule:
    if not ur_rules:
        _install()
    rule = ur_rules.get(prim)
    if rule is not None:
        return rule
    if batching.is_elementwise(prim):
        return _elementwise(prim.name)

    def refuse(ctx, vals, params):
        raise _not_implemented(prim.name, "unreduced/reduced")

    return refuse


def involved(vals, params) -> bool:
    """Whether an equation meets a value unreduced or reduced, or asks for one."""
    if any(type(x.spec) is PartialSpec for x in vals):
        return True
    for key in ("out_sharding", "sharding"):
        spec = getattr(params.get(key), "spec", None)
        if spec is not None and (spec.unreduced or spec.reduced):
            return True
    return False


def own(eqn, always_ruled) -> bool:
    """Whether ``eqn``'s rule says itself which of its results are unreduced or reduced (a
    ``reshard``, one of ``always_ruled``; a call, loop or ``shard_map``, from its body)."""
    from ..ir import subjaxprs

    return eqn.primitive in always_ruled or next(subjaxprs(eqn), None) is not None


def typed_outs(ctx, prim, vals, params, outs: list) -> list:
    """``outs`` (a rule's ``Sharded`` results) in the states JAX's rule for ``prim`` gives them."""
    unreduced, reduced = _rule(prim)(ctx, vals, params)
    return [o._replace(spec=with_partial(o.spec, unreduced, reduced)) for o in outs]
