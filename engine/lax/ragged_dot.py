"""``ragged_dot_general``: a contraction in which one lhs dimension is cut into consecutive groups
(``group_sizes``), each group contracted with its own slice of ``rhs``, with its rules. As JAX's
CPU lowering, the value is a masked dense contraction: the lhs (and, when the ragged dimension is
contracted, the rhs) gains a leading group axis holding, for group ``j``, only the rows
``start_j <= i < end_j`` of the ragged dimension; a row past the last group is in none (zero)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Sequence

import numpy as np

from .. import ad, batching, core
from ..core import Primitive, ShapedArray
from .dot_general import _dot_general_impl, _ranges_like, _remaining, canonicalize_precision, result_dtype

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general", "ragged_dot_general_p"]


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """A ragged contraction's dimensions: ``dot_dimension_numbers`` as ``dot_general``'s
    (``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``), the one lhs ragged
    dimension, and the rhs group dimension (one when the ragged dimension is a free one)."""

    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: tuple
    rhs_group_dimensions: tuple

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        # (stored as tuples, so the numbers are hashable params and print as JAX's)
        dn = tuple(tuple(tuple(side) for side in pair) for pair in dot_dimension_numbers)
        object.__setattr__(self, "dot_dimension_numbers", dn)
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


# lax.ragged_dot's: [m, k] rows in groups, [g, k, n] one matrix per group.
BASIC_DIMENSION_NUMBERS = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


class RaggedDotMode(enum.Enum):
    RAGGED_NONCONTRACTING = 1  # [b,m,k], [g,b,k,n], [b,g] -> [b,m,n]
    RAGGED_CONTRACTING = 2  # [b,m,k], [b,k,n], [b,g] -> [g,b,m,n]
    RAGGED_BATCH = 3  # [b,m,k], [b,k,n], [g] -> [b,m,n]


def mode_and_dim(lhs_ndim: int, dn: RaggedDotDimensionNumbers) -> tuple[RaggedDotMode, int]:
    (ragged,) = dn.lhs_ragged_dimensions
    (lc, _), (lb, _) = dn.dot_dimension_numbers
    free = _remaining(range(lhs_ndim), lc, lb)
    if ragged in free:
        return RaggedDotMode.RAGGED_NONCONTRACTING, ragged
    if ragged in lc:
        return RaggedDotMode.RAGGED_CONTRACTING, ragged
    if ragged in lb:
        return RaggedDotMode.RAGGED_BATCH, ragged
    raise TypeError(
        f"lhs_ragged_dim {ragged} not found in lhs_noncontracting {free}, "
        f"lhs_contracting {lc}, or lhs_batch {lb}."
    )


def prefix_dims(mode: RaggedDotMode, ndim: int, ragged: int, batch: Sequence[int], contract: Sequence[int]):
    """The operand's dimensions that ``group_sizes`` is indexed by before its group axis
    (``[b..., x..., g]``): the batch dimensions and those of the ragged dimension's kind outer to it."""
    batch, contract = list(batch), list(contract)
    if mode is RaggedDotMode.RAGGED_NONCONTRACTING:
        free = _remaining(range(ndim), contract, batch)
        return batch + free[: free.index(ragged)]
    if mode is RaggedDotMode.RAGGED_CONTRACTING:
        return batch + contract[: contract.index(ragged)]
    return batch[: batch.index(ragged)]


ragged_dot_general_p = Primitive("ragged_dot_general")


def _in_range(dim, ndim, what, arg):
    if dim < 0 or dim >= ndim:
        raise TypeError(
            f"ragged_dot_general requires {what} numbers to be nonnegative and less than the number of "
            f"axes of the {arg} value, got {dim} for {arg} of rank {ndim}."
        )


