"""The BCOO format's conversion primitives: ``bcoo_todense``, ``bcoo_fromdense``, ``bcoo_extract``
and ``bcoo_transpose``, with JAX's parameters and their JVP, transpose and batching rules.

A BCOO array of ``shape = batch + sparse + dense`` stores ``data`` of shape ``batch + (nse,) + dense``
and ``indices`` of shape ``batch + (nse, n_sparse)``; the batch dimensions of either buffer may have
size 1 (broadcast). Indices out of range (the padding ``fromdense`` writes when ``nse`` exceeds the
nonzeros) contribute nothing, as the scatter and gather in JAX's rules drop or fill them.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ... import ad, batching, core, ir
from ...batching import not_mapped
from ...core import Primitive, ShapedArray
from ._base import SparseInfo


class BCOOProperties(NamedTuple):
    n_batch: int
    n_sparse: int
    n_dense: int
    nse: int


def validate_indices(indices_shape, shape) -> BCOOProperties:
    shape = tuple(shape)
    nse, n_sparse = indices_shape[-2:]
    n_batch = len(indices_shape) - 2
    n_dense = len(shape) - n_batch - n_sparse
    if n_dense < 0:
        raise ValueError(f"Invalid indices.shape={tuple(indices_shape)} for shape={shape}")
    if any(s not in (1, full) for s, full in zip(indices_shape[:n_batch], shape[:n_batch])):
        raise ValueError(f"indices batch dimensions not compatible for {tuple(indices_shape)=}, {shape=}")
    return BCOOProperties(n_batch, n_sparse, n_dense, nse)


def validate(data_shape, indices_shape, shape) -> BCOOProperties:
    props = validate_indices(indices_shape, shape)
    n_batch, n_sparse, _, nse = props
    shape = tuple(shape)
    if any(s not in (1, full) for s, full in zip(data_shape[:n_batch], shape[:n_batch])):
        raise ValueError(f"data batch dimensions not compatible for data.shape={tuple(data_shape)}, {shape=}")
    if tuple(data_shape[n_batch:]) != (nse, *shape[n_batch + n_sparse :]):
        raise ValueError(
            f"Invalid data.shape={tuple(data_shape)} for nse={nse}, n_batch={n_batch}, "
            f"n_dense={props.n_dense}"
        )
    return props


# --- numpy: the buffers as a flat list of stored elements ----------------------------------------


def _flat_indices(indices: np.ndarray, shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each stored element's batch number, its sparse index (negative ones wrapped) and whether
    it lies inside ``shape``; the batch dimensions are broadcast to ``shape``'s."""
    n_batch, n_sparse, _, nse = validate_indices(indices.shape, shape)
    batch_shape = tuple(shape[:n_batch])
    sparse_shape = np.asarray(shape[n_batch : n_batch + n_sparse], dtype=np.int64).reshape(1, -1)
    n = math.prod(batch_shape) * nse
    ind = np.broadcast_to(indices, (*batch_shape, nse, n_sparse)).reshape(n, n_sparse).astype(np.int64)
    ind = np.where(ind < 0, ind + sparse_shape, ind)
    inside = np.all((ind >= 0) & (ind < sparse_shape), axis=1)
    batch = np.repeat(np.arange(math.prod(batch_shape)), nse)
    return batch, ind, inside


def _todense_impl(data, indices, *, spinfo):
    shape = tuple(spinfo.shape)
    n_batch, n_sparse, _, nse = validate(data.shape, indices.shape, shape)
    batch_shape, dense_shape = shape[:n_batch], shape[n_batch + n_sparse :]
    batch, ind, inside = _flat_indices(indices, shape)
    values = np.broadcast_to(data, (*batch_shape, nse, *dense_shape)).reshape(len(batch), *dense_shape)
    out = np.zeros((math.prod(batch_shape), *shape[n_batch:]), data.dtype)
    np.add.at(out, (batch[inside], *ind[inside].T), values[inside])
    return out.reshape(shape)


