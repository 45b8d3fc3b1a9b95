"""``lax.bitcast_convert_type``: an array's bits read as another dtype (a narrower one adds a
trailing dimension of the pieces, a wider one consumes the last)."""

from __future__ import annotations

import numpy as np

from .. import ad, batching, core, narrow_dtypes
from ..batching import moveaxis
from ..core import Primitive, ShapedArray

bitcast_convert_type_p = Primitive("bitcast_convert_type")


@bitcast_convert_type_p.def_impl
def _bitcast_impl(x, *, new_dtype):
    new_dtype = np.dtype(new_dtype)
    x = np.array(x, order="C")  # views need contiguity; ascontiguousarray would make 0-d 1-d
    if new_dtype.itemsize == x.dtype.itemsize:
        return x.view(new_dtype)
    if new_dtype.itemsize < x.dtype.itemsize:  # a new trailing dimension holds the pieces
        ratio = x.dtype.itemsize // new_dtype.itemsize
        return x.reshape(*x.shape, 1).view(new_dtype).reshape(*x.shape, ratio)
    return x.view(new_dtype).reshape(x.shape[:-1])


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract(x, *, new_dtype):
    new_dtype = np.dtype(new_dtype)
    old, new = x.dtype.itemsize, new_dtype.itemsize
    if (x.dtype == np.bool_) != (new_dtype == np.bool_) and old != new:
        raise TypeError("bitcast_convert_type cannot change the size of a bool")
    if old == new:
        return ShapedArray(x.shape, new_dtype, False)
    if new < old:
        return ShapedArray((*x.shape, old // new), new_dtype, False)
    if not x.shape or x.shape[-1] != new // old:
        raise TypeError(
            f"bitcast_convert_type from {x.dtype.name} to {new_dtype.name} needs a last "
            f"dimension of size {new // old}, got shape {x.shape}"
        )
    return ShapedArray(x.shape[:-1], new_dtype, False)


narrow_dtypes.keeps_narrow.add(bitcast_convert_type_p)
ad.defzero(bitcast_convert_type_p)


def _bitcast_batch(size, vals, dims, *, new_dtype):
    # JAX's vectorized rule (the batch dimension where it is), unless a widening bitcast would
    # consume it as its last dimension
    (x,), (d,) = vals, dims
    aval = core.get_aval(x)
    if aval.dtype.itemsize < np.dtype(new_dtype).itemsize and d == aval.ndim - 1:
        return bitcast_convert_type_p.bind(moveaxis(x, d, 0), new_dtype=new_dtype), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


batching.batch_rules[bitcast_convert_type_p] = _bitcast_batch
