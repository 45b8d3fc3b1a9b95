"""``jax.scipy.linalg.expm``, staged as JAX 0.10.2 stages it: scaling and squaring around a Pade
approximant picked by the 1-norm (Higham 2005), all in jnp/lax (a ``cond`` over Pade 3/5/7 for
float32, 3/5/7/9/13 for float64, ``jnp.linalg.solve`` for the quotient, and a ``scan`` of
conditional squarings). Its derivatives (and ``expm_frechet``, its JVP) are those of the program.

>>> expm(jnp.array([[0.0, 1.0], [0.0, 0.0]]))
Array([[1., 1.],
       [0., 1.]], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from .. import core, lax
from .. import numpy as jnp
from ..core import Array, Tracer
from ..numpy._promote import promote_dtypes_inexact
from ..numpy._staged import staged_as_jit

# Pade coefficients b_0 .. b_m of each degree m (Higham 2005, table 10.4)
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (
        17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0,
        2162160.0, 110880.0, 3960.0, 90.0, 1.0,
    ),
    13: (
        64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
        129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
        40840800.0, 960960.0, 16380.0, 182.0, 1.0,
    ),
}  # fmt: skip
# Per precision: the largest 1-norm degree 13 (float64) or 7 (float32) handles unscaled, and the
# 1-norm bounds below which the lower degrees are accurate enough.
_THETA = {
    "double": (5.371920351148152, (1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1, 2.097847961257068)),
    "single": (3.925724783138660, (4.258730016922831e-1, 1.880152677804762)),
}  # fmt: skip


def _precise_dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _pade(m, A, _precise_dot=_precise_dot, eye=jnp.eye):
    """``U`` (odd part) and ``V`` (even part) of the degree-``m`` approximant: expm(A) ~ (V - U) \\ (V + U).
    (``_precise_dot`` and ``eye`` are numpy's for the eager path.)"""
    b = _PADE[m]
    M, N = A.shape
    ident = eye(M, N, dtype=A.dtype)
    A2 = _precise_dot(A, A)
    if m == 13:
        A4 = _precise_dot(A2, A2)
        A6 = _precise_dot(A4, A2)
        U = _precise_dot(
            A,
            _precise_dot(A6, b[13] * A6 + b[11] * A4 + b[9] * A2)
            + b[7] * A6
            + b[5] * A4
            + b[3] * A2
            + b[1] * ident,
        )
        V = (
            _precise_dot(A6, b[12] * A6 + b[10] * A4 + b[8] * A2)
            + b[6] * A6
            + b[4] * A4
            + b[2] * A2
            + b[0] * ident
        )
        return U, V
    powers = [A2]  # A^2, A^4, ..., A^(m-1)
    for _ in range(3, m, 2):
        powers.append(_precise_dot(powers[-1], A2) if len(powers) > 1 else _precise_dot(A2, A2))
    # each sum highest power first (b_(2k+1) A^2k in U, b_2k A^2k in V), as JAX writes them
    odd = b[m] * powers[-1]
    for k in range(len(powers) - 1, 0, -1):
        odd = odd + b[2 * k + 1] * powers[k - 1]
    U = _precise_dot(A, odd + b[1] * ident)
    even = b[m - 1] * powers[-1]
    for k in range(len(powers) - 1, 0, -1):
        even = even + b[2 * k] * powers[k - 1]
    return U, even + b[0] * ident


@staged_as_jit
def _calc_P_Q(A):
    """The approximant's numerator ``P`` and denominator ``Q`` for ``A`` scaled by 2**-s, and s."""
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError("expected A to be a square matrix")
    A_L1 = jnp.linalg.norm(A, 1)
    if A.dtype in (np.float64, np.complex128):
        maxnorm, bounds = _THETA["double"]
        degrees = (3, 5, 7, 9, 13)
    elif A.dtype in (np.float32, np.complex64):
        maxnorm, bounds = _THETA["single"]
        degrees = (3, 5, 7)
    else:
        raise TypeError(f"A.dtype={A.dtype} is not supported.")
    n_squarings = jnp.maximum(0, jnp.floor(jnp.log2(A_L1 / maxnorm)))
    A = A / 2 ** n_squarings.astype(A.dtype)
    idx = jnp.digitize(A_L1, jnp.array(bounds, dtype=A_L1.dtype))
    U, V = lax.switch(idx, [functools.partial(_pade, m) for m in degrees], A)
    return U + V, -U + V, n_squarings


@staged_as_jit(static_argnames=("max_squarings",))
def _squaring(R, n_squarings, max_squarings):
    """R squared n_squarings times: a scan of ``max_squarings`` steps, each a ``cond``."""

    def step(c, i):
        return lax.cond(i < n_squarings, lambda x: _precise_dot(x, x), lambda x: x, c), None

    res, _ = lax.scan(step, R, jnp.arange(max_squarings, dtype=n_squarings.dtype))
    return res


@staged_as_jit(static_argnames=("upper_triangular", "max_squarings"))
def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """The matrix exponential of ``A`` (of shape ``(..., n, n)``); NaN where more than
    ``max_squarings`` squarings would be needed."""
    (A,) = promote_dtypes_inexact(A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"Expected A to be a (batched) square matrix, got {A.shape=}.")
    if A.ndim > 2:
        one = functools.partial(expm, upper_triangular=upper_triangular, max_squarings=max_squarings)
        return jnp.vectorize(one, signature="(n,n)->(n,n)")(A)
    if not isinstance(A, Tracer) and not core.staging_anywhere[0] and A.dtype in (np.float32, np.float64):
        return Array(_expm_eager(core.to_numpy(A), max_squarings))  # (the interpreter takes ~1000x longer)
    P, Q, n_squarings = _calc_P_Q(jnp.asarray(A))

    def nan(args):
        return jnp.full_like(args[0], np.nan)

    def compute(args):
        _, P, Q = args
        R = _solve_triangular(Q, P) if upper_triangular else jnp.linalg.solve(Q, P)
        return _squaring(R, n_squarings, max_squarings)

    return lax.cond(n_squarings > max_squarings, nan, compute, (A, P, Q))


def _expm_eager(a, max_squarings):
    """The same steps in numpy, for a concrete float matrix (or a stack of them)."""
    if a.ndim > 2:
        return np.stack([_expm_eager(m, max_squarings) for m in a.reshape(-1, *a.shape[-2:])]).reshape(
            a.shape
        )
    maxnorm, bounds = _THETA["double" if a.dtype == np.float64 else "single"]
    degrees = (3, 5, 7, 9, 13) if a.dtype == np.float64 else (3, 5, 7)
    norm = np.abs(a).sum(axis=0).max(initial=0)
    with np.errstate(divide="ignore"):
        n_squarings = max(0.0, np.floor(np.log2(norm / a.dtype.type(maxnorm))))
    if n_squarings > max_squarings:
        return np.full_like(a, np.nan)
    a = a / a.dtype.type(2.0**n_squarings)
    U, V = _pade(
        degrees[np.searchsorted(np.array(bounds, a.dtype), norm, side="right")], a, np.matmul, np.eye
    )
    R = np.linalg.solve(-U + V, U + V).astype(a.dtype)
    for _ in range(int(n_squarings)):
        R = R @ R
    return R


def _solve_triangular(a, b):
    from .linalg import solve_triangular

    return solve_triangular(a, b)
