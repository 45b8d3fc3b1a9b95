"""``jax.lax.linalg.tridiagonal`` and ``tridiagonal_solve``: primitives with JAX's names, params,
checks and rules.

``tridiagonal`` reduces a Hermitian matrix to tridiagonal form by Householder reflections, packed
as LAPACK's ``sytrd``/``hetrd`` packs them (JAX runs that kernel on CPU): the reflectors below (or
above) the first off-diagonal, the diagonal ``d`` and off-diagonal ``e`` (real) and the reflectors'
scalars ``taus``. It has no derivative in JAX.

``tridiagonal_solve`` solves ``A X = B`` for ``A`` given by its three diagonals (``dl[i] = A[i, i-1]``,
``d[i] = A[i, i]``, ``du[i] = A[i, i+1]``; ``dl[0]`` and ``du[-1]`` unread) by Gaussian elimination
with partial pivoting, as LAPACK's ``gtsv``: a system with an exact zero pivot comes back as NaNs
(JAX replaces the failed solve's output with NaN). It is linear in ``b`` (a transpose rule: the
solve with the transposed matrix) and has JAX's JVP in the diagonals.

Both are LAPACK kernels on JAX's CPU backend, so float16/bfloat16 raise there (``lapack_kernels``).
"""

from __future__ import annotations

import numpy as np

from .. import ad, batching
from ..core import Primitive, ShapedArray
from ..batching import not_mapped
from ..narrow_dtypes import kind as dtype_kind
from .linalg import _batch_leading, _real_dtype


def _check_dtypes(name, avals, kinds=("f", "c")):
    """JAX's ``naryop_dtype_rule`` for the linalg primitives: accepted kinds, then one dtype."""
    accepted = ", ".join({"f": "floating", "c": "complexfloating"}[k] for k in kinds)
    for i, aval in enumerate(avals):
        if dtype_kind(aval.dtype) not in kinds:
            raise TypeError(
                f"{name} does not accept dtype {np.dtype(aval.dtype).name} at position {i}. "
                f"Accepted dtypes at position {i} are subtypes of {accepted}."
            )
    if len({np.dtype(a.dtype) for a in avals}) > 1:
        names = ", ".join(np.dtype(a.dtype).name for a in avals)
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {names}.")


def _check_ranks(name, avals, ranks, supports_batching=True):
    """JAX's ``linalg_shape_rule``: each operand's core rank, and one count of batch axes for all.
    Returns each operand's core shape."""
    cores = []
    for i, (rank, aval) in enumerate(zip(ranks, avals)):
        shape = tuple(aval.shape)
        if len(shape) < rank:
            raise TypeError(f"Input {i} to {name} must have rank at least {rank}, but got shape={shape}")
        if not supports_batching and len(shape) != rank:
            raise TypeError(f"Input {i} to {name} must have a rank of exactly {rank}, but got shape={shape}")
        cores.append(shape[len(shape) - rank :])
    counts = [aval.ndim - rank for rank, aval in zip(ranks, avals)]
    if len(set(counts)) > 1:
        raise TypeError(
            f"All inputs to {name} must have the same number of batch dimensions, but got {counts} "
            "batch dimensions for the inputs."
        )
    return cores


def _checked_eager(abstract):
    """Eager calls run the impl without abstract evaluation: run the checks first."""

    def wrap(impl):
        def checked(*args, **params):
            abstract(*(ShapedArray(np.shape(x), x.dtype) for x in args), **params)
            return impl(*args, **params)

        return checked

    return wrap


# ---------------------------------------------------------------------------------------------
# tridiagonal: Householder reduction of a Hermitian matrix, packed as LAPACK's sytd2/hetd2.

tridiagonal_p = Primitive("tridiagonal", multiple_results=True)


def _householder(alpha, x):
    """LAPACK's ``larfg``: ``(beta, tau, v)`` with ``(I - tau [1; v][1; v]^H)^H [alpha; x] = [beta; 0]``,
    ``beta`` real; ``tau = 0`` (no reflection) when there is nothing to annihilate."""
    xnorm = np.linalg.norm(x)
    if xnorm == 0 and alpha.imag == 0:
        return alpha.real, 0.0, x
    beta = -np.copysign(np.sqrt(abs(alpha) ** 2 + xnorm**2), alpha.real)
    tau = (beta - alpha.real) / beta - 1j * alpha.imag / beta if np.iscomplexobj(x) else (beta - alpha) / beta
    return beta, tau, x / (alpha - beta)


