"""``jit`` (and eager operations) on arrays sharded over a mesh: one program per device.

When a jitted function receives ``NamedShardedArray`` arguments (``jax.device_put(x,
NamedSharding(mesh, P(...)))``), its jaxpr (global shapes) is partitioned into a per-device jaxpr
(local shapes) by propagating each value's partition spec equation by equation, with one rule per
primitive in ``spmd_rules``: elementwise operations keep their operands' spec, reductions and
contractions over a sharded dimension reduce locally and ``psum`` over the mesh axes that split
it, ``broadcast_in_dim``/``reshape``/``transpose`` carry specs to the dimensions they become. An
operation with no rule runs on gathered (replicated) operands, so results are always right; a
replicated operand meeting a sharded one is sliced locally (no communication).

A spec names, per dimension, the tuple of mesh axes splitting it (major first; ``()``: whole), so
any mesh shape works: on a ``(4, 2)`` mesh ``('X', 'Y')`` a ``float32[8@X,4@Y]`` value is a
``(2, 2)`` block per device, and a sum over dimension 0 is a local sum and a ``psum`` over ``X``
(the devices that share a ``Y`` coordinate).

On a mesh whose axes are ``Explicit`` the rules also check what JAX's sharding-in-types rules
check (operands of an elementwise op must agree; a contraction over sharded dimensions needs
``out_sharding``) and raise JAX's errors. Eager operations on sharded arrays run the same way: the
primitive is a one-equation program partitioned like any other (``run_eager``).

The per-device program runs on the device processes (``pmap_primitive.mesh_program``), so the run
report shows each device's work and the collectives as for ``pmap``; results stay on the devices
as ``NamedShardedArray``s with the propagated shardings (``jax.typeof`` shows them).
"""

from __future__ import annotations

import contextlib
import math
import time
import weakref
from typing import Callable, NamedTuple, Sequence

import numpy as np

from .. import ad, batching, core, monitoring
from ..core import Array, ShapedArray
from ..ir import ClosedJaxpr, Literal, dce_jaxpr
from ..lax import parallel as lax_parallel
from ..sharding import Mesh, NamedSharding, PartitionSpec, get_abstract_mesh
from ..sharding import spec_entry as _entry
from ..source_info import in_backward, raised_for
from ..staging import trace_to_jaxpr
from . import partial_types
from .named import NamedShardedArray
from .partial_types import convert, convert_first, unreduced_of, reduced_of, with_partial
from .result_shardings import mesh_result_shardings, used_arguments
from .runtime import get_runtime
from . import sharded_jit

Spec = tuple  # per dimension: the tuple of mesh axes splitting it, major first (() = whole)


class ShardingTypeError(Exception):
    """Operands whose shardings (in their types, on an explicit mesh) do not fit together."""


class Sharded(NamedTuple):
    """A value of the per-device program: the local piece and how the global value is split."""

    val: object
    spec: Spec
    view: Mesh | None = None  # the mesh it is typed on, when a reshard moved it onto the same
    # devices arranged with other axes (use_abstract_mesh): its spec stays in the program's axes


def _axis_groups(ctx_mesh: Mesh, view: Mesh) -> dict | None:
    """Each axis of ``view`` as the run of ``ctx_mesh``'s axes it spans, when ``view`` is the
    same devices (in the same order) with coarser axes; else None."""
    if list(ctx_mesh.device_ids.flat) != list(view.device_ids.flat):
        return None
    groups, names = {}, list(zip(ctx_mesh.axis_names, ctx_mesh.axis_sizes))
    for name, size in zip(view.axis_names, view.axis_sizes):
        run, n = [], 1
        while n < size and names:
            a, s = names.pop(0)
            run.append(a)
            n *= s
        if n != size:
            return None
        groups[name] = tuple(run)
    return groups


def _view_sharding(ctx_mesh: Mesh, view: Mesh, spec: Spec) -> NamedSharding | None:
    groups = _axis_groups(ctx_mesh, view)
    if groups is None:
        return None
    back = {run: name for name, run in groups.items()}
    entries = []
    for axes in spec:
        if not axes:
            entries.append(None)
            continue
        name = back.get(tuple(axes))
        if name is None:
            return None
        entries.append(name)
    return NamedSharding(view, PartitionSpec(*entries))


