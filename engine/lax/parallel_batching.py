"""Batching rules of the collectives: when the vmap's own axis is named, the collective acts on the
batch dimension; a collective over another axis passes through with its positional params shifted.
(JAX's ``_batched_reduction_collective`` for ``psum``/``pmax``/``pmin``: the vmap axis becomes a
positional axis of the same collective.)"""

from __future__ import annotations

import numpy as np

from .. import batching, core
from ..batching import not_mapped
from .parallel import (
    _lax,
    all_gather_p,
    all_to_all_p,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_invariant_p,
    psum_p,
    psum_scatter_p,
)


def _vmap_axis_name():
    trace = batching.current_batch_trace()
    return None if trace is None else trace.axis_name


def _front(v, d, size):
    return batching.bdim_at_front(v, d, size)


def _reduction_batch(prim, if_unmapped):
    """psum/pmax/pmin, one operand at a time (as JAX binds them): the vmap's axis, when named,
    becomes a positional axis of the same collective (the batch axis, moved to the front); an
    operand the vmap does not batch is reduced over the other names, then ``if_unmapped``."""

    def one(size, name, v, d, axes):
        lax = _lax()
        if d is not_mapped:
            if name not in axes:
                return _bind(prim, v, axes), not_mapped
            rest = tuple(a for a in axes if a != name)
            return if_unmapped(lax, _bind(prim, v, rest) if rest else v, size), not_mapped
        shifted = tuple(a + 1 if isinstance(a, int) else a for a in axes)
        if name not in axes:
            if shifted == axes:  # (no positional axes: nothing moves)
                return _bind(prim, v, axes), d
            return _bind(prim, _front(v, d, size), shifted), 0
        return _bind(prim, _front(v, d, size), tuple(0 if a == name else a for a in shifted)), not_mapped

    def rule(size, vals, dims, *, axes, axis_index_groups=None):
        name = _vmap_axis_name()
        if name not in axes and not any(isinstance(a, int) for a in axes):
            out = prim.bind(*vals, axes=axes, axis_index_groups=None)
            return out, (list(dims) if prim.multiple_results else dims[0])
        outs, out_dims = zip(*[one(size, name, v, d, axes) for v, d in zip(vals, dims)])
        return (list(outs), list(out_dims)) if prim.multiple_results else (outs[0], out_dims[0])

    return rule


def _bind(prim, v, axes):
    out = prim.bind(v, axes=axes, axis_index_groups=None)
    return out[0] if prim.multiple_results else out


def _psum_invariant_batch(size, vals, dims, *, axes):
    # Checked shard_map bodies: the vmap's axis summed apart (JAX refuses positional axes here).
    lax = _lax()
    (v,), (d,) = vals, dims
    name = _vmap_axis_name()
    if name not in axes:
        return psum_invariant_p.bind(v, axes=axes), d
    out = lax.mul(v, lax.full_like(v, size)) if d is not_mapped else lax.reduce_sum(v, (d,))
    rest = tuple(a for a in axes if a != name)
    return (psum_invariant_p.bind(out, axes=rest) if rest else out), not_mapped


def _only_this_axis(axes, name, what):
    if name in axes and len(axes) > 1:
        raise NotImplementedError(f"{what} over a vmap axis together with other axes {axes}")
    return name in axes


def _all_gather_batch(size, vals, dims, *, axis_name, all_gather_dimension, **params):
    from . import api as lax

    (v,), (d,) = vals, dims
    ad_, tiled = all_gather_dimension, params["tiled"]
    if not _only_this_axis(axis_name, _vmap_axis_name(), "all_gather"):
        # (JAX's rule: the batch dimension stays where it is, the gathered one shifts past it)
        if d is not not_mapped:
            if d <= ad_:
                ad_ += 1
            elif not tiled:
                d += 1
        return all_gather_p.bind(v, axis_name=axis_name, all_gather_dimension=ad_, **params), d
    x = batching.moveaxis(_front(v, d, size), 0, ad_)
    if tiled:
        shape = list(core.get_aval(x).shape)
        shape[ad_ : ad_ + 2] = [shape[ad_] * shape[ad_ + 1]]
        x = lax.reshape(x, shape)
    return x, not_mapped


