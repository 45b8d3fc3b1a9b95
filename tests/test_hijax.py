"""``jax.experimental.hijax``: a primitive whose rules are methods of a class. Its derivatives
against finite differences (the custom rules are the function's true derivatives here), ``vmap``
against a loop, ``jit`` against eager, the rule chosen per mode (a VJP-only class refuses forward
mode in JAX's words), and that the custom rule, not the expansion's derivative, is what ``grad``
takes, under ``vmap`` too. Values and jaxprs against JAX's are in test_jax_reference.py ('hijax')."""

from __future__ import annotations

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.experimental.hijax import VJPHiPrimitive
from engine.test_util import check_grads


def _snippet_class(name: str) -> type:
    """A class the JAX-recorded hijax snippets define (tests/jax_reference/snippets_hijax.py),
    built on the engine: one definition for both suites."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent / "jax_reference" / "snippets_hijax.py"
    spec = importlib.util.spec_from_file_location("snippets_hijax", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    H = module.H
    source = H[H.index(f"class {name}(") :]
    source = source[: source.index("\ndef ")]
    namespace = {"VJPHiPrimitive": VJPHiPrimitive, "jnp": jnp, "jax": jax}
    exec(source, namespace)
    return namespace[name]


SinTimesY = _snippet_class("SinTimesY")


class StableLog1pExp(VJPHiPrimitive):
    """Reverse mode only: its rule is stable where the expansion's derivative is 0 * inf."""

    def __init__(self, x_aval):
        self.in_avals, self.out_aval, self.params = (x_aval,), x_aval, {}
        super().__init__()

    def expand(self, x):
        return jnp.log(1.0 + jnp.exp(x))

    def vjp_fwd(self, nzs_in, x):
        return self(x), x

    def vjp_bwd_retval(self, x, g):
        return ((1 - 1 / (1 + jnp.exp(x))) * g,)

    def batch_dim_rule(self, axis_data, in_dims):
        return in_dims[0]


def sin_times_y(x, y):
    return SinTimesY(jax.typeof(x), jax.typeof(y))(x, y)


def log1pexp(x):
    return StableLog1pExp(jax.typeof(x))(x)


X = np.array([0.3, -1.2, 2.0], np.float32)
Y = np.array([1.5, 0.5, -2.0], np.float32)


def test_derivatives_match_finite_differences():
    check_grads(sin_times_y, (X, Y), order=2)
    check_grads(log1pexp, (X,), order=1, modes=("rev",))


def test_vmap_matches_a_loop_and_jit_matches_eager():
    batched = jax.vmap(sin_times_y, (0, None))(X, np.float32(2.0))
    np.testing.assert_allclose(batched, [np.sin(x) * 2.0 for x in X], rtol=1e-6)
    np.testing.assert_allclose(jax.jit(sin_times_y)(X, Y), sin_times_y(X, Y), rtol=1e-6)
    grads = jax.jit(jax.vmap(jax.grad(sin_times_y)))(X, Y)
    np.testing.assert_allclose(grads, np.cos(X) * Y, rtol=1e-6)


def test_grad_takes_the_custom_rule_also_under_vmap():
    xs = jnp.array([1.0, 50.0, 100.0])
    assert np.isnan(float(jax.grad(lambda x: jnp.log(1.0 + jnp.exp(x)))(100.0)))  # (the expansion's)
    assert float(jax.grad(log1pexp)(100.0)) == 1.0
    np.testing.assert_allclose(jax.grad(lambda x: jax.vmap(log1pexp)(x).sum())(xs), [0.7310586, 1.0, 1.0])
    staged = str(jax.make_jaxpr(jax.vmap(log1pexp))(xs))
    assert "call_hi_primitive" in staged and "VmapOf" in staged


def test_forward_mode_of_a_reverse_only_class_is_refused():
    with pytest.raises(
        NotImplementedError, match="for jvp support, subclass .*StableLog1pExp.* must implement `jvp`"
    ):
        jax.jvp(log1pexp, (1.0,), (1.0,))
    with pytest.raises(NotImplementedError, match="must implement `batch` or `batch_dim_rule`"):

        class NoBatch(StableLog1pExp):
            batch_dim_rule = VJPHiPrimitive.batch_dim_rule

        jax.vmap(lambda x: NoBatch(jax.typeof(x))(x))(X)
