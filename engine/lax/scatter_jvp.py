"""The JVP of a plain scatter (``x.at[i].set(v)``), JAX's construction: with unique indices the
tangent is a scatter of tangents; otherwise a scatter of update ids learns which update won each
element, the losers are masked, and value and tangent are both scatter-adds of the winners."""

from __future__ import annotations

import math

import numpy as np

from .. import ad, core
from .gather_scatter import (
    GatherScatterMode,
    _gather_dnums_for,
    _lax,
    _scatter_window_sizes,
    gather,
    scatter,
    scatter_add,
    scatter_p,
)


def _scatter_jvp(primals, tangents, *, dimension_numbers, indices_are_sorted, unique_indices, mode, **rest):
    if rest.get("update_jaxpr") is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")  # (JAX has none either)
    lax = _lax()
    x, idx, u = primals
    gx, _, gu = tangents
    dn = dimension_numbers
    flags = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    params = dict(flags, dimension_numbers=dn, **rest)
    if type(gx) is ad.Zero and type(gu) is ad.Zero:
        out = scatter_p.bind(x, idx, u, **params)
        return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))
    gx, gu = ad.instantiate_zeros(gx), ad.instantiate_zeros(gu)
    if unique_indices:
        return scatter_p.bind(x, idx, u, **params), scatter_p.bind(gx, idx, gu, **params)
    u_shape = core.get_aval(u).shape
    ids_shape = [1 if d in dn.update_window_dims else s for d, s in enumerate(u_shape)]
    num_ids = math.prod(ids_shape)
    id_dtype = np.dtype(np.uint64 if num_ids > np.iinfo(np.uint32).max else np.uint32)
    ids = lax.add(lax.reshape(lax.iota(id_dtype, num_ids), ids_shape), lax.full_like(u, 1, id_dtype))
    scattered = scatter(lax.full(core.get_aval(x).shape, 0, id_dtype), idx, ids, dn, **flags)
    sizes = _scatter_window_sizes(core.get_aval(x).shape, u_shape, dn)
    gathered = gather(
        scattered, idx, _gather_dnums_for(dn), tuple(sizes), mode=GatherScatterMode.PROMISE_IN_BOUNDS
    )

    def zeros(a):
        return lax.full_like(a, 0)

    masked_x = lax.select(lax.eq(scattered, zeros(scattered)), x, zeros(x))
    masked_u = lax.select(lax.eq(ids, gathered), u, zeros(u))
    masked_gx = lax.select(lax.eq(scattered, zeros(scattered)), gx, zeros(gx))
    masked_gu = lax.select(lax.eq(ids, gathered), gu, zeros(gu))
    return scatter_add(masked_x, idx, masked_u, dn, **flags), scatter_add(
        masked_gx, idx, masked_gu, dn, **flags
    )


ad.jvp_rules[scatter_p] = _scatter_jvp