class MeshContext:
    """The mesh a program is partitioned over."""

    def __init__(self, mesh: Mesh, checks: bool | str = False):
        self.mesh = mesh
        self.sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
        # Raise JAX's sharding-type errors (explicit axes only): ``True`` for every equation (an
        # eager operation's one-op program), ``"user"`` for the equations the user's code staged
        # (a jit's program): a backward pass's are the engine's transpose rules', which do not say
        # the out_sharding JAX's would (a transposed dot over a sharded batch), so the partitioner
        # picks a layout for them instead of refusing the program.
        # typed: the axes shardings are typed over, which rules keep where JAX's types would
        self.typed = frozenset(mesh.explicit_axes)
        self.record: dict | None = None  # set: every variable's layout, bodies of calls included
        current = get_abstract_mesh()
        if current.axis_names == mesh.axis_names:  # (auto_axes turns checks off for its axes)
            self.typed &= frozenset(current.explicit_axes)
        self.checks = checks
        self.explicit = self.typed if checks else frozenset()
        self.untyped = False  # set: a rule gathered a typed split (``_Partitioned.untyped``)
        self.gathered: object = None  # the last _fallback result that gathered a typed split

    def parts(self, axes) -> int:
        return math.prod(self.sizes[a] for a in axes)

    def local_shape(self, shape, spec) -> tuple:
        return tuple(n // self.parts(s) for n, s in zip(shape, spec))

    def global_shape(self, shape, spec) -> tuple:
        return tuple(n * self.parts(s) for n, s in zip(shape, spec))

    def axis_env(self) -> contextlib.ExitStack:
        stack = contextlib.ExitStack()
        for name, size in self.sizes.items():
            stack.enter_context(lax_parallel.extend_axis_env(name, size))
        return stack


def spec_of(sharding: NamedSharding, ndim: int) -> Spec:
    spec = sharding.spec
    return with_partial(
        tuple(tuple(axes) for axes in sharding._normalized(ndim)), spec.unreduced, spec.reduced
    )


def sharding_of(mesh: Mesh, spec: Spec) -> NamedSharding:
    """The ``NamedSharding`` of a computed value. On a mesh of ``Auto`` axes JAX reports what the
    compiler chose, without trailing unsplit dimensions (``P('X',)``); on an explicit mesh the
    type's spec, one entry per dimension."""
    entries = [_entry(s) for s in spec]
    if not mesh.explicit_axes:
        while entries and entries[-1] is None:
            entries.pop()
    return NamedSharding(
        mesh, PartitionSpec(*entries, unreduced=unreduced_of(spec), reduced=reduced_of(spec))
    )


spmd_rules: dict[core.Primitive, Callable] = {}


def _replicated(ndim) -> Spec:
    return ((),) * ndim


def _ndim(x) -> int:
    return core.get_aval(x.val).ndim


def _axis_name(axes):
    return axes[0] if len(axes) == 1 else tuple(axes)


def _to_spec(ctx: MeshContext, x: Sharded, spec: Spec):
    """The local piece of ``x`` as laid out by ``spec``: all-gather the dimensions whose split
    changes (unless the new split only refines the old one), then slice locally."""
    from .. import lax

    v = x.val
    cur = list(x.spec)
    for d, (have, want) in enumerate(zip(cur, spec)):
        if have != want and tuple(want[: len(have)]) != tuple(have):
            v = lax_parallel.all_gather(v, _axis_name(have), axis=d, tiled=True)
            cur[d] = ()
    for d, (have, want) in enumerate(zip(cur, spec)):
        if have != want:
            extra = tuple(want[len(have) :])
            n = core.get_aval(v).shape[d] // ctx.parts(extra)
            start = lax_parallel.axis_index(_axis_name(extra)) * n
            v = lax.dynamic_slice_in_dim(v, start, n, axis=d)
    return v


def _gathered(ctx, x: Sharded):
    """The whole value of ``x`` on every device (summed first where it is unreduced)."""
    return _to_spec(ctx, convert_first(ctx, x, ()), _replicated(len(x.spec)))


def _fallback(ctx, prim, vals, params):
    """No partitioning rule: every device computes the whole result from gathered operands."""
    out = prim.bind(*[_gathered(ctx, x) for x in vals], **params)
    outs = out if prim.multiple_results else [out]
    res = [Sharded(o, _replicated(core.get_aval(o).ndim)) for o in outs]
    res = res if prim.multiple_results else res[0]
    if any(set(axes) & ctx.typed for x in vals for axes in x.spec):
        ctx.gathered = res  # (a typed split gathered: unless the rule lays it out again, see _interpret)
    return res


# --- JAX's sharding-in-types checks (explicit mesh axes only) ----------------------------------


def _type_str(ctx, x: Sharded, long: bool = False) -> str:
    """``i32[4@X,4]``: the global type of ``x`` with its explicit axes, as JAX's errors print it
    (``long``: the dtype's whole name, ``int32[4@X,4]``, as a type prints itself)."""
    aval = core.get_aval(x.val)
    dims = []
    for n, axes in zip(ctx.global_shape(aval.shape, x.spec), x.spec):
        shown = [a for a in axes if a in ctx.typed]
        dims.append(
            f"{n}@{_axis_name(shown) if len(shown) == 1 else '(' + ','.join(shown) + ')'}"
            if shown
            else str(n)
        )
    dtype = np.dtype(aval.dtype).name if long else core.dtype_short(aval.dtype)
    return f"{dtype}[{','.join(dims)}]"


def _global_aval(ctx, x: Sharded):
    aval = core.get_aval(x.val)
    return aval.update(shape=ctx.global_shape(aval.shape, x.spec)) if len(x.spec) else aval


def _explicit(ctx, axes) -> tuple:
    return tuple(a for a in axes if a in ctx.explicit)


def _elementwise(ctx, prim, vals, params):
    ranked = [x for x in vals if len(x.spec)]
    if not any(any(s) for x in ranked for s in x.spec):
        return Sharded(prim.bind(*[x.val for x in vals], **params), _replicated(max(map(_ndim, vals))))
    nd = len(ranked[0].spec)
    gshapes = [ctx.global_shape(core.get_aval(x.val).shape, x.spec) for x in ranked]
    target = []
    for d in range(nd):
        # size-1 dimensions broadcast against the others: they do not vote
        split = [x.spec[d] for x in ranked if x.spec[d]]
        shown = {_explicit(ctx, s) for s in split} - {()}
        if len(shown) > 1:
            specs = ", ".join(str(tuple(_entry(_explicit(ctx, s)) for s in x.spec)) for x in ranked)
            raise ShardingTypeError(f"{prim.name} got incompatible shardings for broadcasting: {specs}.")
        target.append(split[0] if split else ())
    used = [a for axes in target for a in axes]
    if len(set(used)) != len(used):
        if set(used) & ctx.explicit:
            # (the result's dtype, from the operands' global types: their local shapes may differ)
            out = prim.abstract_eval(*[_global_aval(ctx, x) for x in vals], **params)
            shape = [max(g[d] for g in gshapes) for d in range(nd)]
            dims = [f"{n}@{_axis_name(t)}" if _explicit(ctx, t) else str(n) for n, t in zip(shape, target)]
            inputs = ", ".join(_type_str(ctx, x) for x in vals)
            raise ShardingTypeError(
                f"{prim.name} operation with inputs: {inputs} produces an illegally sharded result: "
                f"{core.dtype_short(out.dtype)}[{','.join(dims)}]"
            )
        seen: set = set()  # Auto axes: the first dimension keeps an axis used twice
        deduped = []
        for axes in target:
            deduped.append(() if set(axes) & seen else axes)
            seen.update(axes)
        target = deduped
    target_t = tuple(target)
    args = []
    for x in vals:
        if not len(x.spec):
            args.append(x.val)
            continue
        shape = ctx.global_shape(core.get_aval(x.val).shape, x.spec)
        want = tuple(() if n == 1 and not x.spec[d] else t for d, (n, t) in enumerate(zip(shape, target_t)))
        args.append(x.val if x.spec == want else _to_spec(ctx, x, want))
    views = {x.view for x in ranked if any(x.spec)}
    return Sharded(prim.bind(*args, **params), target_t, views.pop() if len(views) == 1 else None)


def _reduction(collective):
    def rule(ctx, prim, vals, params):
        (x,) = vals
        axes = set(params["axes"])
        out = prim.bind(x.val, **params)
        over = tuple(a for d in sorted(axes) for a in x.spec[d])
        if over:
            out = collective(out, over)
        return Sharded(out, tuple(s for d, s in enumerate(x.spec) if d not in axes))

    return rule


def laid_out(rule, key: str):
    """``rule`` for a primitive whose ``key`` parameter, a sharding over the mesh, lays its result
    out (``lax.reshape(..., out_sharding=)``, ``jnp.zeros(..., out_sharding=)``): the rule runs
    without it, then the result moves there."""

    def laid(ctx, prim, vals, params):
        target = params.get(key)
        if target is None or not isinstance(target.mesh, Mesh):
            return rule(ctx, prim, vals, params)
        _check_mesh(ctx, target, f"{prim.name}'s {key}")
        checked, ctx.explicit = ctx.explicit, frozenset()  # (JAX's rule takes the layout said, unchecked)
        try:
            out = rule(ctx, prim, vals, dict(params, **{key: None}))
        finally:
            ctx.explicit = checked
        want = spec_of(target, len(out.spec))
        if tuple(out.spec) != tuple(want):  # (a layout whose parts do not divide a dimension: JAX's refusal)
            from ..sharded_types import check_divides

            check_divides(ctx.global_shape(core.get_aval(out.val).shape, out.spec), target)
        if out.spec == want:
            return out
        out = convert_first(ctx, out, want)
        return Sharded(convert(ctx, _to_spec(ctx, out, want), out.spec, want), want)

    return laid


def _arg_reduction(ctx, prim, vals, params):
    (x,) = vals
    (axis,) = params["axes"]
    if x.spec[axis]:  # the index is global: gather the reduced dimension first
        spec = x.spec[:axis] + ((),) + x.spec[axis + 1 :]
        x = Sharded(_to_spec(ctx, x, spec), spec)
    return Sharded(prim.bind(x.val, **params), tuple(s for d, s in enumerate(x.spec) if d != axis))


def _dot_general(ctx, prim, vals, params):
    lhs, rhs = vals
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    out_sharding = params.get("out_sharding")
    if ctx.explicit and out_sharding is None:  # (eager only: see MeshContext)
        _check_dot_types(ctx, lhs, rhs, lc, rc, lb, rb)
    lspec, rspec = list(lhs.spec), list(rhs.spec)
    # Pair dimensions (contracting and batch) must agree: a replicated side is sliced to match.
    for i, j in list(zip(lc, rc)) + list(zip(lb, rb)):
        if lspec[i] != rspec[j]:
            want = lspec[i] or rspec[j]
            if lspec[i] and rspec[j]:
                want = ()
            lspec[i] = rspec[j] = want
    lfree = [d for d in range(len(lspec)) if d not in lc and d not in lb]
    rfree = [d for d in range(len(rspec)) if d not in rc and d not in rb]
    out_spec = [lspec[i] for i in lb] + [lspec[d] for d in lfree] + [rspec[d] for d in rfree]
    used = [a for s in out_spec for a in s]
    summed = tuple(a for i in lc for a in lspec[i])
    if len(set(used)) != len(used) or not (_distinct(lspec) and _distinct(rspec)) or set(used) & set(summed):
        out = _fallback(ctx, prim, vals, _local_params(params))  # one mesh axis would split two dimensions
    else:
        lv = lhs.val if tuple(lspec) == lhs.spec else _to_spec(ctx, lhs, tuple(lspec))
        rv = rhs.val if tuple(rspec) == rhs.spec else _to_spec(ctx, rhs, tuple(rspec))
        out = Sharded(prim.bind(lv, rv, **_local_params(params)), tuple(out_spec))
        # An unreduced out_sharding keeps the partial sums over its axes (JAX's rule checks that it
        # names the contraction's: where the program is not checked, a whole result is split up).
        unreduced = unreduced_of(out_sharding and out_sharding.spec)
        partial = frozenset(a for a in summed if a in unreduced)
        summed = tuple(a for a in summed if a not in unreduced)
        if summed:
            out = _reduce_summed(ctx, out, summed, out_sharding)
        if unreduced - partial:
            val = convert(ctx, out.val, with_partial(out.spec, partial), with_partial(out.spec, unreduced))
            out = Sharded(val, out.spec)
    if out_sharding is not None:
        _check_mesh(ctx, out_sharding, "dot_general's out_sharding")
        want = spec_of(out_sharding, len(out.spec))
        out = Sharded(out.val if out.spec == want else _to_spec(ctx, out, want), want)
    return out


def _check_mesh(ctx, sharding, what):
    if sharding.mesh != ctx.mesh:
        raise ValueError(
            f"{what}: the mesh {sharding.mesh} is not the mesh {ctx.mesh} the computation runs on"
        )


def _local_params(params):
    return {k: v for k, v in params.items() if k != "out_sharding"} if "out_sharding" in params else params


def _reduce_summed(ctx, out: Sharded, summed, out_sharding) -> Sharded:
    """Partial sums over the ``summed`` axes: a ``psum``, or, when ``out_sharding`` splits a
    dimension over exactly those axes, a ``psum_scatter`` along it (each device keeps its block)."""
    if out_sharding is not None:
        want = spec_of(out_sharding, len(out.spec))
        for d, (have, w) in enumerate(zip(out.spec, want)):
            if not have and tuple(w) == tuple(summed):
                val = lax_parallel.psum_scatter(out.val, _axis_name(summed), scatter_dimension=d, tiled=True)
                return Sharded(val, out.spec[:d] + (tuple(summed),) + out.spec[d + 1 :])
    return Sharded(lax_parallel.psum(out.val, _axis_name(summed)), out.spec)


def _check_dot_types(ctx, lhs, rhs, lc, rc, lb, rb):
    def entries(x, dims):
        return tuple(_entry(_explicit(ctx, x.spec[d])) for d in dims)

    lbs, rbs = entries(lhs, lb), entries(rhs, rb)
    if any(a is not None and b is not None and a != b for a, b in zip(lbs, rbs)):
        raise ShardingTypeError(
            "dot_general requires lhs batch dimensions and rhs batch dimensions to have the consistent "
            f"sharding, got {lbs} and {rbs}."
        )
    lcs, rcs = entries(lhs, lc), entries(rhs, rc)
    if any(a is not None and b is not None and a != b for a, b in zip(lcs, rcs)):
        raise ShardingTypeError(
            f"dot_general requires contracting dimensions to have consistent sharding, got {lcs} and {rcs}."
        )
    for a, b in zip(lcs, rcs):
        if a is not None and b is not None:
            raise ShardingTypeError(
                "Contracting dimensions are sharded and it is ambiguous how the output should be sharded. "
                "Please specify the output sharding via the `out_sharding` parameter. "
                f"Got lhs_contracting_spec={lcs} and rhs_contracting_spec={rcs}"
            )


def _distinct(spec) -> bool:
    named = [a for s in spec for a in s]
    return len(set(named)) == len(named)


def _call(jaxpr_param):
    """Calls (nested jit, custom_jvp/vjp): partition the body in line."""

    def rule(ctx, prim, vals, params):
        closed = params[jaxpr_param]
        return _interpret(ctx, closed.jaxpr, closed.consts, vals, ctx.record)

    return rule


def structural_rules_missing() -> bool:
    from ..lax import structural

    return structural.dot_general_p not in spmd_rules


def _install_rules():
    from ..ad_checkpoint import checkpoint_p
    from ..closed_call import closed_call_p
    from ..custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
    from ..jit import jit_p
    from ..lax import reductions, structural
    from . import axis_rules, callback_rules, control_rules, shape_rules, slicing_rules

    spmd_rules[structural.reduce_sum_p] = laid_out(
        _reduction(lambda v, ax: lax_parallel.psum(v, _axis_name(ax))), "out_sharding"
    )
    spmd_rules[structural.iota_p] = laid_out(_fallback, "sharding")
    spmd_rules[structural.convert_element_type_p] = laid_out(_elementwise, "sharding")
    spmd_rules[structural.reduce_max_p] = _reduction(lambda v, ax: lax_parallel.pmax(v, _axis_name(ax)))
    spmd_rules[structural.reduce_min_p] = _reduction(lambda v, ax: lax_parallel.pmin(v, _axis_name(ax)))
    spmd_rules[structural.dot_general_p] = _dot_general
    spmd_rules[reductions.argmax_p] = _arg_reduction
    spmd_rules[reductions.argmin_p] = _arg_reduction
    spmd_rules[jit_p] = sharded_jit.spmd_call  # (its shardings constrain its arguments and results)
    spmd_rules[custom_jvp_call_p] = _call("call_jaxpr")
    spmd_rules[custom_vjp_call_p] = _call("call_jaxpr")
    spmd_rules[closed_call_p] = _call("call_jaxpr")
    # (a remat's body, in line: what it saves for the backward pass changes no value)
    spmd_rules[checkpoint_p] = lambda ctx, prim, vals, params: _interpret(
        ctx, params["jaxpr"], [], vals, ctx.record
    )
    spmd_rules[ad.add_jaxvals_p] = _elementwise
    shape_rules.install(spmd_rules)
    slicing_rules.install(spmd_rules)
    axis_rules.install(spmd_rules)
    control_rules.install(spmd_rules)
    callback_rules.install(spmd_rules)


def _interpret(ctx, jaxpr, consts, args: list[Sharded], env: dict | None = None) -> list[Sharded]:
    env = {} if env is None else env  # (given: the caller reads every variable's layout)

    def read(x):
        if type(x) is Literal:
            return Sharded(x.val, _replicated(x.aval.ndim))
        return env[x]

    for v, c in zip(jaxpr.constvars, consts):
        env[v] = Sharded(c, _replicated(core.get_aval(c).ndim))
    for v, a in zip(jaxpr.in_binders, args):
        env[v] = a
    for eqn in jaxpr.eqns:
        vals = [read(x) for x in eqn.inputs]
        prim = eqn.primitive
        rule = spmd_rules.get(prim)
        if rule is None:
            rule = _elementwise if batching.is_elementwise(prim) else _fallback
        checked = ctx.explicit
        if ctx.checks == "user":  # (for this equation: see MeshContext)
            info = eqn.source_info
            ctx.explicit = frozenset() if info is not None and info.by_rule else ctx.typed
        with core.source_info_context(eqn.source_info):
            if (
                prim not in _always_ruled
                and "out_sharding" not in eqn.params
                and eqn.params.get("sharding") is None  # (a broadcast laid out: jnp.zeros(out_sharding=))
                and not sharded_jit.call_mesh(eqn)  # (a nested jit's shardings lay out even these)
                and not _lays_out_inside(eqn)
                and all(not any(x.spec) for x in vals)
                and not partial_types.involved(vals, eqn.params)
            ):  # nothing to split
                outs = prim.bind(*[x.val for x in vals], **_local_params(eqn.params))
                outs = outs if prim.multiple_results else [outs]
                outs = [Sharded(o, _replicated(core.get_aval(o).ndim)) for o in outs]
            else:
                try:
                    res = rule(ctx, prim, vals, eqn.params)
                except ShardingTypeError as e:
                    if ctx.checks == "user":
                        raised_for(e, eqn.source_info)
                    raise
                if res is ctx.gathered:  # (the rule's result is a gathered typed split, as it came)
                    ctx.untyped = True
                outs = res if isinstance(res, list) else [res]
                if partial_types.involved(vals, eqn.params) and not partial_types.own(eqn, _always_ruled):
                    outs = partial_types.typed_outs(ctx, prim, vals, eqn.params, outs)
        ctx.explicit = checked
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(x) for x in jaxpr.outs]


