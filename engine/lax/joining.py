"""Joining and splitting arrays: the concatenate, split, stack, unstack and tile primitives, with
their rules, and lax's concatenate, stack, unstack and split."""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core, dims, narrow_dtypes
from ..batching import not_mapped
from ..core import Primitive, ShapedArray
from .same_dtypes import check_same_dtypes


def _lax():
    from . import api

    return api


# --- concatenate -------------------------------------------------------------------------------

concatenate_p = Primitive("concatenate")
concatenate_p.def_impl(lambda *xs, dimension: np.concatenate(xs, axis=dimension))
core.eager_checked.add(concatenate_p)


@concatenate_p.def_abstract_eval
def _concatenate_abstract(*xs, dimension):
    if not xs:
        raise TypeError("concatenate expects at least one operand, got 0.")

    def shapes():
        return ", ".join(str(x.shape) for x in xs)

    if len({x.ndim for x in xs}) != 1:
        raise TypeError(f"Cannot concatenate arrays with different numbers of dimensions: got {shapes()}.")
    if not 0 <= dimension < xs[0].ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for shapes {shapes()}.")
    others = [x.shape[:dimension] + x.shape[dimension + 1 :] for x in xs]
    if any(o != others[0] for o in others[1:]):
        raise TypeError(
            "Cannot concatenate arrays with shapes that differ in dimensions other than the one "
            f"being concatenated: concatenating along dimension {dimension} for shapes {shapes()}."
        )
    check_same_dtypes("concatenate", *xs)
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(shape, xs[0].dtype, all(x.weak_type for x in xs))


def _concatenate_transpose(ct, *xs, dimension):
    # One split into every operand's piece, as JAX (pieces of known operands go unused).
    sizes = [(x.aval if ad.is_undefined(x) else core.get_aval(x)).shape[dimension] for x in xs]
    pieces = _lax().split(ct, sizes, dimension)
    return [p if ad.is_undefined(x) else None for p, x in zip(pieces, xs)]


def _concatenate_batch(size, vals, dims, *, dimension):
    # An unbatched operand is broadcast with lax.broadcast (plain int dims in the jaxpr, as JAX's rule).
    xs = [
        _lax().broadcast(x, (size,)) if d is not_mapped else batching.moveaxis(x, d, 0)
        for x, d in zip(vals, dims)
    ]
    return concatenate_p.bind(*xs, dimension=dimension + 1), 0


ad.deflinear(concatenate_p, _concatenate_transpose)
batching.batch_rules[concatenate_p] = _concatenate_batch


# --- split (the inverse of concatenate; one primitive with several outputs, as in JAX) --------

split_p = Primitive("split", multiple_results=True)


def _check_split(shape, sizes, axis):
    # (eagerly too, where no abstract evaluation runs: numpy would split at out-of-range indices)
    if not 0 <= axis < len(shape):
        raise ValueError(f"split axis {axis} out of bounds for shape {shape}")
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if sum(sizes) != shape[axis]:
        raise ValueError(
            f"Sum of sizes {np.sum(sizes)} must be equal to dimension {axis} of the operand shape {list(shape)}"
        )


@split_p.def_impl
def _split_impl(x, *, sizes, axis):
    _check_split(x.shape, sizes, axis)
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


@split_p.def_abstract_eval
def _split_abstract(x, *, sizes, axis):
    _check_split(x.shape, sizes, axis)
    return [x.update(shape=x.shape[:axis] + (s,) + x.shape[axis + 1 :]) for s in sizes]


def _split_transpose(cts, x, *, sizes, axis):
    if all(type(ct) is ad.Zero for ct in cts):
        return [ad.Zero(x.aval)]
    lax = _lax()
    shape = x.aval.shape
    parts = [
        lax.full(shape[:axis] + (s,) + shape[axis + 1 :], 0, x.aval.dtype) if type(ct) is ad.Zero else ct
        for ct, s in zip(cts, sizes)
    ]
    return [lax.concatenate(parts, axis)]


ad.deflinear(split_p, _split_transpose)
batching.batch_rules[split_p] = lambda size, vals, dims, *, sizes, axis: (
    split_p.bind(vals[0], sizes=sizes, axis=axis + (axis >= dims[0])),
    [dims[0]] * len(sizes),
)


# --- stack / unstack / tile (JAX 0.10.2's own primitives, so programs print as JAX's) -------

stack_p = Primitive("stack")
stack_p.def_impl(lambda *xs, axis: np.stack(xs, axis=axis))
core.eager_checked.add(stack_p)  # (numpy's stack refuses in its own words)


@stack_p.def_abstract_eval
def _stack_abstract(*xs, axis):
    # (JAX's shape rule, in its words: under vmap it sees the batched shapes, and says so)
    if not xs:
        raise ValueError("stack expects at least one operand, got 0.")
    if len({x.ndim for x in xs}) != 1:
        listed = ", ".join(str(x.shape) for x in xs)
        raise ValueError(f"Cannot stack arrays with different numbers of dimensions: got {listed}.")
    if len({x.shape for x in xs}) != 1:
        raise ValueError(
            f"All input arrays must have the same shape. Got {', '.join(str(x.shape) for x in xs)}."
        )
    check_same_dtypes("stack", *xs)
    x0 = xs[0]
    if not 0 <= axis <= x0.ndim:
        raise ValueError(f"stack axis {axis} out of bounds for operands of shape {x0.shape}")
    shape = (*x0.shape[:axis], len(xs), *x0.shape[axis:])
    return ShapedArray(shape, x0.dtype, all(x.weak_type for x in xs))


def _stack_transpose(ct, *xs, axis):
    pieces = unstack_p.bind(ct, axis=axis)
    return [p if ad.is_undefined(x) else None for p, x in zip(pieces, xs)]


