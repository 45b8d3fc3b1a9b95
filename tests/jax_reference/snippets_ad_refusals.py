"""Derivatives JAX 0.10.2 refuses, refused with its error class and first line: betainc in ``a`` or
``b`` (a ValueError; ``x`` is differentiable), and pmax/pmin, which have no differentiation rule at all
(under pmap, a named vmap, or over positional axes; stop_gradient on the operand is what works).
Registered in snippets.py; the messages are checked word for word (test_refusals_say_what_jax_says)."""

_BETAINC = "f = jax.scipy.special.betainc\n"
_V = "v = jnp.array([1.0, 3.0, 2.0])\n"

AD_REFUSALS = [
    ("betainc_grad_a", _BETAINC + "out = jax.grad(f, argnums=0)(2.0, 3.0, 0.4)"),
    ("betainc_grad_b", _BETAINC + "out = jax.grad(f, argnums=1)(2.0, 3.0, 0.4)"),
    ("betainc_grad_x", _BETAINC + "out = jax.grad(f, argnums=2)(2.0, 3.0, 0.4)"),
    ("betainc_jvp_a", _BETAINC + "out = jax.jvp(lambda a: f(a, 3.0, 0.4), (2.0,), (1.0,))"),
    ("betainc_jvp_b_zero_tangent", _BETAINC + "out = jax.jvp(lambda b: f(2.0, b, 0.4), (3.0,), (0.0,))"),
    ("betainc_jit_grad_a", _BETAINC + "out = jax.jit(jax.grad(f))(2.0, 3.0, 0.4)"),
    ("betainc_vmap_grad_b", _BETAINC + _V + "out = jax.vmap(jax.grad(f, argnums=1))(v, v, v / 4)"),
    ("lax_betainc_grad_a", "out = jax.grad(lax.betainc)(2.0, 3.0, 0.4)"),
    ("betainc_grad_ax", _BETAINC + "out = jax.grad(f, argnums=(0, 2))(2.0, 3.0, 0.4)"),
    (
        "pmax_pmap_grad",
        "out = jax.pmap(jax.grad(lambda x: lax.pmax(x, 'i')), axis_name='i')(jnp.arange(1.0))",
    ),
    ("pmax_vmap_grad", _V + "out = jax.vmap(jax.grad(lambda x: lax.pmax(x, 'i')), axis_name='i')(v)"),
    ("pmin_vmap_grad", _V + "out = jax.vmap(jax.grad(lambda x: lax.pmin(x, 'i')), axis_name='i')(v)"),
    (
        "pmax_vmap_jvp",
        _V + "out = jax.vmap(lambda x: jax.jvp(lambda y: lax.pmax(y, 'i'), (x,), (x,)), axis_name='i')(v)",
    ),
    (
        "pmax_vmap_linearize",
        _V + "out = jax.vmap(lambda x: jax.linearize(lambda y: lax.pmax(y, 'i'), x)[0], axis_name='i')(v)",
    ),
    ("pmax_positional_grad", _V + "out = jax.grad(lambda x: lax.pmax(x, (0,)).sum())(v)"),
    ("pmin_positional_grad", _V + "out = jax.grad(lambda x: lax.pmin(x, (0,)).sum())(v)"),
    (
        "pmax_stop_gradient_after",
        _V + "out = jax.vmap(jax.grad(lambda x: x * lax.stop_gradient(lax.pmax(x, 'i'))), axis_name='i')(v)",
    ),
    (
        "pmax_stop_gradient_before",
        _V + "out = jax.vmap(jax.grad(lambda x: x * lax.pmax(lax.stop_gradient(x), 'i')), axis_name='i')(v)",
    ),
    ("pmax_vmap_value", _V + "out = jax.vmap(lambda x: lax.pmax(x, 'i'), axis_name='i')(v)"),
]
