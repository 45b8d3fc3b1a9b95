"""Eager reverse mode on the tape (engine/tape.py) computes what linearize + transpose of the
whole function computes: the same values, bit for bit, and the same errors. (A rule that picks
another formulation when staged, as tanh's JVP does, gives the tape its staged one, which is
JAX's: those functions agree to the formulations' rounding.)"""

import importlib

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import ad, lax, tape, tape_plan
from engine.core import Array


@pytest.fixture(autouse=True)
def compiled_calls(monkeypatch):
    # jnp functions staged as jits run them eagerly: compiled every time, so that which tier ran
    # a call (interpreted while compiling, or compiled) cannot tell the two paths apart
    monkeypatch.setattr(importlib.import_module("engine.jit_runtime"), "TIERED", False)


def tanh(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)


@jax.custom_jvp
def softplus(x):
    return jnp.log1p(jnp.exp(x))


softplus.defjvp(lambda primals, tangents: (softplus(primals[0]), tangents[0] * jax.nn.sigmoid(primals[0])))

X = Array(np.linspace(-2, 2, 6, dtype=np.float32))
W = Array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(6, 2))
FUNCTIONS = {
    "composite tanh": (lambda x: [tanh(x)], [1.0]),
    "fan-out": (lambda x: [x * x + jnp.sin(x) * x], [Array(np.float32(0.7))]),
    "two inputs, one unused": (lambda x, y: [jnp.sum(x * 3.0)], [X, W]),
    "matmul and reductions": (lambda x, w: [jnp.sum(jnp.sin(x @ w)), jnp.max(w, axis=0)], [X, W]),
    "tanh (staged formulation)": (lambda x, w: [jnp.sum(jnp.tanh(x @ w))], [X, W]),
    "integer input": (lambda x, n: [x * n], [X, Array(np.int32(3))]),
    "integer output": (lambda x: [jnp.argmax(x), x * 2.0], [X]),
    "jit inside": (lambda x: [jax.jit(lambda v: jnp.exp(v) * 2.0)(x)], [X]),
    "custom_jvp inside": (lambda x: [jnp.sum(softplus(x))], [X]),
    "cond inside": (lambda x: [lax.cond(x > 0, jnp.sin, jnp.cos, x)], [Array(np.float32(0.3))]),
    "scan inside": (lambda x: [lax.fori_loop(0, 3, lambda i, c: c * x + 1.0, x)], [Array(np.float32(0.9))]),
    "indexing and where": (lambda x: [jnp.where(x > 0, x[::-1] ** 2, 0.0).sum()], [X]),
    "weak scalar in": (lambda x: [x**3.0 / (1.0 + x)], [2.0]),
}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_tape_matches_linearize_transpose(name):
    f, primals = FUNCTIONS[name]
    assert tape.eager()
    outs_t, vjp_t = tape.vjp_flat(f, primals)
    outs_l, vjp_l = ad.linearize_vjp_flat(f, primals)
    for a, b in zip(outs_t, outs_l):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    cts = [
        np.ones(np.shape(o), np.float32)
        if np.asarray(o).dtype.kind == "f"
        else ad.Zero(ad.tangent_aval(jax.core.get_aval(o)))
        for o in outs_t
    ]
    for _ in range(2):  # the second call runs on the cached linearizations
        got, want = vjp_t(*cts), vjp_l(*cts)
        assert [type(g) is ad.Zero for g in got] == [type(w) is ad.Zero for w in want]
        for g, w in zip(got, want):
            if type(g) is not ad.Zero and "staged" in name:  # (saturated tanh: cancellation in both)
                np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4)
            elif type(g) is not ad.Zero:
                np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        outs_t, vjp_t = tape.vjp_flat(f, primals)


def test_grad_of_grad_uses_the_tape_outside_and_stays_exact():
    g3 = jax.grad(jax.grad(jax.grad(tanh)))
    np.testing.assert_allclose(float(g3(1.0)), 0.6216266751289368, rtol=1e-6)  # JAX 0.10.2
    assert float(jax.grad(tanh)(1.0)) == np.float32(0.41997429728507996)