def _tridiagonal_one(a, lower):
    """``(packed, d, e, taus)`` of one matrix, the unblocked reduction (sytd2/hetd2)."""
    a = a.copy()
    n = a.shape[0]
    d = np.zeros(n, a.real.dtype)
    e = np.zeros(max(n - 1, 0), a.real.dtype)
    taus = np.zeros(max(n - 1, 0), a.dtype)
    if np.iscomplexobj(a):
        a[np.diag_indices(n)] = a.diagonal().real  # (a Hermitian matrix's diagonal is read as real)
    if not lower:  # the upper triangle reduced from the bottom right: the lower case, mirrored
        packed, d, e, taus = _tridiagonal_one(a[::-1, ::-1].copy(), True)
        return packed[::-1, ::-1], d[::-1], e[::-1], taus[::-1]
    for i in range(n - 1):
        beta, tau, v_tail = _householder(a[i + 1, i], a[i + 2 :, i])
        a[i + 2 :, i] = v_tail
        e[i] = beta
        if tau != 0:
            v = np.concatenate([[1.0], v_tail]).astype(a.dtype)
            sub = np.tril(a[i + 1 :, i + 1 :])
            full = sub + np.tril(sub, -1).conj().T  # (the Hermitian trailing matrix, from its lower half)
            w = tau * (full @ v)
            w = w - 0.5 * tau * np.vdot(w, v) * v
            full = full - np.outer(v, w.conj()) - np.outer(w, v.conj())
            lower_idx = np.tril_indices(n - i - 1)
            a[i + 1 :, i + 1 :][lower_idx] = full[lower_idx]
        a[i + 1, i] = beta
        d[i] = a[i, i].real
        taus[i] = tau
    if n:
        d[n - 1] = a[n - 1, n - 1].real
    return a, d, e, taus


def _tridiagonal_impl(a, *, lower):
    wide = np.complex128 if dtype_kind(a.dtype) == "c" else np.float64
    batch, n = a.shape[:-2], a.shape[-1]
    flat = a.reshape(-1, n, n).astype(wide)
    outs = [_tridiagonal_one(m, lower) for m in flat]
    real = _real_dtype(a.dtype)
    shapes = [(n, n), (n,), (n - 1,), (n - 1,)]
    dtypes = [a.dtype, real, real, a.dtype]
    return [
        np.stack([o[k] for o in outs]).reshape(*batch, *shapes[k]).astype(dtypes[k])
        if outs
        else np.zeros((*batch, *shapes[k]), dtypes[k])
        for k in range(4)
    ]


@tridiagonal_p.def_abstract_eval
def _tridiagonal_abstract(a, *, lower):
    _check_dtypes("tridiagonal", [a])
    ((rows, cols),) = _check_ranks("tridiagonal", [a], [2])
    if rows != cols or cols == 0:
        raise ValueError(f"The input to tridiagonal must be a square matrix. Got shape {(rows, cols)}.")
    batch, real = a.shape[:-2], _real_dtype(a.dtype)
    return [
        ShapedArray(a.shape, a.dtype),
        ShapedArray((*batch, rows), real),
        ShapedArray((*batch, rows - 1), real),
        ShapedArray((*batch, rows - 1), a.dtype),
    ]


tridiagonal_p.def_impl(_checked_eager(_tridiagonal_abstract)(_tridiagonal_impl))
_batch_leading(tridiagonal_p)


def tridiagonal(a, *, lower: bool = True):
    """``[a, d, e, taus]``: the Householder reduction of a symmetric (Hermitian) matrix to
    tridiagonal form, as LAPACK's ``sytrd`` packs it (only the ``lower`` or upper triangle is read).

    >>> _, d, e, _ = lax.linalg.tridiagonal(jnp.array([[2.0, 1.0], [1.0, 3.0]]))
    >>> d, e
    (Array([2., 3.], dtype=float32), Array([1.], dtype=float32))
    """
    from .. import numpy as jnp

    return list(tridiagonal_p.bind(jnp.asarray(a), lower=bool(lower)))  # (a list, as JAX's)


