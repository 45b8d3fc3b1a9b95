"""``jit`` of arrays sharded over a mesh: one program per device, run where the shards are.

When a jitted function receives ``NamedShardedArray`` arguments (``jax.device_put(x,
NamedSharding(mesh, P(...)))``), its jaxpr (global shapes) is partitioned into a per-device
jaxpr (local shapes) by propagating each value's partition spec equation by equation, with one
rule per primitive in ``spmd_rules``: elementwise operations keep their operands' spec, reductions
and contractions over a sharded dimension reduce locally and ``psum`` over the mesh axis,
``broadcast_in_dim``/``reshape``/``transpose`` carry specs to the dimensions they become. An
operation with no rule runs on gathered (replicated) operands, so results are always right; a
replicated operand meeting a sharded one is sliced locally (no communication).

The per-device program runs on the pmap runtime (``pmap.Program`` on the mesh's devices), so the
run report shows each device's work and the collectives as for ``pmap``; results stay on the
devices as ``NamedShardedArray``s with the propagated shardings (``jax.typeof`` shows them).

Meshes with more than one axis of size > 1 are not partitioned yet: that raises a clear error
rather than computing on one device while claiming a sharding.
"""

from __future__ import annotations

import time
import weakref
from typing import Callable, NamedTuple, Sequence

import numpy as np

from .. import ad, batching, core, ir, monitoring
from ..core import Array, ShapedArray
from ..ir import ClosedJaxpr, Literal
from ..lax import parallel as lax_parallel
from ..sharding import Mesh, NamedSharding, PartitionSpec
from ..staging import trace_to_jaxpr
from .named import NamedShardedArray
from .runtime import get_runtime

Spec = tuple  # per dimension: a mesh axis name or None


class Sharded(NamedTuple):
    """A value of the per-device program: the local piece and how the global value is split."""

    val: object
    spec: Spec


