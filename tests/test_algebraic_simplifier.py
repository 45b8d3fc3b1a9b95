"""XLA's algebraic simplifications under jit (engine/algebraic_simplifier.py): jitted results that
differ from eager ones exactly where JAX 0.10.2's do. Each expected value was printed by JAX 0.10.2
on a CPU (``jax.jit(f)(*args)``), next to the eager value where that differs."""

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import algebraic_simplifier, lax

NAN, INF = float("nan"), float("inf")

# (name, f, args, what JAX 0.10.2's jit returned)
CASES = [
    ("ln(exp(A)) => A", lambda x: jnp.log(jnp.exp(x)), (100.0,), 100.0),
    ("ln(exp(A)) => A, arrays", lambda x: jnp.log(jnp.exp(x)), (jnp.array([100.0, 200.0]),), [100.0, 200.0]),
    ("no exp(log(A)) => A", lambda x: jnp.exp(jnp.log(x)), (-1.0,), NAN),
    ("ln(pow(A, B)) => B ln|A|", lambda x: jnp.log(x**2.5), (-2.0,), 1.732868),
    ("ln(pow(A, B)), B traced", lambda x, c: jnp.log(lax.pow(x, c)), (-2.0, 1.0), 0.6931472),
    ("pow(A, 3) is A*A*A first", lambda x: jnp.log(lax.pow(x, 3.0)), (-2.0,), NAN),
    ("pow(A, 1) is A first", lambda x: jnp.log(lax.pow(x, 1.0)), (-2.0,), NAN),
    ("exp(A) * exp(B) => exp(A + B)", lambda x: jnp.exp(x) * jnp.exp(-x), (100.0,), 1.0),
    ("exp(A) / exp(B) => exp(A - B)", lambda x: jnp.exp(x) / jnp.exp(x), (100.0,), 1.0),
    ("1 / exp(B) * exp(B)", lambda x: (1.0 / jnp.exp(x)) * jnp.exp(x), (100.0,), 1.0),
    ("y / exp(B) * exp(B): flushed", lambda x, y: (y / jnp.exp(x)) * jnp.exp(x), (100.0, 2.0), NAN),
    ("sqrt(A * A) => |A|", lambda x: jnp.sqrt(x * x), (-1e30,), 1e30),
    ("sqrt(square(A)) => |A|", lambda x: jnp.sqrt(jnp.square(x)), (1e30,), 1e30),
    ("sqrt(A ** 2) => |A|", lambda x: jnp.sqrt(x**2), (1e30,), 1e30),
    ("A + 0 => A, then sqrt(A * A)", lambda x: jnp.sqrt(x * (x + 0.0)), (1e30,), 1e30),
    ("A + 0 => A, then ln(exp(A))", lambda x: jnp.log(jnp.exp(x) + 0.0), (100.0,), 100.0),
    ("grad of ln(exp(A))", jax.grad(lambda x: jnp.log(jnp.exp(x))), (100.0,), 1.0),
    ("inside cond", lambda x: lax.cond(x > 0, lambda: jnp.log(jnp.exp(x)), lambda: x), (100.0,), 100.0),
    ("an exp used elsewhere stays", lambda x: (jnp.exp(x), jnp.log(jnp.exp(x))), (100.0,), (INF, 100.0)),
]


@pytest.mark.parametrize("name, f, args, want", CASES, ids=[c[0] for c in CASES])
def test_jit_applies_xla_simplifications_as_jax(name, f, args, want):
    got = jax.jit(f)(*args)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want), rtol=1e-6)


def test_complex_log_exp_is_not_rewritten():
    z = jnp.complex64(1 + 10j)
    got = complex(jax.jit(lambda z: jnp.log(jnp.exp(z)))(z))
    assert got == pytest.approx(0.99999994 - 2.5663705j, rel=1e-6)  # JAX: the principal branch


def test_zero_plus_keeps_the_sign_of_negative_zero():
    assert np.signbit(jax.jit(lambda x: x + 0.0)(-0.0))
    assert np.signbit(jax.jit(lambda x: 0.0 + x)(-0.0))
    assert list(np.signbit(jax.jit(lambda x: x + jnp.zeros(2))(jnp.array([-0.0, 1.0])))) == [True, False]
    assert not np.signbit(jnp.add(-0.0, 0.0))  # eager: IEEE addition, as JAX's


def test_eager_values_and_printed_jaxprs_are_as_traced():
    f = lambda x: jnp.log(jnp.exp(x))  # noqa: E731
    assert float(f(100.0)) == INF
    text = str(jax.make_jaxpr(jax.jit(f))(1.0))
    assert "exp a" in text and "log c" in text


def test_simplified_programs_are_cached_by_program():
    closed = jax.make_jaxpr(lambda x: jnp.log(jnp.exp(x)))(1.0)
    simple = algebraic_simplifier.simplify(closed)
    assert simple is not closed and algebraic_simplifier.simplify(closed) is simple
    assert algebraic_simplifier.simplify(simple) is simple
    assert [
        e.primitive.name for e in simple.jaxpr.eqns
    ] == [] and simple.jaxpr.outs == closed.jaxpr.in_binders
    untouched = jax.make_jaxpr(lambda x: jnp.sin(x) + 1.0)(1.0)
    assert algebraic_simplifier.simplify(untouched) is untouched


def test_square_of_exp_is_the_exp_of_twice():
    # JAX lowers exp(x) ** 2 and jnp.square(exp(x)) to exp(x) * exp(x), which XLA makes exp(x + x)
    x = np.float32(-3.3)
    for f in (lambda x: jnp.exp(x) ** 2, lambda x: jnp.square(jnp.exp(x))):
        assert float(jax.jit(f)(x)) == 0.0013603682164102793  # JAX 0.10.2's jit
    assert float(jnp.exp(x) ** 2) == 0.0013603680999949574  # eager: the exp, then its square


def test_a_transposed_outer_product_is_written_once_in_place():
    # vmap(grad) of x @ w: each example's weight gradient is an outer product (a dot with nothing
    # contracted: a product of broadcasts), which the dot's transpose rule then transposes. XLA
    # fuses the two into one loop; a product written then turned moves the result twice.
    w, x = jnp.ones((6, 5)), jnp.asarray(np.arange(24.0, dtype=np.float32).reshape(4, 6))
    f = jax.vmap(jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w))), in_axes=(None, 0))

    def turns(closed):
        perms = [e.params["permutation"] for e in closed.jaxpr.eqns if e.primitive.name == "transpose"]
        return [p for p in perms if tuple(p) != tuple(range(len(p)))]

    closed = jax.make_jaxpr(f)(w, x)
    assert turns(closed) == [(0, 2, 1)]
    assert turns(algebraic_simplifier.simplify(closed)) == []
    np.testing.assert_array_equal(np.asarray(jax.jit(f)(w, x)), np.asarray(f(w, x)))
