"""``jax.scipy.linalg.polar`` and the QR-based dynamically weighted Halley iteration (QDWH) behind it
(Nakatsukasa, Bai & Gygi 2010; Nakatsukasa & Higham 2013), staged as JAX 0.10.2 stages them: the
iteration's coefficients are computed on the host from the condition-number bound, the first steps
(QR-based while the bound is poor, then Cholesky-based) run as ``fori_loop``s over those
coefficients, and a ``while_loop`` of fixed-coefficient Cholesky steps finishes until the iterate
stops moving. Products run at HIGHEST precision (JAX's ``default_matmul_precision('float32')``).

>>> u, p = polar(jnp.array([[2.0, 0.0], [0.0, 3.0]]))
>>> jnp.round(p, 4)
Array([[2., 0.],
       [0., 3.]], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from .. import lax
from .. import numpy as jnp
from ..lax import linalg as lax_linalg
from ..numpy._staged import staged_as_jit

_mm = functools.partial(jnp.matmul, precision=lax.Precision.HIGHEST)


def _H(x):
    return x.T.conj()


def _mask(x, dims, alternative=0):
    """``x`` where each axis index is below its bound in ``dims`` (None: no bound), else ``alternative``."""
    mask = None
    for i, d in enumerate(dims):
        if d is not None:
            below = lax.broadcasted_iota(np.int32, x.shape, i) < d
            mask = below if mask is None else (mask & below)
    return x if mask is None else jnp.where(mask, x, alternative)


def _stack_rows(a, b, m):
    """``a`` (``m`` true rows) with ``b`` written below them."""
    pads = [(0, b.shape[0], 0), (0, 0, 0)]
    return lax.dynamic_update_slice_in_dim(lax.pad(a, jnp.array(0, a.dtype), pads), b, m, 0)


def _qr_step(u, m, n, params):
    """One QDWH step through a QR factorization of ``[sqrt(c) u; I]`` (stable while c is large)."""
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    M, N = u.shape
    y = _stack_rows(sqrt_c * u, jnp.eye(N, dtype=u.dtype), m)
    q, _ = lax_linalg.qr(y, full_matrices=False)
    q1 = _mask(lax.slice(q, (0, 0), (M, N)), (m, n))
    q2 = _H(_mask(lax.dynamic_slice_in_dim(q, m, N, axis=0), (n, n)))
    return e * u + a_minus_e_by_sqrt_c * _mm(q1, q2)


def _cholesky_step(u, m, n, params):
    """One QDWH step through a Cholesky factorization of ``c u^H u + I``."""
    a_minus_e, c, e = params
    _, N = u.shape
    x = c * _mm(_H(u), u) + jnp.eye(N, dtype=u.dtype)
    x = _mask(x, (n, n), jnp.eye(N, dtype=x.dtype))
    y = lax_linalg.cholesky(x, symmetrize_input=False)
    z = lax_linalg.triangular_solve(y, u.T, left_side=True, lower=True, conjugate_a=True).conj()
    z = _H(lax_linalg.triangular_solve(y, z, left_side=True, lower=True, transpose_a=True, conjugate_a=True))
    return e * u + a_minus_e * z


def _coefficients(eps, max_iterations):
    """The host-side coefficient schedule: ``(qr_params, cholesky_params)`` lists of ``(a, b, c)``-
    derived triples while the lower bound ``l`` of the scaled singular values is below 1."""
    lower, tol = eps, 10.0 * eps / 2.0
    qr_params, chol_params = [], []
    k = 0
    while lower + tol < 1 and k < max_iterations:
        k += 1
        l2 = lower * lower
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        lower = lower * (a + b * l2) / (1 + c * l2)
        e = b / c
        if c > 100:  # QR steps while c is large, Cholesky steps (cheaper) after
            qr_params.append(((a - e) / c ** (1 / 2), c ** (1 / 2), e))
        else:
            chol_params.append((a - e, c, e))
    return qr_params, chol_params


def _qdwh(x, m, n, max_iterations, eps):
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    one_norm = jnp.linalg.norm(x, ord=1)
    inf_norm = jnp.linalg.norm(x, ord=np.inf)
    alpha_inverse = lax.rsqrt(one_norm) * lax.rsqrt(inf_norm)
    alpha_inverse = jnp.where(one_norm == 0, 1, alpha_inverse)
    u = x * alpha_inverse.astype(x.dtype)
    tol_norm = jnp.cbrt(10.0 * eps / 2.0)
    qr_params, chol_params = _coefficients(eps, max_iterations)

    def step(k, state, update, coefs, test_convergence):
        u, _ = state
        if coefs is None:  # the fixed Cholesky step (a, b, c) = (3, 1, 3): (a - b/c, c, b/c)
            params = (3 - 1 / 3, 3, 1 / 3)
        else:
            params = lax.dynamic_index_in_dim(coefs, k, keepdims=False)
        u_prev = u
        u = update(u, m, n, params)
        moving = True
        if test_convergence:
            moving = jnp.linalg.norm(u - u_prev) > tol_norm
        return u, moving

    def run(u, coefs, **kwargs):
        if not coefs:
            return u, True
        coefs = jnp.array(coefs).astype(x.dtype)
        return lax.fori_loop(0, len(coefs), functools.partial(step, coefs=coefs, **kwargs), (u, True))

    u, _ = run(u, qr_params, update=_qr_step, test_convergence=False)
    u, moving = run(u, chol_params, update=_cholesky_step, test_convergence=True)

    def keep_going(state):
        k, _, moving = state
        return jnp.logical_and(moving, k < max_iterations)

    def fixed_step(state):
        k, u, moving = state
        u, moving = step(k, (u, moving), coefs=None, update=_cholesky_step, test_convergence=True)
        return k + 1, u, moving

    init = (len(qr_params) + len(chol_params), u, moving)
    num_iters, u, moving = lax.while_loop(keep_going, fixed_step, init)
    u = 1.5 * u - _mm(0.5 * u, _mm(_H(u), u))
    h = _mm(_H(u), x)
    h = (h + _H(h)) / 2
    return u, h, num_iters, jnp.logical_not(moving)


@staged_as_jit(static_argnames=("is_hermitian", "max_iterations", "eps"))
def qdwh(x, *, is_hermitian: bool = False, max_iterations=None, eps=None, dynamic_shape=None):
    """The polar decomposition ``x = u h`` of a full-rank ``M x N`` matrix (``M >= N``) by QDWH:
    ``(u, h, num_iters, is_converged)``."""
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    M, N = x.shape
    if M < N:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    if dynamic_shape is not None:
        m, n = dynamic_shape
        x = _mask(x, (m, n))
    else:
        m, n = M, N
    return _qdwh(x, m, n, max_iterations, eps)


@staged_as_jit(static_argnames=("side", "method"))
def _polar_2d(a, side, method, eps=None, max_iterations=None):
    m, n = a.shape
    if method == "qdwh":
        if m >= n and side == "right":
            unitary, posdef, _, _ = qdwh(a, is_hermitian=False, eps=eps)
        elif m < n and side == "left":
            unitary, posdef, _, _ = qdwh(_H(a), is_hermitian=False, eps=eps)
            posdef, unitary = _H(posdef), _H(unitary)
        else:
            raise NotImplementedError(
                "method='qdwh' only supports mxn matrices where m < n where side='right' and m >= n "
                f"side='left', got {a.shape} with {side=}"
            )
    else:
        u, s, vh = lax_linalg.svd(a, full_matrices=False)
        s = s.astype(u.dtype)
        unitary = _mm(u, vh)  # (HIGHEST, as JAX's default_matmul_precision('float32') here)
        posdef = _mm(_H(vh) * s[None, :], vh) if side == "right" else _mm(u * s[None, :], _H(u))
    return unitary, posdef


@staged_as_jit(name="polar", static_argnames=("side", "method"))
def _polar(a, side, method, eps=None, max_iterations=None):
    from .linalg_schur import _map_batch

    return _map_batch(lambda x: _polar_2d(x, side=side, method=method, eps=eps), (2,), a)


def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """The polar decomposition ``a = U P`` (``side='right'``) or ``a = P U`` (``'left'``): ``(U, P)``
    with ``U`` unitary and ``P`` positive semidefinite, by QDWH (``method='qdwh'``) or the SVD."""
    arr = jnp.asarray(a)
    if arr.ndim < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ["right", "left"]:
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"Unknown polar decomposition method {method}.")
    m, n = arr.shape[-2:]
    if method == "qdwh" and not ((m >= n and side == "right") or (m < n and side == "left")):
        raise NotImplementedError(
            "method='qdwh' only supports mxn matrices where m < n where side='right' and m >= n "
            f"side='left', got {arr.shape[-2:]} with {side=}"
        )
    # (not promoted, as JAX's: an integer matrix meets qdwh's finfo or svd's dtype check)
    kwargs = {k: v for k, v in (("eps", eps), ("max_iterations", max_iterations)) if v is not None}
    return _polar(arr, side=side, method=method, **kwargs)
