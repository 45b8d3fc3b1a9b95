"""The jax.scipy.stats distributions and statistics composed of lax operations: derivatives
against float64 finite differences, vmap against a loop, jit against eager. Values against JAX
itself are in test_jax_reference.py (topic 'stats_more')."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.scipy import stats
from engine.test_util import check_batching, check_grads

X = np.array([0.3, 1.2, 2.5, 4.0], np.float32)
P = np.array([0.15, 0.4, 0.6, 0.85], np.float32)

# (function, args) differentiated in every float argument
CASES = {
    "betabinom.logpmf": (
        lambda a, b: stats.betabinom.logpmf(np.float32(3), np.float32(10), a, b),
        (X + 1, X + 0.5),
    ),
    "geom.logpmf": (lambda p: stats.geom.logpmf(np.float32(3), p), (P,)),
    "nbinom.logpmf": (lambda n, p: stats.nbinom.logpmf(np.float32(4), n, p), (X + 1, P)),
    "gennorm.logpdf": (stats.gennorm.logpdf, (X - 2, X + 0.5)),
    "gennorm.cdf": (stats.gennorm.cdf, (X - 2, X + 0.5)),
    "gumbel_r.logsf": (stats.gumbel_r.logsf, (X - 2, X, X + 0.5)),
    "gumbel_l.logcdf": (stats.gumbel_l.logcdf, (X - 2, X, X + 0.5)),
    "pareto.logpdf": (lambda x, b: stats.pareto.logpdf(x, b), (X + 1.5, X + 0.5)),
    "pareto.ppf": (lambda q, b: stats.pareto.ppf(q, b), (P, X + 0.5)),
    "truncnorm.logpdf": (lambda x, a: stats.truncnorm.logpdf(x, a, np.float32(5.0)), (X, X - 1)),
    "truncnorm.logcdf": (lambda x: stats.truncnorm.logcdf(x, np.float32(-1.0), np.float32(3.0)), (X - 0.5,)),
    "vonmises.logpdf": (stats.vonmises.logpdf, (X, X + 0.5)),
    "wrapcauchy.logpdf": (stats.wrapcauchy.logpdf, (X, P)),
    "multinomial.logpmf": (lambda p: stats.multinomial.logpmf(np.array([1, 2, 0, 1]), 4, p), (P / P.sum(),)),
    "gaussian_kde.logpdf": (lambda d, x: stats.gaussian_kde(d).logpdf(x), (X, P * 3)),
    "sem": (lambda a: stats.sem(a), (np.stack([X, P, X * P]),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_grads_match_finite_differences(name):
    f, args = CASES[name]
    with engine.disable_jit():
        check_grads(f, args, order=1, atol=5e-3, rtol=5e-3, eps=1e-3)


@pytest.mark.parametrize("name", ["gumbel_l.logcdf", "truncnorm.logpdf", "pareto.ppf", "betabinom.logpmf"])
def test_vmap_and_jit_match_eager(name):
    f, args = CASES[name]
    check_batching(f, [np.stack([a, a * np.float32(0.9)]) for a in args], 0, atol=1e-5, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(engine.jit(f)(*args)), np.asarray(f(*args)), rtol=1e-6)


def test_poisson_entropy_gradient_as_jax():
    # Reverse mode matches finite differences; forward mode is NaN, as in JAX 0.10.2: entr's
    # custom JVP is t * (log(p) + 1), and the truncated sum reaches pmf values that underflow to 0.
    mu = np.array([0.8, 4.5, 12.0, 60.0], np.float32)
    g = engine.grad(lambda m: stats.poisson.entropy(m).sum())(mu)
    eps = np.float32(1e-2)
    fd = (np.asarray(stats.poisson.entropy(mu + eps)) - np.asarray(stats.poisson.entropy(mu - eps))) / (
        2 * eps
    )
    np.testing.assert_allclose(np.asarray(g), fd, rtol=5e-3, atol=5e-3)
    _, tangent = engine.jvp(stats.poisson.entropy, (mu,), (np.ones(4, np.float32),))
    assert np.isnan(np.asarray(tangent)).all()


def test_grad_through_xlogy_of_an_integer_raises_as_jax():
    # gumbel_r.ppf is xlogy(-1, p): xlogy's rule multiplies the float0 tangent of -1, which JAX
    # refuses with a TypeError (so its gradient is undefined in JAX 0.10.2 as well).
    with pytest.raises(TypeError, match="float0"):
        engine.grad(stats.gumbel_r.ppf)(np.float32(0.3))


def test_rankdata_and_mode_under_vmap():
    a = np.array([[3.0, 1.0, 3.0, 2.0], [1.0, 1.0, 0.0, 5.0]], np.float32)
    check_batching(stats.rankdata, [a], 0)
    check_batching(lambda r: stats.mode(r, axis=None), [a], 0)
    np.testing.assert_array_equal(np.asarray(stats.rankdata(a[0], "min")), [3.0, 1.0, 3.0, 2.0])
