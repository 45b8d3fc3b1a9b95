"""``BCSR``, the batched compressed-sparse-row array (two sparse axes: ``indices`` holds each stored
element's column, ``indptr`` where each row's elements start), with JAX's primitives
``bcsr_fromdense``, ``bcsr_todense``, ``bcsr_extract`` and ``bcsr_dot_general`` and their rules.
The numpy rules convert to BCOO coordinates and reuse BCOO's."""

from __future__ import annotations

import math

from typing import NamedTuple

import numpy as np

from ... import ad, batching, core, ir
from ...batching import not_mapped
from ...core import Primitive, ShapedArray
from ...lax.dot_general import batch_dim_nums
from ...tree_util import register_pytree_node_class
from . import bcoo as _bcoo
from . import bcoo_dot as _dot
from . import bcoo_primitives as _prims
from ._base import JAXSparse, SparseInfo


class BCSRProperties(NamedTuple):
    n_batch: int
    n_dense: int
    nse: int


def _compatible(batch, full) -> bool:
    return all(s in (1, f) for s, f in zip(batch, full))


def validate_indices(indices_shape, indptr_shape, shape) -> BCSRProperties:
    shape = tuple(shape)
    nse, n_batch = indices_shape[-1], len(indices_shape) - 1
    n_dense = len(shape) - n_batch - 2
    if n_dense < 0:
        raise ValueError(f"BCSR array must have 2 sparse dimensions; shape={shape}, n_batch={n_batch}")
    if not _compatible(indices_shape[:n_batch], shape[:n_batch]):
        raise ValueError(
            f"indices batch dimensions not compatible for indices.shape={tuple(indices_shape)}, {shape=}"
        )
    if not _compatible(indptr_shape[:n_batch], shape[:n_batch]):
        raise ValueError(
            f"indptr batch dimensions not compatible for indptr.shape={tuple(indptr_shape)}, {shape=}"
        )
    if tuple(indptr_shape[n_batch:]) != (shape[n_batch] + 1,):
        raise ValueError("indptr shape must match the matrix shape plus 1.")
    return BCSRProperties(n_batch, n_dense, nse)


def validate(data_shape, indices_shape, indptr_shape, shape) -> BCSRProperties:
    props = validate_indices(indices_shape, indptr_shape, shape)
    n_batch, n_dense, nse = props
    if not _compatible(data_shape[:n_batch], shape[:n_batch]):
        raise ValueError(f"data batch dimensions not compatible for data.shape={tuple(data_shape)}, {shape=}")
    if tuple(data_shape[n_batch:]) != (nse, *shape[n_batch + 2 :]):
        raise ValueError(
            f"Invalid data.shape={tuple(data_shape)} for nse={nse}, n_batch={n_batch}, n_dense={n_dense}"
        )
    return props


# --- between row pointers and coordinates ---------------------------------------------------------


def coo_indices_np(indices, indptr, shape) -> np.ndarray:
    """BCOO indices (row, column) of BCSR buffers; elements past a batch's last row get row
    ``shape[n_batch]``, out of range."""
    n_batch = indices.ndim - 1
    batch = tuple(max(a, b) for a, b in zip(indices.shape[:n_batch], indptr.shape[:n_batch]))
    ind = np.broadcast_to(indices, (*batch, indices.shape[-1])).reshape(math.prod(batch), indices.shape[-1])
    ptr = np.broadcast_to(indptr, (*batch, indptr.shape[-1])).reshape(math.prod(batch), indptr.shape[-1])
    k = np.arange(ind.shape[1])
    rows = np.stack([np.searchsorted(p, k, side="right") - 1 for p in ptr]).astype(indices.dtype)
    return np.stack([rows, ind], axis=-1).reshape(*batch, ind.shape[1], 2)


