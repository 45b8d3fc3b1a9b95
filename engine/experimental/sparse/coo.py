"""The unbatched coordinate format ``COO`` (``data``, ``row``, ``col``) with JAX's primitives
``coo_fromdense``, ``coo_todense``, ``coo_matvec`` and ``coo_matmat`` and their JVP and transpose
rules (as in JAX they have no batching rules: use BCOO under ``vmap``). Indices follow jnp's
conventions: reads clamp, scatters drop what is out of range. ``csr.py`` builds on the helpers here."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import ad, core, ir
from ...core import Primitive, ShapedArray
from ...tree_util import register_pytree_node_class
from ._base import JAXSparse
from .bcoo_primitives import _fromdense_pp


class COOInfo(NamedTuple):
    shape: tuple[int, ...]
    rows_sorted: bool = False
    cols_sorted: bool = False


def _jnp():
    from ... import numpy as jnp

    return jnp


# --- numpy --------------------------------------------------------------------------------------


def _wrap(i, n):
    i = np.asarray(i, np.int64)
    return np.where(i < 0, i + n, i)


def _scatter_rows(out_rows, row, values, width=None):
    """``zeros(out_rows[, width]).at[row].add(values)``: rows out of range are dropped."""
    row = _wrap(row, out_rows)
    keep = (row >= 0) & (row < out_rows)
    out = np.zeros((out_rows, *values.shape[1:]), values.dtype)
    np.add.at(out, row[keep], values[keep])
    return out


def _gather(v, i):
    """``v[i]`` as jnp reads it: negative indices wrap, the rest clamp."""
    return (
        v[np.clip(_wrap(i, len(v)), 0, len(v) - 1)] if len(v) else np.zeros((len(i), *v.shape[1:]), v.dtype)
    )


def _coo_todense_impl(data, row, col, *, spinfo):
    shape = spinfo.shape
    r, c = _wrap(row, shape[0]), _wrap(col, shape[1])
    keep = (r >= 0) & (r < shape[0]) & (c >= 0) & (c < shape[1])
    out = np.zeros(shape, data.dtype)
    np.add.at(out, (r[keep], c[keep]), data[keep])
    return out


def _nonzero_padded(mat, nse):
    row, col = np.nonzero(mat)
    row, col = np.pad(row[:nse], (0, max(0, nse - len(row)))), np.pad(col[:nse], (0, max(0, nse - len(col))))
    live = np.arange(nse) < np.count_nonzero(mat)
    return row, col, np.where(live, mat[row, col], 0).astype(mat.dtype), live


def _coo_fromdense_impl(mat, *, nse, index_dtype):
    row, col, data, _ = _nonzero_padded(mat, nse)
    dt = np.dtype(index_dtype)
    return [data, row.astype(dt), col.astype(dt)]


def _coo_product_impl(data, row, col, x, *, spinfo, transpose):
    """``matvec``/``matmat``: each element scales its column's entry of x into its row."""
    if transpose:
        row, col = col, row
    out_rows = spinfo.shape[1] if transpose else spinfo.shape[0]
    scaled = data.reshape(-1, *(1,) * (x.ndim - 1)) * _gather(x, col)
    return _scatter_rows(out_rows, row, scaled.astype(np.result_type(data, x)))


# --- rules shared with CSR ------------------------------------------------------------------------


def _product_abstract(data, *idx_and_x, shape, transpose, ndim):
    x = idx_and_x[-1]
    if x.ndim != ndim or x.shape[0] != (shape[0] if transpose else shape[1]):
        raise TypeError(
            f"sparse matrix of shape {tuple(shape)} (transpose={transpose}) times an operand of shape {x.shape}"
        )
    if data.dtype != x.dtype:
        raise TypeError(
            f"sparse product operands must have one dtype, got {data.dtype.name} and {x.dtype.name}"
        )
    return ShapedArray((shape[1] if transpose else shape[0], *x.shape[1:]), data.dtype)


