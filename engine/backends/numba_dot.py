"""float32 dot products summed in XLA's order (``lax/dot_order.py``), in numba: the same fma chains
and lane trees. ``matmul`` runs a register-blocked micro-kernel written in LLVM IR (``_micro``):
with AVX-512, 4 rows by 4 vectors of 16 floats; with AVX2, 2 rows by 4 vectors of 8. Each vector
holds the ``u`` lanes of ``_W // u`` columns, the accumulators stay in registers for a whole chunk
of ``k`` (numba's own loops load and store them every fma: ~5x slower); ``b`` is packed a band of
columns at a time (from its transpose as it is, for ``x @ x.T``), ``a`` read in place, and whole
tiles' sums stored (or added) by the micro-kernel itself. ``x @ x.T`` of a 1000x1200 ``x`` takes
~24 ms of CPU on one AVX-512 core as JAX's XLA does (measured side by side: the micro-kernel ~22 ms
of it), ~34 ms on an AVX2 core (JAX ~32 ms there); the old loops 135 ms, the numpy steps minutes.
The bits do not depend on the width: each output's fma chain and lane tree are the same.
``_fma`` is LLVM's fused multiply-add, rounded once as XLA's is. Compiling all three takes ~3.5 s
(``server/warmup.py`` does it before a zygote forks); loading them from numba's cache ~0.3 s. NaN
signs and payloads (a NaN input meeting an ``inf * 0``) follow whichever fma operand LLVM puts
first, as in the old loops: not specified."""

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .numba_math import _fma

_K = dict(cache=True, error_model="numpy", boundscheck=False)
f32 = np.float32


def _vector_width() -> int:
    """Floats in the micro-kernel's vectors: 16 (zmm) where numba compiles for AVX-512, else 8
    (ymm). A 16-float vector on an AVX2 machine is two ymm registers, and the 4 x 4 tile's
    accumulators no longer fit in its 16: they spill every step (~4x slower)."""
    import llvmlite.binding as llvm

    from numba.core import config

    features = config.CPU_FEATURES if config.CPU_FEATURES is not None else ""
    if not features and not config.CPU_NAME:
        return 16 if llvm.get_host_cpu_features().get("avx512f", False) else 8
    return 16 if "+avx512f" in features else 8


_W = _vector_width()
# micro-kernel tile: rows by vectors of _W floats. 16 zmm accumulators with AVX-512 (5 rows: ~5%
# slower); 8 ymm with AVX2, leaving b's 4 vectors and a's broadcast in registers too (3 rows spill:
# ~1.8x slower)
_MR, _NV = (4, 4) if _W == 16 else (2, 4)
_PACKED = 1 << 18  # floats of packed b at a time (1 MB: stays in L2/L3 beside 7 other devices')
_ABLOCK = 1 << 16  # floats of the rows of a run against all of the packed b (256 KB: L2)