# Primitives whose rule runs even on replicated operands (they set a layout themselves).
_always_ruled: set = set()


def _lays_out_inside(eqn) -> bool:
    """Whether a program ``eqn`` holds names a mesh (a ``reshard`` of a constant inside a nested
    jit lays out a result of replicated operands)."""
    from ..ir import subjaxprs

    return any(_mesh_in_jaxpr(sub, False) is not None for sub in subjaxprs(eqn))


# ---------------------------------------------------------------------------------------------
# Partitioning and running.


class _Partitioned(NamedTuple):
    local: ClosedJaxpr
    out_specs: list
    out_views: list
    untyped: bool  # a rule gathered a typed split (its layouts may not be JAX's types)


_cache: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def partition(closed: ClosedJaxpr, ctx: MeshContext, in_specs: list) -> _Partitioned:
    """The per-device jaxpr of ``closed`` for arguments split as ``in_specs``, and its outputs' specs."""
    per = _cache.setdefault(closed, {})
    key = (ctx.mesh, ctx.explicit, ctx.checks, tuple(in_specs))
    hit = per.get(key)
    if hit is not None:
        ctx.untyped |= hit.untyped
        return hit
    outer_untyped, ctx.untyped = ctx.untyped, False
    if structural_rules_missing():
        _install_rules()
    local_avals = [
        ShapedArray(ctx.local_shape(a.shape, s), a.dtype, a.weak_type)
        for a, s in zip(closed.in_avals, in_specs)
    ]
    out_specs: list = []
    out_views: list = []

    def local_fun(*vals):
        outs = _interpret(ctx, closed.jaxpr, closed.consts, [Sharded(v, s) for v, s in zip(vals, in_specs)])
        out_specs[:] = [o.spec for o in outs]
        out_views[:] = [o.view for o in outs]
        return [o.val for o in outs]

    with ctx.axis_env():
        local = trace_to_jaxpr(local_fun, local_avals)
    # (after the whole program is typed, so a dead equation's type errors still raise: the work
    # nothing reads goes, a dead value's collectives with it, as XLA removes them)
    local = ClosedJaxpr(dce_jaxpr(local.jaxpr), local.consts)
    hit = per[key] = _Partitioned(local, list(out_specs), list(out_views), ctx.untyped)
    ctx.untyped |= outer_untyped
    return hit


