"""The gamma / beta family of jax.scipy.special composed as JAX composes them (betaln's large-argument
expansion, poch's and zeta's custom JVPs, multigammaln): values against SciPy (recorded here),
derivatives against float64 finite differences, vmap against a loop."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.scipy import special as sp
from engine.test_util import check_batching, check_grads

# a < 8 <= b and large arguments take the asymptotic branch of betaln.
A = np.array([0.5, 3.0, 2.5, 20.0, 1e5], np.float32)
B = np.array([2.0, 10.0, 40.0, 30.0, 3e5], np.float32)
# scipy.special.betaln(A, B) and beta(A[:4], B[:4]) in float64
BETALN = [2.87682072e-01, -6.49223984e00, -8.98362734e00, -3.39688208e01, -2.24938752e05]
BETA = [1.33333333e00, 1.51515152e-03, 1.25446982e-04, 1.76818855e-15]
POCH = [0.512644508283859, 2.99, 1.8234347662118302, 1.0]
MGL = [0.8570478133976193, 3.565098014499829]


def test_betaln_and_beta_match_scipy():
    np.testing.assert_allclose(np.asarray(sp.betaln(A, B)), BETALN, rtol=2e-6)
    np.testing.assert_allclose(np.asarray(sp.betaln(B, A)), BETALN, rtol=2e-6)  # symmetric
    np.testing.assert_allclose(np.asarray(sp.beta(A[:4], B[:4])), BETA, rtol=1e-5)


# (function, args, derivative order checked)
CASES = {
    "betaln": (sp.betaln, (A[:4], B[:4]), 2),
    "beta": (sp.beta, (A[:3], B[:3]), 1),
    "poch": (sp.poch, (np.array([0.5, 1.3, 2.5], np.float32), np.array([1.2, 2.0, 0.7], np.float32)), 2),
    "multigammaln": (lambda a: sp.multigammaln(a, 3), (np.array([2.5, 3.3, 6.0], np.float32),), 2),
    # zeta's rule differentiates its Euler-Maclaurin series: in s too (lax.zeta's rule has only q)
    "zeta": (
        sp.zeta,
        (np.array([2.0, 3.5, 1.5, 6.0], np.float32), np.array([1.0, 0.7, 2.5, 4.0], np.float32)),
        1,
    ),
}


def test_poch_and_multigammaln_match_scipy():
    # scipy.special.poch([0.5, 1.3, 2.5, 4.0], [1.2, 2.0, 0.7, 0.0]), multigammaln([2.5, 4.0], 2)
    z, m = np.array([0.5, 1.3, 2.5, 4.0], np.float32), np.array([1.2, 2.0, 0.7, 0.0], np.float32)
    np.testing.assert_allclose(np.asarray(sp.poch(z, m)), POCH, rtol=2e-6)
    np.testing.assert_allclose(
        np.asarray(sp.multigammaln(np.array([2.5, 4.0], np.float32), 2)), MGL, rtol=2e-6
    )


def test_zeta_derivatives_match_jax():
    s, q = np.array([2.0, 3.5, 1.5, 6.0], np.float32), np.array([1.0, 0.7, 2.5, 4.0], np.float32)
    # jax.grad of zeta(s, q).sum() in s and in q, JAX 0.10.2
    ds = [-9.3754822e-01, 1.0958582e00, -3.8080184e00, -5.1472773e-04]
    dq = [-2.4041140e00, -1.7800705e01, -3.4105352e-01, -4.7718006e-04]
    np.testing.assert_allclose(np.asarray(engine.grad(lambda s: sp.zeta(s, q).sum())(s)), ds, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(engine.grad(lambda q: sp.zeta(s, q).sum())(q)), dq, rtol=1e-5)
    with pytest.raises(NotImplementedError, match="Riemann"):
        sp.zeta(2.0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_grads_match_finite_differences(name):
    f, args, order = CASES[name]
    with engine.disable_jit():
        check_grads(f, args, order=order, atol=5e-3, rtol=5e-3, eps=1e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_loop(name):
    f, args, _ = CASES[name]
    check_batching(f, [np.stack([a, a * np.float32(0.9)]) for a in args], 0, atol=1e-5, rtol=1e-5)
