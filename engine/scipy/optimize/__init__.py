"""``jax.scipy.optimize``: ``minimize`` with JAX 0.10.2's methods, BFGS and
``'l-bfgs-experimental-do-not-rely-on-this'``, iterating in ``lax.while_loop`` (so under ``jit`` and
``vmap``).

>>> res = minimize(lambda x: jnp.sum((x - 2.0) ** 2), jnp.zeros(2), method="BFGS")
>>> res.x, res.success, res.nit, res.nfev
(Array([2., 2.], dtype=float32), Array(True, dtype=bool), Array(2, dtype=int32, weak_type=True), Array(3, dtype=int32, weak_type=True))
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ... import numpy as jnp
from .bfgs import minimize_bfgs, minimize_lbfgs


class OptimizeResults(NamedTuple):
    """What ``minimize`` found: ``x``, ``success``, ``status`` (0 converged; other codes by method),
    ``fun`` and ``jac`` at ``x``, ``hess_inv`` (BFGS only), ``nfev``, ``njev`` and ``nit``."""

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(fun, x0, args: tuple = (), *, method: str, tol=None, options=None) -> OptimizeResults:
    """Minimize ``fun(x, *args)`` over a 1-d ``x`` from ``x0``, gradients by autodiff. ``method`` is
    ``'BFGS'`` or ``'l-bfgs-experimental-do-not-rely-on-this'``; ``options`` are the method's
    (``maxiter``, ``gtol``, ``norm``, ...); ``tol`` is accepted and unused, as in JAX."""
    options = {} if options is None else options
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")

    def objective(x):
        return fun(x, *args)

    if method.lower() == "bfgs":
        r = minimize_bfgs(objective, x0, **options)
        hess_inv = r.H_k
    elif method.lower() == "l-bfgs-experimental-do-not-rely-on-this":
        r = minimize_lbfgs(objective, x0, **options)
        hess_inv = None
    else:
        raise ValueError(f"Method {method} not recognized")
    return OptimizeResults(
        x=r.x_k,
        success=r.converged & jnp.logical_not(r.failed),
        status=r.status,
        fun=r.f_k,
        jac=r.g_k,
        hess_inv=hess_inv,
        nfev=r.nfev,
        njev=r.ngev,
        nit=r.k,
    )
