"""``all_gather``'s typed variants inside ``shard_map`` (``lax.all_gather(..., to=...)``, JAX's
primitives): the same gather, with another type for its result and so another transpose.

- ``all_gather_invariant`` (``to='invarying'``): the result does not vary over the gathered axes;
  its transpose is each device's slice of the (invariant) cotangent, with no communication.
- ``all_gather_reduced`` (``to='reduced'``): the result is reduced over them (``{R:i}``); its
  cotangent is unreduced, and its transpose the ``unreduced_reduce_scatter`` that sums it.
"""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core
from ..avals import PartialAxis
from ..core import Primitive
from . import parallel as lp

all_gather_invariant_p = Primitive("all_gather_invariant")
all_gather_reduced_p = Primitive("all_gather_reduced")
TYPED_GATHERS = (all_gather_invariant_p, all_gather_reduced_p)


def _abstract(x, **params):
    return lp._all_gather_abstract(x, axis_index_groups=None, **params)


def _impl(x, **params):
    return lp._all_gather_impl(x, axis_index_groups=None, **params)


def _batch(size, vals, dims, **params):
    return batching.batch_rules[lp.all_gather_p](size, vals, dims, axis_index_groups=None, **params)


def _invariant_transpose(ct, x, *, axis_name, axis_size, all_gather_dimension, tiled):
    from . import api as lax

    ct = ad.instantiate_zeros(ct)
    piece = core.get_aval(ct).shape[all_gather_dimension] // axis_size
    start = lax.mul(lp.axis_index(axis_name), np.int32(piece))
    out = lax.dynamic_slice_in_dim(ct, start, piece, axis=all_gather_dimension)
    return [out if tiled else lax.squeeze(out, (all_gather_dimension,))]


def _reduced_transpose(ct, x, *, axis_name, axis_size, all_gather_dimension, tiled):
    ct = ad.instantiate_zeros(ct)
    params = dict(axis_name=axis_name, axis_size=axis_size, tiled=tiled)
    return [unreduced_reduce_scatter_p.bind(ct, scatter_dimension=all_gather_dimension, **params)]


for _p, _t in ((all_gather_invariant_p, _invariant_transpose), (all_gather_reduced_p, _reduced_transpose)):
    _p.def_abstract_eval(_abstract)
    _p.def_impl(_impl)
    batching.batch_rules[_p] = _batch
    ad.deflinear(_p, _t)

# The sum of an unreduced value scattered over its axes (varying: each device keeps its piece):
# ``all_gather_reduced``'s transpose, and transposed back to it.
unreduced_reduce_scatter_p = Primitive("unreduced_reduce_scatter")
unreduced_reduce_scatter_p.def_abstract_eval(
    lambda x, **params: lp.psum_scatter_p.abstract_eval(x, axis_index_groups=None, **params)
)
unreduced_reduce_scatter_p.def_impl(
    lambda x, **params: lp._psum_scatter_impl(x, axis_index_groups=None, **params)
)
batching.batch_rules[unreduced_reduce_scatter_p] = lambda size, vals, dims, **params: batching.batch_rules[
    lp.psum_scatter_p
](size, vals, dims, axis_index_groups=None, **params)
ad.deflinear(
    unreduced_reduce_scatter_p,
    lambda ct, x, *, scatter_dimension, **params: [
        all_gather_reduced_p.bind(ad.instantiate_zeros(ct), all_gather_dimension=scatter_dimension, **params)
    ],
)
TYPED_GATHERS = (*TYPED_GATHERS, unreduced_reduce_scatter_p)
lp.collective_primitives = (*lp.collective_primitives, *TYPED_GATHERS)  # (exchange slots are sized for them)


def result_vma(prim, union: set, axes) -> set:
    """The axes a typed gather's (or scatter's) result varies over, or is reduced over."""
    kept = {a for a in union if a not in set(axes)}
    if prim is all_gather_reduced_p:
        return kept | {PartialAxis(a, "R") for a in axes}
    return kept | set(axes) if prim is unreduced_reduce_scatter_p else kept
