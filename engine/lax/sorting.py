"""sort (several operands ordered by the first ``num_keys``), top_k, and the total-order
comparisons (``eq_to``, ``le_to``, ``lt_to``) JAX's sort comparators bind.

Floats sort in XLA's total order: -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN, with every
NaN canonicalized to sort last and -0.0 held equal to 0.0, as JAX's comparator does. The JVP permutes tangents with the permutation the sort applied,
found by sorting an iota alongside (as JAX does).
"""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core, dims
from ..core import Primitive
from ..errors import invalid_shape_error
from ..narrow_dtypes import kind as dtype_kind
from . import elementwise as _ew

_ORDERED = (_ew._FLOAT, _ew._INT, _ew._BOOL)


def _lax():
    from . import api

    return api


def _total_order_key(x):
    """An integer key whose order is XLA's total order on floats (identity for other types)."""
    if dtype_kind(x.dtype) != "f":
        return x.astype(np.int8) if x.dtype == np.bool_ else x
    # canonical (positive) NaN, and -0.0 as 0.0: sort's comparator holds them equal (stable)
    x = np.where(np.isnan(x), np.array(np.nan, x.dtype), np.where(x == 0, np.zeros((), x.dtype), x))
    sint = np.dtype(f"i{x.dtype.itemsize}")
    bits = np.array(x, order="C").view(sint).astype(np.int64)
    # Negative floats order reversed by magnitude: flip their non-sign bits.
    return np.where(bits < 0, bits ^ np.int64(np.iinfo(sint).max), bits)


def _total_order_bits(x):
    """XLA's TOTALORDER key of each float (its bits, the negative ones' non-sign bits flipped), with
    no NaN canonicalization: -NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN by their bits."""
    sint = np.dtype(f"i{x.dtype.itemsize}")
    bits = np.array(x, order="C").view(sint)
    return np.where(bits < 0, bits ^ np.array(np.iinfo(sint).max, sint), bits)


def _total_order_compare(compare):
    def impl(x, y):
        kind = dtype_kind(x.dtype)
        if kind == "f":
            return compare(_total_order_bits(x), _total_order_bits(y))
        if kind == "c":  # (eq_to only: both parts' bits equal)
            parts = (np.real, np.imag)
            return np.logical_and(*(compare(_total_order_bits(f(x)), _total_order_bits(f(y))) for f in parts))
        return compare(x, y)

    return impl


# JAX's total-order comparisons, which its sort comparators (and searchsorted's scan) bind: floats
# compare in XLA's TOTALORDER (-0.0 < 0.0, NaNs at the ends) rather than IEEE's.
eq_to_p = _ew.binop("eq_to", _total_order_compare(np.equal), (_ew._ANY,), np.dtype("bool"))
le_to_p = _ew.binop("le_to", _total_order_compare(np.less_equal), _ORDERED, np.dtype("bool"))
lt_to_p = _ew.binop("lt_to", _total_order_compare(np.less), _ORDERED, np.dtype("bool"))
for _p in (eq_to_p, le_to_p, lt_to_p):
    ad.defzero(_p)


def _cn():
    from . import complex_numbers

    return complex_numbers


def _canonical_for_sort(x):
    """-0.0 as 0.0 and every NaN as NaN (JAX's ``_canonicalize_float_for_sort``): the total-order
    comparisons would otherwise tell them apart."""
    lax = _lax()
    zeroed = lax.select(lax.eq(x, lax.full_like(x, 0, shape=())), lax.full_like(x, 0), x)
    return lax.select(lax.ne(x, x), lax.full_like(zeroed, np.nan), zeroed)


def _sort_keys(x):
    kind = dtype_kind(x.dtype)
    if kind == "c":  # (real, imag) lexicographically, as numpy orders complex numbers
        return [_canonical_for_sort(_cn().real(x)), _canonical_for_sort(_cn().imag(x))]
    return [_canonical_for_sort(x)] if kind == "f" else [x]


def sort_less(x, y, or_equal: bool = False):
    """``x < y`` (``x <= y`` with ``or_equal``) in the order sort puts values in: JAX's sort
    comparators (``_sort_lt_comparator`` / ``_sort_le_comparator``), which searchsorted binds."""
    lax = _lax()
    p = None
    for xk, yk in zip(_sort_keys(x)[::-1], _sort_keys(y)[::-1]):
        if p is None:
            p = (le_to_p if or_equal else lt_to_p).bind(xk, yk)
        else:
            p = lax.bitwise_or(lt_to_p.bind(xk, yk), lax.bitwise_and(eq_to_p.bind(xk, yk), p))
    return p


