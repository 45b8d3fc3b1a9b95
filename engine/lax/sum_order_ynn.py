"""The order in which JAX 0.10.2 adds the values of a large float sum: XLA:CPU hands a float32
or float64 ``reduce`` of >= 4096 input elements to YNNPACK (``__ynn_fusion`` in the optimized
HLO; float16 is converted to float32 around it; int32/int64 are not handed over). Read from
google/XNNPACK's ynnpack (kernels/reduce/sum.h, subgraph/reduce.cc, runtime.cc, slinky.cc of
May-June 2026) and dsharlet/slinky (simplify.cc's drop_loop); checked bit for bit against JAX
(tests/test_sum_ynn.py: 1-D 4096..1e6, 2-D/3-D/4-D over every axis set, keepdims, mean,
-0.0/inf/nan, float64, each with 2 and 1 XLA threads): every recorded case matches.

The order, on slinky dims (innermost first):

* Tiles. 32768 float32 (16384 float64) elements of tile area go innermost dim first: ``s =
  max(1, min(area_left, extent))``; a dim is whole if ``s >= extent``. If a reduced dim is cut,
  the reduce becomes a *partial* one (every tile into its own slot) and a *final* one over the
  slots. The tiles' loops get parallel workers outermost first while fewer than ``2*threads``
  tasks exist (the final's reduced dims never); slinky then drops the serial loops that hold
  only the call, innermost first, so their tiles merge into one call (slot 0 takes the merged
  sum, the other slots stay 0). So the order DEPENDS ON THE NUMBER OF XLA THREADS: with one,
  no tile is ever cut; with 2, 100000 values sum in tiles of 32768 but (8, 70000) rows whole.
  Tiles of the final that stay (serial loops around a parallel one) add into the output in turn.
* Calls. In a call, the innermost run of reduced dims contiguous in memory is ``k1``, the next
  run of adjacent reduced dims ``k2``, other reduced dims are loops. If the innermost dim is
  kept the ``kn`` kernel sums the ``k2`` rows of every column; else the ``k1`` kernel sums each
  ``k1`` run (looping over ``k2``). Each kernel result is added to the output (from 0.0) in turn.
* ``k1`` kernel (16 lanes for float32, 8 for float64, whatever the ISA): lane ``j`` takes elements
  ``j, j+16, ...``; each block of 4 vectors is summed from 0 into level 0 of a 3-level tree.
  Level 0 goes into level 1 every 4 blocks (then, under 256 elements, every 64; 2 for float64), level 1 into
  level 3 by Kahan summation every 1024 elements and at the end; the remainder block is
  zero-padded; the lanes are then added by halving (0..7 + 8..15, then 0..3 + 4..7, ...).
* ``kn`` kernel (``k`` rows): rows summed 4 at a time from 0 (missing rows are zeros); if
  ``k > 4`` the quads go into the same tree (16 rows into level 1, 256 into Kahan's level 3).

Also checked: 800 random shapes/axes (1-4 dims, 4096..3e6 elements) with 2 and 1 threads, and
sums fused with their producer in one YNN fusion (``jnp.sum(x * x)``, ``x * 2``, ``x + 1``: the
sum of the rounded values). Not modelled: bfloat16 (its kernel reads 2 values a lane), and
the order of several loop dims inside one call (C order assumed; needs 3 runs of reduced
dims). Timing: a 1e6-element sum takes ~2 ms with 2 threads, ~6 ms with 1.
"""

from __future__ import annotations

import os

import numpy as np

_LANES = {4: 16, 8: 8}  # 64-byte vectors
_AREA_BYTES = 32768 * 4


