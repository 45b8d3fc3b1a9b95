"""The non-symmetric family of lax.linalg (eig: engine/lax/linalg_eig.py; schur, hessenberg and the
Householder primitives: engine/lax/linalg_schur.py) and jax.scipy.linalg on them: derivatives
against finite differences, vmap against a loop, jit against eager, the factorizations' defining
properties. Values against JAX 0.10.2 are in test_jax_reference.py (topics 'linalg_eig' and
'scipy_linalg2')."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.numpy as jnp
import engine.scipy.linalg as jsl
from engine import lax
from engine.test_util import check_batching, check_grads

RNG = np.random.default_rng(1)
A = RNG.standard_normal((4, 4)).astype(np.float32)  # one conjugate pair, two real eigenvalues
C = (RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))).astype(np.complex64)


def _canonical(v):
    """Eigenvectors with their first component's phase divided out (geev leaves a sign free; the
    phase is differentiated too, so finite differences see the same function)."""
    return v / (v[..., :1, :] / jnp.abs(v[..., :1, :]))


def _eigvecs(a):
    w, v = lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return w, _canonical(v)


CASES = {
    "eigvals_real_part": (lambda a: jnp.linalg.eigvals(a).real, (A,)),
    "eigvals_abs": (lambda a: jnp.abs(jnp.linalg.eigvals(a)), (A,)),
    "eigvals_complex_input": (lambda c: jnp.linalg.eigvals(c) * (1 - 2j), (C,)),
    "eigvecs": (lambda a: [jnp.real(x) for x in _eigvecs(a)] + [jnp.imag(x) for x in _eigvecs(a)], (A,)),
    "roots": (lambda p: jnp.abs(jnp.roots(p)), (np.array([1.0, -6.0, 11.0, -6.0], np.float32),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grads_match_finite_differences(name):
    f, args = CASES[name]
    # (first order only: the eigenvalue JVP uses eigenvectors without derivatives, as in JAX)
    check_grads(f, args, order=1, atol=2e-2, rtol=2e-2, eps=1e-3)


def test_eig_reconstructs_the_matrix_and_its_left_eigenvectors_are_left():
    w, vl, vr = lax.linalg.eig(A)
    w, vl, vr = (np.asarray(x) for x in (w, vl, vr))
    np.testing.assert_allclose(A @ vr, vr * w, atol=1e-5)
    np.testing.assert_allclose(vl.conj().T @ A, w[:, None] * vl.conj().T, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(vl, axis=0), 1.0, rtol=1e-6)


@pytest.mark.parametrize("fn", [jnp.linalg.eigvals, lambda a: _canonical(jnp.linalg.eig(a)[1])])
def test_vmap_matches_loop(fn):
    check_batching(fn, [np.stack([A, 2 * A, A.T])], 0, atol=1e-5, rtol=1e-5)


def test_jit_of_grad_matches_eager():
    g = engine.grad(lambda a: jnp.sum(jnp.abs(jnp.linalg.eigvals(a)) ** 2))
    np.testing.assert_allclose(np.asarray(engine.jit(g)(A)), np.asarray(g(A)), rtol=1e-5, atol=1e-6)


def test_eigenvector_derivatives_need_the_opt_in():
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        engine.grad(lambda a: jnp.abs(jnp.linalg.eig(a)[1]).sum())(A)


# --- schur / hessenberg / Householder primitives ---------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("n", [1, 2, 3, 6, 12])
def test_schur_is_a_unitary_similarity_to_a_quasi_triangular_matrix(n, dtype):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if np.dtype(dtype).kind == "c" else 0)
    a = a.astype(dtype)
    t, z = (np.asarray(x) for x in lax.linalg.schur(a))
    tol = 1e-4 if np.finfo(t.dtype).bits <= 32 else 1e-10  # (float64 is float32 unless x64 is on)
    np.testing.assert_allclose(z @ t @ z.conj().T, a, atol=tol * n)
    np.testing.assert_allclose(z.conj().T @ z, np.eye(n), atol=tol)
    below = np.tril(t, -1 if np.dtype(dtype).kind == "c" else -2)
    assert not below.any()
    if np.dtype(dtype).kind == "f":  # 2x2 blocks never touch, and hold complex pairs only
        sub = np.diagonal(t, -1)
        assert not (sub[1:] * sub[:-1]).any()
        for i in np.flatnonzero(sub):
            assert t[i, i] == t[i + 1, i + 1] and t[i, i + 1] * t[i + 1, i] < 0
    np.testing.assert_allclose(
        np.sort_complex(np.linalg.eigvals(t)), np.sort_complex(np.linalg.eigvals(a)), atol=tol * 10 * n
    )


def test_schur_of_a_non_finite_matrix_is_nan():
    t, z = lax.linalg.schur(jnp.array([[1.0, jnp.inf], [0.0, 1.0]]))
    assert np.isnan(np.asarray(t)).all() and np.isnan(np.asarray(z)).all()


@pytest.mark.parametrize(
    "fn",
    [
        lambda a: lax.linalg.schur(a),
        lambda a: lax.linalg.hessenberg(a),
        lambda a: jsl.hessenberg(a, calc_q=True),
        lambda a: jsl.rsf2csf(*jsl.schur(a)),
        lambda a: jsl.qr_multiply(a, jnp.eye(4)),
        lambda a: jsl.solve_sylvester(a, a.T + 6 * jnp.eye(4), a),
        lambda a: jsl.polar(a),
    ],
)
def test_vmap_and_jit_match_a_loop(fn):
    check_batching(fn, [np.stack([A, 2 * A, A.T])], 0, atol=1e-4, rtol=1e-4)
    for got, want in zip(
        engine.tree_util.tree_leaves(engine.jit(fn)(A)), engine.tree_util.tree_leaves(fn(A))
    ):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_householder_primitives_agree_with_each_other():
    r = RNG.standard_normal((5, 3)).astype(np.float32)
    h, taus = lax.linalg.geqrf(r)
    q = lax.linalg.householder_product(h, taus)  # the thin Q
    np.testing.assert_allclose(np.asarray(q @ jnp.triu(h[:3])), r, atol=1e-5)
    c = RNG.standard_normal((5, 2)).astype(np.float32)
    full = np.asarray(lax.linalg.ormqr(h, taus, jnp.eye(5)))
    np.testing.assert_allclose(np.asarray(lax.linalg.ormqr(h, taus, c)), full @ c, atol=1e-5)
    np.testing.assert_allclose(
        np.asarray(lax.linalg.ormqr(h, taus, c, transpose=True)), full.T @ c, atol=1e-5
    )
    np.testing.assert_allclose(full[:, :3], np.asarray(q), atol=1e-6)


def test_matrix_functions_agree_with_their_definitions():
    s = (A @ A.T + np.eye(4)).astype(np.float32)
    root = np.asarray(jsl.sqrtm(s))
    np.testing.assert_allclose(root @ root, s, atol=1e-4)
    np.testing.assert_allclose(
        np.asarray(jsl.funm(A, jnp.exp)), np.asarray(jsl.expm(A)), rtol=1e-4, atol=1e-4
    )
    e = RNG.standard_normal((4, 4)).astype(np.float32)
    _, frechet = jsl.expm_frechet(A, e)
    fd = (np.asarray(jsl.expm(A.astype(np.float64) + 1e-4 * e)) - np.asarray(jsl.expm(A - 1e-4 * e))) / 2e-4
    np.testing.assert_allclose(np.asarray(frechet), fd, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize(
    "fn", [lambda a: jsl.schur(a)[0], lambda a: jsl.hessenberg(a), lambda a: jsl.sqrtm(a).real]
)
def test_schur_family_is_not_differentiable_as_in_jax(fn):
    with pytest.raises(
        NotImplementedError, match="Differentiation rule for '(schur|hessenberg)' not implemented"
    ):
        engine.grad(lambda a: jnp.sum(fn(a)))(A)


def test_polar_grads_match_finite_differences():
    check_grads(lambda a: jsl.polar(a, method="svd"), (A,), order=1, atol=2e-2, rtol=2e-2, eps=1e-3)