def _sort_permutation(keys, dimension):
    # a complex key is its real then its imaginary part, each in the total order (numpy's own
    # complex order would put 0+nanj after 4+0j)
    keys = [part for k in keys for part in ((k.real, k.imag) if dtype_kind(k.dtype) == "c" else (k,))]
    keys = [np.moveaxis(_total_order_key(k), dimension, -1) for k in keys]
    return np.lexsort(keys[::-1], axis=-1)  # lexsort's last key is primary; it is stable


sort_p = Primitive("sort", multiple_results=True)
sort_p.results_vary_as_operands = True


def _refuse_keys(keys) -> None:
    """Typed PRNG keys have no order: JAX's comparator refuses them when the sort runs (a trace
    stages it)."""
    for k in keys:
        dtype = core.extended_dtype_of(k.dtype)
        if dtype is not None:
            raise TypeError(
                f"lt_to does not accept dtype {dtype} at position 0. Accepted dtypes at position 0 "
                "are subtypes of integer, floating, bool."
            )


@sort_p.def_impl
def _sort_impl(*operands, dimension, is_stable, num_keys):
    _refuse_keys(operands[:num_keys])
    perm = _sort_permutation(operands[:num_keys], dimension)
    return [
        np.moveaxis(np.take_along_axis(np.moveaxis(x, dimension, -1), perm, axis=-1), -1, dimension)
        for x in operands
    ]


@sort_p.def_abstract_eval
def _sort_abstract(*operands, dimension, is_stable, num_keys):
    shape = operands[0].shape
    if any(x.shape != shape for x in operands):
        raise TypeError(
            f"Arguments to sort must have equal shapes, got: {' '.join(str(x.shape) for x in operands)}"
        )
    if not 0 <= dimension < len(shape):
        raise ValueError(f"sort dimension {dimension} out of bounds for shape {shape}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(
            f"sort num_keys={num_keys} must be between 1 and the number of operands ({len(operands)})"
        )
    return list(operands)


