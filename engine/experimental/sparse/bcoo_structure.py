"""Structural operations on BCOO arrays, the sparse forms of ``lax.squeeze``, ``broadcast_in_dim``,
``concatenate``, ``reshape``, ``rev``, ``slice`` and ``dynamic_slice`` (JAX's ``bcoo_*`` functions):
batch and dense axes move with the buffers, sparse axes are re-indexed, and elements a slice leaves
out get the out-of-range index."""

from __future__ import annotations

import math
import operator

import numpy as np

from ... import core, lax
from ... import numpy as jnp
from .bcoo import BCOO, bcoo_sum_duplicates, bcoo_transpose
from .bcoo_primitives import split_permutation


def _split(xs, n_batch, n_sparse):
    xs = list(xs)
    return xs[:n_batch], xs[n_batch : n_batch + n_sparse], xs[n_batch + n_sparse :]


def bcoo_squeeze(arr: BCOO, *, dimensions) -> BCOO:
    """``arr`` without the given size-1 axes.

    >>> bcoo_squeeze(BCOO.fromdense(jnp.ones((1, 3))), dimensions=(0,)).shape
    (3,)
    """
    dimensions = tuple(operator.index(d) % arr.ndim for d in dimensions)
    if any(arr.shape[d] != 1 for d in dimensions):
        raise ValueError(
            "cannot select an axis to squeeze out which has size not equal to one, "
            f"got shape={arr.shape} and dimensions={dimensions}"
        )
    batch = tuple(d for d in dimensions if d < arr.n_batch)
    kept_sparse = np.array([i for i in range(arr.n_sparse) if i + arr.n_batch not in dimensions], dtype=int)
    dense = tuple(d - arr.n_sparse + 1 for d in dimensions if d >= arr.n_batch + arr.n_sparse)
    data = lax.squeeze(arr.data, batch + dense)
    indices = lax.squeeze(arr.indices[..., kept_sparse], batch)
    shape = tuple(s for i, s in enumerate(arr.shape) if i not in dimensions)
    return BCOO(
        (data, indices), shape=shape, indices_sorted=arr.indices_sorted, unique_indices=arr.unique_indices
    )


def bcoo_broadcast_in_dim(mat: BCOO, *, shape, broadcast_dimensions, sharding=None) -> BCOO:
    """``lax.broadcast_in_dim`` of a BCOO array: new leading axes become batch axes (the data is
    repeated along them), new size-1 sparse axes get index 0."""
    shape, dims = tuple(shape), tuple(broadcast_dimensions)
    if len(mat.shape) != len(dims):
        raise ValueError(
            f"spinfo.shape={mat.shape} and broadcast_dimensions={dims} must have the same length"
        )
    n_batch, n_sparse, n_dense, nse = mat.n_batch, mat.n_sparse, mat.n_dense, mat.nse
    batch_dims, sparse_dims, dense_dims = _split(dims, n_batch, n_sparse)
    if max(batch_dims, default=0) > min(sparse_dims, default=len(shape)):
        raise ValueError("Cannot mix batch and sparse dimensions during broadcast_in_dim")
    if max(sparse_dims, default=0) > min(dense_dims, default=len(shape)):
        raise ValueError("Cannot mix sparse and dense dimensions during broadcast_in_dim")
    new_n_batch = min(dims[n_batch:], default=len(shape))
    new_n_dense = n_dense and len(shape) - min(dims[-n_dense:])
    new_n_sparse = len(shape) - new_n_batch - new_n_dense
    old_sparse = math.prod(mat.shape[n_batch : n_batch + n_sparse])
    if old_sparse != math.prod(shape[new_n_batch : new_n_batch + new_n_sparse]):
        raise NotImplementedError("Adding sparse dimensions with lengths != 1")
    data, indices = mat.data, mat.indices
    if (new_n_batch, new_n_dense) != (n_batch, n_dense):
        data = lax.broadcast_in_dim(
            data,
            (*shape[:new_n_batch], nse, *shape[new_n_batch + new_n_sparse :]),
            (*batch_dims, new_n_batch, *(b + 1 - new_n_sparse for b in dense_dims)),
        )
        indices = lax.broadcast_in_dim(
            indices, (*shape[:new_n_batch], nse, n_sparse), (*batch_dims, new_n_batch, new_n_batch + 1)
        )
    if new_n_sparse != n_sparse:
        cols = np.array(sparse_dims, int) - new_n_batch
        indices = (
            jnp.zeros((*shape[:new_n_batch], nse, new_n_sparse), indices.dtype).at[..., cols].set(indices)
        )
    return BCOO((data, indices), shape=shape)


