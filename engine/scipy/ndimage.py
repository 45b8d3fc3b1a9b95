"""``jax.scipy.ndimage``: ``map_coordinates``, an array sampled at fractional coordinates by
nearest-neighbour (order 0) or linear (order 1) interpolation.

>>> from engine.scipy.ndimage import map_coordinates
>>> map_coordinates(jnp.array([0.0, 10.0, 20.0]), [jnp.array([0.5, 1.25])], order=1)
Array([ 5. , 12.5], dtype=float32)
"""

from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..numpy._staged import staged_as_jit

__all__ = ["map_coordinates"]


def _mirror(index, size):
    half = size - 1  # the half-period of the triangle wave folding indices back
    return jnp.abs((index + half) % (2 * half) - half)


def _reflect(index, size):
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_INDEX_FIXERS = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round(a):
    return a if a.dtype.kind in "iu" else lax.round(a)


def _nearest(coordinate):
    return [(_round(coordinate).astype(np.int32), coordinate.dtype.type(1))]


def _linear(coordinate):
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    lower_weight = 1 - upper_weight  # (before the index, the order JAX stages them in)
    index = lower.astype(np.int32)
    return [(index, lower_weight), (index + 1, upper_weight)]


# (cval is static too, as in JAX: it enters the jaxpr as a literal, not an argument)
@staged_as_jit(name="_map_coordinates", static_argnames=("order", "mode", "cval"))
def _map_coordinates(input, coordinates, order, mode, cval):  # noqa: A002
    arr = jnp.asarray(input)
    coords = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, arr.dtype)
    if len(coords) != arr.ndim:
        raise ValueError(
            f"coordinates must be a sequence of length input.ndim, but {len(coords)} != {arr.ndim}"
        )
    fix = _INDEX_FIXERS.get(mode)
    if fix is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}."
        )
    if order == 0:
        nodes_of = _nearest
    elif order == 1:
        nodes_of = _linear
    else:
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires order<=1")
    per_axis = []
    for coordinate, size in zip(coords, arr.shape):
        per_axis.append(
            [
                (fix(index, size), (0 <= index) & (index < size) if mode == "constant" else True, weight)
                for index, weight in nodes_of(coordinate)
            ]
        )
    terms = []
    for corner in itertools.product(*per_axis):  # every neighbour: its value times its weight
        indices, valid, weights = zip(*corner)
        if all(v is True for v in valid):
            value = arr[indices]
        else:  # (the validity first, then the gather: JAX's staging order)
            all_valid = functools.reduce(operator.and_, valid)
            value = jnp.where(all_valid, arr[indices], cval)
        terms.append(functools.reduce(operator.mul, weights) * value)
    result = functools.reduce(operator.add, terms)
    if arr.dtype.kind in "iu":
        result = _round(result)
    return result.astype(arr.dtype)


def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0):  # noqa: A002
    """``input`` interpolated at ``coordinates`` (one array of positions per axis).

    Args:
      input: the array sampled.
      coordinates: ``input.ndim`` arrays of the same shape, the positions along each axis.
      order: 0 (nearest) or 1 (linear).
      mode: how positions outside the array map in: 'constant' (``cval``), 'nearest', 'wrap',
        'mirror' or 'reflect'.
    """
    return _map_coordinates(input, coordinates, order, mode, cval)
