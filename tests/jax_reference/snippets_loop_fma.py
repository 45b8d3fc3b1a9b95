"""Snippets for the multiply-adds XLA fuses inside loop and branch bodies and into the kernels a
product is copied into (engine/backends/multiply_add.py): compared bit for bit (rtol 0).
Registered in snippets.py."""

DATA = (
    "rng = np.random.default_rng(0)\n"
    "a = np.float32(rng.normal())\n"
    "p, x, y = rng.normal(size=(3, 64)).astype(np.float32)\n"
    "M = rng.normal(size=(64, 8)).astype(np.float32)\n"
)

_CASES = {
    "fori": "lambda x, y: lax.fori_loop(0, 6, lambda i, c: c * 1.01 + y, x)",
    "fori_dynamic": "lambda x, y: lax.fori_loop(0, (y[0] > 9).astype(np.int32) + 6, lambda i, c: c * 1.01 + y, x)",
    "scan": "lambda x, y: lax.scan(lambda c, z: (c * 1.5 + z, c), x[:8], jnp.reshape(y, (8, 8)))[0]",
    "cond": "lambda x, y: lax.cond(x[0] > -100, lambda u, v: u * 1.01 + v, lambda u, v: u, x, y)",
    "while_grad": (
        "lambda x, y: lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] - 0.1 * "
        "jax.grad(lambda v: jnp.sum(jnp.tanh(v * y) ** 2))(c[1])), (0, x))[1]"
    ),
}

LOOP_FMA = [
    *[(f"{name}_jit", DATA + f"out = jax.jit({f})(x, y)", 0.0) for name, f in _CASES.items()],
    *[(f"{name}_eager", DATA + f"out = ({f})(x, y)", 0.0) for name, f in _CASES.items()],
    # a scaled array read by a sum and by a matrix product: copied into the sum's kernel, fused there
    ("scaled_product_twice", DATA + "out = jax.jit(lambda a, p, x: (x + a * p, (a * p) @ M))(a, p, x)", 0.0),
    ("scaled_product_output", DATA + "out = jax.jit(lambda a, p, x: (x + a * p, a * p))(a, p, x)", 0.0),
    (
        "scaled_product_vdot",
        DATA + "out = jax.jit(lambda a, p, x, y: (x + a * p, jnp.dot(a * p, y)))(a, p, x, y)",
        0.0,
    ),
    ("two_sums", DATA + "out = jax.jit(lambda a, p, x, y: (x + a * p, y - a * p))(a, p, x, y)", 0.0),
    # a product of arrays also returned or summed: one kernel with both readers, not fused
    ("product_output", DATA + "out = jax.jit(lambda p, x, y: (x + y * p, y * p))(p, x, y)", 0.0),
    ("product_summed", DATA + "out = jax.jit(lambda p, x, y: (x + y * p, jnp.sum(y * p)))(p, x, y)", 0.0),
    (
        "product_one_kernel",
        DATA + "out = jax.jit(lambda a, p, x, y: (x + a * p) * (y + a * p))(a, p, x, y)",
        0.0,
    ),
]

# A product one of whose operands is a broadcast (a row w, a scalar) is effectively unary to XLA: copied
# into every kernel reading it, the reduction's too, so it fuses into each sum (exp(fma(x, w, -max))).
ROWS = (
    "rng = np.random.RandomState(0)\n"
    "X, Y = rng.randn(2, 8, 33).astype(np.float32)\n"
    "w = rng.randn(33).astype(np.float32)\n"
)
_ROW_CASES = {
    "softmax": "lambda a, b: jax.nn.softmax(a * b)",
    "log_softmax": "lambda a, b: jax.nn.log_softmax(a * b)",
    "softmax_16": "lambda a, b: jax.nn.softmax(a[:, :16] * b[:16])",
    "max_keepdims": "lambda a, b: jnp.exp(a * b - jnp.max(a * b, axis=1, keepdims=True))",
    "max_no_keepdims": "lambda a, b: a * b - jnp.max(a * b, axis=1)[:, None]",
    "min": "lambda a, b: a * b - jnp.min(a * b, axis=1, keepdims=True)",
    "row_sum_windows": "lambda a, b: a * b - jnp.sum(a * b, axis=1, keepdims=True)",
    "row_sum_16": "lambda a, b: a[:, :16] * b[:16] + jnp.sum(a[:, :16] * b[:16], axis=1, keepdims=True)",
    "column_sum": "lambda a, b: a * b + jnp.sum(a * b, axis=0)",
    "argmax_min": "lambda a, b: (a * b - 1.0, jnp.argmax(a * b, axis=1), jnp.min(a * b))",
    "output": "lambda a, b: (a * b + Y, a * b)",
    "column_max": "lambda a, b: a.T * b[:, None] - jnp.max(a.T * b[:, None], axis=0)",
    "full_sum_16": "lambda a, b: a[:, :16] * b[:16] + jnp.sum(a[:, :16] * b[:16])",
    # a square reads one array: copied too
    "square_max": "lambda a, b: a**2 - jnp.max(a**2, axis=1, keepdims=True)",
    "square_sum_16": "lambda a, b: a[:, :16] ** 2 - jnp.sum(a[:, :16] ** 2, axis=1, keepdims=True)",
}
LOOP_FMA += [
    (f"row_product_{name}", ROWS + f"out = jax.jit({f})(X, w)", 0.0) for name, f in _ROW_CASES.items()
]
# a product of two whole arrays also reduced: computed once, in a kernel of its own, not fused
LOOP_FMA += [
    (
        "array_product_max",
        ROWS + "out = jax.jit(lambda a: a * Y - jnp.max(a * Y, axis=1, keepdims=True))(X)",
        0.0,
    ),
    (
        "array_product_row_sum",
        ROWS
        + "out = jax.jit(lambda a, b: a * b + jnp.sum(a * b, axis=1, keepdims=True))(X[:, :16], Y[:, :16])",
        0.0,
    ),
]
# A scan unrolled whole is straight-line code to XLA (JAX's _scan_impl): its steps simplify and fuse
# together (a zero carry's first sum is dropped, its product then fused into the next step's sum)
_UNROLLED = {
    "fori_unrolled": "lambda x, y: lax.fori_loop(0, 4, lambda i, c: c * 1.01 + y * c, x, unroll=True)",
    "fori_unrolled_zero": "lambda x, y: lax.fori_loop(0, 3, lambda i, c: c + x * y * i, jnp.zeros_like(x), unroll=True)",
    "scan_unrolled": "lambda x, y: lax.scan(lambda c, z: (c * 1.5 + z * c, c * z), x[:8], jnp.reshape(y, (8, 8)), unroll=True)",
    "scan_unrolled_reverse": (
        "lambda x, y: lax.scan(lambda c, z: (c * z + x[:8], c), jnp.zeros(8), jnp.reshape(y, (8, 8)), reverse=True, unroll=8)"
    ),
    "scan_unroll_beyond": "lambda x, y: lax.scan(lambda c, z: (c * z + c, c), x[:8], jnp.reshape(y, (8, 8)), unroll=20)",
    "grad_of_jit_fori_unrolled": (
        "lambda x, y: jax.grad(lambda v: jax.jit(lambda a: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * a, a, "
        "unroll=True))(v).sum())(x / 3)"
    ),
}
LOOP_FMA += [(f"{name}_jit", DATA + f"out = jax.jit({f})(x, y)", 0.0) for name, f in _UNROLLED.items()]
LOOP_FMA += [
    ("grad_of_jit_fori_unrolled_eager", DATA + f"out = ({_UNROLLED['grad_of_jit_fori_unrolled']})(x, y)", 0.0)
]
