"""custom_jvp / custom_vjp: the user's rule is used under every composition of transformations."""

import functools

import numpy as np
import pytest

import engine as jax
from engine import lax
from engine.core import Array


@jax.custom_jvp
def sin_with_fake_jvp(x):
    return lax.sin(x)


@sin_with_fake_jvp.defjvp
def _sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return sin_with_fake_jvp(x), lax.mul(2.0, t)  # deliberately not cos: proves the rule is used


@jax.custom_vjp
def sin_with_fake_vjp(x):
    return lax.sin(x)


sin_with_fake_vjp.defvjp(lambda x: (lax.sin(x), x), lambda res, ct: (lax.mul(3.0, ct),))

XS = Array(np.array([1.0, 2.0], np.float32))


@pytest.mark.parametrize("f,expected", [(sin_with_fake_jvp, 2.0), (sin_with_fake_vjp, 3.0)])
def test_rule_used_under_compositions(f, expected):
    assert float(jax.grad(f)(1.0)) == expected
    assert float(jax.jit(jax.grad(f))(1.0)) == expected
    assert float(jax.grad(jax.jit(f))(1.0)) == expected
    np.testing.assert_allclose(jax.vmap(jax.grad(f))(XS), [expected] * 2)
    assert float(f(1.0)) == pytest.approx(np.sin(1.0), rel=1e-6)


def test_custom_jvp_under_vmap_then_grad():
    g = jax.grad(lambda v: lax.reduce_sum(jax.vmap(sin_with_fake_jvp)(v), (0,)))
    np.testing.assert_allclose(g(XS), [2.0, 2.0])
    assert float(jax.jvp(sin_with_fake_jvp, (1.0,), (1.0,))[1]) == 2.0


def test_custom_vjp_rejects_forward_mode():
    with pytest.raises(TypeError, match="forward-mode"):
        jax.jvp(sin_with_fake_vjp, (1.0,), (1.0,))


def test_custom_jvp_is_visible_in_jaxpr():
    text = str(jax.make_jaxpr(sin_with_fake_jvp)(1.0))
    assert "custom_jvp_call" in text and "sin" in text


def test_custom_jvp_closes_over_jit_and_vmap_tracers():
    def outer(y, x):
        @jax.custom_jvp
        def scaled(x):
            return lax.mul(x, y)

        @scaled.defjvp
        def _(p, t):
            return scaled(p[0]), lax.mul(t[0], lax.mul(2.0, y))

        return jax.grad(scaled)(x)

    assert float(jax.jit(outer)(3.0, 1.0)) == 6.0
    np.testing.assert_allclose(jax.vmap(outer, in_axes=(0, None))(XS, 1.0), [2.0, 4.0])


def test_vmapped_custom_jvp_keeps_unbatched_arguments_unbatched():
    # As JAX: a vmapped custom_jvp_call takes an unmapped argument (and its constants) as they
    # are, and its rule still differentiates correctly through them from outside the vmap.
    from engine.scipy.special import erfcx, xlogy

    x = np.array([0.5, 1.5, 2.0], np.float32)
    f = jax.vmap(xlogy, in_axes=(0, None))
    text = str(jax.make_jaxpr(f)(x, np.float32(0.7)))
    assert "broadcast_in_dim" not in text.split("custom_jvp_call")[0]
    np.testing.assert_allclose(jax.grad(lambda y: f(x, y).sum())(np.float32(0.7)), x.sum() / 0.7, rtol=1e-6)
    np.testing.assert_allclose(
        jax.grad(lambda v: f(v, np.float32(0.7)).sum())(x), np.log(0.7) * np.ones(3), rtol=1e-6
    )
    assert "f32[2,5]" not in str(jax.make_jaxpr(jax.vmap(erfcx))(np.ones((2, 3), np.float32)))
    np.testing.assert_allclose(
        jax.grad(lambda v: jax.vmap(erfcx)(v).sum())(x), jax.vmap(jax.grad(erfcx))(x), rtol=1e-6
    )


@functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
def scaled_sin(n, x):
    return lax.mul(n, lax.sin(x))


@scaled_sin.defjvp
@jax.jit  # as JAX's expn_jvp: the jit traces n, so the call inside closes over a jit tracer
def _scaled_sin_jvp(n, primals, tangents):
    (x,), (t,) = primals, tangents
    return scaled_sin(n, x), lax.mul(lax.mul(n, lax.cos(x)), t)