class _Mesh1D:
    """The one mesh axis programs are partitioned over."""

    def __init__(self, mesh: Mesh):
        big = [(n, s) for n, s in zip(mesh.axis_names, mesh.axis_sizes) if s > 1]
        if len(big) > 1:
            raise NotImplementedError(
                f"jit over arrays sharded on the mesh {mesh}: the engine partitions programs over one mesh "
                "axis of size > 1 only; use a 1-D mesh (jax.make_mesh((n,), ('batch',)))"
            )
        self.mesh = mesh
        self.axis, self.size = big[0] if big else (mesh.axis_names[0], 1)

    def local_shape(self, shape, spec):
        return tuple(n // self.size if s is not None else n for n, s in zip(shape, spec))


spmd_rules: dict[core.Primitive, Callable] = {}


def _replicated(ndim) -> Spec:
    return (None,) * ndim


def _ndim(x) -> int:
    return core.get_aval(x.val).ndim


def _to_spec(ctx: _Mesh1D, x: Sharded, spec: Spec):
    """The local piece of ``x`` as laid out by ``spec``: slice where replicated becomes sharded
    (local), all-gather where sharded becomes replicated."""
    from .. import lax

    v = x.val
    for d, (cur, want) in enumerate(zip(x.spec, spec)):
        if cur == want:
            continue
        if cur is not None:
            v = lax_parallel.all_gather(v, cur, axis=d, tiled=True)
        if want is not None:
            n = core.get_aval(v).shape[d] // ctx.size
            start = lax_parallel.axis_index(want) * n
            v = lax.dynamic_slice_in_dim(v, start, n, axis=d)
    return v


def _gathered(ctx, x: Sharded):
    return _to_spec(ctx, x, _replicated(len(x.spec)))


def _fallback(ctx, prim, vals, params):
    """No partitioning rule: every device computes the whole result from gathered operands."""
    out = prim.bind(*[_gathered(ctx, x) for x in vals], **params)
    outs = out if prim.multiple_results else [out]
    res = [Sharded(o, _replicated(core.get_aval(o).ndim)) for o in outs]
    return res if prim.multiple_results else res[0]


def _is_elementwise(prim) -> bool:
    rule = batching.batch_rules.get(prim)
    name = getattr(rule, "__qualname__", "")
    return name.startswith(("vectorized_batcher", "broadcast_batcher"))


def _elementwise(ctx, prim, vals, params):
    full = [x for x in vals if len(x.spec) and any(s is not None for s in x.spec)]
    target = full[0].spec if full else None
    if target is None:
        return Sharded(prim.bind(*[x.val for x in vals], **params), _replicated(max(map(_ndim, vals))))
    args = []
    for x in vals:
        shape = core.get_aval(x.val).shape
        # size-1 dimensions broadcast against the others: they stay whole
        want = tuple(
            None if n == 1 and x.spec[d] is None else t for d, (n, t) in enumerate(zip(shape, target))
        )
        args.append(x.val if len(x.spec) == 0 or x.spec == want else _to_spec(ctx, x, want))
    return Sharded(prim.bind(*args, **params), target)


def _broadcast_in_dim(ctx, prim, vals, params):
    (x,) = vals[:1]
    shape, dims = params["shape"], params["broadcast_dimensions"]
    in_shape = core.get_aval(x.val).shape
    spec = [None] * len(shape)
    for i, d in enumerate(dims):
        if x.spec[i] is not None and in_shape[i] * ctx.size == shape[d]:
            spec[d] = x.spec[i]
        elif x.spec[i] is not None:
            return _fallback(ctx, prim, vals, params)
    local = dict(params, shape=ctx.local_shape(shape, spec))
    return Sharded(prim.bind(x.val, *[v.val for v in vals[1:]], **local), tuple(spec))


def _reshape(ctx, prim, vals, params):
    x = vals[0]
    if all(s is None for s in x.spec):
        return Sharded(prim.bind(*[v.val for v in vals], **params), _replicated(len(params["new_sizes"])))
    gshape = tuple(n * ctx.size if s is not None else n for n, s in zip(core.get_aval(x.val).shape, x.spec))
    new = tuple(params["new_sizes"])
    spec = [None] * len(new)
    for d, s in enumerate(x.spec):
        if s is None:
            continue
        before = int(np.prod(gshape[:d]))
        match = [e for e in range(len(new)) if int(np.prod(new[:e])) == before and new[e] == gshape[d]]
        if not match or params.get("dimensions") is not None:
            return _fallback(ctx, prim, vals, params)
        spec[match[0]] = s
    local = dict(params, new_sizes=ctx.local_shape(new, spec))
    return Sharded(prim.bind(x.val, **local), tuple(spec))


def _transpose(ctx, prim, vals, params):
    (x,) = vals
    perm = params["permutation"]
    return Sharded(prim.bind(x.val, **params), tuple(x.spec[p] for p in perm))


def _squeeze(ctx, prim, vals, params):
    (x,) = vals
    dims = {d % len(x.spec) for d in params["dimensions"]}
    return Sharded(prim.bind(x.val, **params), tuple(s for d, s in enumerate(x.spec) if d not in dims))


def _reduction(collective):
    def rule(ctx, prim, vals, params):
        (x,) = vals
        axes = set(params["axes"])
        out = prim.bind(x.val, **params)
        over = sorted({x.spec[d] for d in axes if x.spec[d] is not None})
        if over:
            out = collective(out, tuple(over))
        return Sharded(out, tuple(s for d, s in enumerate(x.spec) if d not in axes))

    return rule


def _arg_reduction(ctx, prim, vals, params):
    (x,) = vals
    (axis,) = params["axes"]
    if x.spec[axis] is not None:  # the index is global: gather the reduced dimension first
        spec = x.spec[:axis] + (None,) + x.spec[axis + 1 :]
        x = Sharded(_to_spec(ctx, x, spec), spec)
    return Sharded(prim.bind(x.val, **params), tuple(s for d, s in enumerate(x.spec) if d != axis))


def _dot_general(ctx, prim, vals, params):
    lhs, rhs = vals
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    lspec, rspec = list(lhs.spec), list(rhs.spec)
    # Pair dimensions (contracting and batch) must agree: a replicated side is sliced to match.
    for i, j in list(zip(lc, rc)) + list(zip(lb, rb)):
        if lspec[i] != rspec[j]:
            want = lspec[i] if lspec[i] is not None else rspec[j]
            if lspec[i] is not None and rspec[j] is not None:
                want = None
            lspec[i] = rspec[j] = want
    lfree = [d for d in range(len(lspec)) if d not in lc and d not in lb]
    rfree = [d for d in range(len(rspec)) if d not in rc and d not in rb]
    out_spec = [lspec[i] for i in lb] + [lspec[d] for d in lfree] + [rspec[d] for d in rfree]
    used = [s for s in out_spec if s is not None]
    summed = sorted({lspec[i] for i in lc if lspec[i] is not None})
    if not (_distinct(used) and _distinct(lspec) and _distinct(rspec)) or set(used) & set(summed):
        return _fallback(ctx, prim, vals, params)  # one mesh axis would split two dimensions
    lv = lhs.val if tuple(lspec) == lhs.spec else _to_spec(ctx, lhs, tuple(lspec))
    rv = rhs.val if tuple(rspec) == rhs.spec else _to_spec(ctx, rhs, tuple(rspec))
    out = prim.bind(lv, rv, **params)
    if summed:
        out = lax_parallel.psum(out, tuple(summed))
    return Sharded(out, tuple(out_spec))


def _slice(ctx, prim, vals, params):
    """A slice that keeps every sharded dimension whole slices each block alike."""
    (x,) = vals
    shape = core.get_aval(x.val).shape
    start, limit, strides = params["start_indices"], params["limit_indices"], params["strides"]
    for d, s in enumerate(x.spec):
        whole = start[d] == 0 and limit[d] == shape[d] * ctx.size and (strides is None or strides[d] == 1)
        if s is not None and not whole:
            return _fallback(ctx, prim, vals, params)
    local = tuple(shape[d] if s is not None else n for d, (s, n) in enumerate(zip(x.spec, limit)))
    return Sharded(prim.bind(x.val, **dict(params, limit_indices=local)), x.spec)


def _concatenate(ctx, prim, vals, params):
    """Concatenation along a dimension no operand splits: operands take one spec, blocks join."""
    d = params["dimension"]
    if any(x.spec[d] is not None for x in vals):
        return _fallback(ctx, prim, vals, params)
    target = next((x.spec for x in vals if any(s is not None for s in x.spec)), vals[0].spec)
    args = [x.val if x.spec == target else _to_spec(ctx, x, target) for x in vals]
    return Sharded(prim.bind(*args, **params), target)


def _distinct(spec) -> bool:
    named = [s for s in spec if s is not None]
    return len(set(named)) == len(named)


def _call(jaxpr_param):
    """Calls (nested jit, custom_jvp/vjp): partition the body in line."""

    def rule(ctx, prim, vals, params):
        closed = params[jaxpr_param]
        return _interpret(ctx, closed.jaxpr, closed.consts, vals)

    return rule


def structural_rules_missing() -> bool:
    from ..lax import structural

    return structural.dot_general_p not in spmd_rules


def _install_rules():
    from ..jit import jit_p
    from ..custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
    from ..lax import reductions, slicing, structural

    spmd_rules[structural.broadcast_in_dim_p] = _broadcast_in_dim
    spmd_rules[structural.reshape_p] = _reshape
    spmd_rules[structural.transpose_p] = _transpose
    spmd_rules[structural.squeeze_p] = _squeeze
    spmd_rules[structural.select_n_p] = _elementwise
    spmd_rules[structural.reduce_sum_p] = _reduction(lambda v, ax: lax_parallel.psum(v, ax))
    spmd_rules[structural.reduce_max_p] = _reduction(lambda v, ax: lax_parallel.pmax(v, ax))
    spmd_rules[structural.reduce_min_p] = _reduction(lambda v, ax: lax_parallel.pmin(v, ax))
    spmd_rules[structural.dot_general_p] = _dot_general
    spmd_rules[structural.concatenate_p] = _concatenate
    spmd_rules[slicing.slice_p] = _slice
    spmd_rules[reductions.argmax_p] = _arg_reduction
    spmd_rules[reductions.argmin_p] = _arg_reduction
    spmd_rules[jit_p] = _call("jaxpr")
    spmd_rules[custom_jvp_call_p] = _call("call_jaxpr")
    spmd_rules[custom_vjp_call_p] = _call("call_jaxpr")
    spmd_rules[ad.add_jaxvals_p] = _elementwise


def _interpret(ctx, jaxpr, consts, args: list[Sharded]) -> list[Sharded]:
    env: dict = {}

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
            rule = _elementwise if _is_elementwise(prim) else _fallback
        with core.source_info_context(eqn.source_info):
            if prim is not reshard_p and all(
                all(s is None for s in x.spec) for x in vals
            ):  # nothing to split
                outs = prim.bind(*[x.val for x in vals], **eqn.params)
                outs = outs if prim.multiple_results else [outs]
                outs = [Sharded(o, _replicated(core.get_aval(o).ndim)) for o in outs]
            else:
                res = rule(ctx, prim, vals, eqn.params)
                outs = res if isinstance(res, list) else [res]
        for v, o in zip(eqn.out_binders, outs):
            env[v] = o
    return [read(x) for x in jaxpr.outs]


# ---------------------------------------------------------------------------------------------
# Partitioning and running.


class _Partitioned(NamedTuple):
    local: ClosedJaxpr
    out_specs: list


_cache: "weakref.WeakKeyDictionary[ClosedJaxpr, dict]" = weakref.WeakKeyDictionary()


def partition(closed: ClosedJaxpr, ctx: _Mesh1D, in_specs: list) -> _Partitioned:
    """The per-device jaxpr of ``closed`` for arguments split as ``in_specs``, and its outputs' specs."""
    per = _cache.setdefault(closed, {})
    key = (ctx.mesh, tuple(in_specs))
    hit = per.get(key)
    if hit is not None:
        return hit
    if structural_rules_missing():
        _install_rules()
    local_avals = [
        ShapedArray(ctx.local_shape(a.shape, s), a.dtype, a.weak_type)
        for a, s in zip(closed.in_avals, in_specs)
    ]
    out_specs: list = []

    def local_fun(*vals):
        outs = _interpret(ctx, closed.jaxpr, closed.consts, [Sharded(v, s) for v, s in zip(vals, in_specs)])
        out_specs[:] = [o.spec for o in outs]
        return [o.val for o in outs]

    with lax_parallel.extend_axis_env(ctx.axis, ctx.size):
        local = trace_to_jaxpr(local_fun, local_avals)
    hit = per[key] = _Partitioned(local, list(out_specs))
    return hit


def _arg_mesh(args) -> Mesh | None:
    meshes = {
        a.sharding.mesh for a in args if isinstance(a, NamedShardedArray) and a.sharding.num_devices > 1
    }
    if not meshes:
        return None
    if len(meshes) > 1:
        raise ValueError(
            f"jit: arguments are sharded over different meshes {sorted(map(str, meshes))}; "
            "reshard them onto one mesh with jax.device_put(x, NamedSharding(mesh, spec))"
        )
    mesh = meshes.pop()
    return mesh if isinstance(mesh, Mesh) else None


def _spec_of(x, ctx: _Mesh1D, ndim: int) -> Spec:
    if isinstance(x, NamedShardedArray) and x.sharding.mesh == ctx.mesh:
        return _spec_from(x.sharding, ctx, ndim)
    return _replicated(ndim)


def run_sharded(args: Sequence[core.Value], closed: ClosedJaxpr, name: str) -> list[Array] | None:
    """Run ``closed`` (a jit's jaxpr) SPMD on the mesh its sharded arguments live on, or return
    None when no argument is sharded over more than one device."""
    from .pmap_primitive import _emit, _program

    mesh = _arg_mesh(args) or mesh_of_jaxpr(closed)
    if mesh is None:
        return None
    t0 = time.perf_counter()
    ctx = _Mesh1D(mesh)
    in_specs = [_spec_of(a, ctx, aval.ndim) for a, aval in zip(args, closed.in_avals)]
    part = partition(closed, ctx, in_specs)
    rt = get_runtime()
    placement = [d.id for d in mesh.devices.flat]
    prog = _program(part.local, name, ctx.axis, ctx.size, tuple(placement))
    per_arg = []
    for a in args:
        if isinstance(a, NamedShardedArray) and a.sharding.mesh == mesh:
            per_arg.append(a._buffers)  # used where they are
        else:
            value = core._canonical_np(np.asarray(a._value if isinstance(a, Array) else a))
            per_arg.append([rt.put(dev, value) for dev in placement])
    inputs = [[bufs[p] for bufs in per_arg] for p in range(len(placement))]
    t_put = time.perf_counter()
    listening = monitoring.listening()
    outs, replies = rt.run(prog, placement, inputs, part.local.out_avals, t0, events=listening)
    results = []
    for k, (aval, spec) in enumerate(zip(closed.out_avals, part.out_specs)):
        sharding = NamedSharding(mesh, PartitionSpec(*spec))
        results.append(NamedShardedArray([outs[p][k] for p in range(len(placement))], aval, sharding))
    if listening:
        _emit(prog, placement, inputs, outs, replies, ctx.axis, t0, t_put)
    return results


# ---------------------------------------------------------------------------------------------
# jit(in_shardings=, out_shardings=).


def _place(tree, shardings, what):
    from ..sharding import as_sharding
    from .sharded import device_put

    if shardings is None:
        return tree
    if isinstance(shardings, (list, tuple)) and not isinstance(shardings, PartitionSpec):
        if not isinstance(tree, (list, tuple)) or len(tree) != len(shardings):
            raise ValueError(
                f"jit {what}: {len(shardings)} shardings for "
                f"{len(tree) if isinstance(tree, (list, tuple)) else 'a non-sequence of'} values"
            )
        return type(tree)(_place(t, s, what) for t, s in zip(tree, shardings))
    return device_put(tree, as_sharding(shardings, f"jit {what}"))


class ShardedJit:
    """``jit(f, in_shardings=..., out_shardings=...)``: arguments are laid out by ``in_shardings``
    before the call (so the program runs per device), results are moved to ``out_shardings``."""

    def __init__(self, jitted, in_shardings, out_shardings):
        self._jitted, self.in_shardings, self.out_shardings = jitted, in_shardings, out_shardings
        self.__wrapped__ = jitted.fun
        self.__name__ = getattr(jitted, "__name__", "fun")
        self.__doc__ = jitted.__doc__

    def __call__(self, *args, **kwargs):
        if core.tracing_active():  # inside another transformation: placement is the outer call's
            raise NotImplementedError(
                "jit with in_shardings/out_shardings inside a traced function (jit, grad, vmap) is not "
                "supported by the engine yet; apply the shardings to the outermost jit"
            )
        if self.in_shardings is not None:
            shardings = self.in_shardings
            if not isinstance(shardings, (list, tuple)) or isinstance(shardings, PartitionSpec):
                shardings = (shardings,) * len(args)
            args = _place(tuple(args), tuple(shardings), "in_shardings")
        out = self._jitted(*args, **kwargs)
        return _place(out, self.out_shardings, "out_shardings")

    def __getattr__(self, name):
        return getattr(self._jitted, name)


def with_shardings(jitted, in_shardings, out_shardings) -> ShardedJit:
    return ShardedJit(jitted, in_shardings, out_shardings)


# ---------------------------------------------------------------------------------------------
# reshard / with_sharding_constraint inside traced code: a primitive the partitioner honours.

reshard_p = core.Primitive("reshard")
reshard_p.def_impl(lambda x, *, sharding: x)  # host path only; a jit holding one runs per device
reshard_p.def_abstract_eval(lambda x, *, sharding: x)
ad.deflinear(reshard_p, lambda ct, x, *, sharding: [ct])  # values are unchanged: so are cotangents


def _reshard_batch(axis_size, vals, dims, *, sharding):
    (x,), (d,) = vals, dims
    spec = list(sharding.spec) + [None] * (core.get_aval(x).ndim - 1 - len(sharding.spec))
    spec.insert(d, None)  # the batch dimension is not split
    return reshard_p.bind(x, sharding=sharding.with_spec(spec)), d


batching.batch_rules[reshard_p] = _reshard_batch


def _reshard_rule(ctx, prim, vals, params):
    (x,) = vals
    sharding = params["sharding"]
    if sharding.mesh != ctx.mesh:
        raise ValueError(
            f"reshard inside jit: the target mesh {sharding.mesh} is not the mesh {ctx.mesh} the "
            "computation runs on"
        )
    spec = _spec_from(sharding, ctx, len(x.spec))
    return Sharded(x.val if spec == x.spec else _to_spec(ctx, x, spec), spec)


spmd_rules[reshard_p] = _reshard_rule


def _spec_from(sharding: NamedSharding, ctx: _Mesh1D, ndim: int) -> Spec:
    spec = []
    for entry in sharding._normalized(ndim):
        big = [a for a in entry if ctx.mesh.shape[a] > 1]
        spec.append(big[0] if big else None)
    return tuple(spec)


def bind_reshard(x, sharding: NamedSharding):
    """``reshard`` of a traced value: a ``reshard`` equation for the partitioner."""
    if not isinstance(sharding, NamedSharding) or not isinstance(sharding.mesh, Mesh):
        raise TypeError(f"reshard inside jit needs a NamedSharding over a Mesh, got {sharding!r}")
    sharding.check_shape(core.get_aval(x).shape)
    return reshard_p.bind(x, sharding=sharding)


_jaxpr_meshes: "weakref.WeakKeyDictionary[ClosedJaxpr, Mesh | None]" = weakref.WeakKeyDictionary()


def _mesh_in_jaxpr(jaxpr) -> Mesh | None:
    from ..ir import subjaxprs

    for eqn in jaxpr.eqns:
        if eqn.primitive is reshard_p:
            return eqn.params["sharding"].mesh
        if eqn.primitive is shard_map_p:
            return eqn.params["mesh"]
        for sub in subjaxprs(eqn):
            found = _mesh_in_jaxpr(sub)
            if found is not None:
                return found
    return None


def mesh_of_jaxpr(closed: ClosedJaxpr) -> Mesh | None:
    """The mesh a ``reshard`` inside ``closed`` names (cached per jaxpr), or None."""
    if closed not in _jaxpr_meshes:
        _jaxpr_meshes[closed] = _mesh_in_jaxpr(closed.jaxpr)
    return _jaxpr_meshes[closed]


# ---------------------------------------------------------------------------------------------
# shard_map: a per-device function written by hand (collectives name the mesh axes).

shard_map_p = core.Primitive("shard_map", multiple_results=True)


def _global_aval(aval, spec, ctx):
    return ShapedArray(
        tuple(n * ctx.size if s else n for n, s in zip(aval.shape, spec)), aval.dtype, aval.weak_type
    )


def _shard_map_abstract(*avals, jaxpr, mesh, in_specs, out_specs, check_vma):
    ctx = _Mesh1D(mesh)
    return [_global_aval(a, s, ctx) for a, s in zip(jaxpr.out_avals, out_specs)]


shard_map_p.def_abstract_eval(_shard_map_abstract)


def _pp_spec(spec) -> PartitionSpec:
    spec = list(spec)
    while spec and spec[-1] is None:  # (as the user wrote it: P('i') for a rank-2 block)
        spec.pop()
    return PartitionSpec(*spec)


def _pp_shard_map(eqn):
    # JAX's parameters: specs as P(...), and every mesh axis newly manual inside the body.
    p = eqn.params
    return [
        ("check_vma", p["check_vma"]),
        ("in_specs", tuple(_pp_spec(s) for s in p["in_specs"])),
        ("jaxpr", p["jaxpr"]),
        ("mesh", p["mesh"]),
        ("newly_manual_axes", frozenset(p["mesh"].axis_names)),
        ("out_specs", tuple(_pp_spec(s) for s in p["out_specs"])),
    ]


ir.pp_params_rules[shard_map_p] = _pp_shard_map


def _shard_map_impl(*args, jaxpr, mesh, in_specs, out_specs, check_vma):
    """Eager (or host-path) shard_map: the body runs on each device of the mesh, on its blocks."""
    ctx = _Mesh1D(mesh)
    t0 = time.perf_counter()
    rt = get_runtime()
    placement = [d.id for d in mesh.devices.flat]
    from .pmap_primitive import _emit, _program

    prog = _program(jaxpr, "shard_map", ctx.axis, ctx.size, tuple(placement))
    per_arg = []
    for a, spec in zip(args, in_specs):
        sharding = NamedSharding(mesh, PartitionSpec(*spec))
        if isinstance(a, NamedShardedArray) and a.sharding == sharding:
            per_arg.append(a._buffers)
        else:
            from .named import put_sharded

            per_arg.append(put_sharded(a if isinstance(a, Array) else np.asarray(a), sharding)._buffers)
    inputs = [[bufs[p] for bufs in per_arg] for p in range(len(placement))]
    t_put = time.perf_counter()
    listening = monitoring.listening()
    outs, replies = rt.run(prog, placement, inputs, jaxpr.out_avals, t0, events=listening)
    results = []
    for k, (aval, spec) in enumerate(zip(jaxpr.out_avals, out_specs)):
        sharding = NamedSharding(mesh, PartitionSpec(*spec))
        bufs = [outs[p][k] for p in range(len(placement))]
        results.append(NamedShardedArray(bufs, _global_aval(aval, spec, ctx), sharding))
    if listening:
        _emit(prog, placement, inputs, outs, replies, ctx.axis, t0, t_put)
    return results


shard_map_p.def_impl(_shard_map_impl)
shard_map_p.takes_arrays = True  # device-resident blocks are used where they are


def _shard_map_not_differentiable(*args, **kwargs):
    raise NotImplementedError(
        "differentiating or vmapping a shard_map is not supported by the engine yet; apply grad/vmap "
        "inside the function given to shard_map"
    )


ad.jvp_rules[shard_map_p] = _shard_map_not_differentiable
batching.batch_rules[shard_map_p] = _shard_map_not_differentiable


def _shard_map_rule(ctx, prim, vals, params):
    if params["mesh"] != ctx.mesh:
        raise ValueError(f"shard_map over {params['mesh']} inside a computation on {ctx.mesh}")
    local = [x.val if x.spec == s else _to_spec(ctx, x, s) for x, s in zip(vals, params["in_specs"])]
    body = params["jaxpr"]
    from ..ir import eval_jaxpr

    outs = eval_jaxpr(body.jaxpr, local, body.consts)
    return [Sharded(o, s) for o, s in zip(outs, params["out_specs"])]


spmd_rules[shard_map_p] = _shard_map_rule


def _per_leaf_specs(specs, tree_args, what) -> list:
    """One ``PartitionSpec`` per flattened leaf: ``specs`` is one spec for everything or one per
    argument (each applying to all of that argument's leaves)."""
    from ..tree_util import tree_leaves

    if isinstance(specs, PartitionSpec) or specs is None:
        return [specs or PartitionSpec()] * len(tree_leaves(tree_args))
    if not isinstance(specs, (tuple, list)) or len(specs) != len(tree_args):
        raise ValueError(f"shard_map {what}: expected one PartitionSpec per argument/output, got {specs!r}")
    out = []
    for s, a in zip(specs, tree_args):
        if not (isinstance(s, PartitionSpec) or s is None):
            raise NotImplementedError(
                f"shard_map {what}: nested pytrees of specs are not supported yet ({s!r})"
            )
        out += [s or PartitionSpec()] * len(tree_leaves(a))
    return out


class _Infer:
    def __repr__(self):
        return "jax.sharding.Infer"


Infer = _Infer()


def shard_map(f=None, /, *, out_specs, in_specs=Infer, mesh=None, axis_names=frozenset(), check_vma=True):
    """Run ``f`` once per device of ``mesh`` on that device's blocks (as ``in_specs`` cut the
    arguments); ``out_specs`` say how the per-device results assemble. Collectives in ``f``
    (``lax.psum(x, 'batch')``) name mesh axes.

    >>> from engine.sharding import PartitionSpec as P
    >>> mesh = jax.make_mesh((2,), ("b",))
    >>> f = shard_map(lambda a: lax.psum(a.sum(0), "b"), mesh=mesh, in_specs=P("b"), out_specs=P())
    >>> f(jnp.arange(8.0).reshape(4, 2))
    Array([12., 16.], dtype=float32)
    """
    import functools

    from ..sharding import get_mesh
    from ..tree_util import tree_flatten, tree_unflatten

    if f is None:
        return functools.partial(
            shard_map,
            out_specs=out_specs,
            in_specs=in_specs,
            mesh=mesh,
            axis_names=axis_names,
            check_vma=check_vma,
        )

    @functools.wraps(f)
    def wrapped(*args):
        m = mesh if mesh is not None else get_mesh()
        if not isinstance(m, Mesh):
            raise ValueError("shard_map needs a mesh: pass mesh= or call it under jax.set_mesh(mesh)")
        ctx = _Mesh1D(m)
        leaves, in_tree = tree_flatten(args)
        if in_specs is Infer:
            specs = [x.sharding.spec if isinstance(x, NamedShardedArray) else PartitionSpec() for x in leaves]
        else:
            specs = _per_leaf_specs(in_specs, args, "in_specs")
        avals = [core.get_aval(x) for x in leaves]
        in_sp = [_spec_from(NamedSharding(m, s), ctx, a.ndim) for s, a in zip(specs, avals)]
        for a, s in zip(avals, in_sp):
            NamedSharding(m, PartitionSpec(*s)).check_shape(a.shape)
        local_avals = [
            ShapedArray(ctx.local_shape(a.shape, s), a.dtype, a.weak_type) for a, s in zip(avals, in_sp)
        ]
        out_store: list = []

        def local_fun(*vals):
            out = f(*tree_unflatten(in_tree, list(vals)))
            out_leaves, out_tree = tree_flatten(out)
            out_store[:] = [out_tree, out]
            return out_leaves

        with lax_parallel.extend_axis_env(ctx.axis, ctx.size):
            body = trace_to_jaxpr(local_fun, local_avals)
        out_tree, out_value = out_store
        out_sp = [
            _spec_from(NamedSharding(m, s), ctx, a.ndim)
            for s, a in zip(
                _per_leaf_specs(out_specs, _as_args(out_value, out_specs), "out_specs"), body.out_avals
            )
        ]
        outs = shard_map_p.bind(
            *leaves, jaxpr=body, mesh=m, in_specs=tuple(in_sp), out_specs=tuple(out_sp), check_vma=check_vma
        )
        return tree_unflatten(out_tree, outs)

    return wrapped


def _as_args(out, out_specs):
    # out_specs per output element when both are sequences of the same length
    if isinstance(out_specs, (tuple, list)) and not isinstance(out_specs, PartitionSpec):
        return tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return out
