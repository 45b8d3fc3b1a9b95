"""``jax.lax.linalg``: matrix factorizations and triangular solves as primitives.

Each works on the last two axes and maps over any leading ones (so the batching rule only moves
the batch axis to the front). The JVP rules are JAX's formulas; reverse mode transposes them
(only ``triangular_solve`` is linear in an operand, in ``b``, and has a transpose rule). jit runs
these through their numpy implementations (numba has no lowering for them). float32 and complex64
``lu`` and ``triangular_solve`` call the LAPACK/BLAS routines JAX's CPU lowering calls, in single
precision (``lapack_openblas``).

Real and complex floating dtypes (Hermitian factors and JAX's ``conjugate_a`` for complex ones; the
singular and Hermitian eigenvalues are real); other dtypes raise a TypeError naming the dtype.
"""

from __future__ import annotations

import numpy as np
from numpy.linalg import _umath_linalg  # (the gufuncs behind np.linalg, in every precision)

from . import lapack_openblas
from .dot_general import Precision
from .. import ad, batching, core, narrow_dtypes
from ..core import Primitive, ShapedArray
from ..batching import not_mapped
from ..narrow_dtypes import kind as dtype_kind

# ---------------------------------------------------------------------------------------------
# Shared checks and helpers.


def _check_matrix(name, aval, square=True, index=0):
    if dtype_kind(aval.dtype) not in ("f", "c"):
        raise TypeError(  # (JAX's dtype-rule text)
            f"{name} does not accept dtype {aval.dtype.name} at position {index}. Accepted dtypes "
            f"at position {index} are subtypes of floating, complexfloating."
        )
    if aval.ndim < 2:  # (JAX's linalg shape rule: a TypeError naming the operand)
        raise TypeError(
            f"Input {index} to {name} must have rank at least 2, but got shape={tuple(aval.shape)}"
        )
    if square and aval.shape[-1] != aval.shape[-2]:
        raise ValueError(f"{name} requires square matrices in the last two axes, got shape {aval.shape}.")


def _checked(name, impl):
    """Eager evaluation runs the impl without abstract evaluation: refuse what it would refuse
    (an integer matrix would otherwise come back factored in float64 and cast back; a vector
    would fail inside numpy with an unrelated error)."""

    def checked(*args, **params):
        for i, x in enumerate(args):
            if dtype_kind(x.dtype) not in ("f", "c") or x.ndim < 2:
                _check_matrix(name, ShapedArray(x.shape, x.dtype), square=False, index=i)
        return impl(*args, **params)

    return checked


def _lax():
    from . import api

    return api


def _jnp():
    from .. import numpy as jnp

    return jnp


def _mm(a, b):
    return _jnp().matmul(a, b)


def _T(x):
    return _jnp().swapaxes(x, -1, -2)


def _H(x):
    """The conjugate transpose (the transpose for real ``x``: no conj equation, as in JAX)."""
    t = _T(x)
    from .complex_numbers import conj

    return conj(t) if dtype_kind(core.get_aval(x).dtype) == "c" else t


def _tri_mask(shape, k):
    """JAX's lax ``_tri(bool, shape, k)``: True on and below the ``k``-th diagonal (iotas compared)."""
    lax = _lax()
    # JAX's iotas take the offset's dtype when it is wider than int32: a Python int's, so int64 under x64
    index = core.default_dtype(int)
    rows = lax.add(lax.broadcasted_iota(index, shape, 0), np.asarray(k, index))
    return lax.ge(rows, lax.broadcasted_iota(index, shape, 1))


def _tril(x, k=0):
    """``x`` with zeros above the ``k``-th diagonal, as JAX's lax ``_tril`` (a select on a mask)."""
    lax = _lax()
    shape = core.get_aval(x).shape
    mask = _tri_mask(shape[-2:], k)
    if len(shape) > 2:
        mask = lax.broadcast(mask, shape[:-2])
    return lax.select(mask, x, lax.full_like(x, 0))


