"""Snippets for what the second differential fuzz (tests/fidelity/sweep_fuzz2.py) found: jnp.compress
without ``size`` is an array computation in JAX, so under jit its bounds check raises
TracerBoolConversionError, and a True entry past the axis raises ValueError (the engine used to
compress a concrete copy of the condition and drop the extra entries). Registered in snippets.py."""

_A = "a = jnp.arange(6.0).reshape(3, 2)\n"

FUZZ2_VALUES = [
    (
        "compress_jit",
        _A + "out = jax.jit(lambda v: jnp.compress(np.array([True, False, True]), v, axis=0))(a)",
    ),
    ("compress_extra_true", _A + "out = jnp.compress(np.array([True, False, True, True]), a, axis=0)"),
    ("compress_extra_false", _A + "out = jnp.compress(np.array([True, False, True, False]), a, axis=0)"),
    ("compress_ints_ravel", _A + "out = jnp.compress(np.array([0, 2, 0, 1]), a)"),
    ("compress_2d_condition", _A + "out = jnp.compress(np.ones((2, 2), bool), a)"),
    ("axis_index_vmap", _A + "out = jax.vmap(lambda v: v * jax.lax.axis_index('i'), axis_name='i')(a)"),
    # the gamma sampler's steps each round to bfloat16 (it drew float32's samples, rounded once)
    *[
        (f"gamma_bfloat16_{name}", "k = jax.random.key(0)\n" + f"out = {call}")
        for name, call in [
            ("eager", "jax.random.gamma(k, 2.0, (3,), jnp.bfloat16)"),
            ("jit", "jax.jit(lambda k: jax.random.gamma(k, 2.0, (3,), jnp.bfloat16))(k)"),
            (
                "boosted",
                "(jax.random.gamma(k, 0.3, (3,), jnp.bfloat16), jax.random.loggamma(k, 0.3, (3,), jnp.bfloat16))",
            ),
            (
                "beta_dirichlet",
                "(jax.random.beta(k, 2.0, 3.0, (3,), jnp.bfloat16), jax.random.dirichlet(k, jnp.array([1.0, 2.0]), (2,), jnp.bfloat16))",
            ),
            (
                "grad",
                "jax.grad(lambda a: jax.random.gamma(k, a, (3,), jnp.bfloat16).astype(float).sum())(jnp.bfloat16(2.0))",
            ),
        ]
    ],
    # 0x0 matrices: det 1, inv empty, slogdet (1, 0), as JAX (the engine raised IndexError)
    *[
        (f"empty_matrix_{name}", "e = jnp.zeros((0, 0))\n" + f"out = {call}")
        for name, call in [
            ("det", "(jnp.linalg.det(e), jnp.linalg.det(jnp.zeros((2, 0, 0))), jax.jit(jnp.linalg.det)(e))"),
            ("inv_solve", "(jnp.linalg.inv(e), jnp.linalg.solve(e, jnp.zeros((0,))))"),
            ("slogdet", "tuple(jnp.linalg.slogdet(e))"),
            ("lu", "jax.scipy.linalg.lu(e)"),
        ]
    ],
    # split indices past the end make a negative size, which lax.split rejects eagerly too
    ("split_past_the_end", "out = jnp.split(jnp.arange(6), [2, 10])"),
    ("array_split_past_the_end", "out = jax.jit(lambda x: jnp.array_split(x, [2, 10]))(jnp.arange(6))"),
    ("lax_split_bad_sum", "out = lax.split(jnp.arange(6), (2, 3))"),
]
