"""float32 sums in the order XLA's CPU compiler adds them, so ``jnp.sum`` and everything built on
it (means, variances, softmax, losses) give JAX 0.10.2's bits rather than a more accurate sum.

Below 4096 elements XLA's tree-reduction rewriter cuts every reduced dimension longer than 32 into
windows of 32 (padded with zeros, the odd one more at the high end) and sums each window in
row-major order; it repeats until no reduced dimension is longer than 32, then one loop nest
finishes. That last loop runs in order (one accumulator, starting from 0), except where LLVM
vectorizes it: over the rows of the two innermost reduced dimensions when the innermost has 2 to 8
elements and every kept dimension is outside them (``_VF``: lanes start from the running sum and
-0, take rows k, k+VF, ... each in column order, and meet pairwise, halves first; leftover rows
follow in order). With a kept dimension inside, XLA vectorizes over it and each sum is in order.
Measured against JAX 0.10.2 on an AVX-512 CPU: every 1-d and single-axis sum (random sizes to
4095), 397 of 400 random shapes and axis sets; the rest are windows whose padding LLVM splits off
(a dimension of 63, 32x8x7 windows). Jitted sums of products (``jnp.sum(a * b)``, of squares)
fuse each product into its addition (``y``), but where LLVM's loop puts each row's products in
vector lanes (``_vectorized_rows``); a square's first two products fuse as ``fma(x0, x0, x1*x1)``.
Sums along one axis match every shape measured; over several axes all but 1 of 120 random shapes,
and 671 of 688 jitted full sums of (rows, 2..9) products or squares (not modelled: 64 rows, two
unpadded windows; 18-19 rows of 7-8 products). From 4096 elements XLA hands the sum to YNNPACK (``sum_order_ynn``).
"""

from __future__ import annotations

import numpy as np

f32 = np.float32
WINDOW = 32
TREE_LIMIT = 4096  # from here XLA calls YNNPACK

# rows R -> lanes LLVM uses for the loop over R rows of 2..6 columns (7 or 8 columns: at most 4);
# rows not listed: not vectorized
_VF = {2: 2, 4: 4, 8: 8, 16: 8, 17: 8, 18: 8, 19: 8, 20: 4, 21: 4, 22: 4, 23: 4}
_VF.update({24: 8, 25: 8, 26: 8, 27: 8, 28: 4, 29: 4, 30: 4, 31: 4, 32: 8})


def xla_ordered(dtype, size: int) -> bool:
    """Whether the engine sums ``size`` elements of ``dtype`` in XLA's order: float32 always
    (here below 4096 elements, ``sum_order_ynn`` from there), float64 where YNNPACK sums it."""
    return size > 0 and (dtype == np.float32 or (dtype == np.float64 and size >= TREE_LIMIT))


def _lanes(rows: int, cols: int) -> int:
    if not 2 <= cols <= 8:
        return 0
    v = _VF.get(rows, 0)
    if cols == 2 and 28 <= rows <= 31:
        return 8
    return 4 if cols >= 7 and v == 8 else v


def _in_order(
    x: np.ndarray, start: np.ndarray | None = None, y: np.ndarray | None = None, square: bool = False
) -> np.ndarray:
    """Sums along the last axis, one element after another, from ``start`` (else +0); with ``y``,
    of the products ``x * y``, each added by a fused multiply-add (rounded once: the float64
    product is exact, the float64 sum rounds twice for ~1 input in 2**29). With ``square`` (the
    products are squares, never -0, in a loop LLVM unrolled), ``0 + x0*x0`` folds to ``x0*x0``,
    and of ``x0*x0 + x1*x1`` LLVM fuses the first product: ``fma(x0, x0, x1*x1)``, then in order."""
    if y is not None and x.dtype == f32 and y.dtype == f32 and x.shape == y.shape and x.shape[-1] > 8:
        try:
            from ..backends.numba_sum import fma_in_order
        except ImportError:  # (without numba: the loop below)
            pass
        else:
            return fma_in_order(x, y, start, square)
    if y is not None:
        acc = np.zeros(x.shape[:-1], np.float64) if start is None else np.asarray(start, np.float64)
        k0 = 0
        if square and start is None and x.shape[-1] >= 2:
            acc = (x[..., 1] * y[..., 1]).astype(np.float64)
            acc = (x[..., 0].astype(np.float64) * y[..., 0] + acc).astype(f32).astype(np.float64)
            k0 = 2
        for k in range(k0, x.shape[-1]):
            acc = (x[..., k].astype(np.float64) * y[..., k] + acc).astype(f32).astype(np.float64)
        return acc.astype(f32) + f32(0)
    if start is not None:
        x = np.concatenate([np.asarray(start, f32)[..., None], x], axis=-1)
    if x.shape[-1] == 0:
        return np.zeros(x.shape[:-1], f32)
    return np.cumsum(x, axis=-1, dtype=f32)[..., -1] + f32(0)  # (+0: a sum of -0s is +0)


