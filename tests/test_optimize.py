"""jax.scipy.optimize (engine/scipy/optimize/): the line search's strong Wolfe conditions, BFGS and
L-BFGS reaching known minima, under jit and vmap. Step-by-step agreement with JAX 0.10.2 (iterates,
counts, status codes) is in test_jax_reference.py (topic 'optimize')."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from engine.scipy.optimize import minimize
from engine.scipy.optimize.line_search import line_search

A = np.array([[3.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 2.0]], np.float32)
B = np.array([1.0, -2.0, 0.5], np.float32)


def quad(x):
    return 0.5 * x @ A @ x - B @ x


def rosen(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


@pytest.mark.parametrize("x0", [np.zeros(3, np.float32), np.array([1.0, -1.0, 2.0], np.float32)])
def test_line_search_step_meets_the_strong_wolfe_conditions(x0):
    g0 = engine.grad(quad)(x0)
    p = -g0
    res = line_search(quad, x0, p, c1=1e-4, c2=0.9)
    a = float(res.a_k)
    assert not bool(res.failed) and a > 0
    f0, slope0 = float(quad(x0)), float(g0 @ p)
    assert float(quad(x0 + a * p)) <= f0 + 1e-4 * a * slope0
    assert abs(float(engine.grad(quad)(x0 + a * p) @ p)) <= 0.9 * abs(slope0)
    np.testing.assert_allclose(np.asarray(res.f_k), float(quad(x0 + a * p)), rtol=1e-6)


@pytest.mark.parametrize("method", ["BFGS", "l-bfgs-experimental-do-not-rely-on-this"])
def test_minimizers_find_the_quadratic_minimum_under_jit_and_vmap(method):
    want = np.linalg.solve(A, B)
    res = minimize(quad, jnp.zeros(3), method=method)
    np.testing.assert_allclose(np.asarray(res.x), want, atol=1e-4)
    jitted = engine.jit(lambda x0: minimize(quad, x0, method=method).x)
    np.testing.assert_allclose(np.asarray(jitted(jnp.ones(3))), want, atol=1e-4)
    starts = jnp.array([[0.0, 0.0, 0.0], [2.0, -1.0, 3.0]])
    batched = engine.vmap(lambda x0: minimize(quad, x0, method=method).x)(starts)
    np.testing.assert_allclose(np.asarray(batched), np.stack([want, want]), atol=1e-4)


def test_bfgs_minimizes_a_quartic_and_estimates_its_inverse_hessian():
    def f(x):
        return quad(x) + 0.1 * jnp.sum(x**4)

    res = minimize(f, jnp.zeros(3), method="BFGS")
    x = np.asarray(res.x, np.float64)
    np.testing.assert_allclose(A @ x - B + 0.4 * x**3, 0.0, atol=2e-5)  # the gradient vanishes
    hess = A + np.diag(1.2 * x**2)
    np.testing.assert_allclose(np.asarray(res.hess_inv), np.linalg.inv(hess), atol=0.05)
    assert bool(res.success) and int(res.status) == 0 and int(res.nfev) == int(res.njev) > int(res.nit)


def test_minimize_refuses_what_jax_refuses():
    with pytest.raises(ValueError, match="Method Powell not recognized"):
        minimize(quad, jnp.zeros(3), method="Powell")
    with pytest.raises(TypeError, match="must be a tuple"):
        minimize(lambda x, a: quad(x), jnp.zeros(3), [1], method="BFGS")
