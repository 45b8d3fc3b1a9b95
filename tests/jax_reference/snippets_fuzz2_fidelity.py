"""More of what the second differential fuzz (tests/fidelity/sweep_fuzz2.py) found, issue 13: values
that were silently wrong. XLA's float32 erf is a rational approximation, not the correctly rounded
value (erf(5/sqrt(2)) one ulp high), which moves truncated_normal's samples in the tail; an eager
convert_element_type to a weak type gave a strong array, so a weak float times an int32 array (and
its grad) came out strong. And computations where JAX raises: LAPACK-backed linear algebra of
float16/bfloat16 (NotImplementedError when lowered; make_jaxpr stages it), scipy's lu of a batch
(ValueError), a Python int argument of a jitted jnp/random function outside int32 (OverflowError).
Registered in snippets.py."""

_K = "k = jax.random.key(0)\n"
_X = "x = jnp.array([-3.9, -2.6, -1.4, -0.26, 0.0, 1e-30, 0.21, 1.89, 3.54, 3.85, np.inf, np.nan], jnp.float32)\n"

FUZZ2_FIDELITY = [
    # erf: XLA's float32 kernel, eager and compiled (exactly: rtol 0 compares the float32 bits)
    ("erf_f32", _X + "out = (lax.erf(x), jax.jit(lax.erf)(x))", 0.0),
    ("erf_f16", _X + "out = jax.scipy.special.erf(x.astype(jnp.float16))"),
    ("truncated_normal_tail", _K + "out = jax.random.truncated_normal(k, 5, 6, (4,))", 0.0),
    (
        "truncated_normal_tail_jit_traced_bounds",
        _K + "out = jax.jit(lambda k, a, b: jax.random.truncated_normal(k, a, b, (4,)))(k, 5.0, 6.0)",
        0.0,
    ),
    ("truncated_normal_prngkey", "out = jax.random.truncated_normal(jax.random.PRNGKey(1), 5, 6, (4,))", 0.0),
    # a weak float times a strong int32 array is a weak float32, under every transformation
    *[
        (f"weak_times_int32_{name}", f"out = {call}")
        for name, call in [
            ("grad", "jax.grad(lambda x: x * jnp.int32(3))(2.0)"),
            ("grad_sum", "jax.grad(lambda x: (x * jnp.arange(3, dtype=jnp.int32)).sum())(2.0)"),
            ("grad_div", "jax.grad(lambda x: x / jnp.int32(3))(2.0)"),
            ("grad_add", "jax.grad(lambda x: x + jnp.int32(3))(2.0)"),
            ("grad_maximum", "jax.grad(lambda x: jnp.maximum(x, jnp.int32(3)))(2.0)"),
            ("value_and_grad", "jax.value_and_grad(lambda x: x * jnp.int32(3))(2.0)"),
            ("jvp", "jax.jvp(lambda x: x * jnp.int32(3), (2.0,), (1.0,))"),
            ("jacrev", "jax.jacrev(lambda x: x * jnp.arange(3, dtype=jnp.int32))(2.0)"),
        ]
    ],
    # LAPACK has four dtypes: float16 / bfloat16 matrices raise when run (det of 2x2/3x3 is closed-form)
    *[
        (
            f"lapack_f16_{name}",
            "m = jnp.array([[2.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 1.0]], jnp.float16)\n"
            + f"out = {call}",
        )
        for name, call in [
            ("inv", "jnp.linalg.inv(m)"),
            ("inv_bf16", "jnp.linalg.inv(m.astype(jnp.bfloat16))"),
            ("inv_jit", "jax.jit(jnp.linalg.inv)(m)"),
            ("inv_vmap", "jax.vmap(jnp.linalg.inv)(m[None])"),
            ("solve", "jnp.linalg.solve(m, m[0])"),
            ("slogdet", "jnp.linalg.slogdet(m)"),
            ("det", "jnp.linalg.det(m)"),
            ("cholesky", "jnp.linalg.cholesky(m)"),
            ("qr", "jnp.linalg.qr(m)"),
            ("svd", "jnp.linalg.svd(m)"),
            ("eigh", "jnp.linalg.eigh(m)"),
            ("eig", "jnp.linalg.eig(m)"),
            ("pinv", "jnp.linalg.pinv(m)"),
            ("matrix_rank", "jnp.linalg.matrix_rank(m)"),
            ("lstsq", "jnp.linalg.lstsq(m, m[0])"),
            ("lu_factor", "jax.scipy.linalg.lu_factor(m)"),
            ("schur", "jax.scipy.linalg.schur(m)"),
            ("hessenberg", "jax.scipy.linalg.hessenberg(m)"),
            ("householder_product", "lax.linalg.householder_product(m, m[0])"),
            ("triangular_solve", "lax.linalg.triangular_solve(m, m, left_side=True).shape"),
            ("staged_eig", "str(jax.make_jaxpr(jnp.linalg.eig)(m)).count('eig[')"),
        ]
    ],
    # jax.scipy.linalg.lu takes one matrix (vmap maps it over a batch)
    ("scipy_lu_batch", "out = jax.scipy.linalg.lu(jnp.stack([jnp.eye(3), 2 * jnp.eye(3)]))"),
    ("scipy_lu_vmap", "out = jax.vmap(jax.scipy.linalg.lu)(jnp.stack([jnp.eye(3), 2 * jnp.eye(3)]))"),
    # a Python int argument of a jitted function is parsed as int32: out of range, OverflowError
    *[
        (f"randint_{name}", "k = jax.random.PRNGKey(0)\n" + f"out = {call}")
        for name, call in [
            ("uint32_max", "jax.random.randint(k, (4,), 0, 2**32 - 1, dtype='uint32')"),
            ("int32_past_max", "jax.random.randint(k, (4,), 0, 2**31)"),
            ("int32_full", "jax.random.randint(k, (4,), -(2**31), 2**31 - 1)"),
            ("uint8_wide_bounds", "jax.random.randint(k, (4,), -1000, 1000, dtype='uint8')"),
        ]
    ],
]