def sum_f32(x: np.ndarray, axes: tuple[int, ...], threads: int | None = None) -> np.ndarray:
    """JAX 0.10.2's ``reduce_sum`` of a float32 (or float64) ``x`` over ``axes`` when XLA hands it
    to YNNPACK (x.size >= 4096), run with ``threads`` XLA threads (default: as XLA counts them,
    the CPUs this process may run on). Returns the reduced dims removed, x's dtype."""
    x = np.ascontiguousarray(x)
    axes = {a % x.ndim for a in axes}
    out_shape = tuple(e for i, e in enumerate(x.shape) if i not in axes)
    if x.size == 0:
        return np.zeros(out_shape, x.dtype)
    if threads is None:
        threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    dims = [i for i, e in enumerate(x.shape) if e != 1]  # extent-1 dims change nothing
    a = x.reshape([x.shape[i] for i in dims])
    with np.errstate(invalid="ignore", over="ignore"):  # inf and nan add as in the kernels
        return _reduce(a, [i in axes for i in dims], threads).reshape(out_shape)


def _splits(shape, itemsize, pinned=()):
    """make_split_factors: per C-order dim its tile extent and whether it has a loop (a split
    below the extent, or a dim in ``pinned``, whose extent is symbolic when this runs)."""
    area, out = 1, []
    for d in reversed(range(len(shape))):
        s = max(1, min(_AREA_BYTES // itemsize // area, shape[d]))
        out.append((s, s < shape[d] or d in pinned))
        area *= s
    return out[::-1]


def _kept_loops(shape, splits, serial, threads):
    """How many outer dims keep their loops. Workers go to loops outermost first while fewer
    than 2*threads tasks exist (make_schedule; dims in ``serial``, a final reduce's 'k' dims,
    are never parallel); slinky then drops serial loops holding nothing but the call, from the
    innermost out, merging their tiles into one call. What remains: one index at a time of the
    outer dims, then chunks of the innermost remaining loop."""
    tasks, par = 1, {}
    for d, (s, loop) in enumerate(splits):
        if loop and not serial[d]:
            par[d] = threads > 1 and -(-2 * threads // tasks) > 1
            tasks *= -(-shape[d] // s)
    for d in reversed(range(len(shape))):
        if splits[d][0] < shape[d] and par.get(d, False):  # (one-trip loops vanish)
            return d + 1
    return 0


def _reduce(a, red, threads):
    splits = _splits(a.shape, a.itemsize)
    slot = [r and loop for r, (_, loop) in zip(red, splits)]  # reduced dims split: a partial
    if not any(slot):
        return _final(a, red, threads, ())
    # The partial reduce ('r' dims may run in parallel): each tile into its own slot; tiles that
    # slinky merged put their whole sum into slot 0 (the other slots keep the 0 they start with).
    q = _kept_loops(a.shape, splits, [False] * a.ndim, threads)
    ext = [-(-e // s) if sl else (1 if r else e) for e, (s, _), r, sl in zip(a.shape, splits, red, slot)]
    mid = np.zeros(ext, a.dtype)
    if q == 0:
        part = _call(a[None], red)[0]
        mid[tuple(0 if r else slice(None) for r in red)] = part.reshape(
            [e for e, r in zip(a.shape, red) if not r]
        )
    else:
        p, s = q - 1, splits[q - 1][0]
        e, rest = a.shape[p], a.shape[q:]
        b = a.reshape((-1, e) + rest)
        whole = e - e % s
        first = _call(b[:, :whole].reshape((-1, s) + rest), red[p:])  # (tiles, [s,] kept rest)
        tiles = [first.reshape((b.shape[0], -1) + first.shape[1 if red[p] else 2 :])]
        if e % s:
            last = _call(b[:, whole:], red[p:])
            tiles.append(last[:, None] if red[p] else last)
        part = np.concatenate(tiles, axis=1)  # (outer, slots or positions of p, kept rest)
        sel = tuple(0 if r else slice(None) for r in red[q:])
        view = mid.reshape((b.shape[0], ext[p]) + tuple(ext[q:]))
        view[(slice(None), slice(None)) + sel] = part.reshape(
            (b.shape[0], ext[p]) + tuple(x for x, r in zip(rest, red[q:]) if not r)
        )
    return _final(mid, red, threads, tuple(d for d in range(a.ndim) if slot[d]))


def _final(a, red, threads, pinned):
    """The last reduce (over the partial slots, or of a itself). Its reduced dims are serial
    loops; those slinky keeps (outside a parallel loop) add their tiles into the output in
    order (outer dims one index at a time, then chunks of the innermost kept loop)."""
    dims = [d for d in range(a.ndim) if a.shape[d] != 1]
    pinned = tuple(dims.index(d) for d in pinned if d in dims)
    a, red = a.reshape([a.shape[d] for d in dims]), [red[d] for d in dims]
    splits = _splits(a.shape, a.itemsize, pinned)
    q = _kept_loops(a.shape, splits, red, threads)
    seq = [d for d in range(q) if red[d]]
    if not seq:
        return _call(a[None], red)[0]
    last = q - 1 if red[q - 1] else None
    grid = [a.shape[d] if d != last else -(-a.shape[d] // splits[d][0]) for d in seq]
    c = None
    for idx in np.ndindex(*grid):
        sl = [slice(None)] * a.ndim
        for d, i in zip(seq, idx):
            sl[d] = slice(i * splits[d][0], (i + 1) * splits[d][0]) if d == last else slice(i, i + 1)
        c = _call(a[tuple(sl)][None], red, c)
    return c[0]


def _call(a, red, c=None):
    """One kernel call on a batch of tiles a (leading batch dim): reduces the dims in ``red``,
    adding each kernel result into c (0.0 if None). Returns (batch, kept dims...)."""
    shape = a.shape[1:]
    nz = [d for d in range(len(shape)) if shape[d] != 1]
    a = a.reshape((a.shape[0],) + tuple(shape[d] for d in nz))
    red = [red[d] for d in nz]
    shape, nd = a.shape[1:], a.ndim - 1
    kept = [d for d in range(nd) if not red[d]]
    zero = a.dtype.type(0)
    if not any(red):
        out = a + zero  # a reduction of unit dims only
        return out if c is None else c + out
    # classify the reduced dims, innermost first (ynn's make_unary_reduce_impl)
    strides = [int(np.prod(shape[d + 1 :], dtype=np.int64)) for d in range(nd)]
    k1, k2, st2, k1d, k2d, loopd = 1, 1, 0, [], [], []
    for d in reversed(range(nd)):
        if not red[d]:
            continue
        if k1 == strides[d]:
            k1 *= shape[d]
            k1d.insert(0, d)
        elif st2 * k2 == strides[d]:
            k2 *= shape[d]
            k2d.insert(0, d)
        elif k2 == 1:
            k2, st2 = shape[d], strides[d]
            k2d.insert(0, d)
        else:
            loopd.insert(0, d)
    # (batch, kept..., loops..., k2 dims..., k1 dims...)
    t = a.transpose([0] + [1 + d for d in kept + loopd + k2d + k1d])
    B = a.shape[0] * int(np.prod([shape[d] for d in kept], dtype=np.int64))
    L = int(np.prod([shape[d] for d in loopd], dtype=np.int64))
    lanes = _LANES[a.itemsize]
    if k1 == 1:  # the kn kernel: columns are the innermost kept dims
        r = _kn(t.reshape(B, L, k2).transpose(1, 2, 0), lanes)  # (L, B)
    else:
        r = _hsum(_k1(t.reshape(B * L * k2, k1), lanes)).reshape(B, L * k2).T
    c = np.zeros(B, a.dtype) if c is None else np.asarray(c, a.dtype).reshape(B)
    out = np.add.accumulate(np.concatenate([c[None], r]), axis=0)[-1]  # strictly in order
    return out.reshape((a.shape[0],) + tuple(shape[d] for d in kept))


def _seq(v, axis):
    """0 + v[0] + v[1] + ... along axis, left to right (as the SIMD code adds)."""
    v = np.moveaxis(v, axis, 0)
    acc = np.zeros(v.shape[1:], v.dtype) + v[0] if len(v) else np.zeros(v.shape[1:], v.dtype)
    for i in range(1, len(v)):
        acc = acc + v[i]
    return acc


def _kahan(acc, err, a):
    y = a - err
    t = acc + y
    e = (t - acc) - y
    return t, np.where(np.isfinite(e), e, e.dtype.type(0))


def _tree(units, per1, per2, dt, shape):
    """Level-0 units (U, *shape) into YNNPACK's accumulator tree: level 1 sums groups of per1
    units (each from 0), level 2 groups of per2 level-1 sums, each flushed by Kahan summation
    into level 3. Returns [level 3, level 1, Kahan error, level 0] for the caller to finish."""
    G = len(units) // per1
    zero = np.zeros(shape, dt)
    grp = _seq(units[: G * per1].reshape((G, per1) + shape), 1) if G else units[:0]
    S = G // per2
    acc, err = zero.copy(), zero.copy()
    for lvl1 in _seq(grp[: S * per2].reshape((S, per2) + shape), 1) if S else ():
        acc, err = _kahan(acc, err, lvl1)
    acc1 = _seq(grp[S * per2 :], 0) if G > S * per2 else zero
    acc0 = _seq(units[G * per1 :], 0) if len(units) > G * per1 else zero
    return [acc, acc1, err, acc0]


def _flush(t):
    """The final flush: level 0 into level 1, level 1 by Kahan into level 3."""
    acc, acc1, err, acc0 = t
    return _kahan(acc, err, acc1 + acc0)[0]


def _k1(rows, lanes):
    """sum_float_k1 of each row of rows (R, k): its vector accumulator (R, lanes). Blocks of
    4*lanes elements tick a clock by ``lanes``: level 0 goes to level 1 when the clock is a
    multiple of 16, level 1 to level 3 (Kahan) when it is a multiple of 256."""
    R, k = rows.shape
    blk = 4 * lanes
    nb, dt = k // blk, rows.dtype
    zero = np.zeros((R, lanes), dt)
    blocks = _seq(rows[:, : nb * blk].reshape(R, nb, 4, lanes), 2).transpose(1, 0, 2)
    nu = (k // (4 * blk)) * 4  # the 4x unrolled loop: a group of 4 blocks ticks 4*lanes
    t = _tree(blocks[:nu], 4, 256 // (4 * lanes), dt, (R, lanes))
    clock = nu * lanes
    for j in range(nu, nb):  # then (< 4) single blocks
        t[3] = t[3] + blocks[j]
        clock += lanes
        if clock % 16 == 0:
            t[1], t[3] = t[1] + t[3], zero
    if k % blk:  # the remainder, zero-padded
        pad = np.zeros((R, blk), dt)
        pad[:, : k % blk] = rows[:, nb * blk :]
        t[3] = t[3] + _seq(pad.reshape(R, 4, lanes), 1)
    return zero + _flush(t)


def _hsum(v):
    while v.shape[-1] > 1:
        h = v.shape[-1] // 2
        v = v[..., :h] + v[..., h:]
    return v[..., 0]


def _kn(a, lanes):
    """sum_float_kn: a (L, k, n) -> (L, n), the k rows of each column (lanes change nothing)."""
    L, k, n = a.shape
    q, dt = k // 4, a.dtype
    quads = _seq(a[:, : 4 * q].reshape(L, q, 4, n), 2).transpose(1, 0, 2) if q else a[:0]
    rem = None
    if k % 4:  # missing rows of the last quad are zeros
        rem = _seq(np.concatenate([a[:, 4 * q :], np.zeros((L, 4 - k % 4, n), dt)], 1), 1)
    if k <= 4:
        return rem if rem is not None else quads[0]
    t = _tree(quads, 4, 16, dt, (L, n))
    if rem is not None:
        t[3] = t[3] + rem
    return _flush(t)
