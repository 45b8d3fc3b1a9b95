"""Arguments JAX refuses where a user passes them, each with JAX's error class and words (compared
whole by tests/test_jax_reference.py): static and donated argument numbers and names that the
function does not have (refused at ``jit``, not ignored at the call), shapes whose dimensions are
not integers or are negative, and transposes by what is not a permutation. Registered in
snippets.py."""

ARGUMENT_ERRORS = [
    ("static_argnums_past_the_end", "out = jax.jit(lambda a: a, static_argnums=3)"),
    ("static_argnums_negative_past_the_start", "out = jax.jit(lambda a: a, static_argnums=-2)"),
    ("static_argnames_not_taken", "out = jax.jit(lambda a: a, static_argnames='b')"),
    (
        "static_argnames_positional_only",
        "def f(a, /, n):\n    return a * n\nout = jax.jit(f, static_argnames='a')",
    ),
    ("donate_argnums_past_the_end", "out = jax.jit(lambda a: a, donate_argnums=2)"),
    ("donate_argnames_not_taken", "out = jax.jit(lambda a: a, donate_argnames='q')"),
    ("static_argnums_with_varargs", "out = jax.jit(lambda *a: a[0] * 2, static_argnums=5)(1.0)"),
    ("static_argnames_with_kwargs", "out = jax.jit(lambda a, **k: a * 2, static_argnames='zz')(1.0)"),
    (
        "static_argnums_and_argnames_both_given",
        "out = jax.jit(lambda a, b: a * b, static_argnums=0, static_argnames='b')(2, 3)",
    ),
    ("zeros_of_a_float_shape", "out = jnp.zeros((2.0,))"),
    ("ones_of_a_float", "out = jnp.ones(2.5)"),
    ("full_of_a_float_shape", "out = jnp.full((2.0, 1), 1.0)"),
    ("reshape_to_a_float_shape", "out = jnp.ones((2, 3)).reshape((3.0, 2))"),
    ("broadcast_to_a_float_shape", "out = jnp.broadcast_to(1.0, (2.0,))"),
    ("lax_full_of_a_float_shape", "out = lax.full((2.0,), 1.0)"),
    ("normal_of_a_float_shape", "out = jax.random.normal(jax.random.PRNGKey(0), (2.0,))"),
    ("randint_of_a_float_shape", "out = jax.random.randint(jax.random.PRNGKey(0), (2.0,), 0, 3)"),
    ("zeros_of_a_numpy_int_shape", "out = jnp.zeros((np.int64(2), jnp.array(3)))"),
    ("zeros_of_a_negative_shape", "out = jnp.zeros((-1,))"),
    ("broadcast_to_a_negative_shape", "out = jnp.broadcast_to(1.0, (-1,))"),
    ("transpose_by_a_repeated_axis", "out = jnp.transpose(jnp.ones((2, 3)), (0, 0))"),
    ("transpose_by_too_few_axes", "out = jnp.transpose(jnp.ones((2, 3)), (0,))"),
    ("transpose_method_by_a_repeated_axis", "out = jnp.ones((2, 3)).transpose(1, 1)"),
]
