"""Contractions with a BCOO operand: ``bcoo_dot_general`` (sparse lhs, dense rhs, dense result) and
``bcoo_dot_general_sampled`` (a dense contraction computed only at given BCOO indices: the
cotangent of a sparse operand's data), with JAX's parameters and rules."""

from __future__ import annotations

import numpy as np

from ... import ad, batching, core
from ...batching import not_mapped
from ...core import Primitive, ShapedArray
from ...lax.dot_general import _dot_general_abstract as dense_abstract
from ...lax.dot_general import _dot_general_impl as dense_impl
from ...lax.dot_general import _dot_transpose as dense_transpose
from ...lax.dot_general import batch_dim_nums
from ._base import SparseInfo
from .bcoo_primitives import (
    _extract_impl,
    _flat_indices,
    batch_dims_to_front,
    extract,
    split_permutation,
    todense,
    transpose,
    validate,
    validate_indices,
)


def dot_general(lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((_ints(lc), _ints(rc)), (_ints(lb), _ints(rb)))
    pet = None if preferred_element_type is None else np.dtype(preferred_element_type)
    return bcoo_dot_general_p.bind(
        lhs_data, lhs_indices, rhs, dimension_numbers=dn, preferred_element_type=pet, lhs_spinfo=lhs_spinfo
    )


def dot_general_sampled(A, B, indices, *, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((_ints(lc), _ints(rc)), (_ints(lb), _ints(rb)))
    return bcoo_dot_general_sampled_p.bind(A, B, indices, dimension_numbers=dn)


def _ints(dims) -> tuple[int, ...]:
    return (int(dims),) if np.ndim(dims) == 0 else tuple(int(d) for d in dims)


def _remaining(n, *removed):
    gone = {int(d) for r in removed for d in r}
    return [i for i in range(n) if i not in gone]


# --- bcoo_dot_general ----------------------------------------------------------------------------

bcoo_dot_general_p = Primitive("bcoo_dot_general")


@bcoo_dot_general_p.def_impl
def _dot_general_impl(lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    # Each stored element (a block over the dense axes) meets the slice of rhs its batch and
    # contracted indices select, and is added at its batch and free indices: O(nse), never dense.
    out_aval = _dot_general_abstract(
        core.get_aval(lhs_data),
        core.get_aval(lhs_indices),
        core.get_aval(rhs),
        dimension_numbers=dimension_numbers,
        preferred_element_type=preferred_element_type,
        lhs_spinfo=lhs_spinfo,
    )
    shape = tuple(lhs_spinfo.shape)
    n_batch, n_sparse, n_dense, nse = validate(lhs_data.shape, lhs_indices.shape, shape)
    (lc, rc), (lb, rb) = dimension_numbers
    batch_shape, dense_shape = shape[:n_batch], shape[n_batch + n_sparse :]
    batch, ind, inside = _flat_indices(lhs_indices, shape)
    batch_coords = (
        np.stack(np.unravel_index(batch, batch_shape), axis=1) if n_batch else batch[:, None][:, :0]
    )
    coords = np.concatenate([batch_coords, ind], 1)[inside]
    blocks = np.broadcast_to(lhs_data, (*batch_shape, nse, *dense_shape)).reshape(len(batch), *dense_shape)[
        inside
    ]
    rhs_free = _remaining(rhs.ndim, rc, rb)
    picked = np.transpose(rhs, (*rb, *rc, *rhs_free))[tuple(coords[:, d] for d in (*lb, *lc))]
    dtype = np.result_type(lhs_data.dtype, rhs.dtype)
    prod = blocks.reshape(*blocks.shape, *(1,) * len(rhs_free)).astype(dtype) * picked.reshape(
        len(picked), *(1,) * n_dense, *picked.shape[1:]
    )
    out = np.zeros(out_aval.shape, dtype)
    free = _remaining(n_batch + n_sparse, lc, lb)
    at = tuple(coords[:, d] for d in (*lb, *free))
    if at:
        np.add.at(out, at, prod)
    else:  # every stored element lands on the one output block
        out += prod.sum(0)
    return out.astype(out_aval.dtype)


@bcoo_dot_general_p.def_abstract_eval
def _dot_general_abstract(
    lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type, lhs_spinfo
):
    lhs = ShapedArray(lhs_spinfo.shape, lhs_data.dtype)
    out = dense_abstract(
        lhs, rhs, dimension_numbers=dimension_numbers, preferred_element_type=preferred_element_type
    )
    (lc, _), (lb, _) = dimension_numbers
    n_batch, n_sparse, _, _ = validate(lhs_data.shape, lhs_indices.shape, lhs_spinfo.shape)
    if lb and max(lb) >= n_batch:
        raise NotImplementedError(
            "bcoo_dot_general batch dimensions must be among the batch dimensions in the sparse "
            f"representation.\ngot lhs_batch={tuple(lb)}, {n_batch=}"
        )
    if any(d >= n_batch + n_sparse for d in lc):
        raise NotImplementedError("bcoo_dot_general: contracting over dense dimensions.")
    return ShapedArray(out.shape, out.dtype)


def _dot_general_transpose(
    ct, lhs_data, lhs_indices, rhs, *, dimension_numbers, preferred_element_type, lhs_spinfo
):
    from ... import lax
    from ... import numpy as jnp

    if ad.is_undefined(lhs_indices):
        raise ValueError("Cannot transpose with respect to sparse indices")
    ct = ad.instantiate_zeros(ct)
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_ndim = len(lhs_spinfo.shape)
    rhs_ndim = rhs.aval.ndim if ad.is_undefined(rhs) else core.get_aval(rhs).ndim
    lhs_kept, rhs_kept = _remaining(lhs_ndim, lc, lb), _remaining(rhs_ndim, rc, rb)
    ans_batch = list(range(len(lb)))
    ans_lhs = list(range(len(lb), len(lb) + len(lhs_kept)))
    ans_rhs = list(range(len(lb) + len(lhs_kept), len(lb) + len(lhs_kept) + len(rhs_kept)))
    if ad.is_undefined(lhs_data):
        dims = ((ans_rhs, rhs_kept), (ans_batch, list(rb)))
        permutation = [*lb, *lhs_kept, *(int(x) for x in np.take(lc, np.argsort(rc)))]
        out_axes = [int(i) for i in np.argsort(permutation)]
        ind_shape = core.get_aval(lhs_indices).shape
        standin_data = jnp.zeros((len(ind_shape) - 2) * (1,) + (ind_shape[-2],))
        standin_shape = tuple(ind_shape[:-2]) + ind_shape[-1] * (1,)
        try:
            aval_d = core.get_aval(standin_data)
            split_permutation(aval_d.shape, ind_shape, permutation, standin_shape)
            untransposable = True
        except NotImplementedError:
            untransposable = False
        if untransposable:
            # Computed at the indices laid out as the contraction's output, then laid back.
            _, ind_T = transpose(
                standin_data, lhs_indices, permutation=permutation, spinfo=SparseInfo(standin_shape)
            )
            result_T = dot_general_sampled(ct, rhs, ind_T, dimension_numbers=dims)
            result, _ = transpose(
                result_T,
                ind_T,
                permutation=out_axes,
                spinfo=SparseInfo(tuple(standin_shape[i] for i in permutation)),
            )
        else:
            dense = lax.transpose(lax.dot_general(ct, rhs, dimension_numbers=dims), out_axes)
            result = extract(lhs_indices, dense)
        want = lhs_data.aval.shape
        summed = tuple(
            i for i, (w, g) in enumerate(zip(want, core.get_aval(result).shape)) if w == 1 and g != 1
        )
        if summed:  # data broadcast along batch axes: its cotangent sums over them
            result = jnp.sum(result, axis=summed, keepdims=True)
        return [result, None, None]
    dims = ((lhs_kept, ans_lhs), (list(lb), ans_batch))
    rhs_contract_sorted_by_lhs = [int(x) for x in np.take(rc, np.argsort(lc))]
    out_axes = [int(i) for i in np.argsort([*rb, *rhs_contract_sorted_by_lhs, *rhs_kept])]
    result = dot_general(
        lhs_data,
        lhs_indices,
        ct,
        lhs_spinfo=lhs_spinfo,
        preferred_element_type=preferred_element_type,
        dimension_numbers=dims,
    )
    return [None, None, lax.transpose(result, out_axes)]


def _dot_general_batch(size, vals, dims, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    lhs_data, lhs_indices, rhs = vals
    rhs_dim = dims[2]
    data, indices, spinfo = batch_dims_to_front(lhs_data, lhs_indices, dims[:2], lhs_spinfo, size)
    ndims = (len(lhs_spinfo.shape), core.get_aval(rhs).ndim)
    dn, out_dim = batch_dim_nums(ndims, (0, rhs_dim), dimension_numbers)
    out = dot_general(
        data,
        indices,
        rhs,
        dimension_numbers=dn,
        preferred_element_type=preferred_element_type,
        lhs_spinfo=spinfo,
    )
    return out, out_dim


def _jvp_lhs(t, lhs_data, lhs_indices, rhs, **params):
    return bcoo_dot_general_p.bind(t, lhs_indices, rhs, **params)


def _jvp_rhs(t, lhs_data, lhs_indices, rhs, **params):
    return bcoo_dot_general_p.bind(lhs_data, lhs_indices, t, **params)


ad.defjvp(bcoo_dot_general_p, _jvp_lhs, None, _jvp_rhs)
ad.transpose_rules[bcoo_dot_general_p] = _dot_general_transpose
batching.batch_rules[bcoo_dot_general_p] = _dot_general_batch


# --- bcoo_dot_general_sampled --------------------------------------------------------------------

bcoo_dot_general_sampled_p = Primitive("bcoo_dot_general_sampled")


@bcoo_dot_general_sampled_p.def_impl
def _sampled_impl(A, B, indices, *, dimension_numbers):
    dense = dense_impl(A, B, dimension_numbers=dimension_numbers)
    return _extract_impl(indices, dense, assume_unique=True)


@bcoo_dot_general_sampled_p.def_abstract_eval
def _sampled_abstract(A, B, indices, *, dimension_numbers):
    dense = dense_abstract(A, B, dimension_numbers=dimension_numbers)
    n_batch, _, n_dense, nse = validate_indices(indices.shape, dense.shape)
    return ShapedArray((*dense.shape[:n_batch], nse, *dense.shape[dense.ndim - n_dense :]), dense.dtype)


def _sampled_transpose(ct, A, B, indices, *, dimension_numbers):
    a_shape = A.aval.shape if ad.is_undefined(A) else core.get_aval(A).shape
    b_shape = B.aval.shape if ad.is_undefined(B) else core.get_aval(B).shape
    mat = dense_abstract(
        ShapedArray(a_shape, ct.dtype), ShapedArray(b_shape, ct.dtype), dimension_numbers=dimension_numbers
    )
    mat_ct = todense(ad.instantiate_zeros(ct), indices, spinfo=SparseInfo(tuple(mat.shape)))
    ct_a, ct_b = dense_transpose(mat_ct, A, B, dimension_numbers=dimension_numbers)
    return [ct_a, ct_b, None]


def _sampled_batch(size, vals, dims, *, dimension_numbers):
    # Every operand gets the mapped axis first; it is a batch axis of the contraction and the new
    # leading batch axis of the indices, which the contraction's result puts first too.
    from ... import lax

    A, B, indices = vals
    A, B = (batching.bdim_at_front(x, d, size) for x, d in zip((A, B), dims[:2]))
    indices = (
        lax.expand_dims(indices, (0,)) if dims[2] is not_mapped else batching.moveaxis(indices, dims[2], 0)
    )
    (lc, rc), (lb, rb) = dimension_numbers
    dn = (
        (tuple(d + 1 for d in lc), tuple(d + 1 for d in rc)),
        ((0, *(d + 1 for d in lb)), (0, *(d + 1 for d in rb))),
    )
    return dot_general_sampled(A, B, indices, dimension_numbers=dn), 0


def _sampled_jvp_A(t, A, B, indices, *, dimension_numbers):
    return dot_general_sampled(t, B, indices, dimension_numbers=dimension_numbers)


def _sampled_jvp_B(t, A, B, indices, *, dimension_numbers):
    return dot_general_sampled(A, t, indices, dimension_numbers=dimension_numbers)


ad.defjvp(bcoo_dot_general_sampled_p, _sampled_jvp_A, _sampled_jvp_B, None)
ad.transpose_rules[bcoo_dot_general_sampled_p] = _sampled_transpose
batching.batch_rules[bcoo_dot_general_sampled_p] = _sampled_batch
