"""Special-function primitives (engine.lax.special), the composite ndtri/log_ndtr/entr/gamma: derivatives against float64 finite
differences, vmap against a loop, jit against eager. Values against JAX itself are in
test_jax_reference.py (topics 'special', 'stats', 'scipy_linalg')."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import lax
from engine.lax import special as ls
from engine.scipy import special as jsp_special
from engine.test_util import check_batching, check_grads

X = np.array([0.4, 1.3, 2.5, 6.0], np.float32)
P = np.array([0.02, 0.3, 0.6, 0.95], np.float32)

# (function, args, derivative order checked)
CASES = {
    "lgamma": (ls.lgamma, (X,), 2),
    "lgamma_negative": (ls.lgamma, (-X - 0.55,), 2),
    "digamma": (ls.digamma, (X,), 2),
    "erfc": (ls.erfc, (X - 1,), 2),
    "ndtri": (jsp_special.ndtri, (P,), 2),
    "log_ndtr": (jsp_special.log_ndtr, (np.array([-12.0, -4.0, 0.0, 3.0], np.float32),), 1),
    "entr": (jsp_special.entr, (P,), 2),
    "gamma": (jsp_special.gamma, (X - 3.7,), 2),
    "igamma_x": (lambda x: ls.igamma(np.float32(2.5), x), (X,), 2),
    "igamma_a": (lambda a: ls.igamma(a, np.float32(1.7)), (X,), 1),
    "igammac": (lambda a, x: ls.igammac(a, x), (X, X[::-1].copy()), 1),
    "polygamma": (lambda x: ls.polygamma(np.float32(1), x), (X,), 2),
    "zeta": (lambda q: ls.zeta(np.float32(3), q), (X,), 0),
    "betainc_x": (lambda x: ls.betainc(np.float32(2), np.float32(3.5), x), (P,), 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grads_match_finite_differences(name):
    f, args, order = CASES[name]
    if not order:  # (JAX 0.10.2 has no derivative rule for it)
        with pytest.raises(NotImplementedError, match="Differentiation rule for 'zeta' not implemented"):
            engine.grad(lambda *a: f(*a).sum())(*args)
        return
    check_grads(f, args, order=order, atol=5e-3, rtol=5e-3, eps=1e-3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_matches_loop(name):
    f, args, _ = CASES[name]
    check_batching(f, [np.stack([a, a * np.float32(0.9)]) for a in args], 0, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_eager(name):
    f, args, _ = CASES[name]
    np.testing.assert_allclose(np.asarray(engine.jit(f)(*args)), np.asarray(f(*args)), rtol=1e-6)


def test_values_against_closed_forms():
    np.testing.assert_allclose(np.asarray(ls.lgamma(np.float32(5))), np.log(24), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ls.digamma(np.float32(1))), -0.5772156649, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ls.zeta(np.float32(2), np.float32(1))), np.pi**2 / 6, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ls.igamma(np.float32(1), np.float32(2))), 1 - np.exp(-2), rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(ls.betainc(np.float32(1), np.float32(1), np.float32(0.3))), 0.3, rtol=1e-6
    )
    np.testing.assert_allclose(np.asarray(jsp_special.ndtri(np.float32(0.975))), 1.959963985, rtol=1e-6)


def test_poles_and_infinities_eager_and_jitted():
    # Recorded from JAX 0.10.2: gammaln is inf at -inf, 0, -0 and the negative integers, digamma nan.
    x = np.array([np.inf, -np.inf, 0.0, -0.0, -1.0, -3.0], np.float32)
    lgamma = np.array([np.inf, np.inf, np.inf, np.inf, np.inf, np.inf], np.float32)
    digamma = np.array([np.inf, np.nan, np.nan, np.nan, np.nan, np.nan], np.float32)
    for f, want in ((ls.lgamma, lgamma), (ls.digamma, digamma)):
        np.testing.assert_array_equal(np.asarray(f(x)), want)
        np.testing.assert_array_equal(np.asarray(engine.jit(f)(x)), want)
        for xi, wi in zip(x, want):
            np.testing.assert_array_equal(np.asarray(f(xi)), wi)


def test_second_derivative_in_a_of_igamma_says_not_implemented():
    f = engine.grad(engine.grad(lambda a: ls.igamma(a, np.float32(1.0))))
    with pytest.raises(NotImplementedError, match="igamma_grad_a"):
        f(np.float32(2.0))


def test_complex_operands_are_refused():
    with pytest.raises(TypeError, match="complex64"):
        ls.lgamma(np.complex64(1 + 1j))
    with pytest.raises(TypeError, match="complex64"):
        lax.erfc(np.complex64(1 + 1j))
