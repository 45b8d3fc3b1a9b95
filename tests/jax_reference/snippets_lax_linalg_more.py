"""``lax.linalg``'s tridiagonal, tridiagonal_solve, symmetric_product, cholesky_update and qdwh:
values, dtypes (float16/bfloat16: LAPACK-backed ones raise), batching, derivatives where JAX has
them and the errors where it refuses; lu of a vector (a TypeError) and float16 triangular_solve.
Registered in snippets.py."""

_A = "a = jnp.array([[4.0, 1.0, 2.0, 0.5], [1.0, 3.0, 0.5, 1.5], [2.0, 0.5, 5.0, -1.0], [0.5, 1.5, -1.0, 6.0]])\n"
_C = (
    _A
    + "c = (a + 1j * jnp.array([[0, 1, -2, 1], [-1, 0, 3, 0], [2, -3, 0, 1], [-1, 0, -1, 0]])).astype(jnp.complex64)\n"
)
_T = (
    "dl = jnp.array([0.0, 1.0, -2.0, 0.5]); d = jnp.array([4.0, 0.5, 6.0, 3.0])\n"
    "du = jnp.array([1.0, 3.0, 0.25, 0.0]); b = jnp.array([[1.0, 0.0], [2.0, 1.0], [3.0, -1.0], [0.5, 2.0]])\n"
)
_S = "p = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); q = jnp.array([[2.0, 0.5], [0.5, 1.0]])\n"
_R = _A + "r = jnp.linalg.cholesky(a).T; w = jnp.array([1.0, 0.5, 0.2, -0.3])\n"
_Q = "x = jnp.array([[3.0, 1.0, 0.5], [1.0, 2.0, 0.0], [0.5, 0.0, 1.0], [1.0, 1.0, 1.0]])\n"
_L = "lax.linalg."

