"""lax functions JAX builds from other operations: ``reduce`` with any computation,
``batch_matmul``, ``index_take``, ``broadcast_shapes``, ``approx_max_k``/``approx_min_k``."""

from __future__ import annotations

import math

import numpy as np

from .. import core, lax
from ..tree_util import tree_flatten, tree_unflatten

__all__ = ["approx_max_k", "approx_min_k", "batch_matmul", "broadcast_shapes", "index_take", "reduce"]


def broadcast_shapes(*shapes):
    """The shape ``shapes`` broadcast to (numpy's rule), as a tuple.

    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    if len(shapes) == 1:
        return tuple(shapes[0])
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    out = []
    for sizes in zip(*padded):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over the leading (batch) dimensions of two arrays of equal rank >= 2.

    >>> batch_matmul(jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5))).shape
    (2, 3, 5)
    """
    nl, nr = np.ndim(lhs), np.ndim(rhs)
    if nl < 2 or nr < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {nl}, {nr}")
    if nl != nr:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {nl}, {nr}")
    batch = tuple(range(nl - 2))
    return lax.dot_general(lhs, rhs, (((nl - 1,), (nr - 2,)), (batch, batch)), precision=precision)


def index_take(src, idxs, axes):
    """``src[idxs[0], idxs[1], ...]`` along ``axes`` (indices wrap modulo each size), one gather.

    >>> index_take(jnp.arange(12).reshape(3, 4), (jnp.array([0, 2]), jnp.array([1, 5])), (0, 1))
    Array([1, 9], dtype=int32)
    """
    indices = lax.concatenate([lax.expand_dims(i, (1,)) for i in idxs], 1)
    # (as JAX's: the operator %, i.e. jnp.remainder, wraps negative indices)
    indices = indices % lax.expand_dims(
        np.array([np.shape(src)[ax] for ax in axes]), tuple(range(indices.ndim - 1))
    )
    slice_sizes = list(np.shape(src))
    for ax in axes:
        slice_sizes[ax] = 1
    offset_dims = tuple(range(1, np.ndim(src) - indices.shape[1] + 1))
    dnums = lax.GatherDimensionNumbers(
        offset_dims=offset_dims, collapsed_slice_dims=tuple(axes), start_index_map=tuple(axes)
    )
    return lax.gather(src, indices, dimension_numbers=dnums, slice_sizes=tuple(slice_sizes))


def _monoid(computation, init):
    """The reduce_* primitive ``computation`` is, given its identity as ``init``, or None."""
    v = core.concrete_or_none(init)
    if v is None or np.shape(v) != ():
        return None
    dtype = np.asarray(v).dtype
    intlike = dtype == np.bool_ or dtype.kind in "iu"
    if computation is lax.add:
        return lax.reduce_sum if v == 0 else None
    if computation is lax.mul:
        return lax.reduce_prod if v == 1 else None
    if intlike and computation is lax.bitwise_or:
        return lax.reduce_or if v == 0 else None
    if intlike and computation is lax.bitwise_and:
        return lax.reduce_and if v == np.array(-1).astype(dtype) else None
    if intlike and computation is lax.bitwise_xor:
        return lax.reduce_xor if v == 0 else None
    if computation is lax.max:
        lowest = -np.inf if dtype.kind == "f" else (False if dtype == np.bool_ else np.iinfo(dtype).min)
        return lax.reduce_max if v == lowest else None
    if computation is lax.min:
        highest = np.inf if dtype.kind == "f" else (True if dtype == np.bool_ else np.iinfo(dtype).max)
        return lax.reduce_min if v == highest else None
    return None


