"""The specs of shard_map's arguments: inferred from their shardings where ``in_specs`` is left
out (``jax.sharding.Infer``), and checked against their types on a mesh whose axes are all
``Explicit`` (as JAX checks)."""

from __future__ import annotations

from .. import ad, batching, core
from ..sharding import AxisType, Mesh, PartitionSpec
from . import partition
from .named import NamedShardedArray
from .partial_types import reduced_of, unreduced_of
from .partition import _entry


class _Infer:
    def __repr__(self):
        return "jax.sharding.Infer"


Infer = _Infer()


def inferred_spec(x, mesh: Mesh) -> PartitionSpec:
    """``in_specs`` left out: the argument's own sharding (a traced one's, under jit, as its type
    says: through jvp and partial-evaluation tracers to the value being staged)."""
    if isinstance(x, NamedShardedArray):
        return x.sharding.spec if x.sharding.mesh == mesh else PartitionSpec()
    while isinstance(x, core.Tracer):
        if isinstance(x, ad.JVPTracer):
            x = x.primal
        elif isinstance(x, ad.PartialEvalTracer) and x.pval.is_known:
            x = x.pval.const
        else:
            sharding = partition.traced_sharding(x)
            return sharding.spec if sharding is not None and sharding.mesh == mesh else PartitionSpec()
    return PartitionSpec()


def _known_spec(x, mesh: Mesh) -> PartitionSpec | None:
    """The argument's sharding on ``mesh`` (through the tracers of grad and jvp to their primal
    values; a staged value's as its type says; inside vmap, one example's), or None when a vmap
    maps over a split dimension (an explicit mesh axis vmapped away, which JAX checks otherwise)."""
    while isinstance(x, core.Tracer):
        if isinstance(x, ad.PrimalTracer):
            x = x.primal
        elif isinstance(x, ad.PartialEvalTracer) and x.pval.is_known:
            x = x.pval.const
        elif isinstance(x, batching.BatchTracer):
            dim = x.batch_dim
            whole = _known_spec(x.val, mesh)
            if whole is None or not isinstance(dim, int):
                return None if whole is None or dim is not batching.not_mapped else whole
            return whole.example_spec(core.get_aval(x.val).ndim, dim)
        else:
            sharding = partition.traced_sharding(x)
            return sharding.spec if sharding is not None and sharding.mesh == mesh else PartitionSpec()
    return (
        x.sharding.spec if isinstance(x, NamedShardedArray) and x.sharding.mesh == mesh else PartitionSpec()
    )


def check_in_specs_match(mesh: Mesh, leaves, in_sp):
    """On a mesh whose axes are all Explicit, arrays carry their shardings in their types: the
    in_specs must say what they are (as JAX checks)."""
    from ..sharding import typeof

    if not all(t is AxisType.Explicit for t in mesh.axis_types):
        return
    for x, spec in zip(leaves, in_sp):
        got = _known_spec(x, mesh)  # (a traced argument's, under jit, as its type says)
        if got is None:
            continue
        ndim = core.get_aval(x).ndim
        want = PartitionSpec(
            *[_entry(axes) for axes in (*spec, *((),) * (ndim - len(spec)))],
            unreduced=unreduced_of(spec),
            reduced=reduced_of(spec),
        )
        got_n = got._normalized_spec_for_aval(ndim)
        # (size-1 mesh axes stay in both, as jax_remove_size_one_mesh_axis_from_type is off)
        if got_n != want:
            raise ValueError(
                f"in_specs passed to shard_map: {want} does not match the specs of the input: {got_n} for "
                f"arg: {typeof(x)}. `in_specs` is an optional argument so you can omit specifying it and "
                "shard_map will infer the in_specs from the arguments. If you want to reshard your inputs, "
                "you can use `jax.reshard` on the arguments and then pass those args to shard_map."
            )
