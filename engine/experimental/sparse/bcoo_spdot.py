"""``bcoo_spdot_general``: the contraction of two BCOO arrays, itself a BCOO array (what ``A @ B`` of
two BCOO matrices computes), with JAX's parameters, errors, JVP and batching rule. As in JAX 0.10.2
there is no transpose rule, so reverse-mode differentiation through it fails.

Every pair of stored elements (one of each operand, for each combination of batch indices) whose
contracted indices agree gives one product, stored at the pair's free indices; the ``lhs.nse *
rhs.nse`` candidates are then summed at equal indices (``bcoo_sum_duplicates``) into the result's
``nse`` slots, sorted. Neither operand may have dense dimensions, and only sparse dimensions are
contracted.
"""

from __future__ import annotations

import math

import numpy as np

from ... import ad, batching, core
from ...core import Primitive, ShapedArray
from ...lax.dot_general import _dot_general_abstract as dense_abstract
from ...lax.dot_general import batch_dim_nums
from ._base import SparseInfo
from .bcoo_layout import _sum_impl as sum_duplicates_impl
from .bcoo_primitives import batch_dims_to_front, validate

bcoo_spdot_general_p = Primitive("bcoo_spdot_general", multiple_results=True)


def spdot_general(
    lhs_data,
    lhs_indices,
    rhs_data,
    rhs_indices,
    *,
    lhs_spinfo,
    rhs_spinfo,
    dimension_numbers,
    preferred_element_type,
):
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((_ints(lc), _ints(rc)), (_ints(lb), _ints(rb)))
    return bcoo_spdot_general_p.bind(
        lhs_data,
        lhs_indices,
        rhs_data,
        rhs_indices,
        lhs_spinfo=lhs_spinfo,
        rhs_spinfo=rhs_spinfo,
        dimension_numbers=dn,
        preferred_element_type=preferred_element_type,
    )


def _ints(dims) -> tuple[int, ...]:
    return (int(dims),) if np.ndim(dims) == 0 else tuple(int(d) for d in dims)


def _others(n, taken):
    return [d for d in range(n) if d not in taken]


@bcoo_spdot_general_p.def_abstract_eval
def _spdot_abstract(
    lhs_data,
    lhs_indices,
    rhs_data,
    rhs_indices,
    *,
    lhs_spinfo,
    rhs_spinfo,
    dimension_numbers,
    preferred_element_type,
):
    lhs_shape, rhs_shape = tuple(lhs_spinfo.shape), tuple(rhs_spinfo.shape)
    out = dense_abstract(
        ShapedArray(lhs_shape, lhs_data.dtype),
        ShapedArray(rhs_shape, rhs_data.dtype),
        dimension_numbers=dimension_numbers,
        preferred_element_type=preferred_element_type,
    )
    lhs = validate(lhs_data.shape, lhs_indices.shape, lhs_shape)
    rhs = validate(rhs_data.shape, rhs_indices.shape, rhs_shape)
    (lc, rc), (lb, rb) = dimension_numbers
    if lhs.n_dense or rhs.n_dense:
        raise NotImplementedError("bcoo_spdot_general with dense dimensions.")
    if (lb and max(lb) >= lhs.n_batch) or (rb and max(rb) >= rhs.n_batch):
        raise NotImplementedError(
            "bcoo_spdot_general: batch_dims must correspond to batch dimensions of the sparse representation."
        )
    for contracted, props in ((lc, lhs), (rc, rhs)):
        if contracted and (
            min(contracted) < props.n_batch or max(contracted) >= props.n_batch + props.n_sparse
        ):
            raise NotImplementedError("bcoo_spdot_general only supports contraction of sparse indices.")
    # (the result's batch axes lead: rhs's own batch axes cannot follow lhs's free sparse axes)
    if rhs.n_batch > len(rb) and lhs.n_sparse > len(lc):
        raise ValueError(
            "bcoo_spdot_general: cannot have unused batch dims on rhs with unused sparse dims on lhs."
        )
    # one candidate per pair of stored elements, never more than the result's sparse block holds
    nse = (lhs.nse if lhs.n_sparse > len(lc) else 1) * (rhs.nse if rhs.n_sparse > len(rc) else 1)
    out_n_batch = lhs.n_batch + rhs.n_batch - len(lb)
    nse = min(nse, math.prod(out.shape[out_n_batch:]))
    batch = _out_batch_shape(lhs_data.shape, lhs_indices.shape, lhs_shape, lhs.n_batch, lb)
    batch += _out_batch_shape(rhs_data.shape, rhs_indices.shape, rhs_shape, rhs.n_batch, rb)[len(rb) :]
    n_sparse = lhs.n_sparse + rhs.n_sparse - 2 * len(lc)
    return [
        ShapedArray((*batch, nse), out.dtype),
        ShapedArray((*batch, nse, n_sparse), lhs_indices.dtype),
    ]