def _micro(u):
    """An intrinsic ``(a, a_off, lda, bp, b_off, steps, dst, d_off, ldd, add)``: ``_MR`` rows of
    ``a`` (from flat index ``a_off``, ``lda`` apart) times ``steps`` packed steps of ``b``
    (``_pack``'s layout, from ``b_off``), each accumulator vector holding ``_W // u`` columns by
    their ``u`` lanes; the lane trees (``_MR`` rows of ``_W * _NV // u``) are stored into ``dst``
    from flat index ``d_off``, rows ``ldd`` apart, or added to what is there (``add``: ``dst +
    tree``, as a later chunk of ``k`` adds to the output). numba's loops keep accumulators in
    memory (a load and a store per fma); this loop's are phi nodes, i.e. vector registers, for all of
    k."""
    f, i64 = ir.FloatType(), ir.IntType(64)
    vec, uvec, ivec = ir.VectorType(f, _W), ir.VectorType(f, u), ir.VectorType(ir.IntType(32), _W)
    ncols = _W * _NV // u

    def c64(x):
        return ir.Constant(i64, x)

    @intrinsic
    def kern(typingctx, a, a_off, lda, bp, b_off, steps, dst, d_off, ldd, add):
        sig = types.void(
            a, types.intp, types.intp, bp, types.intp, types.intp, dst, types.intp, types.intp, types.boolean
        )

        def codegen(context, builder, sig, args):
            A, B, D = (context.make_array(sig.args[i])(context, builder, args[i]).data for i in (0, 3, 6))
            a_off, lda, b_off, steps, d_off, ldd, add = (args[i] for i in (1, 2, 4, 5, 7, 8, 9))
            fma = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(vec, [vec] * 3), f"llvm.fma.v{_W}f32"
            )
            pre, head = builder.block, builder.append_basic_block("mk.head")
            body, done = builder.append_basic_block("mk.body"), builder.append_basic_block("mk.done")
            builder.branch(head)
            builder.position_at_end(head)
            p = builder.phi(i64)
            p.add_incoming(c64(0), pre)
            acc = [[builder.phi(vec) for _ in range(_NV)] for _ in range(_MR)]
            for x in (x for row in acc for x in row):
                x.add_incoming(ir.Constant(vec, None), pre)  # (+0.0, as the lanes start)
            builder.cbranch(builder.icmp_signed("<", p, steps), body, done)
            builder.position_at_end(body)
            brow = builder.gep(B, [builder.add(b_off, builder.mul(p, c64(_W * _NV)))])
            bv = [
                builder.load(builder.bitcast(builder.gep(brow, [c64(_W * v)]), vec.as_pointer()), align=4)
                for v in range(_NV)
            ]
            # a[i, t:t+u] broadcast to the _W // u columns: lane l meets b[t + l, j]
            spread = ir.Constant(ivec, [q % u for q in range(_W)])
            arow = builder.add(a_off, builder.mul(p, c64(u)))
            new = []
            for r in range(_MR):
                ptr = builder.gep(A, [builder.add(arow, builder.mul(c64(r), lda))])
                av = builder.load(builder.bitcast(ptr, uvec.as_pointer()), align=4)
                av = builder.shuffle_vector(av, ir.Constant(uvec, None), spread)
                new.append([builder.call(fma, [av, bv[v], acc[r][v]]) for v in range(_NV)])
            p.add_incoming(builder.add(p, c64(1)), builder.block)
            for r, v in ((r, v) for r in range(_MR) for v in range(_NV)):
                acc[r][v].add_incoming(new[r][v], builder.block)
            builder.branch(head)
            builder.position_at_end(done)
            even = ir.Constant(ivec, list(range(0, 2 * _W, 2)))
            odd = ir.Constant(ivec, list(range(1, 2 * _W, 2)))
            trees = []
            for r in range(_MR):
                level = acc[r]
                while len(level) * _W > ncols:  # adjacent lanes summed, the lower first, in pairs
                    # of vectors: ((l0+l1), (l2+l3)) per column, then (l0+l1)+(l2+l3)
                    level = [
                        builder.fadd(builder.shuffle_vector(x, y, even), builder.shuffle_vector(x, y, odd))
                        for x, y in zip(level[0::2], level[1::2])
                    ]
                trees.append(level)
            # (each row's tree vectors, and where they go: d_off + r * ldd + _W * w)
            tiles = [
                (
                    trees[r][w],
                    builder.bitcast(
                        builder.gep(
                            D, [builder.add(d_off, builder.add(builder.mul(c64(r), ldd), c64(_W * w)))]
                        ),
                        vec.as_pointer(),
                    ),
                )
                for r in range(_MR)
                for w in range(len(trees[r]))
            ]
            with builder.if_else(add) as (then, otherwise):
                with then:  # (the output so far plus this chunk's tree, as the scalar loop added)
                    for tree, ptr in tiles:
                        builder.store(builder.fadd(builder.load(ptr, align=4), tree), ptr, align=4)
                with otherwise:
                    for tree, ptr in tiles:
                        builder.store(tree, ptr, align=4)
            return context.get_dummy_value()

        return sig, codegen

    return kern


_micro1, _micro2, _micro4 = _micro(1), _micro(2), _micro(4)


