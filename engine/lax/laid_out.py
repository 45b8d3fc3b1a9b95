"""An operation's ``out_sharding=``: as the equation's parameter (JAX's canonicalize_sharding), and
bound so that a staged result is laid out by it (its type shows it) and an eager one is moved there."""

from __future__ import annotations

from .. import core
from ..core import Tracer


def _layout_param(out_sharding, ndim: int, what: str):
    """An ``out_sharding=`` as the equation's parameter: None outside a mesh, as JAX's
    canonicalize_sharding gives; replicated over the context mesh as it is (what transposes pass on
    inside ``shard_map`` or ``jax.set_mesh``); else the sharding over the current mesh."""
    from ..sharding import NamedSharding, as_sharding
    from ..sharded_types import context_sharding

    if out_sharding is None or (isinstance(out_sharding, NamedSharding) and out_sharding.mesh.empty):
        return None
    here = context_sharding(ndim)
    if (
        here is not None
        and isinstance(out_sharding, NamedSharding)
        and getattr(out_sharding.mesh, "abstract_mesh", out_sharding.mesh) == here.mesh
        and all(p is None for p in out_sharding.spec.partitions)
        and not (out_sharding.spec.unreduced or out_sharding.spec.reduced)
    ):
        return here
    return as_sharding(out_sharding, what)


def _bind_laid_out(prim, key: str, layout, *args, **params):
    """``prim`` bound with ``layout`` as its parameter ``key``: staged, the equation lays its
    result out (the partitioner moves it; its type shows it, as JAX's); eagerly the result is
    computed, then moved there by ``reshard`` (an impl computes values, not placements), unless an
    operand is on the mesh: its devices compute it, laid out as said (and, as JAX's, unchecked)."""
    from ..sharding import Mesh, reshard

    if layout is not None and isinstance(layout.mesh, Mesh) and core._state.dynamic is None:
        if not any(getattr(a, "on_mesh", False) for a in args):
            return reshard(prim.bind(*args, **params, **{key: None}), layout)
    out = prim.bind(*args, **params, **{key: layout})
    if layout is not None:
        from ..sharded_types import check_divides

        check_divides(core.get_aval(out).shape, layout)
    return out


def _relays(x, out_sharding) -> bool:
    """Whether ``out_sharding`` lays ``x`` out otherwise than its type says (on an explicit mesh)."""
    from ..sharded_types import staged_layout
    from ..sharding import NamedSharding

    have = staged_layout(x) if isinstance(x, Tracer) else None
    if have is None or not isinstance(out_sharding, NamedSharding):
        return False
    ndim = len(core.get_aval(x).shape)
    return have._normalized(ndim) != out_sharding._normalized(ndim)
