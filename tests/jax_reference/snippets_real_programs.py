"""Pieces of realistic programs (a small transformer's training step), compared bit for bit (rtol
0) with JAX 0.10.2: the eager gradient of a jnp function JAX defines under ``jax.jit``, whose
whole JVP and transpose XLA compiles as one program (``engine/numpy/_staged.py``), and XLA's
A / broadcast(B) => A * broadcast(1/B), which it takes only when B has one use
(``algebraic_simplifier._broadcast_of_one_use``). Registered in snippets.py (``real_programs``)."""

_DATA = (
    "rng = np.random.default_rng(0)\n"
    "z = rng.standard_normal((4, 50)).astype(np.float32)\n"
    "x = (rng.standard_normal((16, 32)) + 0.3).astype(np.float32)\n"
)

# name -> an expression of z and x
_EAGER_GRADS = {
    "log_softmax_grad": "jax.grad(lambda z: jnp.sum(jax.nn.log_softmax(z)))(z)",
    "log_softmax_axis0_grad": "jax.grad(lambda z: jnp.sum(jax.nn.log_softmax(z, axis=0) * z))(z)",
    "log_softmax_vjp": "jax.vjp(jax.nn.log_softmax, z)[1](z)[0]",
    "log_softmax_jvp": "jax.jvp(jax.nn.log_softmax, (z,), (z * 0.5,))[1]",
    "cross_entropy_grad": (
        "jax.grad(lambda z: -jnp.mean(jnp.sum(jax.nn.log_softmax(z) * jax.nn.one_hot(jnp.arange(4), 50), -1)))(z)"
    ),
}

_JIT = {
    "divisor_once": "lambda x: x / jnp.sum(x)",
    "divisor_twice_summed_twice": "lambda x: x / jnp.sum(x) + jnp.cos(x) / jnp.sum(x)",
    "divisor_shared": "lambda x: (lambda s: x / s + jnp.cos(x) / s)(jnp.sum(x))",
    "divisor_shared_outputs": "lambda x: (lambda s: (x / s, jnp.cos(x) / s))(jnp.sum(x))",
    "divisor_and_add": "lambda x: (lambda s: x / s + s)(jnp.sum(x))",
    "divisor_rows_shared": "lambda x: (lambda s: x / s + jnp.cos(x) / s)(jnp.sum(x, 1, keepdims=True))",
    "divisor_columns_shared": "lambda x: (lambda s: x / s + jnp.cos(x) / s)(jnp.sum(x, 0))",
    "divisor_grad": "jax.grad(lambda x: jnp.sum(jnp.sin(x / jnp.sum(x))))",
    "divisor_rows_grad": "jax.grad(lambda x: jnp.sum(jnp.sin(x / jnp.sum(x, 1, keepdims=True))))",
}

# Eager dot_generals XLA keeps with the contracted dimension of ``a`` major (the attention scores'
# einsum transposed to its second operand) or that of a vector's ``b`` minor: Eigen's contraction and
# the GEMVs, not YNNPACK; a matrix ``b`` with its contracted dimension minor (the input gradient of
# ``x @ w``): YNNPACK's cost model's kernel (``lax/dot_order.dot_layout``). name -> an expression of
# q, k, c, v, w, x
_DOT_DATA = (
    "rng = np.random.default_rng(1)\n"
    "q, k = (rng.standard_normal((2, 8, 16)).astype(np.float32) for _ in range(2))\n"
    "c = rng.standard_normal((2, 8, 8)).astype(np.float32)\n"
    "v = rng.standard_normal((37,)).astype(np.float32)\n"
    "w = rng.standard_normal((20, 37)).astype(np.float32)\n"
    "x = rng.standard_normal((6, 37)).astype(np.float32)\n"
)
_DOT_LAYOUTS = {
    "dot_lhs_contracted_major": "lax.dot_general(c, q, (([1], [1]), ([0], [0])))",
    "dot_both_transposed": "lax.dot_general(c[0], c[1], (([0], [1]), ([], [])))",
    "dot_lhs_major_times_vector": "lax.dot_general(w, v[:20], (([0], [0]), ([], [])))",
    "dot_vector_times_rhs_minor": "lax.dot_general(v[:20], w.T.copy(), (([0], [1]), ([], [])))",
    "dot_rhs_contracted_minor": "lax.dot_general(w.T.copy(), w.T.copy(), (([1], [1]), ([], [])))",
    "mlp_input_grad": "jax.grad(lambda x: jnp.sum(jnp.tanh(x @ w.T)))(x)",
    "attention_scores_vjp": 'jax.vjp(lambda q, k: jnp.einsum("btd,bsd->bts", q, k), q, k)[1](c)',
    "attention_values_grad": (
        'jax.grad(lambda p, k: jnp.sum(jnp.sin(jnp.einsum("bts,bsd->btd", jax.nn.softmax(p), k))), 1)(c, k)'
    ),
}

