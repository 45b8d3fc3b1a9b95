"""``BCOO``, the batched-coordinate sparse array, and the functions on it (``bcoo_todense``,
``bcoo_fromdense``, ``bcoo_dot_general``, ``bcoo_reduce_sum``, ...). Its operators (``@``, ``*``,
``+``, ``.sum()``) are jnp functions under ``sparsify`` (``transform.py``), as in JAX."""

from __future__ import annotations

import math
import operator

import numpy as np

from ... import core
from ...tree_util import register_pytree_node_class
from ._base import JAXSparse, SparseInfo
from . import bcoo_dot as _dot
from . import bcoo_layout as _layout
from . import bcoo_primitives as _prims
from . import bcoo_spdot as _spdot
from .bcoo_dot import bcoo_dot_general_p, bcoo_dot_general_sampled_p  # noqa: F401
from .bcoo_spdot import bcoo_spdot_general_p  # noqa: F401
from .bcoo_layout import bcoo_sort_indices_p, bcoo_sum_duplicates_p  # noqa: F401
from .bcoo_primitives import (  # noqa: F401
    bcoo_extract_p,
    bcoo_fromdense_p,
    bcoo_todense_p,
    bcoo_transpose_p,
    validate,
)

_TRACED_NSE = """
The error arose for the nse argument of bcoo_fromdense. In order for
BCOO.fromdense() to be used in traced/compiled code, you must pass a concrete
value to the nse (number of stored elements) argument."""


def _jnp():
    from ... import numpy as jnp

    return jnp