@nb.njit(**_K)
def _pack(b, kminor, s, e, steps, j0, u, ncols, bp, at):
    """``bp[at:][p, c, l] = b[s + p*u + l, j0 + c]`` (zero past ``n`` and from ``e`` on): the
    vector of ``_W`` floats the micro-kernel reads per step holds ``_W // u`` columns by their ``u``
    lanes. ``kminor``: ``b`` is given transposed, ``(N, K)`` (``x @ x.T``): each column's ``u``
    steps are adjacent there, copied as they are (no transposed copy of ``b`` first). (Loops, not
    slice assignments: those double numba's compile time here.)"""
    n = b.shape[0] if kminor else b.shape[1]
    cols = min(ncols, n - j0)
    if kminor:  # (u floats at a time from each of the band's rows: vector moves)
        for p in range(steps):
            base, t = at + p * ncols * u, s + p * u
            if t + u > e:
                for c in range(cols):
                    for q in range(u):
                        bp[base + c * u + q] = b[j0 + c, t + q] if t + q < e else 0
            elif u == 4:
                for c in range(cols):
                    row, d = b[j0 + c], base + 4 * c
                    bp[d], bp[d + 1], bp[d + 2], bp[d + 3] = row[t], row[t + 1], row[t + 2], row[t + 3]
            else:
                for c in range(cols):
                    for q in range(u):
                        bp[base + c * u + q] = b[j0 + c, t + q]
            for q in range(base + cols * u, base + ncols * u):
                bp[q] = 0
        return
    for p in range(steps):
        base, t = at + p * ncols * u, s + p * u
        if t + u > e:  # (the last u-step of k, zero-padded: fma(0, 0, +0.0) leaves a lane +0.0)
            for c in range(cols):
                for q in range(u):
                    bp[base + c * u + q] = b[t + q, j0 + c] if t + q < e else 0
        elif u == 4:  # (u rows of b interleaved: loops LLVM vectorizes, as a loop over u is not)
            r0, r1, r2, r3 = (
                b[t, j0 : j0 + cols],
                b[t + 1, j0 : j0 + cols],
                b[t + 2, j0 : j0 + cols],
                b[t + 3, j0 : j0 + cols],
            )
            for c in range(cols):
                bp[base + 4 * c] = r0[c]
                bp[base + 4 * c + 1] = r1[c]
                bp[base + 4 * c + 2] = r2[c]
                bp[base + 4 * c + 3] = r3[c]
        elif u == 2:
            r0, r1 = b[t, j0 : j0 + cols], b[t + 1, j0 : j0 + cols]
            for c in range(cols):
                bp[base + 2 * c] = r0[c]
                bp[base + 2 * c + 1] = r1[c]
        else:
            r0 = b[t, j0 : j0 + cols]
            for c in range(cols):
                bp[base + c] = r0[c]
        for q in range(base + cols * u, base + ncols * u):
            bp[q] = 0