def _stack_batch(size, vals, dims, *, axis):
    d0 = dims[0]
    if d0 is not not_mapped and all(d == d0 for d in dims):
        out_axis, out_dim = (axis, d0 + 1) if axis <= d0 else (axis + 1, d0)
        return stack_p.bind(*vals, axis=out_axis), out_dim
    from .api import broadcast

    # (an unmapped operand is lax.broadcast to the batch size, with Python-int dimensions, as JAX's rule)
    xs = [
        broadcast(x, (size,)) if d is not_mapped else batching.moveaxis(x, d, 0) for x, d in zip(vals, dims)
    ]
    return stack_p.bind(*xs, axis=axis + 1), 0


ad.deflinear(stack_p, _stack_transpose)
batching.batch_rules[stack_p] = _stack_batch

unstack_p = Primitive("unstack", multiple_results=True)
unstack_p.def_impl(lambda x, *, axis: [np.take(x, i, axis=axis) for i in range(x.shape[axis])])


@unstack_p.def_abstract_eval
def _unstack_abstract(x, *, axis):
    if x.ndim == 0:
        raise ValueError(
            f"unstack requires arrays with rank > 0, however a scalar array of shape {x.shape} was passed."
        )
    return [x.update(shape=x.shape[:axis] + x.shape[axis + 1 :])] * x.shape[axis]


def _unstack_transpose(cts, x, *, axis):
    return [stack_p.bind(*[ad.instantiate_zeros(ct) for ct in cts], axis=axis)]


def _unstack_batch(size, vals, dims, *, axis):
    (d,) = dims
    out_axis, out_dim = (axis, d - 1) if axis < d else (axis + 1, d)
    outs = unstack_p.bind(vals[0], axis=out_axis)
    return outs, [out_dim] * len(outs)


ad.deflinear(unstack_p, _unstack_transpose)
batching.batch_rules[unstack_p] = _unstack_batch

tile_p = Primitive("tile")
tile_p.def_impl(lambda x, *, reps: np.tile(x, reps))


@tile_p.def_abstract_eval
def _tile_abstract(x, *, reps):
    if x.ndim != len(reps):
        raise TypeError(
            f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} and x.ndim={x.ndim}."
        )
    return x.update(shape=tuple(n * r for n, r in zip(x.shape, reps)))


def _tile_transpose(ct, x, *, reps):
    # Each copy is one (rep, dim) pair of axes: sum the rep axes away.
    from ..sharded_types import context_sharding  # (a cycle if imported at the top)

    lax = _lax()
    shape = tuple(k for pair in zip(reps, x.aval.shape) for k in pair)
    pairs = lax.reshape(ct, shape, out_sharding=context_sharding(len(shape)))  # (JAX's: laid out as x is)
    return [lax.reduce_sum(pairs, tuple(2 * i for i in range(x.aval.ndim)))]


def _tile_batch(size, vals, dims, *, reps):
    (d,) = dims
    return tile_p.bind(vals[0], reps=(*reps[:d], 1, *reps[d:])), d


ad.deflinear(tile_p, _tile_transpose)
batching.batch_rules[tile_p] = _tile_batch

# Moves narrow values (bfloat16, ...) as they are: numpy moves ml_dtypes' values, nothing to widen.
narrow_dtypes.keeps_narrow.update((concatenate_p, split_p, stack_p, unstack_p, tile_p))


# --- the public functions ----------------------------------------------------------------------


def concatenate(operands, dimension: int):
    """Join arrays along an existing ``dimension``.

    >>> concatenate([jnp.zeros(2), jnp.ones(1)], 0)
    Array([0., 0., 1.], dtype=float32)
    """
    operands = list(operands)
    if len(operands) == 1 and not isinstance(operands[0], (int, float, bool, complex)):
        return operands[0]
    if not operands:
        raise ValueError("concatenate requires a non-empty sequence of operands")
    dimension, ndim = int(dimension), core.get_aval(operands[0]).ndim
    # (a negative dimension counts from the end: JAX's shape rule refuses it, the engine's own
    # callers pass them; out of range either way is the rule's error)
    return concatenate_p.bind(*operands, dimension=dimension + ndim if -ndim <= dimension < 0 else dimension)


def stack(operands, axis: int = 0):
    """Stack equal-shaped ``operands`` along a new ``axis`` (one ``stack`` equation, as JAX).

    >>> stack([jnp.zeros(2), jnp.ones(2)], axis=1).shape
    (2, 2)
    """
    operands = list(operands)
    if not operands:
        raise ValueError("Need at least one array to stack.")
    ndim = core.get_aval(operands[0]).ndim
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim + 1}")
    return stack_p.bind(*operands, axis=int(axis) % (ndim + 1))


def unstack(x, axis: int = 0):
    """The slices of ``x`` along ``axis``, as a tuple; the inverse of ``stack``.

    >>> len(unstack(jnp.ones((3, 2))))
    3
    """
    ndim = core.get_aval(x).ndim
    return tuple(unstack_p.bind(x, axis=dims.canonicalize_axis(axis, ndim)))


def split(operand, sizes, axis: int = 0):
    """Cut ``operand`` along ``axis`` into pieces of ``sizes``; the inverse of ``concatenate``."""
    ndim = core.get_aval(operand).ndim
    # (numpy integers stay as given: JAX prints jnp.split's sizes as np.int64(2))
    sizes = tuple(d if isinstance(d, np.integer) else _lax()._shape((d,))[0] for d in sizes)
    return list(
        split_p.bind(operand, sizes=sizes, axis=dims.canonicalize_axis(axis, ndim))
    )  # (a list, as JAX's)
