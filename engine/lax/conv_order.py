"""float32 convolutions summed in the order XLA's CPU backend sums them (JAX 0.10.2 on 2 CPUs).

XLA runs a float32 ``convolution`` one of four ways (``backend()``): its simplifier's dot (1x1
kernels; one vector slid over another of its length), its own loop nest (tiny operands; kernels
larger than the input, whose operands it swaps), a YNNPACK fusion (2-D, more than 16 features),
or its convolution thunk: Eigen's image patches contracted block by block, each block by oneDNN's
``dnnl_sgemm`` (``ONEDNN_VERBOSE=2`` lists the calls and their shapes). The contraction index runs
over the kernel window (row, column, ...) with the input feature innermost: the im2col product
``cols`` (M = batch x output positions, K = window x C) times the kernel (K, N = output
features), a feature group at a time. The orders, found against JAX's bits (sweeps of random
convolutions of 1-3 spatial dims with strides, padding, dilations, groups and their gradients;
grids of vector and depthwise shapes; tests/test_conv_sweep.py):

- Eigen's thunk (``thunk_plan``): one ``fma`` chain over ``k`` in order, cut into Eigen's k blocks
  (one sgemm call each, added in turn into the output: 320 when its cost model runs the product
  on 2 threads, else its one-thread L1 blocking), or ``k`` sharded between its 2 threads (each
  shard in blocks of 320, the shards' sums then added) when few outputs make the halves of ``k``
  worth their overhead: a CNN's weight gradient (27 x 16 outputs of k = batch x 32 x 32) is two
  shards. Its cost model weighs an image patch (2-D; 1-D runs as 2-D), a volume patch (3-D:
  fitted), a feature group's chipped input; no lanes for many features (oneDNN's sgemm chains).
- Other backends (YNNPACK, loops of other shapes) where ``N >= 17`` with more than 50 rows, or
  ``C >= 17``, and no padding of 2+ on both sides of a dim:
  lanes summed as ``dot_order``'s YNNPACK model sums a product (``_matmul_order`` for ``(M, N,
  C)``: the input features, not all of ``K``; ``tile_k`` lanes over the whole of ``K``), where
  ``C`` is a multiple of ``tile_k``; else one chain (``k`` sharded by shape alone where short
  outputs meet a long ``k``).
- One output feature a group (depthwise convolutions, ``jnp.convolve`` of vectors) on Eigen's
  path: oneDNN's GEMV, its k blocks as Eigen's blocking and cost model give them (``gemv_plan``).
  Loop nests: one chain (a swapped one over the input reversed).
- lhs dilation without strides or rhs dilation in 1-D and 2-D (``lax.conv_transpose``, the input
  gradients of strided convolutions): the thunk's own path, an sgemm of the input positions by
  their features times the kernel (features, window x outputs), whose products are added into
  the output a window position at a time.
- Not matched (the chain or the bands are used, the last bits can differ from JAX's): other lhs
  dilation (3-D, with strides or rhs dilation: the image patches' path), many batch
  groups (the weight gradients of grouped and depthwise convolutions: XLA rewrites them; taken
  as the thunk's product of all the groups' rows, which some are), YNNPACK
  convolutions of other shapes (depthwise ones with more than 16 features, strided ones),
  swapped or single-output loops of more than 32 terms (LLVM vectorizes their sums; e.g. some
  weight gradients, which XLA runs as its own loop nest with swapped operands), near ties of
  Eigen's cost model.
"""

from __future__ import annotations

import math

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
        if all(u and c % u == 0 for _, _, u, _ in plan):
            return plan
    return [(0, n, 1, _eigen_chunk(m, n, k))]