def _set_nse(mat: BCOO, nse: int) -> BCOO:
    """``mat`` with ``nse`` slots: cut, or padded with zeros at the out-of-range index."""
    if mat.nse == nse:
        return mat
    nb = mat.n_batch
    if nse < mat.nse:
        data, indices = mat.data[(slice(None),) * nb + (slice(nse),)], mat.indices[..., :nse, :]
    else:
        pad_data = jnp.zeros((*mat.data.shape[:nb], nse - mat.nse, *mat.data.shape[nb + 1 :]), mat.dtype)
        fill = jnp.array(mat.shape[nb : nb + mat.n_sparse], dtype=mat.indices.dtype)
        pad_ind = jnp.broadcast_to(fill, (*mat.indices.shape[:-2], nse - mat.nse, mat.n_sparse))
        data = lax.concatenate([mat.data, pad_data], nb)
        indices = lax.concatenate([mat.indices, pad_ind], nb)
    return BCOO(
        (data, indices), shape=mat.shape, indices_sorted=mat.indices_sorted, unique_indices=mat.unique_indices
    )


def bcoo_concatenate(operands, *, dimension: int) -> BCOO:
    """``lax.concatenate`` of BCOO arrays of one layout, along a batch or sparse axis."""
    dimension = operator.index(dimension)
    if not all(isinstance(op, BCOO) for op in operands):
        raise ValueError(
            f"bcoo_concatenate: expected operands to be a sequence of BCOO arrays. Got {operands}"
        )
    out = core.ShapedArray(
        lax.concatenate([jnp.zeros(op.shape, op.dtype) for op in operands], dimension).shape,
        operands[0].dtype,
    )
    if len({op.n_dense for op in operands}) > 1:
        raise ValueError("bcoo_concatenate requires inputs to have matching nse dimensions.")
    n_batches = {op.n_batch for op in operands}
    if len(n_batches) > 1 and max(n_batches) == 1:  # x[None] next to batched arrays: align the layouts
        if all(op.shape[0] == 1 for op in operands if op.n_batch == 0):
            operands = [bcoo_update_layout(op, n_batch=1) if op.n_batch == 0 else op for op in operands]
        elif all(op.shape[0] == 1 for op in operands if op.n_batch == 1):
            operands = [bcoo_update_layout(op, n_batch=0) if op.n_batch == 1 else op for op in operands]
    if len({op.n_batch for op in operands}) > 1:
        raise ValueError("bcoo_concatenate requires inputs to have matching batch dimensions.")
    n_batch, n_sparse = operands[0].n_batch, operands[0].n_sparse
    drop = (lambda s: s[:dimension] + s[dimension + 1 :]) if dimension < n_batch else (lambda s: s)
    if (
        len({drop(op.indices.shape[:n_batch]) for op in operands}) != 1
        or len({drop(op.data.shape[:n_batch]) for op in operands}) != 1
    ):
        raise NotImplementedError("concatenation of arrays with broadcasted batch indices")
    if dimension < n_batch:  # batch axes: the buffers, with one nse
        nse = max(op.nse for op in operands)
        operands = [_set_nse(op, nse) for op in operands]
        indices = lax.concatenate([op.indices for op in operands], dimension)
        data = lax.concatenate([op.data for op in operands], dimension)
    elif dimension < n_batch + n_sparse:  # sparse axes: all elements, indices offset
        offsets = np.cumsum([0] + [op.shape[dimension] for op in operands[:-1]])
        col = dimension - n_batch
        data = lax.concatenate([op.data for op in operands], n_batch)
        indices = lax.concatenate(
            [op.indices.at[..., col].add(int(o)) for op, o in zip(operands, offsets)], n_batch
        )
    else:
        raise NotImplementedError("Concatenation along dense dimensions.")
    return BCOO((data, indices), shape=out.shape)


