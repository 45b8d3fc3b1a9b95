"""jnp and random functions JAX defines under ``jax.jit``, called eagerly on concrete operands
(and batched), compared bit for bit (rtol 0) with JAX 0.10.2: where XLA contracts a multiply-add
or a sum of products in their program, the engine runs them as the jit they are
(``engine/numpy/_staged._as_compiled``). Registered in snippets.py (``eager_compiled``)."""

_DATA = (
    "rng = np.random.default_rng(0)\n"
    "x = rng.standard_normal((7, 33)).astype(np.float32)\n"
    "y = rng.standard_normal((7, 33)).astype(np.float32)\n"
    "key = jax.random.key(0)\n"
)

_EAGER = {
    "uniform_bounds": "jax.random.uniform(key, (40,), minval=-2., maxval=3.)",
    "uniform_bounds_raw_key": "jax.random.uniform(jax.random.PRNGKey(3), (40,), minval=-0.95, maxval=0.95)",
    "truncated_normal": "jax.random.truncated_normal(key, -2., 2., (40,))",
    "truncated_normal_ints": "jax.random.truncated_normal(jax.random.PRNGKey(1), -2, 2, (3, 3))",
    "glorot_normal": "jax.nn.initializers.glorot_normal()(key, (3, 3))",
    "normal": "jax.random.normal(key, (40,))",
    "standardize": "jax.nn.standardize(x)",
    "squareplus": "jax.nn.squareplus(x)",
    "var": "jnp.var(x, 1)",
    "std": "jnp.std(x, 0)",
    "hypot": "jnp.hypot(x, y)",
    "cross": "jnp.cross(x[:, :3], y[:, :3])",
    "vmap_truncated_normal": "jax.vmap(lambda k: jax.random.truncated_normal(k, -2., 2., (5,)))(jax.random.split(key, 4))",
    "vmap_uniform_bounds": "jax.vmap(lambda lo: jax.random.uniform(key, (6,), minval=lo, maxval=3.))(jnp.array([-2., -1., 0.5]))",
    "vmap_hypot": "jax.vmap(jnp.hypot)(x, y)",
}

EAGER_COMPILED = [(name, _DATA + f"out = {expr}", 0.0) for name, expr in _EAGER.items()]