@nb.njit(**_K)
def matmul(a, b, u, chunk, out, kminor=False):
    """YNNPACK's kernel of ``tile_k = u`` over ``a`` (B, M, K) and ``b`` (B, K, N) into ``out``
    (B, M, N): ``k`` in chunks of ``chunk`` (a multiple of ``u``) over the whole ``u``-steps, each
    chunk's lane tree added to the output in turn, then the rest of ``k`` as one more chunk (one
    step, zero-padded). ``b`` is packed ``_PACKED`` floats at a time, rows of ``a`` are run against
    it ``_ABLOCK`` floats at a time (the rows stay in L2 while the bands of ``b`` pass). With
    ``kminor``, ``b`` is given as its transpose (B, N, K). Whole tiles write their trees into
    ``out`` from the micro-kernel; the last rows and columns go through a small buffer."""
    nbatch, m, k = a.shape
    n = b.shape[1] if kminor else b.shape[2]
    whole = k // u * u
    ncols = _W * _NV // u
    most = max(min(chunk, whole) // u, 1)  # steps of a chunk
    band = most * _W * _NV  # floats of a packed band of columns
    nbands = max(1, min(-(-n // ncols), _PACKED // band))
    bp = np.empty(nbands * band + 16, f32)
    mc = max(_MR, _ABLOCK // (most * u) // _MR * _MR)
    mfull = m // _MR * _MR
    apad = np.zeros((_MR, most * u + 16), f32)  # the last rows of a, zero-padded to _MR
    atail = np.zeros((mfull + _MR, u), f32)  # the rest of k, zero-padded to u
    res = np.empty((_MR, ncols), f32)
    for bi in range(nbatch):
        ab, bb, ob = a[bi], b[bi], out[bi]
        s = 0
        while s < k:
            e = min(whole, s + chunk) if s < whole else k
            first, tail = s == 0, s >= whole
            steps = 1 if tail else (e - s) // u
            for i in range(0 if tail else mfull, m):
                for t in range(s, e):
                    if tail:
                        atail[i, t - s] = ab[i, t]
                    else:
                        apad[i - mfull, t - s] = ab[i, t]
            for jc in range(0, n, nbands * ncols):
                jend = min(n, jc + nbands * ncols)
                for j0 in range(jc, jend, ncols):
                    _pack(bb, kminor, s, e, steps, j0, u, ncols, bp, (j0 - jc) // ncols * band)
                for ic in range(0, m, mc):
                    for j0 in range(jc, jend, ncols):
                        cols = min(ncols, n - j0)
                        boff = (j0 - jc) // ncols * band
                        for i0 in range(ic, min(m, ic + mc), _MR):
                            if tail:
                                src, off = atail, i0 * u
                            elif i0 < mfull:
                                src, off = ab, i0 * k + s
                            else:
                                src, off = apad, 0
                            lda = src.shape[1]
                            whole_tile = i0 < mfull and cols == ncols
                            dst = ob if whole_tile else res
                            d_off = i0 * n + j0 if whole_tile else 0
                            ldd = n if whole_tile else ncols
                            add = whole_tile and not first
                            if u == 1:
                                _micro1(src, off, lda, bp, boff, steps, dst, d_off, ldd, add)
                            elif u == 2:
                                _micro2(src, off, lda, bp, boff, steps, dst, d_off, ldd, add)
                            else:
                                _micro4(src, off, lda, bp, boff, steps, dst, d_off, ldd, add)
                            if not whole_tile:
                                for r in range(min(_MR, m - i0)):
                                    for c in range(cols):
                                        v = res[r, c]
                                        ob[i0 + r, j0 + c] = v if first else ob[i0 + r, j0 + c] + v
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


@nb.njit(**_K)
def _tree8(v):
    # vhaddps, vperm2f128 + vaddps, vhaddps: the lanes' sum in oneDNN's gemv_t order
    return ((v[0] + v[1]) + (v[4] + v[5])) + ((v[2] + v[3]) + (v[6] + v[7]))


@nb.njit(**_K)
def gemv_t(a, w, bounds, out):
    """oneDNN's transposed f32 GEMV (``lax/conv_order._gemv_t``): ``a`` (G, M, K) times ``w``
    (G, K) -> ``out`` (G, M), ``k`` in the blocks between ``bounds`` each summed into the output
    in turn (from zero): 8 fma lanes over whole 16-steps, then 8, 4, 2, 1 rounded products."""
    ng, m = out.shape
    lanes = np.zeros(8, f32)
    for g in range(ng):
        for i in range(m):
            y = f32(0)
            for b in range(bounds.size - 1):
                s, e = bounds[b], bounds[b + 1]
                main = (e - s) // 16 * 16
                if main:
                    lanes[:] = 0
                    for t in range(s, s + main):
                        q = (t - s) % 8
                        lanes[q] = _fma(a[g, i, t], w[g, t], lanes[q])
                    y = y + _tree8(lanes)
                t = s + main
                for ux in (8, 4, 2, 1):
                    if (e - s - main) & ux:
                        lanes[:] = 0
                        for q in range(ux):
                            lanes[q] = a[g, i, t + q] * w[g, t + q]
                        y = y + _tree8(lanes)
                        t += ux
            out[g, i] = y


@nb.njit(**_K)
def chunked_chains(a, b, chunk, out):
    """``a`` (B, M, K) times ``b`` (B, K, N) -> ``out`` (B, M, N): ``k`` in chunks of ``chunk``,
    each one ``fma`` chain from zero, the chunks' sums added to the output in turn (the bands'
    ``(0, N, 1, chunk)``, a row at a time: the micro-kernel's passes over ``a`` are slow for
    short chunks)."""
    nb_, m, k = a.shape
    n = b.shape[2]
    acc = np.zeros(n, f32)
    row = np.zeros(n, f32)
    for bi in range(nb_):
        bb = b[bi]
        for i in range(m):
            ai = a[bi, i]
            row[:] = 0
            for s in range(0, k, chunk):
                acc[:] = 0
                for t in range(s, min(k, s + chunk)):
                    av = ai[t]
                    bt = bb[t]
                    for j in range(n):
                        acc[j] = _fma(av, bt[j], acc[j])
                for j in range(n):
                    row[j] = row[j] + acc[j]
            out[bi, i] = row