# body -> columns -> rows from which LLVM takes 8 rows a vector rather than 4 (None: never)
_EIGHTS = {
    "load_square": {5: 36, 6: 36, 7: None, 8: None},
    "loads": {5: 44, 6: 44, 7: None, 8: None},
    "light": {2: 24, 3: 60, 4: 68, 5: 44, 6: 44, 7: None, 8: None},
}


def _vectorized_rows(rows: int, cols: int, body: str) -> int:
    """How many of ``rows`` sums of ``cols`` products (the reduced axis innermost) LLVM computes in
    vector lanes, one row a lane, in XLA's loop over the rows: there each product is shuffled into
    its lane before its addition, so none is fused. It depends on the loop's body: the square of a
    loaded array (``x*x``) or a product of two (``x*y``), both vectorized with 5 to 8 columns; of
    values made by additions and multiplications (``(x-y)**2``), with 2 to 8; anything costlier
    (an exp) never. More columns (up to the 32 of a window) and LLVM unrolls them but keeps the
    rows scalar. Vectors of 4 rows from 16 rows, of 8 from ``_EIGHTS``; with fewer than 16 rows
    only 4 or 8 of them (and 2 squares of a loaded array); the rest run scalar. Measured against
    JAX 0.10.2 on every row count to 4096 elements for ``x*x``, ``x*y`` and ``(x-y)**2``."""
    eights = _EIGHTS.get(body, {})
    if cols not in eights:
        return 0
    if rows < 16:
        return rows if rows in (4, 8) or (rows == 2 and body == "load_square") else 0
    eight = eights[cols]
    if eight is not None and rows >= eight:
        return rows // 8 * 8
    if cols == 8 and rows in (18, 19) and body == "loads":
        return 18
    return rows // 4 * 4


def _rows(x: np.ndarray, y: np.ndarray | None, square: bool, body: str) -> np.ndarray:
    """``x`` (*lead, n) (times ``y``) summed over its last axis, the reduced axis innermost: each
    row in order, its products fused into the additions but in the rows LLVM vectorized."""
    if y is None:
        return _in_order(x)
    out = _in_order(x, None, y, square)
    lanes = _vectorized_rows(x.shape[-2], x.shape[-1], body) if x.ndim >= 2 else 0
    if lanes:
        out[..., :lanes] = _in_order(x[..., :lanes, :] * y[..., :lanes, :])
    return out


def _halves(lanes: np.ndarray) -> np.ndarray:
    while lanes.shape[-1] > 1:
        h = lanes.shape[-1] // 2
        lanes = lanes[..., :h] + lanes[..., h:]
    return lanes[..., 0]


