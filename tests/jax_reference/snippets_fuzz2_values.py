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
]
