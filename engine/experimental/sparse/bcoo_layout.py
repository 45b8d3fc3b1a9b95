"""Reorganizing a BCOO array's stored elements: ``bcoo_sort_indices`` (lexicographic order, duplicates
kept) and ``bcoo_sum_duplicates`` (one stored element per index, sorted, padded or cut to ``nse``),
primitives with JAX's names and parameters and their JVP and batching rules."""

from __future__ import annotations

import math

import numpy as np

from ... import ad, batching, core
from ...batching import not_mapped
from ...core import Primitive, ShapedArray
from ._base import SparseInfo
from .bcoo_primitives import batch_dims_to_front, extract, todense, validate, validate_indices


def _out_batch(data_shape, indices_shape, n_batch):
    return tuple(max(a, b) for a, b in zip(data_shape[:n_batch], indices_shape[:n_batch]))


def sort_indices(data, indices, *, spinfo):
    return tuple(bcoo_sort_indices_p.bind(data, indices, spinfo=spinfo))


def sum_duplicates(data, indices, *, spinfo, nse):
    return tuple(bcoo_sum_duplicates_p.bind(data, indices, spinfo=spinfo, nse=nse))


# --- bcoo_sort_indices ---------------------------------------------------------------------------

bcoo_sort_indices_p = Primitive("bcoo_sort_indices", multiple_results=True)


def _sort_order(indices: np.ndarray) -> np.ndarray:
    """Per batch of indices, the stable lexicographic order of its rows."""
    flat = indices.reshape(math.prod(indices.shape[:-2]), *indices.shape[-2:])
    order = [np.lexsort(ind.T[::-1]) if ind.shape[1] else np.arange(len(ind)) for ind in flat]
    return np.asarray(order, dtype=np.int64).reshape(indices.shape[:-1])


@bcoo_sort_indices_p.def_impl
def _sort_impl(data, indices, *, spinfo):
    n_batch, n_sparse, n_dense, nse = validate(data.shape, indices.shape, spinfo.shape)
    if n_sparse == 0:
        return [data, indices]
    order = _sort_order(indices)
    indices_out = np.take_along_axis(indices, order[..., None], axis=-2)
    batch = _out_batch(data.shape, indices.shape, n_batch)
    d = np.broadcast_to(data, (*batch, *data.shape[n_batch:]))
    o = np.broadcast_to(order, (*batch, nse)).reshape(*batch, nse, *(1,) * n_dense)
    return [np.take_along_axis(d, o, axis=n_batch), indices_out]


@bcoo_sort_indices_p.def_abstract_eval
def _sort_abstract(data, indices, *, spinfo):
    n_batch, n_sparse, _, _ = validate(data.shape, indices.shape, spinfo.shape)
    if n_sparse == 0:
        return [data, indices]
    shape = (*_out_batch(data.shape, indices.shape, n_batch), *data.shape[n_batch:])
    return [ShapedArray(shape, data.dtype, data.weak_type), indices]


def _sort_jvp(primals, tangents, *, spinfo):
    from ... import lax
    from ... import numpy as jnp

    data, indices = primals
    data_out, indices_out = sort_indices(data, indices, spinfo=spinfo)
    data_dot = tangents[0]
    n_batch, n_sparse, n_dense, nse = validate(
        core.get_aval(data).shape, core.get_aval(indices).shape, spinfo.shape
    )
    if type(data_dot) is ad.Zero or n_sparse == 0:
        dot_out = ad.Zero(ad.tangent_aval(core.get_aval(data_out))) if type(data_dot) is ad.Zero else data_dot
    else:  # the tangent moves as the data moved: the order, as a traced sort of the indices
        ind_shape = core.get_aval(indices).shape
        cols = [indices[..., i] for i in range(n_sparse)]
        iota = lax.broadcasted_iota(np.int32, ind_shape[:-1], n_batch)
        order = lax.sort((*cols, iota), dimension=n_batch, num_keys=n_sparse)[-1]
        out_shape = core.get_aval(data_out).shape
        order = jnp.broadcast_to(order, out_shape[: n_batch + 1]).reshape(
            *out_shape[: n_batch + 1], *(1,) * n_dense
        )
        dot_out = jnp.take_along_axis(jnp.broadcast_to(data_dot, out_shape), order, axis=n_batch)
    return [data_out, indices_out], [dot_out, ad.Zero(ad.tangent_aval(core.get_aval(indices_out)))]


def _sort_batch(size, vals, dims, *, spinfo):
    from ... import lax

    data, indices, spinfo = batch_dims_to_front(*vals, dims, spinfo, size)
    data_out, indices_out = sort_indices(data, indices, spinfo=spinfo)
    if dims[1] is not_mapped:  # unbatched indices stay unbatched
        return [data_out, lax.squeeze(indices_out, (0,))], [0, not_mapped]
    return [data_out, indices_out], [0, 0]


ad.jvp_rules[bcoo_sort_indices_p] = _sort_jvp
batching.batch_rules[bcoo_sort_indices_p] = _sort_batch


# --- bcoo_sum_duplicates -------------------------------------------------------------------------

bcoo_sum_duplicates_p = Primitive("bcoo_sum_duplicates", multiple_results=True)