def _psum_scatter_batch(size, vals, dims, *, axis_name, scatter_dimension, **params):
    from . import api as lax

    (v,), (d,) = vals, dims
    sd, tiled = scatter_dimension, params["tiled"]
    if not _only_this_axis(axis_name, _vmap_axis_name(), "psum_scatter"):
        if d is not not_mapped:  # (JAX's rule, as all_gather's)
            if d <= sd:
                sd += 1
            elif not tiled:
                d += 1
        return psum_scatter_p.bind(v, axis_name=axis_name, scatter_dimension=sd, **params), d
    total = lax.reduce_sum(_front(v, d, size), (0,))
    if not tiled:
        return total, sd
    shape = list(core.get_aval(total).shape)
    shape[sd : sd + 1] = [size, shape[sd] // size]
    return lax.reshape(total, shape), sd


def _ppermute_batch(size, vals, dims, *, axis_name, perm):

    from ..numpy import take

    (v,), (d,) = vals, dims
    if not _only_this_axis(axis_name, _vmap_axis_name(), "ppermute"):
        return ppermute_p.bind(v, axis_name=axis_name, perm=perm), d
    # JAX's rule: a whole permutation (JAX asserts it), taken along the batch dimension
    if len(perm) != size:
        raise AssertionError("Permutation doesn't match the axis size!")
    if d is not_mapped:
        return v, d
    sources = np.zeros(size, dtype=int)
    for src, dst in perm:
        sources[dst] = src
    return take(v, sources, axis=d), d


def _all_to_all_batch(size, vals, dims, *, axis_name, split_axis, concat_axis, tiled, axis_index_groups):
    from . import api as lax

    (v,), (d,) = vals, dims
    if not _only_this_axis(axis_name, _vmap_axis_name(), "all_to_all"):
        if d is not_mapped:
            return all_to_all_p.bind(
                v, axis_name=axis_name, split_axis=split_axis, concat_axis=concat_axis, tiled=tiled,
                axis_index_groups=axis_index_groups,
            ), d  # fmt: skip
        out = all_to_all_p.bind(  # (JAX's rule: the batch dimension stays where it is)
            v,
            axis_name=axis_name,
            split_axis=split_axis + (d <= split_axis),
            concat_axis=concat_axis + (d <= concat_axis),
            tiled=tiled,
            axis_index_groups=axis_index_groups,
        )
        return out, d
    if axis_index_groups is not None:
        raise NotImplementedError("Please open a feature request!")  # (JAX's vmap rule)
    x = _front(v, d, size)  # (j, *s): j is the source index
    s = list(core.get_aval(x).shape[1:])
    chunk = s[split_axis] // size
    x = lax.reshape(x, (size, *s[:split_axis], size, chunk, *s[split_axis + 1 :]))
    x = batching.moveaxis(x, 1 + split_axis, 0)  # (i, j, *r): i the destination
    r = s[:split_axis] + [chunk] + s[split_axis + 1 :]
    k = len(r)
    perm = [0] + [2 + q for q in range(concat_axis)] + [1] + [2 + q for q in range(concat_axis, k)]
    x = lax.transpose(x, perm)
    new_r = list(r)
    new_r[concat_axis] *= size
    return lax.reshape(x, (size, *new_r)), 0


batching.batch_rules[psum_p] = _reduction_batch(psum_p, lambda lax, v, n: lax.mul(lax._const_like(v, n), v))
batching.batch_rules[pmax_p] = _reduction_batch(pmax_p, lambda lax, v, n: v)
batching.batch_rules[pmin_p] = _reduction_batch(pmin_p, lambda lax, v, n: v)
batching.batch_rules[psum_invariant_p] = _psum_invariant_batch
batching.batch_rules[all_gather_p] = _all_gather_batch
batching.batch_rules[psum_scatter_p] = _psum_scatter_batch
batching.batch_rules[ppermute_p] = _ppermute_batch
batching.batch_rules[all_to_all_p] = _all_to_all_batch