def _extract_impl(indices, arr, *, assume_unique):
    arr = np.asarray(arr)
    n_batch, n_sparse, _, nse = validate_indices(indices.shape, arr.shape)
    batch_shape, dense_shape = arr.shape[:n_batch], arr.shape[n_batch + n_sparse :]
    batch, ind, inside = _flat_indices(indices, arr.shape)
    if not assume_unique:  # a repeated index takes the value once, at its first position
        keys = np.concatenate([batch[:, None], ind], axis=1)
        _, first = np.unique(keys, axis=0, return_index=True)
        keep = np.zeros(len(keys), bool)
        keep[first] = True
        inside = inside & keep
    flat = arr.reshape(math.prod(batch_shape), *arr.shape[n_batch:])
    out = np.zeros((len(batch), *dense_shape), arr.dtype)
    out[inside] = flat[(batch[inside], *ind[inside].T)]
    return out.reshape(*batch_shape, nse, *dense_shape)


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_batch - n_dense
    batch_shape, sparse_shape = mat.shape[:n_batch], mat.shape[n_batch : n_batch + n_sparse]
    mask = mat != 0
    if n_dense:
        mask = mask.any(axis=tuple(range(mat.ndim - n_dense, mat.ndim)))
    mask = mask.reshape(math.prod(batch_shape), *sparse_shape)
    indices = np.empty((len(mask), nse, n_sparse), np.dtype(index_dtype))
    indices[...] = np.asarray(sparse_shape, int)  # padding: one past the end, which no rule reads
    for b, m in enumerate(mask if n_sparse else ()):
        found = np.stack(np.nonzero(m), axis=-1)[:nse]
        indices[b, : len(found)] = found
    indices = indices.reshape(*batch_shape, nse, n_sparse)
    data = _extract_impl(indices, mat, assume_unique=True)
    # Slots past a batch's count of nonzeros hold zeros (with no sparse axes, all slots share one index).
    count = mask.reshape(len(mask), -1).sum(axis=1).reshape(*batch_shape, 1)
    live = np.arange(nse) < count
    return [np.where(live.reshape(live.shape + (1,) * n_dense), data, 0).astype(mat.dtype), indices]


# --- binding helpers (the rules' vocabulary) ----------------------------------------------------


def todense(data, indices, *, spinfo):
    return bcoo_todense_p.bind(data, indices, spinfo=spinfo)


def extract(indices, arr, *, assume_unique=True):
    return bcoo_extract_p.bind(indices, arr, assume_unique=bool(assume_unique))


def fromdense(mat, *, nse, n_batch=0, n_dense=0, index_dtype=np.int32):
    return bcoo_fromdense_p.bind(mat, nse=nse, n_batch=n_batch, n_dense=n_dense, index_dtype=index_dtype)


def transpose(data, indices, *, permutation, spinfo):
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(spinfo.shape))):
        return data, indices
    return tuple(bcoo_transpose_p.bind(data, indices, permutation=permutation, spinfo=spinfo))


def batch_dims_to_front(data, indices, dims, spinfo, size):
    """Both buffers with their mapped axis first (an unmapped one gets a size-1 axis, which BCOO
    broadcasts) and the spinfo of the array with that axis as a new leading batch dimension."""
    from ... import lax

    n_batch = core.get_aval(indices).ndim - 2 + (dims[1] is not_mapped)
    if any(d is not not_mapped and not 0 <= d < n_batch for d in dims):
        raise NotImplementedError(
            f"batch_dims must be None or satisfy 0 < dim < n_batch. Got batch_dims={tuple(dims)} for {n_batch=}."
        )
    moved = [
        lax.expand_dims(x, (0,)) if d is not_mapped else batching.moveaxis(x, d, 0)
        for x, d in ((data, dims[0]), (indices, dims[1]))
    ]
    return moved[0], moved[1], SparseInfo((size, *spinfo.shape), spinfo.indices_sorted, spinfo.unique_indices)


# --- bcoo_todense --------------------------------------------------------------------------------

bcoo_todense_p = Primitive("bcoo_todense")
bcoo_todense_p.def_impl(_todense_impl)


@bcoo_todense_p.def_abstract_eval
def _todense_abstract(data, indices, *, spinfo):
    validate(data.shape, indices.shape, spinfo.shape)
    return ShapedArray(spinfo.shape, data.dtype)