# A one-element sum a * b + a * c, c a constant: XLA's scalar code fuses the second product
# (``backends/multiply_add._scaled_again``): the backward step of a fori_loop's t * 0.9 + sin(t)
_SCALAR_FMA_DATA = (
    "rng = np.random.default_rng(2)\n"
    "k, l = (rng.standard_normal(64).astype(np.float32) for _ in range(2))\n"
    "t = jnp.float32(-0.451)\n"
)
_SCALAR_FMAS = {
    "fori_loop_grad": "jax.grad(lambda t: lax.fori_loop(0, 3, lambda i, t: t * 0.9 + jnp.sin(t), t))(t)",
    "fori_loop_vjp_of_grad": (
        "(lambda y, pb: pb(jnp.sin(y))[0])("
        "*jax.vjp(jax.grad(lambda t: lax.fori_loop(0, 3, lambda i, t: t * 0.9 + jnp.sin(t), t)), t))"
    ),
    "scan_scaled_again": "lax.scan(lambda c, a: (c, a[0] * a[1] + 0.9 * a[0]), 0.0, (k, l))[1]",
    "jit_scalar_scaled_again": "jnp.stack([jax.jit(lambda a, b: a * b + a * 2.5)(a, b) for a, b in zip(k[:8], l[:8])])",
}

# Dots whose operands are stored transposed (XLA folds a transpose of rows and columns into the
# dot, which then reads the operand as stored): a rhs stored (n, k) is YNNPACK's packed kernel,
# the cost model's, for any m; a lhs stored (k, m) is XLA's own loop, one fma chain. The first is
# a transformer's logits (h @ emb.T), the second a dense layer's weight gradient.
_JIT_DOT_DATA = (
    "rng = np.random.default_rng(1)\n"
    "h = rng.standard_normal((2, 8, 16)).astype(np.float32)\n"
    "e = rng.standard_normal((32, 16)).astype(np.float32)\n"
    "a = rng.standard_normal((16, 16)).astype(np.float32)\n"
    "g = rng.standard_normal((16, 16)).astype(np.float32)\n"
    "w = rng.standard_normal((40, 16)).astype(np.float32)\n"
)
_JIT_DOTS = {
    "logits_rhs_transposed_jit": "jax.jit(lambda h, e: h @ e.T)(h, e)",
    "rhs_transposed_einsum_jit": "jax.jit(lambda h, e: jnp.einsum('btd,vd->btv', h, e))(h, e)",
    "rhs_transposed_shared_jit": "jax.jit(lambda a, w: (a @ w.T, w.T * 2))(a, w)",
    "rhs_transposed_batched_jit": (
        "jax.jit(lambda h, k: h @ jnp.swapaxes(k, 1, 2))(h, np.stack([e, e[::-1]]))"
    ),
    "rhs_transposed_dot_general": "lax.dot_general(a, w, (((1,), (1,)), ((), ())))",
    "lhs_transposed_jit": "jax.jit(lambda a, g: a.T @ g)(a, g)",
    "lhs_transposed_dot_general": "lax.dot_general(a, g, (((0,), (0,)), ((), ())))",
    "weight_gradient_jit": "jax.jit(jax.grad(lambda w, a: jnp.sum(jnp.sin(a @ w))))(g, a)",
    "input_gradient_jit": "jax.jit(jax.grad(lambda a, w: jnp.sum(jnp.sin(a @ w.T))))(a, w)",
}

