"""float32 ``dot_general`` summed in the order XLA's CPU backend sums it (JAX 0.10.2, AVX-512).

numpy's BLAS (OpenBLAS) sums a dot product in its own order, so printed float32 results differed
from JAX's in the last bits. What XLA runs for each dot (read from ``--xla_dump_to``: the optimized
HLO, the LLVM IR and the object code), with ``fma`` a fused multiply-add LLVM contracts:

- vector . vector (``M == N == 1``): XLA rewrites the dot to ``reduce(multiply)``. Up to 32 terms
  the fused loop keeps one accumulator: ``s = fma(x[k], y[k], s)`` in order. Longer ones go through
  XLA's tree-reduction rewrite: the (rounded) products, zero-padded evenly on both sides to a
  multiple of 32, summed in windows of 32 left to right, again until at most 32 partial sums remain,
  which are summed left to right. (Beyond ``_VV_MAX`` XLA keeps one vectorized reduce: BLAS here.)
- matrix . vector (``N == 1``): XLA's row-major GEMV emitter, 8 rows by 8 columns a tile: per row
  eight lanes ``acc[l] = fma(A[i, 8t + l], x[8t + l], acc[l])`` over the whole 8-column tiles, a
  scalar ``fma`` chain over the remaining columns, then the lanes are added as a tree (for rows in
  whole 8-row tiles ``((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7))``, for the last ``M % 8`` rows
  ``((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7))``) and the scalar chain is added last.
- vector . matrix (``M == 1``): the column-major GEMV: one ``fma`` chain over ``k`` per output.
- matrix . matrix: YNNPACK (XLA's own loop, one ``fma`` chain, when all extents are under 8), whose
  kernel a cost model picks from its table (``_matmul_order``): ``tile_k`` = 1, 2 or 4 ``fma``
  lanes over ``k mod tile_k`` added as a tree at the end. Shapes beyond the measured ones (large
  ``k * n``, where YNNPACK blocks ``k`` in a way not followed here) use BLAS.

A float32 ``fma`` is the float64 product (exact) plus the addend rounded once (double rounding
differs from a true fma about once in 2**29 inputs), as in ``backends/multiply_add.py``.
"""

from __future__ import annotations

import numpy as np

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_VV_MAX = 2048  # measured up to 2000 (longer ones: other splits, beyond ~32768 one reduce)
_GEMV_MAX = 1 << 25  # multiply-adds: above this numpy's BLAS (300**3 takes ~40 ms here)


def _fma(a, b, c):
    return (a.astype(_F64) * b + c).astype(_F32)


def _chain(x, y):
    """``fma`` chain over the last axis of ``x`` and ``y`` (broadcast), from zero."""
    shape = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    xs = np.ascontiguousarray(np.moveaxis(x, -1, 0), _F64)  # (k first: contiguous steps)
    ys = np.ascontiguousarray(np.moveaxis(y, -1, 0), _F64)
    acc = np.zeros(shape, _F32)
    wide = np.empty(shape, _F64)
    for k in range(xs.shape[0]):
        np.multiply(xs[k], ys[k], out=wide)
        wide += acc
        acc[...] = wide  # (the one rounding of the fused multiply-add)
    return acc


