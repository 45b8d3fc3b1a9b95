"""Snippets for semantic gaps closed one by one (issue 13): weak types through loops' carries, ...
Registered in snippets.py."""

_WHILE = "cond = lambda c: c[0] < 3\n"

SEMANTIC_GAPS = [
    # Loops keep a weak init weak when the body keeps it weak, and make it strong when the body does.
    ("while_weak_carry", _WHILE + "out = lax.while_loop(cond, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0))"),
    ("while_strong_body", "out = lax.while_loop(lambda c: c < 3, lambda c: c + jnp.int32(1), 0)"),
    (
        "while_mixed_carry",
        _WHILE + "out = lax.while_loop(cond, lambda c: (c[0] + 1, c[1] + jnp.ones(2)), (0, 0.0))",
    ),
    ("fori_weak_carry", "out = lax.fori_loop(0, 3, lambda i, c: c + 1.0, 0.0)"),
    ("fori_weak_index", "out = lax.fori_loop(0, 3, lambda i, c: c + i, 0)"),
    ("fori_array_bounds", "out = lax.fori_loop(jnp.int32(0), 3, lambda i, c: c + i, 0)"),
    ("scan_weak_carry", "out = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.))"),
    ("scan_weak_both", "out = lax.scan(lambda c, x: (c + 1, c * 2), 0, None, length=3)"),
    ("jit_while_weak", "out = jax.jit(lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0))()"),
    ("jit_fori_weak", "out = jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(2.0)"),
    (
        "vmap_while_weak",
        "out = jax.vmap(lambda x: lax.while_loop(lambda c: c[0] < x, lambda c: (c[0] + 1, c[1] + 1), (0, 0)))"
        "(jnp.arange(3))",
    ),
    ("grad_fori_weak", "out = jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(2.0)"),
    (
        "grad_scan_weak",
        "out = jax.grad(lambda x: lax.scan(lambda c, _: (c * x, None), 1.0, None, length=3)[0])(2.0)",
    ),
    (
        "jvp_while_weak",
        _WHILE
        + "out = jax.jvp(lambda x: lax.while_loop(cond, lambda c: (c[0] + 1, c[1] * x), (0, 1.0)), (2.0,), (1.0,))[0]",
    ),
    (
        "gmres_info_weak",
        "from jax.scipy.sparse.linalg import gmres\nA = jnp.array([[3., 1.], [1., 2.]])\n"
        "out = (gmres(lambda v: A @ v, jnp.array([1., 1.])), jax.jit(lambda b: gmres(lambda v: A @ v, b))(jnp.ones(2)))",
    ),
]
