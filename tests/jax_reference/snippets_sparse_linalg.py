"""Snippets for jax.scipy.sparse.linalg (cg, bicgstab, gmres). Registered in snippets.py."""

SETUP = (
    "from jax.scipy.sparse.linalg import cg, bicgstab, gmres\n"
    "r = np.random.RandomState(0)\n"
    "G = r.randn(5, 5).astype(np.float32)\n"
    "S = jnp.asarray(G @ G.T + 5 * np.eye(5, dtype=np.float32))\n"  # symmetric positive definite
    "N = jnp.asarray(G + 6 * np.eye(5, dtype=np.float32))\n"  # nonsymmetric, well conditioned
    "b = jnp.asarray(r.randn(5), jnp.float32)\n"
    "Minv = jnp.diag(1 / jnp.diag(S))\n"
)
TREE = (
    "bt = {'u': jnp.array([1., 2., 3.]), 'v': jnp.array([[0.5, -1.], [2., 0.25]])}\n"
    "def op(t):\n    return {'u': 3 * t['u'] + jnp.roll(t['u'], 1) * 0.5, 'v': 4 * t['v'] + t['v'].T * 0.5}\n"
)

SPARSE_LINALG = [
    ("cg_matrix", SETUP + "out = cg(S, b)", 1e-4),
    ("cg_function", SETUP + "out = cg(lambda v: S @ v, b, tol=1e-6)[0]", 1e-4),
    ("cg_preconditioned", SETUP + "out = cg(S, b, M=Minv)[0]", 1e-4),
    ("cg_preconditioner_function", SETUP + "out = cg(S, b, M=lambda v: v / jnp.diag(S))[0]", 1e-4),
    # a truncated run checks the iteration itself, not just the solution
    ("cg_maxiter", SETUP + "out = (cg(S, b, maxiter=2)[0], cg(S, b, maxiter=1, M=Minv)[0])", 1e-4),
    (
        "cg_x0_tol",
        SETUP + "out = (cg(S, b, x0=jnp.ones(5), maxiter=3)[0], cg(S, b, tol=0.3)[0], cg(S, b, atol=1.)[0])",
        1e-4,
    ),
    ("cg_pytree", SETUP + TREE + "out = cg(op, bt)[0]", 1e-4),
    ("cg_matmul_object", SETUP + "out = cg(np.asarray(S), b)[0]", 1e-4),
    (
        "cg_complex",
        SETUP + "H = S.astype(jnp.complex64) + 1j * jnp.asarray(G - G.T, jnp.float32)\n"
        "out = cg(H, b.astype(jnp.complex64) * (1 + 0.5j), maxiter=3)[0]",
        1e-4,
    ),
    ("bicgstab_matrix", SETUP + "out = bicgstab(N, b)", 1e-4),
    ("bicgstab_preconditioned", SETUP + "out = bicgstab(N, b, M=jnp.diag(1 / jnp.diag(N)))[0]", 1e-4),
    (
        "bicgstab_maxiter",
        SETUP + "out = (bicgstab(N, b, maxiter=1)[0], bicgstab(N, b, maxiter=2, x0=b)[0])",
        1e-4,
    ),
    ("bicgstab_pytree", SETUP + TREE + "out = bicgstab(op, bt)[0]", 1e-4),
    ("gmres_batched", SETUP + "out = gmres(N, b)", 1e-4),
    ("gmres_incremental", SETUP + "out = gmres(N, b, solve_method='incremental')", 1e-4),
    (
        "gmres_restart",
        SETUP
        + "out = [gmres(N, b, restart=2, maxiter=1, solve_method=m)[0] for m in ('batched', 'incremental')]",
        1e-4,
    ),
    (
        "gmres_restart_cycles",
        SETUP
        + "out = [gmres(N, b, restart=2, maxiter=3, solve_method=m, M=jnp.diag(1 / jnp.diag(N)))[0] for m in ('batched', 'incremental')]",
        1e-4,
    ),
    (
        "gmres_pytree",
        SETUP + TREE + "out = [gmres(op, bt, solve_method=m)[0] for m in ('batched', 'incremental')]",
        1e-4,
    ),
    ("gmres_x0_tol", SETUP + "out = gmres(N, b, x0=jnp.ones(5), tol=1e-2, restart=3)[0]", 1e-4),
    # derivatives: implicit differentiation through custom_linear_solve
    ("grad_cg_b", SETUP + "out = jax.grad(lambda b: jnp.sum(cg(S, b)[0] ** 2))(b)", 1e-3),
    ("grad_cg_matrix", SETUP + "out = jax.grad(lambda A: cg(A, b)[0] @ jnp.arange(5.))(S)", 1e-3),
    ("grad_bicgstab", SETUP + "out = jax.grad(lambda b: jnp.sum(jnp.sin(bicgstab(N, b)[0])))(b)", 1e-3),
    ("grad_gmres_matrix", SETUP + "out = jax.grad(lambda A: gmres(A, b)[0] @ jnp.arange(5.))(N)", 1e-3),
    (
        "jvp_gmres_incremental",
        SETUP + "out = jax.jvp(lambda b: gmres(N, b, solve_method='incremental')[0], (b,), (jnp.ones(5),))",
        1e-3,
    ),
    ("jit_cg", SETUP + "out = jax.jit(lambda A, b: cg(A, b, M=Minv)[0])(S, b)", 1e-4),
    ("jit_gmres", SETUP + "out = jax.jit(lambda b: gmres(N, b, restart=3)[0])(b)", 1e-4),
    ("vmap_cg", SETUP + "B = jnp.stack([b, 2 * b + 1, -b])\nout = jax.vmap(lambda v: cg(S, v)[0])(B)", 1e-4),
    (
        "vmap_bicgstab_matrix",
        SETUP + "out = jax.vmap(lambda A: bicgstab(A, b)[0])(jnp.stack([N, N.T, N + 1]))",
        1e-4,
    ),
    (
        "vmap_gmres",
        SETUP
        + "B = jnp.stack([b, 2 * b + 1])\nout = jax.vmap(lambda v: gmres(N, v, solve_method='incremental')[0])(B)",
        1e-4,
    ),
    # refusals
    ("err_not_square", SETUP + "out = cg(jnp.ones((2, 3)), jnp.ones(2))"),
    ("err_not_operator", SETUP + "out = cg('S', b)"),
    ("err_x0_structure", SETUP + "out = cg(S, b, x0=(b,))"),
    ("err_x0_shape", SETUP + "out = bicgstab(S, b, x0=jnp.ones(4))"),
    ("err_solve_method", SETUP + "out = gmres(N, b, solve_method='qr')"),
]