def _windowed_sum(p):
    """XLA's tree reduction of ``p`` (..., n) float32: windows of 32 until at most 32 are left."""
    while p.shape[-1] > 32:
        n = -(-p.shape[-1] // 32)
        pad = n * 32 - p.shape[-1]
        q = np.zeros((*p.shape[:-1], n * 32), _F32)
        q[..., pad // 2 : pad // 2 + p.shape[-1]] = p
        p = _sequential_sum(q.reshape(*p.shape[:-1], n, 32))
    return _sequential_sum(p)


def _sequential_sum(p):
    acc = np.zeros(p.shape[:-1], _F32)
    for k in range(p.shape[-1]):
        acc = acc + p[..., k]
    return acc


def _vv(x, y):  # x, y: (B, K)
    if x.shape[-1] <= 32:
        return _chain(x, y)
    return _windowed_sum(x * y)


def _gemv(a, x):  # a: (B, M, K), x: (B, K) -> (B, M)
    m, k = a.shape[1:]
    kt = k // 8 * 8
    lanes = np.zeros((a.shape[0], m, 8), _F32)
    for t in range(0, kt, 8):
        lanes = _fma(a[:, :, t : t + 8], x[:, None, t : t + 8], lanes)
    rest = _chain(a[:, :, kt:], x[:, None, kt:]) if kt < k else np.zeros((a.shape[0], m), _F32)
    whole = m // 8 * 8
    out = np.empty((a.shape[0], m), _F32)
    h = lanes[:, :whole, 0::2] + lanes[:, :whole, 1::2]  # adjacent pairs (the 8-row shuffle tree)
    h = h[..., 0::2] + h[..., 1::2]
    out[:, :whole] = h[..., 0] + h[..., 1]
    h = lanes[:, whole:, :4] + lanes[:, whole:, 4:]  # halves (one row's reduction)
    h = h[..., :2] + h[..., 2:]
    out[:, whole:] = h[..., 0] + h[..., 1]
    return out + rest


def _lanes(a, b, u):
    """YNNPACK's fp32 kernel of ``tile_k = u`` over all of ``k`` (a multiple of ``u``): ``u`` lanes
    per output, lane ``l`` an ``fma`` chain over ``k = l, l+u, ...``, the lanes added as a tree of
    adjacent pairs at the end (``(l0+l1)+(l2+l3)``)."""
    nb, m, k = a.shape
    a4 = a.astype(_F64).reshape(nb, m, 1, k // u, u)
    b4 = np.swapaxes(b, 1, 2).astype(_F64).reshape(nb, 1, -1, k // u, u)
    lanes = np.zeros((nb, m, b.shape[2], u), _F32)
    for t in range(k // u):
        lanes = (a4[..., t, :] * b4[..., t, :] + lanes).astype(_F32)
    while lanes.shape[-1] > 1:
        lanes = lanes[..., 0::2] + lanes[..., 1::2]
    return lanes[..., 0]


def _ynn(a, b, u):
    """The kernel of ``tile_k = u`` as YNNPACK runs it: the whole ``u``-steps of ``k``, then the
    rest (zero-padded to ``u``) as a second pass added to the first's result."""
    k = a.shape[2]
    whole = k // u * u
    if whole == k or whole == 0:
        if whole == 0:
            pad = u - k
            a = np.concatenate([a, np.zeros((*a.shape[:2], pad), _F32)], axis=2)
            b = np.concatenate([b, np.zeros((b.shape[0], pad, b.shape[2]), _F32)], axis=1)
        return _lanes(a, b, u)
    return _lanes(a[..., :whole], b[:, :whole], u) + _ynn(a[..., whole:], b[:, whole:], u)


# YNNPACK's AVX-512 fp32 kernels in JAX 0.10.2's jaxlib (their symbol names give the register
# block ``block_m x block_n x tile_k`` and the vector tile ``1 x tile_n x tile_k``), in its order
_KERNELS = [
    *((bm, bn, 16, 1) for bm, bn in [(1, 64), (2, 64), (3, 64), (4, 64), (5, 64)]),
    *((bm, bn, 16, 1) for bm, bn in [(1, 32), (2, 32), (3, 32), (4, 32), (5, 32), (5, 16)]),
    *((bm, bn, 8, 2) for bm, bn in [(1, 32), (2, 32), (3, 32), (4, 32), (5, 32), (1, 16), (4, 16)]),
    *((bm, bn, 8, 2) for bm, bn in [(4, 8), (8, 8)]),
    *((bm, bn, 4, 4) for bm, bn in [(1, 32), (2, 32), (1, 16), (3, 16), (4, 16), (5, 16)]),
    *((bm, bn, 4, 4) for bm, bn in [(2, 8), (4, 8), (6, 8), (4, 4), (8, 4)]),
]


def _ynn_tile_k(m, n, k):
    """``tile_k`` of the kernel YNNPACK's cost model picks (``estimate_dot_cost`` in its dot.cc:
    loads of ``a`` cost 5, of ``b`` 11, 9 a block, a 1e-4 penalty per tile element; the first of
    the cheapest wins)."""
    best, pick = None, 1
    for bm, bn, tn, tk in _KERNELS:
        loads_a, loads_b = bm, bn // tn  # (vector loads per block: a broadcast row, b's tiles)
        block = np.float32(loads_a * 5 + loads_b * 11 + 9) + np.float32(tn * tk) * np.float32(1e-4)
        cost = np.float32(-(-m // bm) * -(-n // bn) * -(-k // tk)) * block
        if best is None or cost < best:
            best, pick = cost, tk
    return pick


def _matmul_order(m, n, k):
    """``tile_k`` of the order a float32 matrix product of this shape is summed in, or ``None``.

    XLA gives a dot to YNNPACK when its largest extent is at least 8 (else its own loop: one
    ``fma`` chain, as ``tile_k = 1``). Measured against JAX on ~550 shapes: from ``m = 51`` on the
    cost model's kernel is the one run (but for near ties: 1 shape in ~150 differs); for shorter
    ``a`` YNNPACK runs ``tile_k = 1`` kernels when ``n > 16`` and the model's (``tile_k = 4``) for
    ``n <= 16``, ``k >= 7`` (for ``k < 7`` its choice varies: BLAS). Larger ``k * n`` than measured
    (where YNNPACK also blocks ``k``, in a way not followed here) are left to BLAS too."""
    if max(m, n, k) < 8:
        return 1
    if m > 50:
        return _ynn_tile_k(m, n, k) if k <= 300 and n <= 300 and m <= 512 else None
    if k * n > 30000:
        return None
    if n > 16:
        return 1
    return _ynn_tile_k(m, n, k) if k >= 7 else None


def xla_dot(a, b):
    """``a`` (B, M, K) times ``b`` (B, K, N), float32, summed in XLA's order; ``None`` where the
    order is not known (the caller uses BLAS)."""
    if a.dtype != _F32 or b.dtype != _F32:
        return None
    nb, m, k = a.shape
    n = b.shape[2]
    if k == 0 or nb * m * n == 0:
        return None
    if m == 1 and n == 1:
        if nb != 1 or k > _VV_MAX:  # (a batch of them is a batched dot: not measured)
            return None
        return _vv(a[:, 0, :], b[:, :, 0]).reshape(nb, 1, 1)
    if n == 1:
        if nb * m * k > _GEMV_MAX:
            return None
        return _gemv(a, b[:, :, 0])[..., None]
    if m == 1:
        if nb * n * k > _GEMV_MAX or nb != 1:
            return None
        return _chain(a[:, 0, None, :], np.swapaxes(b, 1, 2))[:, None, :]
    u = _matmul_order(m, n, k)
    if u is None or nb * m * n * k > _GEMV_MAX:
        return None
    return _chain(a[:, :, None, :], np.swapaxes(b, 1, 2)[:, None]) if u == 1 else _ynn(a, b, u)
