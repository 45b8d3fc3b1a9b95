"""Reductions: sums, max/min, products, logical and/or/xor, argmax/argmin, and the cumulative scans.

Derivatives of products and of cumulative max/min/prod follow JAX: they differentiate a
formulation built from differentiable pieces (a pairwise product tree, a prefix scan of
slices), so zeros and ties need no special cases and higher orders come for free.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import ad, batching, core, dims, staging
from ..core import Primitive, ShapedArray
from ..narrow_dtypes import kind as dtype_kind
from . import sum_order, sum_order_ynn


def _lax():
    from . import api

    return api


# --- reductions --------------------------------------------------------------------------------


def _reduce_abstract(x, *, axes, **_):
    for a in axes:
        if not 0 <= a < x.ndim:
            raise ValueError(f"reduction axis {a} out of bounds for array of rank {x.ndim}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype, x.weak_type)


def _reduce_batch(prim):
    def rule(size, vals, dims, *, axes, **params):
        x, d = vals[0], dims[0]
        new_axes = tuple(np.int64(a) for a in _shift_axes(axes, d))  # numpy ints, as JAX's rule makes
        out_dim = d - sum(1 for a in new_axes if a < d)
        return prim.bind(x, axes=new_axes, **params), out_dim

    return rule


def _shift_axes(axes, bdim):
    return [a if a < bdim else a + 1 for a in axes]


def accumulating(np_fn):
    """A numpy sum/product that accumulates floats below 64 bits in float64 and rounds once, as
    the compiled kernels do, where numpy would add one row at a time: along a non-contiguous axis
    (a float32 mean over 10000 rows was off by ~1e-5 relative, and differed from jit's result).
    Along trailing axes of a C-contiguous array numpy sums pairwise, accurately and 3x faster."""

    def impl(x, *, axes, out_sharding=None):  # (reduce_sum's out_sharding: JAX's param)
        trailing = sorted(axes) == list(range(x.ndim - len(axes), x.ndim)) and x.flags.c_contiguous
        if (
            dtype_kind(x.dtype) in "fc"
            and x.dtype.itemsize < (8 if dtype_kind(x.dtype) == "f" else 16)
            and not trailing
        ):
            wide = np.float64 if dtype_kind(x.dtype) == "f" else np.complex128
            return np.asarray(np_fn(x, axis=tuple(axes), dtype=wide)).astype(x.dtype)
        return np.asarray(np_fn(x, axis=tuple(axes), dtype=x.dtype))

    return impl


reduce_sum_p = Primitive("reduce_sum")
# (the ufuncs' methods, not np.sum and the like: numpy's wrappers would be named as an overflow
# warning's source, past float_warnings' filter, where XLA computes the same inf silently)
_accurate_sum = accumulating(np.add.reduce)


@reduce_sum_p.def_impl
def _reduce_sum_impl(x, *, axes, out_sharding=None):
    x = np.asarray(x)
    kept = [n for d, n in enumerate(x.shape) if d not in {a % x.ndim for a in axes}]
    if math.prod(kept) == x.size:  # (over dimensions of length 1 only: XLA reshapes, -0. kept)
        return x.reshape(kept).copy()
    # float32 (and large float64) in XLA's order, its bits rather than a more accurate sum
    if x.dtype.char == "f" and x.size < sum_order.TREE_LIMIT:  # (the common case: no dtype ==)
        return sum_order.sum_f32(x, tuple(axes))
    if sum_order.xla_ordered(x.dtype, x.size):
        if x.size < sum_order.TREE_LIMIT:
            return sum_order.sum_f32(x, tuple(axes))
        return sum_order_ynn.sum_f32(x, tuple(axes))
    return _accurate_sum(x, axes=axes)


reduce_sum_p.def_abstract_eval(_reduce_abstract)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding=None):
    from .structural import broadcast_in_dim_p

    shape = x.aval.shape
    if not axes:
        return [ct]
    # JAX's arithmetic, numpy's integers included (its params print them: np.int64(0)).
    kept = tuple(np.delete(np.arange(len(shape)), axes))
    # (laid out as the operand, when its type says a layout: JAX's out_sharding=operand.aval.sharding)
    sharding = getattr(x.aval, "sharding", None)
    return [broadcast_in_dim_p.bind(ct, shape=tuple(shape), broadcast_dimensions=kept, sharding=sharding)]


ad.deflinear(reduce_sum_p, _reduce_sum_transpose)
batching.batch_rules[reduce_sum_p] = _reduce_batch(reduce_sum_p)


def _reduce_chooser_jvp(prim):
    # The derivative flows to the elements that attain the extreme, shared equally among ties.
    def rule(primals, tangents, *, axes):
        (x,) = primals
        (g,) = tangents
        lax = _lax()
        ans = prim.bind(x, axes=axes)
        shape = core.get_aval(x).shape
        # JAX's formulation: ans reshaped with size-1 reduced axes, compared by broadcasting.
        ones = tuple(1 if i in axes else d for i, d in enumerate(shape))
        location = lax.convert_element_type(lax.eq(x, lax.reshape(ans, ones)), g.dtype)
        # (bound with the params' axes as they are: a batched reduction's print as np.int64, as JAX's)
        counts = reduce_sum_p.bind(location, axes=tuple(axes), out_sharding=None)
        return ans, lax.div(
            reduce_sum_p.bind(lax.mul(g, location), axes=tuple(axes), out_sharding=None), counts
        )

    return rule


def _complex_fold(x, axes, ident, greater):
    """A complex max/min reduction as XLA runs JAX's: a left fold of its pairwise pick (which is
    order-dependent only where a part is NaN; numpy's max would make any NaN win)."""
    from .complex_numbers import complex_picks_x

    kept = [i for i in range(x.ndim) if i not in axes]
    rows = np.transpose(x, kept + list(axes)).reshape([x.shape[i] for i in kept] + [-1])
    acc = np.full(rows.shape[:-1], ident, x.dtype)
    for j in range(rows.shape[-1]):
        acc = np.where(complex_picks_x(acc, rows[..., j], greater), acc, rows[..., j])
    return acc


def _reduce_identity_impl(np_fn, largest: bool):
    # Reducing an empty axis gives the identity (-inf for max, +inf for min), as XLA does.
    def impl(x, *, axes, out_sharding=None):  # (reduce_sum's out_sharding: JAX's param)
        if dtype_kind(x.dtype) == "f":
            ident = np.inf if largest else -np.inf
        elif dtype_kind(x.dtype) == "c":  # JAX's pairwise lexicographic pick, folded from -inf/inf
            return _complex_fold(x, tuple(axes), complex(np.inf if largest else -np.inf, 0), not largest)
        elif dtype_kind(x.dtype) == "b":
            ident = bool(largest)
        else:
            info = np.iinfo(x.dtype)
            ident = info.max if largest else info.min
        return np.asarray(np_fn(x, axis=tuple(axes), initial=ident)).astype(x.dtype, copy=False)

    return impl


reduce_max_p = Primitive("reduce_max")
reduce_max_p.def_impl(_reduce_identity_impl(np.maximum.reduce, largest=False))
reduce_max_p.def_abstract_eval(_reduce_abstract)
ad.jvp_rules[reduce_max_p] = _reduce_chooser_jvp(reduce_max_p)
batching.batch_rules[reduce_max_p] = _reduce_batch(reduce_max_p)

reduce_min_p = Primitive("reduce_min")
reduce_min_p.def_impl(_reduce_identity_impl(np.minimum.reduce, largest=True))
reduce_min_p.def_abstract_eval(_reduce_abstract)
ad.jvp_rules[reduce_min_p] = _reduce_chooser_jvp(reduce_min_p)
batching.batch_rules[reduce_min_p] = _reduce_batch(reduce_min_p)


def _axes(x, axes, out_of_range=ValueError):
    """``axes`` in the order given (JAX's params keep it), checked as JAX's shape rule checks them: a repeated, negative or too large
    axis is a ValueError (not wrapped: lax takes no negative axes). ``out_of_range``: the class
    JAX's logical reductions raise for a too large one (IndexError, numpy's)."""
    aval = core.get_aval(x)
    axes = tuple(int(a) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    for a in axes:
        if a >= aval.ndim and out_of_range is IndexError:
            raise IndexError(f"index {a} is out of bounds for axis 0 with size {aval.ndim}")
        if not 0 <= a < aval.ndim:
            raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for {aval}.")
    return axes


def _jvp_of(fn, primals, tangents):
    """The JVP of ``fn`` (a function of arrays built from primitives) at ``primals``."""
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    outs, touts = ad.jvp_flat(lambda *xs: [fn(*xs)], primals, tangents)
    return outs[0], touts[0]


# --- reduce_prod -------------------------------------------------------------------------------

reduce_prod_p = Primitive("reduce_prod")
_accurate_prod = accumulating(np.multiply.reduce)


@reduce_prod_p.def_impl
def _reduce_prod_impl(x, *, axes):
    # float32 in XLA's order (its windows of 32, then in order or in vector lanes), as for a sum
    if x.dtype == np.float32 and 0 < x.size < sum_order.TREE_LIMIT:
        return sum_order.prod_f32(x, tuple(axes))
    return _accurate_prod(x, axes=axes)


reduce_prod_p.def_abstract_eval(_reduce_abstract)
batching.batch_rules[reduce_prod_p] = _reduce_batch(reduce_prod_p)


def _reduce_prod_jvp(primals, tangents, *, axes):
    # JAX's _reduce_jvp: the reduced axes moved to the front and flattened, then the product as a
    # tree of pairwise multiplications of halves (the shorter half padded with 1), differentiated
    # as a whole: exact where entries are 0, and no reduce_prod in the program (as in JAX's).
    from .elementwise import _const

    lax = _lax()
    (x,), (t,) = primals, [ad.instantiate_zeros(t) for t in tangents]
    shape = core.get_aval(x).shape
    non_axes = [i for i in range(len(shape)) if i not in axes]
    n = dims.dim_product(tuple(shape[a] for a in axes))
    new_shape = (n, *[shape[i] for i in non_axes])
    permutation = (*axes, *non_axes)
    x, t = lax.reshape(x, new_shape, permutation), lax.reshape(t, new_shape, permutation)
    one = _const(primals[0], 1)

    def tree(x):
        while x.shape[0] > 1:
            n = x.shape[0]
            n1 = (n + 1) // 2
            x1, x2 = lax.slice_in_dim(x, 0, n1), lax.slice_in_dim(x, n1, None)
            if n - n1 != n1:
                x2 = lax.pad(x2, one, [(0, 1, 0)] + [(0, 0, 0)] * (x.ndim - 1))
            x = lax.mul(x1, x2)
        if x.shape[0] == 0:
            return lax.full(new_shape[1:], one)
        return lax.squeeze(x, (0,))

    outs, touts = ad.jvp_flat(lambda x: [tree(x)], [x], [t])
    return outs[0], touts[0]


ad.jvp_rules[reduce_prod_p] = _reduce_prod_jvp


def reduce_prod(operand, axes):
    """Product over ``axes``.

    >>> reduce_prod(jnp.array([[1., 2.], [3., 4.]]), (1,))
    Array([ 2., 12.], dtype=float32)
    """
    return reduce_prod_p.bind(operand, axes=_axes(operand, axes))


# --- logical reductions --------------------------------------------------------------------------


def _logical_reduce(name, np_fn, bool_fn):
    p = Primitive(name)

    def impl(x, *, axes, out_sharding=None):  # (reduce_sum's out_sharding: JAX's param)
        if x.dtype == np.bool_:
            return np.asarray(bool_fn(x, axis=tuple(axes)))
        return np.asarray(np_fn.reduce(x, axis=tuple(axes))).astype(x.dtype)

    def abstract(x, *, axes):
        if dtype_kind(x.dtype) not in "biu":
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}; it takes bools or integers.")
        return _reduce_abstract(x, axes=axes)

    p.def_impl(impl)
    p.def_abstract_eval(abstract)
    ad.defzero(p)
    batching.batch_rules[p] = _reduce_batch(p)
    return p


reduce_and_p = _logical_reduce("reduce_and", np.bitwise_and, np.all)
reduce_or_p = _logical_reduce("reduce_or", np.bitwise_or, np.any)
reduce_xor_p = _logical_reduce(
    "reduce_xor", np.bitwise_xor, lambda x, axis: np.logical_xor.reduce(x, axis=axis)
)


def reduce_and(operand, axes):
    """Logical (bitwise, for integers) and over ``axes``."""
    return reduce_and_p.bind(operand, axes=_axes(operand, axes, IndexError))


def reduce_or(operand, axes):
    """Logical (bitwise, for integers) or over ``axes``."""
    return reduce_or_p.bind(operand, axes=_axes(operand, axes, IndexError))


def reduce_xor(operand, axes):
    """Logical (bitwise, for integers) xor over ``axes``."""
    return reduce_xor_p.bind(operand, axes=_axes(operand, axes, IndexError))


# --- argmax / argmin -----------------------------------------------------------------------------


def refuse_complex(name, dtype):
    """JAX stages argmax / argmin of a complex array and refuses it where it computes: its lowering's
    comparator (gt for argmax, lt for argmin) takes no complex operand. The engine refuses it at the
    same point, eagerly or in a jit's lowering, with JAX's words; typed keys likewise (no order)."""
    key = core.extended_dtype_of(dtype)
    if key is not None:
        raise ValueError(f"Unsupported dtype for {name[3:]}: {key}")
    if dtype_kind(np.dtype(dtype)) == "c":
        op = "gt" if name == "argmax" else "lt"
        raise TypeError(
            f"{op} does not accept dtype {np.dtype(dtype).name} at position 0. Accepted dtypes at "
            "position 0 are subtypes of integer, floating, bool."
        )


def _arg_reduce(name, np_fn):
    p = Primitive(name)

    def impl(x, *, axes, index_dtype):
        refuse_complex(name, x.dtype)
        return np.asarray(np_fn(x, axis=axes[0])).astype(index_dtype)  # NaN wins, first index on ties

    def abstract(x, *, axes, index_dtype):
        if len(axes) != 1 or not 0 <= axes[0] < x.ndim:
            raise ValueError(f"{name} needs one axis within the operand rank {x.ndim}, got {axes}")
        if x.shape[axes[0]] == 0:
            raise ValueError(f"{name} of an empty axis (shape {x.shape}, axis {axes[0]}) is undefined")
        if dtype_kind(np.dtype(index_dtype)) not in "iu":
            raise TypeError(f"{name} index_dtype must be an integer type, got {np.dtype(index_dtype).name}")
        return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i != axes[0]), index_dtype, False)

    p.def_impl(impl)
    p.def_abstract_eval(abstract)
    ad.defzero(p)
    batching.batch_rules[p] = _reduce_batch(p)
    return p