def _out_batch_shape(data_shape, indices_shape, shape, n_batch, shared):
    """The shared batch axes (full size) then the operand's own ones (its buffers' broadcast size)."""
    own = [max(data_shape[d], indices_shape[d]) for d in _others(n_batch, shared)]
    return (*(shape[d] for d in shared), *own)


def _to_batch_front(data, indices, shape, n_batch, shared):
    """Both buffers broadcast to the operand's batch shape, the shared batch axes first."""
    full = (*(shape[d] if d in shared else max(data.shape[d], indices.shape[d]) for d in range(n_batch)),)
    data = np.broadcast_to(data, (*full, *data.shape[n_batch:]))
    indices = np.broadcast_to(indices, (*full, *indices.shape[n_batch:]))
    order = [*shared, *_others(n_batch, shared)]
    return data.transpose(*order, n_batch), indices.transpose(*order, n_batch, n_batch + 1)


def _spdot_one(ld, li, rd, ri, *, lhs_shape, rhs_shape, lc, rc, nse, dtype):
    """One unbatched contraction: ``ld``, ``li`` and ``rd``, ``ri`` the buffers of sparse arrays of
    shapes ``lhs_shape``, ``rhs_shape`` without batch or dense axes."""
    l_free, r_free = _others(len(lhs_shape), lc), _others(len(rhs_shape), rc)
    l_key, r_key = li[:, lc], ri[:, rc]
    meets = (l_key[:, None, :] == r_key[None, :, :]).all(-1)
    # padding (out of range along a contracted axis) meets nothing
    meets &= (l_key < np.asarray([lhs_shape[d] for d in lc], l_key.dtype)).all(-1)[:, None]
    meets &= (r_key < np.asarray([rhs_shape[d] for d in rc], r_key.dtype)).all(-1)[None, :]
    products = np.where(meets, ld[:, None] * rd[None, :], 0).astype(dtype).reshape(-1)
    n_l, n_r = len(li), len(ri)
    index_dtype = np.result_type(li.dtype, ri.dtype)
    at = (
        np.concatenate(
            [
                np.broadcast_to(li[:, None, l_free], (n_l, n_r, len(l_free))),
                np.broadcast_to(ri[None, :, r_free], (n_l, n_r, len(r_free))),
            ],
            axis=-1,
        )
        .astype(index_dtype)
        .reshape(n_l * n_r, len(l_free) + len(r_free))
    )
    out_shape = (*(lhs_shape[d] for d in l_free), *(rhs_shape[d] for d in r_free))
    return sum_duplicates_impl(products, at, spinfo=SparseInfo(out_shape), nse=nse)