def coo_indices(indices, indptr):
    """The same conversion on traced buffers (JAX's: a cumulative count of the row starts)."""
    from ... import api
    from ... import numpy as jnp

    def one(ind, ptr):
        rows = jnp.cumsum(jnp.zeros_like(ind).at[ptr].add(1)) - 1
        return jnp.stack([rows, ind], axis=ind.ndim)

    f = one
    for _ in range(core.get_aval(indices).ndim - 1):
        f = api.vmap(f)
    return f(indices, indptr)


def csr_from_coo_np(indices, shape, index_dtype):
    """BCSR (indices, indptr) of sorted two-column BCOO indices."""
    n_batch = indices.ndim - 2
    n_rows = shape[n_batch]
    flat = indices.reshape(math.prod(indices.shape[:-2]), *indices.shape[-2:])
    ptrs = []
    for ind in flat:
        rows = ind[:, 0]
        counts = np.bincount(rows[(rows >= 0) & (rows < n_rows)], minlength=n_rows)
        ptrs.append(np.concatenate([[0], np.cumsum(counts)]))
    indptr = np.asarray(ptrs, dtype=index_dtype).reshape(*indices.shape[:-2], n_rows + 1)
    return indices[..., 1].astype(index_dtype), indptr


# --- primitives ----------------------------------------------------------------------------------

bcsr_fromdense_p = Primitive("bcsr_fromdense", multiple_results=True)
bcsr_todense_p = Primitive("bcsr_todense")
bcsr_extract_p = Primitive("bcsr_extract")
bcsr_dot_general_p = Primitive("bcsr_dot_general")


def _fromdense_impl(mat, *, nse, n_batch, n_dense, index_dtype):
    if mat.ndim - n_batch - n_dense != 2:
        raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
    data, coo = _prims._fromdense_impl(
        mat, nse=nse, n_batch=n_batch, n_dense=n_dense, index_dtype=index_dtype
    )
    return [data, *csr_from_coo_np(coo, mat.shape, np.dtype(index_dtype))]


def _fromdense_abstract(mat, *, nse, n_batch, n_dense, index_dtype):
    if mat.ndim - n_batch - n_dense != 2:
        raise ValueError("bcsr_fromdense: must have 2 sparse dimensions.")
    batch = mat.shape[:n_batch]
    return [
        ShapedArray((*batch, nse, *mat.shape[n_batch + 2 :]), mat.dtype),
        ShapedArray((*batch, nse), index_dtype),
        ShapedArray((*batch, mat.shape[n_batch] + 1), index_dtype),
    ]


def _fromdense_jvp(primals, tangents, **params):
    data, indices, indptr = bcsr_fromdense_p.bind(primals[0], **params)
    (t,) = tangents
    dot = (
        ad.Zero(ad.tangent_aval(core.get_aval(data)))
        if type(t) is ad.Zero
        else bcsr_extract(indices, indptr, t)
    )
    zeros = [ad.Zero(ad.tangent_aval(core.get_aval(x))) for x in (indices, indptr)]
    return [data, indices, indptr], [dot, *zeros]


def _fromdense_transpose(cts, mat, **params):
    data, indices, indptr = cts
    if type(indices) is ad.Zero or type(indptr) is ad.Zero:
        raise ValueError("Cannot transpose with respect to sparse indices")
    return [_todense(ad.instantiate_zeros(data), indices, indptr, spinfo=SparseInfo(mat.aval.shape))]


def _fromdense_batch(size, vals, dims, *, nse, n_batch, n_dense, index_dtype):
    (mat,), (d,) = vals, dims
    if not 0 <= d <= n_batch:
        raise ValueError(f"Expected 0 < bdim <= n_batch; got bdim={d}, {n_batch=}")
    out = bcsr_fromdense_p.bind(mat, nse=nse, n_batch=n_batch + 1, n_dense=n_dense, index_dtype=index_dtype)
    return out, [d, d, d]


