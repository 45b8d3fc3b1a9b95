"""``lax.associative_scan``: an inclusive scan with an associative operator, in O(log n) depth.

Built from slices, pads and concatenations (the parallel prefix of Blelloch / Ladner-Fischer, as
JAX builds it), so it traces, differentiates and batches like the operator it applies.

>>> import engine.numpy as jnp
>>> associative_scan(jnp.add, jnp.arange(5))
Array([ 0,  1,  3,  6, 10], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from .. import lax
from ..tree_util import tree_flatten, tree_unflatten

__all__ = ["associative_scan"]


def associative_scan(fn, elems, reverse: bool = False, axis: int = 0):
    """The running ``fn``-combination of ``elems`` along ``axis``: ``out[i] = e[0] fn ... fn e[i]``.

    Args:
      fn: an associative binary function on pytrees of arrays, applied elementwise on slices of
        ``elems`` (it must accept arrays with the scanned axis, any length).
      elems: a pytree of arrays, all the same length along ``axis``.
      reverse: scan from the end (``out[i] = e[i] fn ... fn e[n-1]``).
      axis: the axis scanned.

    >>> associative_scan(jnp.maximum, jnp.array([1, 3, 2, 5, 4]))
    Array([1, 3, 3, 5, 5], dtype=int32)
    """
    leaves, tree = tree_flatten(elems)
    if not leaves:
        return elems
    from ..numpy._promote import as_operand

    leaves = [as_operand(x) for x in leaves]
    axis = axis + leaves[0].ndim if axis < 0 else axis
    if reverse:
        leaves = [lax.rev(x, (axis,)) for x in leaves]
    n = int(leaves[0].shape[axis])
    if any(int(x.shape[axis]) != n for x in leaves[1:]):
        raise ValueError(
            "Array inputs to associative_scan must have the same first dimension. (saw: "
            f"{[x.shape for x in leaves]})"
        )

    def combine(a, b):
        out_leaves, out_tree = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        if out_tree != tree:
            raise ValueError(f"fn returned a {out_tree}; associative_scan's elements are a {tree}")
        return out_leaves

    def cut(x, start, stop=None, stride=1):
        return lax.slice_in_dim(x, start, stop, stride=stride, axis=axis)

    def scan(xs):
        size = int(xs[0].shape[axis])
        if size < 2:
            return xs
        # Combine neighbouring pairs, scan the half-length result (the odd positions' answers)...
        odd = scan(combine([cut(x, 0, -1, 2) for x in xs], [cut(x, 1, None, 2) for x in xs]))
        # ...then each even position is the odd answer before it combined with its own element.
        before = [cut(o, 0, -1) for o in odd] if size % 2 == 0 else odd
        even = combine(before, [cut(x, 2, None, 2) for x in xs])
        even = [lax.concatenate([cut(x, 0, 1), e], axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = scan(leaves)
    if reverse:
        out = [lax.rev(x, (axis,)) for x in out]
    return tree_unflatten(tree, out)


def _interleave(a, b, axis):
    """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` as long as ``b`` or one longer)."""
    same = a.shape[axis] == b.shape[axis]
    a_cfg = [(0, 0, 0)] * a.ndim
    b_cfg = [(0, 0, 0)] * b.ndim
    a_cfg[axis] = (0, 1 if same else 0, 1)
    b_cfg[axis] = (1, 0 if same else 1, 1)
    join = lax.bitwise_or if a.dtype == np.bool_ else lax.add
    return join(lax.pad(a, np.zeros((), a.dtype), a_cfg), lax.pad(b, np.zeros((), b.dtype), b_cfg))