@ragged_dot_general_p.def_abstract_eval
def _ragged_dot_abstract(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers, **params):
    dn = ragged_dot_dimension_numbers
    if len(dn.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    _in_range(dn.lhs_ragged_dimensions[0], lhs.ndim, "lhs ragged dimension", "lhs")
    mode, ragged = mode_and_dim(lhs.ndim, dn)
    (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    if group_sizes.ndim == 0:
        raise TypeError("expected rank of group_sizes to be >=1.")
    if group_sizes.ndim != 1:
        want = tuple(lhs.shape[i] for i in prefix_dims(mode, lhs.ndim, ragged, lb, lc))
        want += (group_sizes.shape[-1],)
        if tuple(group_sizes.shape) != want:
            raise TypeError(f"expected group_sizes to have shape {want}, got {tuple(group_sizes.shape)}.")
    groups = group_sizes.shape[-1]
    group_dims = dn.rhs_group_dimensions
    if mode is not RaggedDotMode.RAGGED_NONCONTRACTING and group_dims:
        raise TypeError(
            "ragged_dot_general requires zero group dimensions in the rhs when lhs ragged dimension "
            "is contracting or batch."
        )
    if mode is RaggedDotMode.RAGGED_NONCONTRACTING:
        if len(group_dims) != 1:
            raise TypeError(
                "ragged_dot_general requires exactly one rhs group dimension when lhs ragged "
                "dimension is noncontracting."
            )
        _in_range(group_dims[0], rhs.ndim, "rhs group dimension", "rhs")
        if group_dims[0] in rb or group_dims[0] in rc:
            raise TypeError(
                "ragged_dot_general requires rhs group dimension numbers to be distinct from "
                "contracting and batch dimensions."
            )
        if rhs.shape[group_dims[0]] != groups:
            raise TypeError(
                f"expected rhs group dimension size to be {groups}, got {rhs.shape[group_dims[0]]}."
            )
    for kind, ls, rs in (("batch", lb, rb), ("contracting", lc, rc)):
        lshape, rshape = tuple(lhs.shape[i] for i in ls), tuple(rhs.shape[i] for i in rs)
        if lshape != rshape:
            which = (
                "contracting dimensions"
                if kind == "contracting"
                else "lhs batch dimensions and rhs batch dimensions"
            )
            raise TypeError(
                f"dot_general requires {which} to have the same shape, got {lshape} and {rshape}."
            )
    if not np.issubdtype(group_sizes.dtype, np.integer):
        raise TypeError("ragged_dot_general requires that group_sizes.dtype is subtype of np.integer.")
    shape = [lhs.shape[i] for i in lb]
    shape += [lhs.shape[i] for i in _remaining(range(lhs.ndim), lc, lb)]
    shape += [rhs.shape[i] for i in _remaining(range(rhs.ndim), rc, rb, group_dims)]
    if mode is RaggedDotMode.RAGGED_CONTRACTING:
        shape = [groups, *shape]
    dtype = result_dtype(lhs.dtype, rhs.dtype, params.get("preferred_element_type"))
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type)


def _group_masked(x, gs, ragged: int, prefix: Sequence[int]):
    """``x`` with a leading group axis: member ``j`` keeps the ragged dimension's entries of group
    ``j`` (of ``x``'s row given by its ``prefix`` dimensions, which ``gs`` is indexed by) and zeros."""
    ends = np.cumsum(gs, axis=-1, dtype=gs.dtype)
    starts = ends - gs
    shape = [1] * x.ndim
    for d in prefix:
        shape[d] = x.shape[d]
    # [prefix..., g] -> [g, x's axes with the prefix sizes in place and 1 elsewhere]
    starts, ends = (np.moveaxis(a, -1, 0).reshape([gs.shape[-1], *shape]) for a in (starts, ends))
    pos = np.arange(x.shape[ragged], dtype=gs.dtype).reshape(
        [1] + [-1 if d == ragged else 1 for d in range(x.ndim)]
    )
    mask = (starts <= pos) & (pos < ends)
    return np.where(mask, x[None], np.zeros((), x.dtype))


@ragged_dot_general_p.def_impl
def _ragged_dot_impl(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers, group_offset=None, **params):
    if group_offset is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    params.pop("out_sharding", None)
    dn = ragged_dot_dimension_numbers
    # (eager evaluation may skip abstract evaluation: its checks and messages first)
    _ragged_dot_abstract(
        *map(core.get_aval, (lhs, rhs, group_sizes)), ragged_dot_dimension_numbers=dn, **params
    )
    mode, ragged = mode_and_dim(lhs.ndim, dn)
    (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    l_prefix = prefix_dims(mode, lhs.ndim, ragged, lb, lc)
    gs = np.asarray(group_sizes)
    if gs.ndim == 1:
        gs = np.broadcast_to(gs, [*(lhs.shape[i] for i in l_prefix), gs.shape[0]])

    def up(dims):
        return tuple(d + 1 for d in dims)

    if mode is RaggedDotMode.RAGGED_NONCONTRACTING:
        dims = ((up(lc) + (0,), tuple(rc) + (dn.rhs_group_dimensions[0],)), (up(lb), tuple(rb)))
        return _dot_general_impl(
            _group_masked(lhs, gs, ragged, l_prefix), rhs, dimension_numbers=dims, **params
        )
    if mode is RaggedDotMode.RAGGED_CONTRACTING:
        r_ragged = rc[list(lc).index(ragged)]
        r_prefix = prefix_dims(mode, rhs.ndim, r_ragged, rb, rc)
        dims = ((up(lc), up(rc)), ((0,) + up(lb), (0,) + up(rb)))
        x, y = _group_masked(lhs, gs, ragged, l_prefix), _group_masked(rhs, gs, r_ragged, r_prefix)
        return _dot_general_impl(x, y, dimension_numbers=dims, **params)
    return _dot_general_impl(lhs, rhs, dimension_numbers=dn.dot_dimension_numbers, **params)


def ragged_dot_general(
    lhs,
    rhs,
    group_sizes,
    ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
    precision=None,
    preferred_element_type=None,
    group_offset=None,
    out_sharding=None,
):
    """A ``dot_general`` whose lhs ragged dimension is cut into groups of ``group_sizes`` (see the
    module's docstring for the three modes: the ragged dimension free, contracting or batch).

    >>> x, w = jnp.ones((3, 2)), jnp.stack([jnp.ones((2, 2)), 2 * jnp.ones((2, 2))])
    >>> dn = lax.RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])
    >>> lax.ragged_dot_general(x, w, jnp.array([1, 2]), dn)
    Array([[2., 2.],
           [4., 4.],
           [4., 4.]], dtype=float32)
    """
    if group_offset is not None:
        hash(group_offset)  # (a param: an array is refused as JAX's bind refuses it)
    pet = None if preferred_element_type is None else core.canonical_dtype(preferred_element_type)
    return ragged_dot_general_p.bind(
        lhs,
        rhs,
        group_sizes,
        ragged_dot_dimension_numbers=ragged_dot_dimension_numbers,
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
        group_offset=group_offset,
        out_sharding=out_sharding,
    )


def ragged_dot(
    lhs, rhs, group_sizes, precision=None, preferred_element_type=None, group_offset=None, out_sharding=None
):
    """Rows of ``lhs`` ``[m, k]`` in consecutive groups of ``group_sizes`` ``[g]``, each multiplied
    by its group's matrix of ``rhs`` ``[g, k, n]``: ``[m, n]`` (rows past the groups are zeros).

    >>> lax.ragged_dot(jnp.ones((3, 2)), jnp.arange(8.0).reshape(2, 2, 2), jnp.array([2, 1]))
    Array([[ 2.,  4.],
           [ 2.,  4.],
           [10., 12.]], dtype=float32)
    """
    return ragged_dot_general(
        lhs,
        rhs,
        group_sizes,
        BASIC_DIMENSION_NUMBERS,
        precision=canonicalize_precision(precision),
        preferred_element_type=preferred_element_type,
        group_offset=group_offset,
        out_sharding=out_sharding,
    )


def _ragged_dot_jvp(primals, tangents, **params):
    from .elementwise import full_like
    from .api import add

    if params["group_offset"] is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    x, y, gs = primals
    dx, dy, _ = tangents  # (group sizes are integers: no tangent)
    params = dict(params, group_offset=None, out_sharding=None)
    out = ragged_dot_general_p.bind(x, y, gs, **params)
    # (as JAX: a zero tangent side is a zeros array added, not skipped)
    dx_out = full_like(out, 0) if type(dx) is ad.Zero else ragged_dot_general_p.bind(dx, y, gs, **params)
    dy_out = full_like(out, 0) if type(dy) is ad.Zero else ragged_dot_general_p.bind(x, dy, gs, **params)
    return out, add(dx_out, dy_out)


def _ragged_dot_transpose(ct, x, y, gs, *, ragged_dot_dimension_numbers, **params):
    from .api import convert_element_type, transpose

    if params["group_offset"] is not None:
        raise NotImplementedError("Unimplemented group_offset support.")
    dn = ragged_dot_dimension_numbers
    (xc, yc), (xb, yb) = dn.dot_dimension_numbers
    x_ndim = x.aval.ndim if ad.is_undefined(x) else np.ndim(x)
    y_ndim = y.aval.ndim if ad.is_undefined(y) else np.ndim(y)
    x_kept = _remaining(range(x_ndim), xc, xb)
    y_group = dn.rhs_group_dimensions
    y_kept = _remaining(range(y_ndim), yc, yb, y_group)
    mode, ragged = mode_and_dim(x_ndim, dn)

    def grad(lhs, rhs, which, aval):
        if mode is not RaggedDotMode.RAGGED_NONCONTRACTING:
            raise NotImplementedError(f"Unimplemented {which} for ragged dot general in mode {mode.name}.")
        if which == "grad_x_dims":  # ct [b, x_kept, y_kept] against y over y_kept and its groups
            ans_batch, _, ans_y = _ranges_like(xb, x_kept, y_kept)
            dims = RaggedDotDimensionNumbers(
                ((ans_y, y_kept), (ans_batch, yb)), [len(xb) + x_kept.index(ragged)], y_group
            )
            unsorted = list(xb) + x_kept + list(np.take(xc, np.argsort(yc)))
        else:  # x against ct over x_kept: one result per group
            ans_batch, ans_x, _ = _ranges_like(xb, x_kept, y_kept)
            dims = RaggedDotDimensionNumbers(((x_kept, ans_x), (xb, ans_batch)), [ragged], [])
            unsorted = list(y_group) + list(yb) + list(np.take(yc, np.argsort(xc))) + y_kept
        out = ragged_dot_general_p.bind(lhs, rhs, gs, ragged_dot_dimension_numbers=dims, **params)
        out = transpose(out, tuple(int(a) for a in np.argsort(unsorted)))
        return out if out.dtype == aval.dtype else convert_element_type(out, aval.dtype)

    x_bar = None if ad.is_undefined(y) else grad(ct, y, "grad_x_dims", x.aval)
    y_bar = None if ad.is_undefined(x) else grad(x, ct, "grad_y_dims", y.aval)
    return [x_bar, y_bar, None]


def _bump(dims, b):
    # (numpy integers, as JAX's rule leaves them in the batched numbers it prints)
    return tuple(np.add(dims, np.greater_equal(dims, b)))


def _ragged_dot_batch(size, vals, dims, *, ragged_dot_dimension_numbers, **params):
    if any(d != 0 for d in dims):  # (JAX's rule batches only leading axes, group sizes included)
        raise NotImplementedError("ragged_dot vmap over any dim but 0 - NYI")
    x, y, gs = vals
    dn = ragged_dot_dimension_numbers
    (xc, yc), (xb, yb) = dn.dot_dimension_numbers
    new = RaggedDotDimensionNumbers(
        ((_bump(xc, 0), _bump(yc, 0)), ((0, *_bump(xb, 0)), (0, *_bump(yb, 0)))),
        _bump(dn.lhs_ragged_dimensions, 0),
        _bump(dn.rhs_group_dimensions, 0),
    )
    params = dict(params, out_sharding=None)
    out = ragged_dot_general_p.bind(x, y, gs, ragged_dot_dimension_numbers=new, **params)
    contracting = mode_and_dim(core.get_aval(x).ndim - 1, dn)[0] is RaggedDotMode.RAGGED_CONTRACTING
    return out, 1 if contracting else 0


ad.jvp_rules[ragged_dot_general_p] = _ragged_dot_jvp
ad.transpose_rules[ragged_dot_general_p] = _ragged_dot_transpose
batching.batch_rules[ragged_dot_general_p] = _ragged_dot_batch