def _on_mesh(a) -> bool:
    return isinstance(a, NamedShardedArray) and a.sharding.num_devices > 1


def _arg_mesh(args) -> Mesh | None:
    meshes = {a.sharding.mesh for a in args if _on_mesh(a)}
    if not meshes:
        return None
    if len(meshes) > 1:
        raise ValueError(
            f"jit: arguments are sharded over different meshes {sorted(map(str, meshes))}; "
            "reshard them onto one mesh with jax.device_put(x, NamedSharding(mesh, spec))"
        )
    mesh = meshes.pop()
    return mesh if isinstance(mesh, Mesh) else None


def _typed_only(mesh: Mesh, spec: Spec) -> Spec:
    """A one-device program's layout: XLA does not partition it, so only its type (the Explicit
    axes) still names mesh axes."""
    explicit = set(mesh.explicit_axes)
    return tuple(tuple(a for a in axes if a in explicit) for axes in spec)


def typed_one_device_mesh(args) -> Mesh | None:
    """The one-device mesh with Explicit axes an argument is on (the first), or None."""
    for a in args:
        if isinstance(a, NamedShardedArray) and a.on_one_device_mesh and a.sharding.mesh.explicit_axes:
            mesh = a.sharding.mesh
            return mesh if isinstance(mesh, Mesh) else None
    return None


