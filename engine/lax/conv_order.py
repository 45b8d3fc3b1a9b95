"""float32 convolutions summed in the order XLA's CPU backend sums them (JAX 0.10.2 on 2 CPUs).

XLA keeps a float32 ``convolution`` as one op (``dim_labels=b01f_01io->b01f`` in the optimized HLO:
no fusion, no custom call, its runtime convolution thunk: Eigen's image-patch contraction on the
intra-op thread pool). Its contraction index runs over the kernel window (row, column, ...) with
the input feature innermost: the im2col product ``cols`` (M = batch x output positions, K =
window x C) times the kernel (K, N = output features), a feature group at a time. The orders,
found by brute force against JAX's bits (a sweep of ~400 random convolutions of 1-3
spatial dims with strides, padding, dilations, groups and their gradients, and grids of shapes):

- Most shapes: one ``fma`` chain over ``k`` in order (``dot_order.banded_dot``, ``tile_k = 1``).
  When the output is small next to ``k`` (``min(M, N) < 8`` and ``k > 65``, or both tiny) Eigen
  shards ``k`` between its 2 threads: blocks of ``max(96, ceil(k / 2))`` rounded up to 8 (its
  AVX packet of 8 floats: 12 packets at least), each one chain, the partial sums then added.
- ``N >= 17`` with more than 50 rows, or ``C >= 17``, and no padding of 2+ on both sides of a dim:
  lanes summed as ``dot_order``'s YNNPACK model sums a product (``_matmul_order`` for ``(M, N,
  C)``: the input features, not all of ``K``; ``tile_k`` lanes over the whole of ``K``), where
  ``C`` is a multiple of ``tile_k``. (The bits match; what runs is Eigen's kernel, not read.)
- Not matched (the chain is used, the last bits can differ from JAX's): ``N == 1`` (e.g.
  depthwise convolutions), ``lhs_dilation`` (transposed convolutions and the input gradients of
  strided ones: neither order fits), batch groups (the weight gradients of grouped convolutions),
  ``C`` not a multiple of ``tile_k`` in the lanes' regime, and sharded ``k`` where Eigen's cost
  model (which this does not follow) picks other thread counts, e.g. many weight gradients.
"""

from __future__ import annotations

import numpy as np

from . import dot_order

_F32 = np.dtype(np.float32)


def bands(m: int, n: int, k: int, c: int, padding=(), lhs_dilation=()) -> list:
    """The summation plan of a float32 convolution's product (rows ``m``, output features ``n``,
    contraction ``k`` = window x ``c`` input features, per group): ``dot_order.banded_dot``'s
    bands ``(j0, j1, tile_k, chunk)``.

    >>> bands(8192, 16, 27, 3)
    [(0, 16, 1, 27)]
    >>> bands(512, 3, 144, 16)  # k sharded between 2 threads
    [(0, 3, 1, 96)]
    >>> bands(128, 32, 576, 64)
    [(0, 32, 2, 1024)]
    """
    lanes = not any(d != 1 for d in lhs_dilation) and not any(lo >= 2 and hi >= 2 for lo, hi in padding)
    if lanes and (n >= 17 and m > 50 or c >= 17):
        plan = dot_order._matmul_order(m, n, c)
        if plan is not None and all(c % u == 0 for _, _, u, _ in plan):
            return plan
    return [(0, n, 1, _eigen_chunk(m, n, k))]


def _eigen_chunk(m: int, n: int, k: int) -> int:
    """The length of the runs of ``k`` summed apart (each one chain, the partial sums added in
    turn): all of ``k`` but where Eigen shards ``k`` between its 2 threads."""
    half = k // 2
    if half >= 8 and (max(m, n) // 2 < 4 or half > 32 and min(m, n) < 8):
        per_thread = -(-k // 2)
        return min(k, max(96, -(-per_thread // 8) * 8))
    return k


def contract(cols: np.ndarray, kernel: np.ndarray, c: int, **conv) -> np.ndarray:
    """``cols`` (G, M, K) @ ``kernel`` (G, K, N) of a convolution with ``c`` input features a
    group: float32 in XLA's order (as far as known: see above), other dtypes with numpy's."""
    g, m, k = cols.shape
    n = kernel.shape[2]
    if cols.dtype != _F32 or kernel.dtype != _F32 or not k or not g * m * n:
        return np.matmul(cols, kernel)
    if dot_order._kernels() is None and g * m * n * k > dot_order._NUMPY_MAX:
        return np.matmul(cols, kernel)  # (without numba: too slow in numpy steps)
    with np.errstate(invalid="ignore", over="ignore"):
        return dot_order.banded_dot(cols, kernel, bands(m, n, k, c, **conv))