def bcoo_reshape(mat: BCOO, *, new_sizes, dimensions=None, sharding=None) -> BCOO:
    """``lax.reshape`` of a BCOO array whose batch, sparse and dense axes reshape among themselves."""
    if mat.indices.shape[: mat.n_batch] != mat.data.shape[: mat.n_batch] != mat.shape[: mat.n_batch]:
        raise NotImplementedError("reshape of arrays with broadcasted batch dimensions.")
    new_sizes = tuple(int(s) for s in new_sizes)
    batch_shape, sparse_shape, _ = _split(mat.shape, mat.n_batch, mat.n_sparse)
    batch_perm, sparse_perm, dense_perm = split_permutation(
        mat.data.shape, mat.indices.shape, tuple(dimensions or range(mat.ndim)), mat.shape
    )
    batch_size, sparse_size = math.prod(batch_shape), math.prod(sparse_shape)
    cumulative = np.cumprod(new_sizes)
    if batch_size != 1 and batch_size not in cumulative:
        raise ValueError(
            "bcoo_reshape: new shape cannot mix batch and sparse dimensions; "
            f"got shape={mat.shape} new_shape={new_sizes} with n_batch={mat.n_batch}"
        )
    if sparse_size != 1 and batch_size * sparse_size not in cumulative:
        raise ValueError(
            "bcoo_reshape: new shape cannot mix sparse and dense dimensions; "
            f"got shape={mat.shape} new_shape={new_sizes} with n_dense={mat.n_dense}"
        )
    i1 = int(cumulative.searchsorted(batch_size, side="right"))
    i2 = int(cumulative.searchsorted(batch_size * sparse_size, side="right"))
    new_batch, new_sparse, new_dense = new_sizes[:i1], new_sizes[i1:i2], new_sizes[i2:]
    nb = mat.n_batch
    data = lax.reshape(
        mat.data, (*new_batch, mat.nse, *new_dense), (*batch_perm, nb, *(p + nb + 1 for p in dense_perm))
    )
    indices = lax.reshape(mat.indices, (*new_batch, mat.nse, mat.n_sparse), (*batch_perm, nb, nb + 1))
    if not new_sparse:
        indices = jnp.zeros((*new_batch, mat.nse, 0), indices.dtype)
    elif sparse_shape:  # through the flat position within the sparse axes
        cols = tuple(indices[..., i] for i in sparse_perm)
        dims = tuple(int(mat.shape[nb + i]) for i in sparse_perm)
        flat = jnp.ravel_multi_index(cols, dims, mode="clip")
        bound = jnp.array(mat.shape[nb : nb + mat.n_sparse], dtype=indices.dtype)
        outside = (indices >= bound).any(-1, keepdims=True)
        indices = jnp.stack(jnp.unravel_index(flat, new_sparse), axis=-1).astype(indices.dtype)
        indices = jnp.where(outside, jnp.array(new_sparse, dtype=indices.dtype), indices)
    return BCOO((data, indices), shape=new_sizes)


def bcoo_rev(operand: BCOO, dimensions) -> BCOO:
    """``lax.rev`` of a BCOO array."""
    nb, ns = operand.n_batch, operand.n_sparse
    dimensions = [operator.index(d) for d in dimensions]
    batch = [d for d in dimensions if d < nb]
    sparse = [d - nb for d in dimensions if nb <= d < nb + ns]
    dense = [d + 1 - ns for d in dimensions if d >= nb + ns]
    data, indices = operand.data, operand.indices
    if batch:
        indices = lax.rev(indices, batch)
    if batch or dense:
        data = lax.rev(data, batch + dense)
    if sparse:
        size = jnp.array(operand.shape[nb : nb + ns], dtype=indices.dtype)
        cols = np.array(sparse)
        flipped = indices.at[..., cols].set(size[cols] - 1 - indices[..., cols])
        indices = jnp.where(flipped < 0, size, flipped)  # padding stays out of range
    return BCOO((data, indices), shape=operand.shape)


def _keep_inside(mat: BCOO, data, indices, starts, sizes, shape, strides=None):
    """Elements inside the window keep their re-based index; the rest are zeroed and put at the
    out-of-range index. More slots than the window holds are summed down to its size."""
    nb, ns, nd = mat.n_batch, mat.n_sparse, mat.n_dense
    lead = tuple(range(nb + 1))
    starts_, sizes_ = jnp.expand_dims(starts, lead), jnp.expand_dims(sizes, lead)
    step = None if strides is None else jnp.expand_dims(strides, lead)
    inside = (indices >= starts_) & (indices < starts_ + (sizes_ if step is None else sizes_ * step))
    if step is not None:
        inside = inside & ((indices - starts_) % step == 0)
    keep = jnp.all(inside, axis=-1, keepdims=True)
    rebased = indices - starts_ if step is None else (indices - starts_ + step - 1) // step
    indices = jnp.where(keep, rebased, sizes_)
    data = jnp.where(lax.expand_dims(keep[..., 0], tuple(range(nb + 1, nb + 1 + nd))), data, 0)
    window = math.prod(shape[nb : nb + ns])
    out = BCOO((data, indices), shape=shape)
    if mat.nse > window:
        out = bcoo_sum_duplicates(out, nse=window)
    return out