def _triu(x, k=0):
    """``x`` with zeros below the ``k``-th diagonal, as JAX's lax ``_triu``."""
    lax = _lax()
    shape = core.get_aval(x).shape
    mask = _tri_mask(shape[-2:], k - 1)
    if len(shape) > 2:
        mask = lax.broadcast(mask, shape[:-2])
    return lax.select(mask, lax.full_like(x, 0), x)


def _eye_like(x):
    n = core.get_aval(x).shape[-1]
    return core.Array(np.eye(n, dtype=core.get_aval(x).dtype))


def _batch_leading(prim, n_operands=1):
    """Batching for ops that map over leading axes: every operand's batch axis goes to the front
    (unmapped operands are broadcast), outputs are batched at axis 0."""

    def rule(axis_size, vals, dims, **params):
        vals = [batching.bdim_at_front(v, d, axis_size) for v, d in zip(vals, dims)]
        out = prim.bind(*vals, **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)

    batching.batch_rules[prim] = rule


# ---------------------------------------------------------------------------------------------
# cholesky: the lower Cholesky factor; NaNs where the matrix is not positive definite (as XLA).

cholesky_p = Primitive("cholesky")


def _in_precision(gufunc, x, outs):
    """numpy's linalg gufunc run in ``x``'s own precision, or None for dtypes or empty matrices it
    has no loop for. ``np.linalg`` itself would factor a float32 matrix in float64, where JAX's
    LAPACK calls stay in float32: on a matrix singular or ill-conditioned in float32 the two fail
    differently (a failure is NaNs, per matrix), and degenerate eigen/singular vectors come out
    as a different basis. ``outs`` spells the outputs: ``x`` in x's dtype, ``r`` in its real one."""
    c = np.dtype(x.dtype).char
    if c not in "fdFD" or x.size == 0:
        return None
    sig = c + "->" + outs.replace("x", c).replace("r", {"F": "f", "D": "d"}.get(c, c))
    with np.errstate(all="ignore"):
        res = gufunc(x, signature=sig)
    return res if isinstance(res, tuple) else (res,)


def _cholesky_impl(x):
    """A failed matrix comes back all NaN (JAX's ``potrf`` failure), the others factored."""
    res = _in_precision(_umath_linalg.cholesky_lo, x, "x")
    return res[0] if res is not None else x.copy()  # (an empty matrix: nothing to factor)


cholesky_p.def_impl(_checked("cholesky", _cholesky_impl))


@cholesky_p.def_abstract_eval
def _cholesky_abstract(x):
    _check_matrix("cholesky", x)
    return x  # (weak if x is, as JAX's: a bool or integer matrix symmetrizes into a weak float one)


def _cholesky_jvp(primals, tangents):
    (x,), (sigma_dot,) = primals, tangents
    lax = _lax()
    L = _lower_triangle(cholesky_p.bind(x))
    # L_dot = L phi(L^-1 sigma_dot L^-H), phi = the lower triangle with the diagonal halved
    # (arXiv:1602.07527), staged in JAX's order: masks from iotas, a HIGHEST-precision product.
    shape = core.get_aval(x).shape
    tmp = triangular_solve(L, sigma_dot, left_side=False, transpose_a=True, conjugate_a=True, lower=True)
    inner = _lower_triangle(triangular_solve(L, tmp, left_side=True, transpose_a=False, lower=True))
    eye = _eye(core.get_aval(x).dtype, shape[-2:])
    phi = lax.div(inner, lax.expand_dims(lax.add(lax._const_like(eye, 1), eye), tuple(range(len(shape) - 2))))
    batch = tuple(range(len(shape) - 2))
    dims = (((len(shape) - 1,), (len(shape) - 2,)), (batch, batch))
    L_dot = lax.dot_general(L, phi, dims, precision=Precision.HIGHEST)
    return L, L_dot


def _eye(dtype, shape):
    """JAX's lax ``_eye``: ones where the row iota (plus offset 0) equals the column iota."""
    lax = _lax()
    i32 = np.dtype(np.int32)
    rows = lax.add(lax.broadcasted_iota(i32, shape, 0), np.zeros((), i32))
    return lax.convert_element_type(lax.eq(rows, lax.broadcasted_iota(i32, shape, 1)), dtype)


