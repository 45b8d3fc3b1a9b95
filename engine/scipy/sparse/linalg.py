"""Krylov solvers (``cg``, ``bicgstab``, ``gmres``) with JAX 0.10.2's semantics.

Each solver is a ``lax.while_loop`` iteration wrapped in ``lax.custom_linear_solve``, so
derivatives solve the (transposed) system again instead of differentiating through the
iterations, and jit/vmap go through the loop's own rules. ``A`` and ``M`` are a square matrix, a
``@``-compatible object or a linear function on pytrees; ``b`` may be any pytree of arrays.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from ... import core, lax
from ... import numpy as jnp
from ...pytree.partial import Partial
from ...numpy._dtypes import result_type
from ...tree_util import tree_leaves, tree_map, tree_structure
from .. import linalg as scipy_linalg

__all__ = ["bicgstab", "cg", "gmres"]


# ---- pytree vector algebra -------------------------------------------------------------------

# JAX's solvers take every inner product and matrix-vector product at HIGHEST precision.
_HIGHEST = lax.Precision.HIGHEST
_dot = functools.partial(jnp.dot, precision=_HIGHEST)
_vdot = functools.partial(jnp.vdot, precision=_HIGHEST)


def _real_inner(x, y):
    """``Re(<x, y>)`` of one leaf pair, dropping the real-imaginary cross terms (the inner products
    cg needs are of Hermitian positive-definite forms, which are real)."""
    out = _vdot(jnp.real(x), jnp.real(y))
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        out = out + _vdot(jnp.imag(x), jnp.imag(y))
    return out


def _tree_real_inner(x, y):
    return sum(tree_leaves(tree_map(_real_inner, x, y)))


def _tree_inner(x, y):
    return sum(tree_leaves(tree_map(_vdot, x, y)))


def _tree_norm(x):
    return jnp.sqrt(sum(_real_inner(leaf, leaf) for leaf in tree_leaves(x)))


def _scale(alpha, tree):
    return tree_map(lambda v: alpha * v, tree)


def _tree_add(x, y):
    return tree_map(operator.add, x, y)


def _tree_sub(x, y):
    return tree_map(operator.sub, x, y)


def _tree_select(pred, on_true, on_false):
    return tree_map(lambda t, f: jnp.where(pred, t, f), on_true, on_false)


def _leaf_dtype(tree):
    return jnp.result_type(*tree_leaves(tree))


@Partial
def _identity(x):
    return x


def _as_linear_map(op):
    """A matrix-vector product function from a function, a square array or an ``@`` operand."""
    if callable(op):
        return op
    shape = getattr(op, "shape", None)
    if isinstance(op, (np.ndarray, jnp.ndarray)) or hasattr(op, "__matmul__"):
        if shape is not None and (len(shape) != 2 or shape[0] != shape[1]):
            raise ValueError(f"linear operator must be a square matrix, but has shape: {tuple(shape)}")
        if isinstance(op, (np.ndarray, jnp.ndarray)):
            return functools.partial(_dot, op)
        return functools.partial(operator.matmul, op)
    raise TypeError(f"linear operator must be either a function or ndarray: {op}")


def _leaf_shapes(tree):
    return [np.shape(leaf) for leaf in tree_leaves(tree)]


def _check_like_b(x0, b, *, shapes=True):
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(
            f"x0 and b must have matching tree structure: {tree_structure(x0)} vs {tree_structure(b)}"
        )
    if shapes and _leaf_shapes(x0) != _leaf_shapes(b):
        raise ValueError(
            f"arrays in x0 and b must have matching shapes: {_leaf_shapes(x0)} vs {_leaf_shapes(b)}"
        )


def _squared_tolerance(b, tol, atol):
    # scipy's non-legacy rule: stop once |r|^2 <= max(tol^2 |b|^2, atol^2)
    b2 = _tree_real_inner(b, b)
    return jnp.maximum(jnp.square(tol) * b2, jnp.square(atol))


# ---- conjugate gradients and BiCGSTAB ---------------------------------------------------------


def _cg_iterate(A, b, *, x0, maxiter, tol, atol, M):
    limit2 = _squared_tolerance(b, tol, atol)
    r0 = _tree_sub(b, A(x0))
    z0 = M(r0)
    dtype = _leaf_dtype(z0)
    rz0 = _tree_real_inner(r0, z0).astype(dtype)

    def keep_going(state):
        _, r, rz, _, k = state
        # without a preconditioner <r, z> is <r, r>; otherwise the residual norm is recomputed
        r2 = jnp.real(rz) if M is _identity else _tree_real_inner(r, r)
        return (r2 > limit2) & (k < maxiter)

    def step(state):
        x, r, rz, p, k = state
        Ap = A(p)
        alpha = rz / _tree_real_inner(p, Ap).astype(dtype)
        x = _tree_add(x, _scale(alpha, p))
        r = _tree_sub(r, _scale(alpha, Ap))
        z = M(r)
        rz_new = _tree_real_inner(r, z).astype(dtype)
        p = _tree_add(z, _scale(rz_new / rz, p))
        return x, r, rz_new, p, k + 1

    return lax.while_loop(keep_going, step, (x0, r0, rz0, z0, 0))[0]


def _bicgstab_iterate(A, b, *, x0, maxiter, tol, atol, M):
    limit2 = _squared_tolerance(b, tol, atol)
    r0 = _tree_sub(b, A(x0))
    one = lax.full((), 1, _leaf_dtype(b))

    def keep_going(state):
        r, k = state[1], state[-1]
        # k < 0 flags a breakdown (rho == 0: -10; omega or alpha == 0: -11), which stops the loop
        return (_tree_real_inner(r, r) > limit2) & (k < maxiter) & (k >= 0)

    def step(state):
        x, r, r_hat, alpha, omega, rho, p, v, k = state
        rho_new = _tree_inner(r_hat, r)
        beta = (rho_new / rho) * (alpha / omega)
        p = _tree_add(r, _scale(beta, _tree_sub(p, _scale(omega, v))))
        p_hat = M(p)
        v = A(p_hat)
        alpha = rho_new / _tree_inner(r_hat, v)
        s = _tree_sub(r, _scale(alpha, v))
        # a small enough half-step residual ends the iteration with the half step
        half_step_done = _tree_real_inner(s, s) < limit2
        s_hat = M(s)
        t = A(s_hat)
        omega = _tree_inner(t, s) / _tree_inner(t, t)
        x_half = _tree_add(x, _scale(alpha, p_hat))
        x = _tree_select(half_step_done, x_half, _tree_add(x_half, _scale(omega, s_hat)))
        r = _tree_select(half_step_done, s, _tree_sub(s, _scale(omega, t)))
        k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = jnp.where(rho_new == 0, -10, k)
        return x, r, r_hat, alpha, omega, rho_new, p, v, k

    init = (x0, r0, r0, one, one, one, r0, r0, 0)
    return lax.while_loop(keep_going, step, init)[0]


def _device_put(b, x0):
    """``(b, x0)`` as arrays; traced, through one ``device_put`` as JAX's solvers put them."""
    b, x0 = tree_map(jnp.asarray, (b, x0))
    if any(isinstance(leaf, core.Tracer) for leaf in tree_leaves((b, x0))):
        from ...parallel import device_put

        b, x0 = device_put((b, x0))
    return b, x0