def _last_two(x: np.ndarray, start: np.ndarray, y: np.ndarray | None, body: str = "loads") -> np.ndarray:
    """``x[..., R, C]`` (times ``y``) summed over its last two axes onto ``start``, as LLVM's loop does."""
    rows, cols = x.shape[-2:]
    lead = x.shape[:-2]
    # (with products, the loop's cost moves LLVM's choice: 2 rows go in lanes only when they are
    # the squares of a loaded array, and 8 rows of 7-8 such squares in 8 lanes, not 4)
    vf = _lanes(rows, cols) if y is None or rows != 2 or body == "load_square" else 0
    if body == "scalar":  # (a loop LLVM does not vectorize: a gather's loads)
        vf = 0
    if y is not None and body == "load_square" and rows == 8 and cols in (7, 8):
        vf = 8
    flat = lambda a: None if a is None else a.reshape(*lead, -1)  # noqa: E731
    if not vf:
        return _in_order(flat(x), start, flat(y))
    m = rows // vf * vf
    lanes = np.full((*lead, vf), -0.0, f32)
    lanes[..., 0] = start

    def in_lanes(a):
        return (
            None
            if a is None
            else np.moveaxis(a[..., :m, :].reshape(*lead, m // vf, vf, cols), -2, -3).reshape(*lead, vf, -1)
        )

    # (from 5 columns LLVM loads the rows' columns as interleaved vectors and shuffles each
    # product into its lane: the products round before their additions, as in ``_rows``)
    shuffled = y is not None and cols >= 5
    if shuffled:
        total = _halves(_in_order(in_lanes(x * y), lanes))
    else:
        total = _halves(_in_order(in_lanes(x), lanes, in_lanes(y)))
    rest = None if y is None else flat(y[..., m:, :])
    return _in_order(flat(x[..., m:, :]), total, rest)


def _window_layout(shape: tuple, axes: list[int]) -> tuple:
    """How the rewriter cuts the reduced ``axes`` of an array of ``shape`` into windows of 32: the
    shape padded to whole windows, where the values sit in it (the odd pad high), the split shape
    and the axis order that put each window's elements last, behind the kept dimensions' count."""
    long = [a for a in axes if shape[a] > WINDOW]
    padded, place = list(shape), [slice(None)] * len(shape)
    for a in long:
        extra = -shape[a] % WINDOW
        padded[a] += extra
        place[a] = slice(extra // 2, extra // 2 + shape[a])
    split: list[int] = []
    inner: list[int] = []
    outer: list[int] = []
    for d, n in enumerate(padded):
        outer.append(len(split))
        if d in axes:
            k = WINDOW if d in long else n
            inner.append(len(split) + 1)
            split += [n // k, k]
        else:
            split.append(n)
    return tuple(padded), tuple(place), split, outer + inner, len(outer)


def _window(x: np.ndarray, axes: list[int], y: np.ndarray | None = None) -> np.ndarray:
    """One pass of the rewriter: the reduced axes (of ``x * y``) cut into windows, each summed in
    row-major order."""
    padded, place, split, order, kept = _window_layout(x.shape, axes)

    def pad(a):  # (zeros around, the odd one high; np.pad costs 10 us more)
        if a is None or padded == a.shape:
            return a
        out = np.zeros(padded, f32)
        out[place] = a
        return out

    def windows(a):
        a = np.transpose(pad(a).reshape(split), order)
        return a.reshape(*a.shape[:kept], -1)

    return _in_order(windows(x), None, None if y is None else windows(y))


def _sum_1d(x: np.ndarray) -> np.ndarray:
    """``sum_f32(x, (0,))`` of a non-empty 1-d ``x``: the rewriter's passes of windows of 32 (zeros
    padded around, the odd one high), each summed in order, then the last (at most 32) in order."""
    while x.shape[0] > WINDOW:
        n = x.shape[0]
        extra = -n % WINDOW
        if extra:
            padded = np.zeros(n + extra, f32)
            padded[extra // 2 : extra // 2 + n] = x
            x = padded
        # (add.accumulate: cumsum's additions, one after another, without its dtype argument's
        # ~1 us of type resolution a call)
        x = np.add.accumulate(x.reshape(-1, WINDOW), axis=1)[:, -1] + f32(0)
    return np.asarray(np.add.accumulate(x)[-1] + f32(0))


def sum_f32(
    x: np.ndarray,
    axes: tuple[int, ...],
    y: np.ndarray | None = None,
    square: bool = False,
    body: str = "loads",
) -> np.ndarray:
    """``x`` (float32, fewer than 4096 elements) summed over ``axes`` as XLA's CPU kernel does; with
    ``y`` (of ``x``'s shape), the sum of ``x * y`` whose products XLA fuses into the additions
    (jitted ``jnp.sum(a * b)``, ``jnp.sum(x ** 2)``); ``square`` when they are a value times itself,
    ``body`` what the kernel computes before them (``_vectorized_rows``); ``"scalar"``: a loop
    LLVM keeps scalar (it gathers its terms), which adds in order where lanes would split it.

    >>> float(sum_f32(np.float32([1e8, 1, -1e8, 1]), (0,)))
    1.0
    """
    reduced = {a % x.ndim for a in axes} if x.ndim else set()
    out_shape = [n for d, n in enumerate(x.shape) if d not in reduced]
    x = np.asarray(x, f32)
    if not reduced:
        return x.copy() if y is None else x * np.asarray(y, f32)
    if x.size == 0:
        return np.zeros(out_shape, f32)
    if y is None:  # (the common sums, without the general loop nest's bookkeeping: same additions)
        if x.ndim == 1:
            return _sum_1d(x)
        if len(reduced) == 1 and x.ndim - 1 in reduced and x.shape[-1] <= WINDOW:
            # (in order along the row: numpy reduces an outer axis of a contiguous array one row
            # at a time, the running sums accumulate's last column holds, in a third of its time)
            rows = np.ascontiguousarray(x.transpose((x.ndim - 1, *range(x.ndim - 1))))
            out = np.add.reduce(rows, axis=0)
            out += 0.0  # (a sum of -0s is +0: XLA's starts from +0)
            return out
        rows, cols = x.shape[-2:] if x.ndim == 2 else (0, 0)
        vectorized = _lanes(rows, cols) and body != "scalar"
        if len(reduced) == 2 and 1 < rows <= WINDOW and 1 < cols <= WINDOW and not vectorized:
            # (one loop, in order, from +0: the running sums of accumulate's, from x[0], differ from
            # it only in a zero's sign until a nonzero term, and the last +0 makes any -0 +0)
            return np.asarray(np.add.accumulate(x.reshape(-1))[-1] + f32(0))
    # (XLA drops axes of length 1 first: they decide which loops are innermost)
    dims = [d for d in range(x.ndim) if x.shape[d] != 1]
    x = x.reshape([x.shape[d] for d in dims])
    if y is not None:
        y = np.asarray(y, f32).reshape(x.shape)
    axes_list = [i for i, d in enumerate(dims) if d in reduced]
    if axes_list:
        if y is not None and any(x.shape[a] > WINDOW for a in axes_list):
            x, y = x * y, None  # (XLA fuses no product into the windows: each rounds first)
        while any(x.shape[a] > WINDOW for a in axes_list):
            x = _window(x, axes_list)
        dims = [d for d in range(x.ndim) if x.shape[d] != 1 or d not in axes_list]
        axes_list = [i for i, d in enumerate(dims) if d in axes_list]
        x = x.reshape([x.shape[d] for d in dims])
        if y is not None:
            y = y.reshape(x.shape)
    keep = [d for d in range(x.ndim) if d not in axes_list]
    order = keep + axes_list
    t = lambda a: None if a is None else np.transpose(a, order)  # noqa: E731
    xt, yt = t(x), t(y)
    lead = xt.shape[: len(keep)]
    # LLVM vectorizes the loop over the rows of the two innermost axes, if both are reduced
    if len(axes_list) < 2 or axes_list[-2:] != [x.ndim - 2, x.ndim - 1]:
        flat = lambda a: None if a is None else a.reshape(*lead, -1)  # noqa: E731
        if axes_list != [x.ndim - 1]:  # (XLA vectorizes over the kept axis inside: no shuffles)
            return _in_order(flat(xt), None, flat(yt), square and len(axes_list) == 1).reshape(out_shape)
        return _rows(flat(xt), flat(yt), square, body).reshape(out_shape)
    last = xt.shape[-2:]
    split = lambda a: None if a is None else a.reshape(*lead, -1, *last)  # noqa: E731
    xt, yt = split(xt), split(yt)
    total = np.zeros(lead, f32)
    for o in range(xt.shape[len(keep)]):  # (outer reduced axes: one loop each, in order)
        total = _last_two(xt[..., o, :, :], total, None if yt is None else yt[..., o, :, :], body)
    return total.reshape(out_shape)


def in_order_per_output(shape: tuple[int, ...], axes: tuple[int, ...]) -> bool:
    """Whether ``sum_f32`` adds each output's terms one after another in row-major order onto one
    accumulator: no window longer than 32, and a kept axis inside the reduced ones (XLA's loop
    vectorizes over it, so no lanes split a sum)."""
    reduced = {a % len(shape) for a in axes}
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    axes_list = [i for i, d in enumerate(dims) if d in reduced]
    n = len(dims)
    if not axes_list or any(shape[dims[a]] > WINDOW for a in axes_list) or sum(shape) == 0:
        return False
    last_two = len(axes_list) >= 2 and axes_list[-2:] == [n - 2, n - 1]
    return axes_list != [n - 1] and not last_two


def fma_chain_sum_f32(pairs: list, axes: tuple[int, ...]) -> np.ndarray:
    """The sum over ``axes`` of ``fma(a1, b1, fma(a2, b2, ... ak * bk))`` (``pairs`` of float32
    arrays of one shape, outermost first) as XLA's reduction loop computes it where each output's
    terms are added in order: its accumulator's addition may reassociate, so LLVM moves the
    accumulator into the innermost product, ``acc = fma(a1, b1, fma(a2, b2, ... fma(ak, bk, acc)))``
    (DAGCombiner's ``fadd (fma A, B, (fmul C, D)), E => fma A, B, (fma C, D, E)``). Elsewhere the
    terms round first and are summed as ``sum_f32`` sums them."""
    from .dot_order import _fma  # (exact: a fused multiply-add rounds once)

    shape = np.broadcast_shapes(*(np.shape(v) for pair in pairs for v in pair))
    pairs = [[np.broadcast_to(np.asarray(v, f32), shape) for v in pair] for pair in pairs]
    if not in_order_per_output(shape, axes):
        term = pairs[-1][0] * pairs[-1][1]
        for a, b in reversed(pairs[:-1]):
            term = _fma(a, b, term)
        return sum_f32(term, axes)
    reduced = sorted({a % len(shape) for a in axes})
    keep = [d for d in range(len(shape)) if d not in reduced]
    lead = [shape[d] for d in keep]
    flat = [[np.transpose(v, keep + reduced).reshape(*lead, -1) for v in pair] for pair in pairs]
    acc = np.zeros(lead, f32)
    for k in range(flat[0][0].shape[-1]):
        for a, b in reversed(flat):
            acc = _fma(a[..., k], b[..., k], acc)
    return acc + f32(0)  # (+0: a sum of -0s is +0)


def _prod_in_order(x: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Products along the last axis, one factor after another, from ``start`` (else 1)."""
    if start is not None:
        x = np.concatenate([np.asarray(start, f32)[..., None], x], axis=-1)
    if x.shape[-1] == 0:
        return np.ones(x.shape[:-1], f32)
    return np.cumprod(x, axis=-1, dtype=f32)[..., -1]


def prod_f32(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``x`` (float32, fewer than 4096 elements) multiplied over ``axes`` as XLA's CPU kernel does:
    the tree-reduction rewriter's windows of 32 (padded with ones, the odd one high) as for a sum,
    then the last loop nest, in order or in ``_lanes``' vector lanes (each from 1, met pairwise).

    >>> float(prod_f32(np.float32([2, 3, 4]), (0,)))
    24.0
    """
    x = np.asarray(x, f32)
    reduced = {a % x.ndim for a in axes} if x.ndim else set()
    out_shape = [n for d, n in enumerate(x.shape) if d not in reduced]
    if not reduced or x.size == 0:
        return x.copy() if not reduced else np.ones(out_shape, f32)
    dims = [d for d in range(x.ndim) if x.shape[d] != 1]
    x = x.reshape([x.shape[d] for d in dims])
    axes_list = [i for i, d in enumerate(dims) if d in reduced]
    while any(x.shape[a] > WINDOW for a in axes_list):
        padded, place, split, order, kept = _window_layout(x.shape, axes_list)
        p = np.ones(padded, f32)  # (ones around, the odd one high)
        p[place] = x
        w = np.transpose(p.reshape(split), order)
        x = _prod_in_order(w.reshape(*w.shape[:kept], -1))
        dims = [d for d in range(x.ndim) if x.shape[d] != 1 or d not in axes_list]
        axes_list = [i for i, d in enumerate(dims) if d in axes_list]
        x = x.reshape([x.shape[d] for d in dims])
    keep = [d for d in range(x.ndim) if d not in axes_list]
    xt = np.transpose(x, keep + axes_list)
    lead = xt.shape[: len(keep)]
    rows, cols = xt.shape[-2:] if len(axes_list) >= 2 else (0, 0)
    vf = _lanes(rows, cols) if axes_list[-2:] == [x.ndim - 2, x.ndim - 1] else 0
    if not vf:
        return _prod_in_order(xt.reshape(*lead, -1)).reshape(out_shape)
    blocks = xt.reshape(*lead, -1, rows, cols)
    total = np.ones(lead, f32)
    m = rows // vf * vf
    for o in range(blocks.shape[len(lead)]):  # (outer reduced axes: one loop each, in order)
        b = blocks[..., o, :, :]
        lanes = np.ones((*lead, vf), f32)
        lanes[..., 0] = total
        lanes = _prod_in_order(
            np.moveaxis(b[..., :m, :].reshape(*lead, m // vf, vf, cols), -2, -3).reshape(*lead, vf, -1), lanes
        )
        while lanes.shape[-1] > 1:
            h = lanes.shape[-1] // 2
            lanes = lanes[..., :h] * lanes[..., h:]
        total = _prod_in_order(b[..., m:, :].reshape(*lead, -1), lanes[..., 0])
    return total.reshape(out_shape)
