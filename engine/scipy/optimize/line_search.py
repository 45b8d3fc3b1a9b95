"""A line search satisfying the strong Wolfe conditions (Nocedal & Wright, *Numerical Optimization*,
Algorithms 3.5 and 3.6), staged as ``lax.while_loop`` so it runs under ``jit`` and ``vmap``. Its
choices follow JAX 0.10.2's (the first trial step, step doubling, zoom by cubic, quadratic or
bisection steps, its failure thresholds), so minimizers built on it take JAX's steps."""

from __future__ import annotations

from typing import Any, NamedTuple


from ... import lax
from ... import numpy as jnp
from ...numpy._promote import promote_dtypes_inexact


def _dot(a, b):
    return jnp.dot(a, b, precision=lax.Precision.HIGHEST)


def _select(state, mask, **new):
    """``state`` with the named fields replaced by ``new`` where ``mask`` holds."""
    return state._replace(**{k: jnp.where(mask, v, getattr(state, k)) for k, v in new.items()})


def _cubic_minimizer(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through ``(a, fa)`` with slope ``fpa``, ``(b, fb)`` and ``(c, fc)``."""
    dtype = jnp.result_type(a, fa, fpa, b, fb, c, fc)
    db, dc = b - a, c - a
    denom = (db * dc) ** 2 * (db - dc)
    m = jnp.array([[dc**2, -(db**2)], [-(dc**3), db**3]], dtype=dtype)
    rhs = jnp.array([fb - fa - fpa * db, fc - fa - fpa * dc], dtype=dtype)
    A, B = _dot(m, rhs) / denom
    radical = B * B - 3.0 * A * fpa
    return a + (-B + jnp.sqrt(radical)) / (3.0 * A)


def _quadratic_minimizer(a, fa, fpa, b, fb):
    """The minimizer of the parabola through ``(a, fa)`` with slope ``fpa`` and ``(b, fb)``."""
    db = b - a
    curvature = (fb - fa - fpa * db) / (db**2)
    return a - fpa / (2.0 * curvature)


class _Zoom(NamedTuple):
    done: Any
    failed: Any
    j: Any
    a_lo: Any
    phi_lo: Any
    dphi_lo: Any
    a_hi: Any
    phi_hi: Any
    dphi_hi: Any
    a_rec: Any  # the previous a_hi/a_lo: the cubic's third point
    phi_rec: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any
    nfev: Any
    ngev: Any


def _zoom(evaluate, sufficient_decrease_fails, curvature_holds, lo, hi, g_0, skip):
    """Shrink ``[lo, hi]`` (each ``(a, phi, dphi)``) to a step meeting both Wolfe conditions; the
    loop does not run when ``skip``."""
    state = _Zoom(
        done=False,
        failed=False,
        j=0,
        a_lo=lo[0],
        phi_lo=lo[1],
        dphi_lo=lo[2],
        a_hi=hi[0],
        phi_hi=hi[1],
        dphi_hi=hi[2],
        a_rec=(lo[0] + hi[0]) / 2.0,
        phi_rec=(lo[1] + hi[1]) / 2.0,
        a_star=1.0,
        phi_star=lo[1],
        dphi_star=lo[2],
        g_star=g_0,
        nfev=0,
        ngev=0,
    )

    def step(s):
        # (in JAX's order of operations, so the staged loop body reads as JAX's)
        width = s.a_hi - s.a_lo
        left, right = jnp.minimum(s.a_hi, s.a_lo), jnp.maximum(s.a_hi, s.a_lo)
        cubic_margin, quad_margin = 0.2 * width, 0.1 * width
        # An interval this narrow ends the search unsuccessfully (the Wolfe conditions do not hold).
        narrow = jnp.where(jnp.finfo(width.dtype).bits < 64, 1e-5, 1e-10)
        s = s._replace(failed=s.failed | (width <= narrow))
        cubic = _cubic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi, s.a_rec, s.phi_rec)
        use_cubic = (s.j > 0) & (cubic > left + cubic_margin) & (cubic < right - cubic_margin)
        quad = _quadratic_minimizer(s.a_lo, s.phi_lo, s.dphi_lo, s.a_hi, s.phi_hi)
        use_quad = (~use_cubic) & (quad > left + quad_margin) & (quad < right - quad_margin)
        bisection = (s.a_lo + s.a_hi) / 2.0
        use_bisection = (~use_cubic) & (~use_quad)
        a_j = jnp.where(use_cubic, cubic, s.a_rec)
        a_j = jnp.where(use_quad, quad, a_j)
        a_j = jnp.where(use_bisection, bisection, a_j)

        phi_j, dphi_j, g_j = evaluate(a_j)
        phi_j = phi_j.astype(s.phi_lo.dtype)
        dphi_j = dphi_j.astype(s.dphi_lo.dtype)
        g_j = g_j.astype(s.g_star.dtype)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)

        to_hi = sufficient_decrease_fails(a_j, phi_j) | (phi_j >= s.phi_lo)
        found = curvature_holds(dphi_j) & (~to_hi)
        flip = (dphi_j * (s.a_hi - s.a_lo) >= 0.0) & (~to_hi) & (~found)
        to_lo = (~to_hi) & (~found)
        s = _select(s, to_hi, a_hi=a_j, phi_hi=phi_j, dphi_hi=dphi_j, a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = s._replace(done=found | s.done)
        s = _select(s, found, a_star=a_j, phi_star=phi_j, dphi_star=dphi_j, g_star=g_j)
        s = _select(s, flip, a_hi=s.a_lo, phi_hi=s.phi_lo, dphi_hi=s.dphi_lo, a_rec=s.a_hi, phi_rec=s.phi_hi)
        s = _select(s, to_lo & ~flip, a_rec=s.a_lo, phi_rec=s.phi_lo)
        s = _select(s, to_lo, a_lo=a_j, phi_lo=phi_j, dphi_lo=dphi_j)
        s = s._replace(j=s.j + 1)
        return s._replace(failed=s.failed | (s.j >= 30))

    return lax.while_loop(lambda s: ~s.done & ~skip & ~s.failed, step, state)


class _Search(NamedTuple):
    done: Any
    failed: Any
    i: Any
    a_prev: Any
    phi_prev: Any
    dphi_prev: Any
    nfev: Any
    ngev: Any
    a_star: Any
    phi_star: Any
    dphi_star: Any
    g_star: Any


class _LineSearchResults(NamedTuple):
    """What the line search found: the step ``a_k`` with ``f_k``/``g_k`` there, counts and a status
    (0 found, 1 zoom failed, 3 ``maxiter`` reached)."""

    failed: Any
    nit: Any
    nfev: Any
    ngev: Any
    k: Any
    a_k: Any
    f_k: Any
    g_k: Any
    status: Any


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9, maxiter=20):
    """A step along the descent direction ``pk`` from ``xk`` meeting the strong Wolfe conditions
    (sufficient decrease with ``c1``, curvature with ``c2``)."""
    xk, pk = promote_dtypes_inexact(xk, pk)
    from ...api import value_and_grad

    def evaluate(t):
        phi, g = value_and_grad(f)(xk + jnp.array(t, dtype=pk.dtype) * pk)
        return phi, jnp.real(_dot(g, pk)), g

    evaluated_at_zero = old_fval is None or gfk is None
    if evaluated_at_zero:
        phi_0, dphi_0, gfk = evaluate(0)
    else:
        phi_0, dphi_0 = old_fval, jnp.real(_dot(gfk, pk))
    if old_old_fval is None:
        first_step = 1
    else:  # the step that would repeat the last iteration's decrease, at most 1
        guess = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        first_step = jnp.where(guess > 1, 1.0, guess)

    def sufficient_decrease_fails(a, phi):
        return phi > phi_0 + c1 * a * dphi_0

    def curvature_holds(dphi):
        return jnp.abs(dphi) <= -c2 * dphi_0

    state = _Search(
        done=jnp.array(False),
        failed=jnp.array(False),
        i=1,
        a_prev=0.0,
        phi_prev=phi_0,
        dphi_prev=dphi_0,
        nfev=int(evaluated_at_zero),
        ngev=int(evaluated_at_zero),
        a_star=0.0,
        phi_star=phi_0,
        dphi_star=dphi_0,
        g_star=gfk,
    )

    def step(s):
        a_i = jnp.where(s.i == 1, first_step, s.a_prev * 2.0)
        phi_i, dphi_i, g_i = evaluate(a_i)
        s = s._replace(nfev=s.nfev + 1, ngev=s.ngev + 1)
        overshot = sufficient_decrease_fails(a_i, phi_i) | ((phi_i >= s.phi_prev) & (s.i > 1))
        found = curvature_holds(dphi_i) & ~overshot
        uphill = (dphi_i >= 0.0) & ~overshot & ~found
        prev, here = (s.a_prev, s.phi_prev, s.dphi_prev), (a_i, phi_i, dphi_i)
        zoom_back = _zoom(evaluate, sufficient_decrease_fails, curvature_holds, prev, here, gfk, ~overshot)
        s = s._replace(nfev=s.nfev + zoom_back.nfev, ngev=s.ngev + zoom_back.ngev)
        zoom_up = _zoom(evaluate, sufficient_decrease_fails, curvature_holds, here, prev, gfk, ~uphill)
        s = s._replace(nfev=s.nfev + zoom_up.nfev, ngev=s.ngev + zoom_up.ngev)
        for mask, z in ((overshot, zoom_back), (found, None), (uphill, zoom_up)):
            # (JAX's order: done, then failed, then the selected star values)
            s = s._replace(done=mask | s.done)
            if z is None:
                s = _select(s, mask, a_star=a_i, phi_star=phi_i, dphi_star=dphi_i, g_star=g_i)
            else:
                s = s._replace(failed=(mask & z.failed) | s.failed)
                s = _select(
                    s, mask, a_star=z.a_star, phi_star=z.phi_star, dphi_star=z.dphi_star, g_star=z.g_star
                )
        return s._replace(i=s.i + 1, a_prev=a_i, phi_prev=phi_i, dphi_prev=dphi_i)

    state = lax.while_loop(lambda s: ~s.done & (s.i <= maxiter) & ~s.failed, step, state)
    status = jnp.where(state.failed, jnp.array(1), jnp.where(state.i > maxiter, jnp.array(3), jnp.array(0)))
    # Steps this small leave single-precision iterates stuck where they are: a floor on the step.
    alpha = jnp.asarray(state.a_star)
    # (the dtype test is a Python bool, staged as JAX stages it: an and with a True literal)
    alpha = jnp.where(
        (jnp.finfo(alpha.dtype).bits != 64) & (jnp.abs(alpha) < 1e-8), jnp.sign(alpha) * 1e-8, alpha
    )
    return _LineSearchResults(
        failed=state.failed | ~state.done,
        nit=state.i - 1,
        nfev=state.nfev,
        ngev=state.ngev,
        k=state.i,
        a_k=alpha,
        f_k=state.phi_star,
        g_k=state.g_star,
        status=status,
    )