# A matrix product whose one use is its transpose (reverse mode's weight gradients): XLA computes
# transpose(dot(A, B)) as dot(B.T, A.T) for matrices, with a column-major result (its own loop,
# one fma chain an output) for operands of more dimensions.
_TRANSPOSED_DOTS = {
    "transposed_product_jit": "jax.jit(lambda a, g: (a @ g).T)(a, g)",
    "transposed_product_rhs_transposed_jit": "jax.jit(lambda a, w: (a @ w.T).T)(a, w)",
    "transposed_einsum_jit": "jax.jit(lambda h, k: jnp.einsum('btm,btn->mn', h, k).T)(h, h[::-1] * 2)",
    "weight_gradient_batched_jit": "jax.jit(jax.grad(lambda w, h: jnp.sum(jnp.sin(h @ w))))(g, h)",
}

# Sums whose summand is a chain of fused multiply-adds ending in a product, each output's terms
# added in order (a kept axis inside the reduced ones): XLA's reduction addition may reassociate,
# so LLVM threads the accumulator into the chain, acc = fma(a, b, fma(c, d, e * f + acc)) (a GELU
# layer's bias gradient).
_CHAIN_DATA = (
    "rng = np.random.default_rng(2)\n"
    "u = rng.standard_normal((2, 8, 64)).astype(np.float32)\n"
    "v = rng.standard_normal((2, 8, 64)).astype(np.float32)\n"
    "w = rng.standard_normal((2, 8, 64)).astype(np.float32)\n"
    "dh = (rng.standard_normal((2, 8, 16)) * 0.01).astype(np.float32)\n"
    "w2 = (rng.standard_normal((64, 16)) * 0.1).astype(np.float32)\n"
)
_CHAINS = {
    "fma_chain_sum_jit": "jax.jit(lambda x, y, z: jnp.sum(x * y + z * x + y * z, (0, 1)))(u, v, w)",
    "gelu_bias_gradient_jit": (
        "jax.jit(lambda u, dh, w2: jax.vjp(lambda u: jax.nn.gelu(u) @ w2, u)[1](dh)[0].sum((0, 1)))(u, dh, w2)"
    ),
    "gelu_layer_gradients_jit": (
        "jax.jit(jax.grad(lambda c, w1, u, w2: jnp.sum(jnp.sin(jax.nn.gelu(u @ w1 + c) @ w2)), (0, 1)))"
        "(v[0, 0], w[0, :, :].T[:64, :8] @ np.ones((8, 64), np.float32) * 0.01, u[:, :, :64], w2)"
    ),
}

# jax.experimental.ode.odeint (Dormand-Prince steps, the adjoint for gradients): a neural ODE's
# states and parameter gradients, and a jitted system with a parameter. Its error estimate is
# dot(weights (7,), stages (7, 2)): XLA's column-major GEMV, whose first output for N == 2 (the last
# for N % 8 == 1) sums its first 8 steps without fused multiply-adds (``dot_order._unfused_output``).
_ODE_DATA = (
    "from jax.experimental.ode import odeint\n"
    "ks = jax.random.split(jax.random.PRNGKey(0), 2)\n"
    "w1 = jax.random.normal(ks[0], (2, 16)) / jnp.sqrt(2.0)\n"
    "w2 = jax.random.normal(ks[1], (16, 2)) / 4.0\n"
    "field = lambda y, t, w1, w2: jnp.tanh(y @ w1) @ w2\n"
    "ts = jnp.linspace(0.0, 1.0, 5)\n"
    "y0 = jnp.array([1.0, 0.0])\n"
)
_ODES = {
    "odeint_states": "odeint(field, y0, ts, w1, w2)",
    "odeint_adjoint_grad": (
        "jax.grad(lambda p: jnp.sum((odeint(lambda y, t, p: jnp.tanh(y @ p[0] + p[1]) @ p[2], y0, ts, p,"
        " rtol=1e-5, atol=1e-6)[-1] - 1.0) ** 2))((w1, jnp.zeros(16), w2))"
    ),
    "odeint_pytree_state_jit": (
        "jax.jit(lambda a: odeint(lambda y, t, a: {'u': a * y['v'], 'v': -y['u']}, "
        "{'u': jnp.ones(3), 'v': jnp.zeros(3)}, jnp.array([0.0, 0.5, 2.0]), a))(1.5)"
    ),
    "odeint_args_refused": "odeint(field, y0, ts, w1, 'w2')",
}
_GEMV_DATA = (
    "rng = np.random.default_rng(3)\n"
    "x = rng.standard_normal(20).astype(np.float32)\n"
    "b = rng.standard_normal((20, 17)).astype(np.float32)\n"
)
_GEMVS = {
    "vector_matrix_two_columns": "jnp.dot(x[:7], b[:7, :2])",
    "vector_matrix_nine_columns": "jnp.dot(x, b[:, :9])",
    "vector_matrix_seventeen_columns_jit": "jax.jit(jnp.dot)(x, b)",
    "vector_matrix_two_steps": "jnp.dot(x[:2], b[:2, :9])",
    "matrix_major_times_vector_two": "lax.dot_general(b[:, :2], x, (([0], [0]), ([], [])))",
    "matrix_major_times_vector_nine": "lax.dot_general(b[:, :9], x, (([0], [0]), ([], [])))",
}

