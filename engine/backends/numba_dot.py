"""float32 dot products summed in XLA's order (``lax/dot_order.py``), in numba: the same fma chains
and lane trees, over blocks of 4 rows by 64 output columns (the block's accumulators stay in L1,
each ``b`` row is used 4 times, the column loop is LLVM-vectorized: 16 lanes an AVX-512 fma). A
1000^3 product takes ~70-100 ms (OpenBLAS with 2 threads ~30 ms; the numpy steps over a minute).
``_fma`` is LLVM's fused multiply-add, rounded once as XLA's is. Compiling all three takes ~2.5 s
(``server/warmup.py`` does it before a zygote forks); loading them from numba's cache ~0.15 s."""

import numba as nb
import numpy as np

from .numba_math import _fma

_K = dict(cache=True, error_model="numpy", boundscheck=False)
f32 = np.float32
_ROWS, _COLS = 4, 64  # a block of outputs


@nb.njit(**_K)
def _block(a, b, out, i0, rows, j0, cols, s, e, u, first, acc):
    """Lanes ``l`` of outputs ``out[i0:i0+rows, j0:j0+cols]`` over ``k`` in ``[s, e)`` (``s`` a
    multiple of ``u``): ``acc[l] = fma(a[i, t], b[t, j], acc[l])`` for ``t % u == l``; then the
    lanes' tree ``(l0+l1)+(l2+l3)`` is stored (``first``) or added to ``out``."""
    acc[:] = 0
    for t in range(s, e):
        lane = acc[t % u]
        brow = b[t, j0 : j0 + cols]
        for ii in range(rows):
            av = a[i0 + ii, t]
            row = lane[ii]
            for jj in range(cols):
                row[jj] = _fma(av, brow[jj], row[jj])
    for ii in range(rows):
        for jj in range(cols):
            if u == 1:
                v = acc[0, ii, jj]
            elif u == 2:
                v = acc[0, ii, jj] + acc[1, ii, jj]
            else:
                v = (acc[0, ii, jj] + acc[1, ii, jj]) + (acc[2, ii, jj] + acc[3, ii, jj])
            out[i0 + ii, j0 + jj] = v if first else out[i0 + ii, j0 + jj] + v


@nb.njit(**_K)
def matmul(a, b, u, chunk, out):
    """YNNPACK's kernel of ``tile_k = u`` over ``a`` (B, M, K) and ``b`` (B, K, N) into ``out``
    (B, M, N): ``k`` in chunks of ``chunk`` (a multiple of ``u``) over the whole ``u``-steps, each
    chunk's lane tree added to the output in turn, then the rest of ``k`` as one more chunk."""
    nbatch, m, k = a.shape
    n = b.shape[2]
    whole = k // u * u
    acc = np.zeros((u, _ROWS, _COLS), f32)
    for bi in range(nbatch):
        ab, bb, ob = a[bi], b[bi], out[bi]
        for j0 in range(0, n, _COLS):
            cols = min(_COLS, n - j0)
            for i0 in range(0, m, _ROWS):
                rows = min(_ROWS, m - i0)
                s = 0
                while s < k:
                    e = min(whole, s + chunk) if s < whole else k
                    _block(ab, bb, ob, i0, rows, j0, cols, s, e, u, s == 0, acc)
                    s = e


@nb.njit(**_K)
def gemv(a, x, out):
    """XLA's row-major GEMV (``lax/dot_order._gemv``): ``a`` (B, M, K), ``x`` (B, K) -> (B, M)."""
    nbatch, m, k = a.shape
    kt = k // 8 * 8
    whole = m // 8 * 8
    lanes = np.zeros(8, f32)
    for bi in range(nbatch):
        for i in range(m):
            lanes[:] = 0
            for t in range(0, kt, 8):
                for q in range(8):
                    lanes[q] = _fma(a[bi, i, t + q], x[bi, t + q], lanes[q])
            rest = f32(0)
            for t in range(kt, k):
                rest = _fma(a[bi, i, t], x[bi, t], rest)
            if i < whole:
                h = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + (
                    (lanes[4] + lanes[5]) + (lanes[6] + lanes[7])
                )
            else:
                h = ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + (
                    (lanes[1] + lanes[5]) + (lanes[3] + lanes[7])
                )
            out[bi, i] = h + rest


@nb.njit(**_K)
def windowed_dot(x, y):
    """XLA's tree reduction of the rounded products ``x * y`` (``lax/dot_order._windowed_sum``):
    windows of 32 (the zero padding skipped: a sum from +0.0 is never -0.0, so adding +0.0 to it
    changes nothing), in place, until at most 32 partial sums are left."""
    n = x.size
    p = np.empty(n, f32)
    for i in range(n):
        p[i] = x[i] * y[i]
    while n > 32:
        w = -(-n // 32)
        lo = (w * 32 - n) // 2
        for q in range(w):  # (window q reads p[32q - lo ...], past every p[q'] with q' < q written)
            acc = f32(0)
            for t in range(max(0, 32 * q - lo), min(n, 32 * q + 32 - lo)):
                acc = acc + p[t]
            p[q] = acc
        n = w
    acc = f32(0)
    for t in range(n):
        acc = acc + p[t]
    return acc
