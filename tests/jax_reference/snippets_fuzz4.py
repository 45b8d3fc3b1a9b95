"""What the fourth differential fuzz (issue 13) and the differences fuzz3 left found: lax.mul of
bools computed (JAX refuses them, as it does add and sub; jnp.multiply of bools is an ``and``); a
scalar constant made inside a trace (``jnp.int32(3)``) kept its convert_element_type in the
jaxpr where JAX's staging folds it to the literal ``3.0``; lax.linalg.tridiagonal_solve with
perturb_singular=True raised NotImplementedError (now jaxlib's perturbing elimination). Registered in snippets.py."""

_B = "b = jnp.array([True, False])\n"
_TRI = (
    "ts = lambda *a: lax.linalg.tridiagonal_solve(*a, perturb_singular=True)\n"
    "dl = jnp.array([0.0, 1.5, -2.0, 0.25, 3.0])\n"
    "d = jnp.array([1.0, -0.5, 2.0, 0.125, -1.0])\n"
    "du = jnp.array([0.5, 2.0, -1.0, 4.0, 0.0])\n"
    "b = jnp.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.0], [2.0, 1.0], [0.25, -0.75]])\n"
    "o = jnp.array([0.0, 1.0, 1.0])\n"
)

FUZZ4 = [
    # lax.mul takes numbers only, eagerly, under jit and vmap; jnp.multiply of bools is logical and
    ("refuse_mul_bool", _B + "out = lax.mul(b, b)"),
    ("refuse_mul_bool_jit", _B + "out = jax.jit(lax.mul)(b, b)"),
    ("refuse_mul_bool_vmap", _B + "out = jax.vmap(lax.mul)(b, b)"),
    ("refuse_mul_bool_scalar", "out = lax.mul(True, False)"),
    (
        "multiply_bool",
        _B + "out = (jnp.multiply(b, b[::-1]), b * True, jnp.prod(b), jax.jit(jnp.multiply)(b, b))",
    ),
    # a scalar jnp constant made in the trace folds into the literal its conversion gives
    *[
        (f"folded_scalar_{name}", f"out = str(jax.make_jaxpr({call})(1.0))")
        for name, call in [
            ("mul", "lambda x: x * jnp.int32(3)"),
            ("jacfwd", "jax.jacfwd(lambda x: x * jnp.int32(3))"),
            ("grad", "jax.grad(lambda x: jnp.int32(3) * x + x)"),
            ("jacrev_div", "jax.jacrev(lambda x: x / jnp.int32(2))"),
            ("array", "lambda x: x * jnp.array(3, jnp.int8) + jnp.asarray(np.uint8(2))"),
            ("float_strong", "lambda x: x * jnp.float32(3.0) + jnp.float16(2.0)"),
            ("nonscalar_stays", "lambda x: x * jnp.array([3]) + jnp.arange(2)"),
        ]
    ],
    # tridiagonal_solve(perturb_singular=True): jaxlib's pivoted elimination that perturbs tiny
    # pivots (exact for real dtypes: rtol 0 compares the bits)
    *[
        (f"tridiagonal_perturbed_{name}", _TRI + f"out = {call}", *tol)
        for name, call, *tol in [
            ("singular", "ts(dl, 0 * d, du, b)", 0.0),
            ("diagonal_zero", "ts(0 * dl, d.at[2].set(0.0), 0 * du, b)", 0.0),
            ("tiny", "ts(dl * 1e-20, d * 0 + 1e-30, du, b * 1e30)", 0.0),
            # inverse iteration on [[2, -1, 0], [-1, 2, -1], [0, -1, 2]] at its eigenvalues 2, 2 -+ sqrt(2)
            (
                "eigvec",
                "[ts(-o, w - 0 * o, -o[::-1], jnp.ones((3, 1))) for w in (0.0, 1.4142135, -1.4142135)]",
                0.0,
            ),
            ("one", "(ts(dl[:1], 0 * d[:1], du[:1], b[:1]), ts(dl[:1], d[:1], du[:1], b[:1]))", 0.0),
            ("regular", "(ts(dl, d, du, b), lax.linalg.tridiagonal_solve(dl, d, du, b))", 1e-6),
            ("empty", "ts(dl[:0], d[:0], du[:0], b[:0])"),
            ("f64", "jax.jit(ts)(*(v.astype(jnp.float64) for v in (dl, 0 * d, du, b)))", 0.0),
            ("complex", "ts(dl + 1j, 0 * d + 1j * du, du + 0j, b + 0.5j)", 1e-6),
            (
                "jit_vmap",
                "jax.vmap(jax.jit(ts), (None, 0, None, None))(dl, jnp.stack([d, 0 * d]), du, b)",
                0.0,
            ),
            ("grad", "jax.grad(lambda d: ts(dl, d, du, b).sum())(d.at[1].set(0.0))", 1e-6),
        ]
    ],
]