@register_pytree_node_class
class BCOO(JAXSparse):
    """A sparse array in batched coordinate format: ``data`` of shape ``batch + (nse,) + dense``
    holds the stored values, ``indices`` of shape ``batch + (nse, n_sparse)`` their positions.
    Duplicate indices are summed; out-of-range indices are padding.

    >>> M = jnp.array([[0., 2., 0.], [1., 0., 4.]])
    >>> M_sp = BCOO.fromdense(M)
    >>> M_sp
    BCOO(float32[2, 3], nse=3)
    >>> M_sp.indices
    Array([[0, 1],
           [1, 0],
           [1, 2]], dtype=int32)
    >>> (M_sp @ jnp.ones(3)).tolist()
    [2.0, 5.0]
    """

    def __init__(self, args, *, shape, indices_sorted: bool = False, unique_indices: bool = False):
        jnp = _jnp()
        self.data, self.indices = (jnp.asarray(a) for a in args)
        self.indices_sorted = indices_sorted
        self.unique_indices = unique_indices
        super().__init__(args, shape=shape)
        validate(self.data.shape, self.indices.shape, self.shape)

    @property
    def _info(self) -> SparseInfo:
        return SparseInfo(self.shape, self.indices_sorted, self.unique_indices)

    @property
    def _bufs(self):
        return (self.data, self.indices)

    @property
    def nse(self) -> int:
        return self.indices.shape[-2]

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def n_batch(self) -> int:
        return self.indices.ndim - 2

    @property
    def n_sparse(self) -> int:
        return self.indices.shape[-1]

    @property
    def n_dense(self) -> int:
        return self.data.ndim - 1 - self.n_batch

    def _repr_extra(self) -> str:
        extra = f", nse={self.nse}"
        if self.n_batch:
            extra += f", n_batch={self.n_batch}"
        if self.n_dense:
            extra += f", n_dense={self.n_dense}"
        return extra

    @classmethod
    def fromdense(cls, mat, *, nse=None, index_dtype=np.int32, n_dense: int = 0, n_batch: int = 0) -> BCOO:
        """The BCOO array of a dense array's nonzero entries (``nse``: how many to store)."""
        return bcoo_fromdense(mat, nse=nse, index_dtype=index_dtype, n_dense=n_dense, n_batch=n_batch)

    @classmethod
    def _empty(cls, shape, *, dtype=None, index_dtype="int32", n_dense=0, n_batch=0, nse=0) -> BCOO:
        jnp = _jnp()
        shape = tuple(shape)
        n_sparse = len(shape) - n_dense - n_batch
        if n_sparse < 0 or n_dense < 0 or n_batch < 0 or nse < 0:
            raise ValueError(f"Invalid inputs: {shape=}, {n_dense=}, {n_batch=}, {nse=}")
        batch, sparse, dense = (
            shape[:n_batch],
            shape[n_batch : n_batch + n_sparse],
            shape[n_batch + n_sparse :],
        )
        data = jnp.zeros((*batch, nse, *dense), dtype)
        indices = jnp.full((*batch, nse, n_sparse), jnp.array(sparse, index_dtype), index_dtype)
        return cls((data, indices), shape=shape, indices_sorted=True, unique_indices=True)

    @classmethod
    def _eye(cls, N, M, k, *, dtype=None, index_dtype="int32", n_batch=0, n_dense=0) -> BCOO:
        jnp = _jnp()
        if 2 - n_batch - n_dense < 0 or n_dense < 0 or n_batch < 0:
            raise ValueError(f"Invalid inputs: shape={(N, M)}, {n_dense=}, {n_batch=}")
        diag_size = min(N, M - k) if k > 0 else min(N + k, M)
        if diag_size <= 0:  # the diagonal misses the matrix
            return cls._empty((N, M), dtype=dtype, index_dtype=index_dtype, n_batch=n_batch, n_dense=n_dense)
        if n_dense > 0 or n_batch > 1:  # these layouts store every zero anyway
            return cls.fromdense(
                jnp.eye(N, M, k, dtype=dtype), n_batch=n_batch, n_dense=n_dense, index_dtype=index_dtype
            )
        if n_batch == 0:
            data = jnp.ones(diag_size, dtype=dtype)
            idx = jnp.arange(diag_size, dtype=index_dtype)
            indices = jnp.column_stack([idx + max(-k, 0), idx + max(k, 0)])
        else:  # one stored element per row; rows the diagonal misses hold padding
            rows = np.arange(N)
            cols = rows + k
            missing = (cols < 0) | (cols >= M)
            ones = jnp.ones((N, 1), dtype=dtype)
            data = jnp.where(missing[:, None], jnp.zeros_like(ones), ones)
            indices = jnp.asarray(np.where(missing, M, cols)[:, None, None], dtype=index_dtype)
        return cls((data, indices), shape=(N, M), indices_sorted=True, unique_indices=True)

    def sum_duplicates(self, nse=None, remove_zeros: bool = True) -> BCOO:
        """The array with one stored element per index (duplicates summed), sorted, and without
        explicit zeros unless ``remove_zeros=False``; ``nse`` (required under transformations)
        pads with out-of-range indices or drops elements."""
        return _eliminate_zeros(self, nse=nse) if remove_zeros else bcoo_sum_duplicates(self, nse=nse)

    def update_layout(self, *, n_batch=None, n_dense=None, on_inefficient="error") -> BCOO:
        """The array stored with ``n_batch`` batch and ``n_dense`` dense axes (see ``bcoo_update_layout``)."""
        from .bcoo_structure import bcoo_update_layout

        return bcoo_update_layout(self, n_batch=n_batch, n_dense=n_dense, on_inefficient=on_inefficient)

    def sort_indices(self) -> BCOO:
        """The array with its indices in lexicographic order (duplicates kept)."""
        return bcoo_sort_indices(self)

    def todense(self):
        """The dense array."""
        return bcoo_todense(self)

    def transpose(self, axes=None) -> BCOO:
        """The array with its axes permuted (reversed by default)."""
        perm = list(range(self.ndim)[::-1] if axes is None else axes)
        out = bcoo_transpose(self, permutation=perm)
        sparse_perm = [p - self.n_batch for p in perm[self.n_batch : self.n_batch + self.n_sparse]]
        keeps_order = tuple(sparse_perm) == tuple(range(self.n_sparse))
        return BCOO(
            out._bufs,
            shape=out.shape,
            indices_sorted=self.indices_sorted and keeps_order,
            unique_indices=self.unique_indices,
        )

    def tree_flatten(self):
        return (self.data, self.indices), (self.shape, self.indices_sorted, self.unique_indices)

    @classmethod
    def tree_unflatten(cls, aux, children):
        shape, indices_sorted, unique_indices = aux
        obj = object.__new__(cls)
        obj.data, obj.indices = children
        obj.indices_sorted, obj.unique_indices = indices_sorted, unique_indices
        obj.shape = _shape_of_buffers(shape, *children)
        return obj


