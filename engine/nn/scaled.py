"""``jax.nn``'s block-scaled products: ``scaled_matmul``, ``scaled_dot_general`` and its configs.

JAX computes the scaled products only with cuDNN on GPUs; on CPU, the platform the engine
simulates, they raise NotImplementedError as JAX 0.10.2's CPU backend does, after checking their
arguments as JAX does. ``scaled_dot_general`` without ``configs`` is ``lax.dot_general``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .. import core, lax, narrow_dtypes

__all__ = ["BlockScaleConfig", "get_scaled_dot_general_config", "scaled_dot_general", "scaled_matmul"]


@dataclasses.dataclass
class BlockScaleConfig:
    """How ``scaled_dot_general`` quantizes an operand: blocks of ``block_size`` elements in
    ``data_type``, one ``scale_type`` scale per block (and an optional global scale)."""

    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def get_scaled_dot_general_config(mode: str, global_scale=None) -> BlockScaleConfig:
    """The quantization config of ``mode``: ``'mxfp8'`` (float8_e4m3fn data in blocks of 32,
    float8_e8m0fnu scales) or ``'nvfp4'`` (float4_e2m1fn in blocks of 16, float8_e4m3fn scales,
    a global scale, 1 by default).

    >>> jax.nn.get_scaled_dot_general_config('mxfp8').block_size
    32
    """
    ml = narrow_dtypes.load()
    if mode == "nvfp4":
        one = core.Array(np.ones((1,), np.float32))
        return BlockScaleConfig(
            mode="nvfp4",
            block_size=16,
            data_type=ml.float4_e2m1fn,
            scale_type=ml.float8_e4m3fn,
            global_scale=one if global_scale is None else global_scale,
            infer_only=False,
        )
    if mode == "mxfp8":
        return BlockScaleConfig(
            mode="mxfp8",
            block_size=32,
            data_type=ml.float8_e4m3fn,
            scale_type=ml.float8_e8m0fnu,
            global_scale=None,
            infer_only=False,
        )
    raise ValueError(f"Unsupported mode: {mode}")


def _not_on_cpu():
    raise NotImplementedError(
        "MLIR translation rule for primitive 'scaled_matmul' not found for platform cpu (JAX computes "
        "block-scaled products with cuDNN on GPUs only; the engine simulates CPU devices)"
    )


def scaled_dot_general(
    lhs, rhs, dimension_numbers, preferred_element_type=np.float32, configs=None, implementation=None
):
    """``lax.dot_general`` of operands quantized by ``configs`` (one per operand and one for the
    gradient, see :func:`get_scaled_dot_general_config`); without ``configs``, ``lax.dot_general``
    itself. The quantized product runs on GPUs only (NotImplementedError here, as on JAX's CPU).

    >>> jax.nn.scaled_dot_general(jnp.ones((2, 3)), jnp.ones((3, 4)), (((1,), (0,)), ((), ()))).shape
    (2, 4)
    """
    if implementation is not None:
        import warnings

        warnings.warn(
            "Backend selector, now ignored. The system chooses the backend automatically.",
            DeprecationWarning,
            stacklevel=2,
        )
    if configs is None:
        return lax.dot_general(lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type)
    _not_on_cpu()


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """The block-scaled product ``einsum('BMK,BNK->BMN', a * repeat(a_scales), b * repeat(b_scales))``
    with the block sizes ``K // K_a`` and ``K // K_b``: JAX computes it with cuDNN on GPUs only, so
    after checking the shapes as JAX does it raises NotImplementedError, as on JAX's CPU."""
    a, b, a_scales, b_scales = lhs, rhs, lhs_scales, rhs_scales
    if not all(np.ndim(x) == 3 for x in (a, b, a_scales, b_scales)):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    (B_a, M_a, K_a), (B_b, N_b, K_b) = np.shape(a), np.shape(b)
    if K_a != K_b or B_a != B_b:
        raise ValueError(
            "scaled_matmul requires inputs a and b to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {np.shape(a)} and {np.shape(b)}"
        )
    (B_as, M_as, K_as), (B_bs, N_bs, K_bs) = np.shape(a_scales), np.shape(b_scales)
    if K_as != K_bs or B_as != B_bs:
        raise ValueError(
            "scaled_matmul requires scales to have matching batch (B) and contract (K) dimensions, but "
            f"got shapes {np.shape(a_scales)} and {np.shape(b_scales)}"
        )
    if M_as != M_a or N_bs != N_b:
        raise ValueError(
            "scaled_matmul requires scales to match non-contract dimensions of inputs, but got shapes "
            f"a: {np.shape(a)}, b: {np.shape(b)}, a_scales: {np.shape(a_scales)}, b_scales: "
            f"{np.shape(b_scales)}"
        )
    _not_on_cpu()
