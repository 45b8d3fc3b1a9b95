"""The unbatched compressed formats ``CSR`` (``data``, column ``indices``, row pointers ``indptr``)
and ``CSC`` (the CSR buffers of the transpose), with JAX's primitives ``csr_fromdense``,
``csr_todense``, ``csr_matvec`` and ``csr_matmat``: each converts the row pointers to COO rows and
runs COO's numpy rule."""

from __future__ import annotations

import numpy as np

from ... import ad
from ...core import Primitive, ShapedArray
from ...tree_util import register_pytree_node_class
from ._base import JAXSparse
from .coo import (
    COO,
    COOInfo,
    _coo_product_impl,
    _coo_todense_impl,
    _jnp,
    _nonzero_padded,
    fromdense_rules,
    nse_or_count,
    register_product,
    sparse_matmul,
)

csr_todense_p = Primitive("csr_todense")
csr_fromdense_p = Primitive("csr_fromdense", multiple_results=True)
csr_matvec_p = Primitive("csr_matvec")
csr_matmat_p = Primitive("csr_matmat")


def _csr_rows(indices, indptr):
    # row of each element: how many row starts precede it (padding past the last row gets m)
    return np.searchsorted(indptr, np.arange(len(indices)), side="right") - 1


def _csr_todense_impl(data, indices, indptr, *, shape):
    return _coo_todense_impl(data, _csr_rows(indices, indptr), indices, spinfo=COOInfo(shape))


def _csr_fromdense_impl(mat, *, nse, index_dtype):
    row, col, data, live = _nonzero_padded(mat, nse)
    m = mat.shape[0]
    row = np.where(live, row, m)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row[row < m], minlength=m))]).astype(index_dtype)
    return [data, col.astype(index_dtype), indptr]


def _csr_product_impl(data, indices, indptr, x, *, shape, transpose):
    rows = _csr_rows(indices, indptr)
    return _coo_product_impl(data, rows, indices, x, spinfo=COOInfo(shape), transpose=transpose)


def _traced_rows(indices, indptr):
    jnp = _jnp()
    return jnp.cumsum(jnp.zeros_like(indices).at[indptr].add(1)) - 1


for _p in (csr_matvec_p, csr_matmat_p):
    register_product(
        _p, _csr_product_impl, "csr", lambda indices, indptr: (_traced_rows(indices, indptr), indices)
    )


def _csr_todense_transpose(ct, data, indices, indptr, *, shape):
    if ad.is_undefined(indices) or ad.is_undefined(indptr):
        raise ValueError("Cannot transpose with respect to sparse indices")
    return [ad.instantiate_zeros(ct)[_traced_rows(indices, indptr), indices], None, None]


csr_todense_p.def_impl(_csr_todense_impl)
csr_todense_p.def_abstract_eval(lambda data, indices, indptr, *, shape: ShapedArray(shape, data.dtype))
ad.defjvp(csr_todense_p, lambda t, d, i, p, *, shape: csr_todense_p.bind(t, i, p, shape=shape), None, None)
ad.transpose_rules[csr_todense_p] = _csr_todense_transpose
csr_fromdense_p.def_impl(_csr_fromdense_impl)
csr_fromdense_p.def_abstract_eval(
    lambda mat, *, nse, index_dtype: [
        ShapedArray((nse,), mat.dtype),
        ShapedArray((nse,), index_dtype),
        ShapedArray((mat.shape[0] + 1,), index_dtype),
    ]
)
fromdense_rules(
    csr_fromdense_p,
    lambda ind, ptr, t: t[_traced_rows(ind, ptr), ind],
    lambda d, i, p, shape: csr_todense_p.bind(d, i, p, shape=shape),
)


