"""``jax.lax.linalg.lu_pivots_to_permutation``: LAPACK's row swaps (``lu``'s pivots) as the row
permutation they make, a primitive with JAX's name and parameter.

JAX builds the permutation rather than applying the swaps to a matrix because a loop of swaps is
not differentiable; the permutation then indexes the rows (``scipy.linalg.lu_solve`` does that).
Integer in, integer out: no tangent flows through it; it maps over leading batch axes.
"""

from __future__ import annotations

import numpy as np

from .. import ad, core
from ..core import Primitive, ShapedArray
from .linalg import _batch_leading

lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


def _permutation_of(pivots, size):
    """The permutation of ``range(size)`` that swapping row ``i`` with row ``pivots[i]``, for each
    ``i`` in order, makes."""
    perm = np.arange(size, dtype=np.int32)
    for i, j in enumerate(pivots.tolist()):
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _impl(pivots, *, permutation_size):
    _check(pivots, permutation_size)  # (eager calls skip abstract evaluation)
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    flat = np.asarray(pivots).reshape(int(np.prod(batch)), k)  # (-1 is ambiguous when k == 0)
    out = np.stack([_permutation_of(p, permutation_size) for p in flat]) if flat.shape[0] else None
    if out is None:
        return np.zeros((*batch, permutation_size), np.int32)
    return out.reshape(*batch, permutation_size)


lu_pivots_to_permutation_p.def_impl(_impl)


def _check(pivots, permutation_size):
    if np.dtype(pivots.dtype) != np.int32:
        raise TypeError(f"lu_pivots_to_permutation requires int32 pivots, got {np.dtype(pivots.dtype).name}")
    if pivots.ndim < 1:
        raise ValueError(
            f"Argument to lu_pivots_to_permutation must have rank >= 1, got shape {pivots.shape}"
        )
    if pivots.shape[-1] > permutation_size:
        raise ValueError(
            f"Output permutation size {permutation_size} has to exceed the trailing dimension of the "
            f"pivots. Got pivots size {pivots.shape[-1]}"
        )


@lu_pivots_to_permutation_p.def_abstract_eval
def _abstract(pivots, *, permutation_size):
    _check(pivots, permutation_size)
    return ShapedArray((*pivots.shape[:-1], permutation_size), np.dtype(np.int32))


def _jvp(primals, tangents, *, permutation_size):
    out = lu_pivots_to_permutation_p.bind(*primals, permutation_size=permutation_size)
    return out, ad.Zero(ad.tangent_aval(core.get_aval(out)))


ad.jvp_rules[lu_pivots_to_permutation_p] = _jvp
_batch_leading(lu_pivots_to_permutation_p)


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The int32 permutation (``(..., permutation_size)``) that ``pivots``' row swaps make.

    >>> lax.linalg.lu_pivots_to_permutation(jnp.array([2, 2, 2], jnp.int32), 3)
    Array([2, 0, 1], dtype=int32)
    """
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=int(permutation_size))