def _product_transpose(prim, rows_cols):
    """Transpose of a product in the data (a read of ``ct`` and ``x`` at each element) or in ``x``
    (the product with the transposed matrix)."""

    def rule(ct, data, *rest, **params):
        *idx, x = rest
        ct = ad.instantiate_zeros(ct)
        if any(ad.is_undefined(i) for i in idx):
            raise ValueError("Cannot transpose with respect to sparse indices")
        if ad.is_undefined(x):
            flipped = {**params, "transpose": not params["transpose"]}
            return [None, *(None for _ in idx), prim.bind(data, *idx, ct, **flipped)]
        row, col = rows_cols(*idx)
        if params["transpose"]:
            row, col = col, row
        prod = ct[row] * x[col]
        return [prod if prod.ndim == 1 else prod.sum(1), *(None for _ in idx), None]

    return rule


def fromdense_rules(prim, extract, todense):
    def jvp(primals, tangents, **params):
        outs = prim.bind(primals[0], **params)
        (t,) = tangents
        zero = [ad.Zero(ad.tangent_aval(core.get_aval(o))) for o in outs]
        return outs, [zero[0] if type(t) is ad.Zero else extract(outs[1], outs[2], t), *zero[1:]]

    def transpose(cts, mat, **params):
        if any(type(c) is ad.Zero for c in cts[1:]):
            raise ValueError("Cannot transpose with respect to sparse indices")
        return [todense(ad.instantiate_zeros(cts[0]), cts[1], cts[2], mat.aval.shape)]

    ad.jvp_rules[prim] = jvp
    ad.transpose_rules[prim] = transpose


def sparse_matmul(self, other, vec_p, mat_p, bufs, params):
    jnp = _jnp()
    if isinstance(other, JAXSparse):
        raise NotImplementedError("matmul between two sparse objects.")
    other = jnp.asarray(other)
    if other.ndim not in (1, 2):
        raise NotImplementedError(f"matmul with object of shape {other.shape}")
    dtype = jnp.promote_types(self.data.dtype, other.dtype)
    return (vec_p if other.ndim == 1 else mat_p).bind(
        self.data.astype(dtype), *bufs, other.astype(dtype), **params
    )


def nse_or_count(mat, nse):
    if nse is None:
        return int(np.count_nonzero(core.concrete_or_error(mat, "the nse argument of a sparse fromdense")))
    return int(np.asarray(core.concrete_or_error(nse, "the nse argument of a sparse fromdense")))


# --- primitives ---------------------------------------------------------------------------------

coo_todense_p = Primitive("coo_todense")
coo_fromdense_p = Primitive("coo_fromdense", multiple_results=True)
coo_matvec_p = Primitive("coo_matvec")
coo_matmat_p = Primitive("coo_matmat")


def register_product(p, impl, kind, rows_cols):
    """The rows of a sparse matrix-vector or matrix-matrix product primitive."""
    p.def_impl(impl)
    ndim = 1 if "matvec" in p.name else 2
    if kind == "coo":
        p.def_abstract_eval(
            lambda d, r, c, x, *, spinfo, transpose: _product_abstract(
                d, r, c, x, shape=spinfo.shape, transpose=transpose, ndim=ndim
            )
        )
    else:
        p.def_abstract_eval(
            lambda d, i, q, x, *, shape, transpose: _product_abstract(
                d, i, q, x, shape=shape, transpose=transpose, ndim=ndim
            )
        )
    ad.defjvp(
        p,
        lambda t, d, a, b, x, **params: p.bind(t, a, b, x, **params),
        None,
        None,
        lambda t, d, a, b, x, **params: p.bind(d, a, b, t, **params),
    )
    ad.transpose_rules[p] = _product_transpose(p, rows_cols)


for _p in (coo_matvec_p, coo_matmat_p):
    register_product(_p, _coo_product_impl, "coo", lambda row, col: (row, col))


def _coo_todense_transpose(ct, data, row, col, *, spinfo):
    if ad.is_undefined(row) or ad.is_undefined(col):
        raise ValueError("Cannot transpose with respect to sparse indices")
    return [ad.instantiate_zeros(ct)[row, col], None, None]


coo_todense_p.def_impl(_coo_todense_impl)
coo_todense_p.def_abstract_eval(lambda data, row, col, *, spinfo: ShapedArray(spinfo.shape, data.dtype))
ad.defjvp(coo_todense_p, lambda t, d, r, c, *, spinfo: coo_todense_p.bind(t, r, c, spinfo=spinfo), None, None)
ad.transpose_rules[coo_todense_p] = _coo_todense_transpose
coo_fromdense_p.def_impl(_coo_fromdense_impl)
coo_fromdense_p.def_abstract_eval(
    lambda mat, *, nse, index_dtype: [ShapedArray((nse,), mat.dtype)] + [ShapedArray((nse,), index_dtype)] * 2
)
fromdense_rules(
    coo_fromdense_p,
    lambda row, col, t: t[row, col],
    lambda d, r, c, shape: coo_todense_p.bind(d, r, c, spinfo=COOInfo(shape)),
)
ir.pp_params_rules[coo_fromdense_p] = _fromdense_pp


