"""Snippets for jax.scipy.linalg's Schur/Householder family (schur, rsf2csf, hessenberg, sqrtm,
funm, solve_sylvester, qr_multiply, polar, expm_frechet) and the lax.linalg primitives under them.
Registered in snippets.py."""

R = "r = np.random.RandomState(0)\n"
A5 = R + "a = jnp.asarray(r.randn(5, 5), jnp.float32)\n"  # two complex pairs and a real eigenvalue
C4 = R + "c = jnp.asarray(r.randn(4, 4) + 1j * r.randn(4, 4), jnp.complex64)\n"
W = R + "w = jnp.asarray(r.randn(5, 3), jnp.float32)\n"
SPD = R + "m = jnp.asarray(r.randn(4, 4), jnp.float32)\ns = m @ m.T + jnp.eye(4)\n"
SYL = (
    R
    + "a = jnp.asarray(r.randn(3, 3), jnp.float32)\nb = jnp.asarray(r.randn(2, 2), jnp.float32) + 4 * jnp.eye(2)\ncc = jnp.asarray(r.randn(3, 2), jnp.float32)\n"
)

SCIPY_LINALG2 = [
    ("schur_real", A5 + "out = tuple(jsp.linalg.schur(a))", 1e-4),
    ("schur_real_4", R + "out = tuple(jsp.linalg.schur(jnp.asarray(r.randn(4, 4), jnp.float32)))", 1e-4),
    (
        "schur_symmetric",
        "out = tuple(jsp.linalg.schur(jnp.array([[1., 2., 3.], [1., 4., 2.], [3., 2., 1.]])))",
        1e-4,
    ),
    ("schur_triangular", "out = tuple(jsp.linalg.schur(jnp.array([[2., 1.], [0., 3.]])))", 1e-6),
    # (complex Schur forms are fixed up to a diagonal unitary: their magnitudes and diagonal are compared)
    (
        "schur_complex_output",
        A5 + "t, z = jsp.linalg.schur(a, output='complex')\nout = (jnp.diag(t), jnp.abs(t), jnp.abs(z))",
        1e-4,
    ),
    (
        "schur_complex_input",
        C4 + "t, z = jsp.linalg.schur(c)\nout = (jnp.diag(t), jnp.abs(t), jnp.abs(z), t.dtype == z.dtype)",
        1e-4,
    ),
    ("schur_batched", R + "out = tuple(jsp.linalg.schur(jnp.asarray(r.randn(2, 3, 3), jnp.float32)))", 1e-4),
    (
        "schur_vmap_jit",
        R + "out = tuple(jax.jit(jax.vmap(jsp.linalg.schur))(jnp.asarray(r.randn(2, 4, 4), jnp.float32)))",
        1e-4,
    ),
    ("schur_list", "out = jsp.linalg.schur(jnp.eye(2))"),
    ("schur_int", "out = tuple(jsp.linalg.schur(jnp.array([[1, 2], [0, 3]])))"),
    ("lax_schur_no_vectors", A5 + "out = lax.linalg.schur(a, compute_schur_vectors=False)", 1e-4),
    ("err_schur_output", "out = jsp.linalg.schur(jnp.eye(2), output='other')"),
    ("err_schur_not_square", "out = jsp.linalg.schur(jnp.ones((2, 3)))"),
    ("err_schur_grad", A5 + "out = jax.grad(lambda a: jsp.linalg.schur(a)[0].sum())(a)"),
    ("err_schur_sort", A5 + "out = lax.linalg.schur(a, sort_eig_vals=True)"),
    ("rsf2csf", A5 + "out = tuple(jsp.linalg.rsf2csf(*jsp.linalg.schur(a)))", 1e-4),
    (
        "rsf2csf_given",
        "t = jnp.array([[3.76, -2.17, 1.38], [0., -0.88, -0.35], [0., 2.37, -0.88]])\n"
        "out = tuple(jsp.linalg.rsf2csf(t, jnp.eye(3)))",
        1e-4,
    ),
    ("rsf2csf_triangular", "out = tuple(jsp.linalg.rsf2csf(jnp.array([[1., 2.], [0., 3.]]), jnp.eye(2)))"),
    ("err_rsf2csf_shapes", "out = jsp.linalg.rsf2csf(jnp.eye(2), jnp.eye(3))"),
    ("hessenberg", A5 + "out = jsp.linalg.hessenberg(a)", 1e-4),
    ("hessenberg_q", A5 + "out = jsp.linalg.hessenberg(a, calc_q=True)", 1e-4),
    ("hessenberg_complex", C4 + "out = jsp.linalg.hessenberg(c, calc_q=True)", 1e-4),
    (
        "hessenberg_batched",
        R + "out = jsp.linalg.hessenberg(jnp.asarray(r.randn(2, 4, 4), jnp.float32), calc_q=True)",
        1e-4,
    ),
    (
        "hessenberg_small",
        "out = (jsp.linalg.hessenberg(jnp.ones((1, 1)), calc_q=True), jsp.linalg.hessenberg(jnp.zeros((0, 0))))",
    ),
    ("lax_hessenberg", A5 + "out = lax.linalg.hessenberg(a)", 1e-4),
    (
        "lax_householder_product",
        A5 + "h, taus = lax.linalg.hessenberg(a)\nout = lax.linalg.householder_product(h[1:, :-1], taus)",
        1e-4,
    ),
    ("err_hessenberg_grad", A5 + "out = jax.grad(lambda a: jsp.linalg.hessenberg(a).sum())(a)"),
    ("sqrtm", SPD + "out = jsp.linalg.sqrtm(s)", 1e-4),
    ("sqrtm_general", A5 + "out = jsp.linalg.sqrtm(a)", 1e-3),
    ("sqrtm_complex", C4 + "out = jsp.linalg.sqrtm(c)", 1e-3),
    ("sqrtm_jit", SPD + "out = jax.jit(jsp.linalg.sqrtm)(s)", 1e-4),
    ("err_sqrtm_blocksize", "out = jsp.linalg.sqrtm(jnp.eye(2), blocksize=2)"),
    ("err_sqrtm_grad", SPD + "out = jax.grad(lambda s: jsp.linalg.sqrtm(s).real.sum())(s)"),
    ("funm_exp", A5 + "out = jsp.linalg.funm(a, jnp.exp)", 1e-3),
    ("funm_sin_spd", SPD + "out = jsp.linalg.funm(s, jnp.sin)", 1e-3),
    ("funm_disp", SPD + "f, err = jsp.linalg.funm(s, jnp.exp, disp=False)\nout = (f, err < 1e-3)", 1e-3),
    ("err_funm_batched", "out = jsp.linalg.funm(jnp.ones((2, 2, 2)), jnp.exp)"),
    ("solve_sylvester", SYL + "out = jsp.linalg.solve_sylvester(a, b, cc)", 1e-4),
    ("solve_sylvester_eigen", SYL + "out = jsp.linalg.solve_sylvester(a, b, cc, method='eigen')", 1e-4),
    ("solve_sylvester_complex", C4 + "out = jsp.linalg.solve_sylvester(c, c.T + 4 * jnp.eye(4), c)", 1e-4),
    ("solve_sylvester_batched", SYL + "out = jsp.linalg.solve_sylvester(jnp.stack([a, 2 * a]), b, cc)", 1e-4),
    (
        "solve_sylvester_singular",
        "out = jsp.linalg.solve_sylvester(jnp.eye(2), -jnp.eye(2), jnp.ones((2, 2)))",
    ),
    (
        "err_solve_sylvester_shapes",
        "out = jsp.linalg.solve_sylvester(jnp.eye(2), jnp.eye(3), jnp.ones((3, 3)))",
    ),
    (
        "err_solve_sylvester_method",
        "out = jsp.linalg.solve_sylvester(jnp.eye(2), jnp.eye(2), jnp.ones((2, 2)), method='x')",
    ),
    ("qr_multiply_right", W + "out = jsp.linalg.qr_multiply(w, jnp.arange(10.).reshape(2, 5))", 1e-4),
    (
        "qr_multiply_left",
        W + "out = jsp.linalg.qr_multiply(w, jnp.arange(6.).reshape(3, 2), mode='left')",
        1e-4,
    ),
    (
        "qr_multiply_vector",
        W
        + "out = (jsp.linalg.qr_multiply(w, jnp.arange(5.)), jsp.linalg.qr_multiply(w, jnp.arange(3.), mode='left'))",
        1e-4,
    ),
    (
        "qr_multiply_conjugate",
        C4
        + "out = (jsp.linalg.qr_multiply(c, jnp.eye(4), conjugate=True), jsp.linalg.qr_multiply(c, jnp.eye(4), mode='left', conjugate=True))",
        1e-4,
    ),
    ("qr_multiply_wide", W + "out = jsp.linalg.qr_multiply(w.T, jnp.ones((2, 3)))", 1e-4),
    ("err_qr_multiply_shape", W + "out = jsp.linalg.qr_multiply(w, jnp.ones((2, 3)))"),
    ("err_qr_multiply_mode", W + "out = jsp.linalg.qr_multiply(w, jnp.ones((2, 5)), mode='x')"),
    (
        "lax_ormqr",
        W
        + "h, taus = jnp.linalg.qr(w, mode='raw')\n"
        + "out = (h, taus, lax.linalg.ormqr(h.mT, taus, jnp.eye(5)), lax.linalg.ormqr(h.mT, taus, jnp.eye(5), left=False, transpose=True))",
        1e-4,
    ),
    ("polar", A5 + "out = jsp.linalg.polar(a)", 1e-3),
    (
        "polar_left_svd",
        W
        + "out = (jsp.linalg.polar(w.T, side='left'), jsp.linalg.polar(w, method='svd'), jsp.linalg.polar(w, side='left', method='svd'))",
        1e-3,
    ),
    ("err_polar_qdwh_shape", W + "out = jsp.linalg.polar(w.T)"),
    ("err_polar_side", W + "out = jsp.linalg.polar(w, side='up')"),
    (
        "polar_jvp",
        A5 + "out = jax.jvp(lambda a: jsp.linalg.polar(a, method='svd'), (a,), (jnp.ones_like(a),))",
        1e-3,
    ),
    ("expm_frechet", A5 + "out = jsp.linalg.expm_frechet(a * 0.5, jnp.ones_like(a))", 1e-4),
    ("expm_frechet_only", A5 + "out = jsp.linalg.expm_frechet(a * 0.5, a, compute_expm=False)", 1e-4),
    ("err_expm_frechet_shapes", "out = jsp.linalg.expm_frechet(jnp.eye(2), jnp.eye(3))"),
    ("jaxpr_schur", A5 + "out = str(jax.make_jaxpr(jsp.linalg.schur)(a))"),
    ("jaxpr_lax_hessenberg", A5 + "out = str(jax.make_jaxpr(lax.linalg.hessenberg)(a))"),
    (
        "jaxpr_ormqr",
        W
        + "out = str(jax.make_jaxpr(lambda w: (lambda h, t: lax.linalg.ormqr(h.mT, t, jnp.eye(5)))(*jnp.linalg.qr(w, mode='raw')))(w))",
    ),
    (
        "jaxpr_vmap_schur",
        R + "out = str(jax.make_jaxpr(jax.vmap(lambda x: lax.linalg.schur(x)))(jnp.ones((2, 3, 3))))",
    ),
]
