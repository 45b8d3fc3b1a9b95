"""Snippets for jax.random's count samplers (poisson, binomial, multinomial) and the gamma
sample's derivative in its shape (lax.random_gamma_grad), issue 13. Registered in snippets.py."""

K = "k = jax.random.key(0)\n"
A = "a = jnp.array([0.3, 1.0, 2.5, 10., 50.])\n"

COUNTS = [
    (
        "poisson_small",
        K
        + "out = (jax.random.poisson(k, 3.0, (6,)), jax.random.poisson(jax.random.PRNGKey(7), 0.5, (2, 3)))",
    ),
    (
        "poisson_mixed",
        K + "out = jax.random.poisson(k, jnp.array([0., 2., 9.9, 10., 15., 100., 1e4, jnp.nan]))",
    ),
    ("poisson_dtype", K + "out = jax.random.poisson(k, 4.0, (3,), dtype=jnp.int16)"),
    ("poisson_jit", K + "out = jax.jit(lambda k, l: jax.random.poisson(k, l, (4,)))(k, 30.)"),
    (
        "poisson_vmap",
        "out = jax.vmap(lambda k, l: jax.random.poisson(k, l))(jax.random.split(jax.random.key(1), 3), jnp.array([1., 12., 40.]))",
    ),
    ("err_poisson_float_dtype", K + "out = jax.random.poisson(k, 4.0, (3,), dtype=jnp.float32)"),
    ("binomial_small", K + "out = jax.random.binomial(k, 10., 0.3, (5,))"),
    (
        "binomial_mixed",
        K + "out = jax.random.binomial(k, jnp.array([5., 100., 1000., 20., 7.5, 30.]), "
        "jnp.array([0.2, 0.4, 0.9, 0.99, 0.5, 0.7]))",
    ),
    (
        "binomial_edges",
        K + "out = jax.random.binomial(k, jnp.array([-1., jnp.nan, jnp.inf, 4., 4., 0.]), "
        "jnp.array([0.5, 0.5, 0.5, jnp.nan, -0.1, 0.5]))",
    ),
    ("binomial_int_n", K + "out = jax.random.binomial(k, 12, 0.25, (2, 2))"),
    ("binomial_jit", K + "out = jax.jit(lambda k: jax.random.binomial(k, 50., 0.6, (3,)))(k)"),
    ("err_binomial_int_dtype", K + "out = jax.random.binomial(k, 10., 0.3, dtype=jnp.int32)"),
    ("err_binomial_shape", K + "out = jax.random.binomial(k, jnp.ones(3), 0.3, (2,))"),
    ("multinomial", K + "out = jax.random.multinomial(k, 20., jnp.array([0.2, 0.3, 0.5]))"),
    (
        "multinomial_batch",
        "out = jax.random.multinomial(jax.random.PRNGKey(3), jnp.array([5., 50.]), "
        "jnp.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]]))",
    ),
    (
        "multinomial_shape",
        K
        + "out = jax.random.multinomial(k, 100., jnp.array([0.5, 0.0, 0.5]), shape=(2, 3), dtype=jnp.int32)",
    ),
    (
        "gamma_grad_jacfwd",
        K + A + "out = jnp.diagonal(jax.jacfwd(lambda a: jax.random.gamma(k, a))(a))",
        2e-5,
    ),
    ("gamma_grad_sum", K + "out = jax.grad(lambda a: jax.random.gamma(k, a, (4,)).sum())(2.0)", 2e-5),
    ("loggamma_grad", K + "out = jax.grad(lambda a: jax.random.loggamma(k, a, (4,)).sum())(0.7)", 2e-5),
    ("beta_grad", K + "out = jax.grad(lambda a: jax.random.beta(k, a, 2.0, (3,)).sum())(1.5)", 2e-5),
    (
        "dirichlet_grad",
        K + "out = jax.grad(lambda a: jax.random.dirichlet(k, a)[0])(jnp.array([1.5, 2., 0.5]))",
        2e-5,
    ),
    (
        "random_gamma_grad",
        "out = lax.random_gamma_grad(jnp.array([0.5, 2., 3., 0.1, 80., -1., 2.]), "
        "jnp.array([0.1, 2., 0., 1e-3, 75., 1., -1.]))",
        2e-5,
    ),
]
