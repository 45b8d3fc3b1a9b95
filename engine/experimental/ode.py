"""``jax.experimental.ode``: ``odeint``, an adaptive Dormand-Prince (RK45) integrator whose gradient
is the adjoint method (the augmented system integrated backwards in time).

The steps are the same jnp operations, in the same order, as JAX 0.10.2's, so results agree bit for
bit: the state is raveled to one vector, each output time runs a ``while_loop`` of Runge-Kutta steps
(a step is kept when its error ratio is at most 1), and the output is read off the quartic fitted
to the last accepted step. The whole solve is one ``jit`` with the dynamics and tolerances static.

  >>> import engine.numpy as jnp
  >>> ys = odeint(lambda y, t: -y, jnp.ones(2), jnp.array([0.0, 1.0]))
  >>> ys.shape
  (2, 2)
  >>> bool(jnp.allclose(ys[1], jnp.exp(-1.0)))
  True
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable

import numpy as np

from .. import core, lax
from .. import numpy as jnp
from ..api import jit, vjp, vmap
from ..closure_conversion import closure_convert
from ..custom_derivatives import custom_vjp
from ..flatten_util import ravel_pytree
from ..numpy._promote import promote_dtypes_inexact
from ..tree_util import tree_leaves, tree_map

__all__ = ["odeint"]

# Dormand & Prince's tableau (the rows of the stages, their times, the fifth-order weights, and
# the fifth-minus-fourth-order weights that estimate a step's error); Python floats, cast per solve.
_STAGE_TIMES = [1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0, 0]
_STAGE_ROWS = [
    [1 / 5, 0, 0, 0, 0, 0, 0],
    [3 / 40, 9 / 40, 0, 0, 0, 0, 0],
    [44 / 45, -56 / 15, 32 / 9, 0, 0, 0, 0],
    [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729, 0, 0, 0],
    [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656, 0, 0],
    [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
]
_SOLUTION = [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0]
_ERROR = [
    35 / 384 - 1951 / 21600,
    0,
    500 / 1113 - 22642 / 50085,
    125 / 192 - 451 / 720,
    -2187 / 6784 - -12231 / 42400,
    11 / 84 - 649 / 6300,
    -1.0 / 60.0,
]
# Shampine's midpoint weights (halved): the solution half way through a step, for dense output.
_MIDPOINT = [
    6025192743 / 30085553152 / 2,
    0,
    51252292925 / 65400821598 / 2,
    -2691868925 / 45128329728 / 2,
    187940372067 / 1594534317056 / 2,
    -1776094331 / 19743644256 / 2,
    11237099 / 235043384 / 2,
]


def _on_flat(fun: Callable, unravel: Callable) -> Callable:
    """``fun(y, *args)`` on the raveled state: unravel it in, ravel the derivative out."""

    def flat(y_flat, *args):
        return ravel_pytree(fun(unravel(y_flat), *args))[0]

    return flat


def _quartic(y0, y1, k, dt):
    """The coefficients (highest power first) of the quartic through a step's ends, its midpoint
    and its end slopes, over the step's unit interval."""
    y_mid = y0 + dt.astype(y0.dtype) * jnp.dot(jnp.array(_MIDPOINT, dtype=y0.dtype), k)
    dy0, dy1 = k[0], k[-1]
    dt = dt.astype(y0.dtype)
    a = -2.0 * dt * dy0 + 2.0 * dt * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
    b = 5.0 * dt * dy0 - 3.0 * dt * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
    c = -4.0 * dt * dy0 + dt * dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
    return jnp.asarray((a, b, c, dt * dy0, y0))


def _first_step(fun, t0, y0, order, rtol, atol, f0):
    """Hairer, Norsett & Wanner's starting step (Solving ODEs I, section II.4)."""
    y0, f0 = promote_dtypes_inexact(y0, f0)
    dtype = y0.dtype
    scale = (atol + jnp.abs(y0) * rtol).astype(dtype)
    d0 = jnp.linalg.norm(y0 / scale)
    d1 = jnp.linalg.norm(f0 / scale)
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    f1 = fun(y0 + h0.astype(dtype) * f0, t0 + h0)
    d2 = jnp.linalg.norm((f1 - f0) / scale) / h0
    tiny = (d1 <= 1e-15) & (d2 <= 1e-15)
    h1 = jnp.where(tiny, jnp.maximum(1e-6, h0 * 1e-3), (0.01 / jnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)))
    return jnp.minimum(100.0 * h0, h1)


def _rk_step(fun, y0, f0, t0, dt):
    """One Dormand-Prince step: the new state, its slope, the error estimate and the stages."""
    times = jnp.array(_STAGE_TIMES, dtype=dt.dtype)
    rows = jnp.array(_STAGE_ROWS, dtype=f0.dtype)

    def stage(i, k):
        y_i = y0 + dt.astype(f0.dtype) * jnp.dot(rows[i - 1, :], k)
        return k.at[i, :].set(fun(y_i, t0 + dt * times[i - 1]))

    k = jnp.zeros((7, f0.shape[0]), f0.dtype).at[0, :].set(f0)
    k = lax.fori_loop(1, 7, stage, k)
    y1 = dt.astype(f0.dtype) * jnp.dot(jnp.array(_SOLUTION, dtype=f0.dtype), k) + y0
    err = dt.astype(f0.dtype) * jnp.dot(jnp.array(_ERROR, dtype=f0.dtype), k)
    return y1, k[-1], err, k