bcsr_fromdense_p.def_impl(_fromdense_impl)
bcsr_fromdense_p.def_abstract_eval(_fromdense_abstract)
ad.jvp_rules[bcsr_fromdense_p] = _fromdense_jvp
ad.transpose_rules[bcsr_fromdense_p] = _fromdense_transpose
batching.batch_rules[bcsr_fromdense_p] = _fromdense_batch
ir.pp_params_rules[bcsr_fromdense_p] = _prims._fromdense_pp


def _todense(data, indices, indptr, *, spinfo):
    return bcsr_todense_p.bind(data, indices, indptr, spinfo=spinfo)


def bcsr_extract(indices, indptr, mat):
    """The entries of dense ``mat`` at BCSR ``indices``/``indptr`` (BCSR data)."""
    return bcsr_extract_p.bind(indices, indptr, mat)


def _batch_to_front(vals, dims, spinfo, size):
    from ... import lax

    n_batch = core.get_aval(vals[1]).ndim - 1 + (dims[1] is not_mapped)
    if any(d is not not_mapped and not 0 <= d < n_batch for d in dims):
        raise NotImplementedError(
            f"batch_dims must be None or satisfy 0 < dim < n_batch. Got batch_dims={tuple(dims)} for {n_batch=}."
        )
    moved = [
        lax.expand_dims(x, (0,)) if d is not_mapped else batching.moveaxis(x, d, 0)
        for x, d in zip(vals, dims)
    ]
    return moved, SparseInfo((size, *spinfo.shape), spinfo.indices_sorted, spinfo.unique_indices)


def _todense_impl(data, indices, indptr, *, spinfo):
    coo = coo_indices_np(indices, indptr, spinfo.shape)
    return _prims._todense_impl(data, coo, spinfo=spinfo)


def _todense_abstract(data, indices, indptr, *, spinfo):
    validate(data.shape, indices.shape, indptr.shape, spinfo.shape)
    return ShapedArray(spinfo.shape, data.dtype)


def _todense_transpose(ct, data, indices, indptr, *, spinfo):
    if ad.is_undefined(indices) or ad.is_undefined(indptr):
        raise ValueError("Cannot transpose with respect to sparse indices")
    return [bcsr_extract(indices, indptr, ad.instantiate_zeros(ct)), None, None]


def _todense_batch(size, vals, dims, *, spinfo):
    moved, spinfo = _batch_to_front(vals, dims, spinfo, size)
    return _todense(*moved, spinfo=spinfo), 0


bcsr_todense_p.def_impl(_todense_impl)
bcsr_todense_p.def_abstract_eval(_todense_abstract)
ad.defjvp(bcsr_todense_p, lambda t, d, i, p, *, spinfo: _todense(t, i, p, spinfo=spinfo), None, None)
ad.transpose_rules[bcsr_todense_p] = _todense_transpose
batching.batch_rules[bcsr_todense_p] = _todense_batch


def _extract_impl(indices, indptr, mat):
    return _prims._extract_impl(coo_indices_np(indices, indptr, mat.shape), mat, assume_unique=True)


def _extract_abstract(indices, indptr, mat):
    n_batch, n_dense, nse = validate_indices(indices.shape, indptr.shape, mat.shape)
    return ShapedArray((*mat.shape[:n_batch], nse, *mat.shape[mat.ndim - n_dense :]), mat.dtype)


def _extract_transpose(ct, indices, indptr, mat):
    if ad.is_undefined(indices) or ad.is_undefined(indptr):
        raise ValueError("Cannot transpose with respect to sparse indices")
    return [
        None,
        None,
        _todense(ad.instantiate_zeros(ct), indices, indptr, spinfo=SparseInfo(mat.aval.shape)),
    ]


def _extract_batch(size, vals, dims):
    from ... import lax

    indices, indptr = (
        lax.expand_dims(x, (0,)) if d is not_mapped else batching.moveaxis(x, d, 0)
        for x, d in zip(vals, dims)
    )
    return bcsr_extract(indices, indptr, batching.bdim_at_front(vals[2], dims[2], size)), 0


