"""Snippets for float32/complex64 LU and triangular solves as JAX's CPU LAPACK/BLAS computes them
(sgetrf, cgetrf, strsm, ctrsm in single precision), and what rests on them: inv, solve, det,
slogdet, lu_factor/lu_solve of singular float32 matrices (infinities and exact zeros, not the huge
finite values a float64 factorization gives). rtol 0: the factors and solves are bit for bit.
Registered in snippets.py."""

# The OpenBLAS kernels JAX's results were recorded with (scipy's OpenBLAS on that machine): another
# CPU's kernels sum in another order, so on such a machine the exact comparisons are skipped.
OPENBLAS_CORE = "SkylakeX"
RNG = "rng = np.random.default_rng(3)\n"
SING = "s = jnp.array([[1., 2, 3], [4, 5, 6], [7, 8, 9]])\n"
# a rank-4 5x5 integer matrix (no 2x2/3x3 closed form for its determinant: the LU's)
RANKDEF = "r = jnp.array(np.arange(25.).reshape(5, 4) @ np.array([[1., 0, 2, -1, 3], [0, 1, 1, 2, -2], [1, 1, 0, 0, 1], [2, -1, 1, 1, 0]]), jnp.float32)\n"

LINALG_F32 = [
    ("inv_singular3", SING + "out = jnp.linalg.inv(s)", 0),
    ("lu_singular3", SING + "out = jax.lax.linalg.lu(s)", 0),
    ("solve_singular3", SING + "out = jnp.linalg.solve(s, jnp.array([1., 2, 3]))", 0),
    ("slogdet_singular3", SING + "out = tuple(jnp.linalg.slogdet(s))", 0),
    ("inv_arange4", "out = jnp.linalg.inv(jnp.arange(16.).reshape(4, 4))", 0),
    (
        "det_slogdet_arange6",
        "a = jnp.arange(36.).reshape(6, 6)\nout = (jnp.linalg.det(a), *jnp.linalg.slogdet(a))",
        0,
    ),
    ("rankdef_inv", RANKDEF + "out = jnp.linalg.inv(r)", 0),
    ("rankdef_solve", RANKDEF + "out = jnp.linalg.solve(r, jnp.linspace(-1., 1., 5))", 0),
    ("rankdef_det_slogdet", RANKDEF + "out = (jnp.linalg.det(r), *jnp.linalg.slogdet(r))"),
    (
        "rankdef_lu_factor_solve",
        RANKDEF
        + "import jax.scipy.linalg as jsl\nlu, piv = jsl.lu_factor(r)\nout = (lu, piv, jsl.lu_solve((lu, piv), jnp.ones(5)))",
        0,
    ),
    ("ones_inv", "out = jnp.linalg.inv(jnp.ones((4, 4)))", 0),
    (
        "lu_random_sizes",
        RNG
        + "out = tuple(jax.lax.linalg.lu(rng.standard_normal((n, n)).astype(np.float32)) for n in (2, 5, 9, 17, 18, 33, 64))",
        0,
    ),
    (
        "lu_rectangular",
        RNG
        + "out = tuple(jax.lax.linalg.lu(rng.standard_normal(s).astype(np.float32)) for s in ((5, 30), (30, 5), (20, 24)))",
        0,
    ),
    (
        "lu_complex64",
        RNG
        + "out = tuple(jax.lax.linalg.lu((rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))).astype(np.complex64)) for n in (3, 8, 20))",
        0,
    ),
    ("lu_batched", RNG + "out = jax.lax.linalg.lu(rng.standard_normal((3, 6, 6)).astype(np.float32))", 0),
    (
        "lu_vmap_jit",
        RNG + "out = jax.jit(jax.vmap(jax.lax.linalg.lu))(rng.standard_normal((2, 7, 7)).astype(np.float32))",
        0,
    ),
    (
        "inv_solve_random",
        RNG
        + "a = rng.standard_normal((12, 12)).astype(np.float32)\nout = (jnp.linalg.inv(a), jnp.linalg.solve(a, jnp.ones((12, 2))))",
        0,
    ),
    (
        "inv_complex64",
        RNG
        + "out = jnp.linalg.inv((rng.standard_normal((6, 6)) + 1j * rng.standard_normal((6, 6))).astype(np.complex64))",
        0,
    ),
    (
        "lu_nonfinite",
        "a = np.arange(1., 17.).reshape(4, 4).astype(np.float32) ** 1.5\na[1, 2] = np.inf\nb = a.copy()\nb[1, 2], b[3, 0] = 1, np.nan\n"
        "out = (jax.lax.linalg.lu(a), jax.lax.linalg.lu(b), jnp.linalg.inv(a))",
        0,
    ),
    # XLA runs its kernels with denormals flushed: a subnormal column reads as zeros (no swap)
    (
        "lu_subnormal",
        "a = jnp.array([[1e-40, 1.], [2e-40, 3.]])\nout = (jax.lax.linalg.lu(a), jnp.linalg.inv(a))",
        0,
    ),
    (
        "triangular_solve_f32",
        RNG
        + "a = rng.standard_normal((9, 9)).astype(np.float32)\nb = rng.standard_normal((9, 4)).astype(np.float32)\n"
        "ts = jax.lax.linalg.triangular_solve\n"
        "out = (ts(a, b, left_side=True, lower=True), ts(a, b, left_side=True, lower=False, transpose_a=True), "
        "ts(a, b.T, lower=True, unit_diagonal=True), ts(a, b.T, lower=False, transpose_a=True))",
        0,
    ),
    (
        "triangular_solve_c64_conj",
        RNG + "a = (rng.standard_normal((5, 5)) + 1j * rng.standard_normal((5, 5))).astype(np.complex64)\n"
        "b = (rng.standard_normal((5, 2)) + 1j * rng.standard_normal((5, 2))).astype(np.complex64)\n"
        "ts = jax.lax.linalg.triangular_solve\n"
        "out = (ts(a, b, left_side=True, lower=True, conjugate_a=True), ts(a, b, left_side=True, transpose_a=True, conjugate_a=True))",
        0,
    ),
    (
        "triangular_solve_zero_diagonal",
        "a = jnp.array([[1., 0], [2., 0]])\nout = jax.lax.linalg.triangular_solve(a, jnp.ones((2, 1)), left_side=True, lower=True)",
        0,
    ),
    (
        "grad_inv_f32",
        RNG
        + "a = rng.standard_normal((5, 5)).astype(np.float32)\nout = jax.grad(lambda a: jnp.sum(jnp.linalg.inv(a) ** 2))(a)",
        1e-6,
    ),
]