# XLA inlines nested calls before simplifying, so (A * C1) * C2 => A * fl(C1 * C2) reaches into a
# jitted callee (``call_inlining``): a Langevin step's noise, sqrt(2 eps) * normal(k), where
# ``normal`` is sqrt(2) * erfinv(u) inside JAX's own jit.
_INLINED = {
    "scaled_normal_jit": "jax.jit(lambda k: jnp.sqrt(2e-3) * jax.random.normal(k, (16,)))(jax.random.PRNGKey(7))",
    "langevin_step_jit": (
        "jax.jit(lambda w, k: w + 1e-3 * jnp.cos(w) + jnp.sqrt(2e-3) * jax.random.normal(k, w.shape))"
        "(jnp.linspace(-1.0, 1.0, 16), jax.random.PRNGKey(3))"
    ),
    "nested_constant_products_jit": (
        "jax.jit(lambda x: 0.3 * jax.jit(lambda x: jax.jit(lambda x: 1.4142135 * jnp.sin(x))(x))(x))"
        "(jnp.linspace(-2.0, 2.0, 16))"
    ),
}

# A product two components of a jnp.stack read (CSE makes the two traced products one): XLA fuses the
# stack into the kernel of both, where the product has two uses, so LLVM fuses it into neither sum
# (``multiply_add._CHEAP``: the engine's stack is XLA's concatenate). Lotka-Volterra's field.
_STACKED = {
    "stacked_shared_product_jit": (
        "jnp.stack([jax.jit(lambda y, a, b: jnp.stack([a * y[0] - b * y[0] * y[1], -y[1] + b * y[0] * y[1]]))"
        "(y, 1.1, 0.4) for y in np.random.default_rng(0).standard_normal((12, 2)).astype(np.float32)])"
    ),
    "odeint_lotka_volterra": (
        "jax.experimental.ode.odeint(lambda y, t, a, b: jnp.stack([a * y[0] - b * y[0] * y[1], "
        "-y[1] + b * y[0] * y[1]]), jnp.array([1.0, 0.5]), jnp.linspace(0.0, 3.0, 4), 1.1, 0.4)"
    ),
}

# A dot whose contracted dimensions have size 1 is XLA's product of broadcasts, fused into the sum
# reading it (``simplifier_dots._dot``): a Kalman filter's m + K @ r, an outer product by dot.
_DEGENERATE_DATA = (
    "rng = np.random.default_rng(4)\n"
    "m, r = rng.standard_normal(2).astype(np.float32), rng.standard_normal(1).astype(np.float32)\n"
    "K, B = rng.standard_normal((2, 1)).astype(np.float32), rng.standard_normal((1, 5)).astype(np.float32)\n"
    "A, C = rng.standard_normal((3, 6, 1)).astype(np.float32), rng.standard_normal((3, 6, 5)).astype(np.float32)\n"
)
_DEGENERATE_DOTS = {
    "kalman_update_jit": "jnp.stack([jax.jit(lambda m, K, r: m + K @ r)(m * i, K, r) for i in range(1, 13)])",
    "outer_product_by_dot_jit": "jax.jit(lambda A, B, C: C[0] + A[0] @ B)(A, B, C)",
    "batched_outer_product_jit": "jax.jit(lambda A, B, C: C - A @ jnp.broadcast_to(B, (3, 1, 5)))(A, B, C)",
}

