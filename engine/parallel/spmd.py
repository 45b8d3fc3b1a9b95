"""``shard_map``: a per-device function written by hand, run on every device of a mesh.

The body is traced once with per-device (local) shapes; collectives in it name the mesh's axes.
Eagerly it runs as one program on the mesh's device processes (``pmap_primitive.mesh_program``);
inside a ``jit`` of sharded arrays the partitioner (``engine.parallel.partition``) evaluates the
body in line on each device's blocks.
"""

from __future__ import annotations

import time

import numpy as np

from .. import ad, batching, core, ir, monitoring
from ..core import Array, ShapedArray
from ..lax import parallel as lax_parallel  # noqa: F401  (collectives the bodies use)
from ..sharding import Mesh, NamedSharding, PartitionSpec
from ..staging import trace_to_jaxpr
from .named import NamedShardedArray
from .partition import MeshContext, Sharded, _entry, _to_spec, eqn_meshes, spec_of, spmd_rules
from .runtime import get_runtime

# ---------------------------------------------------------------------------------------------
# shard_map: a per-device function written by hand (collectives name the mesh axes).

shard_map_p = core.Primitive("shard_map", multiple_results=True)


def _global_aval(aval, spec, ctx):
    return ShapedArray(ctx.global_shape(aval.shape, spec), aval.dtype, aval.weak_type)


def _sharding(mesh, spec) -> NamedSharding:
    return NamedSharding(mesh, _pp_spec(spec))


def _shard_map_abstract(*avals, jaxpr, mesh, in_specs, out_specs, check_vma):
    ctx = MeshContext(mesh)
    return [_global_aval(a, s, ctx) for a, s in zip(jaxpr.out_avals, out_specs)]


shard_map_p.def_abstract_eval(_shard_map_abstract)


def _pp_spec(spec) -> PartitionSpec:
    spec = [_entry(axes) for axes in spec]
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
    ctx = MeshContext(mesh)
    t0 = time.perf_counter()
    rt = get_runtime()
    placement = [int(d) for d in mesh.device_ids.flat]
    from .pmap_primitive import _emit, mesh_program

    prog = mesh_program(jaxpr, "shard_map", mesh)
    per_arg = []
    for a, spec in zip(args, in_specs):
        sharding = _sharding(mesh, spec)
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
        sharding = _sharding(mesh, spec)
        bufs = [outs[p][k] for p in range(len(placement))]
        results.append(NamedShardedArray(bufs, _global_aval(aval, spec, ctx), sharding))
    if listening:
        _emit(prog, placement, inputs, outs, replies, tuple(mesh.axis_names), t0, t_put)
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
eqn_meshes[shard_map_p] = lambda eqn: eqn.params["mesh"]


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
        ctx = MeshContext(m)
        leaves, in_tree = tree_flatten(args)
        if in_specs is Infer:
            specs = [x.sharding.spec if isinstance(x, NamedShardedArray) else PartitionSpec() for x in leaves]
        else:
            specs = _per_leaf_specs(in_specs, args, "in_specs")
        avals = [core.get_aval(x) for x in leaves]
        in_sp = [spec_of(NamedSharding(m, s), a.ndim) for s, a in zip(specs, avals)]
        for a, s in zip(avals, in_sp):
            _sharding(m, s).check_shape(a.shape)
        local_avals = [
            ShapedArray(ctx.local_shape(a.shape, s), a.dtype, a.weak_type) for a, s in zip(avals, in_sp)
        ]
        out_store: list = []

        def local_fun(*vals):
            out = f(*tree_unflatten(in_tree, list(vals)))
            out_leaves, out_tree = tree_flatten(out)
            out_store[:] = [out_tree, out]
            return out_leaves

        with ctx.axis_env():
            body = trace_to_jaxpr(local_fun, local_avals)
        out_tree, out_value = out_store
        out_sp = [
            spec_of(NamedSharding(m, s), a.ndim)
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