argmax_p = _arg_reduce("argmax", np.argmax)
argmin_p = _arg_reduce("argmin", np.argmin)
staging.record_plain_stagings(argmax_p, argmin_p)  # (JAX names their cached lowering's call after it)


def argmax(operand, axis: int, index_dtype):
    """Index of the largest element along ``axis`` (the first one on ties; NaN counts as largest)."""
    axis, shape = int(axis), core.get_aval(operand).shape
    if not 0 <= axis < len(shape):  # (JAX's words; no negative axis)
        raise ValueError(f"Invalid axis {axis} for operand shape {shape}")
    return argmax_p.bind(operand, axes=(axis,), index_dtype=core.canonical_dtype(index_dtype))


def argmin(operand, axis: int, index_dtype):
    """Index of the smallest element along ``axis`` (the first one on ties; NaN counts as smallest)."""
    axis, shape = int(axis), core.get_aval(operand).shape
    if not 0 <= axis < len(shape):  # (JAX's words; no negative axis)
        raise ValueError(f"Invalid axis {axis} for operand shape {shape}")
    return argmin_p.bind(operand, axes=(axis,), index_dtype=core.canonical_dtype(index_dtype))


# --- cumulative reductions ---------------------------------------------------------------------


def _cumulative_impl(np_fn):
    def impl(x, *, axis, reverse):
        if np_fn in _XLA_SCANS and x.dtype == np.float32 and x.shape[axis]:
            return xla_scan(x, axis, reverse, *_XLA_SCANS[np_fn])
        if reverse:
            x = np.flip(x, axis)
        out = np_fn(x, axis=axis) if x.shape[axis] else np.array(x)
        out = np.asarray(out).astype(x.dtype, copy=False)
        return np.flip(out, axis) if reverse else out

    return impl