# A transformer step's other jitted gradients: layer norm's backward sums -(a * b), whose product
# XLA's kernel fuses into the sum all the same (``multiply_add.contract``); cos copied into every
# kernel reading it (cheap for XLA's fusion) and the product LLVM's Reassociate ranks first fused
# (``backends/operand_ranks``); the embedding's gradient: transpose(transpose(dot)) is the dot, and
# its gathered rows scattered onto the logits' gradient, A + scatter_add(0, i, B) =>
# scatter_add(A, i, B); the loss, a sum of gathered log-probabilities, added in order
# (``backends/gathered_sums``); and two whole training steps.
_LN_DATA = (
    "rng = np.random.default_rng(0)\n"
    "x = rng.standard_normal((2, 8, 16)).astype(np.float32)\n"
    "g = (1 + 0.1 * rng.standard_normal(16)).astype(np.float32)\n"
    "b = (0.1 * rng.standard_normal(16)).astype(np.float32)\n"
    "w = rng.standard_normal((2, 8, 16)).astype(np.float32)\n"
    "e = (rng.standard_normal((32, 16)) * 0.5).astype(np.float32)\n"
    "tok = np.array([[7, 3, 7, 1, 7, 7, 2, 7], [7, 0, 7, 3, 7, 5, 7, 7]], np.int32)\n"
    "r = x[:, :, :1] * 0.5\n"
    "ln = lambda x, g, b: (lambda m: (lambda v: (x - m) / jnp.sqrt(v + 1e-5) * g + b)(\n"
    "    ((x - m) ** 2).mean(-1, keepdims=True)))(x.mean(-1, keepdims=True))\n"
)
_TF_DATA = _LN_DATA + (
    "V, D, T, B, F = 32, 16, 8, 2, 64\n"
    "n = lambda *s: (rng.standard_normal(s) * 0.1).astype(np.float32)\n"
    'p = {"emb": n(V, D), "pos": n(T, D), "g1": np.ones(D, np.float32), "b1": np.zeros(D, np.float32),\n'
    '     "wq": n(D, D), "wk": n(D, D), "wv": n(D, D), "wo": n(D, D), "g2": np.ones(D, np.float32),\n'
    '     "b2": np.zeros(D, np.float32), "w1": n(D, F), "c1": np.zeros(F, np.float32), "w2": n(F, D),\n'
    '     "c2": np.zeros(D, np.float32)}\n'
    "toks = rng.integers(0, V, (B, T + 1)).astype(np.int32)\n"
    "def model(p, x):\n"
    '    h = p["emb"][x] + p["pos"]\n'
    '    a = ln(h, p["g1"], p["b1"])\n'
    '    q, k, v = a @ p["wq"], a @ p["wk"], a @ p["wv"]\n'
    '    s = jnp.einsum("btd,bsd->bts", q, k) / jnp.sqrt(float(D))\n'
    "    s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), s, -1e9)\n"
    '    h = h + jnp.einsum("bts,bsd->btd", jax.nn.softmax(s, axis=-1), v) @ p["wo"]\n'
    '    a = ln(h, p["g2"], p["b2"])\n'
    '    h = h + jax.nn.gelu(a @ p["w1"] + p["c1"]) @ p["w2"] + p["c2"]\n'
    '    return h @ p["emb"].T\n'
    "def loss(p, tok):\n"
    "    lp = jax.nn.log_softmax(model(p, tok[:, :-1]))\n"
    "    return -jnp.mean(jnp.take_along_axis(lp, tok[:, 1:, None], -1))\n"
    "step = jax.jit(lambda p, tok: (lambda l, g: (l, jax.tree.map(lambda a, b: a - 0.1 * b, p, g)))(\n"
    "    *jax.value_and_grad(loss)(p, tok)))\n"
    "l0, p1 = step(p, toks)\n"
    "l1, p2 = step(p1, toks)\n"
)
_LAYER_NORMS = {
    "layer_norm_grad_jit": "jax.jit(jax.grad(lambda x, g, b: jnp.sum(ln(x, g, b) * w), (0, 1, 2)))(x, g, b)",
    "layer_norm_sin_grad_jit": "jax.jit(jax.grad(lambda x, g, b: jnp.sum(jnp.sin(ln(x, g, b))), (0, 1, 2)))(x, g, b)",
    "negated_sum_of_products_jit": "jax.jit(lambda x, r: jnp.sum(-((x - r) * r), -1))(x, r)",
    "second_product_ranked_first_jit": "jax.jit(lambda x, r, s: jnp.cos(x) * r + x * s)(x, r, r[::-1])",
    "first_product_kept_jit": "jax.jit(lambda x, y, r, s: jnp.cos(x) * r + y * s)(x, w, r, r[::-1])",
    "tied_embedding_grad_jit": "jax.jit(jax.grad(lambda e, x: jnp.sum(jnp.sin(x @ e.T) * 0.5), (0, 1)))(e, x)",
    "gathered_rows_grad_jit": "jax.jit(jax.grad(lambda e: jnp.sum(jnp.sin(e[tok])) + jnp.sum(jnp.cos(e))))(e)",
    "gathered_mean_jit": "jax.jit(lambda y, t: -jnp.mean(jnp.take_along_axis(y, t, -1)))(x, tok[:, :, None] % 16)",
}
_STEPS = {
    "transformer_two_steps_jit": "[l0, l1, *jax.tree.leaves(p2)]",
}