# ---------------------------------------------------------------------------------------------
# tridiagonal_solve: A X = B for tridiagonal A, by gtsv's pivoted elimination.

tridiagonal_solve_p = Primitive("tridiagonal_solve")


def _gtsv(dl, d, du, b):
    """LAPACK's ``gtsv`` on a batch (leading axis) of systems: elimination with row interchanges
    where the subdiagonal entry is the larger, then back substitution through the two
    superdiagonals. Returns the solutions and which systems met an exact zero pivot."""
    n = d.shape[-1]
    d, du, b = d.copy(), du.copy(), b.copy()
    dl = dl.copy()  # dl[:, i + 1] is the entry below d[:, i]
    du2 = np.zeros_like(d)
    singular = np.zeros(d.shape[0], bool)
    for i in range(n - 1):
        below = dl[:, i + 1]
        swap = np.abs(d[:, i]) < np.abs(below)
        singular |= ~swap & (d[:, i] == 0)
        safe_d = np.where(d[:, i] == 0, 1, d[:, i])
        safe_below = np.where(below == 0, 1, below)
        # no interchange: row i + 1 -= (below / d_i) row i
        fact = below / safe_d
        keep_d1 = d[:, i + 1] - fact * du[:, i]
        keep_b1 = b[:, i + 1] - fact[:, None] * b[:, i]
        # interchange rows i and i + 1, then eliminate
        sfact = d[:, i] / safe_below
        up_next = du[:, i + 1] if i + 1 < n - 1 else np.zeros_like(below)
        swap_d1 = du[:, i] - sfact * d[:, i + 1]
        swap_du2 = up_next
        swap_du1 = -sfact * up_next
        swap_b1 = b[:, i] - sfact[:, None] * b[:, i + 1]
        s, s_col = swap, swap[:, None]
        new_bi = np.where(s_col, b[:, i + 1], b[:, i])
        du2[:, i] = np.where(s, swap_du2, 0)
        new_dui = np.where(s, d[:, i + 1], du[:, i])
        d[:, i] = np.where(s, below, d[:, i])
        d[:, i + 1] = np.where(s, swap_d1, keep_d1)
        if i + 1 < n - 1:
            du[:, i + 1] = np.where(s, swap_du1, du[:, i + 1])
        du[:, i] = new_dui
        b[:, i + 1] = np.where(s_col, swap_b1, keep_b1)
        b[:, i] = new_bi
    singular |= d[:, n - 1] == 0
    x = np.zeros_like(b)
    for i in range(n - 1, -1, -1):
        acc = b[:, i].copy()
        if i + 1 < n:
            acc -= du[:, i, None] * x[:, i + 1]
        if i + 2 < n:
            acc -= du2[:, i, None] * x[:, i + 2]
        x[:, i] = acc / d[:, i, None]
    return x, singular


def _perturbed_pivot(perturb, pivot, row, real):
    """``pivot`` moved off (near) zero, and ``row`` scaled, so that neither ``row / pivot`` nor
    ``1 / pivot`` overflows: jaxlib's MaybePerturbPivot (LAPACK xLAGTS's logic), in ``real``'s
    arithmetic. Returns the pivot and the row."""
    info = np.finfo(real)
    one = real(1)
    small = one / info.max
    safemin = info.tiny if small < info.tiny else small * (one + info.eps)
    bignum = one / safemin
    size = abs(pivot)
    if size >= one:
        return pivot, row
    perturb = real(np.copysign(max(abs(perturb), safemin), pivot.real))
    biggest = np.abs(row).max() if row.size else real(0)
    while size < one:
        if size < safemin and not (size == 0 or biggest * safemin > size):
            return pivot * bignum, row * bignum
        if size >= safemin and not biggest > size * bignum:
            break
        pivot, perturb = pivot + perturb, perturb * real(2)
        size = abs(pivot)
    return pivot, row