def _todense_transpose(ct, data, indices, *, spinfo):
    if ad.is_undefined(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    return [extract(indices, ad.instantiate_zeros(ct)), None]


def _todense_batch(size, vals, dims, *, spinfo):
    data, indices, spinfo = batch_dims_to_front(*vals, dims, spinfo, size)
    return todense(data, indices, spinfo=spinfo), 0


ad.defjvp(bcoo_todense_p, lambda t, data, indices, *, spinfo: todense(t, indices, spinfo=spinfo), None)
ad.transpose_rules[bcoo_todense_p] = _todense_transpose
batching.batch_rules[bcoo_todense_p] = _todense_batch


# --- bcoo_fromdense ------------------------------------------------------------------------------

bcoo_fromdense_p = Primitive("bcoo_fromdense", multiple_results=True)
bcoo_fromdense_p.def_impl(_fromdense_impl)


@bcoo_fromdense_p.def_abstract_eval
def _fromdense_abstract(mat, *, nse, n_batch, n_dense, index_dtype):
    n_sparse = mat.ndim - n_batch - n_dense
    data_shape = (*mat.shape[:n_batch], nse, *mat.shape[n_batch + n_sparse :])
    return [
        ShapedArray(data_shape, mat.dtype),
        ShapedArray((*mat.shape[:n_batch], nse, n_sparse), index_dtype),
    ]


def _fromdense_jvp(primals, tangents, **params):
    data, indices = fromdense(primals[0], **params)
    (t,) = tangents
    data_dot = ad.Zero(ad.tangent_aval(core.get_aval(data))) if type(t) is ad.Zero else extract(indices, t)
    return [data, indices], [data_dot, ad.Zero(ad.tangent_aval(core.get_aval(indices)))]


def _fromdense_transpose(cts, mat, *, nse, n_batch, n_dense, index_dtype):
    data_ct, indices = cts
    if type(indices) is ad.Zero:
        raise ValueError("Cannot transpose with respect to sparse indices")
    return [todense(ad.instantiate_zeros(data_ct), indices, spinfo=SparseInfo(mat.aval.shape))]


def _fromdense_batch(size, vals, dims, *, nse, n_batch, n_dense, index_dtype):
    (mat,), (d,) = vals, dims
    if not 0 <= d <= n_batch:
        raise ValueError(f"Expected 0 < bdim <= n_batch; got bdim={d}, {n_batch=}")
    out = fromdense(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense, index_dtype=index_dtype)
    return out, [d, d]


ad.jvp_rules[bcoo_fromdense_p] = _fromdense_jvp
ad.transpose_rules[bcoo_fromdense_p] = _fromdense_transpose
batching.batch_rules[bcoo_fromdense_p] = _fromdense_batch


class _ClassRepr(str):
    """A dtype parameter shown as JAX shows the scalar type it was given: ``<class 'numpy.int32'>``."""


def _fromdense_pp(eqn):
    params = dict(eqn.params)
    idt = params["index_dtype"]
    params["index_dtype"] = _ClassRepr(repr(idt) if isinstance(idt, type) else np.dtype(idt).name)
    return sorted(params.items())


ir.pp_params_rules[bcoo_fromdense_p] = _fromdense_pp


# --- bcoo_extract --------------------------------------------------------------------------------

bcoo_extract_p = Primitive("bcoo_extract")
bcoo_extract_p.def_impl(_extract_impl)


@bcoo_extract_p.def_abstract_eval
def _extract_abstract(indices, arr, *, assume_unique):
    n_batch, _, n_dense, nse = validate_indices(indices.shape, arr.shape)
    return ShapedArray((*arr.shape[:n_batch], nse, *arr.shape[arr.ndim - n_dense :]), arr.dtype)


def _extract_transpose(ct, indices, arr, *, assume_unique):
    if not assume_unique:
        raise NotImplementedError("transpose of bcoo_extract with assume_unique=False")
    if ad.is_undefined(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    return [None, todense(ad.instantiate_zeros(ct), indices, spinfo=SparseInfo(arr.aval.shape))]


def _extract_batch(size, vals, dims, *, assume_unique):
    from ... import lax

    indices, arr = vals
    di, da = dims
    if di is not_mapped:
        d = da
        indices = lax.expand_dims(indices, (d,))
    elif da is not_mapped:
        d = di
        shape = list(core.get_aval(arr).shape)
        shape.insert(d, core.get_aval(indices).shape[d])
        arr = lax.broadcast_in_dim(arr, shape, tuple(i for i in range(len(shape)) if i != d))
    else:
        if di != da:
            raise NotImplementedError("bcoo_extract with unequal batch dimensions.")
        d = di
    if d >= core.get_aval(indices).ndim - 2:
        raise ValueError(
            f"batch_dims={tuple(dims)} out of range for indices with n_batch={core.get_aval(indices).ndim - 2}"
        )
    return extract(indices, arr, assume_unique=assume_unique), d


ad.defjvp(
    bcoo_extract_p,
    None,
    lambda t, indices, arr, *, assume_unique: extract(indices, t, assume_unique=assume_unique),
)
ad.transpose_rules[bcoo_extract_p] = _extract_transpose
batching.batch_rules[bcoo_extract_p] = _extract_batch


# --- bcoo_transpose ------------------------------------------------------------------------------

bcoo_transpose_p = Primitive("bcoo_transpose", multiple_results=True)


def split_permutation(data_shape, indices_shape, permutation, shape):
    """The permutation's batch, sparse and dense parts (each renumbered from 0); JAX's errors for
    permutations that would mix batch, sparse and dense axes."""
    if not isinstance(permutation, (tuple, list, np.ndarray)):
        raise TypeError(f"transpose permutation must be a tuple/list/ndarray, got {type(permutation)}.")
    if tuple(sorted(permutation)) != tuple(range(len(shape))):
        raise TypeError(
            "transpose permutation isn't a permutation of operand dimensions, "
            f"got permutation {tuple(permutation)} for shape {tuple(shape)}."
        )
    n_batch, n_sparse, n_dense, _ = validate(data_shape, indices_shape, shape)
    batch_perm = list(permutation[:n_batch])
    sparse_perm = [p - n_batch for p in permutation[n_batch : n_batch + n_sparse]]
    dense_perm = [p - n_sparse - n_batch for p in permutation[n_batch + n_sparse :]]
    if n_batch and sorted(batch_perm) != list(range(n_batch)):
        raise NotImplementedError(
            "transpose permutation cannot permute batch axes with non-batch axes; "
            f"got permutation {tuple(permutation)}, with {n_batch=}."
        )
    if n_dense and sorted(dense_perm) != list(range(n_dense)):
        raise NotImplementedError(
            "transpose permutation cannot permute dense axes with non-dense axes; "
            f"got permutation {tuple(permutation)}, with {n_dense=}."
        )
    return batch_perm, sparse_perm, dense_perm


@bcoo_transpose_p.def_impl
def _transpose_impl(data, indices, *, permutation, spinfo):
    batch_perm, sparse_perm, dense_perm = split_permutation(
        data.shape, indices.shape, permutation, spinfo.shape
    )
    n_batch = len(batch_perm)
    indices = indices[..., sparse_perm].transpose(*batch_perm, n_batch, n_batch + 1)
    data = data.transpose(*batch_perm, n_batch, *(d + n_batch + 1 for d in dense_perm))
    return [data, indices]


@bcoo_transpose_p.def_abstract_eval
def _transpose_abstract(data, indices, *, permutation, spinfo):
    batch_perm, _, dense_perm = split_permutation(data.shape, indices.shape, permutation, spinfo.shape)
    n_batch = len(batch_perm)
    ind_shape = [indices.shape[i] for i in (*batch_perm, n_batch, n_batch + 1)]
    data_shape = [data.shape[i] for i in (*batch_perm, n_batch, *(d + n_batch + 1 for d in dense_perm))]
    return [ShapedArray(data_shape, data.dtype), ShapedArray(ind_shape, indices.dtype)]


def _transpose_jvp(primals, tangents, *, permutation, spinfo):
    data, indices = primals
    out = transpose(data, indices, permutation=permutation, spinfo=spinfo)
    if type(tangents[0]) is ad.Zero:
        data_dot = ad.Zero(ad.tangent_aval(core.get_aval(out[0])))
    else:
        data_dot, _ = transpose(tangents[0], indices, permutation=permutation, spinfo=spinfo)
    return list(out), [data_dot, ad.Zero(ad.tangent_aval(core.get_aval(out[1])))]


def _transpose_transpose(cts, data, indices, *, permutation, spinfo):
    from ... import numpy as jnp

    data_ct, _ = cts
    if ad.is_undefined(indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    ct_spinfo = SparseInfo(tuple(spinfo.shape[p] for p in permutation))
    inverse = [int(i) for i in np.argsort(permutation)]
    # Only the data is transposed back: the indices are a stand-in of the right rank (as JAX's).
    ind_shape = core.get_aval(indices).shape
    standin = jnp.zeros([1] * (len(ind_shape) - 2) + list(ind_shape[-2:]), dtype=int)
    data_t, _ = transpose(ad.instantiate_zeros(data_ct), standin, permutation=inverse, spinfo=ct_spinfo)
    return [data_t, None]


def _transpose_batch(size, vals, dims, *, permutation, spinfo):
    from ... import lax

    data, indices, spinfo = batch_dims_to_front(*vals, dims, spinfo, size)
    outs = transpose(data, indices, permutation=(0, *(p + 1 for p in permutation)), spinfo=spinfo)
    out_dims = [not_mapped if d is not_mapped else 0 for d in dims]
    outs = [lax.squeeze(o, (0,)) if d is not_mapped else o for o, d in zip(outs, out_dims)]
    return outs, out_dims


ad.jvp_rules[bcoo_transpose_p] = _transpose_jvp
ad.transpose_rules[bcoo_transpose_p] = _transpose_transpose
batching.batch_rules[bcoo_transpose_p] = _transpose_batch
