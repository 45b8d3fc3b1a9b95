"""Permutations and discrete choices of ``engine.random``: ``permutation``, ``shuffle``,
``categorical`` and ``choice`` (JAX's methods: sorting by fresh random bits, the Gumbel max trick).

  >>> import engine.random as random
  >>> sorted(random.permutation(random.PRNGKey(0), 5).tolist())
  [0, 1, 2, 3, 4]
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from . import core, lax
from .core import Array, Tracer
from .random import _canon_shape, _check_prng_key, _shape, gumbel, randint, uniform
from .random_primitives import random_bits, random_split
from .narrow_dtypes import kind as dtype_kind
from .numpy._staged import staged_as_jit
from .sharding import with_out_sharding


def _dtype(x):
    return core.get_aval(x).dtype


def _is_concrete(*xs) -> bool:
    return not any(isinstance(x, Tracer) for x in xs)


def _sort_by_keys_last(sort_keys, x):
    """Stable sort of ``x`` by ``sort_keys`` along the last axis.

    With a ``lax.sort_key_val`` this is one op; without it, ranks come from an
    O(n^2) comparison (fine for the sizes a playground shuffles).
    """
    if hasattr(lax, "sort_key_val"):
        return lax.sort_key_val(sort_keys, x, len(_shape(x)) - 1)[1]
    shape = _shape(x)
    n = shape[-1]
    lead = shape[:-1]
    r = len(shape)
    sq = (*lead, n, n)  # [..., i, j]
    ki = lax.broadcast_in_dim(sort_keys, sq, (*range(r - 1), r - 1))  # key of i along axis -2
    kj = lax.broadcast_in_dim(sort_keys, sq, (*range(r - 1), r))  # key of j along axis -1
    tri = lax.broadcast_in_dim(Array(np.tri(n, n, -1, dtype=bool)), sq, (r - 1, r))  # j < i
    before = lax.bitwise_or(lax.lt(kj, ki), lax.bitwise_and(lax.eq(kj, ki), tri))
    rank = lax.reduce_sum(lax.convert_element_type(before, np.int32), (r,))  # [..., i]
    # out[..., p] = x[..., i] where rank[..., i] == p
    pos = lax.broadcast_in_dim(Array(np.arange(n, dtype=np.int32)), sq, (r - 1,))  # p along -2
    rk = lax.broadcast_in_dim(rank, sq, (*range(r - 1), r))  # rank_i along -1
    hit = lax.eq(rk, pos)
    xd = _dtype(x)
    xs = x if dtype_kind(xd) != "b" else lax.convert_element_type(x, np.int32)
    xi = lax.broadcast_in_dim(xs, sq, (*range(r - 1), r))
    out = lax.reduce_sum(lax.select(hit, xi, lax.full(sq, 0, _dtype(xs))), (r,))
    return out if dtype_kind(xd) != "b" else lax.convert_element_type(out, xd)


@staged_as_jit(static_argnames=("axis",))
def _shuffle(key, x, axis: int):
    # As JAX's: rounds of a stable sort by fresh random bits along ``axis``, enough rounds that
    # colliding bits are unlikely.
    size = math.prod(_shape(x))
    num_rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(num_rounds):
        key, sub = random_split(key, (2,))
        sort_keys = random_bits(sub, 32, _shape(x))
        x = lax.sort_key_val(sort_keys, x, axis)[1]
    return x


def _as_array(x):
    if isinstance(x, (Array, Tracer)):
        return x
    return Array(np.asarray(x))


@with_out_sharding
def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of ``arange(x)`` (integer ``x``) or of an array along ``axis``.

    Example:

      >>> from engine.random import PRNGKey
      >>> permutation(PRNGKey(0), 10)
      Array([0, 1, 8, 5, 6, 4, 3, 2, 7, 9], dtype=int32)
    """
    key, _ = _check_prng_key("permutation", key)
    if not np.ndim(x) and not (isinstance(x, Tracer) and x.aval.shape):
        if isinstance(x, Tracer):
            n = int(core.concrete_or_error(x, "argument x of random.permutation()"))
        else:
            if not np.issubdtype(np.asarray(x).dtype, np.integer):
                raise TypeError("x must be an integer or at least 1-dimensional")
            n = int(x)
        from . import numpy as jnp

        return _shuffle(key, jnp.arange(n), 0)
    x = _as_array(x)
    ndim = len(_shape(x))
    axis = axis % ndim
    if independent or ndim == 1:
        return _shuffle(key, x, axis)
    n = _shape(x)[axis]
    from . import numpy as jnp

    ind = _shuffle(key, jnp.arange(n), 0)
    return jnp.take(x, ind, axis, unique_indices=True)


