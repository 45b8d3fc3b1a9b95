"""What the fifth differential fuzz (issue 13: linear algebra on edge inputs) found: eager grad of
a multi-output factorization through the tape instantiated the cotangent of an unused output as
zeros, which met eigh's reciprocal eigenvalue gaps (inf for equal eigenvalues) as 0 * inf: NaN
for grad(eigvalsh) at the identity, where JAX's backward pass keeps it a symbolic zero; svd/eigh
(and pinv, lstsq, norms, cond, matrix_rank over them) raised numpy's LinAlgError on non-finite
matrices, where JAX's CPU lowering gives NaNs; vector_norm of bools refused (JAX's jnp.abs of a
bool is itself); the lu JVP of a batch called a vmap the lax namespace lacks; 0x0 edge cases
of lu_solve, toeplitz and lax.linalg.eig raised. Registered in snippets.py."""

_EYE = "a = jnp.eye(3)\n"
_ZERO = "a = jnp.zeros((3, 3))\n"
_NAN = "a = jnp.array([[1.0, jnp.nan, 0.5], [2.0, 3.0, 1.0], [0.5, 1.0, 4.0]])\n"
_INF = "a = jnp.array([[jnp.inf, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 4.0]])\n"
_BATCH = "a = jnp.stack([jnp.array([[1.0, jnp.nan], [2.0, 3.0]]), jnp.array([[2.0, 1.0], [1.0, 3.0]])])\n"
_B3 = "a = jnp.array([[[4.0, 1.0, 0.5], [1.0, 3.0, 0.0], [2.0, 0.0, 5.0]], [[2.0, -1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 2.0, 4.0]]])\n"
_BOOL = "b = jnp.array([[True, False, True], [False, False, True]])\n"
_E00 = "e = jnp.zeros((0, 0))\n"

