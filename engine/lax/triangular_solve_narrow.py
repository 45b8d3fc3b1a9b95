"""``triangular_solve`` of float16/bfloat16 as JAX computes it on CPU. LAPACK's trsm has no such
dtypes, so JAX lowers the solve to XLA's ``triangular_solve`` instruction, which XLA expands into
ordinary operations in the narrow dtype (its TriangularSolveExpander): each diagonal block (128
wide) of the triangle is scaled to a unit diagonal and inverted row by row, and the solution is the
inverted blocks' products with the right-hand side; a batch of more than 8 matrices narrower than
32 is solved by direct substitution instead. Every operation rounds its result to the narrow dtype
and every product accumulates in float32, so the values are XLA's (solving in float64 and rounding
once gives different last digits, e.g. 0 where XLA gives 6.1e-05).
"""

from __future__ import annotations

import numpy as np

_BLOCK = 128  # (XLA's default block size for the expander)


def solve(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    """``op(a) x = b`` (``left_side``) or ``x op(a) = b`` for narrow float ``a``, ``b`` (same dtype),
    batched over leading axes."""
    dtype = b.dtype

    def rnd(x):
        return np.asarray(x, np.float32).astype(dtype).astype(np.float32)

    def dot(x, y):
        return rnd(np.matmul(x, y))

    a, b = a.astype(np.float32), b.astype(np.float32)
    n = a.shape[-1]
    if b.size == 0:
        return b.astype(dtype)
    if n == 1:
        return (b if unit_diagonal else rnd(b / a)).astype(dtype)
    eye = np.eye(n, dtype=np.float32)
    if unit_diagonal:
        a = (np.tril(a, -1) if lower else np.triu(a, 1)) + eye
    else:
        a = np.tril(a) if lower else np.triu(a)
    batch = int(np.prod(a.shape[:-2]))
    # (the right-side solve as the left-side solve of the transposes: the same products)
    op_a = np.swapaxes(a, -1, -2) if transpose_a else a
    rhs = b if left_side else np.swapaxes(b, -1, -2)
    m_lower = lower != transpose_a  # op(a) lower triangular
    if not left_side:
        op_a, m_lower = np.swapaxes(op_a, -1, -2), not m_lower
    if batch > _BLOCK // 16 and n < _BLOCK // 4:
        x = _substitute(op_a, rhs, m_lower, unit_diagonal, rnd, dot)
    else:
        x = _by_inverted_blocks(a, lower, op_a, rhs, m_lower, transpose_a != (not left_side), rnd, dot)
    return (x if left_side else np.swapaxes(x, -1, -2)).astype(dtype)


def _substitute(op_a, b, m_lower, unit_diagonal, rnd, dot):
    """XLA's direct solve: one row of the solution at a time."""
    n = op_a.shape[-1]
    b = b.copy()
    for i in range(n):
        j = i if m_lower else n - 1 - i
        done = slice(0, j) if m_lower else slice(j + 1, n)
        row = rnd(b[..., j : j + 1, :] - dot(op_a[..., j : j + 1, done], b[..., done, :]))
        b[..., j : j + 1, :] = row if unit_diagonal else rnd(row / op_a[..., j : j + 1, j : j + 1])
    return b


def _invert_block(block, lower, rnd, dot):
    """XLA's InvertDiagonalBlocks on one (batched) triangular block: columns scaled to a unit
    diagonal, the inverse built one row at a time from the rows already inverted, rows unscaled."""
    size = block.shape[-1]
    diag = np.diagonal(block, axis1=-2, axis2=-1)
    diag = np.where(diag == 0, np.float32(1), diag)
    scaled = rnd(block / diag[..., None, :])
    out = np.broadcast_to(-np.eye(size, dtype=np.float32), block.shape).copy()
    first = 0 if lower else size - 1
    out[..., first, first] = 1
    for i in range(1, size):
        j = i if lower else size - 1 - i
        out[..., j : j + 1, :] = -dot(scaled[..., j : j + 1, :], out)
    return rnd(out / diag[..., :, None])


def _by_inverted_blocks(a, lower, op_a, b, m_lower, transpose_inverse, rnd, dot):
    """XLA's SolveWithInvertedDiagonalBlocks, on ``op_a x = b`` (``op_a`` lower when ``m_lower``):
    each block of rows of ``x`` is its inverted diagonal block times what the solved blocks leave."""
    n = a.shape[-1]
    starts = list(range(0, n, _BLOCK))
    order = starts if m_lower else starts[::-1]
    x = np.zeros(b.shape, np.float32)
    solved: list[slice] = []
    for s in order:
        rows = slice(s, min(s + _BLOCK, n))
        inv = _invert_block(a[..., rows, rows], lower, rnd, dot)
        if transpose_inverse:
            inv = np.swapaxes(inv, -1, -2)
        if solved:
            done = slice(min(r.start for r in solved), max(r.stop for r in solved))
            remainder = rnd(b[..., rows, :] - dot(op_a[..., rows, done], x[..., done, :]))
        else:
            remainder = b[..., rows, :]
        x[..., rows, :] = dot(inv, remainder)
        solved.append(rows)
    return x
