"""Host callbacks in a program partitioned over a mesh (a ``jit`` of sharded arrays, an eager
operation on one): JAX's bulk-array semantics, where the callback runs once, on device 0, with the
whole value of each operand (XLA's MAXIMAL sharding), and every device gets its results. So a
``pure_callback``, an ``io_callback`` (its side effects included) or a ``jax.debug.print`` runs
once per call as it does in JAX, not once per device.

``jax.debug.print(..., partitioned=True)`` and ``jax.debug.callback(..., partitioned=True)`` run
per device on its own block instead, as JAX's. Inside ``shard_map`` bodies (per-device code) the
callbacks run on every device: the body is not partitioned by these rules.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..lax import parallel as lax_parallel
from .partition import Sharded, _gathered, _replicated


def _on_device_zero(ctx, prim, vals, params):
    from .. import lax

    if params.get("partitioned"):  # (each device calls back with its block)
        outs = prim.bind(*[x.val for x in vals], **params)
        return [Sharded(o, _replicated(core.get_aval(o).ndim)) for o in outs]
    args = [_gathered(ctx, x) for x in vals]
    axes = tuple(ctx.mesh.axis_names)
    first = lax.eq(lax_parallel.axis_index(axes), np.int32(0))  # (an int32 index, x64 or not)
    avals = prim.abstract_eval(*[core.get_aval(a) for a in args], **params)

    def call(*xs):
        return list(prim.bind(*xs, **params))

    def skip(*xs):
        return [lax.full(a.shape, 0, a.dtype) for a in avals]

    outs = lax.cond(first, call, skip, *args)
    # (device 0's results to every device: a gather keeps them bit for bit, whatever their dtype)
    outs = [lax_parallel.all_gather(o, axes, axis=0)[0] for o in outs]
    return [Sharded(o, _replicated(core.get_aval(o).ndim)) for o in outs]


def install(rules: dict) -> None:
    from ..callbacks import io_callback_p, pure_callback_p
    from ..debug import debug_callback_p, debug_print_p

    for prim in (pure_callback_p, io_callback_p, debug_callback_p, debug_print_p):
        rules[prim] = _on_device_zero