_SCAN_BLOCK = 16
# The float32 scans whose rounding depends on their order: numpy's function -> (XLA's combine,
# the reduce-window's init value, which also pads the last block); cumlogsumexp's added below.
_XLA_SCANS = {np.add.accumulate: (np.add, 0.0), np.multiply.accumulate: (np.multiply, 1.0)}


def xla_cumsum(x: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    """float32 ``cumsum`` summed as XLA's CPU backend sums it (JAX 0.10.2): a reduce-window whose
    windows each sum left to right from +0 (so a reversed cumsum is not a flipped one, and -0.
    sums to +0.), of at most 16 elements: longer scans are cut into blocks of 16 (zero-padded at
    the end), each block scanned so, and the scan of the blocks' totals added to the blocks after
    (before, reversed) them. Measured for lengths 3 to 1000, both directions."""
    return xla_scan(x, axis, reverse, np.add, 0.0)


def xla_scan(x: np.ndarray, axis: int, reverse: bool, combine, init: float) -> np.ndarray:
    """A float32 cumulative sum, product or logsumexp in XLA's order (``xla_cumsum``; a product's
    windows start from 1, its last block is padded with ones and the blocks' carries multiply in;
    a logsumexp's from -inf, its combine ``xla_logaddexp``)."""
    x = np.moveaxis(np.asarray(x, np.float32), axis, -1)
    return np.ascontiguousarray(np.moveaxis(_block_scan(x, reverse, combine, init), -1, axis))


def _block_scan(x: np.ndarray, reverse: bool, combine, init: float) -> np.ndarray:
    n = x.shape[-1]
    if n <= _SCAN_BLOCK:
        out = np.empty_like(x)
        with np.errstate(all="ignore"):
            if not reverse:
                acc = np.full(x.shape[:-1], init, np.float32)
                for i in range(n):
                    acc = out[..., i] = combine(acc, x[..., i])
            else:
                for i in range(n):  # (each window its own sum, from its first element on)
                    acc = np.full(x.shape[:-1], init, np.float32)
                    for k in range(i, n):
                        acc = combine(acc, x[..., k])
                    out[..., i] = acc
        return out
    m = -(-n // _SCAN_BLOCK)
    padded = np.full((*x.shape[:-1], m * _SCAN_BLOCK), init, np.float32)
    padded[..., :n] = x
    inner = _block_scan(padded.reshape(*x.shape[:-1], m, _SCAN_BLOCK), reverse, combine, init)
    carry = _block_scan(inner[..., 0] if reverse else inner[..., -1], reverse, combine, init)
    with np.errstate(all="ignore"):
        if reverse:
            inner[..., :-1, :] = combine(inner[..., :-1, :], carry[..., 1:, None])
        else:
            inner[..., 1:, :] = combine(inner[..., 1:, :], carry[..., :-1, None])
    return inner.reshape(*x.shape[:-1], m * _SCAN_BLOCK)[..., :n]


def _cumulative_abstract(name, x, *, axis, reverse):
    if axis < 0:
        raise ValueError("XLA operations do not allow negative axes")
    if axis >= x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
    if dtype_kind(x.dtype) not in "iufc":
        raise TypeError(
            f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes of number."
        )
    return x


def _prefix_scan(combine, x, axis, reverse):
    """Inclusive scan by doubling: after step k each element combines the 2**k before it.
    Built of slices and concatenations, so its JVP is the scan's JVP (JAX differentiates its
    associative_scan the same way)."""
    lax = _lax()
    if reverse:
        x = lax.rev(x, (axis,))
    n = core.get_aval(x).shape[axis]
    step = 1
    while step < n:
        head = lax.slice_in_dim(x, 0, step, axis=axis)
        tail = combine(lax.slice_in_dim(x, 0, n - step, axis=axis), lax.slice_in_dim(x, step, n, axis=axis))
        x = lax.concatenate([head, tail], axis)
        step *= 2
    return lax.rev(x, (axis,)) if reverse else x


def _cumulative(name, np_fn, combine_name):
    p = Primitive(name)
    p.def_impl(_cumulative_impl(np_fn))
    p.def_abstract_eval(functools.partial(_cumulative_abstract, name))
    core.eager_checked.add(p)  # (numpy's cumsum of bools counts in integers)
    batching.batch_rules[p] = lambda size, vals, dims, *, axis, reverse: (
        p.bind(vals[0], axis=axis + (axis >= dims[0]), reverse=reverse),
        dims[0],
    )
    if combine_name is not None:

        def jvp(primals, tangents, *, axis, reverse):
            # JAX's rule: the JVP of the parallel prefix scan (primal included), on every backend.
            from .associative_scan import associative_scan

            combine = getattr(_lax(), combine_name) if isinstance(combine_name, str) else combine_name()
            return _jvp_of(lambda x: associative_scan(combine, x, reverse, axis), primals, tangents)

        ad.jvp_rules[p] = jvp
    return p


cumsum_p = _cumulative("cumsum", np.add.accumulate, None)
cumprod_p = _cumulative("cumprod", np.multiply.accumulate, "mul")
cummax_p = _cumulative("cummax", np.maximum.accumulate, "max")
cummin_p = _cumulative("cummin", np.minimum.accumulate, "min")


def _np_cumlogsumexp(x, axis):
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(x, axis=axis)


def xla_logaddexp(a, b) -> np.ndarray:
    """float32 ``lax.logaddexp`` (JAX's formula: max + log1p(exp(-|a - b|)), a + b where the
    difference is NaN) with XLA's exp and log1p: the combine of cumlogsumexp's reduce-window."""
    from . import xla_f32

    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    with np.errstate(all="ignore"):
        d = a - b
        far = np.maximum(a, b) + xla_f32.log1p(xla_f32.exp(-np.abs(d)))
        return np.where(np.isnan(d), a + b, far).astype(np.float32)


_XLA_SCANS[_np_cumlogsumexp] = (xla_logaddexp, -np.inf)


def _logaddexp_custom_jvp():
    """JAX's lax.logaddexp, a custom_jvp (what its cumlogsumexp JVP scans with)."""
    from ..numpy._ufuncs import _logaddexp_custom_jvp as make

    return make()


cumlogsumexp_p = _cumulative("cumlogsumexp", _np_cumlogsumexp, _logaddexp_custom_jvp)
# cumsum is linear; its transpose sums the cotangent from the other end.
ad.deflinear(cumsum_p, lambda ct, x, *, axis, reverse: [cumsum_p.bind(ct, axis=axis, reverse=not reverse)])


def _cumulative_wrapper(p, doc):
    def wrapper(operand, axis: int = 0, reverse: bool = False):
        axis, ndim = int(axis), core.get_aval(operand).ndim
        # (a negative axis counts from the end, as for concatenate; JAX's shape rule refuses it)
        return p.bind(operand, axis=axis + ndim if -ndim <= axis < 0 else axis, reverse=bool(reverse))

    wrapper.__name__ = p.name
    wrapper.__doc__ = doc
    return wrapper


cumsum = _cumulative_wrapper(
    cumsum_p,
    """Cumulative sum along ``axis`` (from the end if ``reverse``).

>>> cumsum(jnp.array([1, 2, 3]))
Array([1, 3, 6], dtype=int32)
""",
)
cumprod = _cumulative_wrapper(cumprod_p, "Cumulative product along ``axis`` (from the end if ``reverse``).")
cummax = _cumulative_wrapper(cummax_p, "Cumulative maximum along ``axis`` (from the end if ``reverse``).")
cummin = _cumulative_wrapper(cummin_p, "Cumulative minimum along ``axis`` (from the end if ``reverse``).")
cumlogsumexp = _cumulative_wrapper(
    cumlogsumexp_p,
    """Cumulative ``log(sum(exp(x)))`` along ``axis`` (from the end if ``reverse``), without overflow.

>>> cumlogsumexp(jnp.log(jnp.array([1.0, 2.0, 3.0])))
Array([0.       , 1.0986123, 1.7917595], dtype=float32)
""",
)
