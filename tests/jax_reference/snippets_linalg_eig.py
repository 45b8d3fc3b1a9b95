"""Snippets for the non-symmetric eigendecomposition (jnp.linalg.eig/eigvals, lax.linalg.eig,
jnp.roots, jnp.poly of a matrix). Registered in snippets.py."""

R = "r = np.random.RandomState(0)\n"
A4 = R + "a = jnp.asarray(r.randn(4, 4), jnp.float32)\n"  # two real eigenvalues and a conjugate pair
C3 = R + "c = jnp.asarray(r.randn(3, 3) + 1j * r.randn(3, 3), jnp.complex64)\n"
# Eigenvectors are fixed only up to a unit factor: geev makes each unit-norm with its largest component
# real, which leaves a sign that single (JAX) and double (numpy, the engine) precision LAPACK runs may
# choose differently. The snippets compare columns scaled by the phase of their first component.
CANON = "def canon(v):\n    p = v[..., :1, :] / jnp.abs(v[..., :1, :])\n    return v / lax.stop_gradient(p)\n"
C4 = R + "c = jnp.asarray(r.randn(4, 4) + 1j * r.randn(4, 4), jnp.complex64)\n"
EIGVEC = "lambda a: lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)"

LINALG_EIG = [
    ("eig", A4 + CANON + "w, v = jnp.linalg.eig(a)\nout = (w, canon(v))", 1e-4),
    ("eigvals", A4 + "out = jnp.linalg.eigvals(a)", 1e-4),
    # (zgeev's order of a complex matrix's eigenvalues depends on rounding: compared sorted)
    (
        "eig_complex_input",
        C3 + CANON + "w, v = jnp.linalg.eig(c)\ni = jnp.argsort(w.real)\nout = (w[i], canon(v)[:, i])",
        1e-4,
    ),
    (
        "eig_symmetric",
        CANON + "w, v = jnp.linalg.eig(jnp.array([[1., 2.], [2., 1.]]))\nout = (w, canon(v))",
        1e-5,
    ),
    (
        "eig_rotation",
        CANON + "w, v = jnp.linalg.eig(jnp.array([[0., -1.], [1., 0.]]))\nout = (w, canon(v))",
        1e-5,
    ),
    (
        "eig_pair",
        R
        + CANON
        + "w, v = jnp.linalg.eig(jnp.asarray(r.randn(5, 5), jnp.float32))\nout = (w, canon(v), jnp.abs(v))",
        1e-4,
    ),
    ("eig_int_input", "out = jnp.linalg.eigvals(jnp.array([[2, 1], [0, 3]]))", 1e-5),
    ("eig_float64_like", A4 + "out = jnp.linalg.eigvals(a.astype(jnp.float16))", 2e-2),
    ("eig_batched", R + "out = jnp.linalg.eigvals(jnp.asarray(r.randn(2, 3, 3), jnp.float32))", 1e-4),
    ("eig_empty", "out = tuple(jnp.linalg.eig(jnp.zeros((0, 0))))"),
    ("eig_nan", "out = jnp.linalg.eigvals(jnp.array([[1., jnp.nan], [0., 1.]]))"),
    (
        "vmap_eigvals",
        R + "out = jax.vmap(jnp.linalg.eigvals)(jnp.asarray(r.randn(3, 3, 3), jnp.float32))",
        1e-4,
    ),
    ("jit_eig", A4 + CANON + "w, v = jax.jit(jnp.linalg.eig)(a)\nout = (w, canon(v))", 1e-4),
    (
        "lax_eig_left",
        A4 + CANON + "w, vl, vr = lax.linalg.eig(a)\nout = (w, canon(vr), canon(vl))",
        1e-4,
    ),
    (
        "lax_eig_values_only",
        A4 + "out = lax.linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)",
        1e-4,
    ),
    ("grad_eigvals_real", A4 + "out = jax.grad(lambda a: jnp.linalg.eigvals(a).real.sum())(a)", 1e-4),
    ("grad_eigvals_abs", A4 + "out = jax.grad(lambda a: jnp.abs(jnp.linalg.eigvals(a)).sum())(a)", 1e-3),
    (
        "grad_eigvals_complex_input",
        C3 + "out = jax.grad(lambda c: (jnp.linalg.eigvals(c) ** 2).imag.sum())(c)",
        1e-3,
    ),
    ("jacfwd_eigvals", A4 + "out = jax.jacfwd(lambda a: jnp.linalg.eigvals(a).real)(a)", 1e-3),
    (
        "jvp_eigvecs",
        A4
        + f"(w, v), (dw, dv) = jax.jvp({EIGVEC}, (a,), (jnp.ones_like(a),))\n"
        + "s = jnp.sign(v[:1].real)\nout = (w, dw, v * s, dv * s)",
        1e-3,
    ),
    (
        "grad_eigvecs",
        A4 + f"out = jax.grad(lambda a: jnp.abs(({EIGVEC})(a)[1]).sum())(a)",
        1e-3,
    ),
    ("err_grad_eigvecs", A4 + "out = jax.grad(lambda a: jnp.abs(jnp.linalg.eig(a)[1]).sum())(a)"),
    ("err_eig_not_square", "out = jnp.linalg.eig(jnp.ones((2, 3)))"),
    ("err_eig_vector", "out = jnp.linalg.eigvals(jnp.ones(3))"),
    ("roots", "out = jnp.roots(jnp.array([1., -6., 11., -6.]))", 1e-4),
    ("roots_complex", "out = jnp.roots(jnp.array([1., 0., 1.]))", 1e-5),
    ("roots_leading_zeros", "out = jnp.roots(jnp.array([0., 0., 1., -3., 2.]))", 1e-5),
    ("roots_no_strip", "out = jnp.roots(jnp.array([0., 1., -3., 2.]), strip_zeros=False)", 1e-5),
    ("roots_trailing_zeros", "out = jnp.roots(jnp.array([1., -1., 0., 0.]))", 1e-5),
    (
        "roots_short",
        "out = (jnp.roots(jnp.array([2.])), jnp.roots(jnp.array([0., 0.])), jnp.roots(jnp.array([3., 1.])))",
    ),
    ("roots_int", "out = jnp.roots(jnp.array([1, -3, 2]))", 1e-5),
    ("roots_jit", "out = jax.jit(lambda p: jnp.roots(p, strip_zeros=False))(jnp.array([1., -3., 2.]))", 1e-5),
    ("err_roots_jit_strip", "out = jax.jit(jnp.roots)(jnp.array([1., -3., 2.]))"),
    ("err_roots_2d", "out = jnp.roots(jnp.ones((2, 2)))"),
    ("poly_matrix", "out = jnp.poly(jnp.array([[1., 2.], [3., 4.]]))", 1e-5),
    ("roll_traced_shift", "out = jax.jit(lambda x, s: jnp.roll(x, s))(jnp.arange(5.), 7)"),
    ("jaxpr_eig", A4 + "out = str(jax.make_jaxpr(jnp.linalg.eig)(a))"),
    ("jaxpr_eigvals", A4 + "out = str(jax.make_jaxpr(jnp.linalg.eigvals)(a))"),
    (
        "jaxpr_vmap_eigvals",
        R + "out = str(jax.make_jaxpr(jax.vmap(jnp.linalg.eigvals))(jnp.ones((2, 3, 3))))",
    ),
    # LU of complex matrices (the eigenvalue derivative solves with the eigenvectors).
    ("complex_lu", C4 + "out = tuple(lax.linalg.lu(c))", 1e-5),
    ("complex_solve_inv", C4 + "out = (jnp.linalg.solve(c, c[:, 0]), jnp.linalg.inv(c))", 1e-4),
    ("complex_det_slogdet", C4 + "out = (jnp.linalg.det(c), tuple(jnp.linalg.slogdet(c)))", 1e-4),
    ("complex_det_grad", C4 + "out = jax.grad(lambda c: jnp.abs(jnp.linalg.det(c)))(c)", 1e-4),
    ("complex_slogdet_jvp", C4 + "out = jax.jvp(jnp.linalg.slogdet, (c,), (c * 1j,))", 1e-4),
    ("complex_lu_factor_solve", C4 + "out = jsp.linalg.lu_solve(jsp.linalg.lu_factor(c), c[:, 1])", 1e-4),
    # eigh of complex Hermitian matrices (vectors compared with their first component's phase divided out)
    ("complex_eigh", C4 + CANON + "h = c + c.conj().T\nw, v = jnp.linalg.eigh(h)\nout = (w, canon(v))", 1e-4),
    (
        "complex_eigh_upper",
        C4
        + "h = c + c.conj().T\nout = (jnp.linalg.eigvalsh(h, UPLO='U'), jsp.linalg.eigh(h, eigvals_only=True))",
        1e-4,
    ),
    (
        "complex_eigh_grad",
        C4 + "h = c + c.conj().T\nout = jax.grad(lambda h: jnp.linalg.eigvalsh(h)[-1])(h)",
        1e-4,
    ),
    (
        "complex_eigh_jvp",
        C4
        + "h = c + c.conj().T\nout = jax.jvp(lambda h: jnp.linalg.eigvalsh(h), (h,), (c * 1j + (c * 1j).conj().T,))",
        1e-4,
    ),
    (
        "complex_eigh_vmap",
        C4 + "h = c + c.conj().T\nout = jax.vmap(jnp.linalg.eigvalsh)(jnp.stack([h, 2 * h]))",
        1e-4,
    ),
]