def reduce(operands, init_values, computation, dimensions, out_sharding=None):
    """Reduce ``operands`` (a pytree of arrays) over ``dimensions`` with ``computation``, an
    associative function of two pytrees like ``init_values`` (its identity).

    ``lax.add``, ``lax.mul``, ``lax.max``, ``lax.min`` and the bitwise ops with their identities
    become the matching ``reduce_*`` primitive, as in JAX. Any other computation binds JAX's generic
    ``reduce`` primitive (``general_reduce.py``). As JAX's, ``out_sharding`` lays out a sum (by
    ``reshard``), is refused for the other ``reduce_*`` primitives and unused by the generic one.

    >>> reduce(jnp.arange(6.0).reshape(2, 3), 0.0, lax.add, (1,))
    Array([ 3., 12.], dtype=float32)
    >>> reduce((jnp.array([3.0, 1.0, 2.0]), jnp.arange(3)), (jnp.inf, 0),
    ...        lambda a, b: (lax.min(a[0], b[0]), lax.select(a[0] <= b[0], a[1], b[1])), (0,))
    (Array(1., dtype=float32), Array(1, dtype=int32))
    """
    leaves, tree = tree_flatten(operands)
    inits, init_tree = tree_flatten(init_values)
    if tree != init_tree:
        raise ValueError(f"Operands must have the same tree structure as init_values: {tree} vs. {init_tree}")
    if len(leaves) != len(inits):
        raise ValueError(
            f"Must have same total number of operands as init_values:  {len(leaves)} vs. {len(inits)}"
        )
    dims = tuple(int(d) for d in dimensions)
    monoid = _monoid(computation, inits[0]) if len(leaves) == 1 else None
    if monoid is not None:
        if out_sharding is not None and monoid is not lax.reduce_sum:
            raise NotImplementedError
        weak = core.is_weak(leaves[0]) and core.is_weak(inits[0])
        out = lax.convert_element_type(
            monoid(leaves[0], dims), core.get_aval(leaves[0]).dtype, weak_type=weak
        )
        if out_sharding is None:
            return out
        from ..sharding import reshard

        return reshard(out, out_sharding)

    from .general_reduce import bind_reduce

    return tree_unflatten(tree, bind_reduce(leaves, inits, tree, computation, dims))


# --- approx_top_k: JAX's primitive; on CPU JAX computes it exactly (recall 1), as the engine does --

approx_top_k_p = core.Primitive("approx_top_k", multiple_results=True)


@approx_top_k_p.def_impl
def _approx_top_k_impl(x, *, k, reduction_dimension, is_max_k, aggregate_to_topk, recall_target, **params):
    from .sorting import top_k_p

    axis = reduction_dimension % x.ndim
    if not aggregate_to_topk:  # (CPU keeps the best candidates in order: the top of a full sort)
        size_override = params["reduction_input_size_override"]
        k = _approx_output_size(x.shape[axis], x.ndim, k, recall_target, size_override)
    values, idx = core.impl_rules[top_k_p](x if is_max_k else -x, k=k, axis=axis)
    return [values if is_max_k else -values, idx]