def _shape_of_buffers(shape, data, indices):
    """The shape of a BCOO rebuilt from its buffers: ``vmap`` adds or removes leading batch axes of
    both, and the shape follows them (JAX's vmap of BCOO maps batch axes only)."""
    if not hasattr(indices, "ndim") or not hasattr(data, "ndim"):  # placeholders, not buffers
        return shape
    n_batch = indices.ndim - 2
    if n_batch < 0:
        raise ValueError(
            f"Cannot map in_axis=0 for BCOO array with n_batch={n_batch + 1}. "
            "in_axes for batched BCOO operations must correspond to a batch dimension."
        )
    tail = indices.shape[-1] + data.ndim - indices.ndim + 1  # sparse and dense axes
    if len(shape) - tail == n_batch:
        return tuple(shape)
    batch = tuple(max(a, b) for a, b in zip(data.shape[:n_batch], indices.shape[:n_batch]))
    return batch + tuple(shape[len(shape) - tail :])


def _nse_of(mat, n_batch, n_dense):
    m = np.asarray(mat) != 0
    if n_dense:
        m = m.any(axis=tuple(range(m.ndim - n_dense, m.ndim)))
    return (
        int(m.reshape(*m.shape[:n_batch], -1).sum(-1).max(initial=0))
        if m.ndim > n_batch
        else int(m.max(initial=0))
    )


def bcoo_fromdense(mat, *, nse=None, n_batch: int = 0, n_dense: int = 0, index_dtype=np.int32) -> BCOO:
    """The BCOO array of ``mat``'s nonzero entries; ``nse`` must be concrete under transformations.

    >>> bcoo_fromdense(jnp.array([0., 3., 0., 4.])).data
    Array([3., 4.], dtype=float32)
    """
    from ...errors import ConcretizationTypeError

    mat = _jnp().asarray(mat)
    if nse is None:
        concrete = core.concrete_or_none(mat)
        if concrete is None:
            raise ConcretizationTypeError(mat, "the nse argument of bcoo_fromdense" + _TRACED_NSE)
        nse = _nse_of(concrete, n_batch, n_dense)
    value = core.concrete_or_none(nse)
    if value is None:
        raise ConcretizationTypeError(nse, "the nse argument of bcoo_fromdense" + _TRACED_NSE)
    data, indices = _prims.fromdense(
        mat,
        nse=operator.index(int(np.asarray(value))),
        n_batch=n_batch,
        n_dense=n_dense,
        index_dtype=index_dtype,
    )
    return BCOO((data, indices), shape=mat.shape, indices_sorted=True, unique_indices=True)


def bcoo_sort_indices(mat: BCOO) -> BCOO:
    """``mat`` with its stored elements in lexicographic order of their indices."""
    bufs = _layout.sort_indices(mat.data, mat.indices, spinfo=mat._info)
    return BCOO(bufs, shape=mat.shape, indices_sorted=True, unique_indices=mat.unique_indices)


def bcoo_sum_duplicates(mat: BCOO, nse=None) -> BCOO:
    """``mat`` with the data of equal indices summed into one stored element, indices sorted.

    >>> m = BCOO((jnp.array([1., 2., 3.]), jnp.array([[2], [0], [2]])), shape=(3,))
    >>> s = bcoo_sum_duplicates(m)
    >>> s.data, s.indices[:, 0]
    (Array([2., 4.], dtype=float32), Array([0, 2], dtype=int32))
    """
    if nse is None:
        indices = core.concrete_or_none(mat.indices)
        if indices is None:
            raise ValueError(
                "bcoo_sum_duplicates: nse must be specified when using the function within jit, vmap, and "
                "other transformations requiring abstract evaluation."
            )
        nse = _layout.needed_nse(np.asarray(indices), mat.shape)
    nse = operator.index(int(np.asarray(core.concrete_or_error(nse, "nse argument of bcoo_sum_duplicates."))))
    bufs = _layout.sum_duplicates(mat.data, mat.indices, spinfo=mat._info, nse=nse)
    return BCOO(bufs, shape=mat.shape, indices_sorted=True, unique_indices=True)


