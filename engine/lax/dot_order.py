"""float32 ``dot_general`` summed in the order XLA's CPU backend sums it (JAX 0.10.2, AVX-512).

numpy's BLAS (OpenBLAS) sums a dot product in its own order, so printed float32 results differed
from JAX's in the last bits. What XLA runs for each dot (read from ``--xla_dump_to``: the optimized
HLO, the LLVM IR and the object code), with ``fma`` a fused multiply-add LLVM contracts:

- vector . vector (``M == N == 1``): XLA rewrites the dot to ``reduce(multiply)``. Up to 32 terms
  the fused loop keeps one accumulator: ``s = fma(x[k], y[k], s)`` in order. Longer ones go through
  XLA's tree-reduction rewrite: the (rounded) products, zero-padded evenly on both sides to a
  multiple of 32, summed in windows of 32 left to right, again until at most 32 partial sums remain,
  which are summed left to right. From 4096 terms on (counting all of a batch of them), the
  multiply and the sum are one YNNPACK fusion: the rounded products summed as ``sum_order_ynn``
  sums (its 2-thread tiles, which JAX ran with 1 CPU too).
- matrix . vector (``N == 1``): XLA's row-major GEMV emitter, 8 rows by 8 columns a tile: per row
  eight lanes ``acc[l] = fma(A[i, 8t + l], x[8t + l], acc[l])`` over the whole 8-column tiles, a
  scalar ``fma`` chain over the remaining columns, then the lanes are added as a tree (for rows in
  whole 8-row tiles ``((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7))``, for the last ``M % 8`` rows
  ``((l0+l4)+(l2+l6))+((l1+l5)+(l3+l7))``) and the scalar chain is added last.
- vector . matrix (``M == 1``): the column-major GEMV: one ``fma`` chain over ``k`` per output.
- a dot XLA keeps with ``a``'s contraction dimension not its minor one (``transposed_a``: one
  contraction and at most one free dimension an operand, batch dimensions leading; XLA transposes
  the operands of other dots to ``(B, M, K) x (B, K, N)`` first): YNNPACK declines it, and Eigen's
  contraction runs it, one ``fma`` chain per output up to 320 steps of ``k`` (longer ones are cut
  into blocks whose choice depends on the shape and threads: not followed). Its matrix . vector is
  the column-major GEMV's chain; a vector . matrix whose ``b`` has ``k`` minor (``transposed_b``)
  is the row-major GEMV of ``b``'s rows (YNNPACK takes a transposed ``b`` in a matrix product:
  ``_matmul_order``).
- matrix . matrix: YNNPACK (XLA's own loop, one ``fma`` chain, when all extents are under 8), whose
  kernel a cost model picks from its table, packing ``b`` for it or not (``_ynn_dot``): ``tile_k``
  = 1, 2 or 4 ``fma`` lanes over ``k mod tile_k`` added as a tree at the end (or AVX's kernel:
  each product rounded, then added), ``k`` cut into chunks of 128 KiB of packed ``b`` (for ``b``
  read as stored, by the width of the band of columns a task takes), each chunk's tree added to
  the output in turn. 5,600 random and chosen shapes to 1000x1000x1000 match JAX; 1 and 2 XLA
  threads give the same bits.

A float32 ``fma`` rounds once: LLVM's in ``backends/numba_dot`` (the compiled loops, used when numba
imports), a round-to-odd float64 sum here (the same bits, ~100x slower: without numba products
over ``_NUMPY_MAX`` multiply-adds use BLAS).
"""

from __future__ import annotations

import functools

import numpy as np

from .sum_order_ynn import sum_f32

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_VV_YNN = 4096  # vector . vector from this length on: a YNNPACK reduce of the products
_NUMPY_MAX = 1 << 24  # multiply-adds: above this, without numba, numpy's BLAS (256**3: ~0.3 s)


