"""``random_bcoo``: a BCOO array with random values at random distinct positions, drawn as JAX
draws them (so a key gives JAX's array)."""

from __future__ import annotations

import math
import operator
from typing import Callable

from ... import api, dtypes
from ... import numpy as jnp
from ... import random as jrandom
from .bcoo import BCOO


def random_bcoo(
    key,
    shape,
    *,
    dtype=None,
    indices_dtype=None,
    nse=0.2,
    n_batch: int = 0,
    n_dense: int = 0,
    unique_indices: bool = True,
    sorted_indices: bool = False,
    generator: Callable = jrandom.uniform,
    **kwds,
) -> BCOO:
    """A random BCOO array: ``nse`` stored elements per batch (a fraction of the sparse size when
    below 1), at positions ``random.choice`` picks, with values from ``generator``.

    >>> from engine.experimental import sparse
    >>> sparse.random_bcoo(jax.random.key(0), (4, 5), nse=3)
    BCOO(float32[4, 5], nse=3)
    """
    shape = tuple(operator.index(s) for s in shape)
    n_batch, n_dense = operator.index(n_batch), operator.index(n_dense)
    if n_batch < 0 or n_dense < 0 or n_batch + n_dense > len(shape):
        raise ValueError(f"Invalid {n_batch=}, {n_dense=} for {shape=}")
    n_sparse = len(shape) - n_batch - n_dense
    batch_shape, sparse_shape = shape[:n_batch], shape[n_batch : n_batch + n_sparse]
    dense_shape = shape[n_batch + n_sparse :]
    sparse_size = math.prod(sparse_shape)
    if not 0 <= nse < sparse_size:
        raise ValueError(f"got {nse=}, expected to be between 0 and {sparse_size}")
    if 0 < nse < 1:
        nse = int(math.ceil(nse * sparse_size))
    nse = operator.index(nse)
    dtype = jnp.float_ if dtype is None else dtype
    indices_dtype = dtypes.canonicalize_dtype(jnp.int_) if indices_dtype is None else indices_dtype
    if sparse_size > jnp.iinfo(indices_dtype).max:
        raise ValueError(
            f"{indices_dtype=} does not have enough range to generate sparse indices of size {sparse_size}."
        )

    def positions(k):
        if not sparse_shape:
            return jnp.zeros((nse, n_sparse), dtype=indices_dtype)
        flat = jrandom.choice(k, sparse_size, shape=(nse,), replace=not unique_indices).astype(indices_dtype)
        return jnp.column_stack(jnp.unravel_index(flat, sparse_shape))

    keys = jrandom.split(key, math.prod(batch_shape) + 1)
    data = generator(keys[0], shape=(*batch_shape, nse, *dense_shape), dtype=dtype, **kwds)
    indices = api.vmap(positions)(keys[1:]).reshape((*batch_shape, nse, n_sparse))
    mat = BCOO((data, indices), shape=shape)
    return mat.sort_indices() if sorted_indices else mat