ad.jvp_rules[cholesky_p] = _cholesky_jvp
_batch_leading(cholesky_p)


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor ``L`` with ``x = L @ L.T`` (NaN if ``x`` is not positive definite).

    >>> lax.linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 3.0]]))
    Array([[2.       , 0.       ],
           [1.       , 1.4142135]], dtype=float32)
    """
    if symmetrize_input:
        x = _symmetrize(x)
    return _lower_triangle(cholesky_p.bind(x))


def _symmetrize(x):
    lax = _lax()
    if dtype_kind(core.get_aval(x).dtype) not in ("f", "c"):
        # JAX's (x + x^H) / 2 is array arithmetic: an integer or bool matrix comes out float
        # (bool's + an or), so cholesky and eigh factor it where the other factorizations refuse
        jnp = _jnp()
        return jnp.true_divide(jnp.add(x, _T(x)), 2)
    # (JAX's (x + x^H) / 2, the transpose's permutation built as JAX's: a vector's is refused)
    ndim = core.get_aval(x).ndim
    xt = lax.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))
    if dtype_kind(core.get_aval(x).dtype) == "c":
        from .complex_numbers import conj

        xt = conj(xt)
    return lax.div(lax.add(x, xt), lax._const_like(x, 2))


def _lower_triangle(m):
    """``m`` with zeros above the diagonal, masked as JAX's lax ``_tril`` (an iota comparison)."""
    return _tril(m)


# ---------------------------------------------------------------------------------------------
# triangular_solve: op(a) x = b (left_side) or x op(a) = b, op = transpose when transpose_a.


triangular_solve_p = Primitive("triangular_solve")


def _effective_a(a, lower, transpose_a, conjugate_a, unit_diagonal):
    a = np.tril(a) if lower else np.triu(a)
    if conjugate_a:
        a = np.conj(a)
    if unit_diagonal:
        eye = np.eye(a.shape[-1], dtype=bool)
        a = np.where(eye, np.ones((), a.dtype), a)  # (where, not arithmetic: the diagonal may be inf)
    return np.swapaxes(a, -1, -2) if transpose_a else a