def _krylov_solve(iterate, A, b, x0, *, tol, atol, maxiter, M, symmetric_if_real):
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b, x0 = _device_put(b, x0)
    if maxiter is None:
        maxiter = 10 * sum(np.size(leaf) for leaf in tree_leaves(b))  # scipy's default
    A = _as_linear_map(A)
    M = _identity if M is None else _as_linear_map(M)
    _check_like_b(x0, b)
    solve = functools.partial(iterate, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    # a real positive-definite operator is symmetric, so its transpose solve is the same solve
    symmetric = symmetric_if_real and not any(jnp.iscomplexobj(leaf) for leaf in tree_leaves(b))
    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` by (preconditioned) conjugate gradients, for Hermitian positive-definite ``A``.

    ``A`` (and the preconditioner ``M``, which should approximate ``A``'s inverse) is a square
    matrix, an ``@`` operand or a linear function of pytrees shaped like ``b``. Iteration stops when
    ``norm(b - A x) <= max(tol * norm(b), atol)`` or after ``maxiter`` steps (default
    ``10 * size(b)``). Derivatives solve again with ``cg`` (implicit differentiation), so they are
    accurate when both solves converge. Returns ``(x, None)``: no convergence info, as in JAX.

    >>> from engine.scipy.sparse.linalg import cg
    >>> x, info = cg(lambda v: 2.0 * v, jnp.array([1.0, 4.0]))
    >>> x, info
    (Array([0.5, 2. ], dtype=float32), None)
    """
    return _krylov_solve(
        _cg_iterate, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, symmetric_if_real=True
    )


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Solve ``A x = b`` by the stabilised bi-conjugate gradient method, for general square ``A``.

    Arguments and stopping rule as :func:`cg`; a breakdown (a zero ``rho``, ``alpha`` or
    ``omega``) stops the iteration early. Derivatives solve again with ``bicgstab``. Returns
    ``(x, None)``.

    >>> from engine.scipy.sparse.linalg import bicgstab
    >>> bicgstab(jnp.array([[2.0, 1.0], [0.0, 1.0]]), jnp.array([3.0, 1.0]))[0]
    Array([1., 1.], dtype=float32)
    """
    return _krylov_solve(
        _bicgstab_iterate, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, symmetric_if_real=False
    )


# ---- GMRES ------------------------------------------------------------------------------------


def _normalize_or_zero(x, thresh=None):
    """``(x / |x|, |x|)``, or ``(0, 0)`` when ``|x|`` is at most ``thresh`` (default: the dtype's
    eps; a host constant then, as in JAX)."""
    norm = _tree_norm(x)
    dtype, weak = result_type(*tree_leaves(x), return_weak_type_flag=True)
    if thresh is None:
        thresh = np.finfo(norm.dtype).eps
    thresh = thresh.astype(dtype).real
    nonzero = norm > thresh
    divisor = lax.convert_element_type(norm, dtype, weak)
    unit = tree_map(lambda v: jnp.where(nonzero, v / divisor, 0.0), x)
    return unit, jnp.where(nonzero, norm, 0.0)


def _overlaps(V, v):
    """``V^H v``: the overlaps of ``v`` with the columns (last axis) of each leaf of ``V``."""
    einsum = functools.partial(jnp.einsum, precision=_HIGHEST)
    return functools.reduce(
        operator.add, tree_leaves(tree_map(lambda X, y: einsum("...n,...->n", X.conj(), y), V, v))
    )


def _gram_schmidt(V, v, v_norm, passes=2):
    """Orthogonalize ``v`` against the orthonormal columns of ``V`` by classical Gram-Schmidt, again
    (up to ``passes`` times) while the remainder shrank below ``1/sqrt(2)`` of what it was;
    returns the remainder and the accumulated overlaps. Staged as JAX's loops."""
    first = tree_leaves(V)[0]
    overlaps = jnp.zeros(first.shape[-1], dtype=first.dtype)
    scaled_norm = v_norm / jnp.sqrt(2.0)

    def project_out(carry):
        k, v, overlaps, scaled_norm = carry
        h = _overlaps(V, v)
        v = _tree_sub(v, tree_map(lambda X: _dot(X, h), V))
        overlaps = _tree_add(overlaps, h)

        def not_measured(c):
            k, pending, _, _ = c
            return jnp.logical_and(pending, k < (passes - 1))

        def measure(c):
            k, _, v, scaled_norm = c
            _, norm = _normalize_or_zero(v)
            return k, False, v, norm / jnp.sqrt(2.0)

        _, _, v, scaled_norm = lax.while_loop(not_measured, measure, (k, True, v, scaled_norm))
        return k + 1, v, overlaps, scaled_norm

    def again(carry):
        k, _, overlaps, scaled_norm = carry
        _, overlaps_norm = _normalize_or_zero(overlaps)
        return jnp.logical_and(k < (passes - 1), overlaps_norm < scaled_norm)

    carry = project_out((0, v, overlaps, scaled_norm))
    _, v, overlaps, _ = lax.while_loop(again, project_out, carry)
    return v, overlaps


def _arnoldi_step(k, A, M, V, H):
    """Extend the orthonormal Krylov basis ``V`` by ``M(A(V[:, k]))`` into column ``k + 1`` and store
    its overlaps as row ``k`` of ``H``; report breakdown (an invariant subspace) when it vanishes."""
    dtype = result_type(*tree_leaves(V))
    eps = np.finfo(dtype).eps
    w = M(A(tree_map(lambda X: X[..., k], V)))
    _, w_norm = _normalize_or_zero(w)
    w, h = _gram_schmidt(V, w, w_norm)
    unit_w, remainder = _normalize_or_zero(w, thresh=eps * w_norm)
    V = tree_map(lambda X, u: X.at[..., k + 1].set(u), V, unit_w)
    h = h.at[k + 1].set(remainder.astype(dtype))
    return V, H.at[k, :].set(h), remainder == 0.0


def _rotate(v, i, c, s):
    """Apply the Givens rotation ``(c, s)`` to entries ``i`` and ``i + 1`` of ``v``."""
    a, b = v[i], v[i + 1]
    new_a = c.conj() * a - s.conj() * b
    new_b = s * a + c * b
    return v.at[i].set(new_a).at[i + 1].set(new_b)


def _givens(a, b):
    """The rotation ``(c, s)`` that zeroes ``b`` against ``a`` (the identity when ``b == 0``)."""
    b_zero = abs(b) == 0
    b_larger = abs(a) < abs(b)
    t = -jnp.where(b_larger, a, b) / jnp.where(b_larger, b, a)
    r = lax.rsqrt(1 + abs(t) ** 2).astype(t.dtype)
    c = jnp.where(b_zero, 1, jnp.where(b_larger, r * t, r))
    s = jnp.where(b_zero, 0, jnp.where(b_larger, r, r * t))
    return c, s


def _triangularize_row(row, rotations, k):
    """Apply the ``k`` earlier rotations to a new Hessenberg row, then the one zeroing its entry ``k + 1``."""
    row = lax.fori_loop(0, k, lambda i, v: _rotate(v, i, *rotations[i, :]), row)
    cs = _givens(row[k], row[k + 1])
    rotations = rotations.at[k, :].set(jnp.asarray(cs))
    return _rotate(row, k, *cs), rotations


def _basis_from(unit_residual, restart):
    return tree_map(lambda v: jnp.pad(v[..., None], ((0, 0),) * v.ndim + ((0, restart),)), unit_residual)


def _restart_tail(A, M, b, x0, V, y):
    """``x0 + V y`` and its normalized preconditioned residual."""
    x = _tree_add(x0, tree_map(lambda X: _dot(X[..., :-1], y), V))
    return (x, *_normalize_or_zero(M(_tree_sub(b, A(x)))))


def _gmres_cycle_incremental(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One GMRES cycle that keeps a QR factorization (Givens rotations) of the Hessenberg matrix as
    the basis grows, so the residual estimate can end the cycle early."""
    V = _basis_from(unit_residual, restart)
    dtype = result_type(*tree_leaves(b))
    R = jnp.eye(restart, restart + 1, dtype=dtype)  # (an identity keeps unused rows nonsingular)
    rotations = jnp.zeros((restart, 2), dtype=dtype)
    rhs = jnp.zeros((restart + 1), dtype=dtype)
    rhs = rhs.at[0].set(residual_norm.astype(dtype))

    def keep_going(state):
        k, err = state[0], state[1]
        return jnp.logical_and(k < restart, err > ptol)

    def step(state):
        k, _, V, R, rhs, rotations = state
        V, H, _ = _arnoldi_step(k, A, M, V, R)
        row, rotations = _triangularize_row(H[k, :], rotations, k)
        R = R.at[k, :].set(row)
        rhs = _rotate(rhs, k, *rotations[k, :])
        return k + 1, abs(rhs[k + 1]), V, R, rhs, rotations

    _, _, V, R, rhs, _ = lax.while_loop(keep_going, step, (0, residual_norm, V, R, rhs, rotations))
    y = scipy_linalg.solve_triangular(R[:, :-1].T, rhs[:-1])
    return _restart_tail(A, M, b, x0, V, y)


def _gmres_cycle_batched(A, b, x0, unit_residual, residual_norm, ptol, restart, M):
    """One GMRES cycle that builds the whole Krylov basis, then solves the small least-squares
    problem through its normal equations."""
    del ptol  # a batched cycle cannot stop early
    V = _basis_from(unit_residual, restart)
    dtype, weak = result_type(*tree_leaves(b), return_weak_type_flag=True)
    H = lax.convert_element_type(jnp.eye(restart, restart + 1, dtype=dtype), dtype, weak)

    def keep_going(state):
        return jnp.logical_and(state[3] < restart, jnp.logical_not(state[2]))

    def step(state):
        V, H, _, k = state
        V, H, breakdown = _arnoldi_step(k, A, M, V, H)
        return V, H, breakdown, k + 1

    V, H, _, _ = lax.while_loop(keep_going, step, (V, H, False, 0))
    rhs = jnp.zeros_like(H, shape=(restart + 1,)).at[0].set(residual_norm.astype(dtype))
    Ht = H.T
    y = scipy_linalg.solve(_dot(Ht.T.conj(), Ht), _dot(Ht.T.conj(), rhs), assume_a="pos")
    return _restart_tail(A, M, b, x0, V, y)


_GMRES_CYCLES = {"incremental": _gmres_cycle_incremental, "batched": _gmres_cycle_batched}


def _gmres_iterate(A, b, x0, atol, ptol, restart, maxiter, M, cycle):
    unit_residual, residual_norm = _normalize_or_zero(M(_tree_sub(b, A(x0))))

    def keep_going(state):
        return jnp.logical_and(state[1] < maxiter, state[3] > atol)

    def step(state):
        x, k, unit_residual, residual_norm = state
        x, unit_residual, residual_norm = cycle(A, b, x, unit_residual, residual_norm, ptol, restart, M)
        return x, k + 1, unit_residual, residual_norm

    return lax.while_loop(keep_going, step, (x0, 0, unit_residual, residual_norm))[0]


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None, solve_method="batched"):
    """Solve ``A x = b`` by restarted GMRES, for a general square linear operator ``A``.

    Each cycle projects the solution onto a Krylov space of dimension ``restart`` (at most
    ``size(b)``) started from the current estimate; up to ``maxiter`` cycles (default
    ``10 * size(b)``) run until ``norm(M(b - A x)) <= max(tol * norm(b), atol)``.
    ``solve_method='incremental'`` factorizes the small Hessenberg system with Givens rotations as
    it grows (and may end a cycle early); ``'batched'`` solves it once per cycle. ``A``, ``M`` and
    ``b`` are as in :func:`cg`; derivatives solve again with ``gmres``. Returns ``(x, info)`` with
    ``info`` ``-1`` when ``x`` holds NaN, else ``0``.

    >>> from engine.scipy.sparse.linalg import gmres
    >>> x, info = gmres(jnp.array([[2.0, 0.0], [1.0, 4.0]]), jnp.array([2.0, 9.0]))
    >>> jnp.round(x, 4), int(info)
    (Array([1., 2.], dtype=float32), 0)
    """
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    M = _identity if M is None else _as_linear_map(M)
    A = _as_linear_map(A)
    b, x0 = _device_put(b, x0)
    size = sum(np.size(leaf) for leaf in tree_leaves(b))
    if maxiter is None:
        maxiter = 10 * size  # scipy's default
    restart = min(restart, size)
    _check_like_b(x0, b, shapes=False)
    b_norm = _tree_norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    # the within-cycle tolerance applies to the preconditioned residual, scaled like atol
    Mb_norm = _tree_norm(M(b))
    ptol = Mb_norm * jnp.minimum(1.0, atol / b_norm)
    if solve_method not in _GMRES_CYCLES:
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' or 'batched'")
    cycle = _GMRES_CYCLES[solve_method]

    def solve(matvec, rhs):
        return _gmres_iterate(matvec, rhs, x0, atol, ptol, restart, maxiter, M, cycle)

    x = lax.custom_linear_solve(A, b, solve=solve, transpose_solve=solve)
    return x, jnp.where(jnp.isnan(_tree_norm(x)), -1, 0)