# A scan whose carry starts as a Python float: the body's weak-typed 0.95 * carry is made strong by
# a convert_element_type, which XLA does not have (no weak types: JAX lowers it to nothing), so the
# product fuses into the sum reading it (``flat_program._no_op_convert``). Generalized advantage
# estimation, scanned in reverse.
_WEAK_CARRY_DATA = (
    "rng = np.random.default_rng(5)\n"
    "r, v = rng.standard_normal(10).astype(np.float32), rng.standard_normal(11).astype(np.float32)\n"
    "gae = lambda c, x: (lambda a: (a, a))(x[0] + 0.99 * x[2] - x[1] + 0.99 * 0.95 * c)\n"
)
_WEAK_CARRIES = {
    "gae_reverse_scan": "lax.scan(gae, 0.0, (r, v[:-1], v[1:]), reverse=True)",
    "weak_carry_scan_jit": "jax.jit(lambda r, v: lax.scan(gae, 0.0, (r, v[:-1], v[1:])))(r, v)",
    "weak_carry_fori_loop": "lax.fori_loop(0, 10, lambda i, c: r[i] - v[i] + 0.9405 * c, 0.0)",
}

# An eager exp or log of a vector of 3, 5, 6 or 7 elements (or 8 more): XLA's kernel computes
# those last elements with the C library's expf/logf, not its own polynomial (``libm_f32.TAILS``):
# a gamma log-density of 5 points, a softmax's exponentials written out, a few log-likelihoods.
_SHORT_DATA = (
    "rng = np.random.default_rng(6)\n"
    "u = np.exp(rng.uniform(-4, 4, 64)).astype(np.float32)\n"
    "w = rng.uniform(-9, 9, 64).astype(np.float32)\n"
)
_SHORT_VECTORS = {
    "gamma_logpdf_five_points": "jax.scipy.stats.gamma.logpdf(jnp.linspace(0.1, 3, 5), 2.0, scale=0.5)",
    "exp_of_three": "jnp.exp(jnp.array([1.0, 2.0, 3.0]))",
    "short_logs": "[jnp.log(u[k:k + n]) for n in (3, 5, 6, 7, 11, 13, 14, 15) for k in range(0, 48, 8)]",
    "short_exps": "[jnp.exp(w[k:k + n]) for n in (3, 5, 6, 7, 11, 13, 14, 15) for k in range(0, 48, 8)]",
    "vmapped_log_of_three": "jax.vmap(jnp.log)(jnp.linspace(0.1, 3, 3))",
    "exp_in_eager_fori_loop": "lax.fori_loop(0, 3, lambda i, c: jnp.exp(c) * 0.1, w[:3] * 0.1)",
    "polynomial_logs_kept": "[jnp.log(u[:n]) for n in (1, 2, 4, 9, 10, 12, 16, 19)] + [jnp.log(u[:6].reshape(2, 3))]",
}

# A window sum adds the window's elements one by one in row-major order (XLA's loop), where numpy's
# reduction of 9 or more is pairwise (``windowed._impl``): a CNN's 3x3 average pooling.
_POOL_DATA = (
    "rng = np.random.default_rng(7)\n"
    "x = rng.standard_normal((2, 1, 12, 12)).astype(np.float32)\n"
    "pool = lambda x, s: lax.reduce_window(x, 0.0, lax.add, (1, 1, 3, 3), (1, 1, s, s), 'VALID') / 9.0\n"
)
_POOLS = {
    "avg_pool_3x3": "pool(x, 1)",
    "avg_pool_3x3_strided": "pool(x, 2)",
    "avg_pool_3x3_grad_jit": "jax.jit(jax.grad(lambda x: jnp.sum(pool(x, 1) ** 2)))(x)",
    "window_sum_4x4": "lax.reduce_window(x, 0.0, lax.add, (1, 1, 4, 4), (1, 1, 4, 4), 'VALID')",
}

