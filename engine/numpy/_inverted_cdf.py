"""``method='inverted_cdf'`` of jnp.quantile and friends, the one method that takes ``weights``: the
first sorted value whose cumulative weight reaches ``q`` times the total weight.

Negative or NaN weights make the result NaN, as a NaN in the data does (``nanquantile`` drops
NaN data instead). The construction is JAX's, step for step, so the jaxpr is the one JAX prints.
"""

from __future__ import annotations

import numpy as np

from .. import core, lax
from ..lax.elementwise import _const


def _isnan(x):
    return lax.ne(x, x)


def inverted_cdf(a, weights, q, axis: int, keepdims: bool, squash_nans: bool, n: int):
    """Quantiles ``q`` (scalar or 1-d) of ``a``, sorted along ``axis`` with ``weights`` (or None
    for equal weights) sorted alongside; ``n`` is the length of ``axis``."""
    from ._reductions import any as any_, cumsum, sum as sum_
    from ._selection import _where
    from ._take import take_along_axis

    int_ = core.default_dtype(int)
    q_ndim = q.ndim
    lead = tuple(range(q_ndim))
    if weights is None:
        weights = lax.full_like(a, 1.0)
    zeros = lax.full_like(weights, 0)
    bad_weights = lax.bitwise_or(lax.lt(weights, zeros), _isnan(weights))
    nan_data = _isnan(a)
    cum = cumsum(lax.select(lax.bitwise_or(bad_weights, nan_data), zeros, weights), axis=axis)
    total = lax.index_in_dim(cum, -1, axis=axis, keepdims=keepdims)
    total_b = lax.expand_dims(total, lead)
    target = lax.mul(lax.reshape(q, q.shape + (1,) * total.ndim), total_b)
    if not keepdims:
        target = lax.expand_dims(target, (axis + q_ndim,))
    below = lax.convert_element_type(lax.lt(lax.expand_dims(cum, lead), target), int_)
    idx = sum_(below, axis=axis + q_ndim, keepdims=keepdims)
    if squash_nans:
        valid = sum_(lax.bitwise_not(nan_data), axis=axis, dtype=q.dtype, keepdims=keepdims)
    else:
        valid = lax.full_like(total, n, dtype=q.dtype)
    last = lax.convert_element_type(lax.sub(valid, _const(valid, 1)), int_)
    last = lax.convert_element_type(lax.expand_dims(last, lead), idx.dtype)
    idx = lax.max(_const(idx, 0), lax.min(idx, last))
    if keepdims:
        idx = lax.squeeze(idx, (q_ndim + axis,))
    if q_ndim == 0:
        result = lax.squeeze(take_along_axis(a, lax.expand_dims(idx, (axis,)), axis=axis), (axis,))
    else:  # the quantile axis moved next to ``axis`` to gather, then back to the front
        perm = [*range(q_ndim, q_ndim + axis), *range(q_ndim), *range(q_ndim + axis, idx.ndim)]
        result = take_along_axis(a, lax.transpose(idx, perm), axis=axis)
        result = lax.transpose(result, [perm.index(i) for i in range(len(perm))])
    if keepdims:
        result = lax.expand_dims(result, (q_ndim + axis,))
    all_nan = lax.eq(valid, lax.full_like(valid, 0))  # (computed for both, as in JAX's program)
    any_bad = any_(bad_weights, axis=axis, keepdims=keepdims)
    if squash_nans:
        force_nan = lax.bitwise_or(any_bad, all_nan)
    else:
        force_nan = lax.bitwise_or(any_bad, any_(nan_data, axis=axis, keepdims=keepdims))
    return _where(lax.expand_dims(force_nan, lead), lax.full_like(result, np.nan), result)