def one_device_types(closed: ClosedJaxpr, args, checks: bool | str = False) -> list | None:
    """The shardings of ``closed``'s results, as their types say, when an argument is on a
    one-device mesh with Explicit axes (the program runs on that device as any other: only the
    types are partitioned); None for a result whose type names no mesh axis, or for all when no
    argument is on such a mesh."""
    mesh = typed_one_device_mesh(args)
    if mesh is None:
        return None
    ctx = MeshContext(mesh, checks)
    part = partition(closed, ctx, [_spec_of(a, ctx, aval.ndim) for a, aval in zip(args, closed.in_avals)])
    typed = [_typed_only(mesh, spec) for spec in part.out_specs]
    return [sharding_of(mesh, spec) if any(spec) else None for spec in typed]


def _spec_of(x, ctx: MeshContext, ndim: int) -> Spec:
    if isinstance(x, NamedShardedArray) and x.sharding.mesh == ctx.mesh:
        return spec_of(x.sharding, ndim)
    return _replicated(ndim)


def run_sharded(
    args: Sequence[core.Value], closed: ClosedJaxpr, name: str, checks: bool | str = False
) -> list[Array] | None:
    """Run ``closed`` (a jit's jaxpr) SPMD on the mesh its sharded arguments live on, or return
    None when no argument is sharded over more than one device."""
    from .pmap_primitive import _emit, mesh_program

    kept, carried = used_arguments(closed, args)  # (JAX prunes unused arguments before placing)
    mesh = _arg_mesh(kept) or mesh_of_jaxpr(closed)
    if mesh is None:
        return None
    t0 = time.perf_counter()
    ctx = MeshContext(mesh, checks)
    in_specs = [_spec_of(a, ctx, aval.ndim) for a, aval in zip(args, closed.in_avals)]
    part = partition(closed, ctx, in_specs)
    rt = get_runtime()
    placement = [int(d) for d in mesh.device_ids.flat]
    prog = mesh_program(part.local, name, mesh)
    per_arg = []
    for a in args:
        if isinstance(a, NamedShardedArray) and a.sharding.mesh == mesh:
            per_arg.append(a._buffers)  # used where they are
        else:
            value = core._canonical_np(np.asarray(a._value if isinstance(a, Array) else a))
            per_arg.append(rt.put_each(placement, value[None], [0] * len(placement)))
    inputs = [[bufs[p] for bufs in per_arg] for p in range(len(placement))]
    t_put = time.perf_counter()
    listening = monitoring.listening()
    outs, replies = rt.run(prog, placement, inputs, part.local.out_avals, t0, events=listening)
    computed = []
    for aval, spec, view in zip(closed.out_avals, part.out_specs, part.out_views):
        spec = _typed_only(mesh, spec) if mesh.size == 1 else spec
        sharding = (view is not None and _view_sharding(mesh, view, spec)) or sharding_of(mesh, spec)
        if aval.memory_space is not core.DEVICE:  # (a result the program put in host memory)
            sharding = sharding.with_memory_kind(core.mem_space_to_kind(aval.memory_space))
        computed.append(sharding)
    shardings = mesh_result_shardings(kept, closed.out_avals, carried, computed)  # (in the arguments' terms)
    avals = closed.out_avals
    results = [NamedShardedArray([o[k] for o in outs], avals[k], s) for k, s in enumerate(shardings)]
    if listening:
        _emit(prog, placement, inputs, outs, replies, tuple(mesh.axis_names), t0, t_put, kind="jit")
    return results