def _approx_output_size(n, rank, k, recall_target, size_override):
    """How many candidates XLA's approximate top-k keeps along the reduction dimension when it does
    not aggregate them to ``k``: all ``n`` up to a tile (1024 for vectors, 128 otherwise); beyond, the
    dimension shrinks by a power of two chosen so that about ``recall_target`` of the true top ``k``
    survive (with W windows, a top element collides with probability ~ exp((1 - k) / W))."""
    tile = 1024 if rank == 1 else 128
    if n <= tile:
        return n
    if 0 <= size_override < n:
        raise ValueError(
            f"reduction_input_size_override: {size_override} should be greater equals to "
            f"operands[reduction_dim]: {n}"
        )
    logical = size_override if size_override >= 0 else n
    tiles = -(-n // tile)
    if k == 1:
        return tile
    recall = float(np.float32(recall_target))  # (XLA takes it as a C float)
    if recall == 1.0:
        return n
    if not 0.0 < recall < 1.0:
        raise ValueError("recall_target should range in (0,1]")
    windows = min(max(int((1.0 - k) / np.log(recall)), tile), n)
    shrink = (logical // windows).bit_length() - 1
    if shrink <= 0:
        return n
    shrink = min(shrink, (n // tile - 1).bit_length())  # (not below one window per tile)
    return -(-tiles // (1 << shrink)) * tile


@approx_top_k_p.def_abstract_eval
def _approx_top_k_abstract(x, *, k, reduction_dimension, aggregate_to_topk, recall_target, **params):
    size_override = params["reduction_input_size_override"]
    if k <= 0:
        raise ValueError(f"k must be positive, got {k}")
    if x.ndim == 0:
        raise TypeError(f"approx_top_k operand must have >= 1 dimension, got {x.shape}")
    shape = list(x.shape)
    if shape[reduction_dimension] < k:
        raise ValueError(
            f"k must be smaller than the size of reduction_dim {shape[reduction_dimension]}, got {k}"
        )
    if np.dtype(x.dtype).kind != "f":
        raise ValueError("operand must be a floating type")
    if aggregate_to_topk:
        shape[reduction_dimension] = k
    else:
        n = shape[reduction_dimension]
        shape[reduction_dimension] = _approx_output_size(n, x.ndim, k, recall_target, size_override)
    return [x.update(shape=tuple(shape)), core.ShapedArray(tuple(shape), np.int32, False)]


def _approx_top_k_jvp(primals, tangents, **params):
    from .. import ad
    from ..numpy import take_along_axis

    values, idx = approx_top_k_p.bind(primals[0], **params)
    axis = params["reduction_dimension"] % core.get_aval(idx).ndim
    t = take_along_axis(ad.instantiate_zeros(tangents[0]), idx, axis)
    return [values, idx], [t, ad.Zero(ad.tangent_aval(core.get_aval(idx)))]


def _approx_top_k_batch(size, vals, dims, *, reduction_dimension, **params):
    x, d = vals[0], dims[0]
    dim_map = [i for i in range(core.get_aval(x).ndim) if i != d]
    return approx_top_k_p.bind(x, reduction_dimension=dim_map[reduction_dimension], **params), [d, d]


def _register_approx_top_k():
    from .. import ad, batching

    ad.jvp_rules[approx_top_k_p] = _approx_top_k_jvp
    batching.batch_rules[approx_top_k_p] = _approx_top_k_batch


_register_approx_top_k()


def _approx_top_k(operand, k, reduction_dimension, recall_target, is_max_k, size_override, aggregate):
    return approx_top_k_p.bind(
        operand,
        k=k,
        reduction_dimension=reduction_dimension,
        recall_target=recall_target,
        is_max_k=is_max_k,
        reduction_input_size_override=size_override,
        aggregate_to_topk=aggregate,
    )


def approx_max_k(
    operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
    reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
):  # fmt: skip
    """The ``k`` largest values along ``reduction_dimension`` and their indices. On CPU JAX computes
    them exactly (the recall target is met with recall 1); so does the engine.

    >>> approx_max_k(jnp.array([1.0, 5.0, 3.0]), 2)
    [Array([5., 3.], dtype=float32), Array([1, 2], dtype=int32)]
    """
    out = _approx_top_k(
        operand, k, reduction_dimension, recall_target, True, reduction_input_size_override, aggregate_to_topk
    )
    return list(out)  # (a list, as JAX returns)


def approx_min_k(
    operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
    reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
):  # fmt: skip
    """The ``k`` smallest values along ``reduction_dimension`` and their indices (exact, as JAX's
    CPU fallback).

    >>> approx_min_k(jnp.array([1.0, 5.0, 3.0]), 2)
    [Array([1., 3.], dtype=float32), Array([0, 2], dtype=int32)]
    """
    out = _approx_top_k(
        operand,
        k,
        reduction_dimension,
        recall_target,
        False,
        reduction_input_size_override,
        aggregate_to_topk,
    )
    return list(out)


def conv_general_dilated_patches(
    lhs, filter_shape, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
    dimension_numbers=None, precision=None, preferred_element_type=None,
):  # fmt: skip
    """The patches ``conv_general_dilated`` sees: a depthwise convolution with a one-hot kernel, so
    output channel ``c * prod(filter_shape) + k`` is input channel ``c`` at window offset ``k``.

    >>> conv_general_dilated_patches(jnp.arange(4.).reshape(1, 1, 4), (2,), (1,), "VALID")[0]
    Array([[0., 1., 2.],
           [1., 2., 3.]], dtype=float32)
    """
    from .convolution import conv_dimension_numbers, conv_general_dilated
    from .structural import convert_element_type_p

    lhs = lhs if isinstance(lhs, (core.Array, core.Tracer)) else core.Array(np.asarray(lhs))
    filter_shape = tuple(filter_shape)
    dnums = conv_dimension_numbers(lhs.shape, (1, 1) + filter_shape, dimension_numbers)
    lhs_spec, rhs_spec, _ = dnums
    spatial_size = math.prod(filter_shape)
    n_channels = lhs.shape[lhs_spec[1]]
    # (JAX's one-hot kernel: an eye of iotas, broadcast over the channels)
    shape = (spatial_size, spatial_size)
    eye = lax.eq(
        lax.add(lax.broadcasted_iota(np.int32, shape, 0), np.int32(0)),
        lax.broadcasted_iota(np.int32, shape, 1),
    )
    rhs = convert_element_type_p.bind(eye, new_dtype=np.dtype(lhs.dtype), weak_type=False, sharding=None)
    rhs = lax.broadcast_in_dim(rhs, (n_channels, *shape), (1, 2))
    rhs = lax.reshape(rhs, (n_channels * spatial_size, 1, *filter_shape))
    perm = [i for i in range(rhs.ndim) if i not in (0, 1)]
    for d, s in sorted(zip((rhs_spec[0], rhs_spec[1]), (0, 1))):
        perm.insert(d, s)
    rhs = lax.transpose(rhs, perm)
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dnums,
        precision=None if precision is None else (precision, lax.Precision.DEFAULT),
        feature_group_count=n_channels,
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_local(
    lhs, rhs, window_strides, padding, filter_shape, lhs_dilation=None, rhs_dilation=None,
    dimension_numbers=None, precision=None,
):  # fmt: skip
    """An unshared convolution (a locally connected layer): each output location has its own
    kernel, ``rhs``'s spatial dimensions being the output's and its ``I`` dimension the input
    channels times the receptive window. As JAX: the patches, contracted with ``rhs``.

    >>> x = jnp.arange(4.).reshape(1, 1, 4)
    >>> conv_general_dilated_local(x, jnp.array([[[1.], [10.]], [[1.], [10.]], [[2.], [0.]]]).T, (1,), "VALID", (2,))
    Array([[[10., 21.,  4.]]], dtype=float32)
    """
    from .convolution import conv_dimension_numbers
    from .dot_general import canonicalize_precision

    lhs = lhs if isinstance(lhs, (core.Array, core.Tracer)) else core.Array(np.asarray(lhs))
    canonical = canonicalize_precision(precision)
    if canonical is not None and not (isinstance(canonical, tuple) and len(canonical) == 2):
        raise ValueError(f"Unsupported precision for conv_general_dilated_local: {precision}")
    patches = conv_general_dilated_patches(
        lhs, filter_shape, window_strides, padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
        dimension_numbers=dimension_numbers, precision=None if canonical is None else canonical[0],
    )  # fmt: skip
    _, rhs_spec, out_spec = conv_dimension_numbers(lhs.shape, (1, 1) + tuple(filter_shape), dimension_numbers)
    # The patches' spatial dimensions are batch dimensions of the product, in the patches' order.
    out_spatial, rhs_spatial = list(out_spec[2:]), list(rhs_spec[2:])
    rhs_batch = [rhs_spatial[i] for i in sorted(range(len(out_spatial)), key=lambda k: out_spatial[k])]
    dn = (([out_spec[1]], [rhs_spec[1]]), (sorted(out_spatial), rhs_batch))
    out = lax.dot_general(patches, rhs, dn, precision=precision)
    # (the product's batch and output channel, last, go to the output layout's places)
    nd = len(out.shape)
    perm = [i for i in range(nd) if i not in (nd - 2, nd - 1)]
    for d, s in sorted(zip((out_spec[0], out_spec[1]), (nd - 2, nd - 1))):
        perm.insert(d, s)
    return lax.transpose(out, perm)