class _CompressedMatrix(JAXSparse):
    def __init__(self, args, *, shape):
        jnp = _jnp()
        self.data, self.indices, self.indptr = (jnp.asarray(a) for a in args)
        super().__init__(args, shape=shape)

    _bufs = property(lambda self: (self.data, self.indices, self.indptr))
    nse = property(lambda self: self.data.size)
    dtype = property(lambda self: self.data.dtype)

    def tree_flatten(self):
        return (self.data, self.indices, self.indptr), self.shape

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.data, obj.indices, obj.indptr = children
        obj.shape = aux
        return obj


@register_pytree_node_class
class CSR(_CompressedMatrix):
    """A sparse matrix in compressed-row format (prefer BCSR, which ``vmap`` supports).

    >>> CSR.fromdense(jnp.array([[0., 2.], [3., 0.]])).indptr
    Array([0, 1, 2], dtype=int32)
    """

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> CSR:
        return csr_fromdense(mat, nse=nse, index_dtype=index_dtype)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> CSR:
        jnp = _jnp()
        if len(shape) != 2:
            raise ValueError(f"CSR must have ndim=2; got shape={tuple(shape)}")
        return cls(
            (jnp.zeros(0, dtype), jnp.zeros(0, index_dtype), jnp.zeros(shape[0] + 1, index_dtype)),
            shape=shape,
        )

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> CSR:
        coo = COO._eye(N, M, k, dtype=dtype, index_dtype=index_dtype)
        jnp = _jnp()
        counts = jnp.bincount(coo.row, length=N).astype(index_dtype)
        indptr = jnp.zeros(N + 1, dtype=index_dtype).at[1:].set(jnp.cumsum(counts))
        return cls((coo.data, coo.col.astype(index_dtype), indptr), shape=(N, M))

    def todense(self):
        return csr_todense(self)

    def transpose(self, axes=None) -> CSC:
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return CSC(self._bufs, shape=self.shape[::-1])

    def __matmul__(self, other):
        return sparse_matmul(
            self, other, csr_matvec_p, csr_matmat_p, self._bufs[1:], dict(shape=self.shape, transpose=False)
        )


@register_pytree_node_class
class CSC(_CompressedMatrix):
    """A sparse matrix in compressed-column format: the CSR buffers of its transpose."""

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> CSC:
        return csr_fromdense(_jnp().asarray(mat).T, nse=nse, index_dtype=index_dtype).T

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> CSC:
        return CSR._empty(tuple(shape)[::-1], dtype=dtype, index_dtype=index_dtype).T

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> CSC:
        return CSR._eye(M, N, -k, dtype=dtype, index_dtype=index_dtype).T

    def todense(self):
        return csr_todense(self.T).T

    def transpose(self, axes=None) -> CSR:
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return CSR(self._bufs, shape=self.shape[::-1])

    def __matmul__(self, other):
        params = dict(shape=self.shape[::-1], transpose=True)
        return sparse_matmul(self, other, csr_matvec_p, csr_matmat_p, self._bufs[1:], params)


def csr_fromdense(mat, *, nse=None, index_dtype=np.int32) -> CSR:
    """The CSR matrix of ``mat``'s nonzero entries."""
    mat = _jnp().asarray(mat)
    bufs = csr_fromdense_p.bind(mat, nse=nse_or_count(mat, nse), index_dtype=np.dtype(index_dtype))
    return CSR(bufs, shape=mat.shape)


def csr_todense(mat: CSR):
    """The dense matrix of a CSR matrix."""
    return csr_todense_p.bind(*mat._bufs, shape=mat.shape)


def csr_matvec(mat: CSR, v, transpose: bool = False):
    """``mat @ v`` (``mat.T @ v`` with ``transpose``)."""
    return csr_matvec_p.bind(*mat._bufs, _jnp().asarray(v), shape=mat.shape, transpose=transpose)


def csr_matmat(mat: CSR, B, *, transpose: bool = False):
    """``mat @ B`` (``mat.T @ B`` with ``transpose``)."""
    return csr_matmat_p.bind(*mat._bufs, _jnp().asarray(B), shape=mat.shape, transpose=transpose)