# ---------------------------------------------------------------------------------------------
# Eager operations on sharded arrays: each primitive is a one-equation program, run per device.

_eager_programs: dict = {}


def run_eager(prim: core.Primitive, vals, params):
    """``prim`` applied to ``vals`` (some of them ``NamedShardedArray``s on a mesh) on the mesh's
    devices, as JAX runs an eager op on sharded arrays (a compiled one-op program)."""
    # (a backward pass's operations are the engine's transpose rules': see MeshContext; a loop,
    # cond or call holds a program that may stage some (a gradient in a loop body): checked as a
    # jit's are)
    checks: bool | str = not in_backward[0]
    if checks and any(isinstance(v, ClosedJaxpr) for v in _param_values(params)):
        checks = "user"
    outs = run_sharded(vals, _eager_program(prim, vals, params), prim.name, checks=checks)
    if outs is None:  # (not reached: run_eager is only called with a sharded operand)
        raise AssertionError("run_eager without a sharded operand")
    return outs if prim.multiple_results else outs[0]


def _param_values(params):
    for v in params.values():
        yield from v if isinstance(v, (tuple, list)) else (v,)


def eager_one_device_types(prim: core.Primitive, vals, params) -> list | None:
    """``one_device_types`` of an eager operation (JAX's sharding-type errors raised as eagerly)."""
    if typed_one_device_mesh(vals) is None:
        return None
    return one_device_types(_eager_program(prim, vals, params), vals, checks=True)


