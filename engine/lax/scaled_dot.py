"""``scaled_dot``: ``(lhs * lhs_scale) @ (rhs * rhs_scale)``, each scale repeated along its operand's
contracting dimensions (one scale per block of ``size // scale size`` elements), with its checks
(JAX's messages) and batching rule; no derivative rules (JAX has none). As JAX's CPU lowering,
operands and scales are rounded to bfloat16 and multiplied (exactly, in float32), then contracted
into the preferred type (bfloat16 by default, as JAX's; an integer type truncates the float32
result)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import batching, core, narrow_dtypes
from ..core import Primitive, ShapedArray
from .dot_general import _dot_general_impl
from .structural import convert_values

__all__ = ["scaled_dot", "scaled_dot_p"]


def _check_scale(side, operand, scale, contracting: Sequence[int]):
    for i, size in enumerate(operand.shape):
        if i in contracting:
            if size % scale.shape[i]:
                raise TypeError(
                    f"{side} contracting dim {i} of size {size} must be divisible by its scale's dim size "
                    f"{scale.shape[i]}."
                )
            if size // scale.shape[i] < 2:
                raise TypeError(
                    f"The ratio of {side} contracting dim {i} to its scale's dim size "
                    f"({size // scale.shape[i]}) must be at least 2."
                )
        elif scale.shape[i] != size:
            raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size {scale.shape[i]}.")


def _check(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    if len({lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}) != 1:
        raise TypeError(
            f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} rhs rank: {rhs.ndim} "
            f"lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: {rhs_scale.ndim}."
        )
    if len(lb) != len(rb):
        raise TypeError(
            f"LHS and RHS must have the same number of batch dimensions, got {len(lb)} and {len(rb)}."
        )
    if len(lc) != len(rc):
        raise TypeError(
            f"LHS and RHS must have the same number of contracting dimensions, got {len(lc)} and {len(rc)}."
        )
    for i, j in zip(lb, rb):
        if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) != 1:
            raise TypeError(
                f"All input tensors must have the same batch dimension size for batch dims ({i}, {j})."
            )
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise TypeError(
                f"LHS contracting dim {i} of size {lhs.shape[i]} does not match RHS contracting dim {j} of "
                f"size {rhs.shape[j]}."
            )
    _check_scale("LHS", lhs, lhs_scale, lc)
    _check_scale("RHS", rhs, rhs_scale, rc)


scaled_dot_p = Primitive("scaled_dot")


@scaled_dot_p.def_abstract_eval
def _scaled_dot_abstract(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers, preferred_element_type):
    _check(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers)
    (lc, rc), (lb, rb) = dimension_numbers
    shape = [lhs.shape[i] for i in lb]
    shape += [n for i, n in enumerate(lhs.shape) if i not in lc and i not in lb]
    shape += [n for i, n in enumerate(rhs.shape) if i not in rc and i not in rb]
    return ShapedArray(shape, preferred_element_type)


def _bfloat16(x):
    from .reduce_precision import reduce_precision_bits

    return reduce_precision_bits(np.asarray(x, np.float32), exponent_bits=8, mantissa_bits=7)


def _scaled(x, scale, contracting, narrow: bool):
    for i in contracting:  # each scale covers a block of consecutive elements
        scale = np.repeat(scale, x.shape[i] // scale.shape[i], axis=i)
    # (the product is exact in float32; JAX's CPU keeps it so for a wider result, and rounds it to
    # bfloat16 for a 16-bit one, whose contraction then runs in bfloat16)
    out = _bfloat16(x) * _bfloat16(scale)
    return _bfloat16(out) if narrow else out


@scaled_dot_p.def_impl
def _scaled_dot_impl(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers, preferred_element_type):
    avals = [core.get_aval(a) for a in (lhs, rhs, lhs_scale, rhs_scale)]
    _check(*avals, dimension_numbers)  # (eager evaluation may skip abstract evaluation)
    (lc, rc), _ = dimension_numbers
    want = np.dtype(preferred_element_type)
    narrow = want.itemsize <= 2
    x, y = _scaled(lhs, lhs_scale, lc, narrow), _scaled(rhs, rhs_scale, rc, narrow)
    if narrow:  # (accumulated in float32, rounded to bfloat16, then converted)
        out = _bfloat16(_dot_general_impl(x, y, dimension_numbers=dimension_numbers))
        return convert_values(out, new_dtype=want)
    if narrow_dtypes.kind(want) not in "fc":  # (an integer result: the float32 product truncated)
        out = _dot_general_impl(x, y, dimension_numbers=dimension_numbers)
        return convert_values(out, new_dtype=want)
    return _dot_general_impl(x, y, dimension_numbers=dimension_numbers, preferred_element_type=want)


def scaled_dot(
    lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None, preferred_element_type=None
):
    """``(lhs * lhs_scale) @ (rhs * rhs_scale)`` in ``preferred_element_type`` (bfloat16 unless
    given, as in JAX; missing scales are float8_e8m0fnu ones), each scale repeated
    in blocks along the contracting dimensions (default numbers: the last lhs dimension against the
    one before the last of rhs, the leading ones batch dimensions).

    >>> x, y = jnp.ones((2, 4)), jnp.ones((4, 3))
    >>> lax.scaled_dot(x, y, lhs_scale=jnp.array([[1., 2.], [3., 4.]]), rhs_scale=jnp.ones((2, 3)),
    ...                preferred_element_type=jnp.float32)
    Array([[ 6.,  6.,  6.],
           [14., 14., 14.]], dtype=float32)
    """
    from .api import _aval

    lhs_aval = _aval(lhs)
    if dimension_numbers is None:
        if lhs_aval.ndim < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        n = lhs_aval.ndim
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), (lb, rb) = dimension_numbers
    dimension_numbers = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    if preferred_element_type is None:  # (JAX's default result type)
        preferred_element_type = narrow_dtypes.to_dtype("bfloat16")

    def ones_scale(x, contracting):  # (JAX's placeholder: bfloat16 ones converted to float8_e8m0fnu)
        from .api import convert_element_type, full
        from ..narrow_dtypes import to_dtype

        shape = [1 if i in contracting else n for i, n in enumerate(_aval(x).shape)]
        return convert_element_type(full(shape, 1.0, to_dtype("bfloat16")), to_dtype("float8_e8m0fnu"))

    lhs_scale = ones_scale(lhs, lc) if lhs_scale is None else lhs_scale
    rhs_scale = ones_scale(rhs, rc) if rhs_scale is None else rhs_scale
    return scaled_dot_p.bind(
        lhs,
        rhs,
        lhs_scale,
        rhs_scale,
        dimension_numbers=dimension_numbers,
        preferred_element_type=core.canonical_dtype(preferred_element_type),
    )


def _scaled_dot_batch(size, vals, dims, *, dimension_numbers, preferred_element_type):
    # Every operand gets the mapped axis first; it becomes one more (leading) batch dimension.
    vals = [batching.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    (lc, rc), (lb, rb) = dimension_numbers

    def up(ds):
        return tuple(d + 1 for d in ds)

    dn = ((up(lc), up(rc)), ((0, *up(lb)), (0, *up(rb))))
    return scaled_dot_p.bind(*vals, dimension_numbers=dn, preferred_element_type=preferred_element_type), 0


batching.batch_rules[scaled_dot_p] = _scaled_dot_batch