def unique_layout(indices: np.ndarray, shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per batch of indices: its distinct rows, sorted (an out-of-range row becomes the padding row
    ``shape``, which sorts last), each element's position among them, and how many are in range."""
    n_batch, n_sparse, _, nse = validate_indices(indices.shape, shape)
    fill = np.asarray(shape[n_batch : n_batch + n_sparse], dtype=indices.dtype)
    flat = indices.reshape(math.prod(indices.shape[:-2]), nse, n_sparse)
    uniq, where, count = [], [], []
    for ind in flat:
        ind = np.where((ind >= fill).any(-1, keepdims=True), fill, ind)
        u, inv = np.unique(ind, axis=0, return_inverse=True)
        uniq.append(u)
        where.append(inv.reshape(-1))
        count.append(len(u) - int((u == fill).all(-1).any()))
    return uniq, np.asarray(where).reshape(indices.shape[:-1]), np.asarray(count).reshape(indices.shape[:-2])


def needed_nse(indices, shape) -> int:
    """The ``nse`` that keeps every distinct in-range index (``sum_duplicates``'s default)."""
    n_sparse = indices.shape[-1]
    return 1 if n_sparse == 0 else int(unique_layout(np.asarray(indices), shape)[2].max(initial=0))


@bcoo_sum_duplicates_p.def_impl
def _sum_impl(data, indices, *, spinfo, nse):
    shape = spinfo.shape
    n_batch, n_sparse, n_dense, old_nse = validate(data.shape, indices.shape, shape)
    fill = np.asarray(shape[n_batch : n_batch + n_sparse], dtype=indices.dtype)
    batch = _out_batch(data.shape, indices.shape, n_batch)
    if n_sparse == 0:
        where = np.zeros(indices.shape[:-1], np.int64)
        indices_out = np.zeros((*indices.shape[:-2], nse, 0), indices.dtype)
    else:
        uniq, where, _ = unique_layout(indices, shape)
        rows = np.broadcast_to(fill, (len(uniq), nse, n_sparse)).copy()
        for b, u in enumerate(uniq):
            rows[b, : min(nse, len(u))] = u[:nse]
        indices_out = rows.reshape(*indices.shape[:-2], nse, n_sparse)
    d = np.broadcast_to(data, (*batch, *data.shape[n_batch:])).reshape(
        math.prod(batch), old_nse, *data.shape[n_batch + 1 :]
    )
    w = np.broadcast_to(where, (*batch, old_nse)).reshape(math.prod(batch), old_nse)
    out = np.zeros((len(d), nse, *data.shape[n_batch + 1 :]), data.dtype)
    for b in range(len(d)):
        keep = w[b] < nse  # elements past nse are dropped
        np.add.at(out[b], w[b][keep], d[b][keep])
    return [out.reshape(*batch, nse, *data.shape[n_batch + 1 :]), indices_out]


@bcoo_sum_duplicates_p.def_abstract_eval
def _sum_abstract(data, indices, *, spinfo, nse):
    if nse is None:
        raise ValueError(
            "bcoo_sum_duplicates: nse must be specified when using the function within jit, vmap, and "
            "other transformations requiring abstract evaluation."
        )
    n_batch, n_sparse, _, _ = validate(data.shape, indices.shape, spinfo.shape)
    ind = ShapedArray((*indices.shape[:n_batch], nse, n_sparse), indices.dtype)
    shape = (*_out_batch(data.shape, indices.shape, n_batch), nse, *data.shape[n_batch + 1 :])
    return [ShapedArray(shape, data.dtype, data.weak_type), ind]


def _sum_jvp(primals, tangents, *, spinfo, nse):
    data, indices = primals
    data_out, indices_out = sum_duplicates(data, indices, spinfo=spinfo, nse=nse)
    if type(tangents[0]) is ad.Zero:
        dot_out = ad.Zero(ad.tangent_aval(core.get_aval(data_out)))
    else:  # for fixed indices the summation is linear in the data
        dot_out, _ = sum_duplicates(tangents[0], indices, spinfo=spinfo, nse=nse)
    return [data_out, indices_out], [dot_out, ad.Zero(ad.tangent_aval(core.get_aval(indices_out)))]


def _sum_transpose(cts, data, indices, *, spinfo, nse):
    # Each element receives the cotangent of the slot it was summed into: the slots laid out densely
    # and read back at the elements' indices (padding and dropped elements read zeros).
    from ... import numpy as jnp

    if ad.is_undefined(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    ct = ad.instantiate_zeros(cts[0])
    aval = data.aval
    _, indices_out = sum_duplicates(jnp.zeros(aval.shape, aval.dtype), indices, spinfo=spinfo, nse=nse)
    n_batch = core.get_aval(indices).ndim - 2
    batch = core.get_aval(ct).shape[:n_batch]
    dense = todense(ct, indices_out, spinfo=SparseInfo((*batch, *spinfo.shape[n_batch:])))
    out = extract(indices, dense)
    summed = tuple(i for i in range(n_batch) if aval.shape[i] == 1 and core.get_aval(out).shape[i] != 1)
    return [jnp.sum(out, axis=summed, keepdims=True) if summed else out, None]


def _sum_batch(size, vals, dims, *, spinfo, nse):
    from ... import lax

    data, indices, spinfo = batch_dims_to_front(*vals, dims, spinfo, size)
    data_out, indices_out = sum_duplicates(data, indices, spinfo=spinfo, nse=nse)
    if dims[1] is not_mapped:
        return [data_out, lax.squeeze(indices_out, (0,))], [0, not_mapped]
    return [data_out, indices_out], [0, 0]


ad.jvp_rules[bcoo_sum_duplicates_p] = _sum_jvp
ad.transpose_rules[bcoo_sum_duplicates_p] = _sum_transpose
batching.batch_rules[bcoo_sum_duplicates_p] = _sum_batch