def _gtsv_perturbed(dl, d, du, b):
    """One system's ``x`` by jaxlib's row-pivoted elimination that perturbs tiny pivots of ``U`` by
    about ``eps * max|U|`` instead of failing (LAPACK's xLAGTF + xLAGTS, fused), in the operands'
    own precision as jaxlib computes it."""
    n = d.shape[0]
    real = np.dtype(b.dtype.char.lower()).type
    zero = b.dtype.type(0)
    eps = np.finfo(real).eps
    if n == 1:
        p, row = _perturbed_pivot(eps * abs(d[0]), d[0], b[0].copy(), real)
        return (row / p)[None]
    u = np.zeros((n, 3), b.dtype)
    x = b.copy()
    u[0, 0], u[0, 1] = d[0], du[0]
    max_u = max(abs(u[0, 0]), abs(u[0, 1]))
    scale1 = abs(u[0, 0]) + abs(u[0, 1])
    for k in range(n - 1):
        u[k + 1, 0] = d[k + 1]
        scale2 = abs(dl[k + 1]) + abs(u[k + 1, 0])
        if k < n - 2:
            scale2 += abs(du[k + 1])
        if dl[k + 1] == zero:
            scale1 = scale2
            u[k + 1, 1], u[k, 2] = du[k + 1], zero
        else:
            piv1 = real(0) if u[k, 0] == zero else abs(u[k, 0]) / scale1
            if abs(dl[k + 1]) / scale2 <= piv1:  # no row interchange
                scale1 = scale2
                factor = dl[k + 1] / u[k, 0]
                u[k + 1, 0] -= factor * u[k, 1]
                u[k + 1, 1], u[k, 2] = du[k + 1], zero
                x[k + 1] = b[k + 1] - factor * x[k]
            else:  # rows k and k + 1 interchanged
                factor = u[k, 0] / dl[k + 1]
                utmp = u[k, 1]
                u[k, 0] = dl[k + 1]
                u[k + 1, 0] = utmp - factor * d[k + 1]
                u[k, 1] = d[k + 1]
                if k < n - 2:
                    u[k, 2] = du[k + 1]
                    u[k + 1, 1] = -factor * du[k + 1]
                x[k + 1] = x[k] - factor * b[k + 1]
                x[k] = b[k + 1]
                scale1 = abs(u[k + 1, 0]) + abs(u[k + 1, 1])
        if k < n - 2:
            max_u = max(max_u, *np.abs(u[k]))
    max_u = max(max_u, abs(u[n - 1, 0]))
    perturb = real(eps * max_u)
    one = b.dtype.type(1)
    for k in range(n - 1, -1, -1):
        row = x[k].copy()
        if k + 1 < n:
            row = row - u[k, 1] * x[k + 1]
        if k + 2 < n:
            row = row - u[k, 2] * x[k + 2]
        p, row = _perturbed_pivot(perturb, u[k, 0], row, real)
        x[k] = row * (one / p)
    return x


def _tridiagonal_solve_impl(dl, d, du, b, *, perturb_singular):
    if perturb_singular:
        m, k = b.shape[-2:]
        count = int(np.prod(b.shape[:-2]))
        flat = [np.asarray(v).reshape(count, m) for v in (dl, d, du)]
        bs = np.asarray(b).reshape(count, m, k)
        out = np.empty_like(bs)
        with np.errstate(all="ignore"):
            for i in range(count if m else 0):
                out[i] = _gtsv_perturbed(flat[0][i], flat[1][i], flat[2][i], bs[i])
        return out.reshape(b.shape)
    wide = np.complex128 if dtype_kind(b.dtype) == "c" else np.float64
    m, k = b.shape[-2:]
    if m == 0:
        return b.copy()
    diag = [np.asarray(v).reshape(-1, m).astype(wide) for v in (dl, d, du)]
    with np.errstate(all="ignore"):
        x, singular = _gtsv(*diag, b.reshape(-1, m, k).astype(wide))
    x[singular] = np.nan
    return x.reshape(b.shape).astype(b.dtype)


