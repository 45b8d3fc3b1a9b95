"""``bcoo_conv_general_dilated``: the one convolution JAX 0.10.2's sparse module has, 1-D with a single
batch element and feature (operands shaped ``(1, 1, n)``), unit strides and dilations, any padding.

Either operand may be a BCOO array or dense. Every stored element of the input pairs with every stored
element of the kernel: their product lands at ``i_lhs + pad_low - i_rhs`` of the output (lax's
convolution is a correlation, so the kernel index counts backwards), and the result is a BCOO array
of ``nse_lhs * nse_rhs`` elements, duplicates unsummed, as JAX returns it. Products that land below
index 0 are zeroed at index 0; those past the end keep their out-of-range index (dropped by
``todense``). Everything else raises NotImplementedError, with JAX's messages.

>>> from engine.experimental import sparse
>>> x = sparse.BCOO.fromdense(jnp.array([[[0., 1., 0., 2.]]]))
>>> sparse.bcoo_conv_general_dilated(x, jnp.array([[[1., 10.]]]), window_strides=(1,), padding="VALID").todense()
Array([[[10.,  1., 20.]]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ... import lax
from ... import numpy as jnp
from ...api import make_jaxpr
from ...jit import ShapeDtypeStruct
from .bcoo import BCOO


def bcoo_conv_general_dilated(
    lhs,
    rhs,
    *,
    window_strides,
    padding,
    lhs_dilation=None,
    rhs_dilation=None,
    dimension_numbers=None,
    feature_group_count=1,
    batch_group_count=1,
    precision=None,
    preferred_element_type=None,
    out_sharding=None,
) -> BCOO:
    """``lax.conv_general_dilated`` of ``(1, 1, n)`` operands, one or both of them BCOO arrays."""
    # The dense convolution's staging validates the arguments and resolves padding strings to pairs.
    closed = make_jaxpr(
        lambda a, b: lax.conv_general_dilated(
            a,
            b,
            window_strides=window_strides,
            padding=padding,
            lhs_dilation=lhs_dilation,
            rhs_dilation=rhs_dilation,
            dimension_numbers=dimension_numbers,
            feature_group_count=feature_group_count,
            batch_group_count=batch_group_count,
            precision=precision,
            preferred_element_type=preferred_element_type,
            out_sharding=out_sharding,
        )
    )(ShapeDtypeStruct(lhs.shape, lhs.dtype), ShapeDtypeStruct(rhs.shape, rhs.dtype))
    params = closed.jaxpr.eqns[0].params
    unit = (1,) * (lhs.ndim - 2)
    if tuple(params["lhs_dilation"]) != unit:
        raise NotImplementedError("bcoo convolution with lhs_dilation.")
    if tuple(params["rhs_dilation"]) != unit:
        raise NotImplementedError("bcoo convolution with lhs_dilation.")  # (sic: JAX's message)
    if tuple(params["window_strides"]) != unit:
        raise NotImplementedError("bcoo convolution with non-unit window_strides.")
    # The two checks below are chained comparisons in JAX (a != b != c): they refuse only when both
    # halves hold, and the squeeze of a wider leading axis fails later. Kept so the errors are JAX's.
    if params["batch_group_count"] != params["feature_group_count"] != 1:
        raise NotImplementedError("bcoo convolution with non-unit group counts.")
    if lhs.shape[:2] != rhs.shape[:2] != (1, 1):
        raise NotImplementedError("bcoo convolution with leading dimensions other than (1, 1)")
    index_dtype = next((m.indices.dtype for m in (lhs, rhs) if isinstance(m, BCOO)), np.dtype("int32"))
    (pad,) = params["padding"]  # (a 2-D convolution fails here, as in JAX)
    return _conv_1d(_as_1d(lhs, index_dtype), _as_1d(rhs, index_dtype), tuple(int(p) for p in pad))


def _as_1d(mat, index_dtype) -> BCOO:
    """A ``(1, 1, n)`` operand as a 1-D BCOO array: dense ones store every element."""
    if isinstance(mat, BCOO):
        mat = mat.update_layout(n_batch=2, n_dense=0)
        data = lax.squeeze(mat.data, (0, 1))
        indices = lax.squeeze(mat.indices, (0, 1))
        # Padding elements carry the out-of-range index n: their products must not land in range.
        data = jnp.where(lax.squeeze(indices, (1,)) < mat.shape[-1], data, 0)
        return BCOO((data, indices), shape=mat.shape[2:])
    if isinstance(mat, (np.ndarray, jnp.ndarray)):
        data = lax.squeeze(mat, (0, 1))
        return BCOO((data, lax.broadcasted_iota(index_dtype, (data.shape[0], 1), 0)), shape=mat.shape[2:])
    raise TypeError(f"bcoo_conv_general_dilated: input of type {type(mat)} not recognized.")


def _conv_1d(lhs: BCOO, rhs: BCOO, padding: tuple[int, int]) -> BCOO:
    data = (lhs.data[:, None] * rhs.data[None, :]).ravel()
    indices = (lhs.indices[:, None] + (padding[0] - rhs.indices)[None, :]).ravel()
    below = indices < 0
    indices, data = jnp.where(below, 0, indices), jnp.where(below, 0, data)
    size = max(0, lhs.shape[0] + padding[0] + padding[1] - rhs.shape[0] + 1)
    return BCOO((lax.expand_dims(data, (0, 1)), lax.expand_dims(indices, (0, 1, 3))), shape=(1, 1, size))