def _error_ratio(err, rtol, atol, y0, y1):
    """The root mean square of the error over its tolerance (both ends' magnitudes)."""
    tol = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    ratio = err / tol.astype(err.dtype)
    squared = ratio.real**2 + ratio.imag**2 if jnp.iscomplexobj(ratio) else ratio**2
    return jnp.sqrt(jnp.mean(squared))


def _next_step(last, ratio, safety=0.9, grow=10.0, shrink=0.2, order=5.0):
    """The next step size: grown at most tenfold, shrunk at most fivefold after a rejection."""
    shrink = jnp.where(ratio < 1, 1.0, shrink)
    factor = jnp.minimum(grow, jnp.maximum(ratio ** (-1.0 / order) * safety, shrink))
    return jnp.where(ratio == 0, last * grow, last * factor)


def _is_array_or_scalar(x: Any) -> bool:
    try:
        core.get_aval(x)
    except TypeError:
        return False
    return True


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=np.inf, hmax=np.inf):
    """Integrate ``dy/dt = func(y, t, *args)`` from ``y0`` at ``t[0]``, returning ``y`` at each time.

    Args:
      func: the time derivative, ``func(y, t, *args)``, shaped (as a pytree) like ``y0``.
      y0: the initial state, an array or a pytree of arrays.
      t: increasing float times; the first is the initial time.
      *args: extra arrays or scalars (pytrees of them) for ``func``; differentiable.
      rtol, atol: relative and absolute local error tolerances.
      mxstep: the most steps taken to reach each time.
      hmax: the largest step size.

    Returns:
      The states at ``t``: ``y0``'s structure with a leading axis of ``len(t)``.
    """
    for arg in tree_leaves(args):
        if not _is_array_or_scalar(arg):
            raise TypeError(f"The contents of odeint *args must be arrays or scalars, but got {arg}.")
    if not jnp.issubdtype(t.dtype, jnp.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    # (the arrays func closes over become arguments, so the adjoint differentiates them too)
    converted, hoisted = closure_convert(func, y0, t[0], *args)
    return _solve_tree(converted, rtol, atol, mxstep, hmax, y0, t, *args, *hoisted)


@functools.partial(jit, static_argnums=(0, 1, 2, 3, 4))
def _solve_tree(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    y0, unravel = ravel_pytree(y0)
    ys = _solve(_on_flat(func, unravel), rtol, atol, mxstep, hmax, y0, ts, *args)
    return vmap(unravel)(ys)


@functools.partial(custom_vjp, nondiff_argnums=(0, 1, 2, 3, 4))
def _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    def deriv(y, t):
        return func(y, t, *args)

    def to_time(carry, target):
        def going(state):
            i, _, _, t, dt, _, _ = state
            return (t < target) & (i < mxstep) & (dt > 0)

        def step(state):
            i, y, f, t, dt, last_t, coeffs = state
            y1, f1, err, k = _rk_step(deriv, y, f, t, dt)
            ratio = _error_ratio(err, rtol, atol, y, y1)
            fitted = _quartic(y, y1, k, dt)
            dt_next = jnp.clip(_next_step(dt, ratio), min=0.0, max=hmax)
            taken = [i + 1, y1, f1, t + dt, dt_next, t, fitted]
            kept = [i + 1, y, f, t, dt_next, last_t, coeffs]
            return [jnp.where(ratio <= 1.0, a, b) for a, b in zip(taken, kept)]

        _, *carry = lax.while_loop(going, step, [0, *carry])
        _, _, t, _, last_t, coeffs = carry
        s = (target - last_t) / (t - last_t)
        return carry, jnp.polyval(coeffs, s.astype(coeffs.dtype))

    f0 = deriv(y0, ts[0])
    dt = jnp.clip(_first_step(deriv, ts[0], y0, 4, rtol, atol, f0), min=0.0, max=hmax)
    carry = [y0, f0, ts[0], dt, ts[0], jnp.array([y0] * 5)]
    _, ys = lax.scan(to_time, carry, ts[1:])
    return jnp.concatenate((y0[None], ys))


def _solve_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _solve(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _solve_bwd(func, rtol, atol, mxstep, hmax, res, g):
    """The adjoint: between consecutive output times, integrate the state backwards together with
    its cotangent and the parameters' (Chen et al. 2018, appendix C), in negated time."""
    ys, ts, args = res

    def augmented(state, minus_t, *args):
        y, y_bar = state[0], state[1]
        y_dot, pullback = vjp(func, y, -minus_t, *args)
        return (-y_dot, *pullback(y_bar))

    def interval(carry, i):
        y_bar, t0_bar, args_bar = carry
        t_bar = jnp.dot(func(ys[i], ts[i], *args), g[i]).real  # (the output time's own effect)
        t0_bar = t0_bar - t_bar
        _, y_bar, t0_bar, args_bar = odeint(
            augmented,
            (ys[i], y_bar, t0_bar, args_bar),
            jnp.array([-ts[i], -ts[i - 1]]),
            *args,
            rtol=rtol,
            atol=atol,
            mxstep=mxstep,
            hmax=hmax,
        )
        y_bar, t0_bar, args_bar = tree_map(operator.itemgetter(1), (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    start = (g[-1], 0.0, tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), rev_ts_bar = lax.scan(interval, start, jnp.arange(len(ts) - 1, 0, -1))
    ts_bar = jnp.concatenate([jnp.array([t0_bar]), rev_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


_solve.defvjp(_solve_fwd, _solve_bwd)
