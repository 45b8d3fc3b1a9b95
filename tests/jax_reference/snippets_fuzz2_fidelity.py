"""More of what the second differential fuzz (tests/fidelity/sweep_fuzz2.py) found, issue 13: values
that were silently wrong. XLA's float32 erf is a rational approximation, not the correctly rounded
value (erf(5/sqrt(2)) one ulp high), which moves truncated_normal's samples in the tail; an eager
convert_element_type to a weak type gave a strong array, so a weak float times an int32 array (and
its grad) came out strong. Registered in snippets.py."""

_K = "k = jax.random.key(0)\n"
_X = "x = jnp.array([-3.9, -2.6, -1.4, -0.26, 0.0, 1e-30, 0.21, 1.89, 3.54, 3.85, np.inf, np.nan], jnp.float32)\n"

FUZZ2_FIDELITY = [
    # erf: XLA's float32 kernel, eager and compiled (exactly: rtol 0 compares the float32 bits)
    ("erf_f32", _X + "out = (lax.erf(x), jax.jit(lax.erf)(x))", 0.0),
    ("erf_f16", _X + "out = jax.scipy.special.erf(x.astype(jnp.float16))"),
    ("truncated_normal_tail", _K + "out = jax.random.truncated_normal(k, 5, 6, (4,))", 0.0),
    (
        "truncated_normal_tail_jit_traced_bounds",
        _K + "out = jax.jit(lambda k, a, b: jax.random.truncated_normal(k, a, b, (4,)))(k, 5.0, 6.0)",
        0.0,
    ),
    ("truncated_normal_prngkey", "out = jax.random.truncated_normal(jax.random.PRNGKey(1), 5, 6, (4,))", 0.0),
    # a weak float times a strong int32 array is a weak float32, under every transformation
    *[
        (f"weak_times_int32_{name}", f"out = {call}")
        for name, call in [
            ("grad", "jax.grad(lambda x: x * jnp.int32(3))(2.0)"),
            ("grad_sum", "jax.grad(lambda x: (x * jnp.arange(3, dtype=jnp.int32)).sum())(2.0)"),
            ("grad_div", "jax.grad(lambda x: x / jnp.int32(3))(2.0)"),
            ("grad_add", "jax.grad(lambda x: x + jnp.int32(3))(2.0)"),
            ("grad_maximum", "jax.grad(lambda x: jnp.maximum(x, jnp.int32(3)))(2.0)"),
            ("value_and_grad", "jax.value_and_grad(lambda x: x * jnp.int32(3))(2.0)"),
            ("jvp", "jax.jvp(lambda x: x * jnp.int32(3), (2.0,), (1.0,))"),
            ("jacrev", "jax.jacrev(lambda x: x * jnp.arange(3, dtype=jnp.int32))(2.0)"),
        ]
    ],
]
