"""Snippets for complex matrices through jnp.linalg, jax.scipy.linalg and lax.linalg: the SVD and QR
families (svd, svdvals, matrix norms, cond, pinv, matrix_rank, lstsq, polar, qr in every mode) and
the holomorphic functions (inv, solve, det, matrix_power, expm, lu_solve), eagerly, under jit and
vmap, and differentiated with JAX's convention. Registered in snippets.py; recorded with x64 too
(complex128) by record_x64.py. (cholesky, eigh, lu, det/slogdet, eig and triangular solves of
complex matrices are in the linalg and linalg_eig topics.)"""

R = "r = np.random.RandomState(0)\n"
C = R + (
    "c = jnp.asarray(r.randn(4, 4) + 1j * r.randn(4, 4), jnp.complex64)\n"
    "t = jnp.asarray(r.randn(4, 3) + 1j * r.randn(4, 3), jnp.complex64)\n"
    "w = jnp.asarray(r.randn(3, 4) + 1j * r.randn(3, 4), jnp.complex64)\n"
    "b = jnp.asarray(r.randn(4) + 1j * r.randn(4), jnp.complex64)\n"
    "h = c @ c.conj().T + 4 * jnp.eye(4)\n"
)
# Singular vectors are fixed up to a unit factor per pair (u_i, vh_i): compared with the phase of
# u's first row divided out of u and multiplied into vh (as snippets_linalg_eig's canon).
CANON = (
    "def canon(u, vh):\n"
    "    p = u[..., :1, :] / jnp.abs(u[..., :1, :])\n"
    "    return u / p, vh * jnp.swapaxes(p, -1, -2)\n"
)

# No dtype named: complex64 by default, complex128 when record_x64.py and test_x64.py replay them.
D = R + "d = jnp.asarray(r.randn(4, 3) + 1j * r.randn(4, 3))\ne = jnp.asarray(r.randn(4) + 1j * r.randn(4))\n"

