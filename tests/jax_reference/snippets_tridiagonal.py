"""Snippets for jax.scipy.linalg.eigh_tridiagonal. Registered in snippets.py."""

R = "r = np.random.RandomState(0)\n"
DE = R + "d = jnp.asarray(r.randn(6), jnp.float32)\ne = jnp.asarray(r.randn(5), jnp.float32)\n"

TRIDIAGONAL = [
    ("values", DE + "out = jsp.linalg.eigh_tridiagonal(d, e, eigvals_only=True)", 1e-5),
    (
        "values_doc",
        "out = jsp.linalg.eigh_tridiagonal(jnp.array([1., 2., 3., 4.]), jnp.array([1., 1., 1.]), eigvals_only=True)",
        1e-6,
    ),
    (
        "values_select",
        DE + "out = jsp.linalg.eigh_tridiagonal(d, e, eigvals_only=True, select='i', select_range=(1, 3))",
        1e-5,
    ),
    ("values_tol", DE + "out = jsp.linalg.eigh_tridiagonal(d, e, eigvals_only=True, tol=1e-2)", 1e-5),
    (
        "values_complex",
        DE
        + "out = jsp.linalg.eigh_tridiagonal(d.astype(jnp.complex64), e * (1 + 1j) / jnp.sqrt(2.), eigvals_only=True)",
        1e-5,
    ),
    ("vectors", DE + "out = jsp.linalg.eigh_tridiagonal(d, e)", 1e-4),
    ("vectors_select", DE + "out = jsp.linalg.eigh_tridiagonal(d, e, select='i', select_range=(2, 4))", 1e-4),
    ("vectors_key", DE + "out = jsp.linalg.eigh_tridiagonal(d, e, key=jax.random.key(3))", 1e-4),
    (
        "small",
        "out = (jsp.linalg.eigh_tridiagonal(jnp.array([2.]), jnp.zeros((0,)), eigvals_only=True), jsp.linalg.eigh_tridiagonal(jnp.array([2.]), jnp.zeros((0,))))",
    ),
    (
        "jit",
        DE + "out = jax.jit(lambda d, e: jsp.linalg.eigh_tridiagonal(d, e, eigvals_only=True))(d, e)",
        1e-5,
    ),
    (
        "vmap",
        R
        + "out = jax.vmap(lambda d, e: jsp.linalg.eigh_tridiagonal(d, e, eigvals_only=True))(jnp.asarray(r.randn(3, 4), jnp.float32), jnp.asarray(r.randn(3, 3), jnp.float32))",
        1e-5,
    ),
    ("err_dtypes", "out = jsp.linalg.eigh_tridiagonal(jnp.ones(3), jnp.ones(2, jnp.int32))"),
    ("err_int", "out = jsp.linalg.eigh_tridiagonal(jnp.ones(3, jnp.int32), jnp.ones(2, jnp.int32))"),
    ("err_select_v", "out = jsp.linalg.eigh_tridiagonal(jnp.ones(3), jnp.ones(2), select='v')"),
    ("err_select_range", "out = jsp.linalg.eigh_tridiagonal(jnp.ones(3), jnp.ones(2), select='i')"),
]
