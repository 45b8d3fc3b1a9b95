"""The multinomial distribution."""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...numpy._promote import (
    check_arraylike,
    dtype_kind,
    promote_args_inexact,
    promote_dtypes,
    promote_shapes_keep_scalars,
)
from ..special import gammaln, xlogy


def logpmf(x, n, p):
    """log P(x) for integer counts ``x`` (last axis) summing to ``n``, with probabilities ``p``
    (``-inf`` where the counts do not sum to ``n``)."""
    (p,) = promote_args_inexact("multinomial.logpmf", p)
    check_arraylike("multinomial.logpmf", x, n)
    x, n = promote_shapes_keep_scalars(*promote_dtypes(x, n))  # a scalar n stays one per row
    if dtype_kind(x.dtype) not in "iu":
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}")
    x, n = x.astype(p.dtype), n.astype(p.dtype)
    log_probs = gammaln(n + 1) + jnp.sum(xlogy(x, p) - gammaln(x + 1), axis=-1)
    return jnp.where(jnp.equal(jnp.sum(x), n), log_probs, -np.inf)


def pmf(x, n, p):
    """P(x) of the multinomial distribution."""
    return lax.exp(logpmf(x, n, p))