def _eager_program(prim: core.Primitive, vals, params) -> ClosedJaxpr:
    avals = tuple(core.get_aval(v) for v in vals)
    try:
        key: object = (prim, tuple(sorted(params.items())), avals, bool(in_backward[0]))
        hash(key)
    except TypeError:
        key = None
    closed = _eager_programs.get(key) if key is not None else None
    if closed is None:
        closed = trace_to_jaxpr(lambda *xs: _as_list(prim, prim.bind(*xs, **params)), list(avals))
        if key is not None:
            if len(_eager_programs) > 512:
                _eager_programs.clear()
            _eager_programs[key] = closed
    return closed


def _as_list(prim, out):
    return list(out) if prim.multiple_results else [out]


def _install_eager_dispatch():
    def dispatch(prim, vals, params):
        if prim.takes_arrays or prim in _host_only:
            return None
        return run_eager(prim, vals, params)

    core.sharded_eager_dispatch = dispatch


_host_only: set = set()  # primitives that never run per device (host callbacks...)


_install_eager_dispatch()

# reshard/sharding_constraint and jax.typeof's layouts of traced values (they use this module's
# rules; their names are importable from here too)
from .reshard import (  # noqa: E402, F401
    _mesh_in_jaxpr,
    annotate_types,
    bind_reshard,
    bind_sharding_constraint,
    eqn_meshes,
    mesh_of_jaxpr,
    reshard_p,
    sharding_constraint_p,
    traced_sharding,
)