def test_errors_are_the_general_paths():
    with pytest.raises(TypeError, match="scalar-output"):
        jax.grad(lambda x: x * 2.0)(X)
    with pytest.raises(TypeError):
        jax.grad(lambda x: jnp.reshape(x, (5,)).sum())(X)


def test_staged_formulation_of_tanh_is_jaxs_and_accurate():
    x, w = np.asarray(X, np.float64), np.asarray(W, np.float64)
    truth = w @ (1 - np.tanh(x @ w) ** 2)
    g = jax.grad(lambda x, w: jnp.sum(jnp.tanh(x @ w)))(X, W)
    np.testing.assert_allclose(np.asarray(g), truth, rtol=1e-4)


def _described(values):
    """Each value's numbers, dtype and weak type (what a planned evaluation must reproduce)."""
    out = []
    for v in values:
        if type(v) is ad.Zero:
            out.append(("zero", str(v.aval)))
        else:
            a = np.asarray(v)
            out.append((a.tobytes(), a.dtype, jax.core.get_aval(v).weak_type))
    return out


def _pullback_results(f, primals):
    outs, pullback = tape.vjp_flat(f, primals)
    got = [_described(outs)]
    floats = [np.asarray(o).dtype.kind == "f" for o in outs]
    # cotangents of other types than the outputs' (weak, strong, numpy): the backward pieces'
    # plans are per input types, so each must give what the general evaluation gives
    for make in (
        lambda o: np.ones(np.shape(o), np.float32),
        lambda o: Array(np.ones(np.shape(o), np.float32), weak_type=True),
        lambda o: 1.0 if np.shape(o) == () else Array(np.ones(np.shape(o), np.float32)),
    ):
        cts = [
            make(o) if fl else ad.Zero(ad.tangent_aval(jax.core.get_aval(o))) for o, fl in zip(outs, floats)
        ]
        for _ in range(2):
            got.append(_described(pullback(*cts)))
    return got


@pytest.mark.parametrize("name", FUNCTIONS)
def test_planned_steps_give_what_eval_trace_gives(name, monkeypatch):
    """engine/tape_plan.py decides EvalTrace's per-equation checks once per input types: the
    values, dtypes and weak types it gives are those of evaluating equation by equation."""
    f, primals = FUNCTIONS[name]
    tape._cache.clear()
    planned = _pullback_results(f, primals)
    monkeypatch.setattr(tape_plan, "run", lambda closed, plans, args: None)
    tape._cache.clear()
    general = _pullback_results(f, primals)
    assert planned == general


def test_plans_are_kept_per_input_types_and_used():
    tape._cache.clear()
    jax.grad(tanh)(1.0)
    jax.grad(tanh)(np.float32(1.0))  # strong input: other linearizations, other plans
    lins = [v for v in tape._cache.values() if type(v) is tape.Linearized]
    assert lins and all(p is not None for lin in lins for p in lin.fwd_plans.values())
    assert {k[3][2] for k in tape._cache if k[0] is lax.exp_p} == {True, False}  # (weak, strong) x
    g_weak, g_strong = jax.grad(tanh)(1.0), jax.grad(tanh)(np.float32(1.0))
    assert g_weak.weak_type and not g_strong.weak_type
    assert float(g_weak) == float(g_strong) == np.float32(0.41997429728507996)  # JAX 0.10.2


def test_an_impl_that_returns_another_dtype_than_planned_is_evaluated_the_general_way(monkeypatch):
    tape._cache.clear()
    jax.grad(tanh)(1.0)
    exp_impl = jax.core.impl_rules[lax.exp_p]
    monkeypatch.setitem(jax.core.impl_rules, lax.exp_p, lambda x, **p: exp_impl(x, **p).astype(np.float64))
    tape._cache.clear()  # (plans capture the impl when made)
    g = jax.grad(tanh)(1.0)
    assert g.dtype == np.float32 and g.weak_type  # the general way canonicalizes float64 to float32
    np.testing.assert_allclose(float(g), 0.41997429728507996, rtol=1e-6)