def _eliminate_zeros(mat: BCOO, nse=None) -> BCOO:
    # elements whose data is all zero get the out-of-range index, which summing then drops
    jnp = _jnp()
    n_batch, n_sparse, _, _ = validate(mat.data.shape, mat.indices.shape, mat.shape)
    mask = (mat.data == 0).all(tuple(range(n_batch + 1, mat.data.ndim)))
    shared = tuple(i for i, s in enumerate(mat.indices.shape[:n_batch]) if s == 1)
    if shared:  # an index shared along a broadcast axis goes only if all its elements are zero
        mask = mask.all(shared, keepdims=True)
    fill = jnp.array(mat.shape[n_batch : n_batch + n_sparse], dtype=mat.indices.dtype)
    indices = jnp.where(mask[..., None], fill, mat.indices)
    return bcoo_sum_duplicates(BCOO((mat.data, indices), shape=mat.shape), nse=nse)


def bcoo_todense(mat: BCOO):
    """The dense array of a BCOO array.

    >>> bcoo_todense(BCOO((jnp.array([5.]), jnp.array([[1]])), shape=(3,)))
    Array([0., 5., 0.], dtype=float32)
    """
    return _prims.todense(mat.data, mat.indices, spinfo=mat._info)


def bcoo_extract(sparr: BCOO, arr, *, assume_unique=None) -> BCOO:
    """The entries of dense ``arr`` at ``sparr``'s indices, as a BCOO array of its sparsity."""
    if not isinstance(sparr, BCOO):
        raise TypeError(f"First argument to bcoo_extract should be a BCOO array. Got {type(sparr)=}")
    a = _jnp().asarray(arr)
    if a.shape != sparr.shape:
        raise ValueError(f"shape mismatch: {sparr.shape=} {a.shape=}")
    unique = sparr.unique_indices if assume_unique is None else assume_unique
    data = _prims.extract(sparr.indices, a, assume_unique=unique)
    return BCOO((data, sparr.indices), **sparr._info._asdict())


def bcoo_transpose(mat: BCOO, *, permutation) -> BCOO:
    """``mat`` with its axes permuted (batch, sparse and dense axes each among themselves)."""
    bufs = _prims.transpose(mat.data, mat.indices, permutation=permutation, spinfo=mat._info)
    return BCOO(bufs, shape=tuple(mat.shape[p] for p in permutation), unique_indices=mat.unique_indices)


def bcoo_dot_general(
    lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None, out_sharding=None
):
    """``lax.dot_general`` with a BCOO operand on either side (the result is dense).

    >>> M = BCOO.fromdense(jnp.array([[1., 0.], [0., 2.]]))
    >>> bcoo_dot_general(M, jnp.array([3., 4.]), dimension_numbers=(([1], [0]), ([], [])))
    Array([3., 8.], dtype=float32)
    """
    from ... import lax

    del precision, out_sharding  # (unused, as in JAX)
    if isinstance(lhs, BCOO) and isinstance(rhs, BCOO):  # the result is sparse too
        shape = _dot_shape(lhs, rhs, dimension_numbers)
        bufs = _spdot.spdot_general(
            lhs.data,
            lhs.indices,
            rhs.data,
            rhs.indices,
            lhs_spinfo=lhs._info,
            rhs_spinfo=rhs._info,
            dimension_numbers=dimension_numbers,
            preferred_element_type=preferred_element_type,
        )
        return BCOO(tuple(bufs), shape=shape)
    if isinstance(lhs, BCOO):
        return _dot.dot_general(
            lhs.data,
            lhs.indices,
            _jnp().asarray(rhs),
            dimension_numbers=dimension_numbers,
            preferred_element_type=preferred_element_type,
            lhs_spinfo=lhs._info,
        )
    if isinstance(rhs, BCOO):  # the contraction with the operands swapped, its axes put back
        swapped = tuple(tuple(d[::-1]) for d in dimension_numbers)
        out = _dot.dot_general(
            rhs.data,
            rhs.indices,
            _jnp().asarray(lhs),
            dimension_numbers=swapped,
            preferred_element_type=preferred_element_type,
            lhs_spinfo=rhs._info,
        )
        n_contract, n_batch = (len(_dot._ints(d[0])) for d in dimension_numbers)
        n_swap = rhs.ndim - n_contract
        perm = (*range(n_batch), *range(n_swap, out.ndim), *range(n_batch, n_swap))
        return lax.transpose(out, perm)
    return lax.dot_general(lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type)