def _eigen_chunk(m: int, n: int, k: int) -> int:
    """The length of the runs of ``k`` summed apart (each one chain, the partial sums added in
    turn) where Eigen's threading is not followed (backends other than its thunk): all of ``k``
    but where it shards ``k`` between its 2 threads by shape alone."""
    half = k // 2
    if half >= 8 and (max(m, n) // 2 < 4 or half > 32 and min(m, n) < 8):
        per_thread = -(-k // 2)
        return min(k, max(96, -(-per_thread // 8) * 8))
    return k


def thunk_plan(m: int, n: int, k: int, cost: float) -> list:
    """How Eigen's thunk splits the ``k`` of an (m, k) x (k, n) product: ``(k0, k1, block)``
    shards, each summed apart (the partial sums added in turn), each in blocks of ``block`` (one
    sgemm call each: a chain from zero added into the shard's sum; ``ONEDNN_VERBOSE`` lists the
    calls). ``cost`` is an image patch's cost a coefficient in its cost model (as ``gemv_plan``'s):
    it runs the product on 2 threads when the outputs are worth it; else, when the halves of ``k``
    pay for their fixed overhead, it shards ``k`` between them (a CNN's weight gradient: few
    outputs, long ``k``). Blocks: 320 on 2 threads and in shards, else its one-thread L1 blocking.

    >>> thunk_plan(5, 8, 240, 11.4375)  # (a weight gradient: one sgemm over all of k)
    [(0, 240, 240)]
    >>> thunk_plan(252, 8, 495, 11.4375)  # (two sgemm calls: k 248, then 247)
    [(0, 495, 248)]
    >>> thunk_plan(27, 16, 2048, 11.4375)  # (8x3x16x16 * 16x3x3x3's weight gradient)
    [(0, 1024, 256), (1024, 2048, 256)]
    """
    by_k = k * (m * (cost + 0.25 * n) + 0.6875 * n) / 2 > 106000 + 1.28125 * m * n
    work = m * (min(k, 320) * (cost + 0.25 * n) + 0.6875 * n)
    threads = max(1, min(2, int((work - 100000) / 100000 + 0.9)))
    half = k // 2
    if by_k and half >= 8 and (max(m, n) // threads < 4 or half > 32 and (min(m, n) < 8 or threads < 2)):
        per_thread = -(-k // 2)
        size = min(k, max(96, -(-per_thread // 8) * 8))  # (Eigen's blockSize: 12 packets at least)
        out = []
        for s in range(0, k, size):
            e = min(k, s + size)
            edges = _slices(e - s, 320)
            out.append((s, e, edges[1] - edges[0]))
        return out
    edges = _slices(k, 320 if threads > 1 else _kc_one_thread(k))
    return [(0, k, edges[1] - edges[0])]


def backend(
    lhs_shape,
    rhs_shape,
    out_shape,
    strides=(),
    padding=(),
    lhs_dilation=(),
    groups=1,
    batch_group_count=1,
    rhs_dilation=(),
) -> str:
    """Which of XLA's CPU convolutions runs a float32 convolution of these canonical (N, C,
    spatial...) shapes: ``"dot"`` (its simplifier makes a dot of a 1x1 kernel without strides,
    padding or lhs dilation, and of one vector slid over another of its length), ``"elemental"``
    (its own loop nest, one ``fma`` chain an output: when an operand or the output holds at most 2
    floats, under the 16-byte alignment Eigen's path wants), ``"ynn"`` (a YNNPACK fusion: 2-D, no
    batch groups or lhs dilation, more than 16 input or output features, no spatial extent of the
    output or kernel past the input's) or ``"eigen"`` (its convolution thunk: Eigen's image
    patches contracted by oneDNN's sgemm, block by block).

    >>> backend((1, 1, 100), (1, 1, 7), (1, 1, 94)), backend((1, 1, 100), (1, 1, 2), (1, 1, 99))
    ('eigen', 'elemental')
    >>> backend((1, 32, 4, 5), (32, 1, 3, 3), (1, 32, 4, 5), groups=32)
    'ynn'
    """
    plain = not any(s != 1 for s in strides) and not any(lo or hi for lo, hi in padding)
    plain = plain and not any(d != 1 for d in lhs_dilation) and groups == batch_group_count == 1
    if plain and all(d == 1 for d in rhs_shape[2:]):
        return "dot (1x1)"  # (summed as the bands below have it: the same orders, measured)
    if plain and lhs_shape[:2] == rhs_shape[:2] == (1, 1) and tuple(lhs_shape) == tuple(rhs_shape):
        return "dot"
    swap = groups == batch_group_count == 1 and _swapped(lhs_shape, rhs_shape, strides, padding, lhs_dilation)
    if swap:  # (past 32 terms LLVM vectorizes the loop's sum: an order not followed)
        return "swapped" if swap <= 32 else "swapped, vectorized"
    if min(math.prod(lhs_shape), math.prod(rhs_shape), math.prod(out_shape)) <= 2:
        return "elemental"
    if batch_group_count > 1:
        return "batch groups"  # (XLA rewrites them into other convolutions: not followed)
    plain_window = not any(d != 1 for d in (*strides, *rhs_dilation))
    if any(d != 1 for d in lhs_dilation) and plain_window and len(lhs_shape) <= 4:
        return "transposed"  # (its 1-D/2-D thunk's own path: (input, C) x (C, window x O) sgemms)
    sp = range(2, len(lhs_shape))
    if (
        len(sp) == 2
        and batch_group_count == 1
        and not any(d != 1 for d in lhs_dilation)
        and max(lhs_shape[1], out_shape[1]) > 16
        and all(out_shape[d] <= lhs_shape[d] and rhs_shape[d] <= lhs_shape[d] for d in sp)
    ):
        return "ynn"
    return "eigen"


def _swapped(lhs_shape, rhs_shape, strides, padding, lhs_dilation) -> int:
    """XLA's simplifier swaps a convolution's operands when the kernel is larger than the input
    (counting the spatial dims that are not a plain contraction); the swapped one reverses its
    window, which only XLA's loop nest runs. The swapped window's size, or 0."""
    kernel = swapped = 1
    for d in range(2, len(lhs_shape)):
        k, size = rhs_shape[d], lhs_shape[d]
        s, (lo, hi) = (strides[d - 2], padding[d - 2]) if strides else (1, (0, 0))
        ld = lhs_dilation[d - 2] if lhs_dilation else 1
        if k == size and lo == hi == 0 and s == ld == 1:
            continue  # (a contraction dim: kept as it is)
        kernel *= k
        swapped *= k if size == 1 and s == 1 and lo == hi == k - 1 else size
    return swapped if kernel > swapped else 0


# One output feature (depthwise convolutions, convolutions of vectors): oneDNN's sgemm is a GEMV
# (``jit_avx_gemv_t_f32_kern``): per output 8 fma lanes over the whole 16-steps of k, their sum
# ``((l0+l1)+(l4+l5))+((l2+l3)+(l6+l7))`` added to the output, then the rest in pieces of 8, 4,
# 2 and 1 rounded products, each piece's lane sum added in turn. Eigen hands it k in slices (its
# L1 blocking, refined to multiples of 8), or shards k between its 2 threads (each shard summed
# apart, the two added) where its cost model says so. Both measured against JAX on ~440 vector
# and depthwise convolutions (ONEDNN_VERBOSE lists the calls).


def _kc_one_thread(k: int) -> int:
    """Eigen's k blocking for one thread (``computeProductBlockingSizes``, a 48 KiB L1)."""
    most = ((48 * 1024 - 384) // 112) & ~7
    if k <= most or k % most == 0:
        return min(k, most)
    return most - 8 * ((most - 1 - k % most) // (8 * (k // most + 1)))


def _slices(k: int, kc: int) -> list:
    """The mkldnn blocking's slices of k: ``ceil(k / kc)`` slices of ``k // slices`` rounded to 8."""
    size = min(k, -(-(k // max(1, -(-k // kc))) // 8) * 8)
    return [*range(0, k, size), k]


def gemv_plan(rows: int, k: int, grouped: bool = False) -> list:
    """The k blocks of a one-feature convolution's product: a list of shards (summed apart, then
    added), each the bounds of slices summed into one output in turn. ``grouped``: a feature group
    of several (Eigen's image patches of a chipped input cost more in its model).

    >>> gemv_plan(100, 127), gemv_plan(200, 127)
    ([[0, 127]], [[0, 96], [96, 127]])
    >>> gemv_plan(3, 600)
    [[0, 304, 600]]
    """
    patch = 11.4375 + 3.75 * grouped  # per patch coefficient: loads and index arithmetic
    per_k = rows * (patch + 0.25) + 0.6875
    by_k = k * per_k / 2 + 100000 + 2 * (0.640625 * rows + 3000) < k * per_k
    cost = rows * (min(k, 320) * (0.25 + patch) + 0.6875)
    threads = max(1, min(2, int((cost - 100000) / 100000 + 0.9)))
    if by_k and k >= 16 and (rows // threads < 4 or k > 65):
        half = -(-k // 2)
        size = min(k, max(96, -(-half // 8) * 8))  # (Eigen's blockSize: 12 AVX packets at least)
        return [[s + b for b in _slices(min(k, s + size) - s, 320)] for s in range(0, k, size)]
    return [_slices(k, 320 if threads > 1 else _kc_one_thread(k))]


def _gemv_t(a, w, bounds):
    """``a`` (G, M, K) times ``w`` (G, K) in oneDNN's gemv_t order (numpy steps)."""
    y = np.zeros(a.shape[:2], _F32)
    for s, e in zip(bounds, bounds[1:]):
        main = (e - s) // 16 * 16
        pieces = [(s, s + main, True)] if main else []
        t = s + main
        for ux in (8, 4, 2, 1):
            if (e - s - main) & ux:
                pieces.append((t, t + ux, False))
                t += ux
        for p0, p1, fused in pieces:
            lanes = np.zeros((*a.shape[:2], 8), _F32)
            for t in range(p0, p1):
                q = (t - p0) % 8
                if fused:
                    lanes[..., q] = dot_order._fma(a[..., t], w[:, None, t], lanes[..., q])
                else:
                    lanes[..., q] = a[..., t] * w[:, None, t]
            v = lanes
            tree = ((v[..., 0] + v[..., 1]) + (v[..., 4] + v[..., 5])) + (
                (v[..., 2] + v[..., 3]) + (v[..., 6] + v[..., 7])
            )
            y = y + tree
    return y


def _one_feature(cols, kernel, grouped):
    g, m, k = cols.shape
    fast = dot_order._kernels()
    w = kernel[:, :, 0]
    out = None
    for shard in gemv_plan(m, k, grouped):
        if fast:
            part = np.empty((g, m), _F32)
            fast.gemv_t(dot_order._c(cols), dot_order._c(w), np.asarray(shard, np.int64), part)
        else:
            part = _gemv_t(cols, w, shard)
        out = part if out is None else out + part
    return out[..., None]


def contract(cols: np.ndarray, kernel: np.ndarray, c: int, shapes=None, conv=()) -> np.ndarray:
    """``cols`` (G, M, K) @ ``kernel`` (G, K, N) of a convolution with ``c`` input features a
    group, of canonical ``shapes`` (lhs, rhs, out) and ``conv`` = (strides, padding, lhs
    dilation, groups, batch groups): float32 in XLA's order (as far as known: see above), other
    dtypes with numpy's."""
    runs = backend(*shapes, *conv) if shapes else "eigen"
    padding, lhs_dilation = (conv[1], conv[2]) if conv else ((), ())
    g, m, k = cols.shape
    n = kernel.shape[2]
    if cols.dtype != _F32 or kernel.dtype != _F32 or not k or not g * m * n:
        return np.matmul(cols, kernel)
    if dot_order._kernels() is None and g * m * n * k > dot_order._NUMPY_MAX:
        return np.matmul(cols, kernel)  # (without numba: too slow in numpy steps)
    with np.errstate(invalid="ignore", over="ignore"):
        if runs == "dot":
            got = dot_order.xla_dot(cols, kernel)
            if got is not None:
                return got
        if runs == "swapped" and c == n == 1:  # (its loop: one fma chain, the input reversed)
            return dot_order.banded_dot(cols[..., ::-1], kernel[:, ::-1], [(0, n, 1, k)])
        if runs == "elemental":
            return dot_order.banded_dot(cols, kernel, [(0, n, 1, k)])
        if runs == "transposed" and g == 1:
            # (its thunk's own path: an sgemm of the input's positions by their c features times
            # the kernel (features, window x outputs), one fma chain each, the products added into
            # the output a window position at a time, from zero: the bands' chunks of c; the
            # dilation's holes add +0.0, which changes no sum that starts at +0.0)
            fast = dot_order._kernels()
            if fast is None:
                return dot_order.banded_dot(cols, kernel, [(0, n, 1, c)])
            out = np.empty((g, m, n), _F32)
            fast.chunked_chains(dot_order._c(cols), dot_order._c(kernel), c, out)
            return out
        if runs == "eigen" and n == 1:
            return _one_feature(cols, kernel, g > 1)
        if runs in ("eigen", "batch groups") and shapes:
            # (an image patch's cost in Eigen's model, a volume patch's in 3-D (fitted: 30 to 90
            # match the sweep), more for a feature group's chipped input; XLA's rewrite of batch
            # groups makes the groups' rows one product)
            cost = (11.4375 if len(shapes[0]) <= 4 else 45.0) + 3.75 * (g > 1)
            plan = thunk_plan(m * g if runs == "batch groups" else m, n, k, cost)
            if all(k1 - k0 <= block for k0, k1, block in plan):  # (shards of one block: chunks)
                return dot_order.banded_dot(cols, kernel, [(0, n, 1, plan[0][2])])
            out = None
            for k0, k1, block in plan:
                part = dot_order.banded_dot(cols[..., k0:k1], kernel[:, k0:k1], [(0, n, 1, block)])
                out = part if out is None else out + part
            return out
        return dot_order.banded_dot(cols, kernel, bands(m, n, k, c, padding, lhs_dilation))