def _take(x, ind, axis):
    """``take(x, ind, axis)`` for 1-d ``ind``: a one-hot selection (no gather op needed)."""
    if hasattr(lax, "take"):
        return lax.take(x, ind, axis)
    xs = _shape(x)
    m = _shape(ind)[0]
    n = xs[axis]
    xt = lax.transpose(x, (*[i for i in range(len(xs)) if i != axis], axis)) if axis != len(xs) - 1 else x
    lead = _shape(xt)[:-1]
    r = len(lead)
    sq = (*lead, m, n)
    hit = lax.eq(
        lax.broadcast_in_dim(ind, sq, (r,)),
        lax.broadcast_in_dim(Array(np.arange(n, dtype=_dtype(ind))), sq, (r + 1,)),
    )
    xd = _dtype(x)
    xi = xt if dtype_kind(xd) != "b" else lax.convert_element_type(xt, np.int32)
    xb = lax.broadcast_in_dim(xi, sq, (*range(r), r + 1))
    out = lax.reduce_sum(lax.select(hit, xb, lax.full(sq, 0, _dtype(xi))), (r + 1,))
    if dtype_kind(xd) == "b":
        out = lax.convert_element_type(out, xd)
    if axis != len(xs) - 1:
        out = lax.transpose(out, tuple(np.argsort((*[i for i in range(len(xs)) if i != axis], axis))))
    return out


def shuffle(key, x, axis: int = 0):
    """Shuffles each vector of ``x`` along ``axis`` independently (JAX's deprecated
    ``random.shuffle``; prefer :func:`permutation`)."""
    x = _as_array(x)
    key, _ = _check_prng_key("shuffle", key)
    return _shuffle(key, x, axis % max(1, len(_shape(x))))


@with_out_sharding
def categorical(
    key, logits, axis: int = -1, shape: Sequence[int] | None = None, replace: bool = True, mode=None
):
    """Samples from categorical distributions given by ``logits`` (Gumbel max trick); with
    ``replace=False``, ``prod(shape[:-batch])`` distinct categories each (Gumbel top-k).

    Example:

      >>> from engine.random import PRNGKey
      >>> categorical(PRNGKey(0), jnp_logits := Array(np.log(np.float32([.2, .8])))).shape
      ()
    """
    from . import numpy as jnp

    logits = _as_array(logits)
    # (float64 logits stay float64 with x64 on; other dtypes draw in float32)
    want = core.canonical_dtype(np.float64) if _dtype(logits) == np.float64 else np.dtype(np.float32)
    if _dtype(logits) != want:
        logits = lax.convert_element_type(logits, want)
    ls = _shape(logits)
    batch_shape = tuple(np.delete(ls, axis))
    shape = batch_shape if shape is None else _canon_shape(shape)
    if np.broadcast_shapes(shape, batch_shape) != shape:
        raise ValueError(
            f"categorical: shape {shape} is not broadcast-compatible with batch shape {batch_shape}"
        )
    prefix = shape[: len(shape) - len(batch_shape)]
    if replace:  # (as JAX: the prefix axes are new leading axes of the logits, argmax along axis)
        axis = axis - len(ls) if axis >= 0 else axis
        lshape = list(shape[len(shape) - len(batch_shape) :])
        lshape.insert(axis % len(ls), ls[axis])
        g = gumbel(key, (*prefix, *lshape), _dtype(logits), mode=mode)
        return jnp.argmax(g + lax.expand_dims(logits, tuple(range(len(prefix)))), axis=axis)
    perturbed = logits + gumbel(key, ls, _dtype(logits), mode=mode)
    k = math.prod(prefix)
    if k > ls[axis]:
        raise ValueError(
            f"Number of samples without replacement ({k}) cannot exceed number of categories ({ls[axis]})."
        )
    _, indices = lax.top_k(jnp.moveaxis(perturbed, axis, -1), k)
    n = len(_shape(indices))
    return lax.reshape(indices, shape, (n - 1, *range(n - 1)))  # the k draws lead


def choice(key, a, shape: Sequence[int] = (), replace: bool = True, p=None, axis: int = 0, mode=None):
    """Random samples from ``a`` (an array, or ``arange(a)`` for an integer). ``mode``: the
    ``gumbel`` mode of a draw with ``p`` and without replacement (JAX's), unused otherwise.

    Example:

      >>> from engine.random import PRNGKey
      >>> choice(PRNGKey(42), 10, (5,))
      Array([4, 4, 1, 9, 9], dtype=int32)
    """
    from . import numpy as jnp
    from .numpy._promote import promote_dtypes_inexact

    key, _ = _check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    shape = _canon_shape(shape)
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = int(core.concrete_or_error(a, "The error occurred in jax.random.choice()"))
    else:
        axis = axis % arr.ndim
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than population "
            f"(size {n_inputs}) when 'replace=False'"
        )
    # JAX's methods: uniform indices, a prefix of a permutation, the inverse CDF by searchsorted,
    # or the Gumbel top-k trick without replacement.
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
        else:
            slices = (slice(None),) * axis + (slice(n_draws),)
            result = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)[slices]
    else:
        (p_arr,) = promote_dtypes_inexact(p)
        if p_arr.shape != (n_inputs,):
            raise ValueError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}."
            )
        if replace:
            p_cuml = jnp.cumsum(p_arr)
            r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
            ind = jnp.searchsorted(p_cuml, r).astype(int)
        else:
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + jnp.log(p_arr)
            ind = lax.top_k(g, k=n_draws)[1].astype(int)
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
    return result.reshape(
        shape if arr.ndim == 0 else arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1 :]
    )
