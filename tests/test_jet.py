"""``jax.experimental.jet`` against JAX 0.10.2 (values recorded by
``tests/jax_reference/record_jet.py``) and against nested ``jvp`` (each order's derivative along
the direction), and its refusals."""

import json
import pathlib
import sys

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
import engine.scipy.special  # noqa: F401  (jax.scipy.special, as the cases name it)
from engine.experimental import jet

HERE = pathlib.Path(__file__).parent / "jax_reference"
sys.path.insert(0, str(HERE))
from record_jet import cases  # noqa: E402

sys.path.remove(str(HERE))
RECORDED = json.loads((HERE / "jet.json").read_text())
CASES = cases(jax)


@pytest.mark.parametrize("name", sorted(CASES))
def test_jet_matches_jax(name):
    f, primals, series = CASES[name]
    p, s = jet.jet(f, primals, series)
    want = RECORDED[name]
    np.testing.assert_allclose(np.asarray(p), want["primal"], rtol=1e-6)
    assert len(s) == len(want["series"])
    for got, w in zip(s, want["series"]):  # (a few ulps: XLA fuses jitted bodies' arithmetic its way)
        np.testing.assert_allclose(np.asarray(got), w, rtol=2e-6, atol=1e-7)
    assert [bool(getattr(t, "weak_type", False)) for t in [p, *s]] == want["weak"]


def test_jet_docstring_example_prints_as_jax():
    h0, h1, h2 = 0.5**3.0, 3.0 * 0.5**2.0, 6.0 * 0.5
    f0, (f1, f2) = jet.jet(jnp.sin, (h0,), ((h1, h2),))
    assert (str(f0), str(f1), str(f2)) == ("0.12467473", "0.74414825", "2.9064636")  # (JAX's bits)


def test_jet_is_the_derivatives_along_a_line():
    # a series (v, 0, 0) at x: the k-th output term is the k-th derivative of t -> f(x + t v)
    f = lambda x: jnp.exp(jnp.sin(x)) / (1 + x**2)  # noqa: E731
    x, v = jnp.array([0.2, 0.9]), jnp.array([1.0, -0.5])
    _, terms = jet.jet(f, (x,), ((v, jnp.zeros(2), jnp.zeros(2)),))
    g = lambda t: f(x + t * v)  # noqa: E731
    d1 = jax.grad(lambda t: g(t).sum())
    derivs = [jax.jacfwd(g)(0.0), jax.jacfwd(jax.jacfwd(g))(0.0), jax.jacfwd(jax.jacfwd(jax.jacfwd(g)))(0.0)]
    for got, want in zip(terms, derivs):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-5)
    assert float(d1(0.0)) == pytest.approx(float(terms[0].sum()), rel=1e-5)


def test_jet_composes_with_jit_and_vmap():
    p, s = jax.jit(lambda a: jet.jet(jnp.sin, (a,), ((1.0, 0.0),)))(0.3)
    np.testing.assert_allclose(
        [float(p), *map(float, s)], [np.sin(0.3), np.cos(0.3), -np.sin(0.3)], rtol=1e-6
    )
    xs = jnp.array([0.1, 0.2])
    p, s = jax.vmap(lambda a: jet.jet(jnp.exp, (a,), ((1.0, 0.0),)))(xs)
    np.testing.assert_allclose(np.asarray(s[1]), np.exp([0.1, 0.2]), rtol=1e-6)


def test_jet_refusals():
    with pytest.raises(ValueError, match="jet terms have inconsistent lengths for different arguments"):
        jet.jet(lambda a, b: a * b, (1.0, 2.0), ((1.0,), (1.0, 2.0)))
    with pytest.raises(ValueError, match="primal value at position 0 is not an array"):
        jet.jet(lambda a: a, ([1.0],), ((1.0,),))
    with pytest.raises(NotImplementedError, match="'scan' not implemented"):
        jet.jet(
            lambda x: jax.lax.scan(lambda c, y: (c * y, None), 1.0, x)[0], (jnp.ones(2),), ((jnp.ones(2),),)
        )
