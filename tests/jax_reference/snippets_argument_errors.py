"""Arguments JAX refuses where a user passes them, each with JAX's error class and words (compared
whole by tests/test_jax_reference.py): static and donated argument numbers and names that the
function does not have (refused at ``jit``, not ignored at the call), shapes whose dimensions are
not integers or are negative, sizes, counts and axes that are floats, reshapes that cannot be, and
transposes by what is not a permutation. Registered in
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
    # sizes, counts and axes that are floats, and reshapes that cannot be
    ("eye_of_a_float", "out = jnp.eye(2.0)"),
    ("eye_of_a_float_column_count", "out = jnp.eye(2, 3.0)"),
    ("identity_of_a_float", "out = jnp.identity(2.0)"),
    ("tri_of_a_float", "out = jnp.tri(2.0)"),
    ("top_k_of_a_float_k", "out = lax.top_k(jnp.arange(5.0), 2.0)"),
    ("slice_at_a_float_start", "out = lax.slice(jnp.ones((3, 3)), (1.0, 1), (3, 3))"),
    ("slice_to_a_float_limit", "out = lax.slice(jnp.arange(5.0), (1,), (3.0,))"),
    (
        "slice_at_a_float_start_under_jit",
        "out = jax.jit(lambda x: lax.slice(x, (1.0,), (3,)))(jnp.arange(5.0))",
    ),
    ("repeat_2d_by_a_float", "out = jnp.repeat(jnp.ones((2, 3)), 2.0, axis=1)"),
    ("split_in_a_float_number_of_sections", "out = jnp.split(jnp.ones(4), 2.0)"),
    ("bincount_of_a_float_length", "out = jnp.bincount(jnp.arange(3), length=3.0)"),
    ("dynamic_slice_of_a_float_size", "out = lax.dynamic_slice(jnp.arange(5.0), (1,), (2.0,))"),
    ("dynamic_slice_at_a_float_start", "out = lax.dynamic_slice(jnp.arange(5.0), (1.0,), (2,))"),
    ("dynamic_slice_in_dim_of_a_float_size", "out = lax.dynamic_slice_in_dim(jnp.arange(5.0), 1, 2.0)"),
    (
        "dynamic_update_slice_at_a_float_start",
        "out = lax.dynamic_update_slice(jnp.ones(4), jnp.ones(2), (1.0,))",
    ),
    ("linspace_of_a_float_count", "out = jnp.linspace(0, 1, 2.5)"),
    ("tile_by_a_float", "out = jnp.tile(jnp.ones(2), 2.0)"),
    ("repeat_by_a_float", "out = jnp.repeat(jnp.ones(2), 2.0)"),
    ("expand_dims_at_a_float_axis", "out = jnp.expand_dims(jnp.ones(2), 1.0)"),
    ("sum_over_a_float_axis", "out = jnp.sum(jnp.ones(2), axis=0.0)"),
    ("squeeze_a_float_axis", "out = jnp.squeeze(jnp.ones((1, 2)), 0.0)"),
    ("moveaxis_from_a_float_axis", "out = jnp.moveaxis(jnp.ones((1, 2)), 0.0, 1)"),
    ("take_at_float_indices", "out = jnp.take(jnp.ones(3), jnp.array([0.0]))"),
    ("reshape_to_a_negative_size", "out = jnp.ones(4).reshape(-2, 2)"),
    ("reshape_to_the_wrong_size", "out = jnp.ones(4).reshape(3, 2)"),
    ("reshape_list_to_the_wrong_size", "out = jnp.reshape(jnp.ones(4), [3, 2])"),
    ("reshape_with_two_unknowns", "out = jnp.ones(4).reshape(-1, -1)"),
    ("reshape_with_an_unknown_that_does_not_divide", "out = jnp.ones(5).reshape(-1, 2)"),
]