def test_rule_with_a_jit_traced_nondiff_argument_differentiates_twice():
    # The rule's inner scaled_sin call is staged into the jit with n as one of its constants;
    # differentiating that jit again applies the staged call's rule to the jit's operands, so it
    # must read n from the call's operands: its closure's jit tracer is dead by then (this raised
    # UnexpectedTracerError, as grad(grad(exp1)) did; JAX 0.10.2 fails here too, with a TypeError
    # "No constant handler for DynamicJaxprTracer"). Expected values: d^k/dx^k of 2 sin x.
    f = lambda x: scaled_sin(2.0, x)  # noqa: E731
    xs = np.array([0.5, 1.5], np.float32)
    np.testing.assert_allclose(jax.grad(jax.grad(f))(1.5), -2 * np.sin(1.5), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.grad(jax.grad(f)))(1.5), -2 * np.cos(1.5), rtol=1e-5)
    np.testing.assert_allclose(jax.jit(jax.grad(jax.grad(f)))(1.5), -2 * np.sin(1.5), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(jax.grad(f)))(xs), -2 * np.sin(xs), rtol=1e-6)
    # A vmapped call whose nondiff constant is itself batched (n per lane), then differentiated.
    g = jax.jit(lambda n, x: scaled_sin(n, x))
    ns = np.array([2.0, 3.0], np.float32)
    np.testing.assert_allclose(
        jax.grad(lambda x: lax.reduce_sum(jax.vmap(g)(ns, x), (0,)))(xs), ns * np.cos(xs), rtol=1e-6
    )
    second = jax.grad(jax.grad(lambda x: lax.reduce_sum(jax.vmap(g, in_axes=(0, None))(ns, x), (0,))))
    np.testing.assert_allclose(second(1.5), -5 * np.sin(1.5), rtol=1e-6)


def _rule_closing_over(y, wrap=lambda y: y):
    """sin(x) y with a rule reading y (a value of the caller's trace) from its closure, directly,
    through a helper function, or inside a tuple; the rule's 2 cos(x) y t (twice the true derivative)
    proves it is the rule that is used, at every order."""
    box = wrap(y)

    def scale():
        return box[0] if isinstance(box, tuple) else box

    @jax.custom_jvp
    def g(x):
        return lax.mul(lax.sin(x), scale())

    @g.defjvp
    def g_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return g(x), lax.mul(lax.mul(2.0, lax.cos(x)), lax.mul(scale(), t))

    return g


@pytest.mark.parametrize("wrap", [lambda y: y, lambda y: (y, 1.0)], ids=["value", "tuple"])
def test_rule_closing_over_a_jit_traced_value_differentiates_through_the_jit(wrap):
    # y is traced by the jit that stages g's call; differentiating that jit's jaxpr applies the rule
    # after the jit's trace has ended, so the rule must read y from the call's operands (this raised
    # UnexpectedTracerError; JAX 0.10.2 fails here too, with a TypeError "No constant handler for
    # type: DynamicJaxprTracer", at every order). Expected: d^k/dx^k of the rule, y = cos(s).
    def f(x, s):
        return _rule_closing_over(lax.cos(s), wrap)(x)

    x, s = 0.5, 0.3
    y = np.cos(s)
    close = functools.partial(np.testing.assert_allclose, rtol=1e-6)
    close(jax.grad(jax.jit(f))(x, s), 2 * np.cos(x) * y)
    close(jax.grad(jax.grad(jax.jit(f)))(x, s), -2 * np.sin(x) * y)
    close(jax.grad(jax.grad(jax.grad(jax.jit(f))))(x, s), -2 * np.cos(x) * y)
    close(jax.hessian(jax.jit(f))(x, s), -2 * np.sin(x) * y)
    close(jax.jacfwd(jax.jacrev(jax.jit(f)))(x, s), -2 * np.sin(x) * y)
    close(jax.jit(jax.grad(jax.grad(jax.jit(f))))(x, s), -2 * np.sin(x) * y)
    ss = np.array([0.3, 1.1], np.float32)
    close(jax.vmap(jax.grad(jax.grad(jax.jit(f))), in_axes=(None, 0))(x, ss), -2 * np.sin(x) * np.cos(ss))
    # (the rule's value of y in a nested jit, and one the rule closes over from outside the jit)
    nested = jax.jit(lambda x, s: jax.jit(lambda x: f(x, s))(x))
    close(jax.grad(jax.grad(nested))(x, s), -2 * np.sin(x) * y)
    outside = lambda s: jax.grad(jax.grad(jax.jit(_rule_closing_over(lax.cos(s), wrap))))(x)  # noqa: E731
    close(jax.grad(outside)(s), 2 * np.sin(x) * np.sin(s))


