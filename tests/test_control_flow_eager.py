"""Eager control flow compiled by structure (``engine/lax/control_flow_eager.py``): a while loop that
has not ended within the iterations the interpreter is given (and a scan or cond holding a while, or a
long scan) runs as ``jit``'s compiled program of it, so its values are ``jax.jit``'s bit for bit,
whatever ran before; short loops, short scans and small conds stay interpreted; a loop traced again
finds its program by structure; bodies with effects stay interpreted."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import lax
from engine.lax import control_flow_eager as eager
from engine.lax import libm_f32

from conftest import numba_backend

pytestmark = pytest.mark.usefixtures("test_kernel_cache")


@pytest.fixture
def compiled(monkeypatch):
    numba_backend()
    monkeypatch.setattr(eager, "ENABLED", [True])
    monkeypatch.setattr(eager, "_programs", {})


def _body(c):
    return c[0] + 1, jnp.sin(c[1]) * 1.5 + 0.25


def _loop(x, n):
    return lax.while_loop(lambda c: c[0] < n, _body, (0, x))


def test_short_while_interpreted_long_while_compiled_as_jit_compiles_it(compiled):
    x = jnp.linspace(-3.0, 3.0, 16)
    want = np.asarray(x)
    for _ in range(20):  # (float32 sin as JAX's: the C library's sinf, libm_f32)
        want = (libm_f32.sin(want) * np.float32(1.5) + np.float32(0.25)).astype(np.float32)
    n, got = _loop(x, 20)  # (ends within the iterations it may run interpreted)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert int(n) == 20
    jitted = np.asarray(jax.jit(_loop, static_argnums=1)(x, 5000)[1])
    for _ in range(3):  # (the body traced again: the same program, the same values every call)
        n, got = _loop(x, 5000)
        np.testing.assert_array_equal(np.asarray(got), jitted)
        assert int(n) == 5000
    assert len(eager._programs) == 2


def test_short_scans_and_small_conds_stay_interpreted(compiled):
    xs = jnp.arange(10.0)
    c, ys = lax.scan(lambda c, v: (c * 0.5 + v, c), 0.0, xs)
    want_c, want_ys = 0.0, []
    for v in range(10):
        want_ys.append(want_c)
        want_c = want_c * 0.5 + v
    np.testing.assert_allclose(float(c), want_c, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ys), want_ys, rtol=1e-6)
    assert float(lax.cond(xs[3] > 2.0, lambda v: v * 2.0, lambda v: v, 3.0)) == 6.0
    assert not eager._programs


def test_long_scan_cond_holding_a_while_and_vmapped_while_compiled(compiled):
    xs = jnp.linspace(0.0, 1.0, 5000)
    c, ys = lax.scan(lambda c, v: (c * 0.5 + v, jnp.exp(c)), 0.0, xs)
    jc, jys = jax.jit(lambda xs: lax.scan(lambda c, v: (c * 0.5 + v, jnp.exp(c)), 0.0, xs))(xs)
    assert float(c) == float(jc)
    np.testing.assert_array_equal(np.asarray(ys), np.asarray(jys))
    got = lax.cond(
        xs[3] > 2.0,
        lambda v: v,
        lambda v: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0 + 1.0, v),
        1.0,
    )
    assert float(got) == 15.0
    got = jax.vmap(lambda v: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0 + 1.0, v))(jnp.arange(4.0))
    np.testing.assert_array_equal(np.asarray(got), [15.0, 15.0, 11.0, 15.0])
    assert sorted(p.name for p in eager._programs.values()) == ["cond", "scan", "while"]


def test_gamma_grad_compiled_agrees_with_the_interpreter(compiled):
    a = jnp.array([0.7, 2.5, 9.0])
    x = jnp.array([0.4, 3.0, 12.0])
    got = np.asarray(lax.random_gamma_grad(a, x))
    eager.ENABLED[0] = False
    want = np.asarray(lax.random_gamma_grad(a, x))
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_effects_and_trace_errors_stay_as_interpreted(compiled, capsys):
    def body(c):
        jax.debug.print("c={c}", c=c)
        return c + 1

    assert int(lax.while_loop(lambda c: c < 3, body, 0)) == 3
    assert capsys.readouterr().out == "c=0\nc=1\nc=2\n"
    assert not eager._programs

    def branchy(c):
        if c > 1:  # a Python `if` on a traced value
            return c
        return c + 1

    with pytest.raises(jax.errors.ConcretizationTypeError):
        lax.while_loop(lambda c: c < 3, branchy, 0)


def test_lgamma_and_digamma_compiled_are_the_interpreters_bits(compiled):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-30.0, 60.0, 4000), np.exp(rng.uniform(-40.0, 80.0, 1000))])
    x = jnp.asarray(np.concatenate([x, [-3.0, -0.5, 0.0, 1.0, 2.0, 1e-30, np.nan]]).astype(np.float32))
    for f in (lax.lgamma, lax.digamma):
        np.testing.assert_array_equal(np.asarray(jax.jit(f)(x)), np.asarray(f(x)))


def test_eager_gamma_grad_is_jits(compiled):
    key, alpha = jax.random.key(0), jnp.array([0.3, 1.0, 2.5, 7.0, 40.0])
    g = jax.grad(lambda a: jnp.sum(jax.random.gamma(key, a)))
    np.testing.assert_array_equal(np.asarray(g(alpha)), np.asarray(jax.jit(g)(alpha)))