def bcoo_slice(mat: BCOO, *, start_indices, limit_indices, strides=None) -> BCOO:
    """``lax.slice`` of a BCOO array.

    >>> bcoo_slice(BCOO.fromdense(jnp.eye(4)), start_indices=(1, 1), limit_indices=(3, 3)).todense()
    Array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    if not isinstance(mat, BCOO):
        raise TypeError(f"bcoo_slice: input should be BCOO array, got type(mat)={type(mat)}")
    start = [operator.index(i) for i in start_indices]
    limit = [operator.index(i) for i in limit_indices]
    strides = [1] * mat.ndim if strides is None else [operator.index(i) for i in strides]
    if not len(start) == len(limit) == len(strides) == mat.ndim:
        raise ValueError(f"bcoo_slice: indices must have size mat.ndim={mat.ndim}")
    if any(s <= 0 for s in strides):
        raise ValueError(f"strides must be a sequence of positive integers; got {strides}")
    if not all(0 <= a <= b <= n for a, b, n in zip(start, limit, mat.shape)):
        raise ValueError(
            f"bcoo_slice: invalid indices. Got start_indices={start}, limit_indices={limit} and shape={mat.shape}"
        )
    nb, ns = mat.n_batch, mat.n_sparse
    picks = [slice(a, b, s) for a, b, s in zip(start, limit, strides)]
    data_idx = [p if mat.data.shape[i] == mat.shape[i] else slice(None) for i, p in enumerate(picks[:nb])]
    ind_idx = [p if mat.indices.shape[i] == mat.shape[i] else slice(None) for i, p in enumerate(picks[:nb])]
    data = mat.data[(*data_idx, slice(None), *picks[nb + ns :])]
    indices = mat.indices[(*ind_idx, slice(None), slice(None))]
    shape = tuple((b - a + s - 1) // s for a, b, s in zip(start, limit, strides))
    if not ns:
        return BCOO((data, indices), shape=shape)
    dt = indices.dtype
    return _keep_inside(
        mat,
        data,
        indices,
        jnp.array(start[nb : nb + ns], dt),
        jnp.array(shape[nb : nb + ns], dt),
        shape,
        jnp.array(strides[nb : nb + ns], dt),
    )


def bcoo_dynamic_slice(mat: BCOO, start_indices, slice_sizes) -> BCOO:
    """``lax.dynamic_slice`` of a BCOO array (starts may be traced; clamped as lax's are)."""
    sizes = tuple(operator.index(i) for i in slice_sizes)
    starts = [jnp.asarray(i) for i in start_indices]
    if not len(starts) == len(sizes) == mat.ndim:
        raise ValueError(f"bcoo_dynamic_slice: indices must have size mat.ndim={mat.ndim}")
    if not all(0 <= s <= n for s, n in zip(sizes, mat.shape)):
        raise TypeError(
            f"slice_sizes must be less than or equal to operand shape, got slice_sizes {sizes} for operand shape {mat.shape}"
        )
    nb, ns = mat.n_batch, mat.n_sparse
    zero = jnp.zeros((), starts[0].dtype if starts else np.int32)
    d_start, d_size, i_start, i_size = [], [], [], []
    for i in range(nb):
        d_full, i_full = mat.data.shape[i] == mat.shape[i], mat.indices.shape[i] == mat.shape[i]
        d_start.append(starts[i] if d_full else zero)
        d_size.append(sizes[i] if d_full else 1)
        i_start.append(starts[i] if i_full else zero)
        i_size.append(sizes[i] if i_full else 1)
    data = lax.dynamic_slice(
        mat.data, [*d_start, zero, *starts[nb + ns :]], [*d_size, mat.nse, *sizes[nb + ns :]]
    )
    indices = lax.dynamic_slice(mat.indices, [*i_start, zero, zero], [*i_size, mat.nse, ns])
    if not ns:
        return BCOO((data, indices), shape=sizes)
    dt = indices.dtype
    bound = jnp.array(mat.shape[nb : nb + ns], dtype=dt)
    size_arr = jnp.array(sizes[nb : nb + ns], dtype=dt)
    first = jnp.stack([s.astype(dt) for s in starts[nb : nb + ns]])
    first = jnp.clip(jnp.where(first < 0, first + bound, first), 0, bound - size_arr)
    return _keep_inside(mat, data, indices, first, size_arr, sizes)


def _nfold_vmap(f, n):
    from ... import api

    for _ in range(n):
        f = api.vmap(f)
    return f


def _full_batches(data, indices, shape, n_batch):
    # both buffers with their batch axes broadcast to the array's, so vmap maps them together
    return (
        jnp.broadcast_to(data, (*shape[:n_batch], *data.shape[n_batch:])),
        jnp.broadcast_to(indices, (*shape[:n_batch], *indices.shape[n_batch:])),
    )


def bcoo_update_layout(mat: BCOO, *, n_batch=None, n_dense=None, on_inefficient="error") -> BCOO:
    """``mat`` stored with ``n_batch`` batch and ``n_dense`` dense axes. Making sparse axes batch
    or dense axes stores their zeros too: ``on_inefficient`` ('error', 'warn' or None) says what
    to do about it.

    >>> m = BCOO.fromdense(jnp.array([[1., 0.], [0., 2.]]), n_batch=1)
    >>> bcoo_update_layout(m, n_batch=0).indices
    Array([[0, 0],
           [1, 1]], dtype=int32)
    """
    import warnings

    from .util import SparseEfficiencyError, SparseEfficiencyWarning

    n_batch = mat.n_batch if n_batch is None else operator.index(n_batch)
    n_dense = mat.n_dense if n_dense is None else operator.index(n_dense)
    if (n_batch, n_dense) == (mat.n_batch, mat.n_dense):
        return mat
    if on_inefficient not in ("error", "warn", None):
        raise ValueError(f"on_inefficent={on_inefficient!r}; expected one of ['error', 'warn', None].")
    if n_batch < 0:
        raise ValueError(f"n_batch must be non-negative; got {n_batch}")
    if n_dense < 0:
        raise ValueError(f"n_dense must be non-negative; got {n_dense}")
    if mat.ndim - n_batch - n_dense < 0:
        raise ValueError(f"sum of {n_batch=} and {n_dense=} cannot be larger than mat.ndim={mat.ndim}.")

    def inefficient(msg):
        if on_inefficient == "error":
            raise SparseEfficiencyError(
                msg
                + " To disable this error, set the on_inefficient argument of bcoo_update_layout to 'warn' or None."
            )
        if on_inefficient == "warn":
            msg += " To disable this warning, set the on_inefficient argument of bcoo_update_layout to None."
            warnings.warn(msg, category=SparseEfficiencyWarning, stacklevel=3)

    shape = mat.shape
    if n_dense > mat.n_dense and any(d > 1 for d in shape[-n_dense : mat.ndim - mat.n_dense]):
        inefficient(
            f"For matrix of shape {shape}, increasing n_dense from {mat.n_dense} to {n_dense} results in "
            "inefficient storage."
        )
    if n_batch > mat.n_batch and any(d > 1 for d in shape[mat.n_batch : n_batch]):
        inefficient(
            f"For matrix of shape {shape}, increasing n_batch from {mat.n_batch} to {n_batch} results in "
            "inefficient storage."
        )
    data, indices = _full_batches(mat.data, mat.indices, shape, mat.n_batch)
    nb, nd = mat.n_batch, mat.n_dense
    if n_dense < nd:  # leading dense axes become sparse: each block splits into elements
        k = nd - n_dense

        def split_blocks(d, i):
            blocks = d.reshape(math.prod(d.shape[:k]), *d.shape[k:])
            grid = jnp.meshgrid(*(jnp.arange(s, dtype=i.dtype) for s in d.shape[:k]), indexing="ij")
            return blocks, jnp.column_stack(
                [jnp.broadcast_to(i, (blocks.shape[0], i.size)), *map(jnp.ravel, grid)]
            )

        data, indices = _nfold_vmap(split_blocks, nb + 1)(data, indices)
        data = data.reshape(*data.shape[:nb], math.prod(data.shape[nb : nb + 2]), *data.shape[nb + 2 :])
        indices = indices.reshape(
            *indices.shape[:nb], math.prod(indices.shape[nb : nb + 2]), *indices.shape[nb + 2 :]
        )
        nd = n_dense
    if n_batch < nb:  # trailing batch axes become sparse: their positions join the indices
        k = nb - n_batch

        def merge_batches(d, i):
            nse = i.shape[-2]
            grid = jnp.meshgrid(*(jnp.arange(s, dtype=i.dtype) for s in (*i.shape[:k], nse)), indexing="ij")
            merged = i.reshape(math.prod(i.shape[: k + 1]), *i.shape[k + 1 :])
            return d.reshape(math.prod(d.shape[: k + 1]), *d.shape[k + 1 :]), jnp.column_stack(
                (*(g.ravel() for g in grid[:-1]), merged)
            )

        data, indices = _nfold_vmap(merge_batches, n_batch)(data, indices)
        nb = n_batch
    if n_dense > nd:  # trailing sparse axes become dense: each element a block with one entry
        k = n_dense - nd

        def to_blocks(d, i):
            return jnp.zeros(shape[-n_dense:], d.dtype).at[tuple(i[-k:])].set(d), i[:-k]

        data, indices = _nfold_vmap(to_blocks, nb + 1)(data, indices)
        nd = n_dense
    if n_batch > nb:  # leading sparse axes become batch: each element lands in its batch
        k = n_batch - nb
        ndense = n_dense

        def to_batches(d, i):
            nse = i.shape[-2]
            at = (*(i[:, j] for j in range(k)), jnp.arange(nse))
            new_i = jnp.broadcast_to(i[:, k:], (*shape[nb:n_batch], nse, i.shape[-1] - k))
            zeros = jnp.zeros((*shape[nb:n_batch], nse, *d.shape[d.ndim - ndense :]), d.dtype)
            return zeros.at[at].set(d), new_i

        data, indices = _nfold_vmap(to_batches, nb)(data, indices)
    return BCOO((data, indices), shape=shape)


def bcoo_gather(
    operand: BCOO,
    start_indices,
    dimension_numbers,
    slice_sizes,
    *,
    unique_indices=False,
    indices_are_sorted=False,
    mode=None,
    fill_value=None,
) -> BCOO:
    """``lax.gather`` of a BCOO array (as JAX's: one ``bcoo_dynamic_slice`` per start index, mapped
    with ``vmap``, then laid out as the gather's result)."""
    from ... import api
    from ...jit import ShapeDtypeStruct
    from ...lax.gather_scatter import GatherScatterMode

    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    if mode != GatherScatterMode.PROMISE_IN_BOUNDS:
        raise NotImplementedError(f"bcoo_gather: mode={mode} not yet supported.")
    start_indices = jnp.asarray(start_indices)
    out = api.eval_shape(
        lambda o, i: lax.gather(
            o,
            i,
            dimension_numbers,
            slice_sizes,
            unique_indices=unique_indices,
            indices_are_sorted=indices_are_sorted,
            mode=mode,
            fill_value=fill_value,
        ),
        ShapeDtypeStruct(operand.shape, operand.dtype),
        ShapeDtypeStruct(start_indices.shape, start_indices.dtype),
    )
    starts = [jnp.zeros((), start_indices.dtype)] * operand.ndim
    in_axes: list = [None] * operand.ndim
    sizes = list(operand.shape)
    for i, j in enumerate(dimension_numbers.start_index_map):
        starts[j], sizes[j], in_axes[j] = start_indices[..., i].ravel(), slice_sizes[j], 0

    def window(idx):
        return bcoo_squeeze(
            bcoo_dynamic_slice(operand, idx, sizes), dimensions=dimension_numbers.collapsed_slice_dims
        )

    result = api.vmap(window, in_axes=(in_axes,))(starts)
    result = bcoo_reshape(
        result, new_sizes=(*start_indices.shape[:-1], *result.shape[1:]), dimensions=tuple(range(result.ndim))
    )
    if result.shape:
        offset = tuple(dimension_numbers.offset_dims)
        batch = tuple(d for d in range(len(out.shape)) if d not in offset)
        perm = np.zeros(result.ndim, dtype=int)
        perm[np.array(batch + offset, dtype=int)] = np.arange(result.ndim)
        if set(perm[: len(batch)]) != set(range(len(batch))):
            result = bcoo_update_layout(result, n_batch=0)
        result = bcoo_transpose(result, permutation=tuple(int(p) for p in perm))
    return result.reshape(out.shape).astype(out.dtype)
