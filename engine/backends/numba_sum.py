"""The in-order float32 sums of products of ``lax/sum_order.py`` (each product added by a fused
multiply-add, as XLA's loops do) as numba loops: the numpy form steps through the summed axis in
Python, ~10 us an element (``jnp.var`` of 32x32 took 10 ms eagerly and jitted). The same float64
operations, so the same bits."""

import numba as nb
import numpy as np

_K = dict(cache=True, error_model="numpy", boundscheck=False)


@nb.njit(**_K)
def _rows(x, y, start, has_start, square):
    rows, n = x.shape
    out = np.empty(rows, np.float32)
    for r in range(rows):
        acc = np.float64(start[r]) if has_start else 0.0
        k0 = 0
        if square and not has_start and n >= 2:
            acc = np.float64(x[r, 1] * y[r, 1])  # (a float32 product: LLVM's fold of 0 + x1*x1)
            acc = np.float64(np.float32(np.float64(x[r, 0]) * np.float64(y[r, 0]) + acc))
            k0 = 2
        for k in range(k0, n):
            acc = np.float64(np.float32(np.float64(x[r, k]) * np.float64(y[r, k]) + acc))
        out[r] = np.float32(acc) + np.float32(0)
    return out


def fma_in_order(x: np.ndarray, y: np.ndarray, start: np.ndarray | None, square: bool) -> np.ndarray:
    """``sum_order._in_order(x, start, y, square)`` for float32 ``x`` and ``y`` of one shape."""
    lead = x.shape[:-1]
    n = x.shape[-1]
    x2, y2 = _one_layout(x.reshape(-1, n)), _one_layout(y.reshape(-1, n))
    s = np.zeros(x2.shape[0], np.float32) if start is None else np.broadcast_to(start, lead).reshape(-1)
    s = _one_layout(np.asarray(s, np.float32))
    return _rows(x2, y2, s, start is not None, square).reshape(lead)


def _one_layout(a: np.ndarray) -> np.ndarray:
    """``a`` as a read-only C-ordered array: one compiled specialization of ``_rows`` for every
    operand (the server's warm-up compiles it; a run inside the sandbox cannot write numba's
    cache, so a layout first met there failed the run)."""
    a = np.ascontiguousarray(a)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a