FUZZ5_LINALG = [
    # eager grad through an unused output of eigh / svd: its cotangent stays a symbolic zero
    *[
        (f"grad_{name}_{m}", setup + f"out = (jax.grad({fn})(a), jax.jit(jax.grad({fn}))(a))")
        for m, setup in [("eye", _EYE), ("zero", _ZERO)]
        for name, fn in [
            ("eigvalsh", "lambda x: jnp.linalg.eigvalsh(x).sum()"),
            ("eigh_w", "lambda x: jnp.linalg.eigh(x)[0].sum()"),
            ("lax_eigh_w", "lambda x: lax.linalg.eigh(x)[1].sum()"),
            ("jsp_eigh_w", "lambda x: jax.scipy.linalg.eigh(x)[0].sum()"),
            ("svd_s", "lambda x: jnp.linalg.svd(x)[1].sum()"),
            ("jsp_svd_s", "lambda x: jax.scipy.linalg.svd(x)[1].sum()"),
        ]
    ],
    ("vjp_eigh_w_eye", _EYE + "out = jax.vjp(lambda x: lax.linalg.eigh(x)[1], a)[1](jnp.ones(3))"),
    # non-finite matrices: NaN factorizations (and what is built on them), not an exception
    *[
        (f"nonfinite_{name}_{m}", setup + f"out = {expr}")
        for m, setup in [("nan", _NAN), ("inf", _INF)]
        for name, expr in [
            ("svdvals", "jnp.linalg.svd(a, compute_uv=False)"),
            ("svd_s", "jnp.linalg.svd(a)[1]"),
            ("svd_u", "jnp.linalg.svd(a, full_matrices=False)[0]"),
            ("eigvalsh", "jnp.linalg.eigvalsh(a)"),
            ("eigh_v", "jnp.linalg.eigh(a)[1]"),
            ("pinv", "jnp.linalg.pinv(a)"),
            ("lstsq", "jnp.linalg.lstsq(a, jnp.ones(3))"),
            ("norm2", "(jnp.linalg.norm(a, 2), jnp.linalg.norm(a, -2), jnp.linalg.norm(a, 'nuc'))"),
            ("matrix_rank", "jnp.linalg.matrix_rank(a)"),
            ("cond", "(jnp.linalg.cond(a), jnp.linalg.cond(a, 'nuc'))"),
            ("jit_svd", "jax.jit(jnp.linalg.svd)(a)[1]"),
            ("grad_eigvalsh", "jax.grad(lambda x: jnp.linalg.eigvalsh(x).sum())(a)"),
        ]
        # (JAX's CPU gesdd can spin on an inf matrix when asked for U and V: NaN inputs only there)
        if m == "nan" or name in ("svdvals", "eigvalsh", "eigh_v", "matrix_rank", "grad_eigvalsh")
    ],
    ("nonfinite_batch_eigh", _BATCH + "out = jnp.linalg.eigh(a)"),
    ("nonfinite_batch_svdvals", _BATCH + "out = jnp.linalg.svd(a, compute_uv=False)"),
    ("nonfinite_vmap_svdvals", _BATCH + "out = jax.vmap(jnp.linalg.svdvals)(a)"),
    # cond of a singular matrix: nuc norm of inv's infinities is NaN, which cond reports as inf
    (
        "cond_nuc_singular",
        "out = (jnp.linalg.cond(jnp.zeros((3, 3)), 'nuc'), "
        "jnp.linalg.cond(jnp.array([[1.0, 2.0], [2.0, 4.0]]), 'nuc'))",
    ),
    # vector_norm of bools: jnp.abs of a bool is itself (sum gives int32, inf-norms bools)
    *[
        (
            f"vector_norm_bool_{name}",
            _BOOL + f"out = (jnp.linalg.vector_norm(b, ord={o}), "
            f"jax.jit(lambda x: jnp.linalg.vector_norm(x, ord={o}, axis=0))(b))",
        )
        for name, o in [
            ("1", "1"),
            ("m1", "-1"),
            ("3", "3"),
            ("half", "0.5"),
            ("inf", "jnp.inf"),
            ("minf", "-jnp.inf"),
            ("2", "2"),
        ]
    ],
    ("vector_norm_uint8_3", "out = jnp.linalg.vector_norm(jnp.array([1, 2], jnp.uint8), ord=3)"),
    # the lu JVP of a batch of matrices (vmapped one-matrix rule)
    (
        "grad_lu_solve_batch",
        _B3 + "out = jax.grad(lambda x: jax.scipy.linalg.lu_solve("
        "jax.scipy.linalg.lu_factor(x), jnp.ones((2, 3, 1))).sum())(a)",
    ),
    ("jacfwd_lax_lu_batch", _B3 + "out = jax.jacfwd(lambda x: lax.linalg.lu(x)[0].sum())(a)"),
    ("grad_jsp_lu_batch", _B3 + "out = jax.grad(lambda x: jax.scipy.linalg.lu(x)[2].sum())(a)"),
    # 0x0 edge cases
    (
        "lu_solve_0x0",
        _E00 + "out = (jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(e), jnp.ones(0)), "
        "jax.scipy.linalg.lu_solve(jax.scipy.linalg.lu_factor(e), jnp.ones((0, 2)), trans=1))",
    ),
    ("lu_pivots_empty", "out = lax.linalg.lu_pivots_to_permutation(jnp.zeros((2, 0), jnp.int32), 3)"),
    (
        "toeplitz_0x0",
        _E00 + "out = (jax.scipy.linalg.toeplitz(e), jax.jit(jax.scipy.linalg.toeplitz)(e), "
        "jax.scipy.linalg.toeplitz(jnp.zeros((2, 0))))",
    ),
    ("lax_eig_0x0", _E00 + "out = lax.linalg.eig(e)"),
    ("jnp_eig_0x0", _E00 + "out = (tuple(jnp.linalg.eig(e)), jnp.linalg.eigvals(e))"),
]