# A dot of a vector with itself is XLA's sum of its squares (a dot of two vectors is strength-reduced
# to a product and a sum; a square's products are added unfused): conjugate gradients' r . r in its
# while loop, and the gradient of a custom_linear_solve that runs it (``simplifier_dots._square_summed``).
_SQUARES_DATA = (
    "rng = np.random.default_rng(8)\n"
    "rs = rng.standard_normal((12, 3)).astype(np.float32)\n"
    "A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]], np.float32)\n"
    "cg = lambda mv, b: jax.scipy.sparse.linalg.cg(mv, b, tol=1e-8)[0]\n"
)
_SQUARES = {
    "vector_dot_itself_jit": "jnp.stack([jax.jit(lambda r: r @ r)(r) for r in rs])",
    "vector_dot_itself_fori_loop": "lax.fori_loop(0, 12, lambda i, c: c + rs[i] @ rs[i] * 0 + jnp.vdot(c, c), rs[0] * 0.3)",
    "cg_solve_grad": (
        "jax.grad(lambda b: jnp.sum(lax.custom_linear_solve(lambda x: A @ x, b, cg, symmetric=True) ** 2))"
        "(jnp.array([1.0, 2.0, 3.0]))"
    ),
}

# Per-example gradients with label smoothing: an eager dot whose contracted dimensions have size 1
# (or none: vmap(grad) of ``x @ w`` is a batched outer product) is XLA's product, which keeps
# x * -0's sign where a sum from +0 does not (``dot_general._contracted``; signs compared, which
# values are not); and a cotangent times a
# broadcast -1 is a negation to LLVM, not a product to fuse (``multiply_add._unit_sign``).
_SMOOTH_DATA = (
    "rng = np.random.default_rng(9)\n"
    "z = (2 * rng.standard_normal((16, 10))).astype(np.float32)\n"
    "t = (np.eye(10, dtype=np.float32)[rng.integers(0, 10, 16)] * 0.9 + 0.01).astype(np.float32)\n"
    "x = rng.standard_normal((16, 8)).astype(np.float32)\n"
    "d = np.where(rng.uniform(size=(16, 32)) < 0.5, 0.0, rng.standard_normal((16, 32))).astype(np.float32)\n"
    "sx = lambda z, t: -jnp.sum(t * jax.nn.log_softmax(z))\n"
)
_SMOOTHED = {
    "outer_product_zero_signs": "np.signbit(lax.dot_general(x[0], d[0], (([], []), ([], []))))",
    "contracted_size_one_zero_signs": (
        "[np.signbit(x[:, :1].T @ d[:1]), np.signbit(lax.dot_general(x[:, None], d[:, None], (([1], [1]), ([0], [0]))))]"
    ),
    "per_example_outer_grads": (
        "np.signbit(jax.vmap(jax.grad(lambda w, x, d: jnp.sum(jax.nn.relu(x @ w) * d[:5])), (None, 0, 0))(d[:8, :5], x, d))"
    ),
    "smoothed_xent_grad_jit": "jax.jit(jax.grad(sx))(z[0], t[0])",
    "smoothed_xent_rows_grad_jit": "jax.jit(jax.grad(sx))(z, t)",
    "smoothed_xent_per_example_jit": "jax.jit(jax.vmap(jax.value_and_grad(sx)))(z, t)",
}

# A mixture density network's scaled residuals: XLA rewrites A / exp(B) as A * exp(-B) for any A
# (``algebraic_simplifier._div``; a subnormal product flushes to zero as in XLA).
_MDN_DATA = (
    "rng = np.random.default_rng(10)\n"
    "mu, y = rng.standard_normal((64, 3)).astype(np.float32), rng.standard_normal((64, 1)).astype(np.float32)\n"
    "ls = (0.3 * rng.standard_normal((64, 3))).astype(np.float32)\n"
    "lp = lambda y, mu, ls: -0.5 * ((y - mu) / jnp.exp(ls)) ** 2 - ls - 0.5 * jnp.log(2 * jnp.pi)\n"
)
_MDNS = {
    "mdn_log_density_jit": "jax.jit(lp)(y, mu, ls)",
    "mdn_nll_jit": "jax.jit(lambda y, mu, ls: -jnp.mean(jax.scipy.special.logsumexp(lp(y, mu, ls), -1)))(y, mu, ls)",
    "mdn_nll_grad_jit": "jax.jit(jax.grad(lambda mu, ls: jnp.sum(lp(y, mu, ls)), (0, 1)))(mu, ls)",
    "divided_by_exp_flushed_jit": "jax.jit(lambda x, y: (y / jnp.exp(x)) * jnp.exp(x))(jnp.float32(100.0), jnp.float32(2.0))",
}