@register_pytree_node_class
class COO(JAXSparse):
    """A sparse matrix in coordinate format (prefer BCOO, which every transformation supports).

    >>> COO.fromdense(jnp.array([[0., 2.], [3., 0.]])) @ jnp.ones(2)
    Array([2., 3.], dtype=float32)
    """

    def __init__(self, args, *, shape, rows_sorted: bool = False, cols_sorted: bool = False):
        jnp = _jnp()
        self.data, self.row, self.col = (jnp.asarray(a) for a in args)
        self._rows_sorted, self._cols_sorted = rows_sorted, cols_sorted
        super().__init__(args, shape=shape)

    _info = property(lambda self: COOInfo(self.shape, self._rows_sorted, self._cols_sorted))
    _bufs = property(lambda self: (self.data, self.row, self.col))
    nse = property(lambda self: self.data.size)
    dtype = property(lambda self: self.data.dtype)

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32) -> COO:
        return coo_fromdense(mat, nse=nse, index_dtype=index_dtype)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32") -> COO:
        jnp = _jnp()
        if len(shape) != 2:
            raise ValueError(f"COO must have ndim=2; got shape={tuple(shape)}")
        empty = jnp.zeros(0, index_dtype)
        return cls((jnp.zeros(0, dtype), empty, empty), shape=shape, rows_sorted=True, cols_sorted=True)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32") -> COO:
        jnp = _jnp()
        size = min(N, M - k) if k > 0 else min(N + k, M)
        if size <= 0:
            return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype)
        idx = jnp.arange(size, dtype=index_dtype)
        data = jnp.ones(size, dtype=dtype)
        return cls(
            (data, idx + max(-k, 0), idx + max(k, 0)), shape=(N, M), rows_sorted=True, cols_sorted=True
        )

    def todense(self):
        return coo_todense(self)

    def transpose(self, axes=None) -> COO:
        if axes is not None:
            raise NotImplementedError("axes argument to transpose()")
        return COO(
            (self.data, self.col, self.row),
            shape=self.shape[::-1],
            rows_sorted=self._cols_sorted,
            cols_sorted=self._rows_sorted,
        )

    def __matmul__(self, other):
        return sparse_matmul(
            self,
            other,
            coo_matvec_p,
            coo_matmat_p,
            (self.row, self.col),
            dict(spinfo=self._info, transpose=False),
        )

    def tree_flatten(self):
        return (self.data, self.row, self.col), self._info

    @classmethod
    def tree_unflatten(cls, aux, children):
        obj = object.__new__(cls)
        obj.data, obj.row, obj.col = children
        obj.shape, obj._rows_sorted, obj._cols_sorted = aux
        return obj


# --- functions -----------------------------------------------------------------------------------


def coo_fromdense(mat, *, nse=None, index_dtype=np.int32) -> COO:
    """The COO matrix of ``mat``'s nonzero entries."""
    mat = _jnp().asarray(mat)
    bufs = coo_fromdense_p.bind(mat, nse=nse_or_count(mat, nse), index_dtype=index_dtype)
    return COO(bufs, shape=mat.shape, rows_sorted=True)


def coo_todense(mat: COO):
    """The dense matrix of a COO matrix."""
    return coo_todense_p.bind(mat.data, mat.row, mat.col, spinfo=mat._info)


def coo_matvec(mat: COO, v, transpose: bool = False):
    """``mat @ v`` (``mat.T @ v`` with ``transpose``)."""
    return coo_matvec_p.bind(
        mat.data, mat.row, mat.col, _jnp().asarray(v), spinfo=mat._info, transpose=transpose
    )


def coo_matmat(mat: COO, B, *, transpose: bool = False):
    """``mat @ B`` (``mat.T @ B`` with ``transpose``)."""
    return coo_matmat_p.bind(
        mat.data, mat.row, mat.col, _jnp().asarray(B), spinfo=mat._info, transpose=transpose
    )