bcsr_extract_p.def_impl(_extract_impl)
bcsr_extract_p.def_abstract_eval(_extract_abstract)
ad.defjvp(bcsr_extract_p, None, None, lambda t, i, p, m: bcsr_extract(i, p, t))
ad.transpose_rules[bcsr_extract_p] = _extract_transpose
batching.batch_rules[bcsr_extract_p] = _extract_batch


def _dot_general(data, indices, indptr, rhs, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((_dot._ints(lc), _dot._ints(rc)), (_dot._ints(lb), _dot._ints(rb)))
    pet = None if preferred_element_type is None else np.dtype(preferred_element_type)
    return bcsr_dot_general_p.bind(
        data, indices, indptr, rhs, dimension_numbers=dn, preferred_element_type=pet, lhs_spinfo=lhs_spinfo
    )


def _dot_impl(data, indices, indptr, rhs, **params):
    coo = coo_indices_np(indices, indptr, params["lhs_spinfo"].shape)
    return _dot._dot_general_impl(data, coo, rhs, **params)


def _dot_abstract(data, indices, indptr, rhs, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    validate(data.shape, indices.shape, indptr.shape, lhs_spinfo.shape)
    coo = ShapedArray((*indices.shape, 2), indices.dtype)
    return _dot._dot_general_abstract(
        data,
        coo,
        rhs,
        dimension_numbers=dimension_numbers,
        preferred_element_type=preferred_element_type,
        lhs_spinfo=lhs_spinfo,
    )


def _dot_transpose(ct, data, indices, indptr, rhs, **params):
    # As JAX: through the BCOO rule, on coordinates computed from the (known) row pointers.
    coo = coo_indices(indices, indptr)
    ct_data, _, ct_rhs = _dot._dot_general_transpose(ct, data, coo, rhs, **params)
    return [ct_data, None, None, ct_rhs]


def _dot_batch(size, vals, dims, *, dimension_numbers, preferred_element_type, lhs_spinfo):
    rhs, rhs_dim = vals[3], dims[3]
    moved, spinfo = _batch_to_front(vals[:3], dims[:3], lhs_spinfo, size)
    ndims = (len(lhs_spinfo.shape), core.get_aval(rhs).ndim)
    dn, out_dim = batch_dim_nums(ndims, (0, rhs_dim), dimension_numbers)
    out = _dot_general(
        *moved, rhs, dimension_numbers=dn, preferred_element_type=preferred_element_type, lhs_spinfo=spinfo
    )
    return out, out_dim


def _jvp_lhs(t, data, indices, indptr, rhs, **params):
    return bcsr_dot_general_p.bind(t, indices, indptr, rhs, **params)


def _jvp_rhs(t, data, indices, indptr, rhs, **params):
    return bcsr_dot_general_p.bind(data, indices, indptr, t, **params)


bcsr_dot_general_p.def_impl(_dot_impl)
bcsr_dot_general_p.def_abstract_eval(_dot_abstract)
ad.defjvp(bcsr_dot_general_p, _jvp_lhs, None, None, _jvp_rhs)
ad.transpose_rules[bcsr_dot_general_p] = _dot_transpose
batching.batch_rules[bcsr_dot_general_p] = _dot_batch


# --- the array type ------------------------------------------------------------------------------


@register_pytree_node_class
class BCSR(JAXSparse):
    """A sparse matrix (with optional leading batch and trailing dense axes) in batched CSR format:
    ``data`` of shape ``batch + (nse,) + dense``, ``indices`` (columns) of shape ``batch + (nse,)``,
    ``indptr`` of shape ``batch + (rows + 1,)``.

    >>> M = BCSR.fromdense(jnp.array([[0., 2., 0.], [1., 0., 4.]]))
    >>> M.indices, M.indptr
    (Array([1, 0, 2], dtype=int32), Array([0, 1, 3], dtype=int32))
    >>> M @ jnp.ones(3)
    Array([2., 5.], dtype=float32)
    """

    def __init__(self, args, *, shape, indices_sorted: bool = False, unique_indices: bool = False):
        from ... import numpy as jnp

        self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
        self.indices_sorted, self.unique_indices = indices_sorted, unique_indices
        super().__init__(args, shape=shape)
        validate(self.data.shape, self.indices.shape, self.indptr.shape, self.shape)

    @property
    def _bufs(self):
        return (self.data, self.indices, self.indptr)

    @property
    def _info(self) -> SparseInfo:
        return SparseInfo(self.shape, self.indices_sorted, self.unique_indices)

    @property
    def nse(self) -> int:
        return self.indices.shape[-1]

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def n_batch(self) -> int:
        return self.indices.ndim - 1

    @property
    def n_sparse(self) -> int:
        return 2

    @property
    def n_dense(self) -> int:
        return self.data.ndim - self.indices.ndim

    _repr_extra = _bcoo.BCOO._repr_extra

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense: int = 0, n_batch: int = 0) -> BCSR:
        """The BCSR array of a dense array's nonzero entries."""
        return bcsr_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense, n_batch=n_batch)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0) -> BCSR:
        from ... import numpy as jnp

        shape = tuple(shape)
        if n_dense < 0 or n_batch < 0 or nse < 0:
            raise ValueError(f"Invalid inputs: {shape=}, {n_dense=}, {n_batch=}, {nse=}")
        if len(shape) - n_dense - n_batch != 2:
            raise ValueError("BCSR sparse.empty: must have 2 sparse dimensions.")
        batch, (rows, cols), dense = shape[:n_batch], shape[n_batch : n_batch + 2], shape[n_batch + 2 :]
        data = jnp.zeros((*batch, nse, *dense), dtype)
        indices = jnp.full((*batch, nse), cols, index_dtype)
        return cls((data, indices, jnp.zeros((*batch, rows + 1), index_dtype)), shape=shape)

    def todense(self):
        """The dense array."""
        return _todense(self.data, self.indices, self.indptr, spinfo=self._info)

    def transpose(self, *args, **kwargs):
        raise NotImplementedError("Transpose is not implemented.")

    def to_bcoo(self) -> _bcoo.BCOO:
        """The same array in BCOO format."""
        return _bcoo.BCOO((self.data, coo_indices(self.indices, self.indptr)), shape=self.shape)

    @classmethod
    def from_bcoo(cls, arr: _bcoo.BCOO) -> BCSR:
        """A BCOO array with two sparse axes, in BCSR format."""
        from ... import numpy as jnp

        if arr.n_sparse != 2:
            raise NotImplementedError(f"BSCR.from_bcoo requires n_sparse=2; got arr.n_sparse={arr.n_sparse}")
        if not arr.indices_sorted:
            arr = arr.sort_indices()
        n_rows = arr.shape[arr.n_batch]

        def pointers(rows):
            return (
                jnp.zeros(n_rows + 1, arr.indices.dtype)
                .at[1:]
                .set(jnp.cumsum(jnp.bincount(rows, length=n_rows)))
            )

        from ... import api

        f = pointers
        for _ in range(arr.n_batch):
            f = api.vmap(f)
        return cls((arr.data, arr.indices[..., 1], f(arr.indices[..., 0])), shape=arr.shape)

    def sum_duplicates(self, nse=None, remove_zeros: bool = True) -> BCSR:
        """The array with duplicate indices summed (and, by default, explicit zeros removed)."""
        return BCSR.from_bcoo(self.to_bcoo().sum_duplicates(nse=nse, remove_zeros=remove_zeros))

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), (self.shape, self.indices_sorted, self.unique_indices)

    @classmethod
    def tree_unflatten(cls, aux, children):
        shape, indices_sorted, unique_indices = aux
        obj = object.__new__(cls)
        obj.data, obj.indices, obj.indptr = children
        obj.indices_sorted, obj.unique_indices = indices_sorted, unique_indices
        obj.shape = _shape_of_buffers(shape, *children)
        return obj


