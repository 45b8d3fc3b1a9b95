"""BFGS and L-BFGS (Nocedal & Wright, Algorithms 6.1 and 7.5; L-BFGS extended to complex variables
after Sorber, Van Barel & De Lathauwer 2012) as ``lax.while_loop`` iterations, with JAX 0.10.2's
defaults, stopping rules and status codes."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ... import lax
from ... import numpy as jnp
from .line_search import _dot, line_search


class _BFGSState(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    nhev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    H_k: Any  # the inverse Hessian estimate
    old_old_fval: Any
    status: Any
    line_search_status: Any


def minimize_bfgs(fun, x0, maxiter=None, norm=np.inf, gtol: float = 1e-5, line_search_maxiter: int = 10):
    """Minimize ``fun`` from ``x0`` by BFGS until ``|grad|_norm < gtol`` (status 0), ``maxiter``
    iterations (1, default ``200 * x0.size``) or a failed line search (2 + its status)."""
    from ...api import value_and_grad

    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    initial_H = jnp.eye(d, dtype=x0.dtype)
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _BFGSState(
        converged=jnp.linalg.norm(g_0, ord=norm) < gtol,
        failed=False,
        k=0,
        nfev=1,
        ngev=1,
        nhev=0,
        x_k=x0,
        f_k=f_0,
        g_k=g_0,
        H_k=initial_H,
        old_old_fval=f_0 + jnp.linalg.norm(g_0) / 2,
        status=0,
        line_search_status=0,
    )

    def iterate(s):
        p_k = -_dot(s.H_k, s.g_k)
        ls = line_search(
            fun,
            s.x_k,
            p_k,
            old_fval=s.f_k,
            old_old_fval=s.old_old_fval,
            gfk=s.g_k,
            maxiter=line_search_maxiter,
        )
        s = s._replace(
            nfev=s.nfev + ls.nfev, ngev=s.ngev + ls.ngev, failed=ls.failed, line_search_status=ls.status
        )
        s_k = ls.a_k * p_k
        x_kp1 = s.x_k + s_k
        y_k = ls.g_k - s.g_k
        rho = jnp.reciprocal(_dot(y_k, s_k))
        # H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T, skipped when y.s is zero.
        sy_k = s_k[:, None] * y_k[None, :]
        w = jnp.eye(d, dtype=rho.dtype) - rho * sy_k
        H = (
            jnp.einsum("ij,jk,lk", w, s.H_k, w, precision=lax.Precision.HIGHEST)
            + rho * s_k[:, None] * s_k[None, :]
        )
        H = jnp.where(jnp.isfinite(rho), H, s.H_k)
        converged = jnp.linalg.norm(ls.g_k, ord=norm) < gtol
        return s._replace(
            converged=converged,
            k=s.k + 1,
            x_k=x_kp1,
            f_k=ls.f_k,
            g_k=ls.g_k,
            H_k=H,
            old_old_fval=s.f_k,
        )

    state = lax.while_loop(lambda s: ~s.converged & ~s.failed & (s.k < maxiter), iterate, state)
    status = jnp.where(
        state.converged,
        0,
        jnp.where(state.k == maxiter, 1, jnp.where(state.failed, 2 + state.line_search_status, -1)),
    )
    return state._replace(status=status)


class _LBFGSState(NamedTuple):
    converged: Any
    failed: Any
    k: Any
    nfev: Any
    ngev: Any
    x_k: Any
    f_k: Any
    g_k: Any
    s_history: Any  # the last maxcor steps, oldest first
    y_history: Any  # and gradient changes
    rho_history: Any
    gamma: Any  # the initial inverse Hessian's scale
    status: Any
    ls_status: Any


def _search_direction(s):
    """The two-loop recursion: ``-H g`` for the inverse Hessian the history defines."""
    dtype = s.rho_history.dtype
    size = len(s.rho_history)
    used = jnp.where(s.k < size, s.k, size)

    def newest_first(j, carry):
        q, alphas = carry
        i = size - 1 - j
        a_i = s.rho_history[i] * _dot(jnp.conj(s.s_history[i]), q).real.astype(dtype)
        alphas = alphas.at[i].set(a_i)  # (before q's update, as JAX's)
        return q - a_i * jnp.conj(s.y_history[i]), alphas

    q, alphas = lax.fori_loop(0, used, newest_first, (-jnp.conj(s.g_k), jnp.zeros_like(s.rho_history)))

    def oldest_first(j, q):
        i = size - used + j
        b_i = s.rho_history[i] * _dot(s.y_history[i], q).real.astype(dtype)
        return q + (alphas[i] - b_i) * s.s_history[i]

    return lax.fori_loop(0, used, oldest_first, s.gamma * q)


def _push(history, new):
    return jnp.roll(history, -1, axis=0).at[-1].set(new)


def minimize_lbfgs(
    fun,
    x0,
    maxiter=None,
    norm=np.inf,
    maxcor: int = 10,
    ftol: float = 2.220446049250313e-09,
    gtol: float = 1e-05,
    maxfun=None,
    maxgrad=None,
    maxls: int = 20,
):
    """Minimize ``fun`` from ``x0`` by L-BFGS with ``maxcor`` corrections. Status: 0 converged,
    1 ``maxiter``, 2 ``maxfun``, 3 ``maxgrad``, 4 a decrease below ``ftol``, 5 a failed line search."""
    from ...api import value_and_grad

    d = len(x0)
    dtype = jnp.asarray(x0).dtype
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200
    maxiter = np.inf if maxiter is None else maxiter
    maxfun = np.inf if maxfun is None else maxfun
    maxgrad = np.inf if maxgrad is None else maxgrad
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _LBFGSState(
        converged=jnp.array(False),
        failed=jnp.array(False),
        k=0,
        nfev=1,
        ngev=1,
        x_k=x0,
        f_k=f_0,
        g_k=g_0,
        s_history=jnp.zeros((maxcor, d), dtype=dtype),
        y_history=jnp.zeros((maxcor, d), dtype=dtype),
        rho_history=jnp.zeros((maxcor,), dtype=dtype),
        gamma=1.0,  # (a Python float, as JAX's: the loop carries it weakly typed)
        status=0,
        ls_status=0,
    )

    def iterate(s):
        p_k = _search_direction(s)
        ls = line_search(f=fun, xk=s.x_k, pk=p_k, old_fval=s.f_k, gfk=s.g_k, maxiter=maxls)
        s_k = jnp.asarray(ls.a_k).astype(p_k.dtype) * p_k
        x_kp1 = s.x_k + s_k  # (the step's quantities first, in JAX's order)
        y_k = ls.g_k - s.g_k
        curvature = jnp.real(_dot(y_k, s_k))
        rho_k = jnp.reciprocal(curvature).astype(y_k.dtype)
        gamma = curvature / jnp.real(_dot(jnp.conj(y_k), y_k))
        status = jnp.array(0)  # (each condition evaluated where it is used, as JAX's)
        status = jnp.where(s.f_k - ls.f_k < ftol, 4, status)
        status = jnp.where(s.ngev >= maxgrad, 3, status)
        status = jnp.where(s.nfev >= maxfun, 2, status)
        status = jnp.where(s.k >= maxiter, 1, status)
        status = jnp.where(ls.failed, 5, status)
        converged = jnp.linalg.norm(ls.g_k, ord=norm) < gtol
        return s._replace(
            converged=converged,
            failed=(status > 0) & ~converged,
            k=s.k + 1,
            nfev=s.nfev + ls.nfev,
            ngev=s.ngev + ls.ngev,
            x_k=x_kp1.astype(s.x_k.dtype),
            f_k=ls.f_k.astype(s.f_k.dtype),
            g_k=ls.g_k.astype(s.g_k.dtype),
            s_history=_push(s.s_history, s_k),
            y_history=_push(s.y_history, y_k),
            rho_history=_push(s.rho_history, rho_k),
            gamma=gamma.astype(s.g_k.dtype),
            status=jnp.where(converged, 0, status),
            ls_status=ls.status,
        )

    return lax.while_loop(lambda s: ~s.converged & ~s.failed, iterate, state)