COMPLEX_LINALG = [
    (
        "svd_values",
        C
        + "out = (jnp.linalg.svd(c, compute_uv=False), jnp.linalg.svdvals(t), lax.linalg.svd(w, compute_uv=False))",
        1e-5,
    ),
    (
        "svd_vectors",
        C + CANON + "u, s, vh = jnp.linalg.svd(t, full_matrices=False)\nout = (s, *canon(u, vh))",
        1e-4,
    ),
    (
        "svd_vectors_wide",
        C + CANON + "u, s, vh = jnp.linalg.svd(w, full_matrices=False)\nout = (s, *canon(u, vh))",
        1e-4,
    ),
    (
        "svd_full_matrices",
        C + "u, s, vh = jnp.linalg.svd(t)\n"
        "out = (u.shape, u.dtype == t.dtype, str(s.dtype), vh.shape, jnp.abs(u @ u.conj().T - jnp.eye(4)).max() < 1e-5)",
    ),
    ("svd_hermitian", C + "out = jnp.linalg.svd(h, hermitian=True, compute_uv=False)", 1e-5),
    (
        "matrix_norms",
        C
        + "out = tuple(jnp.linalg.norm(c, o) for o in (None, 'fro', 'nuc', 1, -1, 2, -2, jnp.inf, -jnp.inf))",
        1e-5,
    ),
    (
        "matrix_norm_cond",
        C
        + "out = (jnp.linalg.matrix_norm(t, ord=2), jnp.linalg.cond(c), jnp.linalg.cond(c, 'fro'), jnp.linalg.cond(c, -2))",
        1e-4,
    ),
    ("pinv", C + "out = (jnp.linalg.pinv(t), jnp.linalg.pinv(w), jnp.linalg.pinv(h, hermitian=True))", 1e-4),
    (
        "matrix_rank",
        C
        + "out = (jnp.linalg.matrix_rank(c), jnp.linalg.matrix_rank(t @ w), jnp.linalg.matrix_rank(jnp.outer(b, b)))",
    ),
    ("lstsq", C + "out = jnp.linalg.lstsq(t, b)", 1e-4),
    ("lstsq_wide", C + "out = jnp.linalg.lstsq(w, b[:3])[0]", 1e-4),
    # (Householder QR: LAPACK's convention fixes the factors, so they are compared as they are)
    ("qr", C + "out = (tuple(jnp.linalg.qr(t)), tuple(jnp.linalg.qr(w)), jnp.linalg.qr(t, mode='r'))", 1e-4),
    ("qr_complete", C + "out = tuple(jnp.linalg.qr(t, mode='complete'))", 1e-4),
    (
        "scipy_qr",
        C
        + "out = (jsp.linalg.qr(t, mode='economic'), jsp.linalg.qr(t, mode='r'), jsp.linalg.qr(t, pivoting=True))",
        1e-4,
    ),
    ("lax_qr", C + "out = lax.linalg.qr(c)", 1e-4),
    (
        "polar",
        C
        + "out = (jsp.linalg.polar(c), jsp.linalg.polar(t, method='svd'), jsp.linalg.polar(w, side='left'))",
        1e-4,
    ),
    ("err_polar_left_square", C + "out = jsp.linalg.polar(c, side='left')"),
    # under jit and vmap
    (
        "jit_svd_qr_pinv",
        C
        + "f = jax.jit(lambda a: (jnp.linalg.svdvals(a), jnp.linalg.qr(a), jnp.linalg.pinv(a), jnp.linalg.norm(a, 2)))\n"
        "out = f(t)",
        1e-4,
    ),
    (
        "vmap_svd_qr_norm",
        C + "cs = jnp.stack([c, 2j * c, c.T])\n"
        "out = jax.vmap(lambda a: (jnp.linalg.svdvals(a), jnp.linalg.qr(a).R, jnp.linalg.norm(a, 'nuc')))(cs)",
        1e-4,
    ),
    ("jit_vmap_pinv", C + "out = jax.jit(jax.vmap(jnp.linalg.pinv))(jnp.stack([t, t * (1 - 1j)]))", 1e-4),
    # derivatives, by JAX's convention (grad(lambda z: abs(z) ** 2)(z) is 2 conj(z)), and with
    # holomorphic=True where the function is holomorphic
    ("grad_norm2", C + "out = jax.grad(lambda a: jnp.linalg.norm(a, 2))(c)", 1e-3),
    (
        "grad_nuc_svdvals",
        C + "out = jax.grad(lambda a: (jnp.linalg.svdvals(a) ** 2 * jnp.arange(1., 4.)).sum())(t)",
        1e-3,
    ),
    (
        "jvp_svd",
        C
        + CANON
        + "f = lambda a: (lambda u, s, vh: (s, *canon(u, vh)))(*jnp.linalg.svd(a, full_matrices=False))\n"
        "out = jax.jvp(f, (t,), (t * 1j + 0.5,))",
        1e-3,
    ),
    ("grad_pinv", C + "out = jax.grad(lambda a: jnp.abs(jnp.linalg.pinv(a) ** 2).sum())(w)", 1e-3),
    (
        "grad_qr",
        C
        + "out = jax.grad(lambda a: (lambda q, r: (q.real * r[0].imag).sum() + jnp.abs(r).sum())(*jnp.linalg.qr(a)))(t)",
        1e-3,
    ),
    ("jvp_qr_complete", C + "out = jax.jvp(lambda a: jnp.linalg.qr(a, mode='complete'), (t,), (w.T,))", 1e-3),
    ("jvp_qr_wide", C + "out = jax.jvp(jnp.linalg.qr, (w,), (1j * w,))", 1e-3),
    (
        "grad_lstsq",
        C + "out = jax.grad(lambda a, y: jnp.abs(jnp.linalg.lstsq(a, y)[0]).sum(), argnums=(0, 1))(t, b)",
        1e-3,
    ),
    ("grad_cond", C + "out = jax.grad(jnp.linalg.cond)(c)", 1e-3),
    (
        "grad_polar_svd",
        C + "out = jax.grad(lambda a: jsp.linalg.polar(a, method='svd')[1].real.sum())(c)",
        1e-3,
    ),
    (
        "holomorphic_inv_solve",
        C
        + "out = jax.grad(lambda a: jnp.linalg.inv(a).sum() + jnp.linalg.solve(a, b).sum(), holomorphic=True)(c)",
        1e-3,
    ),
    (
        "holomorphic_det_power",
        C
        + "out = jax.grad(lambda a: jnp.linalg.det(a) + jnp.linalg.matrix_power(a, 3)[0, 1], holomorphic=True)(c)",
        1e-3,
    ),
    (
        "holomorphic_expm",
        C + "out = jax.grad(lambda a: jsp.linalg.expm(a)[1, 2], holomorphic=True)(c / 4)",
        1e-3,
    ),
    (
        "holomorphic_lu_solve",
        C
        + "out = jax.jacfwd(lambda a: jsp.linalg.lu_solve(jsp.linalg.lu_factor(a), b), holomorphic=True)(c)",
        1e-3,
    ),
    (
        "vmap_grad_svdvals",
        C + "out = jax.vmap(jax.grad(lambda a: jnp.linalg.svdvals(a)[0]))(jnp.stack([c, c.T]))",
        1e-3,
    ),
    # jax.scipy.linalg's solvers on complex matrices (Hermitian h, the general c)
    (
        "scipy_solves",
        C + "out = (jsp.linalg.solve(c, b), jsp.linalg.solve(h, b, assume_a='pos'), "
        "jsp.linalg.solve(h, b, assume_a='her'), jsp.linalg.cho_solve(jsp.linalg.cho_factor(h), b), "
        "tuple(jsp.linalg.lu_solve(jsp.linalg.lu_factor(c), b, trans=k) for k in (0, 1, 2)), "
        "tuple(jsp.linalg.solve_triangular(c, b, lower=True, trans=k) for k in ('N', 'T', 'C')))",
        1e-4,
    ),
    (
        "scipy_functions",
        C + "out = (jsp.linalg.expm(c / 4), jsp.linalg.det(c), jsp.linalg.inv(c), "
        "jsp.linalg.eigh(h, eigvals_only=True), jsp.linalg.expm_frechet(c / 4, h / 10))",
        1e-4,
    ),
    (
        "grad_scipy_solves",
        C + "out = jax.grad(lambda a, y: jnp.abs(jsp.linalg.solve(a, y, assume_a='her')).sum() "
        "+ jnp.abs(jsp.linalg.solve_triangular(a, y, trans='C')).sum(), argnums=(0, 1))(h, b)",
        1e-3,
    ),
    (
        "vmap_jit_scipy_solve",
        C + "out = jax.jit(jax.vmap(jsp.linalg.solve, (None, 0)))(c, jnp.stack([b, 1j * b]))",
        1e-4,
    ),
    # complex128 under x64
    (
        "default_dtype_svd_qr",
        D + CANON + "u, s, vh = jnp.linalg.svd(d, full_matrices=False)\n"
        "out = (s, *canon(u, vh), tuple(jnp.linalg.qr(d)), jnp.linalg.pinv(d), jnp.linalg.lstsq(d, e))",
        1e-4,
    ),
    (
        "default_dtype_norms_jit",
        D
        + "out = jax.jit(lambda a: tuple(jnp.linalg.norm(a, o) for o in ('fro', 'nuc', 2, -2, 1, jnp.inf)))(d)",
        1e-4,
    ),
    (
        "default_dtype_grads",
        D + "out = (jax.grad(lambda a: jnp.linalg.norm(a, 2))(d), jax.jvp(jnp.linalg.qr, (d,), (1j * d,)), "
        "jax.vmap(jnp.linalg.svdvals)(jnp.stack([d, d * 1j])))",
        1e-3,
    ),
    # what JAX refuses for complex input
    ("err_slogdet_qr", C + "out = jnp.linalg.slogdet(c, method='qr')"),
    # (a real tangent for a complex primal: JAX's jvp checks the dtypes; the engine took it)
    ("err_jvp_real_tangent", C + "out = jax.jvp(jnp.linalg.qr, (t,), (t.real,))"),
    ("err_svd_int", "out = lax.linalg.svd(jnp.eye(2, dtype=jnp.int32))"),
    ("err_grad_svd_full", C + "out = jax.grad(lambda a: jnp.abs(jnp.linalg.svd(a)[0]).sum())(t)"),
    # printed programs
    ("jaxpr_svdvals", C + "out = str(jax.make_jaxpr(lambda a: jnp.linalg.svd(a, compute_uv=False))(t))"),
    ("jaxpr_qr", C + "out = str(jax.make_jaxpr(jnp.linalg.qr)(t))"),
]