@bcoo_spdot_general_p.def_impl
def _spdot_impl(
    lhs_data,
    lhs_indices,
    rhs_data,
    rhs_indices,
    *,
    lhs_spinfo,
    rhs_spinfo,
    dimension_numbers,
    preferred_element_type,
):
    # (JAX's implementation asserts this before it checks anything else: eagerly, dense dimensions are
    # an AssertionError, traced they are the abstract evaluation's NotImplementedError)
    assert lhs_data.ndim == lhs_indices.ndim - 1 and rhs_data.ndim == rhs_indices.ndim - 1
    data_aval, indices_aval = _spdot_abstract(
        *(core.get_aval(x) for x in (lhs_data, lhs_indices, rhs_data, rhs_indices)),
        lhs_spinfo=lhs_spinfo,
        rhs_spinfo=rhs_spinfo,
        dimension_numbers=dimension_numbers,
        preferred_element_type=preferred_element_type,
    )
    lhs_data, lhs_indices, rhs_data, rhs_indices = (
        np.asarray(x) for x in (lhs_data, lhs_indices, rhs_data, rhs_indices)
    )
    lhs_shape, rhs_shape = tuple(lhs_spinfo.shape), tuple(rhs_spinfo.shape)
    (lc, rc), (lb, rb) = dimension_numbers
    l_nb, r_nb = lhs_indices.ndim - 2, rhs_indices.ndim - 2
    ld, li = _to_batch_front(lhs_data, lhs_indices, lhs_shape, l_nb, lb)
    rd, ri = _to_batch_front(rhs_data, rhs_indices, rhs_shape, r_nb, rb)
    shared, l_own, r_own = ld.shape[: len(lb)], ld.shape[len(lb) : l_nb], rd.shape[len(rb) : r_nb]
    nse, n_sparse = indices_aval.shape[-2:]
    data_out = np.zeros((*shared, *l_own, *r_own, nse), data_aval.dtype)
    indices_out = np.zeros((*shared, *l_own, *r_own, nse, n_sparse), indices_aval.dtype)
    dtype = np.result_type(lhs_data.dtype, rhs_data.dtype)
    one = dict(
        lhs_shape=lhs_shape[l_nb:],
        rhs_shape=rhs_shape[r_nb:],
        lc=[d - l_nb for d in lc],
        rc=[d - r_nb for d in rc],
        nse=nse,
        dtype=dtype,
    )
    for s in np.ndindex(*shared):
        for a in np.ndindex(*l_own):
            for b in np.ndindex(*r_own):
                data, indices = _spdot_one(ld[s + a], li[s + a], rd[s + b], ri[s + b], **one)
                data_out[s + a + b], indices_out[s + a + b] = data, indices
    return [data_out, indices_out]


def _spdot_batch(size, vals, dims, *, lhs_spinfo, rhs_spinfo, dimension_numbers, preferred_element_type):
    # each operand gains the mapped axis as a leading batch axis; two mapped axes are one more
    # shared batch dimension, the result's first
    lhs_data, lhs_indices, l_info = batch_dims_to_front(*vals[:2], dims[:2], lhs_spinfo, size)
    rhs_data, rhs_indices, r_info = batch_dims_to_front(*vals[2:], dims[2:], rhs_spinfo, size)
    dn, out_dim = batch_dim_nums((len(lhs_spinfo.shape), len(rhs_spinfo.shape)), (0, 0), dimension_numbers)
    outs = spdot_general(
        lhs_data,
        lhs_indices,
        rhs_data,
        rhs_indices,
        lhs_spinfo=l_info,
        rhs_spinfo=r_info,
        dimension_numbers=dn,
        preferred_element_type=preferred_element_type,
    )
    return outs, [out_dim, out_dim]


def _spdot_jvp(primals, tangents, **params):
    # bilinear in the two data buffers; the indices have no tangent
    lhs_data, lhs_indices, rhs_data, rhs_indices = primals
    lhs_dot, _, rhs_dot, _ = tangents
    out = spdot_general(*primals, **params)
    if type(lhs_dot) is ad.Zero and type(rhs_dot) is ad.Zero:
        data_dot = ad.Zero(ad.tangent_aval(core.get_aval(out[0])))
    else:
        data_dot = 0  # (JAX's sum starts from a Python 0: its jaxpr adds the terms to a weak 0.0)
        if type(lhs_dot) is not ad.Zero:
            data_dot = data_dot + spdot_general(lhs_dot, lhs_indices, rhs_data, rhs_indices, **params)[0]
        if type(rhs_dot) is not ad.Zero:
            data_dot = data_dot + spdot_general(lhs_data, lhs_indices, rhs_dot, rhs_indices, **params)[0]
    return list(out), [data_dot, ad.Zero(ad.tangent_aval(core.get_aval(out[1])))]


ad.jvp_rules[bcoo_spdot_general_p] = _spdot_jvp
batching.batch_rules[bcoo_spdot_general_p] = _spdot_batch
