"""``jnp.isin``'s other methods (JAX's ``method=``): ``'binary_search'`` (a search of each element
in the sorted test values) and ``'sort'`` (one sort of both, neighbours compared). ``'compare_all'``
(and ``'auto'``) is ``_searching._in1d``'s own all-against-all comparison."""

from __future__ import annotations

import numpy as np

from .. import lax


def in1d_by(method, arr1, arr2, invert: bool, assume_unique: bool):
    """Membership of each element of 1-D ``arr1`` in 1-D ``arr2`` (both non-empty, one dtype)."""
    from ._searching import searchsorted, unique

    if method == "binary_search":
        haystack = lax.sort(arr2)
        found = haystack[searchsorted(haystack, arr1)]  # (a position past the end reads the last)
        return lax.ne(arr1, found) if invert else lax.eq(arr1, found)
    if method != "sort":
        raise ValueError(
            f"{method=} is not implemented; options are 'compare_all', 'binary_search', 'sort', and 'auto'"
        )
    back = slice(None)
    if not assume_unique:  # (the distinct values, padded to full length with the largest test value)
        arr1, back = unique(arr1, size=arr1.shape[0], return_inverse=True, fill_value=arr2.max())
    n1, n = arr1.shape[0], arr1.shape[0] + arr2.shape[0]
    keys, origin = lax.sort_key_val(lax.concatenate([arr1, arr2], 0), lax.iota(np.int32, n))
    # An element of arr1 is in arr2 when the value sorted right after it equals it (a stable sort
    # puts arr1's copy of a value before arr2's); positions of arr2's values are dropped.
    same = lax.ne(keys[1:], keys[:-1]) if invert else lax.eq(keys[1:], keys[:-1])
    start = lax.full((n1,), invert, np.bool_)
    return start.at[origin[:-1]].set(same, mode="drop")[back]