def _shape_of_buffers(shape, data, indices, indptr):
    # as BCOO's: vmap adds or removes leading batch axes of the buffers, and the shape follows
    if not all(hasattr(b, "ndim") for b in (data, indices, indptr)):
        return shape
    n_batch = indices.ndim - 1
    tail = 2 + data.ndim - indices.ndim
    if n_batch < 0 or len(shape) - tail == n_batch:
        return tuple(shape)
    batch = tuple(max(s) for s in zip(data.shape[:n_batch], indices.shape[:n_batch], indptr.shape[:n_batch]))
    return batch + tuple(shape[len(shape) - tail :])


def bcsr_fromdense(mat, *, nse=None, n_batch: int = 0, n_dense: int = 0, index_dtype=np.int32) -> BCSR:
    """The BCSR array of ``mat``'s nonzero entries.

    >>> bcsr_fromdense(jnp.eye(3)).indptr
    Array([0, 1, 2, 3], dtype=int32)
    """
    from ... import numpy as jnp
    from ...errors import ConcretizationTypeError

    mat = jnp.asarray(mat)
    if nse is None:
        concrete = core.concrete_or_none(mat)
        if concrete is None:
            raise ConcretizationTypeError(mat, "the nse argument of bcsr_fromdense" + _bcoo._TRACED_NSE)
        nse = _bcoo._nse_of(concrete, n_batch, n_dense)
    nse = int(np.asarray(core.concrete_or_error(nse, "the nse argument of bcsr_fromdense")))
    bufs = bcsr_fromdense_p.bind(mat, nse=nse, n_batch=n_batch, n_dense=n_dense, index_dtype=index_dtype)
    return BCSR(bufs, shape=mat.shape)