def _substitute(op_a, b, lower):
    """``op_a @ x = b`` for triangular ``op_a`` by substitution, row by row: a zero on the diagonal
    gives inf/nan as XLA's solve does, where a general solver would refuse the singular matrix."""
    n = op_a.shape[-1]
    x = np.zeros(np.broadcast_shapes(op_a.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    for i in range(n) if lower else range(n - 1, -1, -1):
        done = slice(0, i) if lower else slice(i + 1, n)
        acc = b[..., i, :] - np.einsum("...j,...jk->...k", op_a[..., i, done], x[..., done, :])
        x[..., i, :] = acc / op_a[..., i, i, None]
    return x


def _triangular_solve_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    if np.dtype(b.dtype).itemsize <= 2 and dtype_kind(b.dtype) == "f":  # float16, bfloat16: XLA's way
        from .triangular_solve_narrow import solve

        flags = dict(left_side=left_side, lower=lower, transpose_a=transpose_a, unit_diagonal=unit_diagonal)
        return solve(a, b, conjugate_a=conjugate_a, **flags)
    if lapack_openblas.available(b.dtype):  # (float32, complex64: BLAS's trsm, as JAX's CPU lowering)
        return _trsm(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal)
    wide = np.complex128 if dtype_kind(b.dtype) == "c" else np.float64
    op_a = _effective_a(a, lower, transpose_a, conjugate_a, unit_diagonal).astype(wide)
    op_lower = lower != transpose_a
    b64 = b.astype(wide)
    with np.errstate(all="ignore"):
        if left_side:
            out = _substitute(op_a, b64, op_lower)
        else:  # x op_a = b  <=>  op_a^T x^T = b^T
            bt = np.swapaxes(b64, -1, -2)
            out = np.swapaxes(_substitute(np.swapaxes(op_a, -1, -2), bt, not op_lower), -1, -2)
    return out.astype(b.dtype)


def _trsm(a, b, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    """Each matrix solved by BLAS's trsm in its own precision (JAX's ``trsm_ffi``, which takes a
    conjugate without a transpose as ``conj(a)``, the others as ``"T"`` or ``"C"``)."""
    if conjugate_a and not transpose_a:
        a = np.conj(a)
    trans = ("C" if conjugate_a else "T") if transpose_a else "N"
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    size = int(np.prod(batch))  # (not -1: ambiguous for empty matrices)
    flat_a = np.broadcast_to(a, (*batch, *a.shape[-2:])).reshape(size, *a.shape[-2:])
    flat_b = np.broadcast_to(b, (*batch, *b.shape[-2:])).reshape(size, *b.shape[-2:])
    flags = dict(left_side=left_side, lower=lower, trans=trans, unit_diagonal=unit_diagonal)
    return lapack_openblas.trsm(flat_a, flat_b, **flags).reshape(*batch, *b.shape[-2:])


triangular_solve_p.def_impl(_checked("triangular_solve", _triangular_solve_impl))
narrow_dtypes.keeps_narrow.add(triangular_solve_p)  # (bfloat16 solved in its own rounding, as XLA)


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    _check_matrix("triangular_solve", a)
    _check_matrix("triangular_solve", b, square=False, index=1)
    if a.dtype != b.dtype:
        raise TypeError(
            f"triangular_solve requires a and b of one dtype, got {a.dtype.name} and {b.dtype.name}."
        )
    n = a.shape[-1]
    k = b.shape[-2] if left_side else b.shape[-1]
    if k != n or a.shape[:-2] != b.shape[:-2]:
        raise ValueError(
            f"triangular_solve: shapes {a.shape} and {b.shape} do not match for "
            f"{'left' if left_side else 'right'}_side=True (batch axes must be equal)."
        )
    return b.strip_weak_type()


def triangular_solve(
    a, b, *, left_side=False, lower=False, transpose_a=False, conjugate_a=False, unit_diagonal=False
):
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for triangular ``a``.

    >>> a = jnp.array([[2.0, 0.0], [1.0, 1.0]])
    >>> lax.linalg.triangular_solve(a, jnp.array([[2.0], [3.0]]), left_side=True, lower=True)
    Array([[1.],
           [2.]], dtype=float32)
    """
    lax = _lax()
    singleton = np.ndim(b) == np.ndim(a) - 1  # a vector b: one column (row) of a matrix, as JAX
    if singleton:
        b = lax.expand_dims(b, (-1 if left_side else -2,))
    out = triangular_solve_p.bind(
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=bool(conjugate_a) and dtype_kind(core.get_aval(a).dtype) == "c",  # (as JAX)
        unit_diagonal=bool(unit_diagonal),
    )
    if singleton:
        out = lax.squeeze(out, (out.ndim - 1 if left_side else out.ndim - 2,))
    return out


def _tri_params(p):
    return {k: p[k] for k in ("left_side", "lower", "transpose_a", "conjugate_a", "unit_diagonal")}


def _triangular_solve_jvp(primals, tangents, **params):
    # JAX's rules (defjvp2): the term of a's tangent first, then b's (the solve is linear in b).
    a, b = primals
    ga, gb = tangents
    ans = triangular_solve_p.bind(a, b, **params)
    acc = ad.Zero(ad.tangent_aval(core.get_aval(ans)))
    if type(ga) is not ad.Zero:
        acc = ad.add_tangents(acc, _triangular_solve_jvp_a(ga, ans, a, b, **params))
    if type(gb) is not ad.Zero:
        acc = ad.add_tangents(acc, triangular_solve_p.bind(a, gb, **params))
    return ans, acc


def _triangular_solve_jvp_a(ga, ans, a, b, **params):
    """d(op(a)^-1 b) = -op(a)^-1 op(da) x;  d(b op(a)^-1) = -x op(da) op(a)^-1, in the cheaper
    order of products (as JAX orders them: the solve on the narrower operand)."""
    m, n = core.get_aval(b).shape[-2:]
    unit = params["unit_diagonal"]
    ga = _tril(ga, -1 if unit else 0) if params["lower"] else _triu(ga, 1 if unit else 0)
    ga = _lax().neg(ga)
    ga = _T(ga) if params["transpose_a"] else ga
    if params["conjugate_a"]:
        from .complex_numbers import conj

        ga = conj(ga)

    def a_inverse(rhs):
        return triangular_solve_p.bind(a, rhs, **params)

    if params["left_side"]:
        return a_inverse(_dot_highest(ga, ans)) if m > n else _dot_highest(a_inverse(ga), ans)
    return a_inverse(_dot_highest(ans, ga)) if m < n else _dot_highest(ans, a_inverse(ga))


def _triangular_solve_transpose(ct, a, b, **params):
    assert not ad.is_undefined(a) and ad.is_undefined(b)
    if type(ct) is ad.Zero:
        return [None, ad.Zero(b.aval)]
    flipped = dict(params, transpose_a=not params["transpose_a"])
    return [None, triangular_solve_p.bind(a, ct, **flipped)]


ad.jvp_rules[triangular_solve_p] = _triangular_solve_jvp
ad.transpose_rules[triangular_solve_p] = _triangular_solve_transpose


def _triangular_solve_batch(axis_size, vals, dims, **params):
    # As JAX batches it: an unbatched matrix solves once for all batched right-hand sides, folded
    # into the columns (rows, solving from the right); otherwise both batch axes go to the front.
    a, b = vals
    da, db = dims
    if da is not_mapped:
        if params["left_side"]:
            b = batching.moveaxis(b, db, b.ndim - 1)
            flat = _lax().reshape(b, (*b.shape[:-2], b.shape[-2] * b.shape[-1]))
            out_dim = b.ndim - 1
        else:
            b = batching.moveaxis(b, db, b.ndim - 2)
            flat = _lax().reshape(b, (*b.shape[:-3], b.shape[-3] * b.shape[-2], b.shape[-1]))
            out_dim = b.ndim - 2
        out = triangular_solve_p.bind(a, flat, **params)
        return _lax().reshape(out, b.shape), out_dim
    a = batching.bdim_at_front(a, da, axis_size)
    b = batching.bdim_at_front(b, db, axis_size)
    return triangular_solve_p.bind(a, b, **params), 0


batching.batch_rules[triangular_solve_p] = _triangular_solve_batch


# ---------------------------------------------------------------------------------------------
# lu: packed LU with partial pivoting, its pivots and the row permutation (x[perm] = L @ U).

lu_p = Primitive("lu", multiple_results=True)


def _lu_one(a):
    """One matrix's ``(lu, pivots, perm)`` by right-looking elimination in float64 (complex128),
    or in float32 (complex64) when numpy's LAPACK is not there to do it as JAX's (``_lu_impl``)."""
    if np.dtype(a.dtype) in (np.float32, np.complex64):
        a = np.array(a)  # (a singular float32 matrix keeps its exact zero pivot, as in JAX)
    else:
        a = a.astype(np.complex128 if dtype_kind(a.dtype) == "c" else np.float64)
        if a.dtype == np.float64 and a.size <= 64 and np.isfinite(a).all():
            return _lu_one_small(a)
    m, n = a.shape
    k = min(m, n)
    pivots = np.zeros(k, np.int32)
    perm = np.arange(m, dtype=np.int32)
    for j in range(k):
        col = a[j:, j]  # LAPACK's pivot measure: |re| + |im| for complex entries
        p = j + int(np.argmax(np.abs(col.real) + np.abs(col.imag)))
        pivots[j] = p
        if p != j:
            a[[j, p]] = a[[p, j]]
            perm[[j, p]] = perm[[p, j]]
        if a[j, j] != 0:
            a[j + 1 :, j] /= a[j, j]
        a[j + 1 :, j + 1 :] -= np.outer(a[j + 1 :, j], a[j, j + 1 :])
    return a, pivots, perm


def _pivots_to_perm(pivots, m):
    """The row permutations of LAPACK's swaps (one row of pivots per matrix)."""
    perms = []
    for piv in pivots.tolist():
        perm = list(range(m))
        for j, p in enumerate(piv):
            perm[j], perm[p] = perm[p], perm[j]
        perms.append(perm)
    return np.array(perms, np.int32).reshape(len(pivots), m)


def _lu_one_small(a):
    """``_lu_one`` of a small finite real matrix on Python floats: the same float64 operations in
    the same order (so the same bits), without a numpy call per step (a 4x4 took ~40 us)."""
    rows = a.tolist()
    m, n = a.shape
    k = min(m, n)
    pivots, perm = [0] * k, list(range(m))
    for j in range(k):
        p = j  # (the first largest |entry|, as argmax picks)
        for r in range(j + 1, m):
            if abs(rows[r][j]) > abs(rows[p][j]):
                p = r
        pivots[j] = p
        if p != j:
            rows[j], rows[p] = rows[p], rows[j]
            perm[j], perm[p] = perm[p], perm[j]
        top = rows[j]
        if top[j] != 0:
            for r in range(j + 1, m):
                rows[r][j] /= top[j]
        for r in range(j + 1, m):
            row, factor = rows[r], rows[r][j]
            for c in range(j + 1, n):
                row[c] -= factor * top[c]
    return np.array(rows, np.float64).reshape(m, n), np.array(pivots, np.int32), np.array(perm, np.int32)


def _lu_impl(x):
    batch = x.shape[:-2]
    m, n = x.shape[-2:]
    flat = x.reshape(int(np.prod(batch)), m, n)  # (not -1: ambiguous for 0x0 matrices)
    if lapack_openblas.available(x.dtype):  # (float32, complex64: LAPACK's getrf, as JAX's lowering)
        lu, piv = lapack_openblas.getrf(flat)
        perm = _pivots_to_perm(piv, m)
        return [lu.reshape(x.shape), piv.reshape(*batch, min(m, n)), perm.reshape(*batch, m)]
    outs = [_lu_one(a) for a in flat]
    lu = np.stack([o[0] for o in outs]).reshape(x.shape).astype(x.dtype) if flat.shape[0] else x.copy()
    piv = (
        np.stack([o[1] for o in outs]).reshape(*batch, min(m, n))
        if flat.shape[0]
        else np.zeros((*batch, min(m, n)), np.int32)
    )
    perm = (
        np.stack([o[2] for o in outs]).reshape(*batch, m)
        if flat.shape[0]
        else np.zeros((*batch, m), np.int32)
    )
    return [lu, piv, perm]


lu_p.def_impl(_checked("lu", _lu_impl))


@lu_p.def_abstract_eval
def _lu_abstract(x):
    _check_matrix("lu", x, square=False)
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    i32 = np.dtype("int32")
    return [x.strip_weak_type(), ShapedArray((*batch, min(m, n)), i32), ShapedArray((*batch, m), i32)]


def _lu_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lu_, pivots, perm = lu_p.bind(a)
    tangent = _lu_jvp_one
    for _ in core.get_aval(a).shape[:-2]:  # (JAX's: the one-matrix rule vmapped over the batch)
        tangent = _api_vmap()(tangent)
    lu_dot = tangent(lu_, a_dot, perm)
    zeros = [ad.Zero(ad.tangent_aval(core.get_aval(v))) for v in (pivots, perm)]
    return [lu_, pivots, perm], [lu_dot, *zeros]


def _api_vmap():
    from ..api import vmap

    return vmap


def _lu_jvp_one(lu_, a_dot, perm):
    """De Hoog, Anderssen and Lukas's formula, as JAX's rule (also for non-square ``a``): with
    ``x = inv(L) a_dot[perm] inv(U)``, ``L' = L tril(x, -1)`` and ``U' = triu(x) U``, packed."""
    lax = _lax()
    m, n = core.get_aval(a_dot).shape
    dtype = core.get_aval(a_dot).dtype
    k = min(m, n)
    zero = np.zeros((), core.get_aval(lu_).dtype)
    l = lax.add(lax.pad(_tril(lu_[:, :k], -1), zero, [(0, 0, 0), (0, m - k, 0)]), _eye(dtype, (m, m)))
    u_eye = lax.pad(_eye(dtype, (n - k, n - k)), zero, [(k, 0, 0), (k, 0, 0)])
    u = lax.add(lax.pad(_triu(lu_[:k, :]), zero, [(0, n - k, 0), (0, 0, 0)]), u_eye)
    la = triangular_solve(l, a_dot[perm], left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    mm = _jnp().matmul
    l_dot = mm(l, _tril(lau, -1), precision=Precision.HIGHEST)
    u_dot = mm(_triu(lau), u, precision=Precision.HIGHEST)
    return lax.add(l_dot, u_dot)


ad.jvp_rules[lu_p] = _lu_jvp
_batch_leading(lu_p)


def permutation_matrix(perm, dtype):
    """The matrix ``P`` with ``P @ x == x[..., perm, :]`` (one-hot rows; batches like perm)."""
    jnp = _jnp()
    m = core.get_aval(perm).shape[-1]
    return (jnp.expand_dims(perm, -1) == jnp.arange(m, dtype=perm.dtype)).astype(dtype)


def lu(x):
    """``[lu, pivots, permutation]``: ``x[..., permutation, :] == L @ U`` with unit-lower ``L``
    and upper ``U`` packed into ``lu``; ``pivots`` are LAPACK's row swaps (a list, as JAX's bind
    returns it).

    >>> lax.linalg.lu(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    [Array([[3.        , 4.        ],
           [0.33333334, 0.6666666 ]], dtype=float32), Array([1, 1], dtype=int32), Array([1, 0], dtype=int32)]
    """
    return list(lu_p.bind(x))


# ---------------------------------------------------------------------------------------------
# eigh: eigenvectors and ascending eigenvalues of a symmetric (Hermitian) matrix; only its lower
# (or upper) triangle is read, and a Hermitian matrix's diagonal as real, as LAPACK's heevd.

eigh_p = Primitive("eigh", multiple_results=True)


def _real_dtype(dtype):
    return np.dtype(np.float32) if np.dtype(dtype) == np.complex64 else np.finfo(dtype).dtype


def _nan_where_failed(factor, x):
    """``factor(x)`` (a tuple of arrays batched like ``x``), with NaNs for each matrix LAPACK did
    not converge on (non-finite entries): XLA's CPU kernels report such a failure in ``info`` and
    JAX's lowering selects NaN for every output of that matrix, where numpy raises for the batch."""
    try:
        return factor(x)
    except np.linalg.LinAlgError:
        pass
    batch = x.shape[:-2]
    flat = x.reshape(-1, *x.shape[-2:])
    good = next((i for i, m in enumerate(flat) if np.isfinite(m).all()), None)
    # (the outputs' shapes and dtypes, from a finite stand-in when every matrix failed)
    probe = factor(flat[good] if good is not None else np.zeros_like(flat[0]))
    outs = [np.full((len(flat), *o.shape), np.nan, o.dtype) for o in probe]
    for i, m in enumerate(flat):
        try:
            for o, r in zip(outs, factor(m)):
                o[i] = r
        except np.linalg.LinAlgError:
            pass
    return tuple(o.reshape(*batch, *o.shape[1:]) for o in outs)


# (JAX's eigh and svd take an algorithm choice and an eigenvalue subset: only their defaults, None,
# which the engine's one algorithm computing all of them is)
_EIGH_SVD_DEFAULTS = {"subset_by_index": None, "algorithm": None}


def _eigh_impl(x, *, lower, sort_eigenvalues, subset_by_index=None, algorithm=None):
    res = _in_precision(_umath_linalg.eigh_lo if lower else _umath_linalg.eigh_up, x, "rx")
    if res is not None:
        return [res[1], res[0]]
    wide = np.complex128 if dtype_kind(x.dtype) == "c" else np.float64
    w, v = _nan_where_failed(lambda m: np.linalg.eigh(m, UPLO="L" if lower else "U"), x.astype(wide))
    return [v.astype(x.dtype), w.astype(_real_dtype(x.dtype))]


eigh_p.def_impl(_checked("eigh", _eigh_impl))


@eigh_p.def_abstract_eval
def _eigh_abstract(x, *, lower, sort_eigenvalues, subset_by_index=None, algorithm=None):
    _check_matrix("eigh", x)
    return [x, ShapedArray(x.shape[:-1], _real_dtype(x.dtype), weak_type=x.weak_type)]


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index=None, algorithm=None):
    # JAX's rule (nondegenerate perturbation theory) in JAX's equations: the factorization of the
    # symmetrized operand, and the tangent taken as the symmetric (Hermitian) matrix it is under
    # jnp.linalg.eigh and symmetrize_input (which symmetrize it before the primitive sees it).
    (a,), (a_dot,) = primals, tangents
    v, w_real = eigh_p.bind(
        _symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues, **_EIGH_SVD_DEFAULTS
    )
    lax = _lax()
    aval = core.get_aval(a)
    n = aval.shape[-1]
    w = w_real.astype(aval.dtype)  # (a no-op for real a)
    eye_n = _eye(aval.dtype, (n, n))
    # the reciprocal eigenvalue gaps off the diagonal, zeros on it (no division by zero)
    Fmat = lax.integer_pow(eye_n + w[..., np.newaxis, :] - w[..., np.newaxis], -1) - eye_n
    vdag_adot_v = _dot_highest(_dot_highest(_H(v), a_dot), v)
    dv = _dot_highest(v, Fmat * vdag_adot_v)
    dw = _extract_diagonal(_jnp().real(vdag_adot_v))
    return [v, w_real], [dv, dw]


def _dot_highest(x, y):
    """JAX's ``lax.dot`` (``batch_matmul`` over leading axes) at HIGHEST precision."""
    from .composites import batch_matmul

    if core.get_aval(x).ndim == 2:
        return _lax().dot(x, y, precision=Precision.HIGHEST)
    return batch_matmul(x, y, precision=Precision.HIGHEST)


def _extract_diagonal(s):
    """The (batched) diagonal as JAX's linalg takes it: ``s[..., i, i]`` with ``i`` an iota."""
    shape = core.get_aval(s).shape
    i = _lax().iota(np.int32, min(shape[-2], shape[-1]))
    return s[..., i, i]


ad.jvp_rules[eigh_p] = _eigh_jvp
_batch_leading(eigh_p)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True):
    """``(v, w)``: eigenvectors (columns) and ascending (real) eigenvalues of a symmetric or
    Hermitian matrix."""
    if symmetrize_input:
        x = _symmetrize(x)
    v, w = eigh_p.bind(x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues), **_EIGH_SVD_DEFAULTS)
    return v, w


from .linalg_qr import qr, qr_p  # noqa: E402,F401  (qr, with column pivoting, in its own module)
from .linalg_svd import svd, svd_p  # noqa: E402,F401  (in its own module)
from .linalg_eig import eig, eig_p  # noqa: E402,F401  (the non-symmetric family, in its own module)
from .linalg_schur import (  # noqa: E402,F401  (the Householder family)
    geqrf,
    geqrf_p,
    hessenberg,
    hessenberg_p,
    householder_product,
    householder_product_p,
    ormqr,
    ormqr_p,
    schur,
    schur_p,
)
from .linalg_pivots import lu_pivots_to_permutation, lu_pivots_to_permutation_p  # noqa: E402,F401
from .linalg_tridiagonal import (  # noqa: E402,F401  (the tridiagonal pair)
    tridiagonal,
    tridiagonal_p,
    tridiagonal_solve,
    tridiagonal_solve_p,
)
from .linalg_updates import (  # noqa: E402,F401  (syrk and the rank-1 Cholesky update)
    cholesky_update,
    cholesky_update_p,
    symmetric_product,
    symmetric_product_p,
)


def qdwh(x, *, is_hermitian: bool = False, max_iterations=None, eps=None, dynamic_shape=None):
    """The polar decomposition ``x = u h`` by QDWH: ``(u, h, num_iters, is_converged)`` (JAX's
    ``lax.linalg.qdwh``, built from qr, cholesky and triangular_solve; in ``scipy/linalg_polar.py``)."""
    from ..scipy.linalg_polar import qdwh as staged

    return staged(
        x, is_hermitian=is_hermitian, max_iterations=max_iterations, eps=eps, dynamic_shape=dynamic_shape
    )
