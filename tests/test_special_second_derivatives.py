"""Second derivatives of jax.scipy.special functions, jitted as JAX jits them.

exp1 and expn have a jitted JVP rule that calls expn again with n as a nondiff argument: the
second derivative differentiates that jit, whose staged expn call must read n from its operands
(grad(grad(exp1)) raised UnexpectedTracerError). JAX 0.10.2 itself fails on exp1/expn here (a
TypeError, "No constant handler for DynamicJaxprTracer"), so those are checked against closed
forms (E_n' = -E_{n-1}, E_0(x) = exp(-x)/x, E_1 from scipy); the others against JAX 0.10.2's
grad(grad(f)) at float32 (recorded). Also: scipy.special's softmax/log_softmax reduce all axes by default."""

import numpy as np
import pytest

import engine as jax
from engine.scipy import special as sp

# x, E_1(x) (scipy.special.expn(1, x)).
E1 = {0.4: 0.7023801188656623, 1.5: 0.10001958240663271, 3.0: 0.01304838109419704}


def _e0(x):
    return np.exp(-x) / x


@pytest.mark.parametrize("x", [1.5, 3.0])
def test_exp1_second_derivative(x):
    # E_1'' = -E_0' = E_{-1}, exp(-x) (1/x + 1/x^2). (Below x = 1 JAX's rule evaluates expn at
    # n = -1 with its power series, which is NaN there, as scipy's expn(-1, x).)
    np.testing.assert_allclose(jax.grad(jax.grad(sp.exp1))(x), np.exp(-x) * (1 / x + 1 / x**2), rtol=1e-5)
    np.testing.assert_allclose(
        jax.jit(jax.grad(jax.grad(sp.exp1)))(x), np.exp(-x) * (1 / x + 1 / x**2), rtol=1e-5
    )


@pytest.mark.parametrize("x", [0.4, 1.5, 3.0])
def test_expn_second_and_third_derivative(x):
    grad2 = jax.grad(jax.grad(lambda x: sp.expn(2, x)))
    np.testing.assert_allclose(grad2(x), _e0(x), rtol=1e-5)  # E_2'' = E_0
    grad2_of_e3 = jax.grad(jax.grad(lambda x: sp.expn(3, x)))
    np.testing.assert_allclose(grad2_of_e3(x), E1[x], rtol=1e-5)  # E_3'' = E_1
    grad3_of_e3 = jax.grad(grad2_of_e3)
    np.testing.assert_allclose(grad3_of_e3(x), -_e0(x), rtol=1e-5)  # E_3''' = -E_0
    xs = np.array([0.4, 1.5, 3.0], np.float32)
    np.testing.assert_allclose(jax.vmap(grad2)(xs), _e0(xs), rtol=1e-5)


# name: (points, JAX 0.10.2's grad(grad(f)) there, float32)
RECORDED = {
    "expi": ([0.7, 2.5], [-1.2329095602035522, 2.9237985610961914]),
    "dawsn": ([0.7, 2.5], [-1.4204201698303223, 0.13092589378356934]),
    "digamma": ([0.7, 2.5], [-6.434994697570801, -0.2362041175365448]),
    "erfcx": ([0.7, 2.5], [0.5029534697532654, 0.049875855445861816]),
    "erfinv": ([0.3, 0.7], [0.496486634016037, 3.370256185531616]),
    "gamma": ([0.7, 2.5], [5.610853672027588, 1.3091176748275757]),
    "i0e": ([0.7, 2.5], [0.4854568541049957, 0.04428982734680176]),
    "i1e": ([0.7, 2.5], [-0.26689544320106506, -0.003567483276128769]),
    "log_ndtr": ([0.7, 2.5], [-0.4580293297767639, -0.04440564662218094]),
    "ndtri": ([0.3, 0.7], [-4.337824821472168, 4.337824821472168]),
    "logit": ([0.3, 0.7], [-9.070293426513672, 9.070293426513672]),
    "spence": ([0.7, 2.5], [0.7988536953926086, 0.14057347178459167]),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_second_derivative_matches_jax(name):
    points, want = RECORDED[name]
    grad2 = jax.grad(jax.grad(getattr(sp, name)))
    got = [float(grad2(np.float32(x))) for x in points]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_scipy_softmax_reduces_all_axes_by_default():
    # jax.scipy.special's softmax/log_softmax default to axis=None (jax.nn's to the last axis), so
    # a scalar is accepted (it raised "axis -1 is out of bounds"); axis is keyword-only. JAX 0.10.2:
    x = np.array([[0.5, 1.0, -2.0], [3.0, 0.1, 0.2]], np.float32)
    softmax_all = [[0.061257847, 0.10099711, 0.00502835], [0.74627334, 0.04106236, 0.04538093]]
    np.testing.assert_allclose(sp.softmax(x), softmax_all, rtol=1e-5)
    np.testing.assert_allclose(sp.log_softmax(x), np.log(softmax_all), rtol=1e-5)
    softmax_0 = [[0.07585818, 0.71094948, 0.09975049], [0.92414182, 0.28905049, 0.90024954]]
    np.testing.assert_allclose(sp.softmax(x, axis=0), softmax_0, rtol=1e-5)
    assert (float(sp.softmax(np.float32(0.7))), float(sp.log_softmax(np.float32(0.7)))) == (1.0, 0.0)
    assert float(jax.grad(jax.grad(sp.softmax))(np.float32(0.7))) == 0.0  # as JAX's
    assert float(jax.grad(jax.grad(sp.log_softmax))(np.float32(0.7))) == 0.0
    with pytest.raises(TypeError):
        sp.softmax(x, 0)