def _fma(a, b, c):
    """float32 ``a * b + c`` rounded once. The float64 product is exact; the float64 sum is made
    round-to-odd (its two-sum error decides the last bit), so that rounding it to float32 is the
    fused result (no double rounding: the same bits as LLVM's fma in ``backends/numba_dot``)."""
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.multiply(a, b, dtype=_F64)
        c = np.asarray(c, _F64)
        s = p + c
        z = s - p
        err = (p - (s - z)) + (c - z)  # p + c == s + err exactly (nan where s is not finite)
        odd = ((s.view(np.int64) & 1) == 0) & (np.abs(err) > 0)
        s = np.where(odd, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        return s.astype(_F32)


def _chain(x, y):
    """``fma`` chain over the last axis of ``x`` and ``y`` (broadcast), from zero."""
    shape = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
    acc = np.zeros(shape, _F32)
    for k in range(x.shape[-1]):
        acc = _fma(x[..., k], y[..., k], acc)
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


def _vv(x, y):  # x, y: (K,)
    if x.shape[-1] <= 32:
        return _chain(x, y)
    return _windowed_sum(x * y)


def _gemv(a, x):  # a: (B, M, K), x: (B, K) -> (B, M)
    m, k = a.shape[1:]
    kt = k // 8 * 8
    lanes = np.zeros((a.shape[0], m, 8), _F32)
    for t in range(0, kt, 8):
        lanes = _fma(a[:, :, t : t + 8], x[:, None, t : t + 8], lanes)
    rest = _chain(a[:, :, kt:], x[:, None, kt:])
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
    """YNNPACK's fp32 kernel of ``tile_k = u`` over all of ``k``: ``u`` lanes per output, lane
    ``l`` an ``fma`` chain over ``k = l, l+u, ...`` (missing ones count as zero products), the
    lanes added as a tree of adjacent pairs at the end (``(l0+l1)+(l2+l3)``)."""
    nb, m, k = a.shape
    lanes = np.zeros((nb, m, b.shape[2], u), _F32)
    for t in range(k):
        lanes[..., t % u] = _fma(a[:, :, t, None], b[:, None, t, :], lanes[..., t % u])
    while lanes.shape[-1] > 1:
        lanes = lanes[..., 0::2] + lanes[..., 1::2]
    return lanes[..., 0]


def _ynn(a, b, u, chunk):
    """The kernel of ``tile_k = u`` as YNNPACK runs it: the whole ``u``-steps of ``k`` in chunks
    of ``chunk`` (its L2 blocking of ``k``), then the rest (zero-padded to ``u``), each pass's
    lane tree added to the result of the ones before."""
    k = a.shape[2]
    whole = k // u * u
    bounds = [*range(0, whole, chunk), whole] + ([k] if whole < k else [])
    out = None
    for s, e in zip(bounds, bounds[1:]):
        r = _lanes(a[..., s:e], b[:, s:e], u)
        out = r if out is None else out + r
    return out


# YNNPACK's float32 kernels in JAX 0.10.2's jaxlib, in the order of its table (ties go to the
# first): ``(block_m, block_n, tile_n, tile_k, fused)``. Their symbol names give the register block
# ``block_m x block_n x tile_k``, the vector tile ``1 x tile_n x tile_k`` and the ISA: AVX-512's and
# FMA3's (and AVX2+FMA3's ``tile_k = 2``) fuse each multiply-add, AVX's rounds each product before
# adding it. (The library also has SSE2's and AVX2's unfused ones: with SSE2's in the choice, 39 of
# 4,800 measured shapes would differ from JAX; AVX2's never win it.)
_KERNELS = [
    *((bm, bn, 16, 1, True) for bm, bn in [(1, 64), (2, 64), (3, 64), (4, 64), (5, 64)]),
    *((bm, bn, 16, 1, True) for bm, bn in [(1, 32), (2, 32), (3, 32), (4, 32), (5, 32), (5, 16)]),
    *((bm, bn, 8, 2, True) for bm, bn in [(1, 32), (2, 32), (3, 32), (4, 32), (5, 32), (1, 16), (4, 16)]),
    *((bm, bn, 8, 2, True) for bm, bn in [(4, 8), (8, 8)]),
    *((bm, bn, 4, 4, True) for bm, bn in [(1, 32), (2, 32), (1, 16), (3, 16), (4, 16), (5, 16)]),
    *((bm, bn, 4, 4, True) for bm, bn in [(2, 8), (4, 8), (6, 8), (4, 4), (8, 4)]),
    *((bm, bn, 8, 1, True) for bm, bn in [(1, 32), (2, 32), (1, 16), (2, 16), (3, 16), (4, 16), (5, 16)]),
    *((bm, bn, 8, 1, True) for bm, bn in [(6, 16), (8, 8)]),
    *((bm, bn, 4, 2, True) for bm, bn in [(1, 16), (2, 16), (1, 8), (3, 8), (4, 8), (5, 8), (6, 8)]),
    *((bm, bn, 4, 2, True) for bm, bn in [(4, 4), (5, 4), (6, 4), (8, 4)]),
    *((bm, bn, 8, 1, False) for bm, bn in [(1, 32), (2, 32), (1, 16), (2, 16), (3, 16), (4, 16)]),
    *((bm, bn, 8, 1, False) for bm, bn in [(4, 8), (6, 8), (8, 8)]),
]
_UNKNOWN_M = 2048  # (YNNPACK's guess for an extent it does not know yet: "assume it's big")
_CACHE_FLOATS = 32768  # (the 128 KiB of packed b a chunk of k holds: schedule_dot's L2 share)


def _cost(m, n, k, kernel):
    """YNNPACK's cost of a kernel for an ``m x n x k`` dot (``estimate_dot_cost`` in its dot.cc:
    loads of ``a`` cost 5, of ``b`` 11, 9 a block, a 1e-4 penalty per tile element), in float32."""
    bm, bn, tn, tk, _ = kernel
    block = np.float32(bm * 5 + bn // tn * 11 + 9) + np.float32(tn * tk) * np.float32(1e-4)
    return np.float32(-(-m // bm) * -(-n // bn) * -(-k // tk)) * block


def _cheapest(m, n, k, kernels):
    """The first of the cheapest ``kernels`` for an ``m x n x k`` dot, and its cost."""
    best, pick = None, None
    for kernel in kernels:
        cost = _cost(m, n, k, kernel)
        if best is None or cost < best:
            best, pick = cost, kernel
    return pick, best


@functools.lru_cache(maxsize=4096)  # (a function of the shape and layout alone; each eager dot asks)
def _ynn_dot(m, n, k, transposed_b=False):
    """The kernel YNNPACK runs an ``m x n x k`` float32 dot with, and the band of columns of ``b``
    it packs together (None: ``b`` read as stored) (``define_dot`` and ``should_pack_b`` in its subgraph/dot.cc). It picks a kernel knowing only
    ``b``'s shape (``m`` taken as 2048) and packs ``b`` for it, interleaving ``tile_k`` rows, unless
    the cheapest kernel that reads ``b`` as stored (``tile_k = 1``) costs at most twice as much and
    ``a`` has at most 10 of that kernel's row blocks (a ``b`` XLA holds with ``k`` minor,
    ``transposed_b``, is always packed: the packing transposes it). Then, knowing ``m``, it runs the cheapest kernel
    that reads ``b`` as laid out: of the packing's ``tile_k`` (and a ``tile_n`` dividing the packed
    band of columns), or of ``tile_k = 1``. Measured against JAX: 4,800 shapes (``m`` 2..128, ``n``
    2..64, ``k`` 2..16), 400 random ones to 400 x 300 x 3000, and 400 with ``b`` transposed: all
    match.

    >>> _ynn_dot(16, 2, 4)  # (a small MLP's layer: b packed, 4 lanes of fma chains)
    ((8, 4, 4, 4, True), 4)
    >>> _ynn_dot(12, 8, 5)  # (AVX's kernel: each product rounded before it is added)
    ((6, 8, 8, 1, False), None)
    """
    guess, guess_cost = _cheapest(_UNKNOWN_M, n, k, _KERNELS)
    stored = [kernel for kernel in _KERNELS if kernel[3] == 1]
    unpacked, unpacked_cost = (guess, guess_cost) if guess[3] == 1 else _cheapest(_UNKNOWN_M, n, k, stored)
    if not transposed_b and unpacked_cost <= 2 * guess_cost and -(-m // unpacked[0]) <= 10:
        return _cheapest(m, n, k, stored)[0], None
    band = _packed_band(n, k, guess)
    fits = [kr for kr in _KERNELS if kr[3] == guess[3] and (kr[3] == 1 or band % kr[2] == 0)]
    return _cheapest(m, n, k, fits)[0], band


def _packed_band(n, k, kernel):
    """The columns of ``b`` packed together for ``kernel`` (``define_pack_b``): as many of its
    ``block_n`` as fit 128 KiB with all of ``k`` (at least one), at most ``n`` aligned to its
    ``tile_n``."""
    _, bn, tn, _, _ = kernel
    return max(tn, min(-(-n // tn) * tn, bn * max(1, _CACHE_FLOATS // (bn * k))))


def _matmul_order(m, n, k, transposed_b=False):
    """``_band_order(m, n, k, transposed_b)`` as a list (a fresh one: callers may keep it)."""
    return list(_band_order(m, n, k, bool(transposed_b)))


@functools.lru_cache(maxsize=4096)  # (a function of the shape and layout alone; each eager dot asks)
def _band_order(m, n, k, transposed_b):
    """The order a float32 matrix product of this shape is summed in: ``(j0, j1, tile_k, chunk)``
    for each band of output columns (``tile_k = 0``: one lane, each product rounded before it is
    added, as AVX's kernel does).

    XLA gives a dot to YNNPACK when its largest extent is at least 8 (else its own loop: one
    ``fma`` chain, as ``tile_k = 1``), which runs the kernel ``_ynn_dot`` gives. With ``b`` packed,
    its loop over ``k`` is cut into chunks of 128 KiB of the packed band (``schedule_dot`` in its
    kernels/dot/schedule.cc). With ``b`` read as stored, the tasks take bands of columns
    (``_split_n``), each summed in chunks of ``32768 // width`` of ``k``."""
    if max(m, n, k) < 8:
        return ((0, n, 1, k),)
    (_, _, _, tk, fused), band = _ynn_dot(m, n, k, transposed_b)
    if band is not None:
        return ((0, n, tk, _CACHE_FLOATS // (band * tk) * tk),)
    if not fused:
        return ((0, n, 0, k),)
    w = _split_n(m, n, k)
    return tuple((j, min(n, j + w), 1, _CACHE_FLOATS // (min(n, j + w) - j)) for j in range(0, n, w))


def _split_n(m, n, k, block_n=64):
    """The width of the bands of columns YNNPACK's dot tasks take (``choose_split_factors`` in its
    subgraph/dot.cc): a tile of ``min(m, 16)`` rows by ``min(n, block_n)`` columns doubles (columns
    while rows are at least 4 times as many or all of ``m``, else rows) until it holds
    ``max(min(m, 64) * min(n, 64), 256)`` outputs and either ``(rows + columns) * min(k, 1024)``
    reaches 65536 or the tile 65536 outputs, or neither can grow."""
    k = min(k, 1024)
    rows, cols = min(m, 16), min(n, block_n)
    least = min(m, 64) * min(n, 64)
    while not (rows * cols >= least and ((rows + cols) * k >= 65536 or rows * cols >= 65536)):
        if (4 * cols <= rows or rows >= m) and cols < n:
            cols *= 2
        elif (rows <= 4 * cols or cols >= n) and rows < m:
            rows *= 2
        else:
            break
    return cols


_numba_dot = None  # backends/numba_dot once loaded; False without numba


def _kernels():
    """``backends/numba_dot`` (the same orders compiled: ~100x faster), or None without numba."""
    global _numba_dot
    if _numba_dot is None:
        try:
            from ..backends import numba_dot
        except ImportError:
            _numba_dot = False
        else:
            _numba_dot = numba_dot
    return _numba_dot or None


def _c(x):
    # (C-contiguous and writeable: one compiled signature per kernel, which the warm-up compiles)
    if x.dtype == _F32 and x.flags.c_contiguous and x.flags.writeable:
        return x  # (what np.require returns for it, without its 5 us of argument parsing)
    return np.require(x, _F32, ["C", "W"])


def xla_dot(a: np.ndarray, b: np.ndarray, layout=(False, False)) -> np.ndarray | None:
    """``a`` (B, M, K) times ``b`` (B, K, N), float32, summed in XLA's order; ``None`` where the
    order is not known (the caller uses BLAS). ``layout`` is ``(transposed_a, transposed_b)``:
    whether XLA holds the dot's ``a`` with ``k`` major and its ``b`` with ``k`` minor
    (``dot_layout``), which decides the kernel that runs it."""
    with np.errstate(invalid="ignore", over="ignore"):  # (inf and nan sum as in the kernels)
        return _xla_dot(a, b, *layout)


def dot_layout(x_ndim, y_ndim, dimension_numbers) -> tuple[bool, bool]:
    """``(transposed_a, transposed_b)`` of a row-major ``dot_general`` as XLA's CPU backend runs it.
    Its DotDecomposer transposes an operand of a dot to ``(batch, free, contracting)`` and
    ``(batch, contracting, free)`` (and reshapes it to one free and one contracting dimension)
    unless that operand has one contracting and one free dimension behind its batch dimensions,
    leading in order: such an operand keeps its layout (TransposeFolding folds the transpose back,
    whatever the other operand is: jitted ``h @ emb.T`` with ``h`` of shape (2, 8, 16) reads
    ``emb`` as stored), and the kernels see ``k`` as the major dimension of ``a`` or the minor one
    of ``b``."""
    (xc, yc), (xb, yb) = dimension_numbers
    nb = len(xb)

    def kept(c, b, ndim):  # (an operand XLA reads as stored)
        return len(c) == 1 and list(b) == list(range(nb)) and ndim - nb == 2

    return kept(xc, xb, x_ndim) and xc[0] == nb, kept(yc, yb, y_ndim) and yc[0] == nb + 1


_EIGEN_KC = 320  # Eigen's contraction (XLA's DotThunk): k in one block up to this many steps


def _xla_dot(a, b, transposed_a=False, transposed_b=False):
    if a.dtype != _F32 or b.dtype != _F32:
        return None
    nb, m, k = a.shape
    n = b.shape[2]
    if k == 0 or nb * m * n == 0:
        return None
    fast = _kernels()
    if fast is None and nb * m * n * k > _NUMPY_MAX:
        return None
    if m > 1 and transposed_a:  # (DotThunk's Eigen contraction, or the column-major GEMV)
        if n == 1 and nb == 1:  # (a batch of them: one fma chain an output, measured)
            return _column_gemv(b[:, :, 0], np.swapaxes(a, 1, 2))[..., None]
        return banded_dot(a, b, [(0, n, 1, k)]) if k <= _EIGEN_KC or max(m, n, k) < 8 else None
    if m == 1 and n > 1 and transposed_b:  # (the row-major GEMV of b's rows)
        bt = np.swapaxes(b, 1, 2)
        if fast:
            out = np.empty((nb, n), _F32)
            fast.gemv(_c(bt), _c(a[:, 0]), out)
            return out[:, None, :]
        return _gemv(bt, a[:, 0])[:, None, :]
    if m == 1 and n == 1:
        x, y = a[:, 0], b[:, :, 0]
        if nb * k >= _VV_YNN:  # (one YNN fusion of the multiply and the sum over k; 2 threads'
            # tiles, measured with 1 and 2 CPUs alike, unlike a lone sum's)
            return sum_f32(x * y, (1,), threads=2).reshape(nb, 1, 1)
        if k > 32 and nb > 1:
            return _windowed_sum(x * y).reshape(nb, 1, 1)
        if k > 32:
            got = fast.windowed_dot(_c(x[0]), _c(y[0])) if fast else _windowed_sum(x[0] * y[0])
            return np.asarray(got, _F32).reshape(1, 1, 1)
    elif n == 1:
        if fast:
            out = np.empty((nb, m), _F32)
            fast.gemv(_c(a), _c(b[:, :, 0]), out)
            return out[..., None]
        return _gemv(a, b[:, :, 0])[..., None]
    if m == 1 or n == 1:  # (the column-major GEMV and short vector dots: one fma chain)
        if m == 1 and n > 1:
            # (a batch of them: other orders, not followed)
            return _column_gemv(a[:, 0], b)[:, None, :] if nb == 1 else None
        bands = [(0, n, 1, k)]
    else:
        bands = _matmul_order(m, n, k, transposed_b)
        if bands is None:
            return None
    return banded_dot(a, b, bands)


def _unfused_output(n, k):
    """The output of XLA's column-major GEMV (``x`` (K,) times ``b`` (K, N), 8 outputs by 8 steps
    of ``k`` a tile) whose first tile of ``k`` LLVM does not contract: in the scalar loop over the
    outputs past the whole 8-output tiles, the product of its first row of ``b`` is hoisted out of
    the ``k == 0`` branch (a store, where the other steps add), leaving the multiply and the add
    in different basic blocks. Measured: the last output when ``N % 8 == 1``, the first when
    ``N == 2``, for ``K >= 3`` (two steps are unrolled, the branch folded); every other output is
    one ``fma`` chain (the object code of ``col_major_gemv``)."""
    if k < 3:
        return None
    if n == 2:
        return 0
    return n - 1 if n > 1 and n % 8 == 1 else None


def _column_gemv(x, b):
    """``x`` (B, K) times ``b`` (B, K, N) -> (B, N), the column-major GEMV: one ``fma`` chain an
    output, but the output ``_unfused_output`` names sums its first 8 steps as rounded products
    and additions."""
    out = banded_dot(x[:, None, :], b, [(0, b.shape[2], 1, b.shape[1])])[:, 0, :]
    j = _unfused_output(*b.shape[2:0:-1])
    if j is not None:
        col, acc = b[:, :, j], np.zeros(x.shape[0], _F32)
        for t in range(x.shape[1]):
            acc = acc + x[:, t] * col[:, t] if t < 8 else _fma(x[:, t], col[:, t], acc)
        out[:, j] = acc
    return out


def banded_dot(a, b, bands):
    """``a`` (B, M, K) times ``b`` (B, K, N), float32, summed band by band of output columns as
    ``_matmul_order`` gives them: ``(j0, j1, tile_k, chunk)``."""
    nb, m, _ = a.shape
    n = b.shape[2]
    fast = _kernels()
    out = np.empty((nb, m, n), _F32)
    for j0, j1, u, chunk in bands:
        if u == 0:  # (AVX's kernel, for short k: each rounded product added in turn)
            part = np.zeros((nb, m, j1 - j0), _F32)
            for t in range(a.shape[2]):
                part += a[:, :, t, None] * b[:, None, t, j0:j1]
        elif fast:
            part = out if len(bands) == 1 else np.empty((nb, m, j1 - j0), _F32)
            bt = np.swapaxes(b[:, :, j0:j1], 1, 2)
            if bt.flags.c_contiguous:  # (b a transposed view, as in x @ x.T: packed from it as
                # it is, without first copying it transposed; ~1 ms of a 1000x1200 @ 1200x1000)
                fast.matmul(_c(a), _c(bt), u, chunk, part, True)
            else:
                fast.matmul(_c(a), _c(b[:, :, j0:j1]), u, chunk, part, False)
        else:
            part = _ynn(a, b[:, :, j0:j1], u, chunk)
        out[:, :, j0:j1] = part
    return out
