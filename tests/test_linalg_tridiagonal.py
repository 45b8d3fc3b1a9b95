"""lax.linalg's tridiagonal, tridiagonal_solve, symmetric_product, cholesky_update and qdwh beyond
the values recorded from JAX (tests/jax_reference/snippets_lax_linalg_more.py): derivatives against
finite differences, batching against the per-member results, and the factorizations' defining
identities on larger random inputs."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.numpy as jnp
from engine import lax
from engine.test_util import check_batching, check_grads

L = lax.linalg
RNG = np.random.default_rng(3)
N = 6
DL, D, DU = (RNG.standard_normal(N).astype(np.float32) for _ in range(3))
D = D + np.float32(4)  # (diagonally dominant: a well-conditioned system)
B = RNG.standard_normal((N, 2)).astype(np.float32)


def _dense(dl, d, du):
    return np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)


def test_tridiagonal_solve_grads_match_finite_differences():
    check_grads(L.tridiagonal_solve, (DL, D, DU, B), order=2, atol=1e-2, rtol=1e-2, eps=1e-3)


def test_tridiagonal_solve_complex_grads_match_finite_differences():
    c = [(v + 1j * v[::-1]).astype(np.complex64) for v in (DL, D, DU)]
    check_grads(L.tridiagonal_solve, (*c, B.astype(np.complex64)), order=1, atol=1e-2, rtol=1e-2, eps=1e-3)


def test_qdwh_forward_derivative_matches_finite_differences():
    # (built from qr, cholesky and triangular_solve in loops; JAX's while_loop has no reverse mode)
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    check_grads(lambda x: L.qdwh(x)[:2], (x,), order=1, modes=("fwd",), atol=2e-2, rtol=2e-2, eps=1e-3)


@pytest.mark.parametrize("in_axes", [(None, None, None, 0), (0, None, 0, None), (0, 0, 0, 2)])
def test_tridiagonal_solve_batches(in_axes):
    def stacked(v, axis):
        return v if axis is None else np.stack([v, v * 1.5, -v], axis)

    args = [stacked(v, ax) for v, ax in zip((DL, D, DU, B), in_axes)]
    check_batching(L.tridiagonal_solve, args, in_axes)


def test_tridiagonal_solve_pivots_and_matches_a_dense_solve():
    dl, d, du = (RNG.standard_normal(40) for _ in range(3))
    d[::3] *= 1e-3  # (rows where the subdiagonal entry is the larger: gtsv interchanges them)
    b = RNG.standard_normal((40, 3))
    got = np.asarray(L.tridiagonal_solve(*(v.astype(np.float32) for v in (dl, d, du, b))))
    np.testing.assert_allclose(got, np.linalg.solve(_dense(dl, d, du), b), rtol=2e-3, atol=2e-3)


def test_tridiagonal_solve_gives_nan_only_for_the_singular_system():
    d = np.stack([D, D * 0])  # (the second: an exact zero pivot)
    out = np.asarray(L.tridiagonal_solve(np.stack([DL, DL * 0]), d, np.stack([DU, DU * 0]), np.stack([B, B])))
    assert np.isfinite(out[0]).all() and np.isnan(out[1]).all()


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_tridiagonal_keeps_the_eigenvalues_and_packs_its_reflectors(lower, dtype):
    x = RNG.standard_normal((5, 5)) + (1j * RNG.standard_normal((5, 5)) if dtype == np.complex64 else 0)
    a = (x + x.conj().T).astype(dtype)
    packed, d, e, taus = L.tridiagonal(a, lower=lower)
    t = np.diag(np.asarray(d, np.float64)) + np.diag(e, -1) + np.diag(e, 1)
    np.testing.assert_allclose(np.linalg.eigvalsh(t), np.linalg.eigvalsh(a), rtol=1e-4, atol=1e-4)
    # the reflectors Q (householder_product of the packed vectors) carry a to T: Q^H a Q = T
    if lower:
        q_sub = L.householder_product(packed[1:, :-1], taus)
        q = np.eye(5, dtype=dtype)
        q[1:, 1:] = q_sub
    else:
        q_sub = L.householder_product(np.asarray(packed)[:-1, 1:][::-1, ::-1], np.asarray(taus)[::-1])
        q = np.eye(5, dtype=dtype)
        q[:-1, :-1] = np.asarray(q_sub)[::-1, ::-1]
    np.testing.assert_allclose(q.conj().T @ a @ q, t, atol=1e-4)
    assert np.asarray(d).dtype == np.float32 and np.asarray(packed).dtype == dtype


def test_tridiagonal_batches_and_runs_under_jit():
    a = RNG.standard_normal((3, 4, 4)).astype(np.float32)
    a = a + np.swapaxes(a, 1, 2)
    check_batching(engine.jit(L.tridiagonal), (a,), 0)


def test_symmetric_product_batches_and_matches_its_formula():
    a = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    c = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    check_batching(lambda a, c: L.symmetric_product(a, c, alpha=0.5, beta=2.0), (a, c[0]), (0, None))
    got = L.symmetric_product(a, c, alpha=0.5, beta=2.0, symmetrize_output=True)
    want = np.tril(0.5 * a @ np.swapaxes(a, 1, 2) + 2.0 * c)
    want = want + np.swapaxes(np.tril(want, -1), 1, 2)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_cholesky_update_is_the_factor_of_the_updated_matrix():
    x = RNG.standard_normal((7, 7))
    a = x @ x.T + 7 * np.eye(7)
    w = RNG.standard_normal(7)
    r = np.linalg.cholesky(a).T.astype(np.float32)
    got = np.asarray(engine.jit(L.cholesky_update)(r, w.astype(np.float32)), np.float64)
    np.testing.assert_allclose(got.T @ got, a + np.outer(w, w), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.tril(got, -1), 0, atol=1e-5)


def test_new_primitives_stage_under_jit_with_jaxs_names():
    text = str(engine.make_jaxpr(lambda *v: L.tridiagonal_solve(*v) + 1)(DL, D, DU, B))
    assert "tridiagonal_solve[perturb_singular=False]" in text
    a = jnp.eye(3)
    assert "symmetric_product[alpha=1.0 beta=0.0]" in str(engine.make_jaxpr(L.symmetric_product)(a, a))