LAX_LINALG_MORE = [
    # tridiagonal: LAPACK's sytrd/hetrd packing
    ("tridiagonal_lower", _A + f"out = {_L}tridiagonal(a)"),
    ("tridiagonal_upper", _A + f"out = {_L}tridiagonal(a, lower=False)"),
    ("tridiagonal_complex", _C + f"out = {_L}tridiagonal(c)"),
    ("tridiagonal_complex_upper", _C + f"out = {_L}tridiagonal(c, lower=False)"),
    ("tridiagonal_batched", _A + f"out = {_L}tridiagonal(jnp.stack([a, 2 * a[::-1, ::-1]]))"),
    ("tridiagonal_vmap_jit", _A + f"out = jax.vmap(jax.jit({_L}tridiagonal), 2)(jnp.stack([a, -a], 2))"),
    ("tridiagonal_1x1", f"out = {_L}tridiagonal(jnp.array([[2.0]]))"),
    ("tridiagonal_jaxpr", _A + f"out = str(jax.make_jaxpr(lambda a: {_L}tridiagonal(a, lower=False))(a))"),
    ("tridiagonal_f16", _A + f"out = {_L}tridiagonal(a.astype(jnp.float16))"),
    ("tridiagonal_bf16", _A + f"out = {_L}tridiagonal(a.astype(jnp.bfloat16))"),
    ("tridiagonal_int", f"out = {_L}tridiagonal(jnp.eye(3, dtype=jnp.int32))"),
    ("tridiagonal_rect", f"out = {_L}tridiagonal(jnp.ones((2, 3)))"),
    ("tridiagonal_empty", f"out = {_L}tridiagonal(jnp.ones((0, 0)))"),
    ("tridiagonal_vector", f"out = {_L}tridiagonal(jnp.ones(3))"),
    ("tridiagonal_grad", _A + f"out = jax.grad(lambda a: {_L}tridiagonal(a)[1].sum())(a)"),
    # tridiagonal_solve: gtsv; linear in b, JAX's JVP in the diagonals
    ("tridiagonal_solve", _T + f"out = {_L}tridiagonal_solve(dl, d, du, b)"),
    ("tridiagonal_solve_pivoting", _T + f"out = {_L}tridiagonal_solve(dl * 10, d * 0.1, du, b)"),
    (
        "tridiagonal_solve_singular",
        _T + f"out = {_L}tridiagonal_solve(dl, d.at[0].set(0.0), du.at[0].set(0.0), b)",
    ),
    (
        "tridiagonal_solve_complex",
        _T + f"out = {_L}tridiagonal_solve(dl + 1j * du, d - 0.5j, du * 1j, b.astype(jnp.complex64))",
    ),
    (
        "tridiagonal_solve_batched",
        _T
        + f"out = {_L}tridiagonal_solve(*(jnp.stack([v, 2 * v]) for v in (dl, d, du)), jnp.stack([b, -b]))",
    ),
    (
        "tridiagonal_solve_vmap_b",
        _T
        + f"out = jax.vmap({_L}tridiagonal_solve, (None, None, None, 2))(dl, d, du, jnp.stack([b, b * 2], 2))",
    ),
    (
        "tridiagonal_solve_vmap_d",
        _T
        + f"out = jax.vmap({_L}tridiagonal_solve, (None, 0, None, None))(dl, jnp.stack([d, d + 1]), du, b)",
    ),
    ("tridiagonal_solve_jit", _T + f"out = jax.jit({_L}tridiagonal_solve)(dl, d, du, b)"),
    (
        "tridiagonal_solve_grad",
        _T + f"out = jax.grad(lambda *v: ({_L}tridiagonal_solve(*v) ** 2).sum(), (0, 1, 2, 3))(dl, d, du, b)",
    ),
    (
        "tridiagonal_solve_jvp",
        _T + f"out = jax.jvp({_L}tridiagonal_solve, (dl, d, du, b), (du, dl, d, b[::-1]))",
    ),
    (
        "tridiagonal_solve_jit_grad_vmap",
        _T + "f = lambda d, b: lax.linalg.tridiagonal_solve(dl, d, du, b).sum()\n"
        "out = jax.jit(jax.vmap(jax.grad(f, (0, 1))))(jnp.stack([d, d * 2]), jnp.stack([b, b]))",
    ),
    ("tridiagonal_solve_jaxpr", _T + f"out = str(jax.make_jaxpr({_L}tridiagonal_solve)(dl, d, du, b))"),
    (
        "tridiagonal_solve_f16",
        _T + f"out = {_L}tridiagonal_solve(*(v.astype(jnp.float16) for v in (dl, d, du, b)))",
    ),
    ("tridiagonal_solve_vector_b", _T + f"out = {_L}tridiagonal_solve(dl, d, du, b[:, 0])"),
    ("tridiagonal_solve_shapes", _T + f"out = {_L}tridiagonal_solve(dl[:3], d, du, b)"),
    ("tridiagonal_solve_b_rows", _T + f"out = {_L}tridiagonal_solve(dl, d, du, b[:3])"),
    ("tridiagonal_solve_dtypes", _T + f"out = {_L}tridiagonal_solve(dl, d, du, b.astype(jnp.complex64))"),
    # symmetric_product: alpha a a^T + beta c, real floats (float16 computed, not LAPACK)
    ("symmetric_product", _S + f"out = {_L}symmetric_product(p, q)"),
    ("symmetric_product_alpha_beta", _S + f"out = {_L}symmetric_product(p, q, alpha=0.5, beta=-2.0)"),
    (
        "symmetric_product_symmetrize",
        _S + f"out = {_L}symmetric_product(p, q, beta=1.0, symmetrize_output=True)",
    ),
    (
        "symmetric_product_batched",
        _S + f"out = {_L}symmetric_product(jnp.stack([p, -p]), jnp.stack([q, q]), beta=1.0)",
    ),
    (
        "symmetric_product_vmap",
        _S + f"out = jax.vmap({_L}symmetric_product, (0, None))(jnp.stack([p, 2 * p]), q)",
    ),
    ("symmetric_product_jit", _S + f"out = jax.jit({_L}symmetric_product)(p, q)"),
    (
        "symmetric_product_f16",
        _S + f"out = {_L}symmetric_product(p.astype(jnp.float16), q.astype(jnp.float16), beta=3.0)",
    ),
    (
        "symmetric_product_bf16",
        _S + f"out = {_L}symmetric_product(p.astype(jnp.bfloat16), q.astype(jnp.bfloat16))",
    ),
    (
        "symmetric_product_jaxpr",
        _S
        + f"out = str(jax.make_jaxpr(lambda p, q: {_L}symmetric_product(p, q, alpha=2.0, beta=3.0))(p, q))",
    ),
    ("symmetric_product_complex", _S + f"out = {_L}symmetric_product(p * 1j, q * 1j)"),
    ("symmetric_product_shapes", _S + f"out = {_L}symmetric_product(p.T, q)"),
    ("symmetric_product_grad", _S + f"out = jax.grad(lambda p: {_L}symmetric_product(p, q).sum())(p)"),
    # cholesky_update: Givens rotations; one matrix, no derivative
    ("cholesky_update", _R + f"out = {_L}cholesky_update(r, w)"),
    (
        "cholesky_update_factor",
        _R + f"u = {_L}cholesky_update(r, w)\nout = u.T @ u - (a + jnp.outer(w, w))",
        1e-4,
    ),
    ("cholesky_update_jit", _R + f"out = jax.jit({_L}cholesky_update)(r, w)"),
    (
        "cholesky_update_f16",
        _R + f"out = {_L}cholesky_update(r.astype(jnp.float16), w.astype(jnp.float16))",
        3e-3,
    ),
    ("cholesky_update_jaxpr", _R + f"out = str(jax.make_jaxpr({_L}cholesky_update)(r, w))"),
    ("cholesky_update_vmap", _R + f"out = jax.vmap({_L}cholesky_update)(r[None], w[None])"),
    ("cholesky_update_batched", _R + f"out = {_L}cholesky_update(r[None], w[None])"),
    ("cholesky_update_grad", _R + f"out = jax.grad(lambda w: {_L}cholesky_update(r, w).sum())(w)"),
    ("cholesky_update_complex", _R + f"out = {_L}cholesky_update(r * 1j, w * 1j)"),
    ("cholesky_update_shapes", _R + f"out = {_L}cholesky_update(r, w[:3])"),
    # qdwh: the polar decomposition by QDWH (built from qr, cholesky, triangular_solve)
    ("qdwh", _Q + f"out = {_L}qdwh(x)", 1e-4),
    ("qdwh_square", _A + f"out = {_L}qdwh(a, max_iterations=3)", 1e-4),
    ("qdwh_jvp", _Q + f"out = jax.jvp(lambda x: {_L}qdwh(x)[:2], (x,), (jnp.ones_like(x),))", 1e-3),
    ("qdwh_grad", _Q + f"out = jax.grad(lambda x: {_L}qdwh(x)[1].sum())(x)"),
    ("qdwh_wide", _Q + f"out = {_L}qdwh(x.T)"),
    # lu of a vector: JAX's rank check (TypeError)
    ("lu_vector", f"out = {_L}lu(jnp.ones(3))"),
    ("scipy_lu_vector", "out = jsp.linalg.lu(jnp.ones(3))"),
    ("lu_factor_vector", "out = jsp.linalg.lu_factor(jnp.ones(3))"),
    ("cholesky_vector", f"out = {_L}cholesky(jnp.ones(3))"),
    ("triangular_solve_vector", f"out = {_L}triangular_solve(jnp.ones(3), jnp.ones(3))"),
    # float16 triangular_solve: XLA's expander in float16, not LAPACK
    (
        "triangular_solve_f16",
        _A + f"out = {_L}triangular_solve(a.astype(jnp.float16), a.astype(jnp.float16), left_side=True)",
    ),
    (
        "triangular_solve_f16_lower",
        _A + f"m = a.astype(jnp.float16)\nout = {_L}triangular_solve(m, m[:2], lower=True, transpose_a=True)",
        2e-3,  # (lower triangles and direct substitution: a float16 ulp off in places)
    ),
    (
        "triangular_solve_bf16",
        _A + f"out = {_L}triangular_solve(a.astype(jnp.bfloat16), a.astype(jnp.bfloat16), left_side=True)",
    ),
    (
        "triangular_solve_f16_right_unit",
        _A + "m = a.astype(jnp.float16)\n"
        f"out = {_L}triangular_solve(m * 3, m[1:], left_side=False, lower=False, unit_diagonal=True)",
    ),
    (
        "triangular_solve_f16_batch_direct",
        _A + "m = jnp.stack([a * (1 + k / 8) for k in range(9)]).astype(jnp.float16)\n"
        f"out = {_L}triangular_solve(m, m[:, :, :2], left_side=True, lower=True)",
        2e-3,
    ),
    (
        "triangular_solve_f16_jit_vmap",
        _A + "m = a.astype(jnp.float16)\n"
        f"out = jax.jit(jax.vmap(lambda b: {_L}triangular_solve(m, b, left_side=True)))(jnp.stack([m, m * 2]))",
    ),
    (
        "solve_triangular_f16",
        _A + "m = a.astype(jnp.float16)\nout = jsp.linalg.solve_triangular(m, m[0], lower=True)",
        2e-3,
    ),
]
