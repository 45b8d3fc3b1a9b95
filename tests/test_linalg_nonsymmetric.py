"""The non-symmetric family of lax.linalg (eig; engine/lax/linalg_eig.py): derivatives against
finite differences, vmap against a loop, jit against eager. Values against JAX 0.10.2 are in
test_jax_reference.py (topic 'linalg_eig')."""

from __future__ import annotations

import numpy as np
import pytest

import engine
import engine.numpy as jnp
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