# Bayesian linear regression's X.T @ y and X.T @ X of closed-over data under jit: XLA folds them
# while compiling, its evaluator adding a matrix-vector dot's products one by one in float32 (a dot
# of two vectors is strength-reduced to a reduce): ``constant_folding._evaluated_dot``.
_FOLDED_DATA = (
    "rng = np.random.default_rng(11)\n"
    "X = jnp.asarray(rng.standard_normal((30, 3)).astype(np.float32))\n"
    "y = jnp.asarray(rng.standard_normal(30).astype(np.float32))\n"
)
_FOLDED = {
    "folded_matrix_vector_jit": "jax.jit(lambda b: b * (X.T @ y))(2.0)",
    "folded_gram_matrix_jit": "jax.jit(lambda a, b: a * jnp.eye(3) + b * X.T @ X)(1.0, 11.1)",
    "folded_solve_rhs_jit": "jax.jit(lambda b, A: b * jnp.linalg.solve(A, X.T @ y))(11.1, jnp.eye(3) + 11.1 * X.T @ X)",
    "folded_vector_dot_jit": "jax.jit(lambda: y @ y)()",
}

REAL_PROGRAMS = [
    *[(name, _DATA + f"out = {expr}", 0.0) for name, expr in _EAGER_GRADS.items()],
    *[(name, _DOT_DATA + f"out = {expr}", 0.0) for name, expr in _DOT_LAYOUTS.items()],
    *[(f"{name}_jit", _DATA + f"out = jax.jit({f})(x)", 0.0) for name, f in _JIT.items()],
    *[(name, _SCALAR_FMA_DATA + f"out = {expr}", 0.0) for name, expr in _SCALAR_FMAS.items()],
    *[(name, _JIT_DOT_DATA + f"out = {expr}", 0.0) for name, expr in _JIT_DOTS.items()],
    *[(name, _CHAIN_DATA + f"out = {expr}", 0.0) for name, expr in _CHAINS.items()],
    *[(name, _JIT_DOT_DATA + f"out = {expr}", 0.0) for name, expr in _TRANSPOSED_DOTS.items()],
    *[(name, _ODE_DATA + f"out = {expr}", 0.0) for name, expr in _ODES.items()],
    *[(name, _GEMV_DATA + f"out = {expr}", 0.0) for name, expr in _GEMVS.items()],
    *[(name, f"out = {expr}", 0.0) for name, expr in _INLINED.items()],
    *[(name, f"import jax.experimental.ode\nout = {expr}", 0.0) for name, expr in _STACKED.items()],
    *[(name, _DEGENERATE_DATA + f"out = {expr}", 0.0) for name, expr in _DEGENERATE_DOTS.items()],
    *[(name, _LN_DATA + f"out = {expr}", 0.0) for name, expr in _LAYER_NORMS.items()],
    *[(name, _TF_DATA + f"out = {expr}", 0.0) for name, expr in _STEPS.items()],
    *[(name, _WEAK_CARRY_DATA + f"out = {expr}", 0.0) for name, expr in _WEAK_CARRIES.items()],
    *[(name, _SHORT_DATA + f"out = {expr}", 0.0) for name, expr in _SHORT_VECTORS.items()],
    *[(name, _POOL_DATA + f"out = {expr}", 0.0) for name, expr in _POOLS.items()],
    *[(name, _SQUARES_DATA + f"out = {expr}", 0.0) for name, expr in _SQUARES.items()],
    *[(name, _SMOOTH_DATA + f"out = {expr}", 0.0) for name, expr in _SMOOTHED.items()],
    *[(name, _MDN_DATA + f"out = {expr}", 0.0) for name, expr in _MDNS.items()],
    *[(name, _FOLDED_DATA + f"out = {expr}", 0.0) for name, expr in _FOLDED.items()],
]
