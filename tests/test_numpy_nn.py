"""engine.nn (jax.nn) against numpy formulas, with derivatives and batching."""

import math

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import nn
from engine.test_util import check_batching, check_grads

rng = np.random.default_rng(2)
X = rng.uniform(-3, 3, (4, 5)).astype(np.float32)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _erf(x):
    return np.vectorize(math.erf)(x)


REFERENCE = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "log_sigmoid": lambda x: -np.log1p(np.exp(-x)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "swish": lambda x: x / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "gelu": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))),
    "celu": lambda x: np.maximum(x, 0) + np.minimum(np.expm1(x), 0),
    "softmax": _softmax,
    "log_softmax": lambda x: np.log(_softmax(x)),
    "logsumexp": lambda x: np.log(np.exp(x).sum()),
    "standardize": lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5),
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_matches_reference(name):
    np.testing.assert_allclose(
        np.asarray(getattr(nn, name)(X)), REFERENCE[name](X.astype(np.float64)), rtol=2e-5, atol=2e-5
    )


@pytest.mark.parametrize(
    "name",
    [
        "sigmoid",
        "softplus",
        "silu",
        "gelu",
        "elu",
        "softmax",
        "log_softmax",
        "logsumexp",
        "mish",
        "log_sigmoid",
        "standardize",
    ],
)
def test_grads_and_batching(name):
    f = getattr(nn, name)
    check_grads(lambda x: f(x), (X,), order=2, atol=5e-3, rtol=5e-3)
    check_batching(f, (X,), 0)


def test_relu_derivative_at_zero_is_zero():
    assert float(jax.grad(nn.relu)(0.0)) == 0.0
    assert float(jax.grad(nn.relu)(2.0)) == 1.0


def test_gelu_exact_and_glu():
    np.testing.assert_allclose(
        np.asarray(nn.gelu(X, approximate=False)), X * (1 + _erf(X / np.sqrt(2))) / 2, rtol=1e-5, atol=1e-6
    )
    y = rng.uniform(-2, 2, (3, 6)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(nn.glu(y)), y[:, :3] / (1 + np.exp(-y[:, 3:])), rtol=1e-5)


def test_softmax_axes_and_stability():
    big = np.array([1000.0, 1000.0, -1000.0], np.float32)
    np.testing.assert_allclose(np.asarray(nn.softmax(big)), [0.5, 0.5, 0.0], atol=1e-7)
    np.testing.assert_allclose(np.asarray(nn.logsumexp(big)), 1000 + np.log(2), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(nn.softmax(X, axis=0)), _softmax(X, 0), rtol=1e-5)
    np.testing.assert_allclose(
        np.asarray(nn.logsumexp(X, axis=1, keepdims=True)),
        np.log(np.exp(X.astype(np.float64)).sum(1, keepdims=True)),
        rtol=1e-5,
    )
    assert float(nn.logsumexp(jnp.array([-jnp.inf, -jnp.inf]))) == -np.inf
    b = np.array([1.0, 2.0, 0.0], np.float32)
    np.testing.assert_allclose(
        np.asarray(nn.logsumexp(np.array([0.0, 1.0, 5.0], np.float32), b=b)), np.log(1 + 2 * np.e), rtol=1e-6
    )
    # softmax rows sum to one, and the gradient of a sum of softmax is zero
    np.testing.assert_allclose(np.asarray(jax.grad(lambda x: nn.softmax(x).sum())(X)), 0, atol=1e-6)


def test_one_hot():
    got = nn.one_hot(jnp.array([0, 2, 5, -1]), 3)
    np.testing.assert_array_equal(np.asarray(got), [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    assert got.dtype == np.float32
    assert nn.one_hot(jnp.array([[1, 0]]), 4, axis=0).shape == (4, 1, 2)
    assert nn.one_hot(jnp.array([1]), 2, dtype=jnp.int32).dtype == np.int32
    out = jax.vmap(lambda i: nn.one_hot(i, 3))(jnp.array([2, 0]))
    np.testing.assert_array_equal(np.asarray(out), [[0, 0, 1], [1, 0, 0]])


def test_one_hot_as_jax_takes_its_arguments():
    # a named axis: each instance's row is its own index along that axis
    out = jax.vmap(lambda i: nn.one_hot(i, 4, axis="b"), axis_name="b")(jnp.array([1, 0, 3, 3]))
    np.testing.assert_array_equal(np.asarray(out), [0, 0, 0, 1])
    with pytest.raises(ValueError, match="Expected num_classes to match the size of axis b, but 3 != 4"):
        jax.vmap(lambda i: nn.one_hot(i, 3, axis="b"), axis_name="b")(jnp.array([1, 0, 3, 3]))
    with pytest.warns(DeprecationWarning, match="should be integer-typed; got dtype=float32"):
        nn.one_hot(jnp.array([0.0, 2.0]), 3)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="argument `num_classes`"):
        jax.jit(lambda n: nn.one_hot(jnp.array([0]), n))(3)
    with jax.enable_x64(True):  # (the default float: float64 under x64)
        assert nn.one_hot(jnp.array([0, 2]), 3).dtype == np.float64