def _vjp_rules_closing_over(y, where, fun_uses_y=True):
    """sin(x) y (or sin(x)) with fwd/bwd rules reading y from their closure: fwd puts it in the
    residual, or bwd reads it directly, or through a helper function; the rules give 2 cos(x) y ct
    (twice the true derivative when the function uses y), which proves they are used."""

    def scale():
        return y

    @jax.custom_vjp
    def g(x):
        return lax.mul(lax.sin(x), y) if fun_uses_y else lax.sin(x)

    def fwd(x):
        return g(x), lax.mul(lax.cos(x), y) if where == "fwd" else lax.cos(x)

    def bwd(r, ct):
        if where == "fwd":
            return (lax.mul(lax.mul(2.0, r), ct),)
        y_now = scale() if where == "helper" else y
        return (lax.mul(lax.mul(2.0, r), lax.mul(y_now, ct)),)

    g.defvjp(fwd, bwd)
    return g


@pytest.mark.parametrize("where", ["fwd", "bwd", "helper"])
def test_vjp_rules_closing_over_a_jit_traced_value_differentiate_through_the_jit(where):
    # y is traced by the jit that stages g's call; its linearization runs fwd, and its transpose
    # bwd, after that trace has ended, so the rules read y from the call's operands (fwd) and from
    # residuals fwd passes on (bwd). This raised UnexpectedTracerError; JAX 0.10.2 raises TypeError
    # "No constant handler for type: DynamicJaxprTracer". Expected: the rule's closed forms, y = cos(s).
    def f(x, s):
        return _vjp_rules_closing_over(lax.cos(s), where)(x)

    x, s = 0.5, 0.3
    y = np.cos(s)
    close = functools.partial(np.testing.assert_allclose, rtol=1e-6)
    close(jax.grad(jax.jit(f))(x, s), 2 * np.cos(x) * y)
    close(jax.jit(jax.grad(jax.jit(f)))(x, s), 2 * np.cos(x) * y)
    close(jax.grad(jax.grad(jax.jit(f)))(x, s), -2 * np.sin(x) * y)
    close(jax.grad(jax.jit(lambda x, s: jax.jit(lambda x: f(x, s))(x)))(x, s), 2 * np.cos(x) * y)
    ss = np.array([0.3, 1.1], np.float32)
    close(jax.vmap(jax.grad(jax.jit(f)), in_axes=(None, 0))(x, ss), 2 * np.cos(x) * np.cos(ss))
    # The second derivative agrees with finite differences of the first (both through the jit).
    h = 1e-2
    first = jax.jit(jax.grad(jax.jit(f)))
    fd = (float(first(x + h, s)) - float(first(x - h, s))) / (2 * h)
    np.testing.assert_allclose(jax.grad(jax.grad(jax.jit(f)))(x, s), fd, rtol=1e-3)


@pytest.mark.parametrize("where", ["fwd", "bwd"])
def test_vjp_with_respect_to_a_value_the_function_closes_over_raises_as_jax(where):
    # JAX 0.10.2: grad(jit(f), argnums=1) raises CustomVJPException (f's primal closes over cos(s)).
    def f(x, s):
        return _vjp_rules_closing_over(lax.cos(s), where)(x)

    for diff in (jax.grad(jax.jit(f), 1), jax.jit(jax.grad(f, 1))):
        with pytest.raises(jax.custom_derivatives.CustomVJPException, match="closed-over value"):
            diff(0.5, 0.3)


def test_vjp_rules_closing_over_a_value_only_they_use():
    # The function does not use y, only bwd does: nothing differentiates through the rules' y within
    # one differentiation (JAX 0.10.2: grad(jit(f), 1) is 0.0), while an outer grad differentiates
    # the rule's output 2 cos(x) cos(s) (JAX 0.10.2, without the jit: -2 cos(x) sin(s) = -0.5186868).
    def f(x, s):
        return _vjp_rules_closing_over(lax.cos(s), "bwd", fun_uses_y=False)(x)

    x, s = 0.5, 0.3
    close = functools.partial(np.testing.assert_allclose, rtol=1e-6)
    close(jax.grad(jax.jit(f), 1)(x, s), 0.0)
    close(jax.grad(jax.jit(f))(x, s), 2 * np.cos(x) * np.cos(s))

    def outer(s):
        return jax.grad(jax.jit(_vjp_rules_closing_over(lax.cos(s), "bwd", fun_uses_y=False)))(x)

    close(jax.grad(outer)(s), -0.5186868)
    close(jax.jit(jax.grad(outer))(s), -0.5186868)
    h = 1e-2
    np.testing.assert_allclose(
        jax.grad(outer)(s), (float(outer(s + h)) - float(outer(s - h))) / (2 * h), rtol=1e-3
    )