def take_along_axis(x, indices, axis, *, as_top_k=False, expanded=False):
    """``x[..., indices[...], ...]`` along ``axis``, for ``indices`` shaped like ``x`` except
    along ``axis``: a gather whose other dimensions are batching dimensions. ``as_top_k``: the
    indices get their trailing 1 by a reshape and the batching dimensions are Python ints, as in
    JAX's top_k JVP (sort's JVP expands the dims and numbers them with numpy integers);
    ``expanded``: the indices have their trailing 1 already (one expansion for several gathers)."""
    from .slicing import GatherDimensionNumbers, GatherScatterMode, gather

    lax = _lax()
    ndim = core.get_aval(x).ndim
    others = tuple(np.delete(np.arange(ndim, dtype=np.int64), axis))  # (JAX's numpy integers)
    if as_top_k:
        others = tuple(int(i) for i in others)
        indices = lax.reshape(indices, core.get_aval(indices).shape + (1,))
    elif not expanded:
        indices = lax.expand_dims(indices, (ndim,))
    dnums = GatherDimensionNumbers(
        offset_dims=(),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
        operand_batching_dims=others,
        start_indices_batching_dims=others,
    )
    return gather(
        x,
        indices,
        dnums,
        (1,) * ndim,  # (1 along an empty dimension too, as JAX's: no index, no slice)
        mode=GatherScatterMode.PROMISE_IN_BOUNDS,
    )


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    lax = _lax()
    shape = core.get_aval(primals[0]).shape
    # JAX's index dtype (int_dtype_for_shape, unsigned): uint32 unless an axis needs 64 bits.
    index_dtype = np.dtype(np.uint64 if any(d > np.iinfo(np.uint32).max for d in shape) else np.uint32)
    iota = lax.broadcasted_iota(index_dtype, shape, dimension)
    *outs, perm = sort_p.bind(*primals, iota, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    idx = lax.expand_dims(perm, (len(shape),))  # (once, as JAX's: every tangent's gather reads it)
    touts = [t if type(t) is ad.Zero else take_along_axis(t, idx, dimension, expanded=True) for t in tangents]
    return outs, touts


def _sort_batch(size, vals, dims, *, dimension, is_stable, num_keys):
    # As JAX batches it: every operand takes the first batched operand's batch axis (unbatched
    # ones are broadcast to its shape), and the sort dimension shifts past it.
    from . import api as lax_api

    proto, bdim = next((x, d) for x, d in zip(vals, dims) if d is not batching.not_mapped)
    shape = core.get_aval(proto).shape
    xs = []
    for x, d in zip(vals, dims):
        if d is batching.not_mapped:
            xs.append(lax_api.broadcast_in_dim(x, shape, [i for i in range(len(shape)) if i != bdim]))
        else:
            xs.append(batching.moveaxis(x, d, bdim))
    new_dimension = dimension + (bdim <= dimension)
    outs = sort_p.bind(*xs, dimension=new_dimension, is_stable=is_stable, num_keys=num_keys)
    return outs, [bdim] * len(outs)


ad.jvp_rules[sort_p] = _sort_jvp
batching.batch_rules[sort_p] = _sort_batch


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sort along ``dimension``. Given a sequence of arrays, sorts all of them by the first
    ``num_keys`` (lexicographically) and returns a tuple.

    >>> sort(jnp.array([3., 1., 2.]))
    Array([1., 2., 3.], dtype=float32)
    """
    if isinstance(operand, (list, tuple)):
        if not operand:
            raise TypeError("sort requires at least one operand")
        dimension = dims.canonicalize_axis(dimension, core.get_aval(operand[0]).ndim)
        out = sort_p.bind(*operand, dimension=dimension, is_stable=bool(is_stable), num_keys=int(num_keys))
        return tuple(out)
    dimension = dims.canonicalize_axis(dimension, core.get_aval(operand).ndim)
    return sort_p.bind(operand, dimension=dimension, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """Sort ``keys`` along ``dimension`` and ``values`` in the same order."""
    k, v = sort((keys, values), dimension, is_stable, 1)
    return k, v


# --- top_k -------------------------------------------------------------------------------------

top_k_p = Primitive("top_k", multiple_results=True)
core.eager_checked.update((top_k_p, sort_p))


@top_k_p.def_impl
def _top_k_impl(x, *, k, axis):
    # Descending in XLA's total order, NaNs by their sign bit (-NaN last, -0.0 after 0.0); among
    # equal values the lower index comes first. ``~key`` reverses the order without overflowing
    # (a negated int64 key of -NaN, or a uint64 past 2**63 cast to int64, would wrap).
    x = np.moveaxis(x, axis, -1)
    if dtype_kind(x.dtype) == "f":
        key = _total_order_bits(x)
    else:
        key = x.astype(np.int8) if x.dtype == np.bool_ else x
    perm = np.argsort(~key, axis=-1, kind="stable")[..., :k]
    values = np.take_along_axis(x, perm, axis=-1)
    return [np.moveaxis(values, -1, axis), np.moveaxis(perm.astype(np.int32), -1, axis)]


@top_k_p.def_abstract_eval
def _top_k_abstract(x, *, k, axis):
    if dtype_kind(x.dtype) == "c":
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if x.ndim == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {x.shape}")
    if not 0 <= axis < x.ndim:
        raise ValueError(f"axis argument out of range: axis={axis} for operand.shape={x.shape}")
    if x.shape[axis] < k:
        raise ValueError(
            f"k argument to top_k must be no larger than size along axis; got k={k} with "
            f"shape={list(x.shape)} and axis={axis}"
        )
    shape = (*x.shape[:axis], k, *x.shape[axis + 1 :])
    return [x.update(shape=shape), core.ShapedArray(shape, np.int32, False)]


def _top_k_jvp(primals, tangents, *, k, axis):
    (x,) = primals
    values, idx = top_k_p.bind(x, k=k, axis=axis)
    # Along ``axis`` indices and operand differ in length (k vs n), which gather allows.
    t = take_along_axis(ad.instantiate_zeros(tangents[0]), idx, axis, as_top_k=True)
    return [values, idx], [t, ad.Zero(ad.tangent_aval(core.get_aval(idx)))]


def _top_k_batch(size, vals, dims, *, k, axis):
    x, d = vals[0], dims[0]
    return top_k_p.bind(x, k=k, axis=axis + 1 if d <= axis else axis), [d, d]


ad.jvp_rules[top_k_p] = _top_k_jvp
batching.batch_rules[top_k_p] = _top_k_batch


def top_k(operand, k: int, *, axis: int = -1):
    """The ``k`` largest entries along ``axis`` (the last by default) and their indices, largest
    first.

    >>> top_k(jnp.array([1., 4., 2.]), 2)
    [Array([4., 2.], dtype=float32), Array([1, 2], dtype=int32)]
    """
    try:
        k = dims.as_dim(k)
    except TypeError:  # (JAX canonicalizes [k] as a shape)
        raise invalid_shape_error([k]) from None
    if isinstance(k, int) and k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    ndim = core.get_aval(operand).ndim
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    # a list, as JAX's (the primitive's results as bound)
    return top_k_p.bind(operand, k=k, axis=axis % max(ndim, 1))
