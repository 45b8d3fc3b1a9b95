"""jax.checkpoint / remat: values and gradients equal the plain function's, under every policy;
the backward pass recomputes what the policy does not save; checkpoint_name and the policies."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine.ad_checkpoint import checkpoint_name, checkpoint_p, print_saved_residuals
from engine.test_util import check_grads

P = jax.checkpoint_policies


def g(W, x):
    y = checkpoint_name(jnp.dot(W, x), "y")
    return jnp.sin(jnp.sin(y)) * x


W = np.arange(9.0, dtype=np.float32).reshape(3, 3) / 10
X = np.array([0.3, -0.2, 0.5], np.float32)

POLICIES = [
    None,
    P.everything_saveable,
    P.nothing_saveable,
    P.dots_saveable,
    P.dots_with_no_batch_dims_saveable,
    P.save_only_these_names("y"),
    P.save_any_names_but_these("z"),
    P.save_from_both_policies(P.dots_saveable, P.save_only_these_names("y")),
]


@pytest.mark.parametrize("policy", POLICIES)
def test_values_and_grads_match_the_plain_function(policy):
    f = jax.checkpoint(g, policy=policy)
    np.testing.assert_allclose(f(W, X), g(W, X), rtol=1e-6)
    loss = lambda W, x: f(W, x).sum()
    for argnums in (0, 1):
        np.testing.assert_allclose(
            jax.grad(loss, argnums)(W, X), jax.grad(lambda W, x: g(W, x).sum(), argnums)(W, X), rtol=1e-6
        )
        np.testing.assert_allclose(
            jax.jit(jax.grad(loss, argnums))(W, X),
            jax.grad(lambda W, x: g(W, x).sum(), argnums)(W, X),
            rtol=1e-5,
        )
    check_grads(f, (W, X), order=2, modes=("fwd", "rev"))


def test_vmap_and_grad_of_jit():
    f = jax.checkpoint(g)
    xs = np.stack([X, 2 * X])
    np.testing.assert_allclose(jax.vmap(f, (None, 0))(W, xs), np.stack([g(W, X), g(W, 2 * X)]), rtol=1e-6)
    np.testing.assert_allclose(
        jax.grad(lambda W: jax.jit(f)(W, X).sum())(W), jax.grad(lambda W: g(W, X).sum())(W), rtol=1e-6
    )


def test_backward_pass_recomputes_unless_the_policy_saves():
    def inner_eqns(policy):
        jaxpr = jax.make_jaxpr(jax.grad(lambda W: jax.checkpoint(g, policy=policy)(W, X).sum()))(W).jaxpr
        (bwd,) = [e for e in jaxpr.eqns if e.primitive is checkpoint_p]
        assert bwd.params["differentiated"] is True
        return [e.primitive.name for e in bwd.params["jaxpr"].eqns]

    assert "dot_general" in inner_eqns(None)[:1]  # the forward dot reruns in the backward pass
    assert inner_eqns(P.dots_saveable)[0] != "dot_general"  # its output is saved instead


def test_static_argnums_and_nested_remat():
    f = jax.checkpoint(lambda x, n: x**n, static_argnums=(1,))
    assert float(jax.grad(f)(2.0, 3)) == pytest.approx(12.0)
    h = lambda x: jnp.sin(jax.checkpoint(lambda y: jnp.sin(jax.checkpoint(jnp.sin)(y)))(x))
    plain = lambda x: jnp.sin(jnp.sin(jnp.sin(x)))
    assert float(jax.grad(h)(0.7)) == pytest.approx(float(jax.grad(plain)(0.7)), rel=1e-6)


def test_print_saved_residuals(capsys):
    print_saved_residuals(jax.checkpoint(g, policy=P.save_only_these_names("y")), W, X)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["f32[3,3] from the argument W", "f32[3] from the argument x"]
    assert lines[2].startswith("f32[3] named 'y' from ") and len(lines) == 3


def test_offload_policy_keeps_what_jax_offloads(capsys):
    # JAX 0.10.2: the non-batch dot's result is saved in host memory, moved there by a device_put
    # whose source line JAX leaves empty (a rule made it)
    offload = P.offload_dot_with_no_batch_dims("device", "pinned_host")
    print_saved_residuals(jax.checkpoint(g, policy=offload), W, X)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "f32[3,3] from the argument W",
        "f32[3] from the argument x",
        "f32<host>[3] output of device_put from ",
    ]
    with pytest.raises(ValueError, match="memory kinds"):
        P.offload_dot_with_no_batch_dims("device", "hbm")


def test_numba_inlines_checkpoint_and_names(tmp_path, monkeypatch):
    import importlib

    from conftest import numba_backend

    from engine.jit_runtime import executable

    monkeypatch.setenv("ENGINE_CACHE_DIR", str(tmp_path))
    jit_mod = importlib.import_module("engine.jit")
    f = jax.grad(lambda W, x: jax.checkpoint(g, policy=P.save_only_these_names("y"))(W, x).sum())
    closed = jax.make_jaxpr(f)(W, X)
    jit_mod.set_backend(numba_backend().NumbaBackend())
    try:
        exe = executable(closed, "f")
        (got,) = exe(W, X)
    finally:
        jit_mod.set_backend(None)
    # remat2 is inlined and name is the identity; reduce_precision (the saved residual's) has no
    # numba lowering yet and runs through the interpreter's fallback.
    assert set(exe.fallbacks) <= {"reduce_precision"}
    np.testing.assert_allclose(got, jax.grad(lambda W: g(W, X).sum())(W), rtol=1e-5)


def test_a_policy_is_not_sent_to_the_compile_service():
    import json

    from engine.backends import jaxpr_wire

    f = jax.grad(lambda W: jax.checkpoint(g, policy=P.dots_saveable)(W, X).sum())
    closed = jax.make_jaxpr(f)(W)
    decoded = jaxpr_wire.decode(json.loads(json.dumps(jaxpr_wire.encode(closed, "f"))))
    (eqn,) = [e for e in decoded.closed.jaxpr.eqns if e.primitive is checkpoint_p]
    assert "policy" not in eqn.params and eqn.params["differentiated"] is True


def test_closing_over_an_outer_tracer_and_new_shapes():
    # The traced body is reused per signature; a body that closes over an outer grad's tracer is not.
    f = lambda a: jax.checkpoint(lambda x: a * jnp.sin(x))(2.0)
    assert float(jax.grad(f)(3.0)) == pytest.approx(np.sin(2.0), rel=1e-6)
    assert float(jax.grad(f)(5.0)) == pytest.approx(np.sin(2.0), rel=1e-6)
    h = jax.checkpoint(lambda x: jnp.sin(x).sum())
    for n in (2, 3, 2):
        np.testing.assert_allclose(jax.grad(h)(np.ones(n, np.float32)), np.cos(np.ones(n)), rtol=1e-6)


def test_control_flow_custom_vjp_and_higher_order_inside_checkpoint(capsys):
    from engine import lax

    def f(x):
        y = lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)
        return jnp.tanh(y) * x

    x = np.array([0.3, -0.5, 0.9], np.float32)
    check_grads(jax.checkpoint(f), (x,), order=2, modes=("rev",))
    np.testing.assert_allclose(jax.jacrev(jax.checkpoint(f))(x), jax.jacrev(f)(x), atol=1e-6)
    t = lambda x: jnp.tanh(x).sum()
    np.testing.assert_allclose(jax.hessian(jax.checkpoint(t))(x), jax.hessian(t)(x), atol=1e-6)

    def step(c, x):
        c = jnp.sin(c * x) + c
        return c, c.sum()

    def loss(c, xs, wrap):
        c, ys = lax.scan(wrap(step), c, xs)
        return c.sum() + ys.sum()

    xs = np.linspace(0, 1, 12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(
        jax.grad(loss)(x, xs, jax.checkpoint), jax.grad(loss)(x, xs, lambda f: f), rtol=1e-6
    )

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x)

    cv.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (g * c,))
    got = jax.grad(lambda x: jax.checkpoint(lambda y: cv(y) * y)(x).sum())(x)
    np.testing.assert_allclose(got, jax.grad(lambda x: (jnp.sin(x) * x).sum())(x), rtol=1e-6)

    def printed(x):
        jax.debug.print("x={x}", x=x)
        return jnp.sin(x)

    jax.grad(jax.checkpoint(printed))(1.0)
    assert capsys.readouterr().out == "x=1.0\nx=1.0\n"  # the backward pass reruns it, as in JAX


def test_cost_model_counts_the_recomputation():
    from engine.inspect.cost import jaxpr_cost

    Wb, xb = np.ones((64, 64), np.float32), np.ones(64, np.float32)
    h = lambda W, x: jnp.sin(W @ jnp.sin(W @ x)).sum()
    plain = jaxpr_cost(jax.make_jaxpr(jax.grad(h))(Wb, xb).jaxpr).flops
    remat = jaxpr_cost(jax.make_jaxpr(jax.grad(jax.checkpoint(h)))(Wb, xb).jaxpr).flops
    assert remat >= plain + 2 * 64 * 64  # the forward matmul W @ x runs again in the backward pass


def test_weak_types_survive_checkpoint():
    # As in JAX: a Python float through a checkpointed function stays weakly typed, eagerly and
    # under jvp and grad.
    f = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
    assert f(1.0).weak_type
    assert all(o.weak_type for o in jax.jvp(f, (1.0,), (1.0,)))
    assert jax.grad(f)(1.0).weak_type
    assert not f(np.float32(1.0)).weak_type


def test_checkpoint_traces_are_cached_per_function_as_in_jax():
    # JAX 0.10.2 caches checkpoint's trace by the function object (weakly) and signature, across
    # checkpoint() calls and policies: what the function reads is baked in at its first trace.
    # Values recorded from JAX: sin(1), sin(1) (stale), cos(1) (a new function), sin(2), cos(1)
    # (a strongly typed argument is a new signature).
    impl = {"inner": jnp.sin}

    def f(x):
        return impl["inner"](x)

    a = jax.checkpoint(f)(1.0)
    impl["inner"] = jnp.cos
    b = jax.checkpoint(f, policy=jax.checkpoint_policies.everything_saveable)(1.0)
    c = jax.checkpoint(lambda x: f(x))(1.0)
    d = jax.checkpoint(f)(2.0)
    e = jax.checkpoint(f)(jnp.float32(1.0))
    np.testing.assert_allclose(
        [a, b, c, d, e], [0.84147096, 0.84147096, 0.5403023, 0.9092974, 0.5403023], rtol=1e-6
    )


def test_everything_saveable_residuals_get_no_reduce_precision():
    # JAX 0.10.2 puts reduce_precision only on residuals the forward pass itself reads again; with
    # everything_saveable, sin(sin(x)) saves cos x and cos(sin x), which nothing else reads.
    f = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=jax.checkpoint_policies.everything_saveable)
    text = str(jax.make_jaxpr(jax.grad(f))(1.0))
    assert text.startswith(
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = sin a\n"
        "    c:f32[] = cos a\n"
        "    _:f32[] = sin b\n"
        "    d:f32[] = cos b\n"
        "    e:f32[] = remat2[\n"
    )
    assert "reduce_precision" not in text and text.endswith("    ] c d 1.0:f32[]\n  in (e,) }")


def _closed_call_of(f, *example):
    from engine.closed_call import closed_call_p

    body = jax.make_jaxpr(f)(*example)
    return lambda *args: closed_call_p.bind(*args, call_jaxpr=body)[0]


def test_closed_call_rules_differentiate_batch_and_stage_like_its_body():
    # closed_call (remat's known scan half) has its own jvp, partial-eval, transpose and batching
    # rows: each must agree with running the body itself.
    from engine.test_util import check_batching

    f = lambda x, y: jnp.sin(x) * y + jnp.sum(x * x)
    x, y = np.array([0.3, -1.2, 2.0], np.float32), np.float32(0.7)
    call = _closed_call_of(f, x, y)
    np.testing.assert_allclose(call(x, y), f(x, y), rtol=1e-6)
    check_grads(call, (x, y), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(
        jax.grad(lambda *a: call(*a).sum(), (0, 1))(x, y)[0], jax.grad(lambda *a: f(*a).sum())(x, y)
    )
    xs = np.stack([x, 2 * x, -x])
    check_batching(call, (xs, y), (0, None))
    check_batching(call, (xs, np.array([1.0, 2.0, 3.0], np.float32)), (0, 0))
    np.testing.assert_allclose(
        jax.jit(jax.vmap(jax.grad(lambda a: call(a, y).sum())))(xs),
        jax.vmap(jax.grad(lambda a: f(a, y).sum()))(xs),
        rtol=1e-6,
    )
    assert "closed_call" in str(jax.make_jaxpr(jax.grad(lambda a: call(a, y).sum()))(x))


def test_a_remat_scan_saves_what_the_policy_saves_in_its_body(capsys):
    # JAX 0.10.2 (its scan rule splits the body with the policy): under dots_saveable the body's
    # matrix products are saved, stacked over the iterations (a closed_call's output), and the
    # carry's initial value is not; under nothing_saveable only the inputs are
    def f(x):
        def body(c, a):
            h = checkpoint_name(jnp.sin(W @ c), "h")
            return h * a, jnp.cos(h)

        c, ys = jax.lax.scan(body, x, jnp.arange(1.0, 3.0))
        return jnp.sum(c) + jnp.sum(ys)

    for policy, want in [
        (P.dots_saveable, ["f32[3,3] from a constant", "f32[2,3] output of closed_call from "]),
        (
            P.save_only_these_names("h"),
            [
                "f32[3,3] from a constant",
                "f32[3] from the argument x",
                "f32[2,3] output of closed_call from ",
            ],
        ),
        (P.nothing_saveable, ["f32[3,3] from a constant", "f32[3] from the argument x"]),
    ]:
        print_saved_residuals(jax.checkpoint(f, policy=policy), X)
        lines = capsys.readouterr().out.splitlines()
        assert [s[: len(w)] for s, w in zip(lines, want)] == want and len(lines) == len(want)
    g_ = jax.grad(jax.checkpoint(f, policy=P.dots_saveable))
    np.testing.assert_allclose(g_(X), jax.grad(f)(X), rtol=1e-6)


def test_checkpoint_name_names_the_primal_not_the_tangent():
    # JAX 0.10.2's text: name's JVP names the primal value only (the tangent is no policy's
    # business), so no name shows among the tangent's equations
    f = lambda x: jnp.sin(checkpoint_name(x * 2.0, "h"))
    got = str(jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(1.0, 1.0))
    assert got == (
        "{ lambda ; a:f32[] b:f32[]. let\n"
        "    c:f32[] = mul a 2.0:f32[]\n"
        "    d:f32[] = mul b 2.0:f32[]\n"
        "    e:f32[] = name[name=h] c\n"
        "    f:f32[] = sin e\n"
        "    g:f32[] = cos e\n"
        "    h:f32[] = mul d g\n"
        "  in (f, h) }"
    )
