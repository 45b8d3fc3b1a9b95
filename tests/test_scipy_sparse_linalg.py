"""jax.scipy.sparse.linalg's Krylov solvers beyond the recorded JAX values
(tests/jax_reference/snippets_sparse_linalg.py): derivatives against finite differences, and
solutions against numpy's dense solve."""

from __future__ import annotations

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.scipy.sparse.linalg import bicgstab, cg, gmres
from engine.test_util import check_grads

R = np.random.RandomState(1)
G = R.randn(4, 4)
SPD = G @ G.T + 4 * np.eye(4)
NONSYM = G + 5 * np.eye(4)
B = R.randn(4)


def test_cg_gradients_match_finite_differences():
    # in b and in the matrix; derivatives come from solving again (custom_linear_solve)
    check_grads(lambda b: cg(jnp.asarray(SPD, jnp.float32), b, tol=1e-6)[0], (B.astype(np.float32),), order=1)
    check_grads(
        lambda a: cg(a @ a.T + 4 * jnp.eye(4), jnp.ones(4), tol=1e-6)[0], (G.astype(np.float32),), order=1
    )


@pytest.mark.parametrize("solver", ["bicgstab", "gmres_batched", "gmres_incremental"])
def test_nonsymmetric_gradients_match_finite_differences(solver):
    solve = {
        "bicgstab": lambda A, b: bicgstab(A, b, tol=1e-6)[0],
        "gmres_batched": lambda A, b: gmres(A, b, tol=1e-6)[0],
        "gmres_incremental": lambda A, b: gmres(A, b, tol=1e-6, solve_method="incremental")[0],
    }[solver]
    check_grads(solve, (NONSYM.astype(np.float32), B.astype(np.float32)), order=1)


@pytest.mark.parametrize("method", ["batched", "incremental"])
def test_solutions_match_dense_solve(method):
    want = np.linalg.solve(NONSYM, B)
    np.testing.assert_allclose(gmres(NONSYM, B, solve_method=method)[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bicgstab(NONSYM, B)[0], want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(cg(SPD, B)[0], np.linalg.solve(SPD, B), rtol=1e-4, atol=1e-5)


def test_restarted_gmres_converges_over_cycles():
    # a 2-dimensional Krylov space per cycle cannot hold the solution; enough cycles reach it
    A = np.diag(np.arange(1.0, 7.0)) + 0.1 * R.randn(6, 6)
    b = R.randn(6)
    one_cycle = gmres(A, b, restart=2, maxiter=1)[0]
    many = gmres(A, b, restart=2, maxiter=200, tol=1e-6)[0]
    assert np.linalg.norm(A @ one_cycle - b) > 1e-2
    np.testing.assert_allclose(many, np.linalg.solve(A, b), rtol=1e-4, atol=1e-4)


def test_jit_and_vmap_agree_with_eager():
    A = jnp.asarray(SPD, jnp.float32)
    bs = jnp.asarray(R.randn(3, 4), jnp.float32)
    eager = np.stack([cg(A, b)[0] for b in bs])
    np.testing.assert_allclose(jax.vmap(lambda b: cg(A, b)[0])(bs), eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jax.jit(lambda b: cg(A, b)[0])(bs[0]), eager[0], rtol=1e-5, atol=1e-6)
