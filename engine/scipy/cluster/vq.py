"""``jax.scipy.cluster.vq``: assign observations to the nearest code in a code book.

>>> from engine.scipy.cluster.vq import vq
>>> vq(jnp.array([[0.0, 0.0], [5.0, 5.0]]), jnp.array([[1.0, 1.0], [4.0, 4.0]]))
(Array([0, 1], dtype=int32), Array([1.4142135, 1.4142135], dtype=float32))
"""

from __future__ import annotations

from ... import numpy as jnp
from ...api import vmap
from ...numpy._promote import as_operand, check_arraylike, promote_dtypes_inexact

__all__ = ["vq"]


def vq(obs, code_book, check_finite: bool = True):
    """The index of each observation's nearest code (Euclidean distance) and that distance.

    Args:
      obs: observations, shape (M,) or (M, N).
      code_book: codes, shape (K,) or (K, N), of the same rank as ``obs``.
      check_finite: ignored (as in JAX).
    """
    del check_finite
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, book = promote_dtypes_inexact(as_operand(obs), as_operand(code_book))
    if obs.ndim != book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, book = obs[..., None], book[..., None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: jnp.linalg.norm(ob[None] - book, axis=-1))(obs)
    code = jnp.argmin(dist, axis=-1)
    return code, vmap(lambda d, c: d[c])(dist, code)
