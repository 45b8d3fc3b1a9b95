"""Eager ``shard_map`` (called outside any transformation, as JAX runs it): the body's Python runs
once, on values holding one block per device (``ShardMapTracer``); each operation is a
one-equation program on the device processes, so ``print`` inside shows every device's block and
``jax.typeof`` the mesh axes a value varies over."""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .. import core
from ..core import Array, ShapedArray
from ..lax.varying import checking_vma, vma_rule
from ..sharding import Mesh
from .named import NamedShardedArray, put_sharded
from .spmd import (
    _bind,
    _block_shape,
    _check_out_vma,
    _in_mesh_order,
    _manual_axes,
    _typed_axes,
    _out_specs,
    _sharding,
    _stacked_spec,
    _trace_body,
)


@contextmanager
def _not_dynamic():
    """The eager body's trace catches every bind (``axis_index`` has no operands to find it by);
    what it runs itself goes to the traces below it."""
    prev, core._state.dynamic = core._state.dynamic, None
    try:
        yield
    finally:
        core._state.dynamic = prev


class ShardMapTrace(core.Trace):
    """Values are ``NamedShardedArray``s of shape ``(*mesh sizes, *block shape)`` with one block on
    each device; each primitive runs as a one-equation program on the devices."""

    @property
    def mesh(self) -> Mesh:
        return self.main.global_data

    def pure(self, val):
        with _not_dynamic():
            return self._pure(val)

    def _pure(self, val):
        aval = core.get_aval(val)
        value = core._canonical_np(np.asarray(core.to_numpy(val)))
        stacked = np.broadcast_to(value, (*self.mesh.axis_sizes, *value.shape))
        sharding = _sharding(self.mesh, _stacked_spec(self.mesh, 0))
        arr = put_sharded(Array(np.ascontiguousarray(stacked), aval.weak_type), sharding)
        return ShardMapTracer(self, arr, aval.update(shape=value.shape), ())

    lift = pure

    def process_primitive(self, primitive, tracers, params):
        with _not_dynamic():
            return self._process_primitive(primitive, tracers, params)

    def _process_primitive(self, primitive, tracers, params):
        mesh = self.mesh
        k = len(mesh.axis_names)
        avals = [t.aval for t in tracers]
        out_avals: list = []

        def body(*blocks):
            from ..lax import api as lax

            xs = [lax.squeeze(b, tuple(range(k))) for b in blocks]
            outs = primitive.bind(*xs, **params)
            outs = outs if primitive.multiple_results else [outs]
            out_avals[:] = [core.get_aval(o) for o in outs]
            return [lax.expand_dims(o, tuple(range(k))) for o in outs]

        stacked = [a.update(shape=(1,) * k + a.shape) for a in avals]
        closed, hoisted = _trace_body(body, stacked, mesh)
        specs = [_stacked_spec(mesh, a.ndim) for a in avals]
        outs = _bind(
            hoisted,
            [t.val for t in tracers],
            specs,
            [_stacked_spec(mesh, a.ndim) for a in out_avals],
            closed,
            mesh=mesh,
            check_vma=False,
        )
        vma = _in_mesh_order(mesh, vma_rule(primitive, params, [t.vma for t in tracers]))
        res = [ShardMapTracer(self, o, a, vma) for o, a in zip(outs, out_avals)]
        return res if primitive.multiple_results else res[0]


@core.jax_class_path("jax._src.shard_map.ShardMapTracer")
class ShardMapTracer(core.Tracer):
    __slots__ = ("val", "_aval", "vma")

    def __init__(self, trace, val: NamedShardedArray, aval: ShapedArray, vma: tuple):
        vma = tuple(vma)
        if type(aval) is ShapedArray and aval.vma != vma and core.vma_checking[0]:
            aval = aval.update(vma=vma)  # (what the operations on it match their operands by)
        self._trace, self.val, self._aval, self.vma = trace, val, aval, vma

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    def _blocks(self) -> list[np.ndarray]:
        k = len(self._trace.mesh.axis_names)
        return [b.view().reshape(b.view().shape[k:]) for b in self.val._buffers]

    def __str__(self) -> str:
        # as JAX prints a value inside an eager shard_map: every device's block
        mesh = self._trace.mesh
        names = ", ".join(mesh.axis_names) + ","
        parts = []
        for pos, (dev, block) in enumerate(zip(mesh.devices.flat, self._blocks())):
            coords = tuple(int(c) for c in np.unravel_index(pos, mesh.axis_sizes))
            parts.append(
                f"On {dev} at mesh coordinates ({names}) = {coords}:\n{Array(block, self.weak_type)}\n"
            )
        return "\n".join(parts)

    def __repr__(self) -> str:
        return self.__str__()


def run_eagerly(f, fun_name, mesh, leaves, in_tree, in_sp, out_specs, check_vma):
    from ..lax import api as lax
    from ..tree_util import tree_flatten, tree_unflatten

    k = len(mesh.axis_names)
    with core.new_main(ShardMapTrace, global_data=mesh) as main, checking_vma(check_vma):
        trace = main.trace = ShardMapTrace(main)
        tracers = []
        for x, spec in zip(leaves, in_sp):
            aval = core.get_aval(x)
            block = aval.update(shape=_block_shape(mesh, aval.shape, spec))

            def split(b):
                return [lax.expand_dims(b, tuple(range(k)))]

            closed, _ = _trace_body(split, [block], mesh)
            (val,) = _bind(
                [], [x], [spec], [_stacked_spec(mesh, block.ndim)], closed, mesh=mesh, check_vma=False
            )
            vma = _typed_axes(mesh, spec)
            tracers.append(ShardMapTracer(trace, val, block, vma))
        with _manual_axes(mesh), core.new_dynamic(main):
            out = f(*tree_unflatten(in_tree, tracers))  # (collectives' wrappers ask for axis sizes)
        out_leaves, out_tree = tree_flatten(out)
        out_tracers = [trace.full_raise(o) for o in out_leaves]
    out_sp = _out_specs(f, out_specs, out, [t.aval for t in out_tracers], mesh)
    if check_vma:
        _check_out_vma("_rem_singleton", mesh, out_sp, [t.vma for t in out_tracers], out_specs, out)
    results = []
    for t, spec in zip(out_tracers, out_sp):

        def join(b):
            return [lax.squeeze(b, tuple(range(k)))]

        closed, _ = _trace_body(join, [t.aval.update(shape=(1,) * k + t.aval.shape)], mesh)
        (r,) = _bind(
            [], [t.val], [_stacked_spec(mesh, t.aval.ndim)], [spec], closed, mesh=mesh, check_vma=False
        )
        results.append(r)
    return tree_unflatten(out_tree, results)