def bcsr_todense(mat: BCSR):
    """The dense array of a BCSR array."""
    return mat.todense()


def bcsr_sum_duplicates(mat: BCSR, nse=None) -> BCSR:
    """``mat`` with duplicate indices summed, sorted."""
    return mat.sum_duplicates(nse=nse, remove_zeros=False)


def bcsr_dot_general(
    lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    """``lax.dot_general`` of a BCSR lhs and a dense rhs (a dense result)."""
    from ... import lax

    del precision, out_sharding
    if isinstance(rhs, JAXSparse):
        raise NotImplementedError("bcsr_dot_general currently implemented for BCSR lhs and ndarray rhs.")
    if isinstance(lhs, BCSR):
        return _dot_general(
            *lhs._bufs,
            rhs,
            dimension_numbers=dimension_numbers,
            preferred_element_type=preferred_element_type,
            lhs_spinfo=lhs._info,
        )
    if isinstance(lhs, JAXSparse):
        raise NotImplementedError("bcsr_dot_general currently implemented for BCSR lhs and ndarray rhs.")
    return lax.dot_general(lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type)


def bcsr_broadcast_in_dim(mat: BCSR, *, shape, broadcast_dimensions, sharding=None) -> BCSR:
    """``lax.broadcast_in_dim`` of a BCSR array (through BCOO)."""
    from .bcoo_structure import bcoo_broadcast_in_dim

    out = bcoo_broadcast_in_dim(mat.to_bcoo(), shape=shape, broadcast_dimensions=broadcast_dimensions)
    return BCSR.from_bcoo(out)


def bcsr_concatenate(operands, *, dimension: int) -> BCSR:
    """``lax.concatenate`` of BCSR arrays of one layout (through BCOO)."""
    from .bcoo_structure import bcoo_concatenate

    return BCSR.from_bcoo(bcoo_concatenate([m.to_bcoo() for m in operands], dimension=dimension))