def _dot_shape(lhs: BCOO, rhs: BCOO, dimension_numbers) -> tuple[int, ...]:
    """The shape of the contraction of two sparse arrays (``lax.dot_general``'s checks and errors)."""
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((_dot._ints(lc), _dot._ints(rc)), (_dot._ints(lb), _dot._ints(rb)))
    lhs_aval, rhs_aval = (core.ShapedArray(x.shape, x.dtype) for x in (lhs, rhs))
    return tuple(
        _dot.dense_abstract(lhs_aval, rhs_aval, dimension_numbers=dn, preferred_element_type=None).shape
    )


def bcoo_dot_general_sampled(A, B, indices, *, dimension_numbers):
    """The entries of ``lax.dot_general(A, B)`` at ``indices`` only (BCOO data)."""
    return _dot.dot_general_sampled(A, B, indices, dimension_numbers=dimension_numbers)


def bcoo_multiply_dense(sp_mat: BCOO, v):
    """The data of ``sp_mat * v`` for a dense ``v`` broadcasting to ``sp_mat.shape``."""
    from ... import lax

    jnp = _jnp()
    v = v if hasattr(v, "ndim") else jnp.asarray(v)
    if v.ndim == 0:
        return lax.mul(sp_mat.data, v)
    if v.shape != sp_mat.shape:
        if lax.broadcast_shapes(v.shape, sp_mat.shape) != sp_mat.shape:
            raise NotImplementedError(
                "multiplication between sparse and dense is only implemented for cases where the output "
                f"shape matches the sparse matrix shape. Got shape={sp_mat.shape}, v.shape={v.shape}"
            )
        v = jnp.broadcast_to(v, sp_mat.shape)
    return lax.mul(sp_mat.data, _prims.extract(sp_mat.indices, v, assume_unique=True))


def bcoo_multiply_sparse(lhs: BCOO, rhs: BCOO) -> BCOO:
    """The elementwise product of two BCOO arrays (of any sparsity): every pair of stored elements
    at one index, ``lhs.nse * rhs.nse`` slots.

    >>> a = BCOO.fromdense(jnp.array([1., 0., 2.]))
    >>> bcoo_multiply_sparse(a, BCOO.fromdense(jnp.array([3., 5., 0.]))).todense()
    Array([3., 0., 0.], dtype=float32)
    """
    from ... import api, lax

    jnp = _jnp()
    if len(lhs.shape) != len(rhs.shape):
        raise TypeError(
            f"bcoo_multiply_sparse: arrays must have same number of dimensions, got {lhs.shape}, {rhs.shape}"
        )
    if lhs.n_dense != rhs.n_dense:
        raise NotImplementedError(
            f"bcoo_multiply_sparse: arrays with differing numbers of dense dimensions: {lhs}, {rhs}"
        )
    if lhs.n_batch != rhs.n_batch:
        raise NotImplementedError(
            "bcoo_multiply_sparse of arrays with different n_batch (bcoo_update_layout)"
        )
    nb = lhs.n_batch
    shape = tuple(lax.broadcast_shapes(lhs.shape, rhs.shape))

    def full(x, n):  # buffers with their batch axes broadcast, so vmap maps them together
        return jnp.broadcast_to(x, (*shape[:nb], *x.shape[nb:]))

    def one(ld, li, rd, ri):
        ln, rn = li.shape[0], ri.shape[0]
        n_sparse = li.shape[1]
        cols = [i for i in range(n_sparse) if lhs.shape[nb + i] != 1 and rhs.shape[nb + i] != 1]
        same = jnp.all(li[:, None, cols] == ri[None, :, cols], -1)
        il, ir = jnp.nonzero(same, size=ln * rn, fill_value=(ln, rn))
        data = ld.at[il].get(mode="fill", fill_value=0) * rd.at[ir].get(mode="fill", fill_value=0)
        indices = jnp.maximum(
            li.at[il].get(mode="fill", fill_value=max(lhs.shape[nb:], default=0)),
            ri.at[ir].get(mode="fill", fill_value=max(rhs.shape[nb:], default=0)),
        )
        return data, indices

    f = one
    for _ in range(nb):
        f = api.vmap(f)
    data, indices = f(full(lhs.data, nb), full(lhs.indices, nb), full(rhs.data, nb), full(rhs.indices, nb))
    return BCOO((data, indices), shape=shape)


