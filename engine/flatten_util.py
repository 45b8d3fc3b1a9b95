"""``jax.flatten_util``: a pytree of arrays as one flat vector, and the function that undoes it.

>>> import engine.numpy as jnp
>>> flat, unravel = ravel_pytree({'a': jnp.ones(2), 'b': (3.0, jnp.zeros((1, 2)))})
>>> flat
Array([1., 1., 3., 0., 0.], dtype=float32)
>>> unravel(flat)['b'][1].shape
(1, 2)
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from . import lax
from . import numpy as jnp
from .tree_util import tree_flatten, tree_unflatten

__all__ = ["ravel_pytree"]


def ravel_pytree(pytree):
    """Ravel (flatten) a pytree of arrays into a 1D array, and return a function that undoes it.

    Leaves of different dtypes are cast to their promoted dtype; unraveling casts each back.

    Args:
      pytree: a pytree of arrays and scalars.

    Returns:
      ``(flat, unravel_pytree)``: the concatenated raveled leaves, and a function mapping a vector of
      the same length and dtype back to a pytree of the original structure, shapes and dtypes.

    >>> ravel_pytree((1.0, jnp.arange(2.0)))[0]
    Array([1., 0., 1.], dtype=float32)
    """
    leaves, treedef = tree_flatten(pytree)
    flat, unravel_leaves = _ravel_leaves(leaves)
    return flat, functools.partial(_unravel_pytree, treedef, unravel_leaves)


def _unravel_pytree(treedef, unravel_leaves, flat):
    return tree_unflatten(treedef, unravel_leaves(flat))


def _ravel_leaves(leaves):
    if not leaves:
        return jnp.array([], jnp.float32), lambda _: []
    from_dtypes = tuple(jnp.result_type(x) for x in leaves)
    to_dtype = jnp.result_type(*from_dtypes)
    # (Python ints: JAX cuts the vector with lax.split, whose sizes print as plain ints)
    sizes, shapes = zip(*((int(np.size(x)), np.shape(x)) for x in leaves))
    if all(dt == to_dtype for dt in from_dtypes):
        flat = jnp.concatenate([jnp.ravel(x) for x in leaves])
        return flat, functools.partial(_unravel_same_dtype, sizes, shapes)
    flat = jnp.concatenate([jnp.ravel(lax.convert_element_type(x, to_dtype)) for x in leaves])
    return flat, functools.partial(_unravel_cast, sizes, shapes, from_dtypes, to_dtype)


def _unravel_same_dtype(sizes, shapes, flat):
    return [chunk.reshape(shape) for chunk, shape in zip(lax.split(flat, sizes), shapes)]


def _unravel_cast(sizes, shapes, from_dtypes, to_dtype, flat):
    got = jnp.result_type(flat)
    if got != to_dtype:
        raise TypeError(f"unravel function given array of dtype {got}, but expected dtype {to_dtype}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> real casts warn; the cast is what was asked for
        return [
            lax.convert_element_type(chunk.reshape(shape), dtype)
            for chunk, shape, dtype in zip(lax.split(flat, sizes), shapes, from_dtypes)
        ]