@tridiagonal_solve_p.def_abstract_eval
def _tridiagonal_solve_abstract(dl, d, du, b, *, perturb_singular):
    _check_dtypes("tridiagonal_solve", [dl, d, du, b])
    _check_ranks("tridiagonal_solve", [dl, d, du, b], [1, 1, 1, 2])
    if not (dl.shape == d.shape == du.shape):
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same shape.")
    if tuple(dl.shape) != tuple(b.shape[:-1]):
        raise TypeError(
            "tridiagonal_solve requires that the leading ndim-1 dimensions of b equal the dimensions "
            "of the diagonal arguments."
        )
    return ShapedArray(b.shape, b.dtype)


tridiagonal_solve_p.def_impl(_checked_eager(_tridiagonal_solve_abstract)(_tridiagonal_solve_impl))


def _tridiagonal_product(dl, d, du, b):
    """``A @ b`` for the tridiagonal ``A``, in JAX's equations (a product and two ``.at[].add``)."""
    from .api import reshape

    y = reshape(d, (*d.shape, 1)) * b
    y = y.at[..., 1:, :].add(dl[..., 1:, None] * b[..., :-1, :])
    return y.at[..., :-1, :].add(du[..., :-1, None] * b[..., 1:, :])


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    # d(A^-1 b) = A^-1 (b' - A' x): one more solve with the same matrix
    *diags, _ = primals
    *diags_dot, b_dot = tangents
    ans = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    if all(type(t) is ad.Zero for t in diags_dot):
        rhs = b_dot
    else:
        matvec_dot = _tridiagonal_product(*map(ad.instantiate_zeros, diags_dot), ans)
        rhs = ad.add_tangents(b_dot, -matvec_dot)
    ans_dot = tridiagonal_solve_p.bind(*diags, ad.instantiate_zeros(rhs), perturb_singular=perturb_singular)
    return ans, ans_dot


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    # linear in b only: the cotangent solves with the transposed matrix, whose sub- and
    # superdiagonals are du and dl shifted by one
    assert not any(ad.is_undefined(v) for v in (dl, d, du)) and ad.is_undefined(b)
    if type(ct) is ad.Zero:
        return [None, None, None, ad.Zero(b.aval)]
    from .api import concatenate, full_like

    dl_trans = concatenate((full_like(du[..., -1:], 0), du[..., :-1]), du.ndim - 1)
    du_trans = concatenate((dl[..., 1:], full_like(dl[..., :1], 0)), dl.ndim - 1)
    return [None, None, None, tridiagonal_solve(dl_trans, d, du_trans, ct, perturb_singular=perturb_singular)]


ad.jvp_rules[tridiagonal_solve_p] = _tridiagonal_solve_jvp
ad.transpose_rules[tridiagonal_solve_p] = _tridiagonal_solve_transpose


def _tridiagonal_solve_batch(axis_size, vals, dims, *, perturb_singular):
    # As JAX batches it: unbatched diagonals solve once for every batched right-hand side, folded
    # into the columns; otherwise every batch axis goes to the front.
    dl, d, du, b = vals
    if all(dim is not_mapped for dim in dims[:3]):
        b = batching.moveaxis(b, dims[3], b.ndim - 2)
        flat = b.reshape(b.shape[:-3] + (b.shape[-3], b.shape[-2] * b.shape[-1]))
        out = tridiagonal_solve(dl, d, du, flat, perturb_singular=perturb_singular)
        return out.reshape(b.shape), b.ndim - 2
    vals = [batching.bdim_at_front(v, dim, axis_size) for v, dim in zip(vals, dims)]
    return tridiagonal_solve(*vals, perturb_singular=perturb_singular), 0


batching.batch_rules[tridiagonal_solve_p] = _tridiagonal_solve_batch


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """``X`` with ``A X = b`` for the tridiagonal ``A`` of ``dl`` (below the diagonal, ``dl[0]``
    unread), ``d`` and ``du`` (above, ``du[-1]`` unread); NaNs for a singular system.

    >>> lax.linalg.tridiagonal_solve(
    ...     jnp.array([0.0, 1.0]), jnp.array([2.0, 2.0]), jnp.array([1.0, 0.0]), jnp.array([[3.0], [3.0]]))
    Array([[1.],
           [1.]], dtype=float32)
    """
    return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=bool(perturb_singular))