def bcoo_reduce_sum(mat: BCOO, *, axes) -> BCOO:
    """``mat`` summed over ``axes``, still sparse: summed sparse axes drop out of the indices,
    summed batch axes join the stored elements.

    >>> bcoo_reduce_sum(BCOO.fromdense(jnp.array([[1., 0.], [2., 3.]])), axes=(0,)).todense()
    Array([3., 3.], dtype=float32)
    """
    from ... import lax

    jnp = _jnp()
    data, indices, shape = mat.data, mat.indices, mat.shape
    n_batch, n_sparse, _, nse = validate(data.shape, indices.shape, shape)
    axes = sorted({operator.index(a) % len(shape) for a in axes})
    data = data.sum(tuple(a - n_sparse + 1 for a in axes if a >= n_batch + n_sparse))
    if n_sparse:  # padding must not be summed in where its index is dropped
        bound = jnp.expand_dims(
            jnp.array(shape[n_batch : n_batch + n_sparse], dtype=indices.dtype),
            tuple(range(indices.ndim - 1)),
        )
        mask = jnp.all(indices < bound, -1)
        if data.ndim > mask.ndim:
            mask = lax.expand_dims(mask, tuple(range(mask.ndim, data.ndim)))
        data = jnp.where(mask, data, 0)
    kept = [i for i in range(n_sparse) if i + n_batch not in axes]
    if kept:
        indices = indices[..., np.array(kept)]
    else:
        indices = jnp.zeros((*indices.shape[: n_batch + 1], 0), indices.dtype)
    batch_axes = [a for a in axes if a < n_batch]
    for ax in batch_axes:  # a broadcast axis of one buffer: make both agree along it
        if data.shape[ax] == 1 and indices.shape[ax] == 1:
            data = data * shape[ax]  # one stored element standing for shape[ax] of them
        elif data.shape[ax] == 1:
            full = (*data.shape[:ax], shape[ax], *data.shape[ax + 1 :])
            data = lax.broadcast_in_dim(data, full, tuple(range(data.ndim)))
        elif indices.shape[ax] == 1:  # elements sharing one index: their sum
            data = data.sum(ax, keepdims=True)
    kept_batch = [i for i in range(n_batch) if i not in batch_axes]
    new_nse = nse * math.prod(data.shape[a] for a in batch_axes)

    def merge(x):  # the summed batch axes join the stored-element axis
        order = (*kept_batch, *batch_axes, *range(n_batch, x.ndim))
        return lax.reshape(x, (*(x.shape[i] for i in kept_batch), new_nse, *x.shape[n_batch + 1 :]), order)

    data, indices = merge(data), merge(indices)
    out_shape = tuple(s for i, s in enumerate(shape) if i not in axes)
    return BCOO((data, indices), shape=out_shape)
